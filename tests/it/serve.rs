//! `sagasu serve` in-process over `tokio::io::duplex`: one tool with its schemas, a cited answer
//! with structured content, bad arguments, progress notifications and cancellation.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, ProgressNotificationParam};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};

use sagasu::config::policy::Policies;
use sagasu::pipeline::ask::Engine;
use sagasu::servers::serve::SagasuServer;

use crate::common::{config_from, demo, demo_config};

/// A client that records the progress notifications it receives.
#[derive(Clone, Default)]
struct Recorder {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl ClientHandler for Recorder {
    async fn on_progress(&self, params: ProgressNotificationParam, _cx: NotificationContext<RoleClient>) {
        self.progress.lock().unwrap().push(params);
    }
}

fn engine_from(config: sagasu::config::Config) -> Arc<Engine> {
    let names: Vec<String> = config.sources.iter().map(|s| s.name.clone()).collect();
    let policies = Policies::load(&config.policies, &names).unwrap();
    Arc::new(Engine::new(config, policies))
}

async fn connect(server: SagasuServer) -> (RunningService<RoleClient, Recorder>, Recorder) {
    let (a, b) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(a).await {
            let _ = running.waiting().await;
        }
    });
    let rec = Recorder::default();
    (rec.clone().serve(b).await.expect("client handshake"), rec)
}

async fn ask<H: ClientHandler>(
    c: &RunningService<RoleClient, H>,
    args: Value,
) -> Result<CallToolResult, rmcp::ServiceError> {
    c.peer()
        .call_tool(CallToolRequestParams::new("ask").with_arguments(args.as_object().cloned().unwrap()))
        .await
}

#[tokio::test]
async fn one_tool_with_schemas_and_a_cited_structured_answer_with_progress() {
    let engine = engine_from(demo_config());
    let (c, rec) = connect(SagasuServer::new(engine.clone())).await;
    let tools = c.peer().list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    let t = &tools[0];
    assert_eq!(t.name, "ask");
    let description = t.description.as_deref().unwrap_or("");
    assert!(
        description.contains("which tool") && description.contains("decisions"),
        "{description}"
    );
    let input = Value::Object((*t.input_schema).clone());
    for arg in ["question", "sources", "limit", "since", "until", "intent"] {
        assert!(input["properties"][arg].is_object(), "{arg} missing from {input}");
    }
    assert_eq!(input["required"], json!(["question"]));
    let output = Value::Object((*t.output_schema.clone().expect("an output schema")).clone());
    for field in crate::common::CONTRACT_FIELDS {
        assert!(
            output["properties"][field].is_object(),
            "{field} missing from the output schema"
        );
    }

    let r = ask(&c, json!({"question": "What did we decide about the Pro plan price?"}))
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");
    let s = r.structured_content.as_ref().expect("structured content");
    assert_eq!(s["intent"]["type"], "decision");
    assert!(s["answer"].as_str().unwrap().contains("$45"), "{s}");
    let citations = s["citations"].as_array().unwrap();
    assert!(!citations.is_empty());
    assert!(
        citations
            .iter()
            .all(|c| c["id"].as_str().is_some_and(crate::common::is_contract_id))
    );
    // The text block is the readable answer, not a JSON dump.
    let text = sagasu::sources::result_text(&r);
    assert!(text.contains("[1]") && text.contains("**Sources**"), "{text}");
    assert!(!text.trim_start().starts_with('{'), "{text}");
    // One progress notification per asked source, counting up.
    let asked = s["sources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["status"] != "skipped")
        .count();
    let progress = rec.progress.lock().unwrap().clone();
    assert_eq!(progress.len(), asked, "{progress:?}");
    let counts: Vec<f64> = progress.iter().map(|p| p.progress).collect();
    assert_eq!(counts, (1..=asked).map(|n| n as f64).collect::<Vec<_>>());
    assert!(
        progress
            .iter()
            .all(|p| p.message.as_deref().is_some_and(|m| m.contains("hits")))
    );
    c.cancel().await.unwrap();
    engine.shutdown().await;
}

#[tokio::test]
async fn bad_arguments_are_invalid_params_with_a_clear_message() {
    let engine = engine_from(demo_config());
    let (c, _) = connect(SagasuServer::new(engine.clone())).await;
    let cases = [
        (json!({"question": "  "}), "must not be empty"),
        (json!({"question": "x", "sources": ["nope"]}), "unknown source `nope`"),
        (json!({"question": "x", "limit": 0}), "between 1 and 100"),
        (
            json!({"question": "x", "since": "last tuesday"}),
            "`since` must be a date",
        ),
        (
            json!({"question": "x", "since": "2026-11-01", "until": "2026-10-01"}),
            "before `until`",
        ),
        (json!({"question": "x", "intent": "gossip"}), "gossip"),
        (json!({"question": "x", "colour": "blue"}), "colour"),
        (json!({}), "question"),
        (json!({"question": "who?"}), "nothing to search for"),
        // Only a time, and only a source that cannot list by time alone.
        (
            json!({"question": "what happened last week", "sources": ["notion"]}),
            "can list messages by time",
        ),
    ];
    for (args, expect) in cases {
        match ask(&c, args.clone()).await {
            Err(rmcp::ServiceError::McpError(e)) => {
                assert_eq!(e.code, rmcp::model::ErrorCode::INVALID_PARAMS, "{args}: {e:?}");
                assert!(e.message.contains(expect), "{args}: {}", e.message);
            }
            other => panic!("{args}: expected invalid_params, got {other:?}"),
        }
    }
    c.cancel().await.unwrap();
    engine.shutdown().await;
}

/// A demo configuration whose every source is a command that does not exist.
fn broken_config(dir: &std::path::Path) -> sagasu::config::Config {
    let yaml = format!(
        "sources:\n  slack:\n    kind: slack\n    command: [/nonexistent/slack-mcp]\n  notion:\n    kind: notion\n    command: [/nonexistent/notion-mcp]\npolicies: {}\n",
        crate::common::repo().join("policies").display()
    );
    config_from(&yaml, dir)
}

#[tokio::test]
async fn every_source_failing_is_a_tool_error_that_names_them() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine_from(broken_config(dir.path()));
    let (c, _) = connect(SagasuServer::new(engine.clone())).await;
    let r = ask(&c, json!({"question": "What is the Pro plan price?"}))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true), "{r:?}");
    let text = sagasu::sources::result_text(&r);
    assert!(
        text.contains("slack") && text.contains("notion") && text.contains("failed"),
        "{text}"
    );
    c.cancel().await.unwrap();
    engine.shutdown().await;
}

