//! Offline source servers: MCP servers over the export formats of contracts section 2, speaking
//! the same tools and result shapes as the live servers they stand in for. They are a product
//! feature (search a Slack export or a Notion export with no account), not test doubles.
//!
//! Invariant: a malformed file is reported with its path (and line and column where JSON gives
//! them) and skipped; the rest is served. A missing folder is a startup error.

pub mod notion;
pub mod rocketchat;
pub mod slack;
pub mod tools;

use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

/// A problem with one file of an export; the file is skipped and the rest is served.
#[derive(Debug, Clone, PartialEq)]
pub struct DataWarning {
    pub path: PathBuf,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl fmt::Display for DataWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let (Some(l), Some(c)) = (self.line, self.column) {
            write!(f, ":{l}:{c}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Errors that stop an offline server from starting.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("data folder `{0}` does not exist")]
    MissingFolder(PathBuf),
    #[error("data folder `{0}` is not a folder")]
    NotAFolder(PathBuf),
    #[error("cannot read `{path}`: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("cannot build the search index: {0}")]
    Index(#[from] tantivy::TantivyError),
}

pub(crate) fn check_folder(dir: &Path) -> Result<(), LoadError> {
    if !dir.exists() {
        return Err(LoadError::MissingFolder(dir.to_path_buf()));
    }
    if !dir.is_dir() {
        return Err(LoadError::NotAFolder(dir.to_path_buf()));
    }
    Ok(())
}

/// Reads and parses a JSON file; a parse error becomes a warning with line and column.
pub(crate) fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, DataWarning> {
    let text = std::fs::read_to_string(path).map_err(|e| DataWarning {
        path: path.to_path_buf(),
        line: None,
        column: None,
        message: format!("cannot read: {e}"),
    })?;
    serde_json::from_str(&text).map_err(|e| DataWarning {
        path: path.to_path_buf(),
        line: Some(e.line()),
        column: Some(e.column()),
        message: format!("malformed JSON: {e}"),
    })
}

/// Sorted entries of a folder (so loading order, and therefore ordinals, are stable).
pub(crate) fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>, LoadError> {
    let rd = std::fs::read_dir(dir).map_err(|e| LoadError::Io {
        path: dir.to_path_buf(),
        source: e,
    })?;
    let mut out: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    out.sort();
    Ok(out)
}

/// Logs load warnings on stderr (stdout belongs to MCP in stdio mode).
pub fn log_warnings(source: &str, warnings: &[DataWarning]) {
    for w in warnings {
        tracing::warn!(source, "skipped: {w}");
    }
}

/// Parses a date or time given by a user or a tool argument: RFC 3339, `YYYY-MM-DD`
/// (midnight UTC), or seconds since the epoch.
pub fn parse_time(s: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    let s = s.trim();
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&chrono::Utc));
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        return d.and_hms_opt(0, 0, 0).map(|t| t.and_utc());
    }
    if let Ok(secs) = s.parse::<f64>() {
        return chrono::DateTime::from_timestamp(secs as i64, 0);
    }
    None
}

/// A server's stdio loop: serve `handler` until the client closes stdin.
pub async fn serve_stdio<H: rmcp::ServerHandler>(handler: H) -> anyhow::Result<()> {
    use rmcp::ServiceExt;
    let running = handler.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
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

/// Wraps a server so that every search call answers `latency` late: a slow backend on demand,
/// for testing deadlines and measuring fan-out. Follow-up calls (fetch, describe) are not delayed.
#[derive(Clone)]
pub struct WithLatency<H> {
    pub inner: H,
    pub latency: std::time::Duration,
}

impl<H: rmcp::ServerHandler> rmcp::ServerHandler for WithLatency<H> {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        self.inner.get_info()
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

/// The kinds of offline server `sagasu source` can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OfflineKind {
    Slack,
    Notion,
    Rocketchat,
    Tools,
}

/// Loads the export in `data` and serves it over stdio, or over streamable HTTP at `http`.
/// `synonyms` replaces the tool catalog's built-in vocabulary.
pub async fn run(
    kind: OfflineKind,
    data: &Path,
    http: Option<std::net::SocketAddr>,
    latency: std::time::Duration,
    synonyms: Option<crate::synonyms::Synonyms>,
) -> anyhow::Result<()> {
    use anyhow::Context;
    let started = std::time::Instant::now();
    macro_rules! serve {
        ($export:expr, $server:expr, $name:literal, $count:expr) => {{
            let export = $export.with_context(|| format!("cannot load the {} export", $name))?;
            log_warnings($name, &export.warnings);
            tracing::info!(
                items = $count(&export),
                ms = started.elapsed().as_millis() as u64,
                "{} export indexed",
                $name
            );
            let server = WithLatency {
                inner: $server(export),
                latency,
            };
            match http {
                None => serve_stdio(server).await,
                Some(addr) => {
                    let listener = tokio::net::TcpListener::bind(addr)
                        .await
                        .with_context(|| format!("cannot listen on `{addr}`"))?;
                    eprintln!(
                        "serving the offline {} source at http://{}/mcp",
                        $name,
                        listener.local_addr()?
                    );
                    crate::http::serve(server, listener, crate::http::shutdown_signal()).await?;
                    Ok(())
                }
            }
        }};
    }
    match kind {
        OfflineKind::Slack => serve!(
            slack::SlackExport::load(data),
            slack::SlackServer::new,
            "slack",
            |e: &slack::SlackExport| e.messages.len()
        ),
        OfflineKind::Notion => serve!(
            notion::NotionExport::load(data),
            notion::NotionServer::new,
            "notion",
            |e: &notion::NotionExport| e.pages.len()
        ),
        OfflineKind::Rocketchat => serve!(
            rocketchat::RocketExport::load(data),
            rocketchat::RocketServer::new,
            "rocketchat",
            |e: &rocketchat::RocketExport| e.messages.len()
        ),
        OfflineKind::Tools => serve!(
            tools::ToolCatalog::load(data).map(|c| match synonyms {
                Some(s) => c.with_synonyms(s),
                None => c,
            }),
            tools::ToolsServer::new,
            "tools",
            |e: &tools::ToolCatalog| e.entries.len()
        ),
    }
}
