//! The scoring engine: pooled BM25 over every hit returned for a question (CJK-aware tokens,
//! long texts scored passage by passage), fuzzy matching for names and typos, and the policy's
//! factors (keyword, freshness, authority, completeness) fused into one score that explains
//! itself.
//!
//! Invariant: rank does no I/O and reads no clock; `now` is passed in.
//! Invariant: the order is total: score, then source name, then hit id.

use std::collections::HashMap;

use rustc_hash::{FxHashMap, FxHashSet};

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::config::policy::{Lexicon, Policy, Weights};
use crate::hit::{EvidenceKind, Hit};
use crate::pipeline::query::{Analysis, Concept, EVERYDAY_BELOW};
use crate::text;
use crate::text::encoder::Encoder;

/// One factor's part in a score.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Explain {
    pub factor: &'static str,
    pub weight: f64,
    pub value: f64,
    pub contribution: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A hit with its score.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    pub hit: Hit,
    /// Byte range in `hit.text` of the best-matching passage.
    pub passage: (usize, usize),
    pub keyword: f64,
    pub freshness: f64,
    pub authority: f64,
    pub completeness: f64,
    /// The encoder's similarity of the question and the passage (0..1; 0 where it was not
    /// measured: no encoder, or below the best `SEMANTIC_POOL`).
    pub semantic: f64,
    /// Share of the question's concepts (IDF-weighted) that the best passage covers.
    pub coverage: f64,
    pub score: f64,
    /// What `explain` needs besides the factors.
    pub why: Why,
}

/// The inputs of a score that are not factors: the weights used, the source's weight, and notes.
#[derive(Debug, Clone, PartialEq)]
pub struct Why {
    pub weights: crate::config::policy::Weights,
    pub source_weight: f64,
    pub auth_note: Option<&'static str>,
    pub age_days: Option<i64>,
    pub intent: crate::config::policy::Intent,
    /// What freshness and authority were scaled by: the coverage (a tool's match, for a tool),
    /// or 1 when the policy has no relevance gate.
    pub gate: f64,
}

#[cfg(test)]
impl Why {
    /// Uniform weights, one source weight, no gate: evidence built by hand in tests.
    pub(crate) fn plain() -> Why {
        Why {
            weights: crate::config::policy::Weights::uniform(),
            source_weight: 1.0,
            auth_note: None,
            age_days: None,
            intent: crate::config::policy::Intent::Factual,
            gate: 1.0,
        }
    }
}

#[cfg(test)]
impl Evidence {
    /// A hit as evidence built by hand in tests: its whole text the passage, keyword and score
    /// `score`, fresh, of middling authority and completeness, covering the question.
    pub(crate) fn plain(hit: Hit, score: f64) -> Evidence {
        Evidence {
            passage: (0, hit.text.len()),
            hit,
            keyword: score,
            freshness: 1.0,
            authority: 0.5,
            completeness: 0.5,
            semantic: 0.0,
            coverage: 1.0,
            score,
            why: Why::plain(),
        }
    }
}

impl Evidence {
    /// The score broken into the policy's factors (built on demand: only citations need it).
    pub fn explain(&self) -> Vec<Explain> {
        let w = self.why.weights;
        let gate = self.why.gate;
        let item = |factor, weight: f64, value: f64, g: f64, note: Option<String>| Explain {
            factor,
            weight: round3(weight),
            value: round3(value),
            contribution: round3(weight * value * g * self.why.source_weight),
            note,
        };
        vec![
            item("keyword", w.keyword, self.keyword, 1.0, None),
            item(
                "freshness",
                w.freshness,
                self.freshness,
                gate,
                self.why.age_days.map(|d| format!("{d} days old")),
            ),
            item(
                "authority",
                w.authority,
                self.authority,
                gate,
                Some(
                    self.why
                        .auth_note
                        .map(str::to_string)
                        .unwrap_or_else(|| self.hit.kind.to_string()),
                ),
            ),
            item(
                "completeness",
                w.completeness,
                self.completeness,
                1.0,
                Some(format!("covers {:.0}% of the question", self.coverage * 100.0)),
            ),
            item(
                "semantic",
                w.semantic,
                self.semantic,
                1.0,
                (w.semantic > 0.0).then(|| "the sentence encoder's similarity of question and passage".to_string()),
            ),
            Explain {
                factor: "source_weight",
                weight: 1.0,
                value: round3(self.why.source_weight),
                contribution: 0.0,
                note: Some(format!(
                    "{} in the {} policy; contributions include it",
                    self.hit.source, self.why.intent
                )),
            },
            Explain {
                factor: "relevance_gate",
                weight: 1.0,
                value: round3(gate),
                contribution: 0.0,
                note: Some(
                    if self.hit.kind == EvidenceKind::Tool {
                        "freshness and authority are scaled by the tool's match (coverage and catalog score)"
                    } else {
                        "freshness and authority are scaled by coverage"
                    }
                    .into(),
                ),
            },
        ]
    }

    pub fn passage_text(&self) -> &str {
        self.hit
            .text
            .get(self.passage.0..self.passage.1)
            .unwrap_or(&self.hit.text)
    }
}

/// Everything ranking needs besides the hits.
pub struct RankContext<'a> {
    pub analysis: &'a Analysis,
    pub policy: &'a Policy,
    pub lexicon: &'a Lexicon,
    pub now: DateTime<Utc>,
    /// Source name -> source kind (`slack`, ...), for the policy's source preferences.
    pub source_kinds: &'a HashMap<String, String>,
    /// The sentence encoder, for the semantic factor; without it the policy's semantic weight
    /// goes to the other factors (`Weights::lexical`).
    pub encoder: Option<&'a Encoder>,
}

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Weight of a fuzzy (typo or name variant) match.
const FUZZY_WEIGHT: f64 = 0.7;
/// The least weight freshness has when the question asks for the latest of something.
const RECENT_FRESHNESS_WEIGHT: f64 = 0.35;
/// Share of a tool's keyword factor that is the catalog's own score. MetaTool, 995 questions,
/// before the catalog expanded synonyms and word families: 0 -> R@1 0.492, 0.5 -> 0.505,
/// 0.7 -> 0.514, 1.0 -> 0.508; after: 0.5 -> 0.508, 0.7 -> 0.518, 1.0 -> 0.528 (nDCG 0.648 ->
/// 0.654). The catalog sees every tool and now knows the vocabulary, so its score is the factor.
const CATALOG_SCORE_SHARE: f64 = 1.0;
/// The least catalog score (`relevanceScore`, the same in every query) of a tool that shares no
/// word with a tool question for it to stay among other evidence (with tools alone, any score
/// stays: MetaTool R@5 0.799 rather than 0.783 with this floor): about a cosine of 0.43, where
/// unrelated requests and tools sit below 0.35 (the demo's "look up a customer's invoices" and
/// `github__create_pull_request`: 0.12; MetaTool's currency request and its exchange tool: 0.39).
const MEANING_ONLY_MIN: f64 = 0.2;
/// Share of a tool's match (its relevance gate and completeness) that is the catalog's score
/// rather than the pool's coverage (MetaTool via sagasu eval: 0 -> R@1 0.558, nDCG 0.686; 0.25
/// -> 0.564, 0.689; 0.5 -> 0.560; 1.0 -> 0.563 but R@5 0.758; acme unchanged).
const CATALOG_MATCH_SHARE: f64 = 0.25;
/// The longest freshness half-life when the question asks for the latest of something.
const RECENT_HALF_LIFE_DAYS: f64 = 30.0;
/// Freshness of evidence with no date.
const UNDATED_FRESHNESS: f64 = 0.3;

/// A scored unit: a hit's passage (or whole short text).
struct Unit {
    hit: usize,
    range: (usize, usize),
    /// (term id, frequency), sorted by term id.
    tf: Vec<(u32, u32)>,
    len: usize,
    /// Adjacent pairs of the question's words that occur here, side by side.
    pairs: Vec<(u32, u32)>,
    /// Length of the passage against a complete answer (0..1), Japanese counting denser.
    length: f64,
    /// The hit is a chat message that reads as a thread's conclusion.
    conclusion: bool,
}

impl Unit {
    fn freq(&self, id: u32) -> u32 {
        self.tf
            .binary_search_by_key(&id, |x| x.0)
            .map(|i| self.tf[i].1)
            .unwrap_or(0)
    }
}

/// Weight of a pair of the question's words found side by side ("pro plan", "rate limit").
const PROXIMITY_WEIGHT: f64 = 0.5;
/// What a translation or synonym keeps of its weight when the pool has it only apart from the
/// question's other concepts (`Counted::weigh_senses`).
const UNMET_SENSE_SHARE: f64 = 0.5;

/// Pairs of Latin-script words that stand side by side in the question.
fn adjacent_pairs(question: &str) -> Vec<(String, String)> {
    let norm = text::normalize(question);
    let toks = text::tokenize(question);
    toks.windows(2)
        .filter(|w| w[0].text.is_ascii() && w[1].text.is_ascii())
        .filter(|w| {
            norm.get(w[0].end..w[1].start)
                .is_some_and(|gap| gap.trim().is_empty() || gap.trim() == "-")
        })
        .map(|w| (w[0].text.clone(), w[1].text.clone()))
        .collect()
}

/// The texts of a unit that are scored, in order: the title (not for chat, whose title is cut
/// from its own text), the passage, and on a hit's first unit where it lives (with
/// `locations`: its `Hit::place`, the channel, room, parent page or tool server), its author and
/// properties.
/// Words are adjacent only within one part.
fn scoring_parts<'h>(
    h: &'h Hit,
    passage: &'h str,
    first: bool,
    locations: bool,
) -> impl Iterator<Item = std::borrow::Cow<'h, str>> {
    let title = (h.kind != EvidenceKind::Chat).then_some(h.title.as_str().into());
    let location = h.place().filter(|_| first && locations).map(Into::into);
    let author = h.author.as_deref().filter(|_| first).map(Into::into);
    let properties = h
        .properties
        .iter()
        .filter(move |_| first)
        .map(|(k, v)| format!("{k} {v}").into());
    title
        .into_iter()
        .chain(std::iter::once(passage.into()))
        .chain(location)
        .chain(author)
        .chain(properties)
}

/// The question's terms, each with an id: the words of its concepts, their synonyms and
/// translations, the words of its adjacent pairs, and fuzzy stand-ins found in the pool.
type QueryTerms = FxHashMap<String, u32>;

fn term_id(terms: &mut QueryTerms, t: &str) -> u32 {
    let next = terms.len() as u32;
    *terms.entry(t.to_string()).or_insert(next)
}

