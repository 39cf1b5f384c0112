//! Serving an MCP server over streamable HTTP (axum + rmcp's `StreamableHttpService`), with
//! graceful shutdown driven by the caller's future. Every HTTP server sagasu runs (`serve`, the
//! offline and live sources, the tool catalog) goes through `Access` and `serve`, so they all
//! keep the same rules:
//!
//! - loopback by default; an address beyond loopback requires `SAGASU_TOKEN`, at least
//!   `MIN_TOKEN_LEN` characters long;
//! - with a token set, every request carries `Authorization: Bearer <token>` (the scheme is
//!   case-insensitive, RFC 7235), else 401;
//! - a request with an `Origin` header must come from an allowed origin, else 403 (the MCP
//!   streamable-HTTP rule against DNS rebinding): on loopback, pages of localhost itself; beyond
//!   it, only origins given in `SAGASU_ALLOWED_ORIGINS`; clients that send no `Origin` (every
//!   non-browser MCP client) pass;
//! - sessions expire after `idle` without traffic, and at most `max_sessions` live at once
//!   (`max_per_client` from one address); past either, a new session gets 503.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::session::local::{LocalSessionManager, SessionConfig};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId, SessionManager};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

/// The shortest token accepted for an address beyond loopback: anyone who can reach the port can
/// guess a short one (16 random characters are about 95 bits).
pub const MIN_TOKEN_LEN: usize = 16;
/// Default for `--session-idle-secs`: long enough for a person to read an answer and ask again.
pub const DEFAULT_SESSION_IDLE_SECS: u64 = 300;
/// Default for `--max-sessions`: an idle session costs tens of KB, so this bounds memory.
pub const DEFAULT_MAX_SESSIONS: usize = 1000;
/// Default for `--max-sessions-per-client`: one address cannot take every session.
pub const DEFAULT_MAX_SESSIONS_PER_CLIENT: usize = 100;

/// The command-line options of an HTTP server (shared by `serve` and `source`).
#[derive(Debug, Clone, clap::Args)]
pub struct HttpArgs {
    /// Serve streamable HTTP at http://ADDR/mcp (e.g. 127.0.0.1:8765) instead of stdio. With
    /// SAGASU_TOKEN set, every request needs `Authorization: Bearer $SAGASU_TOKEN`; an address
    /// beyond loopback requires a token of at least 16 characters.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// HTTP: close a session after this many seconds without a request.
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_SESSION_IDLE_SECS)]
    pub session_idle_secs: u64,
    /// HTTP: most sessions open at once (a new one past it gets 503).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_SESSIONS)]
    pub max_sessions: usize,
    /// HTTP: most sessions open at once from one client address.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_SESSIONS_PER_CLIENT)]
    pub max_sessions_per_client: usize,
}

/// Who may use an HTTP server and how much of it: the validated form of `HttpArgs` and the
/// environment (`SAGASU_TOKEN`, `SAGASU_ALLOWED_ORIGINS`).
#[derive(Debug, Clone)]
pub struct Access {
    pub addr: SocketAddr,
    /// The bearer token every request must carry, if any.
    pub token: Option<String>,
    /// Browser origins allowed besides the loopback ones (`scheme://host:port`, `:*` for any port).
    pub extra_origins: Vec<String>,
    pub idle: Duration,
    pub max_sessions: usize,
    pub max_per_client: usize,
}

