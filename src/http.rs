//! Serving an MCP server over streamable HTTP (axum + rmcp's `StreamableHttpService`), with
//! graceful shutdown driven by the caller's future.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

/// Serves `handler` (cloned per session) at `/mcp` on `listener` until `shutdown` resolves.
pub async fn serve<H>(
    handler: H,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()>
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    let ct = CancellationToken::new();
    let local = listener.local_addr()?;
    let mut config = StreamableHttpServerConfig::default().with_cancellation_token(ct.child_token());
    if !local.ip().is_loopback() {
        // Bound beyond loopback on purpose: accept any Host header.
        config = config.disable_allowed_hosts();
    }
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let app = axum::Router::new().nest_service("/mcp", service);
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown.await;
            ct.cancel();
        })
        .await
}

/// Parses a listen address like `127.0.0.1:8765`.
pub fn parse_addr(s: &str) -> Result<SocketAddr, String> {
    s.parse()
        .map_err(|_| format!("`{s}` is not an address like 127.0.0.1:8765"))
}

/// Resolves on Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
}