/// Cuts every hit into scored units (passages of long texts, whole short texts) and counts the
/// question's terms in each. Only the question's terms are counted: BM25 needs nothing else
/// but each unit's length, so no token of the pool is ever copied. Tokenizing is the costly
/// part and needs nothing shared, so large pools are cut on all cores.
///
/// With `vocabulary`, it also gathers the pool's distinct Latin-script words of at least four
/// letters: the candidates for fuzzy matching of question words that the pool lacks.
///
/// Everything else that costs a pass over a hit's text is measured here too, on all cores:
/// each passage's length and whether a chat message is a conclusion (with `conclusions`).
/// With `locations` (the policy's `location_words`), a hit's first unit also counts the words
/// of where it lives.
fn count_units(
    hits: &[Hit],
    terms: &QueryTerms,
    question_pairs: &[(u32, u32)],
    vocabulary: bool,
    conclusions: Option<&Lexicon>,
    bounded: &[String],
    locations: bool,
) -> (Vec<Unit>, FxHashSet<String>) {
    // The question states a value: passages are read for their values too (`Value::term`).
    let values = terms
        .keys()
        .any(|t| t.starts_with(crate::text::values::VALUE_TERM_MARK));
    let one = |i: usize, h: &Hit, out: &mut Vec<Unit>, vocab: &mut FxHashSet<String>| {
        let conclusion = h.kind == EvidenceKind::Chat && conclusions.is_some_and(|l| is_conclusion(&h.text, l));
        let ranges = if h.text.len() > 900 && h.text.chars().count() > 900 {
            text::passages(&h.text)
        } else {
            Vec::new()
        };
        let ranges = if ranges.is_empty() {
            vec![(0, h.text.len())]
        } else {
            ranges
        };
        for (k, r) in ranges.into_iter().enumerate() {
            let mut len = 0usize;
            let mut found: Vec<u32> = Vec::new();
            let mut pairs: Vec<(u32, u32)> = Vec::new();
            let passage = &h.text[r.0..r.1];
            // The passage's own shape (the part after the title, when there is one).
            let passage_part = usize::from(h.kind != EvidenceKind::Chat);
            let mut shape = text::Shape::default();
            for (p, part) in scoring_parts(h, passage, k == 0, locations).enumerate() {
                let mut prev: Option<u32> = None;
                let part_shape = text::for_each_token(&part, |t, _, _| {
                    len += 1;
                    let id = terms.get(t).copied();
                    if vocabulary && id.is_none() && t.len() >= 4 && t.is_ascii() && !vocab.contains(t) {
                        vocab.insert(t.to_string());
                    }
                    if let (Some(a), Some(b)) = (prev, id)
                        && question_pairs.contains(&(a, b))
                    {
                        pairs.push((a, b));
                    }
                    if let Some(id) = id {
                        found.push(id);
                    }
                    prev = id;
                });
                if p == passage_part {
                    shape = part_shape;
                }
                if values {
                    for t in crate::text::values::terms_for(&part, bounded) {
                        if let Some(&id) = terms.get(&t) {
                            found.push(id);
                        }
                    }
                }
            }
            found.sort_unstable();
            let mut tf: Vec<(u32, u32)> = Vec::new();
            for id in found {
                match tf.last_mut() {
                    Some((last, n)) if *last == id => *n += 1,
                    _ => tf.push((id, 1)),
                }
            }
            let density = if shape.japanese { 2.5 } else { 1.0 };
            out.push(Unit {
                hit: i,
                range: r,
                tf,
                len,
                pairs,
                length: (shape.chars as f64 * density / 200.0).min(1.0),
                conclusion,
            });
        }
    };
    let parts = crate::util::par::chunks(hits, 2_000, |offset, part| {
        let mut out = Vec::with_capacity(part.len());
        let mut vocab = FxHashSet::default();
        for (j, h) in part.iter().enumerate() {
            one(offset + j, h, &mut out, &mut vocab);
        }
        (out, vocab)
    });
    let mut units = Vec::with_capacity(hits.len());
    let mut vocab = FxHashSet::default();
    for (u, v) in parts {
        units.extend(u);
        vocab.extend(v);
    }
    (units, vocab)
}

/// Freshness by exponential decay with the policy's half-life.
pub fn freshness(t: Option<DateTime<Utc>>, now: DateTime<Utc>, half_life_days: f64) -> f64 {
    match t {
        None => UNDATED_FRESHNESS,
        Some(t) => {
            let age = (now - t).num_seconds() as f64 / 86_400.0;
            if age <= 0.0 {
                1.0
            } else {
                (-(std::f64::consts::LN_2) * age / half_life_days).exp()
            }
        }
    }
}

/// Whether a chat message reads as a conclusion ("Decision: ...", "決定しました").
pub fn is_conclusion(text: &str, lexicon: &Lexicon) -> bool {
    lexicon.conclusion_cues.is_match(text)
}

/// Scores and orders `hits` for the question. Hits that share no word or concept with the
/// question are dropped.
pub fn rank(hits: Vec<Hit>, cx: &RankContext) -> Vec<Evidence> {
    rank_top(hits, cx, usize::MAX)
}

/// Words of the question the pool lacks, and that the language's word lists do not know, find
/// the pool's words at least this Jaro-Winkler-similar (typos and name variants: "Postgress",
/// "Kubernets"); lower lets unrelated words of the same shape in.
const FUZZY_MIN_SIMILARITY: f64 = 0.92;
/// Shorter words are too short to tell a typo from another word.
const FUZZY_MIN_LEN: usize = 4;
/// A lexicon alternative (a synonym or translation) covers a concept at least this much of
/// what the word itself would: it is the same concept in other words.
const ALTERNATIVE_COVERAGE_FLOOR: f64 = 0.85;
/// Completeness of a passage: this share from how much of the question it covers, and
/// `COMPLETENESS_LENGTH_SHARE` from its length (a fuller passage says more); they sum to 1.
const COMPLETENESS_COVERAGE_SHARE: f64 = 0.7;
const COMPLETENESS_LENGTH_SHARE: f64 = 0.3;
/// Above this many hits the pool left after ranking is freed on a helper thread (`Leftover`).
const FREE_ON_THREAD_ABOVE: usize = 2_000;

/// `rank`, keeping only the `limit` best (the same order, without building the rest).
pub fn rank_top(hits: Vec<Hit>, cx: &RankContext, limit: usize) -> Vec<Evidence> {
    rank_top_weighed(hits, cx, limit).0
}

/// How the pool weighs one of the question's concepts: the weight coverage gives it (its words'
/// IDF over the pool's passages) and whether any passage of the pool has it at all.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConceptWeight {
    pub weight: f64,
    pub in_pool: bool,
    /// The weight before a concept no passage has was weighed down (`Counted::weigh_absent`):
    /// its words' IDF over the pool, where absence makes them as rare as can be.
    pub full: f64,
}

/// A word of the pool that stands for a question word the pool lacks (for `--explain`).
#[derive(Debug, Clone, PartialEq)]
pub struct StandIn {
    /// The question's word (as an index term).
    pub asked: String,
    /// The pool's word standing in for it (as an index term).
    pub word: String,
    /// Why: "spelling" (a typo or name variant), "synonym" (WordNet), "kind" (a kind of it, by
    /// WordNet) or "meaning" (the sentence encoder).
    pub why: &'static str,
}

impl std::fmt::Display for StandIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} → {} ({})", self.asked, self.word, self.why)
    }
}

/// `rank_top`, with how the pool weighs each of the question's concepts (in `concepts` order).
pub fn rank_top_weighed(hits: Vec<Hit>, cx: &RankContext, limit: usize) -> (Vec<Evidence>, Vec<ConceptWeight>) {
    let (ranked, weights, _, _) = rank_top_explained(hits, cx, limit);
    (ranked, weights)
}

/// What ranking leaves of a pool: the hits that did not make the cut and the passages counted
/// for the question. A large pool is some hundred thousand allocations; dropped, it is freed on
/// a helper thread, and the caller chooses when: `compose` keeps it until the answer is written,
/// so that freeing does not take a core from the clustering and sentence work that follow.
pub struct Leftover {
    hits: Vec<Hit>,
    units: Vec<Unit>,
}

impl Drop for Leftover {
    fn drop(&mut self) {
        let hits = std::mem::take(&mut self.hits);
        let units = std::mem::take(&mut self.units);
        if hits.len() > FREE_ON_THREAD_ABOVE {
            // Should no thread start, the closure (and the pool) is dropped here instead.
            let _ = std::thread::Builder::new()
                .name("sagasu-free".into())
                .spawn(move || drop((hits, units)));
        }
    }
}

/// `rank_top_weighed`, with the pool's words that stood in for question words it lacks, and
/// what is left of the pool (`Leftover`, for the caller to drop when it suits).
pub fn rank_top_explained(
    hits: Vec<Hit>,
    cx: &RankContext,
    limit: usize,
) -> (Vec<Evidence>, Vec<ConceptWeight>, Vec<StandIn>, Leftover) {
    let counted = Counted::of(&hits, cx);
    let stand_ins = counted.stand_ins();
    let mut qconcepts = counted.question_tokens(&cx.analysis.concepts);
    counted.weigh_senses(&mut qconcepts);
    counted.weigh_present(&mut qconcepts, &cx.analysis.concepts);
    let full = counted.concept_weights(&qconcepts);
    counted.weigh_absent(&mut qconcepts, &cx.analysis.concepts);
    let mut concept_weights = counted.concept_weights(&qconcepts);
    for (w, f) in concept_weights.iter_mut().zip(&full) {
        w.full = f.weight;
    }
    let best = counted.best_units(&qconcepts, hits.len());
    let (weights, half_life) = effective_weights(cx);
    let words = !cx.analysis.concepts.is_empty();
    let mut scored = score_hits(&hits, &best, cx, weights, half_life, words);
    if let Some(encoder) = cx.encoder.filter(|_| weights.semantic > 0.0) {
        add_semantic(&mut scored, &hits, cx, encoder, weights.semantic);
    }
    drop(best);
    let (evidence, hits) = into_evidence(hits, scored, limit, cx, weights);
    let leftover = Leftover {
        hits,
        units: counted.units,
    };
    (evidence, concept_weights, stand_ins, leftover)
}

/// The pool's passages counted for the question's terms, with the pool's document frequencies
/// and the fuzzy stand-ins of question words the pool lacks.
struct Counted {
    terms: QueryTerms,
    units: Vec<Unit>,
    df: Vec<u32>,
    fuzzy_of: FxHashMap<String, Vec<u32>>,
    /// Synonyms (WordNet) the pool has of question words it lacks.
    synonyms_of: FxHashMap<String, Vec<u32>>,
    /// Kinds (WordNet's `narrower`) the pool has of question words it lacks and has no
    /// synonym of: found in the question's own evidence, they count as the concept (as
    /// `meanings_of` do).
    kinds_of: FxHashMap<String, Vec<u32>>,
    /// Words of the best evidence near in meaning (the sentence encoder) to question words the
    /// pool lacks, in either language; matched as synonyms are.
    meanings_of: FxHashMap<String, Vec<u32>>,
}

