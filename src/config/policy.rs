//! `policies/*.yaml`: per intent, which sources to ask and how to weigh evidence; plus the
//! intent cues (`intents.yaml`) and the general vocabulary (`lexicon.yaml`).
//!
//! Raw serde structs mirror the files; `Policies::load` validates them into domain types and
//! reports every problem of every file in one run, each with file, line and column.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::hit::EvidenceKind;
use crate::util::yaml::{Diagnostics, Document};

/// The seven kinds of question.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Intent {
    #[default]
    Decision,
    Status,
    Document,
    Person,
    Factual,
    Temporal,
    Exploratory,
}

impl Intent {
    pub const ALL: [Intent; 7] = [
        Intent::Decision,
        Intent::Status,
        Intent::Document,
        Intent::Person,
        Intent::Factual,
        Intent::Temporal,
        Intent::Exploratory,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Intent::Decision => "decision",
            Intent::Status => "status",
            Intent::Document => "document",
            Intent::Person => "person",
            Intent::Factual => "factual",
            Intent::Temporal => "temporal",
            Intent::Exploratory => "exploratory",
        }
    }
}

impl fmt::Display for Intent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Intent {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Intent::ALL.into_iter().find(|i| i.as_str() == s).ok_or_else(|| {
            format!(
                "unknown intent `{s}` (expected one of: {})",
                Intent::ALL.map(|i| i.as_str()).join(", ")
            )
        })
    }
}

/// The factors every hit is scored on. `semantic` (the sentence encoder's similarity of the
/// question and the passage) is optional; where the encoder is not installed its weight is
/// shared out among the other four in proportion, so their balance stays the policy's.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Weights {
    pub keyword: f64,
    pub freshness: f64,
    pub authority: f64,
    pub completeness: f64,
    #[serde(default)]
    pub semantic: f64,
}

impl Weights {
    pub fn uniform() -> Weights {
        Weights {
            keyword: 0.25,
            freshness: 0.25,
            authority: 0.25,
            completeness: 0.25,
            semantic: 0.0,
        }
    }

    /// These weights without the semantic factor, the other four scaled up to the same total.
    pub fn lexical(self) -> Weights {
        let rest = 1.0 - self.semantic;
        if self.semantic <= 0.0 || rest <= 0.0 {
            return Weights { semantic: 0.0, ..self };
        }
        Weights {
            keyword: self.keyword / rest,
            freshness: self.freshness / rest,
            authority: self.authority / rest,
            completeness: self.completeness / rest,
            semantic: 0.0,
        }
    }
}

/// How to broaden a query when a source finds nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Broaden {
    DropDates,
    DropLocation,
    DropMinorKeywords,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFreshness {
    half_life_days: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSourcePref {
    #[serde(default = "one")]
    weight: f64,
    #[serde(default)]
    limit: Option<usize>,
}

fn one() -> f64 {
    1.0
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    intent: String,
    weights: Weights,
    freshness: RawFreshness,
    authority: Vec<String>,
    #[serde(default)]
    conclusion_bonus: f64,
    #[serde(default)]
    location_words: bool,
    #[serde(default)]
    sources: BTreeMap<String, RawSourcePref>,
    #[serde(default)]
    broaden: Vec<Broaden>,
    #[serde(default)]
    answer: RawAnswer,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAnswer {
    support: Option<usize>,
    support_score: Option<f64>,
    support_coverage: Option<f64>,
}

/// How much an answer says beside its lead: at most `support` more pieces of evidence, each
/// scoring at least `support_score` of the best and covering at least `support_coverage` of the
/// question. An overview (exploratory) gathers more than a pointed question.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnswerPolicy {
    pub support: usize,
    pub support_score: f64,
    pub support_coverage: f64,
}

impl Default for AnswerPolicy {
    /// A pointed question: the lead and up to two pieces that nearly match it (three quarters
    /// of its score and of the question), so that support never drowns the answer.
    fn default() -> AnswerPolicy {
        AnswerPolicy {
            support: 2,
            support_score: 0.75,
            support_coverage: 0.75,
        }
    }
}

/// Supporting pieces an answer may give at most: beyond this an answer is a list of sources.
pub const MAX_SUPPORT: usize = 8;

/// A source's part in an intent: its weight (0 = not asked) and how many hits to ask for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SourcePref {
    pub weight: f64,
    pub limit: usize,
}

