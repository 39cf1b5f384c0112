//! Load on `sagasu serve --http`: 200 MCP clients, each in its own session, call `ask` at once
//! on the demo workspace. Prints throughput and latency p50/p95, and checks that every call got
//! a cited answer and that afterwards the server holds no more file descriptors than before and
//! no process outlives it.
//!
//! `cargo bench --bench serve_load` (`SAGASU_LOAD_CALLS=N` for another count)

mod common;

use std::path::Path;
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
    "When does the Tokyo team move offices?",
    "Which tool can page the on-call engineer?",
    "年額払いの割引はどうなった？",
    "大阪オフィスの準備は進んでいますか",
    "前回の障害はいつでしたか？",
    "日本展開の全体像を教えて",
];

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

async fn one_call(url: String, question: &'static str) -> Result<Duration, String> {
    let client = ()
        .serve(StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(url.as_str()),
        ))
        .await
        .map_err(|e| format!("handshake: {e}"))?;
    let start = Instant::now();
    let r = client
        .peer()
        .call_tool(
            CallToolRequestParams::new("ask")
                .with_arguments(json!({"question": question}).as_object().cloned().unwrap()),
        )
        .await
        .map_err(|e| format!("call: {e}"))?;
    let took = start.elapsed();
    let _ = client.cancel().await;
    let cited = r
        .structured_content
        .as_ref()
        .and_then(|s| s["citations"].as_array())
        .is_some_and(|c| !c.is_empty());
    if r.is_error == Some(true) || !cited {
        return Err(format!("no cited answer to {question:?}"));
    }
    Ok(took)
}

#[tokio::main]
async fn main() {
    let calls: usize = std::env::var("SAGASU_LOAD_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let demo = root.join("examples/acme");
    let bin = env!("CARGO_BIN_EXE_sagasu");
    // A private copy of the demo config, so that the server's source processes are findable.
    let dir = tempfile::tempdir().expect("temp dir");
    for part in ["slack", "notion", "rocketchat", "tools"] {
        std::os::unix::fs::symlink(demo.join(part), dir.path().join(part)).expect("link");
    }
    let yaml = std::fs::read_to_string(demo.join("sagasu.yaml"))
        .expect("demo config")
        .replace("[sagasu,", &format!("[{bin:?},"))
        .replace("timeout_ms: 10000", "timeout_ms: 60000")
        .replace("../../policies", &root.join("policies").display().to_string());
    std::fs::write(dir.path().join("sagasu.yaml"), yaml).expect("config");

    let mut cmd = tokio::process::Command::new(bin);
    cmd.args(["serve", "--config"])
        .arg(dir.path().join("sagasu.yaml"))
        .args(["--http", "127.0.0.1:0"])
        .env_remove("SAGASU_TOKEN");
    let (mut server, url) = spawn_http(cmd).await;
    let pid = server.id().expect("pid");

    // Warm up: the first asks start the sources (each kind of question asks its own); measure
    // the steady state.
    for q in QUESTIONS {
        one_call(url.clone(), q).await.expect("warm-up ask");
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let fds_before = open_fds(pid);
    let procs_before = processes_mentioning(dir.path());

    let start = Instant::now();
    let tasks: Vec<_> = (0..calls)
        .map(|i| tokio::spawn(one_call(url.clone(), QUESTIONS[i % QUESTIONS.len()])))
        .collect();
    let mut latencies = Vec::new();
    let mut failures = Vec::new();
    for t in tasks {
        match t.await.expect("task") {
            Ok(d) => latencies.push(d),
            Err(e) => failures.push(e),
        }
    }
    let wall = start.elapsed();
    latencies.sort();

    // Sessions end with their clients; give the server a moment to drop them.
    let settle = Instant::now();
    while open_fds(pid) > fds_before && settle.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let fds_after = open_fds(pid);
    if fds_after > fds_before {
        for e in std::fs::read_dir(format!("/proc/{pid}/fd"))
            .into_iter()
            .flatten()
            .flatten()
        {
            println!("  fd {:?} -> {:?}", e.file_name(), std::fs::read_link(e.path()));
        }
    }
    let procs_during = processes_mentioning(dir.path());
    std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill");
    let status = tokio::time::timeout(Duration::from_secs(60), server.wait())
        .await
        .expect("the server stops after SIGTERM")
        .expect("wait");
    let settle = Instant::now();
    while processes_mentioning(dir.path()) > 0 && settle.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let procs_after = processes_mentioning(dir.path());

    println!("serve over HTTP: {calls} concurrent asks, each from its own MCP session");
    println!(
        "  answered {}/{calls} with citations; wall {:.2} s; throughput {:.1} asks/s",
        latencies.len(),
        wall.as_secs_f64(),
        latencies.len() as f64 / wall.as_secs_f64()
    );
    if !latencies.is_empty() {
        println!(
            "  latency p50 {:.0} ms, p95 {:.0} ms, max {:.0} ms",
            percentile(&latencies, 0.5).as_secs_f64() * 1e3,
            percentile(&latencies, 0.95).as_secs_f64() * 1e3,
            latencies[latencies.len() - 1].as_secs_f64() * 1e3
        );
    }
    println!("  server file descriptors: {fds_before} before, {fds_after} after (target: no more than before)");
    println!(
        "  source processes: {procs_before} before, {procs_during} after the load (shared, not per ask), {procs_after} after shutdown (target 0); exit {status}"
    );
    for f in failures.iter().take(5) {
        println!("  failure: {f}");
    }
    let ok = failures.is_empty()
        && fds_after <= fds_before
        && procs_after == 0
        && procs_during == procs_before
        && status.success();
    println!("  result: {}", if ok { "ok" } else { "FAILED" });
    if !ok {
        std::process::exit(1);
    }
}
