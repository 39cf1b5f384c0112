//! `sagasu eval`: golden sets through the pipeline, a report, and optional quality bars.

use std::path::PathBuf;

use super::{Failure, Out, Outcome};

/// Run golden question sets through the pipeline and report search quality.
#[derive(Debug, Clone, clap::Args)]
pub struct EvalCommand {
    /// The configuration (default: each set's `workspace`, else the bundled demo).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The policy folder to evaluate (default: the configuration's).
    #[arg(long)]
    pub policies: Option<PathBuf>,
    /// A second policy folder: both run, side by side, with deltas.
    #[arg(long, value_name = "DIR")]
    pub compare: Option<PathBuf>,
    /// Also run a naive baseline: `recency` (newest first) or `uniform` (equal weights).
    #[arg(long)]
    pub baseline: Option<crate::pipeline::ask::Baseline>,
    /// Write the JSON report (contracts section 5) here.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write a Markdown report here.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Questions asked at once.
    #[arg(long, default_value_t = 4)]
    pub jobs: usize,
    /// Fail (exit 1) when overall nDCG@10 is below this.
    #[arg(long)]
    pub min_ndcg: Option<f64>,
    /// Fail when overall Recall@10 is below this.
    #[arg(long)]
    pub min_recall: Option<f64>,
    /// Fail when overall Recall@1 is below this.
    #[arg(long)]
    pub min_recall_at_1: Option<f64>,
    /// Fail when overall Recall@5 is below this.
    #[arg(long)]
    pub min_recall_at_5: Option<f64>,
    /// Fail when overall MRR is below this.
    #[arg(long)]
    pub min_mrr: Option<f64>,
    /// Fail when intent accuracy is below this.
    #[arg(long)]
    pub min_intent_accuracy: Option<f64>,
    /// Fail when answer-fact recall is below this.
    #[arg(long)]
    pub min_fact_recall: Option<f64>,
    /// Fail when citation precision is below this.
    #[arg(long)]
    pub min_citation_precision: Option<f64>,
    /// Fail when abstention is below this.
    #[arg(long)]
    pub min_abstention: Option<f64>,
    /// The golden sets (contracts section 3).
    /// Use the configured language model (`llm:` in the configuration) for every question.
    #[arg(long, conflicts_with = "no_llm")]
    pub llm: bool,
    /// Do not use the language model, even where the configuration turns it on.
    #[arg(long)]
    pub no_llm: bool,
    #[arg(required = true)]
    pub sets: Vec<PathBuf>,
}

impl EvalCommand {
    /// The bars given, by the report's metric name.
    fn thresholds(&self) -> [(&'static str, Option<f64>); 9] {
        [
            ("ndcg_at_10", self.min_ndcg),
            ("recall_at_10", self.min_recall),
            ("recall_at_1", self.min_recall_at_1),
            ("recall_at_5", self.min_recall_at_5),
            ("mrr", self.min_mrr),
            ("intent_accuracy", self.min_intent_accuracy),
            ("answer_fact_recall", self.min_fact_recall),
            ("citation_precision", self.min_citation_precision),
            ("abstention", self.min_abstention),
        ]
    }
}

/// Runs the sets with a progress bar on stderr, writes the report (text to `out`, JSON and
/// Markdown to their files), and fails with 1 when a metric misses its bar.
pub async fn run(cmd: EvalCommand, out: Out<'_>) -> Outcome {
    let thresholds = cmd.thresholds();
    let req = crate::eval::Request {
        config: cmd.config,
        policies: cmd.policies,
        compare: cmd.compare,
        baseline: cmd.baseline,
        sets: cmd.sets,
        jobs: cmd.jobs,
        llm: if cmd.no_llm {
            Some(false)
        } else if cmd.llm {
            Some(true)
        } else {
            None
        },
    };
    let bar = indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} questions ({elapsed}, eta {eta})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let progress = |total: Option<u64>| match total {
        Some(n) => bar.set_length(n),
        None => bar.inc(1),
    };
    let report = crate::eval::evaluate(&req, &|w| eprintln!("{w}"), &progress).await;
    bar.finish_and_clear();
    let report = report.map_err(Failure::input)?;
    out(&crate::eval::report::render_text(&report));
    let write = |path: &PathBuf, text: String| {
        std::fs::write(path, text).map_err(|e| Failure::input(format!("cannot write {}: {e}", path.display())))
    };
    if let Some(p) = &cmd.json {
        let text =
            serde_json::to_string_pretty(&report).map_err(|e| Failure::input(format!("cannot write JSON: {e}")))?;
        write(p, text + "\n")?;
    }
    if let Some(p) = &cmd.markdown {
        write(p, crate::eval::report::render_markdown(&report))?;
    }
    let mut missed = Vec::new();
    for (name, min) in thresholds {
        let Some(min) = min else { continue };
        match report.overall.get(name) {
            Some(v) if v >= min => {}
            Some(v) => missed.push(format!("{name} {v:.3} is below {min}")),
            None => missed.push(format!(
                "{name} was not measured (no question exercises it), so it cannot reach {min}"
            )),
        }
    }
    if missed.is_empty() {
        Ok(())
    } else {
        Err(Failure {
            code: 1,
            message: format!("quality below the thresholds:\n- {}", missed.join("\n- ")),
        })
    }
}