#[tokio::test]
async fn cancelling_a_request_stops_the_ask_and_its_source_calls() {
    // Slack answers 20 s late; the ask is cancelled long before.
    let text = std::fs::read_to_string(demo().join("sagasu.yaml"))
        .unwrap()
        .replace("--data, slack]", "--data, slack, --latency-ms, '20000']")
        .replace("timeout_ms: 10000", "timeout_ms: 30000");
    let engine = engine_from(config_from(&text, &demo()));
    let server = SagasuServer::new(engine.clone());
    let asks = server.asks().clone();
    let (c, _) = connect(server).await;
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("ask").with_arguments(
            json!({"question": "What did we decide about the Pro plan price?"})
                .as_object()
                .cloned()
                .unwrap(),
        ),
    ));
    let handle = c
        .peer()
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    // Wait until the ask is running, then cancel it.
    let start = std::time::Instant::now();
    while asks.is_empty() && start.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(asks.len(), 1, "the ask never started");
    tokio::time::sleep(Duration::from_millis(500)).await;
    handle.cancel(Some("changed my mind".into())).await.unwrap();
    let start = std::time::Instant::now();
    while !asks.is_empty() && start.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(asks.is_empty(), "the ask still runs after the cancel");
    assert!(start.elapsed() < Duration::from_secs(5));
    // The server still answers afterwards.
    let r = ask(
        &c,
        json!({"question": "Who owns the SOC 2 audit?", "sources": ["notion"]}),
    )
    .await
    .unwrap();
    let s = r.structured_content.as_ref().expect("structured content");
    assert!(!s["citations"].as_array().unwrap().is_empty(), "{s}");
    c.cancel().await.unwrap();
    engine.shutdown().await;
}

// ---- End to end: the built binary over stdio and over HTTP ----

/// A copy of the demo configuration in its own folder (the data linked in), so that the
/// server's source processes carry a path unique to this test in their command lines.
fn private_demo(extra_slack_args: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for part in ["slack", "notion", "rocketchat", "tools"] {
        std::os::unix::fs::symlink(demo().join(part), dir.path().join(part)).unwrap();
    }
    let yaml = std::fs::read_to_string(demo().join("sagasu.yaml"))
        .unwrap()
        .replace("[sagasu,", &format!("[{:?},", crate::common::bin()))
        .replace("--data, slack]", &format!("--data, slack{extra_slack_args}]"))
        .replace("timeout_ms: 10000", "timeout_ms: 30000")
        .replace(
            "../../policies",
            &crate::common::repo().join("policies").display().to_string(),
        );
    std::fs::write(dir.path().join("sagasu.yaml"), yaml).unwrap();
    dir
}

/// Processes whose command line mentions `marker`, or that run in it (Linux /proc).
fn processes_mentioning(marker: &std::path::Path) -> Vec<String> {
    let marker = marker.to_string_lossy().to_string();
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmd) = std::fs::read(entry.path().join("cmdline")) {
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            // Sources run in the configuration's folder.
            let in_folder =
                std::fs::read_link(entry.path().join("cwd")).is_ok_and(|d| d.to_string_lossy().starts_with(&marker));
            if cmd.contains(&marker) || in_folder {
                out.push(cmd);
            }
        }
    }
    out
}

