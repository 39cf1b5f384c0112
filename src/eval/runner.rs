//! Asking golden sets through an `Engine` (the main run, a baseline, a second policy folder),
//! the clock pinned to each question's `as_of`, and building the report.

use std::time::Instant;

use futures::StreamExt;

use crate::eval::golden::Question;
use crate::eval::report::{Report, changes, side};
use crate::eval::score::{QuestionResult, breakdown, confusion, score, source_stats};
use crate::pipeline::ask::{AskOptions, Baseline, Engine};

/// Asks every question of `questions` through `engine` (at most `jobs` at once), in order.
/// `tick` is called after each question.
/// Folds of the intent classifier's cross-validation in the report.
const CLASSIFIER_FOLDS: usize = 5;

pub async fn run(
    engine: &Engine,
    questions: &[Question],
    baseline: Option<Baseline>,
    llm: Option<bool>,
    jobs: usize,
    tick: &(dyn Fn() + Sync),
) -> Vec<QuestionResult> {
    futures::stream::iter(questions)
        .map(|q| async move {
            let opts = AskOptions {
                now: Some(q.as_of),
                baseline,
                // A baseline is model-free: it measures the ranking alone.
                llm: if baseline.is_some() { Some(false) } else { llm },
                ..Default::default()
            };
            let start = Instant::now();
            let answer = engine.ask(&q.question, &opts).await;
            let latency = start.elapsed().as_secs_f64() * 1e3;
            tick();
            match answer {
                Ok(r) => score(q, Some(&r), latency, None),
                Err(e) => score(q, None, latency, Some(e.to_string())),
            }
        })
        .buffered(jobs.max(1))
        .collect()
        .await
}

/// What `sagasu eval` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// The configuration (default: each set's `workspace`, else the bundled demo).
    pub config: Option<std::path::PathBuf>,
    /// The policy folder of the main run (default: the configuration's).
    pub policies: Option<std::path::PathBuf>,
    /// A second policy folder to compare with.
    pub compare: Option<std::path::PathBuf>,
    pub baseline: Option<Baseline>,
    pub sets: Vec<std::path::PathBuf>,
    /// Questions asked at once.
    pub jobs: usize,
    /// Use the configured language model (`Some(true)`), or not (`Some(false)`); unset, as the
    /// configuration says.
    pub llm: Option<bool>,
}

/// Why an evaluation could not run (exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("{0}")]
    Input(#[from] crate::util::yaml::Diagnostics),
    #[error("no golden set given")]
    NoSets,
    #[error("`--llm` needs a language model: the configuration {0} has no `llm:` with a `base_url` and `model`")]
    NoModel(String),
}

/// Runs the golden sets of `req` and builds the report. `warn` receives warnings (ids that no
/// source can return); `progress` is told the total, then ticked once per question asked.
pub async fn evaluate(
    req: &Request,
    warn: &dyn Fn(String),
    progress: &(dyn Fn(Option<u64>) + Sync),
) -> Result<Report, EvalError> {
    use std::path::{Path, PathBuf};
    if req.sets.is_empty() {
        return Err(EvalError::NoSets);
    }
    // Each set with the configuration it runs against; every problem of every file at once.
    let mut problems = crate::util::yaml::Diagnostics::default();
    let mut loaded: Vec<(PathBuf, crate::eval::golden::GoldenSet)> = Vec::new();
    for file in &req.sets {
        let config_path = req
            .config
            .clone()
            .or_else(|| crate::eval::golden::workspace_of(file))
            .unwrap_or_else(crate::demo_config_path);
        let config = match crate::config::Config::load(&config_path) {
            Ok(c) => Some(c),
            Err(d) => {
                problems.extend(d);
                None
            }
        };
        match crate::eval::golden::load(file, config.as_ref()) {
            Ok((set, warnings)) => {
                for w in warnings {
                    warn(format!("warning: {w}"));
                }
                loaded.push((config_path, set));
            }
            Err(d) => problems.extend(d),
        }
    }
    if !problems.is_empty() {
        return Err(problems.into());
    }
    let mut seen = std::collections::HashSet::new();
    for (_, set) in &loaded {
        for q in &set.questions {
            if !seen.insert(q.id.clone()) {
                warn(format!(
                    "warning: question id `{}` appears in more than one set ({})",
                    q.id,
                    set.file.display()
                ));
            }
        }
    }
    let runs = 1 + usize::from(req.baseline.is_some()) + usize::from(req.compare.is_some());
    let total: usize = loaded.iter().map(|(_, s)| s.questions.len()).sum();
    progress(Some((total * runs) as u64));
    let tick = || progress(None);
    let (mut main, mut base, mut other) = (Vec::new(), Vec::new(), Vec::new());
    let mut policies_dir = String::new();
    let mut classifier = None;
    for (config_path, set) in &loaded {
        let engine = Engine::load(config_path, req.policies.as_deref())?;
        if req.llm == Some(true) && engine.model.is_none() {
            return Err(EvalError::NoModel(config_path.display().to_string()));
        }
        if classifier.is_none()
            && let Some(c) = &engine.policies.intents.classifier
        {
            // Five folds of the examples: how well the classifier learns the intents from
            // them, apart from any golden set.
            let encoder = crate::text::encoder::shared();
            classifier = Some(super::report::ClassifierStats {
                examples: c.examples.len(),
                folds: CLASSIFIER_FOLDS,
                accuracy: crate::pipeline::rank::round3(c.cross_validate(
                    &engine.policies.intents,
                    encoder,
                    CLASSIFIER_FOLDS,
                )),
                encoder: encoder.is_some(),
            });
        }
        if policies_dir.is_empty() {
            policies_dir = req
                .policies
                .clone()
                .unwrap_or_else(|| engine.config.policies.clone())
                .display()
                .to_string();
        }
        let name = set.file.display().to_string();
        let named = |mut v: Vec<QuestionResult>| {
            for r in &mut v {
                r.set = name.clone();
            }
            v
        };
        main.extend(named(
            run(&engine, &set.questions, None, req.llm, req.jobs, &tick).await,
        ));
        if let Some(b) = req.baseline {
            base.extend(named(
                run(&engine, &set.questions, Some(b), req.llm, req.jobs, &tick).await,
            ));
        }
        engine.shutdown().await;
        if let Some(dir) = &req.compare {
            let engine = Engine::load(config_path, Some(dir))?;
            other.extend(named(
                run(&engine, &set.questions, None, req.llm, req.jobs, &tick).await,
            ));
            engine.shutdown().await;
        }
    }
    let b = breakdown(&main);
    let baseline = req
        .baseline
        .map(|bl| side(Some(bl.name().to_string()), None, breakdown(&base), Vec::new(), base));
    let compare = req.compare.as_ref().map(|dir| {
        let changed = changes(&main, &other, 5);
        side(None, Some(dir.display().to_string()), breakdown(&other), changed, other)
    });
    Ok(Report {
        sets: req.sets.iter().map(|p| Path::new(p).display().to_string()).collect(),
        policies: policies_dir,
        overall: b.overall,
        by_intent: b.by_intent,
        by_lang: b.by_lang,
        by_set: b.by_set,
        by_reach: b.by_reach,
        baseline,
        compare,
        confusion: confusion(&main),
        intent_classifier: classifier,
        sources: source_stats(&main),
        questions: main,
    })
}
