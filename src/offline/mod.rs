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

/// An export folder as the offline servers read it: entries listed in sorted order (so loading
/// order, and therefore ordinals, are stable), only regular files read, and nothing outside the
/// folder: a symbolic link is followed only when it points inside it (and a linked folder is
/// never entered, so a link cannot make a loop), unless `follow_links` allows links anywhere.
#[derive(Debug, Clone)]
pub struct Folder {
    /// The folder as given (for messages and joins).
    pub root: PathBuf,
    /// Its canonical path (for the inside check).
    canonical: PathBuf,
    pub follow_links: bool,
}

impl Folder {
    /// Opens `dir`; a missing folder, or a path that is not one, is an error.
    pub fn open(dir: &Path, follow_links: bool) -> Result<Folder, LoadError> {
        if !dir.exists() {
            return Err(LoadError::MissingFolder(dir.to_path_buf()));
        }
        if !dir.is_dir() {
            return Err(LoadError::NotAFolder(dir.to_path_buf()));
        }
        let canonical = dir.canonicalize().map_err(|e| LoadError::Io {
            path: dir.to_path_buf(),
            source: e,
        })?;
        Ok(Folder {
            root: dir.to_path_buf(),
            canonical,
            follow_links,
        })
    }

    pub fn join(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Why `path` (a link, or a file under a linked folder) may not be read, if it may not.
    fn outside(&self, path: &Path) -> Option<String> {
        if self.follow_links {
            return None;
        }
        match path.canonicalize() {
            Ok(real) if real.starts_with(&self.canonical) => None,
            Ok(_) => Some("skipped: it leads outside the data folder (pass --follow-links to allow links)".into()),
            Err(e) => Some(format!("skipped: {e}")),
        }
    }

    /// The sorted entries of `dir` (the root or a folder under it): regular files and folders,
    /// links resolved as the folder's rules say. What is left out is said in `warnings`.
    pub fn entries(&self, dir: &Path, warnings: &mut Vec<DataWarning>) -> Result<Vec<PathBuf>, LoadError> {
        // A folder named by the export itself (a channel's) may lead out through `..` or a link.
        if let Some(why) = self.outside(dir) {
            warnings.push(DataWarning::about(dir, why));
            return Ok(Vec::new());
        }
        let rd = std::fs::read_dir(dir).map_err(|e| LoadError::Io {
            path: dir.to_path_buf(),
            source: e,
        })?;
        let mut out: Vec<PathBuf> = Vec::new();
        for e in rd.flatten() {
            let path = e.path();
            let Ok(t) = e.file_type() else { continue };
            if t.is_symlink() {
                if let Some(why) = self.outside(&path) {
                    warnings.push(DataWarning::about(&path, why));
                    continue;
                }
                match std::fs::metadata(&path) {
                    Ok(m) if m.is_file() => out.push(path),
                    Ok(m) if m.is_dir() && self.follow_links => out.push(path),
                    Ok(m) if m.is_dir() => warnings.push(DataWarning::about(
                        &path,
                        "skipped: a link to a folder (pass --follow-links to enter linked folders)".into(),
                    )),
                    Ok(_) => warnings.push(DataWarning::about(&path, "skipped: not a regular file".into())),
                    Err(e) => warnings.push(DataWarning::about(&path, format!("skipped: {e}"))),
                }
            } else if t.is_file() || t.is_dir() {
                out.push(path);
            } else {
                warnings.push(DataWarning::about(
                    &path,
                    "skipped: not a regular file (a FIFO, socket or device)".into(),
                ));
            }
        }
        out.sort();
        Ok(out)
    }

    /// Reads a file of the export (a regular file inside the folder) as text.
    pub fn read(&self, path: &Path) -> Result<String, DataWarning> {
        if let Some(why) = self.outside(path) {
            return Err(DataWarning::about(path, why));
        }
        crate::fsutil::read_regular(path, crate::fsutil::MAX_DATA_BYTES)
            .map_err(|e| DataWarning::about(path, format!("cannot read: {e}")))
    }

    /// Reads and parses a JSON file of the export; a parse error becomes a warning with line and
    /// column.
    pub fn read_json<T: DeserializeOwned>(&self, path: &Path) -> Result<T, DataWarning> {
        let text = self.read(path)?;
        parse_json(path, &text)
    }
}

impl Folder {
    /// The items of a JSON array file (the array itself, or the one under `key`), each read on
    /// its own: a bad item is reported (with its index) and skipped, and the rest are kept, so
    /// one bad message never loses a whole day or room.
    pub fn read_items<T: DeserializeOwned>(
        &self,
        path: &Path,
        key: Option<&str>,
        warnings: &mut Vec<DataWarning>,
    ) -> Vec<T> {
        let value: serde_json::Value = match self.read_json(path) {
            Ok(v) => v,
            Err(w) => {
                warnings.push(w);
                return Vec::new();
            }
        };
        let array = match key {
            Some(k) => value.get(k).cloned(),
            None => Some(value),
        };
        let Some(serde_json::Value::Array(items)) = array else {
            let what = key.map_or("an array".to_string(), |k| format!("an array under `{k}`"));
            warnings.push(DataWarning::about(path, format!("skipped: expected {what}")));
            return Vec::new();
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            match serde_json::from_value::<T>(item) {
                Ok(t) => out.push(t),
                Err(e) => warnings.push(DataWarning::about(
                    path,
                    format!("item {i} skipped: {}", crate::yaml::short(&e.to_string())),
                )),
            }
        }
        out
    }
}

/// Parses JSON text read from `path`; a parse error becomes a warning with line and column.
pub(crate) fn parse_json<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, DataWarning> {
    serde_json::from_str(text).map_err(|e| DataWarning {
        path: path.to_path_buf(),
        line: Some(e.line()),
        column: Some(e.column()),
        message: format!("malformed JSON: {e}"),
    })
}

impl DataWarning {
    /// A warning about the whole of `path`.
    pub fn about(path: &Path, message: String) -> DataWarning {
        DataWarning {
            path: path.to_path_buf(),
            line: None,
            column: None,
            message,
        }
    }
}

/// Logs load warnings on stderr (stdout belongs to MCP in stdio mode).
pub fn log_warnings(source: &str, warnings: &[DataWarning]) {
    for w in warnings {
        tracing::warn!(source, "skipped: {w}");
    }
}

/// A server's stdio loop: serve `handler` until the client closes stdin, or until SIGTERM or
/// Ctrl-C.
pub async fn serve_stdio<H: rmcp::ServerHandler>(handler: H) -> anyhow::Result<()> {
    use rmcp::ServiceExt;
    let stop = crate::http::shutdown_signal();
    let running = handler.serve(crate::stdio::stdio()).await?;
    let ct = running.cancellation_token();
    tokio::select! {
        r = running.waiting() => { r?; }
        () = stop => ct.cancel(),
    }
    Ok(())
}

/// Serves `handler` over stdio, or over streamable HTTP under `http`'s rules; `what` names it
/// in the startup line ("the offline slack source").
pub async fn serve<H>(handler: H, http: Option<&crate::http::Access>, what: &str) -> anyhow::Result<()>
where
    H: rmcp::ServerHandler + Clone + Send + Sync + 'static,
{
    match http {
        None => serve_stdio(handler).await,
        Some(access) => crate::http::serve_until_signal(handler, access, what).await,
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
    data: &Folder,
    http: Option<&crate::http::Access>,
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
            let unreadable = export.warnings.len();
            let server = WithLatency {
                inner: $server(export),
                latency,
                unreadable,
            };
            serve(server, http, concat!("the offline ", $name, " source")).await
        }};
    }
    match kind {
        OfflineKind::Slack => serve!(
            slack::SlackExport::load_in(data),
            slack::SlackServer::new,
            "slack",
            |e: &slack::SlackExport| e.messages.len()
        ),
        OfflineKind::Notion => serve!(
            notion::NotionExport::load_in(data),
            notion::NotionServer::new,
            "notion",
            |e: &notion::NotionExport| e.pages.len()
        ),
        OfflineKind::Rocketchat => serve!(
            rocketchat::RocketExport::load_in(data),
            rocketchat::RocketServer::new,
            "rocketchat",
            |e: &rocketchat::RocketExport| e.messages.len()
        ),
        OfflineKind::Tools => serve!(
            tools::ToolCatalog::load_in(data).map(|c| match synonyms {
                Some(s) => c.with_synonyms(s),
                None => c,
            }),
            tools::ToolsServer::new,
            "tools",
            |e: &tools::ToolCatalog| e.entries.len()
        ),
    }
}