impl Counted {
    fn of(hits: &[Hit], cx: &RankContext) -> Counted {
        let mut terms: QueryTerms = FxHashMap::default();
        let question_pairs: Vec<(u32, u32)> = adjacent_pairs(&cx.analysis.search_text(false))
            .into_iter()
            .map(|(a, b)| (term_id(&mut terms, &a), term_id(&mut terms, &b)))
            .collect();
        for c in &cx.analysis.concepts {
            for (alt, _) in &c.alternatives {
                for t in alt {
                    term_id(&mut terms, t);
                }
            }
        }
        let conclusions = (cx.policy.conclusion_bonus > 0.0).then_some(cx.lexicon);
        let bounded = bounded_values(cx.analysis);
        let (mut units, vocab) = count_units(
            hits,
            &terms,
            &question_pairs,
            true,
            conclusions,
            &bounded,
            cx.policy.location_words,
        );
        let mut df = document_frequencies(&units, terms.len());
        // The pool counted again, and its document frequencies, once stand-ins joined the terms.
        let recount = |terms: &QueryTerms| {
            let units = count_units(
                hits,
                terms,
                &question_pairs,
                false,
                conclusions,
                &bounded,
                cx.policy.location_words,
            )
            .0;
            let df = document_frequencies(&units, terms.len());
            (units, df)
        };
        // Latin words of the question that the pool lacks may be typos or name variants: their
        // stand-ins are the pool's words close to them, counted in a second pass.
        let latin = |t: &str| t.len() >= FUZZY_MIN_LEN && t.is_ascii();
        // A question word the language's word lists know (`Concept::specificity` under 1) is
        // spelt as meant: a pool word of its shape is another word ("charities" and "charts").
        // Slips of a listed word are put right before (`text::spell`).
        let listed = listed_words(cx.analysis);
        let missing: Vec<String> = terms
            .iter()
            .filter(|(t, id)| df[**id as usize] == 0 && latin(t) && !listed.contains(t.as_str()))
            .map(|(t, _)| t.clone())
            .collect();
        let mut fuzzy_of: FxHashMap<String, Vec<u32>> = FxHashMap::default();
        if !missing.is_empty() {
            // The pool's words, and the question's words that it has.
            let mut vocab: Vec<String> = vocab
                .into_iter()
                .chain(
                    terms
                        .iter()
                        .filter(|(_, id)| df[**id as usize] > 0)
                        .map(|(t, _)| t.clone()),
                )
                .filter(|v| latin(v))
                .collect();
            vocab.sort();
            let known = terms.len();
            for m in &missing {
                let ids: Vec<u32> = vocab
                    .iter()
                    .filter(|v| strsim::jaro_winkler(m, v) >= FUZZY_MIN_SIMILARITY)
                    .map(|v| term_id(&mut terms, v))
                    .collect();
                if !ids.is_empty() {
                    fuzzy_of.insert(m.clone(), ids);
                }
            }
            // Stand-ins that are the question's own words are counted already.
            if terms.len() > known {
                (units, df) = recount(&terms);
            }
        }
        let mut synonyms_of: FxHashMap<String, Vec<u32>> = FxHashMap::default();
        let mut kinds_of: FxHashMap<String, Vec<u32>> = FxHashMap::default();
        if let Some(wordnet) = crate::text::wordnet::wordnet() {
            let known = terms.len();
            for (asked, ids, synonym) in synonym_stand_ins(hits, &units, &mut terms, &df, &fuzzy_of, cx, wordnet) {
                if synonym {
                    synonyms_of.insert(asked, ids);
                } else {
                    kinds_of.insert(asked, ids);
                }
            }
            if terms.len() > known {
                (units, df) = recount(&terms);
            }
        }
        let mut meanings_of: FxHashMap<String, Vec<u32>> = FxHashMap::default();
        if let Some(encoder) = cx.encoder {
            let known = terms.len();
            let stood: FxHashSet<&str> = fuzzy_of
                .keys()
                .chain(synonyms_of.keys())
                .chain(kinds_of.keys())
                .map(String::as_str)
                .collect();
            meanings_of.extend(meaning_stand_ins(hits, &units, &mut terms, &df, &stood, cx, encoder));
            if terms.len() > known {
                (units, df) = recount(&terms);
            }
        }
        Counted {
            terms,
            units,
            df,
            fuzzy_of,
            synonyms_of,
            kinds_of,
            meanings_of,
        }
    }

    /// The pool's words standing in for question words it lacks, in a stable order.
    fn stand_ins(&self) -> Vec<StandIn> {
        let name = |id: u32| self.terms.iter().find(|(_, i)| **i == id).map(|(t, _)| t.clone());
        let mut out: Vec<StandIn> = Vec::new();
        for (map, why) in [
            (&self.fuzzy_of, "spelling"),
            (&self.synonyms_of, "synonym"),
            (&self.kinds_of, KIND),
            (&self.meanings_of, MEANING),
        ] {
            for (asked, ids) in map {
                out.extend(ids.iter().filter_map(|&i| name(i)).map(|word| StandIn {
                    asked: asked.clone(),
                    word,
                    why,
                }));
            }
        }
        out.sort_by(|a, b| (&a.asked, &a.word).cmp(&(&b.asked, &b.word)));
        out.dedup();
        out
    }

    /// The IDF of a term id over the pool's passages.
    fn idf(&self, id: Option<u32>) -> f64 {
        let n = self.units.len().max(1) as f64;
        let d = id.map(|i| self.df.get(i as usize).copied().unwrap_or(0)).unwrap_or(0) as f64;
        (1.0 + (n - d + 0.5) / (d + 0.5)).ln()
    }

    /// A query token: its id, and its stand-ins (typo and synonym) when the pool lacks it.
    fn qtok(&self, t: &str) -> QTok {
        let id = self.terms.get(t).copied();
        let fuzzy = self.fuzzy_of.get(t).cloned().unwrap_or_default();
        let mut synonyms = self.synonyms_of.get(t).cloned().unwrap_or_default();
        synonyms.extend(self.kinds_of.get(t).into_iter().flatten());
        synonyms.extend(self.meanings_of.get(t).into_iter().flatten());
        let idf = if fuzzy.is_empty() && synonyms.is_empty() {
            self.idf(id)
        } else {
            fuzzy
                .iter()
                .chain(&synonyms)
                .map(|i| self.idf(Some(*i)))
                .fold(0.0, f64::max)
        };
        QTok {
            id,
            fuzzy,
            synonyms,
            idf,
            joined: false,
            meant: self.meanings_of.contains_key(t) || self.kinds_of.contains_key(t),
        }
    }

    /// The question's concepts as the pool's tokens: per alternative, its tokens, its weight and
    /// whether it is a number of several parts.
    fn question_tokens(&self, concepts: &[Concept]) -> Vec<QConcept> {
        // A number of several parts ("1.32", "2026-12-01") covers only when all its parts are
        // there: "1.31" shares a part with "1.32" but is another version.
        let exact_number = |alt: &[String]| alt.len() > 1 && alt.iter().all(|t| t.bytes().all(|b| b.is_ascii_digit()));
        concepts
            .iter()
            .map(|c| {
                c.alternatives
                    .iter()
                    .map(|(alt, w)| {
                        let toks = alt
                            .iter()
                            .map(|t| {
                                let mut q = self.qtok(t);
                                q.joined = joined(t, alt);
                                q
                            })
                            .collect();
                        (toks, *w, exact_number(alt))
                    })
                    .collect()
            })
            .collect()
    }

    /// Sense choice by the pool: a translation or synonym that the pool has, but only in passages
    /// that have none of the question's other concepts, is likely another sense of the word
    /// ("bug" as 昆虫 in a page about insects) while another alternative of the same concept does
    /// meet them; it weighs `UNMET_SENSE_SHARE` of its weight. The word itself is never weighed
    /// down, nor anything in a one-concept question.
    fn weigh_senses(&self, qconcepts: &mut [QConcept]) {
        if qconcepts.len() < 2 {
            return;
        }
        let has = |u: &Unit, alt: &[QTok]| !alt.is_empty() && alt.iter().all(|t| tf_of(u, t).0 > 0.0);
        // Per concept, per alternative: (passages that have it, of those the ones that also
        // have another concept).
        let mut seen: Vec<Vec<(u32, u32)>> = qconcepts.iter().map(|c| vec![(0, 0); c.len()]).collect();
        // Which alternatives a passage has, each looked up once (one buffer for all passages).
        let mut have: Vec<Vec<bool>> = qconcepts.iter().map(|c| vec![false; c.len()]).collect();
        for u in &self.units {
            let mut concepts_had = 0;
            for (c, h) in qconcepts.iter().zip(&mut have) {
                for ((alt, _, _), slot) in c.iter().zip(h.iter_mut()) {
                    *slot = has(u, alt);
                }
                concepts_had += usize::from(h.contains(&true));
            }
            let others = concepts_had > 1;
            for (ci, alts) in have.iter().enumerate() {
                for (ai, _) in alts.iter().enumerate().filter(|(_, h)| **h) {
                    seen[ci][ai].0 += 1;
                    seen[ci][ai].1 += u32::from(others);
                }
            }
        }
        for (c, counts) in qconcepts.iter_mut().zip(&seen) {
            if !counts.iter().any(|&(_, met)| met > 0) {
                continue;
            }
            for (alt, &(found, met)) in c.iter_mut().zip(counts).skip(1) {
                if found > 0 && met == 0 {
                    alt.1 *= UNMET_SENSE_SHARE;
                }
            }
        }
    }

    /// Whether some passage has the token (or a fuzzy or meaning stand-in of it).
    fn has(&self, t: &QTok) -> bool {
        !t.fuzzy.is_empty() || t.meant || t.id.is_some_and(|i| self.df.get(i as usize).is_some_and(|&d| d > 0))
    }

    /// Whether some passage has one of the concept's alternatives: all its words, or for a
    /// Japanese compound all its members, written together or apart (インボイス対応 in a pool
    /// that says インボイス制度への対応).
    fn has_concept(&self, c: &QConcept) -> bool {
        c.iter().any(|(alt, _, _)| {
            let apart = alt.iter().any(|t| !t.joined);
            alt.iter().filter(|t| !apart || !t.joined).all(|t| self.has(t))
        })
    }

    /// The highest IDF of a word of `qconcepts` that the pool has (0 with none).
    fn rarest_in_pool<'q>(&self, qconcepts: impl Iterator<Item = &'q QConcept>) -> f64 {
        qconcepts
            .flat_map(|qc| qc.iter().flat_map(|(alt, _, _)| alt.iter()))
            .filter(|t| self.has(t))
            .map(|t| t.idf)
            .fold(0.0, f64::max)
    }

    /// A concept the pool has weighs at least its specificity in the language at large
    /// (`Concept::specificity`) times the IDF of the rarest word the pool has: the pool was
    /// found by the question's own words, so its IDF rates the question's subject low
    /// ("Kubernetes" in a pool of Kubernetes messages) next to the asker's everyday words the
    /// evidence paraphrases, and a passage without the subject would cover as much as one with
    /// it. Without the word lists (every concept as specific, 1) the pool's IDF stands.
    fn weigh_present(&self, qconcepts: &mut [QConcept], concepts: &[Concept]) {
        if text::wordfreq::frequencies().is_none() && concepts.iter().all(|c| c.specificity >= 1.0) {
            return;
        }
        let cap = self.rarest_in_pool(qconcepts.iter());
        for (qc, c) in qconcepts.iter_mut().zip(concepts) {
            if !self.has_concept(qc) {
                continue;
            }
            let floor = c.specificity * cap;
            for t in qc.iter_mut().flat_map(|(alt, _, _)| alt.iter_mut()) {
                t.idf = t.idf.max(floor);
            }
        }
    }

    /// A concept no passage has weighs at most as the rarest word the pool does have, and by
    /// how specific its word is in the language at large (`Concept::specificity`): the pool was
    /// found by the question's own words, so a word it lacks has the highest IDF there by
    /// construction, not because it says more. A rare word or a name no source has is the
    /// question's subject, missing; an everyday word ("give", "somewhere", 内容) no source has
    /// is the asker's phrasing, and costs the evidence little coverage.
    fn weigh_absent(&self, qconcepts: &mut [QConcept], concepts: &[Concept]) {
        let present: Vec<bool> = qconcepts.iter().map(|qc| self.has_concept(qc)).collect();
        let cap = self.rarest_in_pool(qconcepts.iter().zip(&present).filter(|(_, p)| **p).map(|(qc, _)| qc));
        for ((qc, c), p) in qconcepts.iter_mut().zip(concepts).zip(&present) {
            if *p {
                continue;
            }
            for t in qc.iter_mut().flat_map(|(alt, _, _)| alt.iter_mut()) {
                if cap > 0.0 {
                    t.idf = t.idf.min(cap);
                }
                t.idf *= c.specificity;
            }
        }
    }

    /// Each concept's weight as coverage counts it (`concept_weight`), and whether the pool has it.
    fn concept_weights(&self, qconcepts: &[QConcept]) -> Vec<ConceptWeight> {
        qconcepts
            .iter()
            .map(|c| ConceptWeight {
                weight: concept_weight(c),
                in_pool: self.has_concept(c),
                full: concept_weight(c),
            })
            .collect()
    }

    /// Per hit: its best passage and that passage's (BM25, coverage of the question's concepts).
    fn best_units(&self, qconcepts: &[QConcept], n_hits: usize) -> Vec<Option<(&Unit, f64, f64)>> {
        let n = self.units.len().max(1) as f64;
        let avgdl = (self.units.iter().map(|u| u.len).sum::<usize>() as f64 / n).max(1.0);
        let mut best: Vec<Option<(&Unit, f64, f64)>> = vec![None; n_hits];
        for u in &self.units {
            let (mut bm25, coverage) = unit_match(u, qconcepts, avgdl);
            for (a, b) in &u.pairs {
                bm25 += PROXIMITY_WEIGHT * (self.idf(Some(*a)) + self.idf(Some(*b))) / 2.0;
            }
            let slot = &mut best[u.hit];
            if slot.is_none_or(|(_, b, _)| bm25 > b) {
                *slot = Some((u, bm25, coverage));
            }
        }
        best
    }
}

