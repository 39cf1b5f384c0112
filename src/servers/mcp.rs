//! What every MCP server sagasu runs shares: serving over stdio or streamable HTTP until a
//! signal, tool results, the server's identity, and `WithLatency` (a slow backend on demand and
//! the `sagasu/export` handshake).

/// A server's stdio loop: serve `handler` until the client closes stdin, or until SIGTERM or
/// Ctrl-C.
pub async fn serve_stdio<H: rmcp::ServerHandler>(handler: H) -> anyhow::Result<()> {
    use rmcp::ServiceExt;
    let stop = crate::servers::http::shutdown_signal();
    let running = handler.serve(crate::servers::stdio::stdio()).await?;
    let ct = running.cancellation_token();
    tokio::select! {
        r = running.waiting() => { r?; }
        () = stop => ct.cancel(),
    }
    Ok(())
}

/// Serves `handler` over stdio, or over streamable HTTP under `http`'s rules; `what` names it
/// in the startup line ("the offline slack source").
pub async fn serve<H>(handler: H, http: Option<&crate::servers::http::Access>, what: &str) -> anyhow::Result<()>
where
    H: rmcp::ServerHandler + Clone + Send + Sync + 'static,
{
    match http {
        None => serve_stdio(handler).await,
        Some(access) => crate::servers::http::serve_until_signal(handler, access, what).await,
    }
}

/// Builds the text result of a tool call.
pub(crate) fn text_result(text: impl Into<String>) -> rmcp::model::CallToolResult {
    rmcp::model::CallToolResult::success(vec![rmcp::model::ContentBlock::text(text)])
}

/// Builds a tool error result (the call was well-formed but could not be done).
pub(crate) fn error_result(text: impl Into<String>) -> rmcp::model::CallToolResult {
    rmcp::model::CallToolResult::error(vec![rmcp::model::ContentBlock::text(text)])
}

/// Server identity for `initialize`.
pub(crate) fn server_info(name: &str, instructions: &str) -> rmcp::model::ServerConfig {
    use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
    ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
        .with_server_info(Implementation::new(name, env!("CARGO_PKG_VERSION")))
        .with_instructions(instructions)
}

pub use crate::wire::EXPORT_CAPABILITY;

/// Wraps an offline server as `sagasu source` serves it: every search call answers `latency`
/// late (a slow backend on demand, for testing deadlines and measuring fan-out; follow-up calls
/// such as fetch and describe are not delayed), and the handshake says how many entries of the
/// export could not be read (`EXPORT_CAPABILITY`).
#[derive(Clone)]
pub struct WithLatency<H> {
    pub inner: H,
    pub latency: std::time::Duration,
    /// Files or items of the export skipped when it was loaded.
    pub unreadable: usize,
}

impl<H: rmcp::ServerHandler> rmcp::ServerHandler for WithLatency<H> {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        let mut info = self.inner.get_info();
        let mut export = rmcp::model::JsonObject::new();
        export.insert("unreadable".into(), self.unreadable.into());
        info.capabilities
            .experimental
            .get_or_insert_with(Default::default)
            .insert(EXPORT_CAPABILITY.into(), export);
        info
    }

    async fn list_tools(
        &self,
        request: Option<rmcp::model::PaginatedRequestParams>,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListToolsResult, rmcp::ErrorData> {
        self.inner.list_tools(request, context).await
    }

    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        if request.name.contains("search") {
            tokio::select! {
                () = tokio::time::sleep(self.latency) => {}
                () = context.ct.cancelled() => {
                    // The client gave up (its ask was cancelled or ran out of time).
                    tracing::info!(tool = %request.name, "search cancelled by the client");
                    return Err(rmcp::ErrorData::internal_error("cancelled by the client", None));
                }
            }
        }
        self.inner.call_tool(request, context).await
    }
}
