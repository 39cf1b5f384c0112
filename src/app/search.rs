//! `sagasu search`: what each source returns for some words, normalised and unranked.

use std::path::PathBuf;

use super::{Failure, Out, Outcome};
use crate::sources::{SourcePool, SourceQuery};

/// How long `search` waits for the sources: a person is watching, and a source slower than
/// this is reported as timed out rather than waited for.
const SEARCH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Ask every source (or one) for raw hits, unranked: what each source returns, normalised.
#[derive(Debug, Clone, clap::Args)]
pub struct SearchCommand {
    /// The configuration file (default: the bundled demo).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Only this source.
    #[arg(long)]
    pub source: Option<String>,
    /// Most hits per source.
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
    /// Print JSON instead of a list.
    #[arg(long)]
    pub json: bool,
    /// The search words.
    pub query: String,
}

/// Sends the words to every source (or the one named) and lists what came back.
pub async fn run(cmd: SearchCommand, out: Out<'_>) -> Outcome {
    let config = super::load_config(cmd.config)?;
    if let Some(s) = &cmd.source
        && config.source(s).is_none()
    {
        return Err(Failure::input(format!(
            "no source named `{s}` (configured: {})",
            config.source_names()
        )));
    }
    if cmd.query.trim().is_empty() {
        return Err(Failure::input("the query is empty"));
    }
    let wanted = |name: &str| cmd.source.as_deref().is_none_or(|n| n == name);
    let pool = SourcePool::new(&config);
    let queries = config
        .sources
        .iter()
        .filter(|s| wanted(&s.name))
        .map(|s| (s.name.clone(), SourceQuery::new(cmd.query.clone(), cmd.limit)))
        .collect();
    let mut outcomes = pool.search_all(&queries, SEARCH_TIMEOUT).await;
    outcomes.retain(|o| wanted(&o.name));
    pool.shutdown().await;
    if cmd.json {
        let v: Vec<serde_json::Value> = outcomes
            .iter()
            .map(|o| serde_json::json!({"source": o.name, "status": o.status, "latency_ms": o.latency_ms, "truncated": o.truncated, "note": o.note, "hits": o.hits}))
            .collect();
        out(&(serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"));
        return Ok(());
    }
    for o in &outcomes {
        out(&format!(
            "## {} ({:?}, {} hits, {} ms){}\n",
            o.name,
            o.status,
            o.hits.len(),
            o.latency_ms,
            o.note.as_deref().map(|n| format!(": {n}")).unwrap_or_default()
        ));
        for h in &o.hits {
            let when = h
                .timestamp
                .map(|t| t.format("%Y-%m-%d").to_string())
                .unwrap_or_default();
            out(&format!(
                "- {} [{}] {} {} — {}\n",
                h.id,
                h.kind,
                when,
                h.author.as_deref().unwrap_or(""),
                crate::text::truncate_chars(&h.text.replace('\n', " "), 100)
            ));
        }
    }
    Ok(())
}
