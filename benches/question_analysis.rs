//! Question analysis on adversarial questions, in both languages: intent classification and
//! query analysis (keywords, compounds, expansion, time) for questions of 250 to 2,000
//! characters built to be worst cases (one lexicon word repeated, long kanji runs, many distinct
//! words, dates and modifiers). Linear work shows as a time per character that stays flat as the
//! question grows: the bench prints both and the ratio of the 2,000-character time to the
//! 250-character time (8 is linear, 64 quadratic).
//!
//! `cargo bench --bench question_analysis`

use std::time::{Duration, Instant};

use sagasu::config::policy::Policies;

/// Makes a question of about `n` characters.
type Maker = fn(usize) -> String;

/// Adversarial question shapes: a name and how to make one of about `n` characters.
fn shapes() -> Vec<(&'static str, Maker)> {
    vec![
        ("ja: one lexicon word repeated", |n| "価格".repeat(n / 2)),
        ("ja: lexicon words with particles", |n| {
            "決定した価格と期間は".repeat(n / 10)
        }),
        ("ja: a katakana run", |n| "サブスクリプション".repeat(n / 9)),
        ("en: one word repeated", |n| "price ".repeat(n / 6)),
        ("en: distinct words", |n| {
            (0..n / 8).map(|i| format!("word{i:03}")).collect::<Vec<_>>().join(" ")
        }),
        ("mixed: dates, amounts, modifiers", |n| {
            "2026年12月1日 $49 in:#general from:@ken after:2026-01-01 ".repeat(n / 56)
        }),
    ]
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("policies");
    let policies = Policies::load(&dir, &[]).expect("the bundled policies load");
    let now = chrono::Utc::now();
    println!("question analysis (intent + query), median of 15 runs");
    println!(
        "{:<36} {:>10} {:>10} {:>10} {:>10}  ratio 2000/250",
        "shape", "250", "500", "1000", "2000"
    );
    let mut worst: f64 = 0.0;
    for (name, make) in shapes() {
        let mut times = Vec::new();
        for n in [250, 500, 1000, 2000] {
            let q = make(n);
            let runs: Vec<Duration> = (0..15)
                .map(|_| {
                    let t = Instant::now();
                    let a = sagasu::pipeline::query::analyze_question(
                        &q,
                        &policies.intents,
                        None,
                        now,
                        &policies.lexicon,
                        sagasu::text::encoder::shared(),
                    );
                    std::hint::black_box(a);
                    t.elapsed()
                })
                .collect();
            times.push(median(runs));
        }
        let ratio = times[3].as_secs_f64() / times[0].as_secs_f64().max(1e-9);
        worst = worst.max(ratio);
        println!(
            "{name:<36} {:>8.3}ms {:>8.3}ms {:>8.3}ms {:>8.3}ms  {ratio:.1}",
            times[0].as_secs_f64() * 1e3,
            times[1].as_secs_f64() * 1e3,
            times[2].as_secs_f64() * 1e3,
            times[3].as_secs_f64() * 1e3
        );
    }
    println!("worst ratio 2000/250: {worst:.1} (8 = linear, 64 = quadratic)");
}