async fn no_processes_left(marker: &std::path::Path) {
    let start = std::time::Instant::now();
    while !processes_mentioning(marker).is_empty() && start.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        processes_mentioning(marker),
        Vec::<String>::new(),
        "processes outlived the server"
    );
}

fn check_answer(r: &CallToolResult) {
    assert_ne!(r.is_error, Some(true), "{r:?}");
    let s = r.structured_content.as_ref().expect("structured content");
    assert!(!s["citations"].as_array().unwrap().is_empty(), "{s}");
    assert!(sagasu::sources::result_text(r).contains("[1]"));
}

#[tokio::test]
async fn the_binary_serves_ask_over_stdio_and_leaves_no_process_behind() {
    let dir = private_demo("");
    let mut child = tokio::process::Command::new(crate::common::bin())
        .args(["serve", "--config"])
        .arg(dir.path().join("sagasu.yaml"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let transport = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
    let c = ().serve(transport).await.expect("handshake over stdio");
    let tools = c.peer().list_all_tools().await.unwrap();
    assert_eq!(tools.iter().map(|t| t.name.to_string()).collect::<Vec<_>>(), ["ask"]);
    let r = ask(&c, json!({"question": "年額払いの割引はどうなった？"}))
        .await
        .unwrap();
    check_answer(&r);
    let running = processes_mentioning(dir.path());
    assert!(running.len() >= 3, "the server and its sources run: {running:?}");
    // Closing stdin ends the server, and its sources with it.
    c.cancel().await.unwrap();
    let status = tokio::time::timeout(Duration::from_secs(20), child.wait())
        .await
        .expect("the server exits when stdin closes")
        .unwrap();
    assert!(status.success(), "{status:?}");
    no_processes_left(dir.path()).await;
}

/// Starts `sagasu serve --http 127.0.0.1:0` and returns it with its URL.
async fn http_server(dir: &std::path::Path, token: Option<&str>) -> (tokio::process::Child, String) {
    let mut cmd = tokio::process::Command::new(crate::common::bin());
    cmd.args(["serve", "--config"])
        .arg(dir.join("sagasu.yaml"))
        .args(["--http", "127.0.0.1:0"])
        .env_remove("SAGASU_TOKEN");
    if let Some(t) = token {
        cmd.env("SAGASU_TOKEN", t);
    }
    crate::common::spawn_http(cmd).await
}

async fn http_client(url: &str, token: Option<&str>) -> RunningService<RoleClient, ()> {
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let mut cfg = StreamableHttpClientTransportConfig::with_uri(url);
    if let Some(t) = token {
        cfg = cfg.auth_header(t.to_string());
    }
    ().serve(StreamableHttpClientTransport::from_config(cfg))
        .await
        .expect("handshake over HTTP")
}

/// The status code of a bare POST to `url` (no token).
async fn bare_post_status(url: &str) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_once('/').unwrap();
    let mut s = tokio::net::TcpStream::connect(host).await.unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let req = format!(
        "POST /{path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf).await;
    let head = String::from_utf8_lossy(&buf);
    head.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0)
}

#[tokio::test]
async fn the_binary_serves_ask_over_http_without_a_token() {
    let dir = private_demo("");
    let (mut child, url) = http_server(dir.path(), None).await;
    let c = http_client(&url, None).await;
    assert_eq!(c.peer().list_all_tools().await.unwrap().len(), 1);
    let r = ask(&c, json!({"question": "Who owns the SOC 2 audit?"})).await.unwrap();
    check_answer(&r);
    c.cancel().await.unwrap();
    child.kill().await.unwrap();
}

#[tokio::test]
async fn with_a_token_set_http_requires_it_and_a_signal_lets_the_ask_finish() {
    // Slack answers 1.5 s late, so that an ask is in flight when the signal arrives.
    let dir = private_demo(", --latency-ms, '1500'");
    let (mut child, url) = http_server(dir.path(), Some("s3cret-token")).await;
    assert_eq!(bare_post_status(&url).await, 401);
    let c = http_client(&url, Some("s3cret-token")).await;
    assert_eq!(c.peer().list_all_tools().await.unwrap().len(), 1);
    let peer = c.peer().clone();
    let in_flight = tokio::spawn(async move {
        peer.call_tool(
            CallToolRequestParams::new("ask").with_arguments(
                json!({"question": "What did we decide about the Pro plan price?"})
                    .as_object()
                    .cloned()
                    .unwrap(),
            ),
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(700)).await;
    let pid = child.id().unwrap().to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    // The server's own grace (30 s) decides whether the ask is answered or stopped; the wait
    // here is only longer, so that a loaded machine is not taken for a stopped ask.
    let r = tokio::time::timeout(Duration::from_secs(60), in_flight)
        .await
        .expect("the in-flight ask finishes")
        .unwrap()
        .expect("and is answered");
    check_answer(&r);
    let status = tokio::time::timeout(Duration::from_secs(40), child.wait())
        .await
        .expect("the server exits after the signal")
        .unwrap();
    assert!(status.success(), "{status:?}");
    no_processes_left(dir.path()).await;
    drop(c);
}
