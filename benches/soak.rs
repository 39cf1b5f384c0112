//! Soak on `sagasu serve --http`: 300 MCP sessions ask questions back to back for a few minutes
//! against the demo workspace plus three bad sources (one that never answers a search, one that
//! dies during its handshake, one that speaks garbage), while other clients open sessions and
//! abandon them (initialize, then never come back). It samples the server's RSS, file
//! descriptors and child processes every second and checks that:
//!   - every ask is answered within its deadline (plus a margin), with the bad sources reported
//!     as failed or timed out and the good ones cited;
//!   - RSS, fds and children stay bounded: what the server holds in the last quarter of the run
//!     is no more than a margin over what it held after the first quarter, and children never
//!     exceed the configured sources;
//!   - abandoned sessions expire (`--session-idle-secs`) instead of piling up;
//!   - after SIGTERM the server and every child are gone.
//!
//! `cargo bench --bench soak`; `SAGASU_SOAK_SECS` (default 180), `SAGASU_SOAK_SESSIONS`
//! (default 300) for another run.

mod common;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;

use common::{open_fds, processes_mentioning, spawn_http};

const QUESTIONS: &[&str] = &[
    "What did we decide about the Pro plan price?",
    "Where are we with the Postgres migration?",
    "Who owns the SOC 2 audit?",
    "What's the public API rate limit?",
    "年額払いの割引はどうなった？",
    "大阪オフィスの準備は進んでいますか",
];

/// Every source, named, so that each ask tries the bad ones too.
const SOURCES: &[&str] = &["slack", "notion", "rocketchat", "hanging", "crashing", "garbage"];
const BAD: &[&str] = &["hanging", "crashing", "garbage"];
/// The deadline of a bad source, and of a whole ask (the server's default).
const SOURCE_TIMEOUT: Duration = Duration::from_secs(2);
const ASK_DEADLINE: Duration = Duration::from_secs(15);
/// How late an answer may come past its deadline (ranking and the trip back).
const MARGIN: Duration = Duration::from_secs(3);
/// Idle sessions expire after this; abandoned ones must not outlive it by much.
const IDLE_SECS: u64 = 10;
/// New abandoned sessions per second.
const ABANDON_RATE: u64 = 20;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"abandoner","version":"1"}}}"#;

#[derive(Clone, Copy, Default)]
struct Sample {
    rss_kb: u64,
    fds: usize,
    children: usize,
}

fn sample(pid: u32) -> Sample {
    let rss_kb = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|n| n.parse().ok()))
        })
        .unwrap_or(0);
    Sample {
        rss_kb,
        fds: open_fds(pid),
        children: descendants(pid),
    }
}

/// Processes below `pid` (children, and theirs: a shell's command).
fn descendants(pid: u32) -> usize {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let p: u32 = e.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
            let ppid = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()?;
            Some((p, ppid))
        })
        .collect();
    let mut below = vec![pid];
    let mut i = 0;
    while i < below.len() {
        let p = below[i];
        below.extend(parents.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    below.len() - 1
}

#[derive(Default)]
struct Tally {
    asks: AtomicUsize,
    cited: AtomicUsize,
    late: AtomicUsize,
    errors: AtomicUsize,
    bad_reported: AtomicUsize,
    abandoned: AtomicUsize,
    refused: AtomicUsize,
    slowest_ms: AtomicUsize,
}

/// One session asking back to back until `until`.
async fn session(
    url: String,
    i: usize,
    until: Instant,
    tally: Arc<Tally>,
    first_error: Arc<std::sync::Mutex<Option<String>>>,
) {
    let note = |e: String| {
        let mut g = first_error.lock().unwrap_or_else(|p| p.into_inner());
        g.get_or_insert(e);
    };
    let client = match ()
        .serve(StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(url.as_str()),
        ))
        .await
    {
        Ok(c) => c,
        Err(e) => {
            tally.errors.fetch_add(1, Ordering::Relaxed);
            note(format!("session {i}: handshake: {e}"));
            return;
        }
    };
    let mut n = i;
    while Instant::now() < until {
        let question = QUESTIONS[n % QUESTIONS.len()];
        n += 1;
        let start = Instant::now();
        let r = client
            .peer()
            .call_tool(
                CallToolRequestParams::new("ask").with_arguments(
                    json!({"question": question, "sources": SOURCES})
                        .as_object()
                        .cloned()
                        .unwrap_or_default(),
                ),
            )
            .await;
        let took = start.elapsed();
        tally.asks.fetch_add(1, Ordering::Relaxed);
        tally.slowest_ms.fetch_max(took.as_millis() as usize, Ordering::Relaxed);
        if took > ASK_DEADLINE + MARGIN {
            tally.late.fetch_add(1, Ordering::Relaxed);
        }
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                tally.errors.fetch_add(1, Ordering::Relaxed);
                note(format!("session {i}: {question:?}: {e}"));
                continue;
            }
        };
        let Some(s) = r.structured_content.as_ref() else {
            tally.errors.fetch_add(1, Ordering::Relaxed);
            note(format!("session {i}: {question:?}: no structured content"));
            continue;
        };
        if s["citations"].as_array().is_some_and(|c| !c.is_empty()) {
            tally.cited.fetch_add(1, Ordering::Relaxed);
        }
        let reported = s["sources"].as_array().is_some_and(|all| {
            BAD.iter().all(|b| {
                all.iter()
                    .any(|r| r["name"] == *b && (r["status"] == "error" || r["status"] == "timeout"))
            })
        });
        if reported {
            tally.bad_reported.fetch_add(1, Ordering::Relaxed);
        } else {
            note(format!(
                "session {i}: {question:?}: a bad source was not reported: {}",
                s["sources"]
            ));
        }
    }
    let _ = client.cancel().await;
}