/// The validated policy of one intent.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    pub intent: Intent,
    pub weights: Weights,
    pub half_life_days: f64,
    /// Highest authority first.
    pub authority: Vec<EvidenceKind>,
    pub conclusion_bonus: f64,
    /// Whether the words of where a text lives (a chat's channel or room, a page's parent, a
    /// tool's server) count as the text's own in ranking: a topic of its own for questions that
    /// name a topic or a place (an overview, a document), a blur of every text of one channel
    /// for a pointed question.
    pub location_words: bool,
    /// By source name or source kind.
    pub sources: BTreeMap<String, SourcePref>,
    pub broaden: Vec<Broaden>,
    /// Freshness and authority count in proportion to how well evidence matches (always, but
    /// for the `recency` baseline, which orders by date alone).
    pub relevance_gate: bool,
    /// What the answer says beside its lead.
    pub answer: AnswerPolicy,
}

/// Hits asked of a source that the policy does not mention.
pub const DEFAULT_LIMIT: usize = 15;

impl Policy {
    /// Authority of a kind of evidence in 0..1: the first in the order is 1.0, each step down
    /// loses an equal share, and a kind not listed is lowest.
    pub fn authority_of(&self, kind: EvidenceKind) -> f64 {
        let n = self.authority.len().max(1) as f64;
        match self.authority.iter().position(|k| *k == kind) {
            Some(i) => 1.0 - 0.8 * (i as f64) / n,
            None => 0.1,
        }
    }

    /// The source's preference, looked up by name, then by kind.
    pub fn source_pref(&self, name: &str, kind: &str) -> SourcePref {
        self.sources
            .get(name)
            .or_else(|| self.sources.get(kind))
            .copied()
            .unwrap_or(SourcePref {
                weight: 1.0,
                limit: DEFAULT_LIMIT,
            })
    }

    /// This policy blended with `other`'s, `other` counting `share` (0..1): the weights, the
    /// half-life, the conclusion bonus and each source's weight in proportion; the authority
    /// order by the blended authority of each kind; every source either policy asks is asked,
    /// at the larger of their limits; broadening steps of either. The intent, the answer and
    /// whether location words count stay this policy's. For a question whose top two intents
    /// are close.
    pub fn blend(&self, other: &Policy, share: f64) -> Policy {
        let s = share.clamp(0.0, 1.0);
        let mix = |a: f64, b: f64| (1.0 - s) * a + s * b;
        let (w, o) = (self.weights, other.weights);
        let weights = Weights {
            keyword: mix(w.keyword, o.keyword),
            freshness: mix(w.freshness, o.freshness),
            authority: mix(w.authority, o.authority),
            completeness: mix(w.completeness, o.completeness),
            semantic: mix(w.semantic, o.semantic),
        };
        // The kinds either policy ranks, by their blended authority.
        let mut kinds: Vec<(EvidenceKind, f64)> = EvidenceKind::ALL
            .iter()
            .filter(|k| self.authority.contains(k) || other.authority.contains(k))
            .map(|k| (*k, mix(self.authority_of(*k), other.authority_of(*k))))
            .collect();
        // Stable: kinds of equal blended authority keep this policy's order.
        kinds.sort_by(|a, b| {
            b.1.total_cmp(&a.1).then_with(|| {
                let at = |k: &EvidenceKind| self.authority.iter().position(|x| x == k).unwrap_or(usize::MAX);
                at(&a.0).cmp(&at(&b.0))
            })
        });
        let default = SourcePref {
            weight: 1.0,
            limit: DEFAULT_LIMIT,
        };
        let mut sources = BTreeMap::new();
        for key in self.sources.keys().chain(other.sources.keys()) {
            let a = self.sources.get(key).copied().unwrap_or(default);
            let b = other.sources.get(key).copied().unwrap_or(default);
            sources.insert(
                key.clone(),
                SourcePref {
                    weight: mix(a.weight, b.weight),
                    limit: a.limit.max(b.limit),
                },
            );
        }
        let mut broaden = self.broaden.clone();
        for b in &other.broaden {
            if !broaden.contains(b) {
                broaden.push(*b);
            }
        }
        Policy {
            intent: self.intent,
            weights,
            half_life_days: mix(self.half_life_days, other.half_life_days),
            authority: kinds.into_iter().map(|(k, _)| k).collect(),
            conclusion_bonus: mix(self.conclusion_bonus, other.conclusion_bonus),
            location_words: self.location_words,
            sources,
            broaden,
            relevance_gate: self.relevance_gate && other.relevance_gate,
            answer: self.answer,
        }
    }