/// A query token as a passage is matched against it.
struct QTok {
    id: Option<u32>,
    /// Typo stand-ins when the pool lacks the token (a match weighs `FUZZY_WEIGHT`) ...
    fuzzy: Vec<u32>,
    /// ... and synonyms (a match weighs `SYNONYM_WEIGHT`; the concept stays one the pool lacks
    /// for the verdict: a synonym is a guess at the sense).
    synonyms: Vec<u32>,
    idf: f64,
    /// A Japanese compound (or part of one) written whole, whose members are tokens of the
    /// same alternative: 請求書 beside 請求 and 書.
    joined: bool,
    /// Some of `synonyms` are near it in meaning (`meaning_stand_ins`): unlike a WordNet
    /// synonym, found by the word's sense in the question's own evidence, so the pool counts as
    /// having the concept.
    meant: bool,
}

/// Whether `t` is a Japanese token that joins others of `alt` (it begins with another of them).
fn joined(t: &str, alt: &[String]) -> bool {
    text::is_japanese(t) && alt.iter().any(|o| o.len() < t.len() && t.starts_with(o.as_str()))
}

/// A question concept in the pool's tokens: per alternative, (tokens, weight, a number of
/// several parts).
type QConcept = Vec<(Vec<QTok>, f64, bool)>;

/// A concept's weight in coverage: its first alternative's mean IDF; a number of several parts
/// identifies one thing, and weighs as its rarest part.
fn concept_weight(c: &QConcept) -> f64 {
    match c.first() {
        Some((toks, _, true)) => toks.iter().map(|t| t.idf).fold(0.0, f64::max),
        Some((toks, _, false)) if !toks.is_empty() => toks.iter().map(|t| t.idf).sum::<f64>() / toks.len() as f64,
        _ => 0.0,
    }
}

/// How often a passage has a query token, and the weight of that match (1, or less through a
/// stand-in: `FUZZY_WEIGHT`, `SYNONYM_WEIGHT`).
fn tf_of(u: &Unit, q: &QTok) -> (f64, f64) {
    if let Some(id) = q.id {
        let f = u.freq(id);
        if f > 0 {
            return (f as f64, 1.0);
        }
    }
    for (stand_ins, w) in [(&q.fuzzy, FUZZY_WEIGHT), (&q.synonyms, SYNONYM_WEIGHT)] {
        for &i in stand_ins {
            let f = u.freq(i);
            if f > 0 {
                return (f as f64, w);
            }
        }
    }
    (0.0, 0.0)
}

/// A passage's BM25 (per concept, its best alternative) and its coverage of the concepts.
fn unit_match(u: &Unit, qconcepts: &[QConcept], avgdl: f64) -> (f64, f64) {
    let mut bm25 = 0.0;
    let mut covered = 0.0;
    let mut total = 0.0;
    for c in qconcepts {
        let cw = concept_weight(c);
        total += cw;
        let mut c_best = 0.0f64;
        let mut c_cov = 0.0f64;
        for (alt, w, exact) in c {
            let norm = 1.0 / (alt.len() as f64).sqrt();
            let mut s = 0.0;
            let (mut have, mut all) = (0.0, 0.0);
            for t in alt {
                let (f, fw) = tf_of(u, t);
                all += t.idf;
                if f > 0.0 {
                    have += t.idf * fw;
                    s += fw * t.idf * (f * (K1 + 1.0)) / (f + K1 * (1.0 - B + B * u.len as f64 / avgdl));
                }
            }
            c_best = c_best.max(s * norm * w);
            if all > 0.0 && !(*exact && have < all) {
                c_cov = c_cov.max(have / all * w.max(ALTERNATIVE_COVERAGE_FLOOR));
            }
        }
        bm25 += c_best;
        covered += cw * c_cov;
    }
    // A question of filters only ("what happened last week") has no words to cover: what the
    // source returned through its filters answers it in full.
    let coverage = if total > 0.0 { covered / total } else { 1.0 };
    (bm25, coverage)
}

/// Weight of a match through a synonym stand-in (WordNet): a synonym or translation covers a
/// concept this much of what the word itself would (`ALTERNATIVE_COVERAGE_FLOOR`).
const SYNONYM_WEIGHT: f64 = ALTERNATIVE_COVERAGE_FLOOR;
/// The pool's words are read from this many hits, those with the most of the question's words.
const SYNONYM_HITS: usize = 40;

/// The words of the question that stand-ins are looked for: of each concept `sought` accepts
/// and no passage has in any alternative (`present`: whether the pool has a word), the words
/// of its first alternative the pool lacks, as (index term, the word as the question writes
/// it), once each and in the question's order, those `wanted` accepts (given both forms).
fn absent_question_words(
    cx: &RankContext,
    present: impl Fn(&str) -> bool,
    sought: impl Fn(&Concept) -> bool,
    wanted: impl Fn(&str, &str) -> bool,
) -> Vec<(String, String)> {
    let mut absent: Vec<&str> = Vec::new();
    for c in cx.analysis.concepts.iter().filter(|c| sought(c)) {
        if c.alternatives
            .iter()
            .any(|(alt, _)| !alt.is_empty() && alt.iter().all(|t| present(t)))
        {
            continue;
        }
        if let Some((alt, _)) = c.alternatives.first() {
            absent.extend(alt.iter().map(String::as_str).filter(|t| !present(t)));
        }
    }
    let mut asked: Vec<(String, String)> = Vec::new();
    if absent.is_empty() {
        return asked;
    }
    let norm = text::normalize(&cx.analysis.question);
    text::for_each_token(&cx.analysis.question, |t, s, e| {
        if absent.contains(&t)
            && !asked.iter().any(|(a, _)| a == t)
            && let Some(w) = norm.get(s..e)
            && wanted(t, w)
        {
            asked.push((t.to_string(), w.to_string()));
        }
    });
    asked
}

/// The index terms of the question's concepts (their first alternatives) that the language's
/// word lists know (`Concept::specificity` under 1): words, not names.
fn listed_words(analysis: &Analysis) -> FxHashSet<&str> {
    analysis
        .concepts
        .iter()
        .filter(|c| c.specificity < 1.0)
        .filter_map(|c| c.alternatives.first())
        .flat_map(|(alt, _)| alt.iter().map(String::as_str))
        .collect()
}

/// Stand-ins by synonymy for the question's own English words (a concept's first alternative)
/// of concepts that no passage has in any alternative or typo stand-in: the words of the
/// `SYNONYM_HITS` hits with the most of the question's other words that WordNet gives as its
/// synonyms ("typeface" for a page that says "font", "closure" for one that says "closing"),
/// or, for a question word that is mostly a noun and no name, the pool's nouns that WordNet
/// gives as kinds of it (`WordNet::narrower`: "budget" for "money", "alerts" for "warnings"):
/// evidence about a kind of the thing speaks of the thing. The hits that have the question's
/// other words are where its subject is written: a synonym found there is the sense meant.
/// Each asked word with its stand-ins and whether any is a synonym (else all are kinds).
fn synonym_stand_ins(
    hits: &[Hit],
    units: &[Unit],
    terms: &mut QueryTerms,
    df: &[u32],
    fuzzy_of: &FxHashMap<String, Vec<u32>>,
    cx: &RankContext,
    wordnet: &crate::text::wordnet::WordNet,
) -> Vec<(String, Vec<u32>, bool)> {
    let present = |t: &str| {
        fuzzy_of.contains_key(t)
            || terms
                .get(t)
                .is_some_and(|&i| df.get(i as usize).is_some_and(|&d| d > 0))
    };
    let asked = absent_question_words(
        cx,
        present,
        |_| true,
        |t, w| t.len() >= 3 && t.bytes().all(|b| b.is_ascii_lowercase()) && wordnet.knows(w),
    );
    if asked.is_empty() {
        return Vec::new();
    }
    let ranked = hits_by_question_words(units, df);
    let mut found: Vec<(String, Vec<u32>, bool)> = asked.iter().map(|(t, _)| (t.clone(), Vec::new(), false)).collect();
    // Each asked word's senses, looked up once for all the pool's words.
    // Only a word the word lists know is stood in for by kinds of it, not a name ("the
    // Warnings dashboard").
    let listed = listed_words(cx.analysis);
    // Per asked word: its first senses, and those of them that kinds are looked for under.
    let asked_senses: Vec<(&str, Vec<crate::text::wordnet::Synset>, Vec<u32>)> = asked
        .iter()
        .map(|(t, w)| {
            let senses = wordnet.first_senses(w);
            let general = if listed.contains(t.as_str()) && wordnet.mostly_noun(w) {
                wordnet.general_senses(&senses)
            } else {
                Vec::new()
            };
            (w.as_str(), senses, general)
        })
        .collect();
    let mut seen: FxHashSet<String> = FxHashSet::default();
    for &h in ranked.iter().take(SYNONYM_HITS) {
        let hit = &hits[h];
        for part in [hit.title.as_str(), hit.text.as_str()] {
            let norm = text::normalize(part);
            text::for_each_token(part, |t, s, e| {
                if terms.contains_key(t) || !t.bytes().all(|b| b.is_ascii_lowercase()) {
                    return;
                }
                let Some(w) = norm.get(s..e) else { return };
                if !seen.insert(w.to_string()) {
                    return;
                }
                let theirs = wordnet.first_senses(w);
                let noun = std::cell::OnceCell::new();
                for ((a, mine, general), (_, ids, synonym)) in asked_senses.iter().zip(found.iter_mut()) {
                    if *a == w {
                        continue;
                    }
                    if crate::text::wordnet::share(mine, &theirs) {
                        ids.push(term_id(terms, t));
                        *synonym = true;
                    } else if !general.is_empty()
                        && *noun.get_or_init(|| wordnet.mostly_noun(w))
                        && wordnet.below(&theirs, general)
                    {
                        ids.push(term_id(terms, t));
                    }
                }
            });
        }
    }
    found.retain(|(_, ids, _)| !ids.is_empty());
    found
}

