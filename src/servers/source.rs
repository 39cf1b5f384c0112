//! `sagasu source`: which server to run over an export folder, a live RocketChat or live tool
//! upstreams.

use std::path::Path;

use crate::config::Config;
use crate::servers::mcp::{WithLatency, serve};
use crate::servers::offline::{Folder, log_warnings, notion, rocketchat, slack};
use crate::servers::tools::ToolsServer;
use crate::servers::tools::catalog::ToolCatalog;
use crate::servers::tools::upstream::{ExecPolicy, Upstreams};

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
    http: Option<&crate::servers::http::Access>,
    latency: std::time::Duration,
    synonyms: Option<crate::text::synonyms::Synonyms>,
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
            ToolCatalog::load_in(data).map(|c| {
                let c = c.with_encoder(crate::text::encoder::shared());
                match synonyms {
                    Some(s) => c.with_synonyms(s),
                    None => c,
                }
            }),
            ToolsServer::new,
            "tools",
            |e: &ToolCatalog| e.entries.len()
        ),
    }
}

/// Serves the catalog of `config`'s upstreams (plus the dumps in `data`, if given) over stdio, or
/// over streamable HTTP at `http`; stops the upstreams when it ends.
pub async fn run_live_catalog(
    config: &Config,
    data: Option<&crate::servers::offline::Folder>,
    policy: &Path,
    policy_named: bool,
    http: Option<&crate::servers::http::Access>,
    synonyms: Option<crate::text::synonyms::Synonyms>,
) -> anyhow::Result<()> {
    let policy = ExecPolicy::load(policy, policy_named).map_err(|e| anyhow::anyhow!("bad execution policy: {e}"))?;
    let (upstreams, mut entries) = Upstreams::connect(config).await;
    let mut warnings = Vec::new();
    if let Some(dir) = data {
        let dumps = ToolCatalog::load_in(dir).map_err(|e| anyhow::anyhow!("cannot load the tool dumps: {e}"))?;
        entries.extend(dumps.entries);
        warnings = dumps.warnings;
    }
    for (name, why) in &upstreams.down {
        eprintln!("warning: upstream `{name}` is down ({why}); its tools are not in the catalog");
    }
    let mut catalog = ToolCatalog::from_entries(entries, warnings)?.with_encoder(crate::text::encoder::shared());
    if let Some(s) = synonyms {
        catalog = catalog.with_synonyms(s);
    }
    tracing::info!(
        tools = catalog.entries.len(),
        upstreams = upstreams.conns.len(),
        "tool catalog ready"
    );
    let server = ToolsServer::with_upstreams(catalog, upstreams, policy);
    let result = crate::servers::mcp::serve(server.clone(), http, "the tool catalog").await;
    server.shutdown().await;
    result
}
