//! The tool catalog in front of live upstream MCP servers (sagasu's own offline servers, started
//! as real stdio processes): their tools join the catalog, `describe_tools` shows them, and
//! `execute_tool` runs a read-only one, rejects bad arguments before calling, and refuses a tool
//! that may change data unless the policy allows it.

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

use sagasu::live::tools::{ExecPolicy, ExecPolicyFile, Upstreams};
use sagasu::offline::tools::{Entry, ToolCatalog, ToolDef, ToolsServer};

use crate::common::{config_from, demo};

async fn call(
    c: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    tool: &str,
    args: Value,
) -> Result<rmcp::model::CallToolResult, rmcp::ServiceError> {
    c.peer()
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args.as_object().cloned().unwrap()))
        .await
}

#[tokio::test]
async fn live_upstreams_are_searched_described_and_run_under_the_policy() {
    let yaml = "sources:\n  rocketchat:\n    kind: rocketchat\n    command: [sagasu, source, rocketchat, --data, rocketchat]\n  notion:\n    kind: notion\n    command: [sagasu, source, notion, --data, notion]\n  broken:\n    kind: tools\n    command: [/nonexistent/mcp-server]\n";
    let config = config_from(yaml, &demo());
    let (upstreams, mut entries) = Upstreams::connect(&config).await;
    assert_eq!(upstreams.down.len(), 1, "the broken upstream is reported, not fatal");
    assert_eq!(upstreams.down[0].0, "broken");
    // A tool that may change data, as if an upstream offered it (served by rocketchat).
    entries.push(Entry {
        server: "rocketchat".into(),
        tool: ToolDef {
            name: "post_message".into(),
            description: "Post a message to a room.".into(),
            input_schema: json!({"type": "object", "properties": {"text": {"type": "string"}}}),
            annotations: None,
        },
    });
    let catalog = ToolCatalog::from_entries(entries, Vec::new()).unwrap();
    let policy = ExecPolicy::new(&ExecPolicyFile::default(), "policies/tools.yaml").unwrap();
    let server = ToolsServer::with_upstreams(catalog, upstreams, policy);
    let (a, b) = tokio::io::duplex(1 << 20);
    let s2 = server.clone();
    tokio::spawn(async move {
        if let Ok(r) = s2.serve(a).await {
            let _ = r.waiting().await;
        }
    });
    let c = ().serve(b).await.unwrap();

    let found = call(
        &c,
        "search_tools",
        json!({"query": "list the users of the chat server"}),
    )
    .await
    .unwrap();
    let found: Value = serde_json::from_str(&sagasu::sources::result_text(&found)).unwrap();
    assert_eq!(found[0]["toolName"], "rocketchat__list_users", "{found}");
    let described = call(&c, "describe_tools", json!({"toolNames": ["rocketchat__list_users"]}))
        .await
        .unwrap();
    let described: Value = serde_json::from_str(&sagasu::sources::result_text(&described)).unwrap();
    assert_eq!(described[0]["found"], true);
    assert!(
        described[0]["inputSchema"]["properties"]["count"].is_object(),
        "{described}"
    );

    // Run a read-only tool upstream.
    let r = call(
        &c,
        "execute_tool",
        json!({"name": "rocketchat__list_users", "arguments": {"count": 2}}),
    )
    .await
    .unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");
    let users: Value = serde_json::from_str(&sagasu::sources::result_text(&r)).unwrap();
    assert_eq!(users["users"].as_array().unwrap().len(), 2);

    // Bad arguments: invalid_params naming the field, no call made.
    match call(
        &c,
        "execute_tool",
        json!({"name": "rocketchat__list_users", "arguments": {"count": "two"}}),
    )
    .await
    {
        Err(rmcp::ServiceError::McpError(e)) => {
            assert!(
                e.message.contains("`count`") && e.message.contains("no call was made"),
                "{}",
                e.message
            )
        }
        other => panic!("expected invalid_params, got {other:?}"),
    }
    // A tool that may change data is refused, with how to allow it.
    let r = call(
        &c,
        "execute_tool",
        json!({"name": "rocketchat__post_message", "arguments": {"text": "hi"}}),
    )
    .await
    .unwrap();
    assert_eq!(r.is_error, Some(true));
    let why = sagasu::sources::result_text(&r);
    assert!(why.contains("may change data") && why.contains("allow:"), "{why}");
    c.cancel().await.unwrap();
    server.shutdown().await;
}
