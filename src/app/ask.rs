//! `sagasu ask`: one question across every source, answered with citations.

use std::path::PathBuf;

use super::{Failure, Out, Outcome};
use crate::config::policy::Intent;
use crate::pipeline::ask::AskOptions;

/// Ask a question across every source and get a cited answer.
#[derive(Debug, Clone, clap::Args)]
pub struct AskCommand {
    /// The configuration file (default: the bundled demo, examples/acme/sagasu.yaml).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Use this policy folder instead of the configuration's.
    #[arg(long)]
    pub policies: Option<PathBuf>,
    /// Print the answer object (contracts section 4) as JSON.
    #[arg(long)]
    pub json: bool,
    /// Show how every citation was scored.
    #[arg(long)]
    pub explain: bool,
    /// The clock for freshness and relative dates, RFC 3339 (default: now).
    #[arg(long, value_name = "RFC3339")]
    pub as_of: Option<String>,
    /// Ask only these sources (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    pub sources: Option<Vec<String>>,
    /// Use this intent instead of classifying the question.
    #[arg(long)]
    pub intent: Option<String>,
    /// Use the configured language model (`llm:` in the configuration) for this question.
    #[arg(long, conflicts_with = "no_llm")]
    pub llm: bool,
    /// Do not use the language model, even where the configuration turns it on.
    #[arg(long)]
    pub no_llm: bool,
    /// The question, in English or Japanese.
    pub question: String,
}

/// Answers the question and writes the answer (Markdown, or the contract's JSON). Fails with 1
/// after writing it when no source could be searched: a script must not take it for an answer.
pub async fn run(cmd: AskCommand, out: Out<'_>) -> Outcome {
    let now = match cmd.as_of.as_deref().map(chrono::DateTime::parse_from_rfc3339) {
        None => None,
        Some(Ok(t)) => Some(t.with_timezone(&chrono::Utc)),
        Some(Err(e)) => {
            return Err(Failure::input(format!(
                "`--as-of` must be an RFC 3339 time like 2026-11-20T09:00:00Z: {e}"
            )));
        }
    };
    let intent = cmd
        .intent
        .as_deref()
        .map(str::parse::<Intent>)
        .transpose()
        .map_err(Failure::input)?;
    let engine = super::load_engine(cmd.config, cmd.policies.as_deref())?;
    let llm = super::llm_choice(&engine, cmd.llm, cmd.no_llm)?;
    let opts = AskOptions {
        now,
        sources: cmd.sources,
        intent,
        llm,
        ..Default::default()
    };
    let result = engine.ask(&cmd.question, &opts).await;
    engine.shutdown().await;
    let r = result.map_err(Failure::input)?;
    if cmd.json {
        let s = serde_json::to_string_pretty(&r).map_err(|e| Failure::input(format!("cannot write JSON: {e}")))?;
        out(&(s + "\n"));
    } else {
        out(&crate::pipeline::answer::render_markdown(&r, cmd.explain));
    }
    match crate::servers::serve::all_failed(&r) {
        Some(why) => Err(Failure::failed(why)),
        None => Ok(()),
    }
}
