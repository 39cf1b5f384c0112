//! Each offline server answers a real MCP client in-process: tools/list and a search call.

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::json;

use crate::common::{demo, is_contract_id};
use sagasu::servers::offline::{notion, rocketchat, slack};
use sagasu::servers::tools;

async fn client_for<S: rmcp::ServerHandler>(server: S) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let (a, b) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(a).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(b).await.expect("client handshake")
}

async fn call(c: &rmcp::service::RunningService<rmcp::RoleClient, ()>, tool: &str, args: serde_json::Value) -> String {
    let r = c
        .peer()
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args.as_object().cloned().unwrap()))
        .await
        .expect("call");
    assert_ne!(r.is_error, Some(true), "{tool} failed: {r:?}");
    sagasu::sources::result_text(&r)
}

async fn tool_names(c: &rmcp::service::RunningService<rmcp::RoleClient, ()>) -> Vec<String> {
    let mut v: Vec<String> = c
        .peer()
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    v.sort();
    v
}

#[tokio::test]
async fn slack_server_speaks_the_hosted_shape() {
    let export = slack::SlackExport::load(&demo().join("slack")).unwrap();
    assert!(export.warnings.is_empty(), "{:?}", export.warnings);
    let c = client_for(slack::SlackServer::new(export)).await;
    assert_eq!(
        tool_names(&c).await,
        ["slack_search_public", "slack_search_public_and_private"]
    );
    let md = call(
        &c,
        "slack_search_public",
        json!({"query": "pricing committee in:#pricing after:2026-10-01"}),
    )
    .await;
    let page = sagasu::sources::slack::parse_markdown("slack", &md).unwrap();
    assert!(!page.hits.is_empty(), "{md}");
    for h in &page.hits {
        assert!(is_contract_id(&h.id), "{}", h.id);
        assert!(h.id.starts_with("slack:pricing/"), "{}", h.id);
        assert!(h.timestamp.unwrap() >= "2026-10-02T00:00:00Z".parse::<chrono::DateTime<chrono::Utc>>().unwrap());
    }
    let none = call(&c, "slack_search_public", json!({"query": "zzzqqq"})).await;
    assert!(none.contains("No results found."), "{none}");
    // paging: 2 per page, cursor to the next page, no overlap
    let p1 = sagasu::sources::slack::parse_markdown(
        "slack",
        &call(&c, "slack_search_public", json!({"query": "standup", "limit": 2})).await,
    )
    .unwrap();
    let cursor = p1.next_cursor.clone().expect("more pages");
    let p2 = sagasu::sources::slack::parse_markdown(
        "slack",
        &call(
            &c,
            "slack_search_public",
            json!({"query": "standup", "limit": 2, "cursor": cursor}),
        )
        .await,
    )
    .unwrap();
    assert_eq!(p1.hits.len() + p2.hits.len(), 4);
    assert!(p2.hits.iter().all(|h| p1.hits.iter().all(|g| g.id != h.id)));
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn slack_server_honours_from_and_thread_modifiers() {
    let export = slack::SlackExport::load(&demo().join("slack")).unwrap();
    let c = client_for(slack::SlackServer::new(export)).await;
    let md = call(&c, "slack_search_public", json!({"query": "price from:@maria.lopez"})).await;
    let page = sagasu::sources::slack::parse_markdown("slack", &md).unwrap();
    assert!(!page.hits.is_empty());
    assert!(
        page.hits.iter().all(|h| h.author.as_deref() == Some("Maria Lopez")),
        "{md}"
    );
    let md = call(&c, "slack_search_public", json!({"query": "postgres is:thread"})).await;
    let page = sagasu::sources::slack::parse_markdown("slack", &md).unwrap();
    assert!(!page.hits.is_empty());
    // every result is part of a thread
    assert_eq!(md.matches("Thread_ts:").count(), page.hits.len(), "{md}");
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn notion_server_searches_passages_and_fetches_pages() {
    let export = notion::NotionExport::load(&demo().join("notion")).unwrap();
    assert!(export.warnings.is_empty(), "{:?}", export.warnings);
    let c = client_for(notion::NotionServer::new(export)).await;
    assert_eq!(tool_names(&c).await, ["notion-fetch", "notion-search"]);
    let text = call(
        &c,
        "notion-search",
        json!({"query": "rate limit public API", "filters": {}}),
    )
    .await;
    let hits = sagasu::sources::notion::parse_hosted_search("notion", &text).unwrap();
    assert_eq!(hits[0].title, "Public API Reference");
    assert!(hits.iter().all(|h| is_contract_id(&h.id)));
    // the highlight is the matching passage, not the page's start
    assert!(hits[0].text.contains("1,000 requests per minute"), "{}", hits[0].text);
    let id = &hits[0].id["notion:".len()..];
    let dashed = format!(
        "{}-{}-{}-{}-{}",
        &id[..8],
        &id[8..12],
        &id[12..16],
        &id[16..20],
        &id[20..]
    );
    let page = sagasu::sources::notion::parse_hosted_fetch(
        &call(&c, "notion-fetch", json!({"id": dashed.to_uppercase()})).await,
    )
    .unwrap();
    assert_eq!(page.properties["parent"], "Engineering Wiki");
    assert!(page.content.contains("## Webhooks"));
    let ja = sagasu::sources::notion::parse_hosted_search(
        "notion",
        &call(&c, "notion-search", json!({"query": "経費精算の期限"})).await,
    )
    .unwrap();
    assert_eq!(ja[0].title, "経費精算規程");
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn rocketchat_server_fans_out_and_filters() {
    let export = rocketchat::RocketExport::load(&demo().join("rocketchat")).unwrap();
    assert!(export.warnings.is_empty(), "{:?}", export.warnings);
    let c = client_for(rocketchat::RocketServer::new(export)).await;
    assert_eq!(
        tool_names(&c).await,
        ["get_thread_context", "list_channels", "list_users", "search_messages"]
    );
    let text = call(&c, "search_messages", json!({"query": "リリース 延期", "limit": 5})).await;
    let r = sagasu::sources::rocketchat::parse("rocketchat", &text).unwrap();
    assert!(r.hits.iter().any(|h| h.text.contains("12月8日に延期")), "{text}");
    assert!(r.hits.iter().all(|h| is_contract_id(&h.id)));
    // newest first
    assert!(r.hits.windows(2).all(|w| w[0].timestamp >= w[1].timestamp));
    let only = call(
        &c,
        "search_messages",
        json!({"query": "日報", "channel": "support-ja", "username": "sakura", "since": "2026-09-01", "limit": 200}),
    )
    .await;
    let v: serde_json::Value = serde_json::from_str(&only).unwrap();
    assert_eq!(v["rooms_searched"], 1);
    for m in v["messages"].as_array().unwrap() {
        assert_eq!(m["rid"], "RCsupport0004");
        assert_eq!(m["u"]["username"], "sakura");
        assert!(m["ts"].as_str().unwrap() >= "2026-09-01");
    }
    let cut = call(&c, "search_messages", json!({"query": "日報", "limit": 3})).await;
    let v: serde_json::Value = serde_json::from_str(&cut).unwrap();
    assert_eq!(v["truncated"], true);
    assert!(v["summary"].as_str().unwrap().contains("3 of"), "{cut}");
    // threads: parent and replies
    let parent_id =
        r.hits.iter().find(|h| h.text.contains("12月8日に延期")).unwrap().id["rocketchat:".len()..].to_string();
    let th: serde_json::Value =
        serde_json::from_str(&call(&c, "get_thread_context", json!({"message_id": parent_id})).await).unwrap();
    assert_eq!(th["replies"].as_array().unwrap().len(), 2);
    let users: serde_json::Value =
        serde_json::from_str(&call(&c, "list_users", json!({"offset": 10, "count": 5})).await).unwrap();
    assert_eq!(users["count"], 3);
    assert_eq!(users["total"], 13);
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn tools_server_offers_exactly_the_meta_tools() {
    let catalog = tools::catalog::ToolCatalog::load(&demo().join("tools")).unwrap();
    assert!(catalog.entries.len() >= 30);
    let c = client_for(tools::ToolsServer::new(catalog)).await;
    assert_eq!(tool_names(&c).await, ["describe_tools", "execute_tool", "search_tools"]);
    let hits = sagasu::sources::tools::parse_search(
        "tools",
        &call(&c, "search_tools", json!({"query": "page the on-call engineer"})).await,
    )
    .unwrap();
    assert_eq!(hits[0].id, "tools:pagerduty__trigger_incident");
    let score = hits[0].native_score.unwrap();
    assert!(score > 0.0 && score <= 1.0);
    let d: serde_json::Value = serde_json::from_str(
        &call(
            &c,
            "describe_tools",
            json!({"toolNames": ["github__create_issue", "nope__x"]}),
        )
        .await,
    )
    .unwrap();
    assert_eq!(d[0]["found"], true);
    assert_eq!(d[0]["inputSchema"]["required"][0], "owner");
    assert_eq!(d[1]["found"], false);
    assert_eq!(d[1]["inputSchema"], json!({}));
    c.cancel().await.unwrap();
}
