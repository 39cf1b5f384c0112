//! `sagasu source`: serve an export folder, a live RocketChat or live tool upstreams as an MCP
//! source.

use std::path::PathBuf;

use super::{Failure, Outcome};
use crate::servers::source::OfflineKind;

/// Serve an offline export as an MCP server (stdio by default).
#[derive(Debug, Clone, clap::Args)]
pub struct SourceCommand {
    /// Which kind of export.
    pub kind: OfflineKind,
    /// The export folder.
    #[arg(long, required_unless_present_any = ["url", "config"])]
    pub data: Option<PathBuf>,
    /// Live upstream MCP servers for the tool catalog (only `tools`): a file with the
    /// `sources:` of sagasu.yaml; their tools join the catalog and `execute_tool` runs them.
    #[arg(long, conflicts_with = "url")]
    pub config: Option<PathBuf>,
    /// The execution policy for `--config` upstreams (default: `tools.yaml` in the
    /// configuration's policy folder; without it, tools run read-only).
    #[arg(long, requires = "config")]
    pub policy: Option<PathBuf>,
    /// A live RocketChat server (only `rocketchat`), e.g. https://chat.example.com; the
    /// personal access token comes from ROCKETCHAT_USER_ID and ROCKETCHAT_TOKEN.
    #[arg(long, conflicts_with = "data")]
    pub url: Option<String>,
    /// The tool catalog's synonym groups: the `synonyms:` of a lexicon file such as
    /// policies/lexicon.yaml (default: the lexicon built into sagasu).
    #[arg(long)]
    pub lexicon: Option<PathBuf>,
    /// Rooms searched at once on a live RocketChat server.
    #[arg(long, default_value_t = 6)]
    pub concurrency: usize,
    #[command(flatten)]
    pub http: crate::servers::http::HttpArgs,
    /// Follow symbolic links that lead outside the `--data` folder (by default such links,
    /// and links to folders, are skipped with a warning).
    #[arg(long)]
    pub follow_links: bool,
    /// Answer every search this many milliseconds late (simulates a slow backend).
    #[arg(long, default_value_t = 0)]
    pub latency_ms: u64,
}

/// Checks which server the arguments ask for, and serves it until stdin closes or a signal.
pub async fn run(cmd: SourceCommand) -> Outcome {
    let kind = cmd.kind;
    if cmd.lexicon.is_some() && kind != OfflineKind::Tools {
        return Err(Failure::input("`--lexicon` is for the `tools` catalog only"));
    }
    let synonyms = cmd
        .lexicon
        .as_deref()
        .map(crate::text::synonyms::Synonyms::load)
        .transpose()
        .map_err(|e| Failure::input(format!("cannot read the lexicon: {e}")))?;
    let access = cmd.http.access(&|v| std::env::var(v).ok()).map_err(Failure::input)?;
    let addr = access.as_ref();
    let served = |r: anyhow::Result<()>| r.map_err(|e| Failure::input(format!("{e:#}")));
    if let Some(url) = cmd.url {
        if kind != OfflineKind::Rocketchat {
            return Err(Failure::input(
                "`--url` serves a live RocketChat server only; other kinds serve `--data`",
            ));
        }
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let (Some(user), Some(token)) = (var("ROCKETCHAT_USER_ID"), var("ROCKETCHAT_TOKEN")) else {
            return Err(Failure::input(
                "a live RocketChat server needs a personal access token: set ROCKETCHAT_USER_ID \
                 and ROCKETCHAT_TOKEN (My Account → Personal Access Tokens)",
            ));
        };
        if !url.starts_with("http://") && !url.starts_with("https://") {
            return Err(Failure::input(format!(
                "`--url` must start with http:// or https://, not `{url}`"
            )));
        }
        let mut settings = crate::servers::live::rocketchat::Settings::new(&url, &user, &token);
        settings.concurrency = cmd.concurrency.max(1);
        return served(crate::servers::live::rocketchat::run(settings, addr).await);
    }
    let open = |d: &std::path::Path| crate::servers::offline::Folder::open(d, cmd.follow_links).map_err(Failure::input);
    if let Some(config) = cmd.config {
        if kind != OfflineKind::Tools {
            return Err(Failure::input(
                "`--config` (live upstreams) is for the `tools` catalog only",
            ));
        }
        let config = crate::config::Config::load_for(&config, crate::config::Purpose::Catalog)
            .map_err(|d| Failure::input(format!("invalid configuration\n{d}")))?;
        let dumps = cmd.data.as_deref().map(open).transpose()?;
        let named = cmd.policy.is_some();
        let policy_path = cmd.policy.unwrap_or_else(|| config.policies.join("tools.yaml"));
        return served(
            crate::servers::source::run_live_catalog(&config, dumps.as_ref(), &policy_path, named, addr, synonyms)
                .await,
        );
    }
    let Some(data) = cmd.data else {
        return Err(Failure::input(
            "`--data` (an export folder) or `--url` (live RocketChat) is required",
        ));
    };
    let data = open(&data)?;
    let latency = std::time::Duration::from_millis(cmd.latency_ms);
    served(crate::servers::source::run(kind, &data, addr, latency, synonyms).await)
}