/// `StandIn::why` of a stand-in by meaning ...
const MEANING: &str = "meaning";
/// ... and of one that is a kind of the question word (`WordNet::narrower`).
const KIND: &str = "kind";
/// The best evidence's words are read from this many hits, those with the most of the
/// question's words (as `SYNONYM_HITS`, fewer: each word is encoded).
const MEANING_HITS: usize = 12;
/// At most this many distinct words of those hits are compared.
const MEANING_WORDS: usize = 400;
/// A word of the evidence stands in for a question word when the encoder's cosine of the two
/// words alone is at least this. A word and its near-synonym sit above it ("warnings" and
/// "alerts" 0.82, "smallest" and "minimum" 0.71); two databases (0.3), two cities (0.5 to 0.6)
/// and a word and a looser paraphrase ("charities" and "nonprofit", 0.60) below. Two weekdays
/// (0.9) are kept apart by WordNet (`WordNet::coordinate`).
const MEANING_MIN: f32 = 0.7;
/// Stand-ins kept per question word, the nearest first.
const MEANING_PER_WORD: usize = 2;

/// Stand-ins by meaning for the question's words that no passage has, in any alternative or
/// other stand-in (`stood`): the words of the `MEANING_HITS` hits with the most of the
/// question's other words whose encoder vector is nearest the question word's, at
/// `MEANING_MIN` or above. It bridges what no word list pairs: "alerts" for "warnings", another
/// Japanese word for the same thing (受付時間 for 対応時間). Only words the word lists know and
/// that are not everyday are looked for (`Concept::specificity` in [`EVERYDAY_BELOW`, 1)), and
/// only by words that are not everyday either: a name or a rare term no source has is the
/// question's subject, absent, and the encoder puts names of one kind close together; an
/// everyday word no source has is the asker's phrasing, and an everyday word ("get") is near
/// many.
fn meaning_stand_ins(
    hits: &[Hit],
    units: &[Unit],
    terms: &mut QueryTerms,
    df: &[u32],
    stood: &FxHashSet<&str>,
    cx: &RankContext,
    encoder: &Encoder,
) -> Vec<(String, Vec<u32>)> {
    let present = |t: &str| {
        stood.contains(t)
            || terms
                .get(t)
                .is_some_and(|&i| df.get(i as usize).is_some_and(|&d| d > 0))
    };
    let asked = absent_question_words(
        cx,
        present,
        |c| (EVERYDAY_BELOW..1.0).contains(&c.specificity) && !c.function_word,
        |_, _| true,
    );
    if asked.is_empty() {
        return Vec::new();
    }
    let ranked = hits_by_question_words(units, df);
    // Their words (index term, as written): words of letters or Japanese, not numbers or codes.
    let mut words: Vec<(String, String)> = Vec::new();
    let mut seen: FxHashSet<String> = FxHashSet::default();
    'hits: for &h in ranked.iter().take(MEANING_HITS) {
        let hit = &hits[h];
        for part in [hit.title.as_str(), hit.text.as_str()] {
            let norm = text::normalize(part);
            let mut full = false;
            text::for_each_token(part, |t, s, e| {
                if full || terms.contains_key(t) {
                    return;
                }
                let Some(w) = norm.get(s..e) else { return };
                let wordlike = if text::is_japanese(w) {
                    w.chars().count() >= 2
                } else {
                    w.len() >= 3 && w.bytes().all(|b| b.is_ascii_lowercase())
                };
                // A word that names a thing is stood in for by one that does: an everyday word
                // ("get", "least") is near in meaning to many.
                let wordlike = wordlike && text::wordfreq::specificity(w).is_none_or(|s| s >= EVERYDAY_BELOW);
                if wordlike && seen.insert(w.to_string()) {
                    words.push((t.to_string(), w.to_string()));
                    full = words.len() >= MEANING_WORDS;
                }
            });
            if full {
                break 'hits;
            }
        }
    }
    if words.is_empty() {
        return Vec::new();
    }
    let mine = encoder.encode_words(&asked.iter().map(|(_, w)| w.as_str()).collect::<Vec<_>>());
    let theirs = encoder.encode_words(&words.iter().map(|(_, w)| w.as_str()).collect::<Vec<_>>());
    let mut classes: Vec<Option<u8>> = vec![None; words.len()];
    let wordnet = text::wordnet::wordnet();
    let mut found = Vec::new();
    for ((t, w), v) in asked.iter().zip(&mine) {
        let class = word_class(t, w);
        let english = in_english(w);
        let mut near: Vec<(f32, usize)> = theirs
            .iter()
            .enumerate()
            .map(|(i, x)| (text::encoder::cosine(v, x), i))
            .filter(|(c, _)| *c >= MEANING_MIN)
            .filter(|&(_, i)| {
                let theirs = *classes[i].get_or_insert_with(|| word_class(&words[i].0, &words[i].1).unwrap_or(0));
                if text::is_japanese(w) != text::is_japanese(&words[i].1) {
                    // Across the languages only nouns: a Japanese verb is written inflected,
                    // and an English noun is often a verb too ("steps").
                    let (ja, en) = if text::is_japanese(w) {
                        (class.unwrap_or(0), theirs)
                    } else {
                        (theirs, class.unwrap_or(0))
                    };
                    ja == text::wordnet::NOUN && en & text::wordnet::NOUN != 0
                } else {
                    class.is_none_or(|c| theirs == 0 || c & theirs != 0)
                }
            })
            .collect();
        near.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        // Two kinds of one thing (two weekdays, two languages) are near in meaning and are not
        // each other.
        if let Some(wn) = wordnet {
            near.retain(|&(_, i)| {
                let theirs = in_english(&words[i].1);
                !english.iter().any(|a| theirs.iter().any(|b| wn.coordinate(a, b)))
            });
        }
        // Two spellings of one word ("alert", "alerts") are one index term.
        let mut ids: Vec<u32> = Vec::new();
        for &(_, i) in &near {
            let id = term_id(terms, &words[i].0);
            if !ids.contains(&id) {
                ids.push(id);
            }
            if ids.len() == MEANING_PER_WORD {
                break;
            }
        }
        if !ids.is_empty() {
            found.push((t.clone(), ids));
        }
    }
    found
}

/// A word's parts of speech as `WordNet::parts_of_speech` bits: an English word's from WordNet,
/// a Japanese word's from IPADIC (nouns, or a verb or adjective); `None` when neither knows it.
/// A stand-in by meaning is the same part of speech as the word: the encoder puts "acquisition"
/// near "accept" and "get".
/// `term` is the index term (a Japanese word's base form), `word` the word as written.
fn word_class(term: &str, word: &str) -> Option<u8> {
    use crate::text::morph::Class;
    use crate::text::wordnet::{ADJECTIVE, NOUN, VERB};
    if text::is_japanese(term) {
        let m = text::morph::analyse(term)?;
        if m.iter().any(|m| m.class == Class::Word) {
            Some(VERB | ADJECTIVE)
        } else if m.iter().any(|m| m.class == Class::Noun) {
            Some(NOUN)
        } else {
            None
        }
    } else {
        let bits = text::wordnet::wordnet()?.parts_of_speech(word);
        (bits != 0).then_some(bits)
    }
}

/// Translations into English a word is looked up in WordNet by: itself, or a Japanese word's
/// first JMdict glosses of one word.
fn in_english(word: &str) -> Vec<String> {
    if !text::is_japanese(word) {
        return vec![word.to_string()];
    }
    text::jmdict::dictionary()
        .map(|d| {
            d.to_english(word)
                .into_iter()
                .map(|t| t.text.to_lowercase())
                .filter(|t| !t.contains(' '))
                .take(2)
                .collect()
        })
        .unwrap_or_default()
}

/// The question's analysis with the stand-ins ranking found by meaning or as kinds (`StandIn`,
/// "meaning" and "kind") as further alternatives of their concepts, weighing as a synonym does: what reads the evidence
/// after ranking (the verdict, sentence choice) then finds "minimum" where the question says
/// "smallest". `None` when there are none.
pub fn with_meanings(analysis: &Analysis, stand_ins: &[StandIn]) -> Option<Analysis> {
    let meanings: Vec<&StandIn> = stand_ins.iter().filter(|s| s.why == MEANING || s.why == KIND).collect();
    if meanings.is_empty() {
        return None;
    }
    let mut widened = analysis.clone();
    for c in &mut widened.concepts {
        let Some((first, _)) = c.alternatives.first().cloned() else {
            continue;
        };
        for s in &meanings {
            if !first.contains(&s.asked) {
                continue;
            }
            let alt: Vec<String> = first
                .iter()
                .map(|t| if *t == s.asked { s.word.clone() } else { t.clone() })
                .collect();
            if !c.alternatives.iter().any(|(a, _)| *a == alt) {
                c.alternatives.push((alt, SYNONYM_WEIGHT));
            }
        }
    }
    Some(widened)
}

/// The hits that have any of the question's words the pool has, those with the most (in their
/// best passage) first: where the question's subject is written, and a word standing in for
/// one it lacks is read in the sense meant.
fn hits_by_question_words(units: &[Unit], df: &[u32]) -> Vec<usize> {
    let mut per_hit: FxHashMap<usize, usize> = FxHashMap::default();
    for u in units {
        let n =
            u.tf.iter()
                .filter(|(id, _)| df.get(*id as usize).is_some_and(|&d| d > 0))
                .count();
        let e = per_hit.entry(u.hit).or_default();
        *e = (*e).max(n);
    }
    let mut ranked: Vec<(usize, usize)> = per_hit.into_iter().filter(|(_, n)| *n > 0).collect();
    ranked.sort_by_key(|&(h, n)| (std::cmp::Reverse(n), h));
    ranked.into_iter().map(|(h, _)| h).collect()
}

/// How many passages have each term.
fn document_frequencies(units: &[Unit], n_terms: usize) -> Vec<u32> {
    let mut df: Vec<u32> = vec![0; n_terms];
    for u in units {
        for &(id, _) in &u.tf {
            df[id as usize] += 1;
        }
    }
    df
}

/// The policy's weights and half-life as this question uses them: "the last incident" and
/// "recent talks" shift weight to recency.
fn effective_weights(cx: &RankContext) -> (Weights, f64) {
    let mut w = cx.policy.weights;
    if cx.encoder.is_none() {
        w = w.lexical();
    }
    let mut half_life = cx.policy.half_life_days;
    if cx.analysis.latest {
        // "the last incident" asks for the newest occurrence: recency decides among matching
        // evidence, on a scale of weeks, and a page's authority says it is official, not that it
        // reports the latest occurrence, so its weight goes to recency too.
        half_life = half_life.min(RECENT_HALF_LIFE_DAYS);
        w.freshness += w.authority;
        w.authority = 0.0;
    }
    if cx.analysis.prefer_recent {
        // "recent pricing talks": recency counts at least this much among matching evidence.
        if w.freshness < RECENT_FRESHNESS_WEIGHT {
            let rest = 1.0 - w.freshness;
            let scale = (1.0 - RECENT_FRESHNESS_WEIGHT) / rest.max(1e-9);
            w.keyword *= scale;
            w.completeness *= scale;
            w.semantic *= scale;
            w.freshness = RECENT_FRESHNESS_WEIGHT;
        }
    }
    (w, half_life)
}

/// A matching hit's factors and score, before it becomes `Evidence`.
struct Scored {
    idx: usize,
    range: (usize, usize),
    keyword: f64,
    fresh: f64,
    authority: f64,
    auth_note: Option<&'static str>,
    completeness: f64,
    semantic: f64,
    coverage: f64,
    gate: f64,
    source_weight: f64,
    score: f64,
}

/// How many of the best-scoring hits the encoder reads: the semantic factor reorders the
/// head of the ranking, where answers are chosen; encoding the whole pool would cost seconds.
/// 24 ranks both demo sets exactly as 40 did, in about half the time.
const SEMANTIC_POOL: usize = 24;
/// Cosines at or below this are no similarity at all (unrelated texts of the encoder sit
/// around 0.0 to 0.2); the rest maps linearly onto 0..1, as the tool catalog maps them. (A
/// narrower map, 0.2..0.6, with a smaller weight ranked the demo set no better.)
const SEMANTIC_FLOOR: f64 = 0.2;
/// The longest text of a passage the encoder reads (bytes; cut at a character boundary): a
/// passage's meaning is in its first sentences, and the cost grows with its length (600 and
/// 1,200 rank both demo sets alike).
const SEMANTIC_TEXT_MAX: usize = 600;

