//! One MCP client connection per source: started on first use and reused, restarted when the
//! child died, every call under the source's deadline, and stopped on shutdown.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject, Tool};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use tokio::sync::Mutex;

use crate::config::{SourceConfig, Transport};
use crate::sources::SourceError;

type Client = RunningService<RoleClient, Watcher>;

/// The client side of a connection: tells whoever asked (the tool catalog) when the server
/// says its tool list changed (`notifications/tools/list_changed`).
#[derive(Clone, Default)]
pub struct Watcher {
    source: String,
    tools_changed: Option<tokio::sync::mpsc::UnboundedSender<String>>,
}

impl rmcp::ClientHandler for Watcher {
    async fn on_tool_list_changed(&self, _context: rmcp::service::NotificationContext<RoleClient>) {
        if let Some(tx) = &self.tools_changed {
            tracing::info!(source = %self.source, "the server's tool list changed");
            let _ = tx.send(self.source.clone());
        }
    }
}

struct Live {
    client: Arc<Client>,
    pid: Option<u32>,
}

/// How many entries of its data the server said, in its handshake, that it could not read
/// (sagasu's own offline servers say it under `offline::EXPORT_CAPABILITY`; others do not).
fn unreadable_of(client: &Client) -> Option<usize> {
    let info = client.peer_info()?;
    let export = info
        .capabilities
        .experimental
        .as_ref()?
        .get(crate::wire::EXPORT_CAPABILITY)?;
    let n = export.get("unreadable")?.as_u64()?;
    usize::try_from(n).ok()
}

/// A lazily started, self-healing MCP client for one source.
pub struct Connection {
    pub config: SourceConfig,
    live: Mutex<Option<Live>>,
    starts: std::sync::atomic::AtomicUsize,
    tool_names: tokio::sync::OnceCell<Vec<String>>,
    watcher: Watcher,
    /// What the server said, in its last handshake, it could not read (0: nothing, or it does
    /// not say). Kept apart from `live` so that reading it never waits behind a handshake.
    unreadable: std::sync::atomic::AtomicUsize,
}

impl Connection {
    pub fn new(config: SourceConfig) -> Connection {
        // What this source's server says may reach the logs (through rmcp's own): hide its
        // secrets there too.
        crate::util::redact::remember(&config.redactor);
        Connection {
            config,
            live: Mutex::new(None),
            starts: Default::default(),
            tool_names: Default::default(),
            watcher: Watcher::default(),
            unreadable: Default::default(),
        }
    }

    /// A connection that sends its source's name on `tools_changed` whenever the server says its
    /// tool list changed.
    pub fn watching_tools(
        config: SourceConfig,
        tools_changed: tokio::sync::mpsc::UnboundedSender<String>,
    ) -> Connection {
        let watcher = Watcher {
            source: config.name.clone(),
            tools_changed: Some(tools_changed),
        };
        Connection {
            watcher,
            ..Connection::new(config)
        }
    }

