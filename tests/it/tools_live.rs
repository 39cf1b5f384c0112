//! The tool catalog in front of live upstream MCP servers (sagasu's own offline servers, started
//! as real stdio processes): their tools join the catalog, `describe_tools` shows them, and
//! `execute_tool` runs a read-only one, rejects bad arguments before calling, and refuses a tool
//! that may change data unless the policy allows it.

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

use sagasu::servers::tools::ToolsServer;
use sagasu::servers::tools::catalog::{Entry, ToolCatalog, ToolDef};
use sagasu::servers::tools::upstream::{ExecPolicy, ExecPolicyFile, Upstreams};

use crate::common::{config_from, demo};

pub type Client = rmcp::service::RunningService<rmcp::RoleClient, ()>;

/// A read-only catalog of `entries` that runs tools on `upstreams`, served in-process, and a
/// client connected to it.
pub async fn serve_catalog(upstreams: Upstreams, entries: Vec<Entry>) -> (ToolsServer, Client) {
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
    (server, ().serve(b).await.unwrap())
}

/// A configuration of upstreams read for the catalog (no search mapping needed).
pub fn catalog_config(yaml: String) -> sagasu::config::Config {
    let doc = sagasu::util::yaml::Document::parse(std::path::Path::new("upstreams.yaml"), yaml).unwrap();
    sagasu::config::Config::from_document_for(&doc, &|_| None, sagasu::config::Purpose::Catalog).unwrap()
}

/// `execute_tool` of `tool` with `args` fails with invalid_params naming `field`, before any call.
pub async fn assert_rejected_before_the_call(c: &Client, tool: &str, args: Value, field: &str) {
    match call(c, "execute_tool", json!({"name": tool, "arguments": args})).await {
        Err(rmcp::ServiceError::McpError(e)) => assert!(
            e.message.contains(&format!("`{field}`")) && e.message.contains("no call was made"),
            "{}",
            e.message
        ),
        other => panic!("expected invalid_params, got {other:?}"),
    }
}

/// `execute_tool` of `tool` is refused as a tool not annotated read-only, with the line that
/// allows it.
pub async fn assert_refused_as_not_read_only(c: &Client, tool: &str, args: Value) {
    let r = call(c, "execute_tool", json!({"name": tool, "arguments": args}))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    let why = sagasu::sources::result_text(&r);
    assert!(
        why.contains("not annotated read-only") && why.contains(&format!("- {tool}")) && why.contains("allow:"),
        "{why}"
    );
}

pub async fn call(c: &Client, tool: &str, args: Value) -> Result<rmcp::model::CallToolResult, rmcp::ServiceError> {
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
    let (server, c) = serve_catalog(upstreams, entries).await;

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
    assert_rejected_before_the_call(&c, "rocketchat__list_users", json!({"count": "two"}), "count").await;
    // A tool not annotated read-only is refused, with the line that allows it.
    assert_refused_as_not_read_only(&c, "rocketchat__post_message", json!({"text": "hi"})).await;
    c.cancel().await.unwrap();
    server.shutdown().await;
}

/// An upstream whose tool list grows: `open_forecasts` adds `forecast_weather` and says so with
/// `notifications/tools/list_changed`.
#[derive(Clone, Default)]
struct Shifting {
    opened: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl rmcp::ServerHandler for Shifting {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        use rmcp::model::{ServerCapabilities, ServerConfig};
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListToolsResult, rmcp::ErrorData> {
        let schema = json!({"type": "object", "properties": {"city": {"type": "string"}}});
        let schema = std::sync::Arc::new(schema.as_object().unwrap().clone());
        let read_only = rmcp::model::ToolAnnotations::new().read_only(true).destructive(false);
        let mut tools = vec![
            rmcp::model::Tool::new(
                "open_forecasts",
                "Makes the weather forecast tools available.",
                schema.clone(),
            )
            .with_annotations(read_only.clone()),
        ];
        if self.opened.load(std::sync::atomic::Ordering::SeqCst) {
            tools.push(
                rmcp::model::Tool::new(
                    "forecast_weather",
                    "Tomorrow's weather forecast for a city: temperature and chance of rain.",
                    schema,
                )
                .with_annotations(read_only),
            );
        }
        Ok(rmcp::model::ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        use rmcp::model::{CallToolResult, ContentBlock as Content};
        match request.name.as_ref() {
            "open_forecasts" => {
                self.opened.store(true, std::sync::atomic::Ordering::SeqCst);
                context.peer.notify_tool_list_changed().await.unwrap();
                Ok(CallToolResult::success(vec![Content::text("forecasts open")]).into())
            }
            "forecast_weather" => Ok(CallToolResult::success(vec![Content::text("sunny, 12°C")]).into()),
            other => Err(rmcp::ErrorData::invalid_params(format!("no tool {other}"), None)),
        }
    }
}

#[tokio::test]
async fn the_catalog_refreshes_when_an_upstream_says_its_tools_changed() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = tokio_util::sync::CancellationToken::new();
    let stopped = stop.clone();
    let upstream = tokio::spawn(sagasu::servers::http::serve(
        Shifting::default(),
        listener,
        async move { stopped.cancelled().await },
        sagasu::servers::http::Access::loopback(addr),
    ));
    let yaml = format!("sources:\n  shifting:\n    kind: generic\n    url: http://{addr}/mcp\n");
    let config = catalog_config(yaml);
    let (upstreams, entries) = Upstreams::connect(&config).await;
    assert!(upstreams.down.is_empty(), "{:?}", upstreams.down);
    assert_eq!(entries.len(), 1);
    let (server, c) = serve_catalog(upstreams, entries).await;
    let search = |q: &'static str| {
        let c = &c;
        async move {
            let r = call(c, "search_tools", json!({"query": q})).await.unwrap();
            serde_json::from_str::<Value>(&sagasu::sources::result_text(&r)).unwrap()
        }
    };
    assert!(
        !search("weather forecast for a city")
            .await
            .to_string()
            .contains("forecast_weather"),
        "not there yet"
    );
    let r = call(
        &c,
        "execute_tool",
        json!({"name": "shifting__open_forecasts", "arguments": {}}),
    )
    .await
    .unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");
    // The refresh runs in the background: wait for it (bounded).
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let found = search("weather forecast for a city").await;
        if found[0]["toolName"] == "shifting__forecast_weather" {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the catalog never refreshed: {found}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // The new tool runs, and the old one is still there.
    let r = call(
        &c,
        "execute_tool",
        json!({"name": "shifting__forecast_weather", "arguments": {"city": "Osaka"}}),
    )
    .await
    .unwrap();
    assert_eq!(sagasu::sources::result_text(&r), "sunny, 12°C");
    assert_eq!(server.catalog().entries.len(), 2);
    c.cancel().await.unwrap();
    server.shutdown().await;
    stop.cancel();
    let _ = upstream.await;
}
