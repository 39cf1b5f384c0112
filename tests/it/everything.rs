//! The tool catalog in front of a real third-party MCP server that nobody here wrote: the MCP
//! project's reference server `@modelcontextprotocol/server-everything` from npm, installed at a
//! pinned version by `scripts/install-test-servers` (which `.ci/run` runs, and which this test
//! runs itself when the server is missing). Its tools are searched, described and run through
//! `execute_tool`; a tool it marks as not read-only is refused.

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

use sagasu::servers::tools::upstream::Upstreams;

use crate::tools_live::{
    assert_refused_as_not_read_only, assert_rejected_before_the_call, call, catalog_config, serve_catalog,
};

/// The installed server's entry point, installing it first if needed. Without Node.js the test
/// cannot run: it says so and passes, unless `SAGASU_REQUIRE_NPM` is set (as `.ci/run` does).
fn server_everything() -> Option<PathBuf> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/install-test-servers");
    let status = Command::new("bash")
        .arg(&script)
        .status()
        .expect("run scripts/install-test-servers");
    if status.code() == Some(3) && std::env::var_os("SAGASU_REQUIRE_NPM").is_none() {
        eprintln!("SKIPPED: Node.js/npm are not installed, so the third-party MCP server test cannot run");
        return None;
    }
    assert!(status.success(), "scripts/install-test-servers failed: {status}");
    let out = Command::new("bash").arg(&script).arg("--path").output().unwrap();
    let entry = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
    assert!(entry.is_file(), "{} is missing after the install", entry.display());
    Some(entry)
}

fn text(r: &rmcp::model::CallToolResult) -> String {
    sagasu::sources::result_text(r)
}

#[tokio::test]
async fn server_everything_from_npm_is_searched_described_and_run_through_the_catalog() {
    let Some(entry) = server_everything() else {
        return;
    };
    // A `generic` upstream: it lends the catalog its tools, so it needs no search mapping.
    let config = catalog_config(format!(
        "sources:\n  everything:\n    kind: generic\n    command: [node, {:?}, stdio]\n    timeout_ms: 30000\n",
        entry.display().to_string()
    ));
    let (upstreams, entries) = Upstreams::connect(&config).await;
    assert!(upstreams.down.is_empty(), "{:?}", upstreams.down);
    let names: Vec<String> = entries.iter().map(|e| e.full_name()).collect();
    for expected in [
        "everything__echo",
        "everything__get-sum",
        "everything__toggle-simulated-logging",
    ] {
        assert!(names.iter().any(|n| n == expected), "{expected} not in {names:?}");
    }
    let (server, c) = serve_catalog(upstreams, entries).await;

    // Search in the user's words, not the tool's name.
    let found = call(
        &c,
        "search_tools",
        json!({"query": "add two numbers together", "limit": 3}),
    )
    .await
    .unwrap();
    let found: Value = serde_json::from_str(&text(&found)).unwrap();
    assert_eq!(found[0]["toolName"], "everything__get-sum", "{found}");
    let score = found[0]["relevanceScore"].as_f64().unwrap();
    assert!(score > 0.0 && score <= 1.0, "{found}");

    let described = call(
        &c,
        "describe_tools",
        json!({"toolNames": ["everything__get-sum", "everything__nope"]}),
    )
    .await
    .unwrap();
    let described: Value = serde_json::from_str(&text(&described)).unwrap();
    assert_eq!(described[0]["found"], true);
    assert_eq!(
        described[0]["inputSchema"]["properties"]["a"]["type"], "number",
        "{described}"
    );
    assert_eq!(described[1]["found"], false);
    assert_eq!(described[1]["inputSchema"], json!({}));

    // A read-only tool runs upstream.
    let r = call(
        &c,
        "execute_tool",
        json!({"name": "everything__get-sum", "arguments": {"a": 2, "b": 40}}),
    )
    .await
    .unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");
    assert!(text(&r).contains("42"), "{}", text(&r));
    let r = call(
        &c,
        "execute_tool",
        json!({"name": "everything__echo", "arguments": {"message": "探す"}}),
    )
    .await
    .unwrap();
    assert!(text(&r).contains("探す"), "{}", text(&r));

    // Arguments that break the tool's schema never reach it.
    assert_rejected_before_the_call(&c, "everything__get-sum", json!({"a": "two", "b": 40}), "a").await;
    // The server marks this tool as not read-only: refused, with how to allow it.
    assert_refused_as_not_read_only(&c, "everything__toggle-simulated-logging", json!({})).await;

    c.cancel().await.unwrap();
    server.shutdown().await;
}
