//! `ask`: question -> intent -> policy -> per-source plan -> parallel fan-out (broadened where a
//! source found nothing) -> the pure evidence pipeline in `answer::compose`.
//!
//! Invariant: a source failure is data in the answer, never an error of `ask`.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use tracing::Instrument;

use crate::config::policy::{Broaden, Intent, Policies, Policy};
use crate::config::{Config, SourceKind};
use crate::pipeline::answer::{self, AskResponse, ComposeInput};
use crate::pipeline::query::{self, Analysis};
use crate::sources::{SourceOutcome, SourcePool, SourceQuery, SourceStatus};
use crate::util::yaml::Diagnostics;

/// Questions longer than this are read only up to here (a pasted document is not a question).
pub const MAX_QUESTION_CHARS: usize = 2_000;

/// Per-question choices a caller may make.
#[derive(Debug, Clone, Default)]
pub struct AskOptions {
    /// The clock ("now" for freshness and relative dates); the real clock when unset.
    pub now: Option<DateTime<Utc>>,
    /// Ask only these sources.
    pub sources: Option<Vec<String>>,
    /// Most hits per source.
    pub limit: Option<usize>,
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    /// Use this intent instead of classifying.
    pub intent: Option<Intent>,
    /// The whole fan-out ends by then (default 15 s).
    pub deadline: Option<Duration>,
    /// Rank as a baseline instead of by the intent's policy (evaluation).
    pub baseline: Option<Baseline>,
    /// Told about each source as it finishes (progress reporting).
    pub on_source_done: Option<crate::sources::pool::OnSourceDone>,
    /// Use the language model (`Some(true)`, `--llm`), or not (`Some(false)`, `--no-llm`);
    /// unset, as the configuration's `llm.enabled` says.
    pub llm: Option<bool>,
    /// The model to use instead of the configured endpoint (the MCP client's, by sampling).
    pub model: Option<SharedModel>,
}

/// A language model shared by the asks that use it.
#[derive(Clone)]
pub struct SharedModel(pub Arc<dyn crate::llm::LanguageModel>);

impl std::fmt::Debug for SharedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SharedModel({})", self.0.describe())
    }
}

/// The naive strategies that `sagasu eval` measures the policies against. Both ask every
/// source (no routing by intent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Baseline {
    /// Every hit newest first, nothing else (the naive fan-out merge).
    Recency,
    /// Equal weights of keyword, freshness, authority and completeness.
    Uniform,
}

impl Baseline {
    pub fn name(self) -> &'static str {
        match self {
            Baseline::Recency => "recency",
            Baseline::Uniform => "uniform",
        }
    }
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum AskError {
    #[error("the question is empty")]
    Empty,
    #[error("unknown source `{0}` (configured: {1})")]
    UnknownSource(String, String),
    /// Nothing in the question can be searched for (only stop words, punctuation, or only a
    /// time): sending every source an empty query would only make them all fail.
    #[error("{0}")]
    NothingToSearch(String),
    #[error("internal error: {0}")]
    Internal(String),
}

/// Why `analysis` leaves nothing to search, if it does.
/// The query each source is sent, by source name (sources not asked are absent).
pub type Plan = HashMap<String, SourceQuery>;

