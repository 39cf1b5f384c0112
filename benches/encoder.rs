//! The sentence encoder's speed (issue 19): one short question, and a batch of 1,000 passages of
//! about 55 pieces on all cores (`encode_all`). Needs
//! `scripts/install-language-data usem`; without it, says so and measures nothing.
//!
//! `cargo bench --bench encoder`

use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let Some(dir) = sagasu::util::data::dir().map(|d| d.join("usem")) else {
        println!("encoder: no data directory (set SAGASU_DATA or HOME)");
        return;
    };
    let started = Instant::now();
    let encoder = match sagasu::text::encoder::Encoder::load(&dir) {
        Ok(e) => e,
        Err(e) => {
            println!("encoder: not installed ({e}); run scripts/install-language-data usem");
            return;
        }
    };
    println!("encoder: loaded in {} ms", started.elapsed().as_millis());
    let question = "What did we decide about the Pro plan price?";
    let runs: Vec<Duration> = (0..50)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(encoder.encode(question));
            t.elapsed()
        })
        .collect();
    let q = median(runs);
    println!(
        "one short question ({} pieces): {:.2} ms at the median (target < 3 ms): {}",
        encoder.tokenizer().encode(question).len(),
        q.as_secs_f64() * 1e3,
        if q < Duration::from_millis(3) { "ok" } else { "MISSED" }
    );
    let passage = "The billing service moved from MySQL to PostgreSQL 16 on November 16; MySQL is read-only \
                   and will be decommissioned on December 15, after the last export. \
                   請求システムのデータベースはPostgreSQLへ移行済みです。";
    let pieces = encoder.tokenizer().encode(passage).len();
    let texts: Vec<String> = (0..1_000).map(|i| format!("{passage} ({i})")).collect();
    let t = Instant::now();
    std::hint::black_box(encoder.encode_all(&texts));
    let batch = t.elapsed();
    println!(
        "1,000 passages of about {pieces} pieces: {:.2} s (target < 2 s): {}",
        batch.as_secs_f64(),
        if batch < Duration::from_secs(2) { "ok" } else { "MISSED" }
    );
}
