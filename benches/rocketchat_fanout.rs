//! Live RocketChat fan-out: 300 rooms, each answering `chat.search` 20 ms late, searched 6 at a
//! time should take within 1.15x of the ideal ceil(300/6) x 20 ms = 1 s. Prints the ratio, and
//! how wall time scales with the concurrency limit.
//!
//! `cargo bench --bench rocketchat_fanout`

use std::sync::Arc;
use std::time::{Duration, Instant};

use sagasu::servers::live::rocketchat::{Client, Settings};
use sagasu::servers::offline::rocketchat::{RcMessage, RcRoom, RcUser, RcUserRef, SearchArgs};

#[path = "../tests/it/fake_rocketchat.rs"]
mod fake;

const ROOMS: usize = 300;
const DELAY: Duration = Duration::from_millis(20);

fn workspace() -> (Vec<RcRoom>, Vec<RcMessage>, Vec<RcUser>) {
    let rooms: Vec<RcRoom> = (0..ROOMS)
        .map(|i| RcRoom {
            id: format!("room{i:03}"),
            t: ["c", "p", "d"][i % 3].into(),
            name: Some(format!("room-{i}")),
            fname: None,
        })
        .collect();
    let user = RcUserRef {
        id: "u1".into(),
        username: "aiko".into(),
        name: Some("Aiko Tanaka".into()),
    };
    let messages = (0..ROOMS * 4)
        .map(|i| RcMessage {
            id: format!("m{i:05}"),
            rid: format!("room{:03}", i % ROOMS),
            msg: if i % 2 == 0 {
                format!("deploy report {i}: the release went out")
            } else {
                format!("lunch plans {i}")
            },
            ts: format!("2026-11-{:02}T{:02}:00:00.000Z", 1 + i % 28, i % 24),
            u: user.clone(),
            tmid: None,
            tcount: None,
            room: None,
        })
        .collect();
    (rooms, messages, vec![])
}

async fn run(url: &str, concurrency: usize) -> (Duration, usize) {
    let mut s = Settings::new(url, fake::USER_ID, fake::TOKEN);
    s.concurrency = concurrency;
    s.deadline = Duration::from_secs(60);
    let client = Client::new(s).expect("client");
    let args = SearchArgs {
        query: "release".into(),
        ..Default::default()
    };
    let start = Instant::now();
    let r = client.search(&args).await.expect("search");
    (start.elapsed(), r.rooms_searched)
}

#[tokio::main]
async fn main() {
    let (rooms, messages, users) = workspace();
    let fake = Arc::new(fake::Fake::new(
        rooms,
        messages,
        users,
        fake::Behaviour {
            search_delay: DELAY,
            ..Default::default()
        },
    ));
    let url = fake::start(fake).await;
    run(&url, 6).await; // warm up the connection pool
    println!(
        "live RocketChat fan-out: {ROOMS} rooms, each answering in {} ms",
        DELAY.as_millis()
    );
    for concurrency in [1, 3, 6, 12, 24] {
        let ideal = DELAY * ROOMS.div_ceil(concurrency) as u32;
        let mut runs = Vec::new();
        for _ in 0..(if concurrency == 1 { 1 } else { 5 }) {
            let (t, searched) = run(&url, concurrency).await;
            assert_eq!(searched, ROOMS);
            runs.push(t);
        }
        runs.sort();
        let median = runs[runs.len() / 2];
        let ratio = median.as_secs_f64() / ideal.as_secs_f64();
        let target = if concurrency == 6 { " (target <= 1.15)" } else { "" };
        println!(
            "  concurrency {concurrency:>2}: median {:>7.1} ms, ideal {:>6.0} ms, ratio {ratio:.3}{target}",
            median.as_secs_f64() * 1e3,
            ideal.as_secs_f64() * 1e3
        );
    }
}
