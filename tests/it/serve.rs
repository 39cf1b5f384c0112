//! `sagasu serve` in-process over `tokio::io::duplex`: one tool with its schemas, a cited answer
//! with structured content, bad arguments, progress notifications and cancellation.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, ProgressNotificationParam};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};

use sagasu::ask::Engine;
use sagasu::policy::Policies;
use sagasu::serve::SagasuServer;

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

async fn ask(c: &RunningService<RoleClient, Recorder>, args: Value) -> Result<CallToolResult, rmcp::ServiceError> {
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
    for field in [
        "question",
        "intent",
        "answer",
        "confidence",
        "conflicts",
        "citations",
        "sources",
    ] {
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