impl HttpArgs {
    /// The access rules for `--http`, or `None` for stdio; reads the environment through `env`.
    pub fn access(&self, env: &dyn Fn(&str) -> Option<String>) -> Result<Option<Access>, String> {
        let Some(addr) = self.http.as_deref() else {
            return Ok(None);
        };
        let addr = parse_addr(addr)?;
        if self.max_sessions == 0 || self.max_sessions_per_client == 0 || self.session_idle_secs == 0 {
            return Err(
                "`--max-sessions`, `--max-sessions-per-client` and `--session-idle-secs` must be at least 1".into(),
            );
        }
        let token = env("SAGASU_TOKEN")
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty());
        if !addr.ip().is_loopback() {
            match &token {
                None => {
                    return Err(format!(
                        "`{addr}` is reachable from other machines; set SAGASU_TOKEN to a secret first \
                         (every request must then carry it as a bearer token), or bind 127.0.0.1"
                    ));
                }
                Some(t) if t.chars().count() < MIN_TOKEN_LEN => {
                    return Err(format!(
                        "SAGASU_TOKEN is {} characters long; `{addr}` is reachable from other machines, where \
                         a short token can be guessed: use at least {MIN_TOKEN_LEN} random characters \
                         (e.g. `openssl rand -hex 24`)",
                        t.chars().count()
                    ));
                }
                Some(_) => {}
            }
        }
        let extra_origins: Vec<String> = env("SAGASU_ALLOWED_ORIGINS")
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        for o in &extra_origins {
            if !(o.starts_with("http://") || o.starts_with("https://")) {
                return Err(format!(
                    "SAGASU_ALLOWED_ORIGINS: `{o}` is not an origin like https://app.example.com:443"
                ));
            }
        }
        Ok(Some(Access {
            addr,
            token,
            extra_origins,
            idle: Duration::from_secs(self.session_idle_secs),
            max_sessions: self.max_sessions,
            max_per_client: self.max_sessions_per_client,
        }))
    }
}

impl Access {
    /// Loopback access with no token and the default limits (for tests and embedding).
    pub fn loopback(addr: SocketAddr) -> Access {
        Access {
            addr,
            token: None,
            extra_origins: Vec::new(),
            idle: Duration::from_secs(DEFAULT_SESSION_IDLE_SECS),
            max_sessions: DEFAULT_MAX_SESSIONS,
            max_per_client: DEFAULT_MAX_SESSIONS_PER_CLIENT,
        }
    }

    /// The origins a browser page may call from.
    fn allowed_origins(&self, bound: SocketAddr) -> Vec<String> {
        let mut out = Vec::new();
        if bound.ip().is_loopback() {
            for host in ["localhost", "127.0.0.1", "[::1]"] {
                for scheme in ["http", "https"] {
                    out.push(format!("{scheme}://{host}:*"));
                }
            }
        }
        out.extend(self.extra_origins.iter().cloned());
        out
    }

    /// A line for the startup message: what protects this server.
    pub fn describe(&self) -> String {
        let auth = if self.token.is_some() {
            "bearer token required"
        } else {
            "no token"
        };
        format!(
            "{auth}; sessions close after {} s idle, at most {} ({} per client)",
            self.idle.as_secs(),
            self.max_sessions,
            self.max_per_client
        )
    }
}