    /// How many times the server has been started (1 after the first call; more after restarts).
    pub fn starts(&self) -> usize {
        self.starts.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How many entries of its data the server said, when it last started, it could not read
    /// and left out.
    pub fn unreadable(&self) -> Option<usize> {
        Some(self.unreadable.load(std::sync::atomic::Ordering::Relaxed)).filter(|&n| n > 0)
    }

    /// The child's process id, for a stdio source that is running.
    pub async fn pid(&self) -> Option<u32> {
        self.live.lock().await.as_ref().and_then(|l| l.pid)
    }

    async fn start(&self) -> Result<Live, SourceError> {
        self.start_unredacted()
            .await
            .map_err(|e| e.redacted(&self.config.redactor))
    }

    async fn start_unredacted(&self) -> Result<Live, SourceError> {
        self.starts.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match &self.config.transport {
            Transport::Stdio {
                program,
                args,
                cwd,
                env,
            } => {
                let mut cmd = tokio::process::Command::new(program);
                // A child gets only what its config names and what any program needs to run,
                // never the rest of sagasu's environment (SAGASU_TOKEN, other sources' tokens).
                cmd.env_clear();
                for (k, v) in std::env::vars_os() {
                    if k.to_str().is_some_and(is_inherited) {
                        cmd.env(k, v);
                    }
                }
                cmd.args(args).current_dir(cwd).envs(env).kill_on_drop(true);
                // Offline servers log warnings only, unless the user asked for more.
                if std::env::var_os("RUST_LOG").is_none() {
                    cmd.env("RUST_LOG", "warn");
                }
                let (proc, _) = TokioChildProcess::builder(cmd)
                    .stderr(Stdio::inherit())
                    .spawn()
                    .map_err(|e| SourceError::Spawn(format!("cannot start `{}`: {e}", program.display())))?;
                let pid = proc.id();
                let client = self
                    .watcher
                    .clone()
                    .serve(proc)
                    .await
                    .map_err(|e| SourceError::Protocol(format!("handshake failed: {e}")))?;
                Ok(Live {
                    client: Arc::new(client),
                    pid,
                })
            }
            Transport::Http { url, headers } => {
                use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
                let mut cfg = StreamableHttpClientTransportConfig::with_uri(url.as_str());
                let mut custom = HashMap::new();
                for (k, v) in headers {
                    if k.eq_ignore_ascii_case("authorization") {
                        cfg = cfg.auth_header(v.strip_prefix("Bearer ").unwrap_or(v).to_string());
                        continue;
                    }
                    let name = http::HeaderName::from_bytes(k.as_bytes())
                        .map_err(|_| SourceError::Protocol(format!("invalid header name `{k}`")))?;
                    // Header values can hold secrets: never echo them.
                    let value = http::HeaderValue::from_str(v)
                        .map_err(|_| SourceError::Protocol(format!("invalid value for header `{k}`")))?;
                    custom.insert(name, value);
                }
                let transport = StreamableHttpClientTransport::from_config(cfg.custom_headers(custom));
                let client = self
                    .watcher
                    .clone()
                    .serve(transport)
                    .await
                    .map_err(|e| classify_init(&e.to_string()))?;
                Ok(Live {
                    client: Arc::new(client),
                    pid: None,
                })
            }
        }
    }

    /// The running client, started or restarted as needed.
    async fn client(&self) -> Result<Arc<Client>, SourceError> {
        let mut guard = self.live.lock().await;
        if let Some(l) = guard.as_ref() {
            if !l.client.is_closed() {
                return Ok(l.client.clone());
            }
            tracing::info!(source = %self.config.name, "server is gone; restarting");
        }
        let live = self.start().await?;
        self.unreadable.store(
            unreadable_of(&live.client).unwrap_or(0),
            std::sync::atomic::Ordering::Relaxed,
        );
        let c = live.client.clone();
        *guard = Some(live);
        Ok(c)
    }

    async fn forget(&self, client: &Arc<Client>) {
        let mut guard = self.live.lock().await;
        if guard.as_ref().is_some_and(|l| Arc::ptr_eq(&l.client, client)) {
            *guard = None;
        }
    }

    /// Calls a tool under the source's deadline. A connection that broke is restarted and the
    /// call tried once more within the same deadline.
    pub async fn call(&self, tool: &str, args: JsonObject) -> Result<CallToolResult, SourceError> {
        self.call_within(tool, args, self.config.timeout).await
    }

    pub async fn call_within(
        &self,
        tool: &str,
        args: JsonObject,
        deadline: Duration,
    ) -> Result<CallToolResult, SourceError> {
        let attempt = async {
            for round in 0..2 {
                let client = self.client().await?;
                let params = CallToolRequestParams::new(tool.to_string()).with_arguments(args.clone());
                match client.peer().call_tool(params).await {
                    Ok(r) => return Ok(r),
                    Err(ServiceError::TransportClosed | ServiceError::TransportSend(_)) if round == 0 => {
                        self.forget(&client).await;
                    }
                    Err(e) => return Err(classify(e)),
                }
            }
            Err(SourceError::Protocol("the server closed the connection twice".into()))
        };
        match tokio::time::timeout(deadline, attempt).await {
            Ok(r) => r.map_err(|e| e.redacted(&self.config.redactor)),
            Err(_) => Err(SourceError::Timeout(deadline)),
        }
    }

    /// Lists the server's tools under the deadline.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, SourceError> {
        let attempt = async {
            let client = self.client().await?;
            client.peer().list_all_tools().await.map_err(classify)
        };
        match tokio::time::timeout(self.config.timeout, attempt).await {
            Ok(r) => r.map_err(|e| e.redacted(&self.config.redactor)),
            Err(_) => Err(SourceError::Timeout(self.config.timeout)),
        }
    }

    /// The server's tool names, listed once and remembered (for choosing a preset).
    pub async fn tool_names(&self) -> Result<&[String], SourceError> {
        self.tool_names
            .get_or_try_init(|| async {
                Ok(self
                    .list_tools()
                    .await?
                    .into_iter()
                    .map(|t| t.name.to_string())
                    .collect())
            })
            .await
            .map(Vec::as_slice)
    }

    /// Stops the server (closing stdio lets a child exit; it is killed if it does not).
    pub async fn shutdown(&self) {
        let live = self.live.lock().await.take();
        if let Some(l) = live {
            match Arc::try_unwrap(l.client) {
                Ok(mut c) => {
                    let _ = c.close_with_timeout(Duration::from_secs(2)).await;
                }
                Err(shared) => shared.cancellation_token().cancel(),
            }
        }
    }
}

fn classify(e: ServiceError) -> SourceError {
    match e {
        ServiceError::McpError(d) => SourceError::Tool(d.message.to_string()),
        ServiceError::Timeout { timeout } => SourceError::Timeout(timeout),
        other => SourceError::Protocol(other.to_string()),
    }
}

fn classify_init(msg: &str) -> SourceError {
    let m = msg.to_lowercase();
    if m.contains("401") || m.contains("403") || m.contains("auth") {
        SourceError::Auth(msg.to_string())
    } else if m.contains("429") {
        SourceError::RateLimited(msg.to_string())
    } else {
        SourceError::Protocol(format!("cannot connect: {msg}"))
    }
}

/// The environment variables every stdio source inherits: where programs and home are, the
/// locale and time zone, the temporary folder, logging, and sagasu's data folder.
fn is_inherited(name: &str) -> bool {
    matches!(
        name,
        "PATH"
            | "HOME"
            | "USER"
            | "LOGNAME"
            | "SHELL"
            | "LANG"
            | "LANGUAGE"
            | "TZ"
            | "TMPDIR"
            | "TEMP"
            | "TMP"
            | "RUST_LOG"
            | "RUST_BACKTRACE"
            | "SAGASU_DATA"
            | "XDG_DATA_HOME"
            | "XDG_CACHE_HOME"
            | "SystemRoot"
    ) || name.starts_with("LC_")
}