    /// A policy with equal weights and no routing (the `uniform` baseline).
    pub fn uniform(intent: Intent) -> Policy {
        Policy {
            intent,
            weights: Weights::uniform(),
            half_life_days: 90.0,
            authority: EvidenceKind::ALL.to_vec(),
            conclusion_bonus: 0.0,
            location_words: false,
            sources: BTreeMap::new(),
            broaden: vec![Broaden::DropDates, Broaden::DropLocation, Broaden::DropMinorKeywords],
            relevance_gate: true,
            answer: AnswerPolicy::default(),
        }
    }

    /// A policy that orders evidence newest first and nothing else (the `recency` baseline:
    /// the naive fan-out merge).
    pub fn recency(intent: Intent) -> Policy {
        Policy {
            weights: Weights {
                keyword: 0.0,
                freshness: 1.0,
                authority: 0.0,
                completeness: 0.0,
                semantic: 0.0,
            },
            relevance_gate: false,
            ..Policy::uniform(intent)
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawCue {
    Plain(String),
    Weighted { cue: String, weight: f64 },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawIntents {
    #[serde(default = "half")]
    secondary_ratio: f64,
    intents: BTreeMap<String, Vec<RawCue>>,
}

fn half() -> f64 {
    0.5
}

/// A cue for an intent.
#[derive(Debug, Clone, PartialEq)]
pub struct Cue {
    pub text: String,
    pub weight: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct IntentCues {
    pub secondary_ratio: f64,
    pub cues: BTreeMap<Intent, Vec<Cue>>,
    /// The classifier trained on `intent-examples.yaml`, when the folder has one; without it
    /// the cues decide alone.
    pub classifier: Option<std::sync::Arc<crate::config::classifier::Classifier>>,
}

// The classifier knows the intents by their index in `Intent::ALL`.
const _: () = assert!(Intent::ALL.len() == crate::config::classifier::CLASSES);

impl crate::config::classifier::Cues for IntentCues {
    fn totals(&self, normalized: &str) -> [f64; crate::config::classifier::CLASSES] {
        let mut out = [0.0; crate::config::classifier::CLASSES];
        for (k, intent) in Intent::ALL.iter().enumerate() {
            out[k] = self.cues.get(intent).map_or(0.0, |list| {
                list.iter()
                    .filter(|c| crate::text::find_phrase(normalized, &c.text).is_some())
                    .map(|c| c.weight)
                    .sum()
            });
        }
        out
    }

    fn fingerprint(&self) -> u64 {
        use crate::util::hash::{START, fnv, fnv_str};
        let mut h = START;
        for (intent, list) in &self.cues {
            h = fnv_str(h, intent.as_str());
            for c in list {
                h = fnv(fnv_str(h, &c.text), &c.weight.to_le_bytes());
            }
        }
        h
    }
}

/// `intent-examples.yaml`: intent -> language -> example questions.
type RawExamples = BTreeMap<String, BTreeMap<String, Vec<String>>>;

/// The longest example question, in characters.
const MAX_EXAMPLE_CHARS: usize = 500;

fn validate_examples(
    doc: &Document,
    raw: RawExamples,
    problems: &mut Diagnostics,
) -> Vec<crate::config::classifier::Example> {
    let mut out = Vec::new();
    for (name, by_lang) in raw {
        let intent = match name.parse::<Intent>() {
            Ok(i) => i,
            Err(e) => {
                problems.push(doc.error_at_key(&name, e));
                continue;
            }
        };
        for (lang, list) in by_lang {
            if lang != "en" && lang != "ja" {
                problems.push(doc.error_at_key(
                    &format!("{name}.{lang}"),
                    format!("unknown language `{lang}` (expected en or ja)"),
                ));
                continue;
            }
            for (i, text) in list.into_iter().enumerate() {
                let n = text.trim().chars().count();
                if n == 0 || n > MAX_EXAMPLE_CHARS {
                    problems.push(doc.error_at(
                        &format!("{name}.{lang}[{i}]"),
                        format!("an example must have 1 to {MAX_EXAMPLE_CHARS} characters"),
                    ));
                    continue;
                }
                let class = Intent::ALL.iter().position(|i| *i == intent).unwrap_or(0);
                out.push(crate::config::classifier::Example { class, text });
            }
        }
    }
    let seen: std::collections::BTreeSet<Intent> = out.iter().map(|e| Intent::ALL[e.class]).collect();
    if !out.is_empty() && seen.len() < Intent::ALL.len() {
        let missing: Vec<&str> = Intent::ALL
            .iter()
            .filter(|i| !seen.contains(i))
            .map(|i| i.as_str())
            .collect();
        problems.push(doc.error_at(
            "",
            format!("every intent needs examples; none for {}", missing.join(", ")),
        ));
    }
    out
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLexicon {
    #[serde(default)]
    synonyms: Vec<Vec<String>>,
    #[serde(default)]
    conclusion_cues: Vec<String>,
    #[serde(default)]
    tool_cues: Vec<String>,
}

/// General vocabulary: synonym groups (lower case), conclusion cues and tool-question cues.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Lexicon {
    pub synonyms: Vec<Vec<String>>,
    /// Cues that mark a chat message as a thread's conclusion ("decision:", "決定").
    pub conclusion_cues: crate::text::PhraseSet,
    pub tool_cues: Vec<String>,
}

/// Everything in a policy folder.
#[derive(Debug, Clone, PartialEq)]
pub struct Policies {
    pub intents: IntentCues,
    pub lexicon: Lexicon,
    pub by_intent: BTreeMap<Intent, Policy>,
    /// The language model's prompts (`prompts/*.md`; the shipped ones where a folder has none).
    pub prompts: Prompts,
}

/// The prompts of the optional language-model mode, tuned as the weights are: a policy folder's
/// `prompts/synthesis.md` (the system prompt of the written answer) and `prompts/rewrite.md`
/// (of query rewriting), each replacing the shipped one when present.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompts {
    pub synthesis: String,
    pub rewrite: String,
}

impl Default for Prompts {
    fn default() -> Prompts {
        Prompts {
            synthesis: include_str!("../../policies/prompts/synthesis.md").to_string(),
            rewrite: include_str!("../../policies/prompts/rewrite.md").to_string(),
        }
    }
}

/// The longest prompt file read: a prompt is instructions, not a document.
const MAX_PROMPT_BYTES: u64 = 64 << 10;

impl Prompts {
    /// The prompts of the policy folder `dir`, the shipped ones for any it lacks; an unreadable
    /// or empty prompt file is a problem.
    fn load(dir: &Path, problems: &mut Diagnostics) -> Prompts {
        let mut out = Prompts::default();
        for (name, slot) in [("synthesis.md", &mut out.synthesis), ("rewrite.md", &mut out.rewrite)] {
            let path = dir.join("prompts").join(name);
            if !path.exists() {
                continue;
            }
            match crate::util::fs::read_regular(&path, MAX_PROMPT_BYTES) {
                Ok(text) if !text.trim().is_empty() => *slot = text,
                Ok(_) => problems.push(crate::util::yaml::Diagnostic::about_file(
                    &path,
                    "the prompt is empty: write it, or delete the file to use the shipped one".into(),
                )),
                Err(e) => problems.push(crate::util::yaml::Diagnostic::about_file(&path, e.to_string())),
            }
        }
        out
    }
}

impl Policies {
    pub fn get(&self, intent: Intent) -> &Policy {
        // `load` guarantees one policy per intent.
        &self.by_intent[&intent]
    }

    /// Loads `dir`. `known_sources` are the configured source names (and kinds are always
    /// accepted), so a typo in a source key is an error rather than a silent no-op.
    pub fn load(dir: &Path, known_sources: &[String]) -> Result<Policies, Diagnostics> {
        let mut problems = Diagnostics::default();
        if !dir.is_dir() {
            problems.push(crate::util::yaml::Diagnostic::about_file(
                dir,
                "the policy folder does not exist".into(),
            ));
            return Err(problems);
        }
        let mut intents = load_raw::<RawIntents>(&dir.join("intents.yaml"), &mut problems)
            .and_then(|(doc, raw)| validate_intents(&doc, raw, &mut problems));
        // The examples are optional: a policy folder without them classifies by cues alone.
        let examples = dir.join("intent-examples.yaml");
        if examples.exists()
            && let Some((doc, raw)) = load_raw::<RawExamples>(&examples, &mut problems)
        {
            let examples = validate_examples(&doc, raw, &mut problems);
            if let Some(i) = intents.as_mut().filter(|_| !examples.is_empty()) {
                i.classifier = Some(std::sync::Arc::new(crate::config::classifier::Classifier::new(
                    examples,
                )));
            }
        }
        let lexicon = load_raw::<RawLexicon>(&dir.join("lexicon.yaml"), &mut problems).map(|(_, raw)| Lexicon {
            synonyms: raw
                .synonyms
                .into_iter()
                .map(|g| g.into_iter().map(|w| crate::text::normalize(&w)).collect())
                .collect(),
            conclusion_cues: crate::text::PhraseSet::new(
                raw.conclusion_cues.iter().map(|c| crate::text::normalize(c)).collect(),
            ),
            tool_cues: raw.tool_cues.iter().map(|c| crate::text::normalize(c)).collect(),
        });
        let mut by_intent = BTreeMap::new();
        for intent in Intent::ALL {
            let path = dir.join(format!("{}.yaml", intent.as_str()));
            if let Some((doc, raw)) = load_raw::<RawPolicy>(&path, &mut problems)
                && let Some(p) = validate_policy(&doc, intent, raw, known_sources, &mut problems)
            {
                by_intent.insert(intent, p);
            }
        }
        let prompts = Prompts::load(dir, &mut problems);
        let (Some(intents), Some(lexicon)) = (intents, lexicon) else {
            return Err(problems);
        };
        problems.into_result(Policies {
            intents,
            lexicon,
            by_intent,
            prompts,
        })
    }
}

/// Reads a policy file into its raw form; problems go to `problems`.
fn load_raw<T: serde::de::DeserializeOwned>(path: &Path, problems: &mut Diagnostics) -> Option<(Document, T)> {
    let doc = match Document::load(path) {
        Ok(d) => d,
        Err(d) => {
            problems.extend(d);
            return None;
        }
    };
    match doc.deserialize::<T>("", &doc.value) {
        Ok(raw) => Some((doc, raw)),
        Err(d) => {
            problems.push(d);
            None
        }
    }
}

fn validate_intents(doc: &Document, raw: RawIntents, problems: &mut Diagnostics) -> Option<IntentCues> {
    let before = problems.0.len();
    if !(0.0..=1.0).contains(&raw.secondary_ratio) {
        problems.push(doc.error_at("secondary_ratio", "`secondary_ratio` must be between 0 and 1"));
    }
    let mut cues = BTreeMap::new();
    for (name, list) in raw.intents {
        let intent = match name.parse::<Intent>() {
            Ok(i) => i,
            Err(e) => {
                problems.push(doc.error_at_key(&format!("intents.{name}"), e));
                continue;
            }
        };
        let mut out = Vec::new();
        for (i, c) in list.into_iter().enumerate() {
            let (text, weight) = match c {
                RawCue::Plain(t) => (t, 1.0),
                RawCue::Weighted { cue, weight } => (cue, weight),
            };
            if !(weight > 0.0 && weight <= 10.0) {
                problems.push(doc.error_at(
                    &format!("intents.{name}[{i}]"),
                    "a cue's `weight` must be above 0 and at most 10",
                ));
            }
            if text.trim().is_empty() {
                problems.push(doc.error_at(&format!("intents.{name}[{i}]"), "a cue must not be empty"));
            }
            out.push(Cue {
                text: crate::text::normalize(text.trim()),
                weight,
            });
        }
        cues.insert(intent, out);
    }
    (problems.0.len() == before).then_some(IntentCues {
        secondary_ratio: raw.secondary_ratio,
        cues,
        classifier: None,
    })
}

fn validate_policy(
    doc: &Document,
    intent: Intent,
    raw: RawPolicy,
    known_sources: &[String],
    problems: &mut Diagnostics,
) -> Option<Policy> {
    let before = problems.0.len();
    if raw.intent != intent.as_str() {
        problems.push(doc.error_at(
            "intent",
            format!(
                "this file is for `{}`, but says `intent: {}`",
                intent.as_str(),
                raw.intent
            ),
        ));
    }
    let w = raw.weights;
    for (name, v) in [
        ("keyword", w.keyword),
        ("freshness", w.freshness),
        ("authority", w.authority),
        ("completeness", w.completeness),
        ("semantic", w.semantic),
    ] {
        if !(0.0..=1.0).contains(&v) {
            problems.push(doc.error_at(
                &format!("weights.{name}"),
                format!("weight `{name}` must be between 0 and 1, got {v}"),
            ));
        }
    }
    let sum = w.keyword + w.freshness + w.authority + w.completeness + w.semantic;
    if w.keyword + w.freshness + w.authority + w.completeness <= 0.0 {
        // The semantic factor alone would leave nothing to rank by without the encoder.
        problems.push(doc.error_at(
            "weights",
            "one of keyword, freshness, authority, completeness must be above 0",
        ));
    }
    if raw.freshness.half_life_days.is_nan() || raw.freshness.half_life_days <= 0.0 {
        problems.push(doc.error_at("freshness.half_life_days", "`half_life_days` must be above 0"));
    }
    if !(0.0..=1.0).contains(&raw.conclusion_bonus) {
        problems.push(doc.error_at("conclusion_bonus", "`conclusion_bonus` must be between 0 and 1"));
    }
    let mut authority = Vec::new();
    for (i, k) in raw.authority.iter().enumerate() {
        match k.parse::<EvidenceKind>() {
            Ok(kind) if authority.contains(&kind) => {
                problems.push(doc.error_at(&format!("authority[{i}]"), format!("`{k}` is listed twice")))
            }
            Ok(kind) => authority.push(kind),
            Err(e) => problems.push(doc.error_at(&format!("authority[{i}]"), e)),
        }
    }
    let kinds = ["slack", "notion", "rocketchat", "tools", "generic"];
    let mut sources = BTreeMap::new();
    for (name, pref) in raw.sources {
        if !kinds.contains(&name.as_str()) && !known_sources.contains(&name) {
            problems.push(doc.error_at_key(
                &format!("sources.{name}"),
                format!(
                    "unknown source `{name}` (expected a source kind ({}) or a configured source ({}))",
                    kinds.join(", "),
                    known_sources.join(", ")
                ),
            ));
            continue;
        }
        if !(0.0..=1.0).contains(&pref.weight) {
            problems.push(doc.error_at(
                &format!("sources.{name}.weight"),
                "a source `weight` must be between 0 and 1",
            ));
        }
        if pref.limit == Some(0) || pref.limit.is_some_and(|l| l > 200) {
            problems.push(doc.error_at(
                &format!("sources.{name}.limit"),
                "a source `limit` must be between 1 and 200",
            ));
        }
        sources.insert(
            name,
            SourcePref {
                weight: pref.weight,
                limit: pref.limit.unwrap_or(DEFAULT_LIMIT),
            },
        );
    }
    let default = AnswerPolicy::default();
    let answer = AnswerPolicy {
        support: raw.answer.support.unwrap_or(default.support),
        support_score: raw.answer.support_score.unwrap_or(default.support_score),
        support_coverage: raw.answer.support_coverage.unwrap_or(default.support_coverage),
    };
    if answer.support > MAX_SUPPORT {
        problems.push(doc.error_at(
            "answer.support",
            format!("`support` must be between 0 and {MAX_SUPPORT}, got {}", answer.support),
        ));
    }
    for (name, v) in [
        ("support_score", answer.support_score),
        ("support_coverage", answer.support_coverage),
    ] {
        if !(0.0..=1.0).contains(&v) {
            problems.push(doc.error_at(
                &format!("answer.{name}"),
                format!("`{name}` must be between 0 and 1, got {v}"),
            ));
        }
    }
    // Normalise so the factors always add up to 1 (a policy may give them in any scale).
    let weights = if sum > 0.0 {
        Weights {
            keyword: w.keyword / sum,
            freshness: w.freshness / sum,
            authority: w.authority / sum,
            completeness: w.completeness / sum,
            semantic: w.semantic / sum,
        }
    } else {
        w
    };
    (problems.0.len() == before).then_some(Policy {
        intent,
        weights,
        half_life_days: raw.freshness.half_life_days,
        authority,
        conclusion_bonus: raw.conclusion_bonus,
        location_words: raw.location_words,
        sources,
        broaden: raw.broaden,
        relevance_gate: true,
        answer,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo_policies() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("policies")
    }

    #[test]
    fn without_the_encoder_the_semantic_weight_goes_to_the_other_factors_in_proportion() {
        let w = Weights {
            keyword: 0.3,
            freshness: 0.1,
            authority: 0.2,
            completeness: 0.2,
            semantic: 0.2,
        };
        let l = w.lexical();
        assert_eq!(l.semantic, 0.0);
        let sum = l.keyword + l.freshness + l.authority + l.completeness;
        assert!((sum - 1.0).abs() < 1e-9, "{l:?}");
        assert!((l.keyword / l.freshness - 3.0).abs() < 1e-9, "{l:?}");
        assert_eq!(Weights::uniform().lexical(), Weights::uniform());
    }

    #[test]
    fn a_blend_weighs_both_policies_and_asks_what_either_asks() {
        let p = Policies::load(&repo_policies(), &[]).unwrap();
        let (decision, document) = (p.get(Intent::Decision), p.get(Intent::Document));
        let half = decision.blend(document, 0.5);
        assert_eq!(half.intent, Intent::Decision);
        assert_eq!(half.answer, decision.answer);
        let mid = (decision.weights.keyword + document.weights.keyword) / 2.0;
        assert!((half.weights.keyword - mid).abs() < 1e-9);
        // Decision asks no tool, document does: the blend asks it, at half the weight.
        assert_eq!(decision.source_pref("tools", "tools").weight, 0.0);
        let tools = half.source_pref("tools", "tools").weight;
        assert!(tools > 0.0 && tools < document.source_pref("tools", "tools").weight.max(1e-9) + 1e-9);
        for k in decision.authority.iter().chain(&document.authority) {
            assert!(half.authority.contains(k), "{k:?}");
        }
        let none = decision.blend(document, 0.0);
        assert_eq!(none.weights, decision.weights);
        assert_eq!(none.authority, decision.authority);
    }

    #[test]
    fn the_shipped_policies_load() {
        let p = Policies::load(&repo_policies(), &[]).unwrap();
        assert_eq!(p.by_intent.len(), 7);
        let d = p.get(Intent::Decision);
        // keyword 0.3 of the four lexical factors; semantic 0.25 beside their 1.0.
        assert!((d.weights.keyword - 0.3 / 1.25).abs() < 1e-9);
        assert!((d.weights.semantic - 0.25 / 1.25).abs() < 1e-9);
        assert!((d.weights.lexical().keyword - 0.3).abs() < 1e-9);
        assert_eq!(d.authority[0], EvidenceKind::MeetingNotes);
        assert!(d.authority_of(EvidenceKind::MeetingNotes) > d.authority_of(EvidenceKind::Chat));
        assert_eq!(d.source_pref("tools", "tools").weight, 0.0);
        assert!(!p.lexicon.synonyms.is_empty());
        // An overview says more beside its lead than a pointed question.
        assert_eq!(d.answer, AnswerPolicy::default());
        assert!(p.get(Intent::Exploratory).answer.support > d.answer.support);
    }

    /// The shipped policy files (not the prompts folder: the shipped prompts are the default).
    fn copy_policies(to: &std::path::Path) {
        for e in std::fs::read_dir(repo_policies()).unwrap() {
            let e = e.unwrap();
            if e.path().is_file() {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }

    #[test]
    fn a_prompt_file_replaces_the_shipped_one_and_an_empty_one_is_a_problem() {
        let dir = tempfile::tempdir().unwrap();
        copy_policies(dir.path());
        std::fs::create_dir(dir.path().join("prompts")).unwrap();
        std::fs::write(dir.path().join("prompts/synthesis.md"), "Answer in haiku.").unwrap();
        let p = Policies::load(dir.path(), &[]).unwrap();
        assert_eq!(p.prompts.synthesis, "Answer in haiku.");
        assert_eq!(p.prompts.rewrite, Prompts::default().rewrite);
        std::fs::write(dir.path().join("prompts/rewrite.md"), " \n").unwrap();
        let e = Policies::load(dir.path(), &[]).err().unwrap().to_string();
        assert!(e.contains("rewrite.md") && e.contains("the prompt is empty"), "{e}");
    }

    #[test]
    fn answer_knobs_out_of_range_are_reported_where_they_are() {
        let dir = tempfile::tempdir().unwrap();
        copy_policies(dir.path());
        std::fs::write(
            dir.path().join("status.yaml"),
            "intent: status\nweights: { keyword: 1, freshness: 0, authority: 0, completeness: 0 }\nfreshness: { half_life_days: 10 }\nauthority: [task]\nanswer:\n  support: 50\n  support_score: 1.5\n  support_overage: 0.5\n",
        )
        .unwrap();
        let shown = Policies::load(dir.path(), &[]).unwrap_err().to_string();
        // An unknown key is refused by name before the values are checked.
        assert!(
            shown.contains("status.yaml:") && shown.contains("support_overage"),
            "{shown}"
        );
        std::fs::write(
            dir.path().join("status.yaml"),
            "intent: status\nweights: { keyword: 1, freshness: 0, authority: 0, completeness: 0 }\nfreshness: { half_life_days: 10 }\nauthority: [task]\nanswer:\n  support: 50\n  support_score: 1.5\n",
        )
        .unwrap();
        let e = Policies::load(dir.path(), &[]).unwrap_err();
        let shown = e.to_string();
        assert!(
            shown.contains("status.yaml:6:12: `support` must be between 0 and 8, got 50"),
            "{shown}"
        );
        assert!(
            shown.contains("status.yaml:7:18: `support_score` must be between 0 and 1, got 1.5"),
            "{shown}"
        );
        assert_eq!(e.0.len(), 2, "{shown}");
    }

    #[test]
    fn every_problem_of_every_file_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        copy_policies(dir.path());
        std::fs::write(
            dir.path().join("status.yaml"),
            "intent: status\nweights: { keyword: 1.5, freshness: 0.4, authority: 0.1, completeness: 0.3 }\nfreshness: { half_life_days: 10 }\nauthority: [task, chatt]\nsources:\n  slak: { weight: 1.0 }\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("person.yaml"), "intent: person\nweights: [1]\n").unwrap();
        let e = Policies::load(dir.path(), &["slack".into()]).unwrap_err();
        let shown = e.to_string();
        assert!(
            shown.contains("status.yaml:2:21: weight `keyword` must be between 0 and 1, got 1.5"),
            "{shown}"
        );
        assert!(
            shown.contains("status.yaml:4:19: unknown evidence kind `chatt`"),
            "{shown}"
        );
        assert!(shown.contains("status.yaml:6:3: unknown source `slak`"), "{shown}");
        assert!(
            shown.contains("person.yaml:2:10: weights: invalid type: a list"),
            "{shown}"
        );
        assert_eq!(e.0.len(), 4, "{shown}");
    }
}