/// True when the request carries `Authorization: Bearer <token>` (the scheme in any case,
/// the token compared in constant time).
fn authorized(headers: &axum::http::HeaderMap, token: &str) -> bool {
    let Some(value) = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let Some((scheme, given)) = value.trim().split_once(' ') else {
        return false;
    };
    if !scheme.eq_ignore_ascii_case("bearer") {
        return false;
    }
    let (a, b) = (given.trim().as_bytes(), token.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

tokio::task_local! {
    /// The client address of the request being served (set by the session-limit layer, read by
    /// `BoundedSessions::create_session`, which runs inside that request).
    static CLIENT: IpAddr;
}

/// Why a new session was refused.
#[derive(Debug, thiserror::Error)]
pub enum SessionLimitError {
    #[error("too many open sessions ({0}); close one or try again later")]
    Total(usize),
    #[error("too many open sessions from this client ({0}); close one or try again later")]
    PerClient(usize),
    #[error(transparent)]
    Inner(#[from] rmcp::transport::streamable_http_server::session::local::LocalSessionManagerError),
}

/// rmcp's local session manager under a cap on open sessions, in all and per client address.
/// Sessions leave it when they close: on DELETE, on idle expiry and on shutdown.
pub struct BoundedSessions {
    inner: LocalSessionManager,
    max: usize,
    max_per_client: usize,
    /// The client of each open session, and how many each client has.
    owners: std::sync::Mutex<(HashMap<SessionId, IpAddr>, HashMap<IpAddr, usize>)>,
}

impl BoundedSessions {
    pub fn new(idle: Duration, max: usize, max_per_client: usize) -> BoundedSessions {
        let mut inner = LocalSessionManager::default();
        let mut config = SessionConfig::default();
        config.keep_alive = Some(idle);
        // A session that never sends `initialize` is gone within the idle time too.
        config.init_timeout = Some(idle.min(SessionConfig::DEFAULT_INIT_TIMEOUT));
        inner.session_config = config;
        BoundedSessions {
            inner,
            max,
            max_per_client,
            owners: std::sync::Mutex::new((HashMap::new(), HashMap::new())),
        }
    }

    /// How many sessions are open.
    pub fn open(&self) -> usize {
        self.owners.lock().map(|o| o.0.len()).unwrap_or(0)
    }

    fn forget(&self, id: &SessionId) {
        if let Ok(mut o) = self.owners.lock()
            && let Some(ip) = o.0.remove(id)
            && let Some(n) = o.1.get_mut(&ip)
        {
            *n -= 1;
            if *n == 0 {
                o.1.remove(&ip);
            }
        }
    }

    /// Reserves a place for a session of `ip`, or says why there is none.
    fn reserve(&self, ip: Option<IpAddr>) -> Result<(), SessionLimitError> {
        let Ok(o) = self.owners.lock() else {
            return Ok(());
        };
        if o.0.len() >= self.max {
            return Err(SessionLimitError::Total(self.max));
        }
        if let Some(ip) = ip
            && o.1.get(&ip).copied().unwrap_or(0) >= self.max_per_client
        {
            return Err(SessionLimitError::PerClient(self.max_per_client));
        }
        Ok(())
    }
}

impl SessionManager for BoundedSessions {
    type Error = SessionLimitError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let ip = CLIENT.try_with(|ip| *ip).ok();
        self.reserve(ip)?;
        let (id, transport) = self.inner.create_session().await?;
        if let Ok(mut o) = self.owners.lock() {
            let ip = ip.unwrap_or(IpAddr::from([0, 0, 0, 0]));
            o.0.insert(id.clone(), ip);
            *o.1.entry(ip).or_insert(0) += 1;
        }
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: rmcp::model::ClientJsonRpcMessage,
    ) -> Result<rmcp::model::ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.forget(id);
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: rmcp::model::ClientJsonRpcMessage,
    ) -> Result<impl futures::Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: rmcp::model::ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl futures::Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl futures::Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }
}

fn refuse(status: axum::http::StatusCode, message: String) -> axum::response::Response {
    use axum::response::IntoResponse;
    let mut r = (status, message + "\n").into_response();
    if status == axum::http::StatusCode::UNAUTHORIZED {
        r.headers_mut().insert(
            axum::http::header::WWW_AUTHENTICATE,
            axum::http::HeaderValue::from_static("Bearer"),
        );
    }
    if status == axum::http::StatusCode::SERVICE_UNAVAILABLE {
        r.headers_mut().insert(
            axum::http::header::RETRY_AFTER,
            axum::http::HeaderValue::from_static("30"),
        );
    }
    r
}

/// Serves `handler` (cloned per session) at `/mcp` on `listener` under `access` until
/// `shutdown` resolves.
pub async fn serve<H>(
    handler: H,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
    access: Access,
) -> std::io::Result<()>
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    let sessions = Arc::new(BoundedSessions::new(
        access.idle,
        access.max_sessions,
        access.max_per_client,
    ));
    serve_with_sessions(handler, listener, shutdown, access, sessions).await
}

/// `serve` with a session manager the caller keeps a handle on.
pub async fn serve_with_sessions<H>(
    handler: H,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
    access: Access,
    sessions: Arc<BoundedSessions>,
) -> std::io::Result<()>
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    let ct = CancellationToken::new();
    let local = listener.local_addr()?;
    let mut config = StreamableHttpServerConfig::default()
        .with_cancellation_token(ct.child_token())
        .with_allowed_origins(access.allowed_origins(local))
        .enforce_origin_validation();
    if !local.ip().is_loopback() {
        // Bound beyond loopback on purpose (a token guards it): accept any Host header.
        config = config.disable_allowed_hosts();
    }
    let service = StreamableHttpService::new(move || Ok(handler.clone()), sessions.clone(), config);
    let token = access.token.clone().map(Arc::new);
    let app = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(
            move |axum::extract::ConnectInfo(peer): axum::extract::ConnectInfo<SocketAddr>,
                  req: axum::extract::Request,
                  next: axum::middleware::Next| {
                let token = token.clone();
                let sessions = sessions.clone();
                async move {
                    if let Some(t) = &token
                        && !authorized(req.headers(), t)
                    {
                        return refuse(
                            axum::http::StatusCode::UNAUTHORIZED,
                            "a bearer token is required (Authorization: Bearer $SAGASU_TOKEN)".into(),
                        );
                    }
                    // A request without a session id may open one: refuse it early when full.
                    if req.method() == axum::http::Method::POST
                        && !req.headers().contains_key("mcp-session-id")
                        && let Err(e) = sessions.reserve(Some(peer.ip()))
                    {
                        return refuse(axum::http::StatusCode::SERVICE_UNAVAILABLE, e.to_string());
                    }
                    CLIENT.scope(peer.ip(), next.run(req)).await
                }
            },
        ));
    axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>())
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