fn nothing_to_search(analysis: &Analysis) -> Option<String> {
    if !analysis.keywords.is_empty() || !analysis.phrases.is_empty() || !analysis.expansions.is_empty() {
        return None;
    }
    let limits: Vec<String> = [
        analysis.time_note.clone(),
        analysis
            .channel
            .as_ref()
            .filter(|c| !c.is_empty())
            .map(|c| format!("in #{c}")),
        analysis
            .user
            .as_ref()
            .filter(|u| !u.is_empty())
            .map(|u| format!("from @{u}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    Some(if limits.is_empty() {
        "the question has nothing to search for (only stop words or punctuation): say what you are \
         looking for, e.g. `who owns the billing service?`"
            .to_string()
    } else {
        format!(
            "the question names only where or when to look ({}), not what to look for: add a topic, \
             e.g. `what was decided about pricing last week?`",
            limits.join(", ")
        )
    })
}

/// A loaded configuration, its policies and its source connections.
pub struct Engine {
    pub config: Config,
    /// Shared with the blocking threads that rank and compose.
    pub policies: Arc<Policies>,
    pub pool: SourcePool,
    kinds: Arc<HashMap<String, String>>,
    /// The sentence encoder of the data directory (the semantic factor), when installed.
    pub encoder: Option<&'static crate::text::encoder::Encoder>,
    /// The configured endpoint's model (`llm:` with a `base_url`), when there is one.
    pub model: Option<SharedModel>,
}

/// Removes control characters (keeping line breaks as spaces) and trims.
pub fn clean_question(q: &str) -> (String, bool) {
    let cleaned: String = q.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let cleaned = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut = cleaned.chars().count() > MAX_QUESTION_CHARS;
    let cleaned = if cut {
        cleaned.chars().take(MAX_QUESTION_CHARS).collect()
    } else {
        cleaned
    };
    (cleaned, cut)
}

impl Engine {
    pub fn new(config: Config, policies: Policies) -> Engine {
        let kinds = config
            .sources
            .iter()
            .map(|s| (s.name.clone(), s.kind.as_str().to_string()))
            .collect();
        let pool = SourcePool::new(&config);
        let model = config.llm.as_ref().and_then(|l| l.endpoint.as_ref()).and_then(|e| {
            match crate::llm::openai::OpenAiModel::new(e) {
                Ok(m) => Some(SharedModel(Arc::new(m))),
                Err(err) => {
                    tracing::warn!("the language model is not used: {err}");
                    None
                }
            }
        });
        Engine {
            config,
            policies: Arc::new(policies),
            pool,
            kinds: Arc::new(kinds),
            encoder: crate::text::encoder::shared(),
            model,
        }
    }

    /// Loads a configuration and the policies it names (or `policies` instead).
    pub fn load(config_path: &Path, policies: Option<&Path>) -> Result<Engine, Diagnostics> {
        let config = Config::load(config_path)?;
        let names: Vec<String> = config.sources.iter().map(|s| s.name.clone()).collect();
        let dir = policies
            .map(Path::to_path_buf)
            .unwrap_or_else(|| config.policies.clone());
        let policies = Policies::load(&dir, &names)?;
        Ok(Engine::new(config, policies))
    }

    pub fn source_kinds(&self) -> &HashMap<String, String> {
        &self.kinds
    }

    /// The per-source queries for a question (sources not asked are absent).
    pub fn plan(&self, analysis: &Analysis, policy: &Policy, opts: &AskOptions) -> Plan {
        let mut out = HashMap::new();
        for s in &self.config.sources {
            if opts.sources.as_ref().is_some_and(|only| !only.contains(&s.name)) {
                continue;
            }
            let pref = policy.source_pref(&s.name, s.kind.as_str());
            let tool_source = s.kind == SourceKind::Tools;
            let asked = opts.baseline.is_some() || pref.weight > 0.0 || (tool_source && analysis.tool_question);
            if !asked {
                continue;
            }
            let text = if tool_source && !analysis.request.trim().is_empty() {
                // The catalog reads requests (it ranks by words and by meaning, and drops a
                // request's filler itself): give it the question as asked, without the filters.
                // (MetaTool through sagasu eval, against its keywords: R@1 0.593 -> 0.609.)
                analysis.request.clone()
            } else if tool_source {
                analysis.search_text(false)
            } else {
                analysis.search_text(true)
            };
            let q = SourceQuery {
                text,
                // The question in the other language, as a query of its own: evidence in that
                // language gets its own place in what the source returns.
                alternates: analysis.other_language_text().into_iter().collect(),
                phrases: Vec::new(),
                channel: if tool_source { None } else { analysis.channel.clone() },
                user: if tool_source { None } else { analysis.user.clone() },
                after: if tool_source {
                    None
                } else {
                    opts.since.or(analysis.after)
                },
                before: if tool_source {
                    None
                } else {
                    opts.until.or(analysis.before)
                },
                limit: opts.limit.unwrap_or(pref.limit).clamp(1, 200),
            };
            out.insert(s.name.clone(), q);
        }
        out
    }

    /// Answers a question. Sources that fail are reported in the answer, not as errors.
    pub async fn ask(&self, question: &str, opts: &AskOptions) -> Result<AskResponse, AskError> {
        let (question, cut) = clean_question(question);
        if question.is_empty() {
            return Err(AskError::Empty);
        }
        crate::text::morph::notice_once();
        crate::text::encoder::notice_once();
        crate::text::wordfreq::notice_once();
        crate::text::wordnet::notice_once();
        crate::text::sudachi::notice_once();
        if let Some(only) = &opts.sources {
            for s in only {
                if self.config.source(s).is_none() {
                    return Err(AskError::UnknownSource(s.clone(), self.config.source_names()));
                }
            }
        }
        let span = tracing::info_span!("ask", question = %crate::text::truncate_chars(&question, 80), latency_ms = tracing::field::Empty);
        async move {
            let start = Instant::now();
            let now = opts.now.unwrap_or_else(Utc::now);
            let mut analysis = query::analyze_question(
                &question,
                &self.policies.intents,
                opts.intent,
                now,
                &self.policies.lexicon,
                self.encoder,
            );
            let deadline = opts.deadline.unwrap_or(Duration::from_secs(15));
            let model = self.model_for(opts);
            let mut used = model.as_ref().map(|(m, _)| crate::llm::ModelUse::new(m.0.as_ref()));
            let mut model_queries = Vec::new();
            if let (Some((m, llm)), Some(used)) = (&model, used.as_mut()) {
                model_queries = self
                    .rewrite(m, llm, &question, &mut analysis, opts, deadline, now, used)
                    .await;
            }
            let (policy, mut plan, unlistable) = self.choose(&analysis, opts)?;
            if !model_queries.is_empty() {
                // Every keyword source is sent the model's queries too, each a query of its own.
                for (name, q) in plan.iter_mut() {
                    if self.config.source(name).is_some_and(|s| s.kind != SourceKind::Tools)
                        && !q.text.trim().is_empty()
                    {
                        q.alternates.extend(model_queries.iter().cloned());
                    }
                }
            }
            let mut outcomes = self
                .pool
                .search_all_with(&plan, deadline, opts.on_source_done.as_ref())
                .await;
            for o in outcomes.iter_mut().filter(|o| unlistable.contains(&o.name)) {
                o.note = Some("cannot list by time, place or person without words to search for".into());
            }
            self.broaden(
                &mut outcomes,
                &plan,
                &analysis,
                &policy,
                deadline.saturating_sub(start.elapsed()),
            )
            .await;
            super::mentions::resolve(&mut outcomes);
            // Ranking, dedup and composition are CPU work over every hit: they run on a blocking
            // thread, so that one heavy ask never stalls the async workers that serve every
            // other client.
            let (policies, kinds, encoder) = (self.policies.clone(), self.kinds.clone(), self.encoder);
            let composed = tokio::task::spawn_blocking(move || {
                answer::compose(
                    ComposeInput {
                        analysis: &analysis,
                        policy: &policy,
                        lexicon: &policies.lexicon,
                        now,
                        source_kinds: &kinds,
                        encoder,
                    },
                    outcomes,
                )
            })
            .await;
            let mut response = match composed {
                Ok(r) => r,
                // The composer panicked: a bug, but one question's, not the server's.
                Err(e) => return Err(AskError::Internal(format!("composing the answer failed: {e}"))),
            };
            if let (Some((model, llm)), Some(mut used)) = (model, used) {
                response.queries.extend(model_queries);
                if llm.uses.synthesis {
                    let left = deadline.saturating_sub(start.elapsed()).min(llm.timeout);
                    crate::pipeline::synthesis::synthesize(
                        model.0.as_ref(),
                        &self.policies.prompts.synthesis,
                        &mut response,
                        llm.max_tokens,
                        llm.temperature,
                        left,
                        &mut used,
                    )
                    .await;
                }
                response.llm = Some(used);
            }
            if cut {
                response.answer.push_str(&format!(
                    "\n\n(The question was cut to its first {MAX_QUESTION_CHARS} characters.)"
                ));
            }
            tracing::Span::current().record("latency_ms", start.elapsed().as_millis() as u64);
            Ok(response)
        }
        .instrument(span)
        .await
    }

    /// Asks the model for queries (`uses.rewrite`) and, when the classifier is unsure, for the
    /// intent (`uses.intent`), within a third of the deadline; an intent it gives that the
    /// classifier did not choose is taken, the question read again under it. The queries, or
    /// none on any failure (noted in `used`).
    #[allow(clippy::too_many_arguments)]
    async fn rewrite(
        &self,
        model: &SharedModel,
        llm: &crate::config::llm::LlmConfig,
        question: &str,
        analysis: &mut Analysis,
        opts: &AskOptions,
        deadline: Duration,
        now: DateTime<Utc>,
        used: &mut crate::llm::ModelUse,
    ) -> Vec<String> {
        use crate::pipeline::rewrite;
        let want_intent = llm.uses.intent && rewrite::unsure(analysis, opts.intent.is_some());
        if !llm.uses.rewrite && !want_intent {
            return Vec::new();
        }
        let budget = (deadline / 3).min(llm.timeout);
        let Some(r) = rewrite::rewrite(
            model.0.as_ref(),
            &self.policies.prompts.rewrite,
            question,
            want_intent,
            llm.temperature,
            budget,
            used,
        )
        .await
        else {
            return Vec::new();
        };
        if let Some(intent) = r.intent.filter(|i| *i != analysis.intent.intent) {
            let (was, score) = (analysis.intent.intent, analysis.intent.score);
            let p = analysis
                .intent
                .scores
                .iter()
                .find(|(i, _)| *i == intent)
                .map_or(0.0, |s| s.1);
            *analysis = query::analyze_question(
                question,
                &self.policies.intents,
                Some(intent),
                now,
                &self.policies.lexicon,
                self.encoder,
            );
            analysis.intent.score = p;
            used.notes.push(format!(
                "the intent classifier was unsure ({was}, {score:.2}): the model's intent, {intent}, is used"
            ));
        }
        if llm.uses.rewrite {
            used.queries = r.queries.clone();
            r.queries
        } else {
            Vec::new()
        }
    }

    /// The model this ask uses and the configuration it is used under, if it uses one: the
    /// caller's (sampling) or the configured endpoint's, when `llm:` is configured and the ask
    /// or the configuration turns it on.
    fn model_for(&self, opts: &AskOptions) -> Option<(SharedModel, &crate::config::llm::LlmConfig)> {
        let llm = self.config.llm.as_ref()?;
        if !opts.llm.unwrap_or(llm.enabled) {
            return None;
        }
        let model = opts.model.clone().or_else(|| self.model.clone())?;
        Some((model, llm))
    }

    /// The policy and per-source plan for a question, and the sources left out because they
    /// cannot list by filters alone (a question of only where, who or when). Refuses a question
    /// with nothing to search and nothing any source can list by.
    fn choose(&self, analysis: &Analysis, opts: &AskOptions) -> Result<(Policy, Plan, Vec<String>), AskError> {
        let no_words = nothing_to_search(analysis);
        let filtered = analysis.after.is_some()
            || analysis.before.is_some()
            || opts.since.is_some()
            || opts.until.is_some()
            || analysis.channel.as_ref().is_some_and(|c| !c.is_empty())
            || analysis.user.as_ref().is_some_and(|u| !u.is_empty());
        if let Some(why) = &no_words
            && !filtered
        {
            return Err(AskError::NothingToSearch(why.clone()));
        }
        let intent = analysis.intent.intent;
        let mut policy = match opts.baseline {
            Some(Baseline::Uniform) => Policy::uniform(intent),
            Some(Baseline::Recency) => Policy::recency(intent),
            None => self.blended(analysis),
        };
        let mut plan = self.plan(analysis, &policy, opts);
        if plan.is_empty() && opts.sources.as_ref().is_none_or(|s| !s.is_empty()) {
            // The policy prefers none of the configured sources (a workspace that is only a
            // tool catalog, say): every source is asked at the same weight, rather than
            // answering without searching. The intent's factors (the semantic one too), its
            // authority order and its answer stay: only the routing is the policy's no more.
            policy.sources.clear();
            plan = self.plan(analysis, &policy, opts);
        }
        let mut unlistable: Vec<String> = Vec::new();
        if let Some(why) = no_words {
            // Only where, who or when: the sources that can list by their filters alone are
            // asked (newest first); the others would only fail on an empty query.
            plan.retain(|name, _| {
                let keep = self.config.source(name).is_some_and(|s| s.kind.can_browse());
                if !keep {
                    unlistable.push(name.clone());
                }
                keep
            });
            if plan.is_empty() {
                return Err(AskError::NothingToSearch(format!(
                    "{why} (none of the sources asked can list messages by time, place or person alone)"
                )));
            }
        }
        // A baseline differs in ranking only: it says as much as the intent's policy does.
        policy.answer = self.policies.get(intent).answer;
        Ok((policy, plan, unlistable))
    }

    /// The intent's policy, blended with its secondary intent's when the classifier rates that
    /// one close (`secondary`): the sources both would ask are asked, and evidence is weighed by
    /// both in proportion to their probabilities.
    fn blended(&self, analysis: &Analysis) -> Policy {
        let c = &analysis.intent;
        let policy = self.policies.get(c.intent);
        let second = c.secondary.first().and_then(|s| {
            let p = c.scores.iter().find(|(i, _)| i == s)?.1;
            (p > 0.0 && c.score > 0.0).then_some((*s, p))
        });
        match second {
            Some((s, p)) => policy.blend(self.policies.get(s), p / (p + c.score)),
            None => policy.clone(),
        }
    }

    /// Retries sources that found nothing with a broader query, step by step (policy order):
    /// drop dates, then location filters, then minor keywords.
    async fn broaden(
        &self,
        outcomes: &mut [SourceOutcome],
        plan: &HashMap<String, SourceQuery>,
        analysis: &Analysis,
        policy: &Policy,
        left: Duration,
    ) {
        let start = Instant::now();
        let mut current: HashMap<String, SourceQuery> = outcomes
            .iter()
            .filter(|o| o.status == SourceStatus::Empty)
            .filter_map(|o| plan.get(&o.name).map(|q| (o.name.clone(), q.clone())))
            // A query of filters only is its filters: without them nothing is left to ask.
            .filter(|(_, q)| !q.text.trim().is_empty() || !q.phrases.is_empty())
            .collect();
        let mut steps_done: Vec<&str> = Vec::new();
        let and_semantics: Vec<String> = self
            .config
            .sources
            .iter()
            .filter(|s| s.kind == SourceKind::Slack)
            .map(|s| s.name.clone())
            .collect();
        for step in &policy.broaden {
            if current.is_empty() || start.elapsed() >= left {
                break;
            }
            let mut changed = false;
            for (name, q) in current.iter_mut() {
                match step {
                    Broaden::DropDates if q.after.is_some() || q.before.is_some() => {
                        q.after = None;
                        q.before = None;
                        changed = true;
                    }
                    Broaden::DropLocation if q.channel.is_some() || q.user.is_some() => {
                        q.channel = None;
                        q.user = None;
                        changed = true;
                    }
                    // Dropping words only helps engines that require every word (Slack's search);
                    // the others already match any word, so fewer words cannot find more.
                    Broaden::DropMinorKeywords if analysis.keywords.len() > 2 && and_semantics.contains(name) => {
                        let mut kw = analysis.keywords.clone();
                        kw.sort_by_key(|k| std::cmp::Reverse(k.chars().count()));
                        kw.truncate(2);
                        q.text = kw.join(" ");
                        changed = true;
                    }
                    _ => {}
                }
            }
            if !changed {
                continue;
            }
            steps_done.push(match step {
                Broaden::DropDates => "dropped the date filter",
                Broaden::DropLocation => "dropped channel and person filters",
                Broaden::DropMinorKeywords => "kept only the main keywords",
            });
            let retry = self
                .pool
                .search_all(&current, left.saturating_sub(start.elapsed()))
                .await;
            for r in retry {
                if r.status == SourceStatus::Ok {
                    current.remove(&r.name);
                    if let Some(o) = outcomes.iter_mut().find(|o| o.name == r.name) {
                        let latency = o.latency_ms + r.latency_ms;
                        *o = r;
                        o.latency_ms = latency;
                        let note = format!("nothing matched at first; broadened: {}", steps_done.join(", "));
                        o.note = Some(match o.note.take() {
                            Some(n) => format!("{note}; {n}"),
                            None => note,
                        });
                    }
                }
            }
        }
    }

    pub async fn shutdown(&self) {
        self.pool.shutdown().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_are_cleaned_and_bounded() {
        assert_eq!(
            clean_question("  what\u{7}is\n\tthis?  "),
            ("what is this?".to_string(), false)
        );
        let long = "a ".repeat(100_000);
        let (q, cut) = clean_question(&long);
        assert!(cut);
        assert_eq!(q.chars().count(), MAX_QUESTION_CHARS);
        assert_eq!(clean_question(" \n\t ").0, "");
    }
}
