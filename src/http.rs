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
    serve_with_token(handler, listener, shutdown, None).await
}

/// True when the request carries `Authorization: Bearer <token>` (compared in constant time).
fn authorized(headers: &axum::http::HeaderMap, token: &str) -> bool {
    let Some(given) = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    else {
        return false;
    };
    let (a, b) = (given.trim().as_bytes(), token.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// `serve`, and when `token` is set every request must carry it as a bearer token (401 without).
pub async fn serve_with_token<H>(
    handler: H,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
    token: Option<String>,
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
    let mut app = axum::Router::new().nest_service("/mcp", service);
    if let Some(token) = token {
        let token = Arc::new(token);
        app = app.layer(axum::middleware::from_fn(
            move |req: axum::extract::Request, next: axum::middleware::Next| {
                let token = token.clone();
                async move {
                    if authorized(req.headers(), &token) {
                        next.run(req).await
                    } else {
                        use axum::response::IntoResponse;
                        (
                            axum::http::StatusCode::UNAUTHORIZED,
                            [(axum::http::header::WWW_AUTHENTICATE, "Bearer")],
                            "a bearer token is required (Authorization: Bearer $SAGASU_TOKEN)\n",
                        )
                            .into_response()
                    }
                }
            },
        ));
    }
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
