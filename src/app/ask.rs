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
    /// Stop waiting for sources (and the language model) this many seconds after the question
    /// arrives; what is found by then is answered from (default 15).
    #[arg(long, value_name = "SECONDS", value_parser = parse_deadline)]
    pub deadline: Option<std::time::Duration>,
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
        deadline: cmd.deadline,
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

/// The longest deadline `--deadline` takes: ten minutes.
const MAX_DEADLINE_SECS: f64 = 600.0;

/// `--deadline`: seconds, more than none and at most ten minutes.
fn parse_deadline(s: &str) -> Result<std::time::Duration, String> {
    let secs: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds (for example 15 or 2.5)"))?;
    if !secs.is_finite() || secs <= 0.0 || secs > MAX_DEADLINE_SECS {
        return Err(format!(
            "the deadline must be more than 0 and at most {MAX_DEADLINE_SECS} seconds"
        ));
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::parse_deadline;
    use std::time::Duration;

    #[test]
    fn a_deadline_is_a_positive_number_of_seconds_up_to_ten_minutes() {
        assert_eq!(parse_deadline("15"), Ok(Duration::from_secs(15)));
        assert_eq!(parse_deadline(" 2.5 "), Ok(Duration::from_millis(2500)));
        assert_eq!(parse_deadline("600"), Ok(Duration::from_secs(600)));
        for bad in ["0", "-3", "601", "NaN", "inf", "", "15s"] {
            assert!(parse_deadline(bad).is_err(), "{bad}");
        }
    }
}
