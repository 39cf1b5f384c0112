//! Offline Slack at scale: generates a 100,000-message Slack export, indexes it, and runs
//! searches. Prints the indexing time and the search latency (median, p95) against the targets
//! (index < 15 s, median search < 20 ms).
//!
//! `cargo bench --bench offline_slack` (set `SAGASU_BENCH_MESSAGES` to change the size).

use std::time::{Duration, Instant};

use sagasu::servers::offline::slack::{SearchRequest, SlackExport};

const WORDS: &[&str] = &[
    "deploy",
    "release",
    "invoice",
    "pricing",
    "customer",
    "database",
    "postgres",
    "migration",
    "kubernetes",
    "incident",
    "latency",
    "dashboard",
    "review",
    "design",
    "mobile",
    "android",
    "ios",
    "webhook",
    "export",
    "report",
    "budget",
    "forecast",
    "hiring",
    "onboarding",
    "security",
    "audit",
    "certificate",
    "login",
    "payment",
    "refund",
    "contract",
    "renewal",
    "discount",
    "quota",
    "pipeline",
    "roadmap",
    "sprint",
    "ticket",
    "bug",
    "feature",
    "flag",
    "rollout",
    "cache",
    "queue",
    "worker",
    "memory",
    "cpu",
    "disk",
    "alert",
    "oncall",
    "postmortem",
    "meeting",
    "notes",
    "decision",
    "approve",
    "blocked",
    "shipped",
];
const JA: &[&str] = &[
    "リリース",
    "請求書",
    "障害",
    "対応",
    "確認",
    "移行",
    "データベース",
    "会議",
    "決定",
    "延期",
    "価格",
    "顧客",
];

fn generate(dir: &std::path::Path, n: usize) {
    let mut seed: u64 = 0x5eed;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let channels: Vec<String> = (0..20).map(|i| format!("channel-{i:02}")).collect();
    let users: Vec<serde_json::Value> = (0..50)
        .map(|i| serde_json::json!({"id": format!("U{i:04}"), "name": format!("user{i}"), "real_name": format!("User {i}"), "profile": {"real_name": format!("User {i}")}}))
        .collect();
    std::fs::write(dir.join("users.json"), serde_json::to_string(&users).unwrap()).unwrap();
    let ch: Vec<serde_json::Value> = channels
        .iter()
        .enumerate()
        .map(|(i, c)| serde_json::json!({"id": format!("C{i:04}"), "name": c, "created": 0}))
        .collect();
    std::fs::write(dir.join("channels.json"), serde_json::to_string(&ch).unwrap()).unwrap();
    let per_file = 50;
    let start = 1_767_225_600u64; // 2026-01-01
    let mut files: std::collections::BTreeMap<(usize, u64), Vec<serde_json::Value>> = Default::default();
    for i in 0..n {
        let c = (next() % channels.len() as u64) as usize;
        let day = (i / (per_file * channels.len())) as u64;
        let len = 8 + next() % 20;
        let mut text: Vec<&str> = (0..len)
            .map(|_| WORDS[(next() % WORDS.len() as u64) as usize])
            .collect();
        if next() % 3 == 0 {
            text.push(JA[(next() % JA.len() as u64) as usize]);
        }
        let ts = format!("{}.{:06}", start + day * 86_400 + (next() % 86_400), i % 1_000_000);
        files.entry((c, day)).or_default().push(serde_json::json!({"type": "message", "user": format!("U{:04}", next() % 50), "text": text.join(" "), "ts": ts}));
    }
    for ((c, day), msgs) in files {
        let folder = dir.join(&channels[c]);
        std::fs::create_dir_all(&folder).unwrap();
        let date = chrono::DateTime::from_timestamp((start + day * 86_400) as i64, 0)
            .unwrap()
            .format("%Y-%m-%d");
        let path = folder.join(format!("{date}.json"));
        let mut existing: Vec<serde_json::Value> = std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        existing.extend(msgs);
        std::fs::write(path, serde_json::to_string(&existing).unwrap()).unwrap();
    }
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let n: usize = std::env::var("SAGASU_BENCH_MESSAGES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let dir = tempfile::tempdir().unwrap();
    let t = Instant::now();
    generate(dir.path(), n);
    println!("generated {n} messages in {:.1} s", t.elapsed().as_secs_f64());

    let t = Instant::now();
    let export = SlackExport::load(dir.path()).unwrap();
    let index_time = t.elapsed();
    assert_eq!(export.messages.len(), n);
    println!(
        "offline slack: indexed {n} messages in {:.2} s (target < 15 s): {}",
        index_time.as_secs_f64(),
        if index_time.as_secs_f64() < 15.0 {
            "ok"
        } else {
            "MISSED"
        }
    );

    let queries = [
        "postgres migration incident",
        "invoice export latency",
        "pricing discount renewal",
        "deploy rollout flag",
        "リリース 延期",
        "請求書 障害",
        "security audit certificate in:#channel-03",
        "oncall postmortem from:@user7",
        "budget forecast after:2026-02-01 before:2026-03-01",
        "\"memory worker\" queue",
    ];
    for q in queries {
        let _ = export
            .render(&SearchRequest {
                query: q.into(),
                ..Default::default()
            })
            .unwrap();
    }
    let mut times = Vec::new();
    for round in 0..30 {
        for q in queries {
            let t = Instant::now();
            let md = export
                .render(&SearchRequest {
                    query: q.into(),
                    limit: Some(20),
                    ..Default::default()
                })
                .unwrap();
            times.push(t.elapsed());
            if round == 0 {
                assert!(md.contains("Search Results"));
            }
        }
    }
    times.sort();
    let median = pct(&times, 0.5);
    println!(
        "offline slack: search over {n} messages: median {:.2} ms, p95 {:.2} ms over {} searches (target median < 20 ms): {}",
        median.as_secs_f64() * 1e3,
        pct(&times, 0.95).as_secs_f64() * 1e3,
        times.len(),
        if median.as_secs_f64() < 0.020 { "ok" } else { "MISSED" }
    );
}