/// Binds `access.addr` and serves `handler` there until Ctrl-C or SIGTERM, saying on stderr
/// what is served where (`what`, e.g. "the offline slack source").
pub async fn serve_until_signal<H>(handler: H, access: &Access, what: &str) -> anyhow::Result<()>
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    let listener = tokio::net::TcpListener::bind(access.addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on `{}`: {e}", access.addr))?;
    eprintln!(
        "sagasu: serving {what} at http://{}/mcp ({})",
        listener.local_addr()?,
        access.describe()
    );
    serve(handler, listener, shutdown_signal(), access.clone()).await?;
    Ok(())
}

/// Resolves on Ctrl-C or SIGTERM. The handlers are installed when this is called, not when
/// the future is first polled, so a signal that comes while a server is still starting is not
/// lost (nor does it kill the process the default way, leaving children behind).
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let term = signal(SignalKind::terminate()).ok();
        let int = signal(SignalKind::interrupt()).ok();
        async move {
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! { () = wait(term) => {}, () = wait(int) => {} }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(http: &str) -> HttpArgs {
        HttpArgs {
            http: Some(http.into()),
            session_idle_secs: 60,
            max_sessions: 10,
            max_sessions_per_client: 5,
        }
    }

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| pairs.iter().find(|(a, _)| *a == k).map(|(_, b)| b.to_string())
    }

    #[test]
    fn beyond_loopback_needs_a_long_token() {
        let e = args("0.0.0.0:0").access(&env_of(&[])).unwrap_err();
        assert!(e.contains("SAGASU_TOKEN"), "{e}");
        let e = args("0.0.0.0:0").access(&env_of(&[("SAGASU_TOKEN", "x")])).unwrap_err();
        assert!(e.contains("at least 16"), "{e}");
        let ok = args("0.0.0.0:0")
            .access(&env_of(&[("SAGASU_TOKEN", "0123456789abcdef0123")]))
            .unwrap()
            .unwrap();
        assert_eq!(ok.token.as_deref(), Some("0123456789abcdef0123"));
        // Loopback needs none, and a short token there is the user's business.
        assert!(args("127.0.0.1:0").access(&env_of(&[])).unwrap().is_some());
        assert!(args("127.0.0.1:0").access(&env_of(&[("SAGASU_TOKEN", "x")])).is_ok());
        let e = args("127.0.0.1:0")
            .access(&env_of(&[("SAGASU_ALLOWED_ORIGINS", "app.example.com")]))
            .unwrap_err();
        assert!(e.contains("SAGASU_ALLOWED_ORIGINS"), "{e}");
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive() {
        let mut h = axum::http::HeaderMap::new();
        for (value, ok) in [
            ("Bearer s3cret", true),
            ("bearer s3cret", true),
            ("BEARER  s3cret", true),
            ("Basic s3cret", false),
            ("Bearer s3cre", false),
            ("Bearers3cret", false),
        ] {
            h.insert(axum::http::header::AUTHORIZATION, value.parse().unwrap());
            assert_eq!(authorized(&h, "s3cret"), ok, "{value}");
        }
    }

    #[test]
    fn loopback_allows_only_local_pages_beyond_it_only_the_listed() {
        let mut a = Access::loopback("127.0.0.1:0".parse().unwrap());
        let local = a.allowed_origins("127.0.0.1:8765".parse().unwrap());
        assert!(local.iter().any(|o| o == "http://localhost:*"));
        a.extra_origins = vec!["https://app.example.com:443".into()];
        assert_eq!(
            a.allowed_origins("0.0.0.0:8765".parse().unwrap()),
            vec!["https://app.example.com:443".to_string()]
        );
    }
}