/// Opens sessions and walks away, `ABANDON_RATE` a second, until `until`.
async fn abandon(url: String, until: Instant, tally: Arc<Tally>) {
    let http = reqwest::Client::new();
    let mut tick = tokio::time::interval(Duration::from_millis(1000 / ABANDON_RATE));
    while Instant::now() < until {
        tick.tick().await;
        let sent = http
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(INITIALIZE)
            .timeout(Duration::from_secs(10))
            .send()
            .await;
        match sent.map(|r| r.status().as_u16()) {
            Ok(200) => tally.abandoned.fetch_add(1, Ordering::Relaxed),
            _ => tally.refused.fetch_add(1, Ordering::Relaxed),
        };
    }
}

fn mb(kb: u64) -> f64 {
    kb as f64 / 1024.0
}

#[tokio::main]
async fn main() {
    let env = |k: &str, d: u64| std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d);
    let secs = env("SAGASU_SOAK_SECS", 180).max(20);
    let sessions = env("SAGASU_SOAK_SESSIONS", 300).max(1) as usize;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let demo = root.join("examples/acme");
    let bin = env!("CARGO_BIN_EXE_sagasu");
    let dir = tempfile::tempdir().expect("temp dir");
    for part in ["slack", "notion", "rocketchat"] {
        std::os::unix::fs::symlink(demo.join(part), dir.path().join(part)).expect("link");
    }
    let generic = |command: &str| {
        format!(
            "    kind: generic\n    command: {command}\n    timeout_ms: {}\n    mapping:\n      tool: search\n      \
             arguments: {{q: \"{{query}}\"}}\n      results: hits\n      id: id\n      text: text\n",
            SOURCE_TIMEOUT.as_millis()
        )
    };
    let yaml = format!(
        "sources:\n\
         \x20 slack:\n    kind: slack\n    command: [{bin:?}, source, slack, --data, slack]\n\
         \x20 notion:\n    kind: notion\n    command: [{bin:?}, source, notion, --data, notion]\n\
         \x20 rocketchat:\n    kind: rocketchat\n    command: [{bin:?}, source, rocketchat, --data, rocketchat]\n\
         \x20 hanging:\n    kind: slack\n    command: [{bin:?}, source, slack, --data, slack, --latency-ms, '3600000']\n    timeout_ms: {}\n\
         \x20 crashing:\n{}\
         \x20 garbage:\n{}\
         policies: {}\n",
        SOURCE_TIMEOUT.as_millis(),
        generic("[sh, -c, 'read -r line; exit 3']"),
        generic("[sh, -c, 'while read -r line; do echo \"{not json at all\"; done']"),
        root.join("policies").display(),
    );
    std::fs::write(dir.path().join("sagasu.yaml"), yaml).expect("config");

    let mut cmd = tokio::process::Command::new(bin);
    cmd.args(["serve", "--config"])
        .arg(dir.path().join("sagasu.yaml"))
        .args(["--http", "127.0.0.1:0", "--session-idle-secs", &IDLE_SECS.to_string()])
        .args(["--max-sessions", "2000", "--max-sessions-per-client", "2000"])
        .env_remove("SAGASU_TOKEN")
        .env("RUST_LOG", "error");
    let (mut server, url) = spawn_http(cmd).await;
    let pid = server.id().expect("pid");

    println!(
        "soak: {sessions} sessions asking back to back for {secs} s, {ABANDON_RATE} abandoned sessions/s, \
         sources: 3 good + hanging, crashing, garbage"
    );
    let tally = Arc::new(Tally::default());
    let first_error = Arc::new(std::sync::Mutex::new(None));
    let start = Instant::now();
    let until = start + Duration::from_secs(secs);
    let mut tasks = Vec::new();
    for i in 0..sessions {
        tasks.push(tokio::spawn(session(
            url.clone(),
            i,
            until,
            tally.clone(),
            first_error.clone(),
        )));
    }
    tasks.push(tokio::spawn(abandon(url.clone(), until, tally.clone())));

    let mut samples: Vec<(Duration, Sample)> = Vec::new();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    while Instant::now() < until {
        tick.tick().await;
        let s = sample(pid);
        samples.push((start.elapsed(), s));
        let t = start.elapsed().as_secs();
        if t.is_multiple_of(15) {
            println!(
                "  {t:>4} s  rss {:>6.1} MB  fds {:>5}  children {:>3}  asks {:>7}",
                mb(s.rss_kb),
                s.fds,
                s.children,
                tally.asks.load(Ordering::Relaxed)
            );
        }
    }
    for t in tasks {
        let _ = t.await;
    }
    // Abandoned sessions expire after IDLE_SECS; the ones the last clients closed go at once.
    tokio::time::sleep(Duration::from_secs(IDLE_SECS + 5)).await;
    let rested = sample(pid);

    std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill");
    let status = tokio::time::timeout(Duration::from_secs(60), server.wait())
        .await
        .map(|r| r.map(|s| s.success()).unwrap_or(false))
        .unwrap_or(false);
    let settle = Instant::now();
    let mut orphans = usize::MAX;
    while settle.elapsed() < Duration::from_secs(10) {
        orphans = processes_mentioning(dir.path());
        if orphans == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    let quarter = samples.len() / 4;
    let peak = |from: usize, to: usize, f: &dyn Fn(&Sample) -> u64| {
        samples[from..to.max(from + 1).min(samples.len())]
            .iter()
            .map(|(_, s)| f(s))
            .max()
            .unwrap_or(0)
    };
    let rss_early = peak(0, quarter.max(1), &|s| s.rss_kb);
    let rss_late = peak(samples.len() - quarter.max(1), samples.len(), &|s| s.rss_kb);
    let fds_early = peak(0, quarter.max(1), &|s| s.fds as u64);
    let fds_late = peak(samples.len() - quarter.max(1), samples.len(), &|s| s.fds as u64);
    let children_peak = peak(0, samples.len(), &|s| s.children as u64);
    let asks = tally.asks.load(Ordering::Relaxed);
    let late = tally.late.load(Ordering::Relaxed);
    let errors = tally.errors.load(Ordering::Relaxed);
    let cited = tally.cited.load(Ordering::Relaxed);
    let reported = tally.bad_reported.load(Ordering::Relaxed);
    let wall = start.elapsed().as_secs_f64();

    println!(
        "  asks: {asks} in {secs} s ({:.1}/s); {cited} cited; slowest {} ms (deadline {} ms + {} ms margin); {late} late; {errors} errors",
        asks as f64 / secs as f64,
        tally.slowest_ms.load(Ordering::Relaxed),
        ASK_DEADLINE.as_millis(),
        MARGIN.as_millis()
    );
    println!("  bad sources reported as failed or timed out in {reported} of {asks} answers");
    println!(
        "  abandoned sessions: {} opened, {} refused (session cap)",
        tally.abandoned.load(Ordering::Relaxed),
        tally.refused.load(Ordering::Relaxed)
    );
    println!(
        "  RSS: peak {:.1} MB in the first quarter, {:.1} MB in the last, {:.1} MB at rest (target: last <= first x 1.25 + 32 MB)",
        mb(rss_early),
        mb(rss_late),
        mb(rested.rss_kb)
    );
    println!(
        "  fds: peak {fds_early} in the first quarter, {fds_late} in the last, {} at rest (target: last <= first x 1.25 + 64)",
        rested.fds
    );
    println!(
        "  children: peak {children_peak}, {} at rest (target: at most {} at any time, one per source and its shell)",
        rested.children,
        2 * SOURCES.len()
    );
    println!(
        "  after SIGTERM: exit {}, {orphans} processes left (target 0); whole run {wall:.0} s",
        if status { "ok" } else { "FAILED" }
    );
    if let Some(e) = first_error.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
        println!("  first problem: {e}");
    }
    let ok = asks > 0
        && late == 0
        && errors == 0
        && reported == asks
        && cited * 10 >= asks * 9
        && rss_late as f64 <= rss_early as f64 * 1.25 + 32.0 * 1024.0
        && fds_late as f64 <= fds_early as f64 * 1.25 + 64.0
        && children_peak as usize <= 2 * SOURCES.len()
        && status
        && orphans == 0;
    println!("  result: {}", if ok { "ok" } else { "FAILED" });
    if !ok {
        std::process::exit(1);
    }
}
