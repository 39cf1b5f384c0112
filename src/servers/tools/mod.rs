//! The tool catalog as an MCP server: the Dynamic-Search meta-tools `search_tools`,
//! `describe_tools` and `execute_tool` over a `catalog::ToolCatalog` (the `tools/list` dumps of
//! contracts section 2, or live upstreams' lists), tools named `<server>__<tool>`. Calls run on
//! live upstreams (`upstream`) under their execution policy; over dumps alone they are refused.

pub mod catalog;
pub mod upstream;

use std::sync::Arc;

use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{CallToolResult, ServerConfig};
use rmcp::{ErrorData as McpError, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use catalog::ToolCatalog;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchToolsArgs {
    /// What you want to do, in words ("create a GitHub issue", "Slackにメッセージを送る").
    pub query: String,
    /// Most tools to return (default 10).
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DescribeToolsArgs {
    /// Full tool names (`<server>__<tool>`) from `search_tools`.
    pub tool_names: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ExecuteToolArgs {
    /// Full tool name (`<server>__<tool>`).
    pub name: String,
    /// Arguments for the tool, matching its inputSchema.
    #[serde(default)]
    pub arguments: Option<serde_json::Map<String, Value>>,
}

#[derive(Clone)]
pub struct ToolsServer {
    /// The catalog, replaced whole when an upstream's tool list changes.
    catalog: Arc<std::sync::RwLock<Arc<ToolCatalog>>>,
    /// Live upstreams to run tools on, and the policy that says which may run.
    live: Option<
        Arc<(
            crate::servers::tools::upstream::Upstreams,
            crate::servers::tools::upstream::ExecPolicy,
        )>,
    >,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl ToolsServer {
    pub fn new(catalog: ToolCatalog) -> Self {
        ToolsServer {
            catalog: Arc::new(std::sync::RwLock::new(Arc::new(catalog))),
            live: None,
            tool_router: Self::tool_router(),
        }
    }

    /// A catalog whose tools from `upstreams` can be run, under `policy`.
    pub fn with_upstreams(
        catalog: ToolCatalog,
        upstreams: crate::servers::tools::upstream::Upstreams,
        policy: crate::servers::tools::upstream::ExecPolicy,
    ) -> Self {
        let changes = upstreams.take_changes();
        let server = ToolsServer {
            live: Some(Arc::new((upstreams, policy))),
            ..ToolsServer::new(catalog)
        };
        if let (Some(changes), Ok(rt)) = (changes, tokio::runtime::Handle::try_current()) {
            rt.spawn(server.clone().refresh_on_changes(changes));
        }
        server
    }

    /// The catalog as it is now.
    pub fn catalog(&self) -> Arc<ToolCatalog> {
        self.catalog.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Keeps the catalog in step with its upstreams: when one says its tool list changed, lists
    /// its tools again and swaps in a catalog rebuilt with them (a burst of changes is one
    /// rebuild). Ends when the upstreams are gone. If listing fails, the old tools stay.
    async fn refresh_on_changes(self, mut changes: tokio::sync::mpsc::UnboundedReceiver<String>) {
        let live = Arc::downgrade(self.live.as_ref().expect("a catalog with upstreams"));
        let catalog = self.catalog;
        drop(self.live);
        while let Some(first) = changes.recv().await {
            let mut servers = vec![first];
            while let Ok(more) = changes.try_recv() {
                if !servers.contains(&more) {
                    servers.push(more);
                }
            }
            let Some(live) = live.upgrade() else {
                break;
            };
            let old = catalog.read().unwrap_or_else(|p| p.into_inner()).clone();
            let mut entries = old.entries.clone();
            for server in &servers {
                match live.0.relist(server).await {
                    Ok(fresh) => {
                        entries.retain(|e| &e.server != server);
                        entries.extend(fresh);
                    }
                    Err(e) => {
                        tracing::warn!(upstream = %server, error = %e, "cannot list the changed tools; keeping the old ones")
                    }
                }
            }
            match ToolCatalog::from_entries(entries, old.warnings.clone())
                .map(|c| c.with_synonyms(old.synonyms.clone()).with_encoder(old.encoder()))
            {
                Ok(fresh) => {
                    tracing::info!(upstreams = ?servers, tools = fresh.entries.len(), "tool catalog refreshed");
                    *catalog.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(fresh);
                }
                Err(e) => tracing::warn!(error = %e, "cannot rebuild the tool catalog; keeping the old one"),
            }
        }
    }

    /// Stops the upstream servers.
    pub async fn shutdown(&self) {
        if let Some(live) = &self.live {
            live.0.shutdown().await;
        }
    }

    #[tool(
        description = "Find tools by what they do. Returns [{toolName, description, relevanceScore}] best first; relevanceScore is 0..1.",
        annotations(read_only_hint = true, destructive_hint = false)
    )]
    async fn search_tools(&self, Parameters(a): Parameters<SearchToolsArgs>) -> Result<CallToolResult, McpError> {
        if a.query.trim().is_empty() {
            return Err(McpError::invalid_params("`query` must not be empty", None));
        }
        let limit = a.limit.unwrap_or(10).clamp(1, 100) as usize;
        let r = self
            .catalog()
            .search(&a.query, limit)
            .map_err(|e| McpError::internal_error(e, None))?;
        Ok(crate::servers::mcp::text_result(
            serde_json::to_string(&r).unwrap_or_else(|_| "[]".into()),
        ))
    }

    #[tool(
        description = "Describe tools by full name: [{toolName, description, inputSchema, found}]. Unknown names come back with found:false and an empty schema.",
        annotations(read_only_hint = true, destructive_hint = false)
    )]
    async fn describe_tools(&self, Parameters(a): Parameters<DescribeToolsArgs>) -> Result<CallToolResult, McpError> {
        let catalog = self.catalog();
        let out: Vec<Value> = a
            .tool_names
            .iter()
            .map(|n| match catalog.get(n) {
                Some(e) => json!({"toolName": n, "description": e.tool.description, "inputSchema": e.tool.input_schema, "found": true}),
                None => json!({"toolName": n, "description": "", "inputSchema": {}, "found": false}),
            })
            .collect();
        Ok(crate::servers::mcp::text_result(Value::Array(out).to_string()))
    }

    #[tool(
        description = "Run an upstream tool by full name with arguments. The arguments are checked against the tool's inputSchema first; tools that may change data run only when the execution policy allows them."
    )]
    async fn execute_tool(&self, Parameters(a): Parameters<ExecuteToolArgs>) -> Result<CallToolResult, McpError> {
        let catalog = self.catalog();
        let Some(entry) = catalog.get(&a.name) else {
            return Err(McpError::invalid_params(
                format!("unknown tool `{}`; find tools with search_tools", a.name),
                None,
            ));
        };
        let upstream = self
            .live
            .as_ref()
            .and_then(|l| l.0.conns.get(&entry.server).map(|c| (c, &l.1)));
        let Some((conn, policy)) = upstream else {
            return Ok(crate::servers::mcp::error_result(format!(
                "`{}` comes from an offline tools/list dump, so there is no upstream server to run it on; \
                 serve the catalog with live upstreams (`sagasu source tools --config FILE`) to execute tools",
                a.name
            )));
        };
        if let Err(why) = policy.check(&entry.server, &entry.tool) {
            return Ok(crate::servers::mcp::error_result(why));
        }
        let args = a.arguments.unwrap_or_default();
        crate::servers::tools::upstream::validate(&entry.tool.input_schema, &Value::Object(args.clone())).map_err(
            |e| McpError::invalid_params(format!("bad arguments for `{}`: {e} (no call was made)", a.name), None),
        )?;
        match conn.call(&entry.tool.name, args).await {
            Ok(r) => Ok(r),
            Err(e) => Ok(crate::servers::mcp::error_result(format!(
                "`{}` failed upstream: {e}",
                a.name
            ))),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for ToolsServer {
    fn get_info(&self) -> ServerConfig {
        crate::servers::mcp::server_info(
            "sagasu-tools-offline",
            "A searchable catalog of upstream MCP tools (Dynamic Search).",
        )
    }
}