/// The text the encoder reads for a hit: its title (not a chat message's, which is its
/// channel) and the scored passage.
fn semantic_text(h: &Hit, range: (usize, usize)) -> String {
    let passage = h.text.get(range.0..range.1).unwrap_or(&h.text);
    let mut t = String::new();
    if h.kind != EvidenceKind::Chat && !h.title.is_empty() && !passage.contains(h.title.as_str()) {
        t.push_str(&h.title);
        t.push_str(". ");
    }
    t.push_str(passage);
    if t.len() > SEMANTIC_TEXT_MAX {
        let mut end = SEMANTIC_TEXT_MAX;
        while !t.is_char_boundary(end) {
            end -= 1;
        }
        t.truncate(end);
    }
    t
}

/// Adds the semantic factor to the best `SEMANTIC_POOL` of `scored`: the encoder's cosine of
/// the question and each passage, past `SEMANTIC_FLOOR`, weighted and scaled by the source's
/// weight like the other factors. Hits below the pool keep 0: they were behind before and stay
/// behind, since the factor only adds.
fn add_semantic(scored: &mut [Scored], hits: &[Hit], cx: &RankContext, encoder: &Encoder, weight: f64) {
    let question = cx.analysis.question.trim();
    if question.is_empty() || scored.is_empty() {
        return;
    }
    let n = scored.len().min(SEMANTIC_POOL);
    if scored.len() > n {
        scored.select_nth_unstable_by(n, |a, b| b.score.total_cmp(&a.score).then(a.idx.cmp(&b.idx)));
    }
    let texts: Vec<String> = scored[..n]
        .iter()
        .map(|s| semantic_text(&hits[s.idx], s.range))
        .collect();
    let q = cx.analysis.vector_by(encoder);
    let vectors = encoder.encode_all(&texts);
    for (s, v) in scored[..n].iter_mut().zip(&vectors) {
        let c = f64::from(text::encoder::cosine(&q, v));
        s.semantic = ((c - SEMANTIC_FLOOR) / (1.0 - SEMANTIC_FLOOR)).clamp(0.0, 1.0);
        s.score += weight * s.semantic * s.source_weight;
    }
}

/// Scores every hit that matches (with `words`, a hit must share one with the question; without,
/// every hit came through the filters alone and stays).
fn score_hits(
    hits: &[Hit],
    best: &[Option<(&Unit, f64, f64)>],
    cx: &RankContext,
    w: Weights,
    half_life: f64,
    words: bool,
) -> Vec<Scored> {
    let max_bm25 = best.iter().flatten().map(|b| b.1).fold(0.0, f64::max);
    let max_tool_native = hits
        .iter()
        .filter(|h| h.kind == EvidenceKind::Tool)
        .filter_map(|h| h.native_score)
        .fold(0.0, f64::max)
        .min(1.0);
    // The catalog also finds tools by meaning: a tool it scored stays though it shares no word
    // with the question ("exchange rate" for a tool that converts currencies) when tools are all
    // the evidence there is, and when a tool is asked for among other evidence if the catalog
    // scores it a close match (`MEANING_ONLY_MIN`). Otherwise a tool near only in meaning is
    // noise ("the status of X" near a tool that changes a ticket's status).
    let only_tools = hits.iter().all(|h| h.kind == EvidenceKind::Tool);
    let meaning_min = match (only_tools, cx.analysis.tool_question) {
        (true, _) => Some(f64::MIN_POSITIVE),
        (false, true) => Some(MEANING_ONLY_MIN),
        (false, false) => None,
    };
    let mut scored: Vec<Scored> = Vec::new();
    // The policy's weight of each source, looked up once per source.
    let mut source_weights: FxHashMap<&str, f64> = FxHashMap::default();
    for (idx, (h, b)) in hits.iter().zip(best).enumerate() {
        let Some((u, bm25, coverage)) = *b else { continue };
        let tool = h.kind == EvidenceKind::Tool;
        let found_by_catalog = tool && meaning_min.is_some_and(|min| h.native_score.is_some_and(|s| s >= min));
        if bm25 <= 0.0 && words && !found_by_catalog {
            continue;
        }
        let mut keyword = if max_bm25 > 0.0 { bm25 / max_bm25 } else { 0.0 };
        if tool && let Some(native) = h.native_score {
            // The catalog ranks over every tool, so its term statistics are better than this
            // pool's: its score (0..1, comparable across queries) counts most.
            keyword = (1.0 - CATALOG_SCORE_SHARE) * keyword
                + CATALOG_SCORE_SHARE * native.clamp(0.0, 1.0) / max_tool_native.max(1e-9);
        }
        // A tool in the catalog is current by definition: it is listed now.
        let fresh = if tool {
            1.0
        } else {
            freshness(h.timestamp, cx.now, half_life)
        };
        let mut source_weight = *source_weights.entry(h.source.as_str()).or_insert_with(|| {
            let kind = cx.source_kinds.get(&h.source).map(String::as_str).unwrap_or("");
            cx.policy.source_pref(&h.source, kind).weight
        });
        let mut authority = cx.policy.authority_of(h.kind);
        let mut auth_note = None;
        if cx.analysis.tool_question && tool {
            authority = 1.0;
            auth_note = Some("tool question: the catalog is the authority");
            source_weight = 1.0;
        } else if u.conclusion {
            authority = (authority + cx.policy.conclusion_bonus).min(1.0);
            auth_note = Some("thread conclusion");
        }
        // How well a tool matches: this pool's coverage of the question, blended with the
        // catalog's own score (its statistics cover every tool, the pool's only the tools it
        // returned). A tool's description is as long as its author made it: length says nothing.
        let tool_match = (1.0 - CATALOG_MATCH_SHARE) * coverage + CATALOG_MATCH_SHARE * keyword;
        let completeness = if tool {
            tool_match
        } else {
            COMPLETENESS_COVERAGE_SHARE * coverage + COMPLETENESS_LENGTH_SHARE * u.length
        };
        // Freshness and authority count in proportion to how well the evidence matches: a fresh
        // or official item that barely touches the question must not outrank the answer.
        let gate = match (cx.policy.relevance_gate, tool) {
            (false, _) => 1.0,
            (true, true) => tool_match,
            (true, false) => coverage,
        };
        let raw = w.keyword * keyword
            + (w.freshness * fresh + w.authority * authority) * gate
            + w.completeness * completeness;
        scored.push(Scored {
            idx,
            range: u.range,
            keyword,
            fresh,
            authority,
            auth_note,
            completeness,
            semantic: 0.0,
            coverage,
            gate,
            source_weight,
            score: raw * source_weight,
        });
    }
    scored
}

/// The `limit` best of `scored` as evidence, in the documented total order: score (descending),
/// then source name, then hit id (then the position in the pool, for a source that returned one
/// hit twice); with the pool, emptied of the hits taken.
fn into_evidence(
    mut hits: Vec<Hit>,
    mut scored: Vec<Scored>,
    limit: usize,
    cx: &RankContext,
    w: Weights,
) -> (Vec<Evidence>, Vec<Hit>) {
    let order = |x: &Scored, y: &Scored| {
        let (a, b) = (&hits[x.idx], &hits[y.idx]);
        y.score
            .total_cmp(&x.score)
            .then_with(|| a.source.cmp(&b.source))
            .then_with(|| a.id.cmp(&b.id))
            .then(x.idx.cmp(&y.idx))
    };
    if scored.len() > limit {
        scored.select_nth_unstable_by(limit, order);
        scored.truncate(limit);
    }
    scored.sort_unstable_by(order);
    let mut out: Vec<Evidence> = Vec::with_capacity(scored.len());
    for s in &scored {
        // An empty hit allocates nothing; it is dropped with the pool.
        let h = std::mem::take(&mut hits[s.idx]);
        let age_days = h.timestamp.map(|t| (cx.now - t).num_days().max(0));
        out.push(Evidence {
            hit: h,
            passage: s.range,
            keyword: s.keyword,
            freshness: s.fresh,
            authority: s.authority,
            completeness: s.completeness,
            semantic: s.semantic,
            coverage: s.coverage,
            score: s.score,
            why: Why {
                weights: w,
                source_weight: s.source_weight,
                auth_note: s.auth_note,
                age_days,
                intent: cx.policy.intent,
                gate: s.gate,
            },
        });
    }
    (out, hits)
}

pub(crate) fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The distinct tokens of a text.
/// The tokens of a text, and the terms of the values it states (`Value::term`) when the
/// question states one (`values`).
fn token_set(text_: &str, values: bool, bounded: &[String]) -> FxHashSet<String> {
    let mut toks: FxHashSet<String> = FxHashSet::default();
    text::for_each_token(text_, |t, _, _| {
        if !toks.contains(t) {
            toks.insert(t.to_string());
        }
    });
    if values {
        toks.extend(text::values::terms_for(text_, bounded));
    }
    toks
}

/// Whether the question states a value that ranking matches in any spelling.
fn states_value(analysis: &Analysis) -> bool {
    analysis.concepts.iter().any(crate::pipeline::query::Concept::is_value)
}

/// The value terms of the quantities the question states as they are ("can I give 25% off"),
/// which a bound in a text takes in (`values::terms_for`: "discounts above 20% need the CFO").
/// None when the question bounds its quantity itself (`Analysis::bound`: "who approves
/// discounts above 25%"): a threshold of its own is matched as written. (`values::bound` does
/// not read "within" as a bound, so a question "within 15 minutes" is still taken in by a
/// text's "within 30 minutes".)
pub(crate) fn bounded_values(analysis: &Analysis) -> Vec<String> {
    if analysis.bound.is_some() {
        return Vec::new();
    }
    analysis
        .concepts
        .iter()
        .flat_map(|c| c.alternatives.iter().flat_map(|(alt, _)| alt.iter()))
        .filter(|t| t.starts_with(text::values::VALUE_TERM_MARK))
        .cloned()
        .collect()
}

/// How many of the question's concepts `text` covers (for choosing answer sentences).
pub fn covered_concepts(text_: &str, analysis: &Analysis) -> usize {
    which_concepts(text_, analysis).iter().filter(|c| **c).count()
}

/// Which of the question's concepts (in `analysis.concepts` order) a text covers, as
/// `covered_concepts` counts them.
pub fn which_concepts(text_: &str, analysis: &Analysis) -> Vec<bool> {
    let toks = token_set(text_, states_value(analysis), &bounded_values(analysis));
    analysis
        .concepts
        .iter()
        .map(|c| {
            c.alternatives
                .iter()
                .any(|(alt, _)| alt.iter().all(|t| toks.contains(t)))
        })
        .collect()
}

/// How much of each concept a text has (in `analysis.concepts` order): its best alternative's
/// share of words present, a synonym or translation counting at least
/// `ALTERNATIVE_COVERAGE_FLOOR` (as coverage counts it; without fuzzy stand-ins).
pub fn concept_matches(text_: &str, analysis: &Analysis) -> Vec<f64> {
    let toks = token_set(text_, states_value(analysis), &bounded_values(analysis));
    analysis
        .concepts
        .iter()
        .map(|c| {
            c.alternatives
                .iter()
                .filter(|(alt, _)| !alt.is_empty())
                .map(|(alt, w)| {
                    let have = alt.iter().filter(|t| toks.contains(*t)).count() as f64 / alt.len() as f64;
                    have * w.clamp(ALTERNATIVE_COVERAGE_FLOOR, 1.0)
                })
                .fold(0.0, f64::max)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::policy::{Intent, Policies};

    fn policies() -> Policies {
        Policies::load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("policies"), &[]).unwrap()
    }

    fn hit(source: &str, native: &str, kind: EvidenceKind, text: &str, date: &str) -> Hit {
        let mut h = Hit::new(source, native, kind, text);
        h.timestamp = Some(format!("{date}T00:00:00Z").parse().unwrap());
        h
    }

    /// `f` of the ranking context of question `q` asked with `intent` on the demo's clock.
    fn in_context<R>(q: &str, intent: Intent, f: impl FnOnce(&RankContext) -> R) -> R {
        in_context_with(q, intent, |_| {}, f)
    }

    /// `in_context`, with the question's analysis changed by `adjust` first.
    fn in_context_with<R>(
        q: &str,
        intent: Intent,
        adjust: impl FnOnce(&mut Analysis),
        f: impl FnOnce(&RankContext) -> R,
    ) -> R {
        let p = policies();
        let now: DateTime<Utc> = "2026-11-20T09:00:00Z".parse().unwrap();
        let mut a = crate::pipeline::query::analyze(q, now, &p.lexicon);
        adjust(&mut a);
        let kinds: HashMap<String, String> = [("slack", "slack"), ("notion", "notion"), ("rc", "rocketchat")]
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        f(&RankContext {
            analysis: &a,
            policy: p.get(intent),
            lexicon: &p.lexicon,
            now,
            source_kinds: &kinds,
            encoder: None,
        })
    }

    fn ranked(q: &str, intent: Intent, hits: Vec<Hit>) -> Vec<Evidence> {
        in_context(q, intent, |cx| rank(hits, cx))
    }

    #[test]
    fn an_everyday_word_no_source_has_costs_less_coverage_than_a_rare_one() {
        let hits = || {
            vec![
                hit(
                    "slack",
                    "c/1",
                    EvidenceKind::Chat,
                    "The forklift battery swap takes 20 minutes.",
                    "2026-11-01",
                ),
                hit(
                    "slack",
                    "c/2",
                    EvidenceKind::Chat,
                    "Lunch is at noon on Friday.",
                    "2026-11-01",
                ),
            ]
        };
        // "rundown" is in no passage; how much that costs depends on how specific the word is.
        let coverage_with = |specificity: f64| {
            let absent = text::terms("rundown");
            let adjust = |a: &mut Analysis| {
                for c in a.concepts.iter_mut() {
                    c.specificity = if c.alternatives[0].0 == absent {
                        specificity
                    } else {
                        1.0
                    };
                }
            };
            in_context_with("rundown of the forklift battery swap", Intent::Factual, adjust, |cx| {
                let (ranked, weights) = rank_top_weighed(hits(), cx, 10);
                assert!(weights.iter().any(|w| !w.in_pool), "{weights:?}");
                // The pool was found by the question's words: a word it lacks weighs at most as
                // its rarest present one, however rare its absence makes it there.
                let present = weights
                    .iter()
                    .filter(|w| w.in_pool)
                    .map(|w| w.weight)
                    .fold(0.0, f64::max);
                for w in weights.iter().filter(|w| !w.in_pool) {
                    assert!(w.weight <= present + 1e-9 && w.full > w.weight, "{weights:?}");
                }
                (ranked[0].hit.id.clone(), ranked[0].coverage)
            })
        };
        let (rare_top, rare) = coverage_with(1.0);
        let (everyday_top, everyday) = coverage_with(0.1);
        assert!(rare_top.ends_with("c/1"), "{rare_top}");
        assert_eq!(everyday_top, rare_top, "the ranking itself does not change");
        assert!(everyday > rare + 0.1, "{everyday} vs {rare}");
    }

    #[test]
    fn the_subject_every_passage_shares_outweighs_an_everyday_word() {
        // Written for this test: the pool was found by the subject ("forklift fleet"), so nearly
        // every passage has it and its pool IDF is low; "finish" is the asker's everyday word,
        // which one passage without the subject happens to use.
        let hits = vec![
            hit(
                "slack",
                "c/1",
                EvidenceKind::Chat,
                "The forklift fleet rollout ends on 3 March.",
                "2026-11-01",
            ),
            hit(
                "slack",
                "c/2",
                EvidenceKind::Chat,
                "Painting will finish before the rollout of the new desks.",
                "2026-11-01",
            ),
            hit(
                "slack",
                "c/3",
                EvidenceKind::Chat,
                "Forklift fleet batteries are charged overnight.",
                "2026-11-01",
            ),
            hit(
                "slack",
                "c/4",
                EvidenceKind::Chat,
                "Forklift fleet training is on Tuesday.",
                "2026-11-01",
            ),
            hit(
                "slack",
                "c/5",
                EvidenceKind::Chat,
                "The forklift fleet has a new parking bay.",
                "2026-11-01",
            ),
        ];
        let everyday = text::terms("finish");
        let adjust = |a: &mut Analysis| {
            for c in a.concepts.iter_mut() {
                c.specificity = if c.alternatives[0].0 == everyday { 0.2 } else { 1.0 };
            }
        };
        in_context_with(
            "when will the forklift fleet rollout finish",
            Intent::Temporal,
            adjust,
            |cx| {
                let (ranked, weights) = rank_top_weighed(hits, cx, 10);
                assert!(ranked[0].hit.id.ends_with("c/1"), "{:?}", ranked[0].hit.id);
                // Each specific word the pool has weighs as the rarest one there.
                let top = weights
                    .iter()
                    .filter(|w| w.in_pool)
                    .map(|w| w.weight)
                    .fold(0.0, f64::max);
                let specific: Vec<_> = weights.iter().filter(|w| w.in_pool && w.weight >= top - 1e-9).collect();
                assert!(specific.len() >= 3, "{weights:?}");
            },
        );
    }

    #[test]
    fn a_sense_the_pool_has_only_apart_from_the_rest_of_the_question_weighs_less() {
        in_context("billing incident", Intent::Factual, a_sense_weighs_less_in);
    }

    fn a_sense_weighs_less_in(cx: &RankContext) {
        let a = cx.analysis;
        let hits = vec![
            hit(
                "slack",
                "c/1",
                EvidenceKind::Chat,
                "The billing outage lasted an hour.",
                "2026-11-01",
            ),
            hit(
                "slack",
                "c/2",
                EvidenceKind::Chat,
                "高速道路で事故がありました。",
                "2026-11-01",
            ),
        ];
        let counted = Counted::of(&hits, cx);
        let mut q = counted.question_tokens(&a.concepts);
        counted.weigh_senses(&mut q);
        let weight_of = |word: &str| {
            let toks = text::terms(word);
            a.concepts
                .iter()
                .enumerate()
                .find_map(|(ci, c)| {
                    let ai = c.alternatives.iter().position(|(t, _)| *t == toks)?;
                    Some((c.alternatives[ai].1, q[ci][ai].1))
                })
                .unwrap_or_else(|| panic!("`{word}` is an alternative: {:?}", a.concepts))
        };
        let (outage, outage_now) = weight_of("outage");
        assert_eq!(outage_now, outage, "it meets billing");
        let (accident, accident_now) = weight_of("事故");
        assert_eq!(accident_now, accident * UNMET_SENSE_SHARE, "it never meets billing");
    }

    #[test]
    fn the_later_decision_outranks_the_reversed_one() {
        let r = ranked(
            "What did we decide about the Pro plan price?",
            Intent::Decision,
            vec![
                hit(
                    "slack",
                    "p/1",
                    EvidenceKind::Chat,
                    "Decision: we are raising the Pro plan to $49 per seat.",
                    "2026-09-15",
                ),
                hit(
                    "slack",
                    "p/2",
                    EvidenceKind::Chat,
                    "Final decision: Pro plan price is $45 per seat from November 1.",
                    "2026-10-20",
                ),
                hit("slack", "p/3", EvidenceKind::Chat, "Lunch is at noon", "2026-11-19"),
            ],
        );
        assert_eq!(r.len(), 2, "unrelated hit dropped");
        assert_eq!(r[0].hit.id, "slack:p/2");
        assert!(
            r[0].explain()
                .iter()
                .any(|e| e.factor == "authority" && e.note.as_deref() == Some("thread conclusion"))
        );
    }

    #[test]
    fn japanese_questions_reach_english_evidence_through_the_lexicon() {
        let r = ranked(
            "モバイルv3のリリースはいつ？",
            Intent::Temporal,
            vec![
                hit(
                    "slack",
                    "m/1",
                    EvidenceKind::Chat,
                    "Mobile v3 plan: release on November 24.",
                    "2026-10-01",
                ),
                hit(
                    "slack",
                    "m/2",
                    EvidenceKind::Chat,
                    "The v2 API is deprecated.",
                    "2026-10-01",
                ),
            ],
        );
        assert_eq!(r[0].hit.id, "slack:m/1");
        assert!(r[0].coverage > 0.8, "{}", r[0].coverage);
    }

    #[test]
    fn long_pages_are_scored_by_their_best_passage() {
        let filler = "Unrelated words about brand colors and fonts. ".repeat(30);
        let page = format!(
            "# Guide\n\n{filler}\n\n## Rate limits\nThe public API allows 1,000 requests per minute per token.\n\n{filler}"
        );
        let r = ranked(
            "public API rate limit",
            Intent::Factual,
            vec![hit(
                "notion",
                "0123456789abcdef0123456789abcdef",
                EvidenceKind::Wiki,
                &page,
                "2026-08-20",
            )],
        );
        assert!(
            r[0].passage_text().contains("1,000 requests per minute"),
            "{}",
            r[0].passage_text()
        );
    }

    #[test]
    fn typos_match_by_fuzzy_similarity() {
        let r = ranked(
            "kubernetse upgrade",
            Intent::Status,
            vec![hit(
                "slack",
                "k/1",
                EvidenceKind::Chat,
                "Kubernetes upgrade finished",
                "2026-10-07",
            )],
        );
        assert_eq!(r.len(), 1);
        assert!(r[0].coverage > 0.8, "{}", r[0].coverage);
    }

    #[test]
    fn a_word_the_language_lists_has_no_spelling_stand_in() {
        // Written for this test: "cartoons" is a word of English, not a slip of "cartons".
        let r = ranked(
            "cartoons for the reading corner",
            Intent::Factual,
            vec![hit(
                "slack",
                "h/1",
                EvidenceKind::Chat,
                "The cartons for the reading corner arrived",
                "2026-10-07",
            )],
        );
        let listed = crate::text::wordfreq::specificity("cartoons").is_some_and(|s| s < 1.0);
        // With the word lists (tests/it/language.rs installs them) only "reading corner"
        // matches; without them "cartoons" is read as a slip of "cartons" too.
        assert_eq!(r.len(), 1);
        if listed {
            assert!(r[0].coverage < 0.8, "{}", r[0].coverage);
        } else {
            assert!(r[0].coverage > 0.8, "{}", r[0].coverage);
        }
    }

    #[test]
    fn a_synonym_the_pool_has_stands_in_for_a_question_word_it_lacks() {
        if crate::text::wordnet::wordnet().is_none() {
            eprintln!("SKIPPED: no WordNet in the data directory");
            return;
        }
        let pool = || {
            vec![
                hit(
                    "notion",
                    "0000000000000000000000000000000a",
                    EvidenceKind::Wiki,
                    "Brand guide: the logo font is Inter; posters use Inter too.",
                    "2026-11-01",
                ),
                hit(
                    "slack",
                    "c/2",
                    EvidenceKind::Chat,
                    "The brand refresh ships with the new logo next week.",
                    "2026-11-02",
                ),
            ]
        };
        let (r, w) = in_context("Which typeface does the brand logo use?", Intent::Factual, |cx| {
            rank_top_weighed(pool(), cx, 10)
        });
        let guide = r.iter().find(|e| e.hit.source == "notion").unwrap();
        let refresh = r.iter().find(|e| e.hit.source == "slack").unwrap();
        // "font" counts for "typeface" where the page has the question's other words ...
        assert!(
            guide.coverage > refresh.coverage,
            "{} vs {}",
            guide.coverage,
            refresh.coverage
        );
        assert_eq!(r[0].hit.source, "notion");
        // ... but the word stays one no source has, for the verdict.
        assert!(w.iter().any(|c| !c.in_pool), "{w:?}");
    }

    /// Two Slack messages a day apart (c/1 on 2026-11-01, c/2 on 2026-11-02).
    fn two_chats(first: &str, second: &str) -> Vec<Hit> {
        vec![
            hit("slack", "c/1", EvidenceKind::Chat, first, "2026-11-01"),
            hit("slack", "c/2", EvidenceKind::Chat, second, "2026-11-02"),
        ]
    }

    /// The ranking of `hits` for `q` with the sentence encoder, and the stand-ins found; `None`
    /// (the test is skipped) without the encoder, WordNet or the word lists.
    fn with_encoder(q: &str, hits: Vec<Hit>) -> Option<(Vec<Evidence>, Vec<ConceptWeight>, Vec<StandIn>)> {
        let encoder = crate::text::encoder::shared();
        if encoder.is_none()
            || crate::text::wordnet::wordnet().is_none()
            || crate::text::wordfreq::frequencies().is_none()
        {
            eprintln!("SKIPPED: needs the encoder, WordNet and the word lists in the data directory");
            return None;
        }
        Some(in_context(q, Intent::Factual, |cx| {
            let cx = RankContext { encoder, ..*cx };
            let (r, w, s, _) = rank_top_explained(hits, &cx, 10);
            (r, w, s)
        }))
    }

    #[test]
    fn a_word_of_the_evidence_near_in_meaning_stands_in_for_a_question_word() {
        // Written for this test: no word list or WordNet relation pairs "smallest" with
        // "minimum".
        let pool = two_chats(
            "Wholesale orders have a minimum of 40 crates.",
            "Wholesale orders ship from the Osaka warehouse.",
        );
        let Some((r, w, stand_ins)) = with_encoder("What is the smallest wholesale order?", pool) else {
            return;
        };
        assert!(
            stand_ins
                .iter()
                .any(|s| s.word.starts_with("minimum") && s.why == MEANING),
            "{stand_ins:?}"
        );
        assert_eq!(r[0].hit.id, "slack:c/1", "{r:?}");
        assert!(w.iter().all(|c| c.in_pool), "{w:?}");
    }

    #[test]
    fn a_kind_of_a_question_word_in_the_evidence_stands_in_for_it() {
        // Written for this test: no word list pairs "warnings" with "alerts"; WordNet has an
        // alert as a kind of warning.
        let pool = two_chats(
            "The billing service posts its alerts to #ops-billing.",
            "The billing service moved to the new cluster on Monday.",
        );
        let Some((r, w, stand_ins)) = with_encoder("Where do the billing service's warnings go?", pool) else {
            return;
        };
        assert!(
            stand_ins
                .iter()
                .any(|s| s.asked == "warn" && s.word == "alert" && s.why == KIND),
            "{stand_ins:?}"
        );
        assert_eq!(r[0].hit.id, "slack:c/1", "{r:?}");
        assert!(
            r[0].coverage > r[1].coverage + 0.1,
            "{} vs {}",
            r[0].coverage,
            r[1].coverage
        );
        // The concept counts as one the pool has, for the verdict.
        assert!(w.iter().all(|c| c.in_pool), "{w:?}");
        // The answer's reading of the evidence finds it too.
        let q = in_context("Where do the billing service's warnings go?", Intent::Factual, |cx| {
            with_meanings(cx.analysis, &stand_ins).expect("widened")
        });
        let m = concept_matches("The billing service posts its alerts to #ops-billing.", &q);
        assert!(m.iter().all(|&m| m >= 0.5), "{m:?}");
    }

    #[test]
    fn a_name_no_source_has_gets_no_stand_in_by_meaning() {
        // Written for this test: the question names a dashboard "Warnings"; the pool has another
        // one, though "alerts" stands in for the word "warnings" (the test above), by meaning
        // or as a kind of it.
        let pool = vec![hit(
            "slack",
            "c/1",
            EvidenceKind::Chat,
            "The Alerts dashboard shows the billing service's errors.",
            "2026-11-01",
        )];
        let Some((_, w, stand_ins)) = with_encoder("Who looks after the billing Warnings dashboard?", pool) else {
            return;
        };
        assert!(
            stand_ins.iter().all(|s| s.why != MEANING && s.why != KIND),
            "{stand_ins:?}"
        );
        assert!(w.iter().any(|c| !c.in_pool), "{w:?}");
    }

    #[test]
    fn a_quantity_asked_about_is_covered_by_the_bound_that_takes_it_in() {
        // Written for this test: an approval rule by thresholds, and a message that holds the
        // question's number only inside a time of day.
        let pool = || {
            vec![
                hit(
                    "notion",
                    "p1",
                    EvidenceKind::Page,
                    "Refund approvals: up to 10%: team lead. Refunds above 10%: finance director.",
                    "2026-10-01",
                ),
                hit(
                    "slack",
                    "c/1",
                    EvidenceKind::Chat,
                    "Refund approvals call moved to 14:15.",
                    "2026-11-01",
                ),
            ]
        };
        let q = "Who approves a 15% refund?";
        let top = ranked(q, Intent::Person, pool());
        assert_eq!(top[0].hit.id, "notion:p1", "{top:?}");
        in_context(q, Intent::Person, |cx| {
            let has = which_concepts("Refunds above 10%: finance director.", cx.analysis);
            let value = cx
                .analysis
                .concepts
                .iter()
                .position(crate::pipeline::query::Concept::is_value)
                .unwrap();
            assert!(has[value]);
            assert!(!which_concepts("Refund approvals: up to 10%: team lead.", cx.analysis)[value]);
        });
        // A question that bounds its quantity itself matches thresholds as written.
        in_context("Who approves refunds above 15%?", Intent::Person, |cx| {
            assert!(bounded_values(cx.analysis).is_empty());
        });
    }

    #[test]
    fn where_a_text_lives_counts_as_its_words_where_the_policy_says_so() {
        // Written for this test: a warehouse update in #logistics that never says "logistics",
        // and a message elsewhere that does.
        let pool = || {
            let mut update = hit(
                "slack",
                "logistics/1",
                EvidenceKind::Chat,
                "Osaka warehouse: 3 new forklifts arrived, the night shift starts Monday.",
                "2026-11-10",
            );
            update.location = "#logistics".into();
            let mut other = hit(
                "slack",
                "general/1",
                EvidenceKind::Chat,
                "The Osaka office party is on Friday.",
                "2026-11-10",
            );
            other.location = "#general".into();
            vec![update, other]
        };
        let q = "What's going on with logistics in Osaka?";
        let p = policies();
        assert!(p.get(Intent::Exploratory).location_words);
        assert!(!p.get(Intent::Factual).location_words);
        let top = ranked(q, Intent::Exploratory, pool());
        assert_eq!(top[0].hit.id, "slack:logistics/1", "{top:?}");
        assert!(top[0].coverage > top[1].coverage, "{top:?}");
        // A pointed question's policy reads the texts alone: the channel adds nothing.
        let top = ranked(q, Intent::Factual, pool());
        let update = top.iter().find(|e| e.hit.id == "slack:logistics/1").unwrap();
        let other = top.iter().find(|e| e.hit.id == "slack:general/1").unwrap();
        assert!((update.coverage - other.coverage).abs() < 1e-9, "{top:?}");
    }

    #[test]
    fn another_kind_of_the_same_thing_does_not_stand_in_by_meaning() {
        // Written for this test: the encoder puts two weekdays close together, in either language.
        for (q, text_) in [
            (
                "is the gym closed on wednesday?",
                "The gym is closed on Monday for cleaning.",
            ),
            ("水曜日はジムが休みですか？", "ジムは月曜日が清掃のため休みです。"),
        ] {
            let pool = vec![hit("slack", "c/1", EvidenceKind::Chat, text_, "2026-11-01")];
            let Some((_, _, stand_ins)) = with_encoder(q, pool) else {
                return;
            };
            assert!(stand_ins.iter().all(|s| s.why != MEANING), "{q}: {stand_ins:?}");
        }
    }

    #[test]
    fn a_stand_in_by_meaning_is_the_same_part_of_speech() {
        if !text::morph::available() || crate::text::wordnet::wordnet().is_none() {
            eprintln!("SKIPPED: needs IPADIC and WordNet in the data directory");
            return;
        }
        use crate::text::wordnet::{ADJECTIVE, NOUN, VERB};
        // 取得 ("acquisition") is a noun; 受け付ける ("accept"), which the encoder puts near it,
        // a verb.
        assert_eq!(word_class("取得", "取得"), Some(NOUN));
        assert_eq!(word_class("受け付ける", "受け付け"), Some(VERB | ADJECTIVE));
        let alerts = word_class("alert", "alerts").unwrap();
        assert_ne!(alerts & NOUN, 0);
        assert_eq!(word_class("zzqx", "zzqx"), None);
    }

    #[test]
    fn a_japanese_compound_written_apart_is_in_the_pool() {
        if !text::morph::available() {
            eprintln!("SKIPPED: no IPADIC in the data directory");
            return;
        }
        let weights = |texts: &[&str]| {
            in_context("インボイス対応の担当者", Intent::Person, |cx| {
                let hits = texts
                    .iter()
                    .enumerate()
                    .map(|(i, t)| hit("slack", &format!("c/{i}"), EvidenceKind::Chat, t, "2026-11-01"))
                    .collect();
                let (_, w) = rank_top_weighed(hits, cx, 10);
                let compound = cx
                    .analysis
                    .concepts
                    .iter()
                    .position(|c| c.alternatives[0].0.iter().any(|t| t == "インボイス対応"))
                    .unwrap_or_else(|| panic!("インボイス対応 is a concept: {:?}", cx.analysis.concepts));
                w[compound].in_pool
            })
        };
        assert!(weights(&["インボイス対応は佐藤さんです。"]), "written together");
        assert!(weights(&["インボイスへの対応は佐藤さんです。"]), "its members apart");
        assert!(!weights(&["インボイスは来月からです。"]), "one member only");
    }

    #[test]
    fn ties_break_by_source_then_id() {
        let r = ranked(
            "deploy freeze",
            Intent::Factual,
            vec![
                hit("slack", "b/1", EvidenceKind::Chat, "deploy freeze", "2026-10-01"),
                hit(
                    "notion",
                    "ffffffffffffffffffffffffffffffff",
                    EvidenceKind::Chat,
                    "deploy freeze",
                    "2026-10-01",
                ),
                hit("slack", "a/1", EvidenceKind::Chat, "deploy freeze", "2026-10-01"),
            ],
        );
        let ids: Vec<&str> = r.iter().map(|e| e.hit.id.as_str()).collect();
        assert_eq!(
            ids,
            ["notion:ffffffffffffffffffffffffffffffff", "slack:a/1", "slack:b/1"]
        );
    }
}
