//! The scoring engine: pooled BM25 over every hit returned for a question (CJK-aware tokens,
//! long texts scored passage by passage), fuzzy matching for names and typos, and the policy's
//! factors (keyword, freshness, authority, completeness) fused into one score that explains
//! itself.
//!
//! Invariant: rank does no I/O and reads no clock; `now` is passed in.
//! Invariant: the order is total: score, then source name, then hit id.

use std::collections::{HashMap, HashSet};

use rustc_hash::FxHashMap;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::hit::{EvidenceKind, Hit};
use crate::policy::{Lexicon, Policy};
use crate::query::Analysis;
use crate::text;

/// One factor's part in a score.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// Share of the question's concepts (IDF-weighted) that the best passage covers.
    pub coverage: f64,
    pub score: f64,
    /// What `explain` needs besides the factors.
    pub why: Why,
}

/// The inputs of a score that are not factors: the weights used, the source's weight, and notes.
#[derive(Debug, Clone, PartialEq)]
pub struct Why {
    pub weights: crate::policy::Weights,
    pub source_weight: f64,
    pub auth_note: Option<&'static str>,
    pub age_days: Option<i64>,
    pub intent: crate::policy::Intent,
}

impl Evidence {
    /// The score broken into the policy's factors (built on demand: only citations need it).
    pub fn explain(&self) -> Vec<Explain> {
        let w = self.why.weights;
        let gate = self.coverage;
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
                note: Some("freshness and authority are scaled by coverage".into()),
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

/// A concept of the question: a keyword and its alternatives (synonyms, translations), each
/// alternative as its list of tokens.
#[derive(Debug, Clone)]
struct Concept {
    alternatives: Vec<(Vec<String>, f64)>,
}

/// Everything ranking needs besides the hits.
pub struct RankContext<'a> {
    pub analysis: &'a Analysis,
    pub policy: &'a Policy,
    pub lexicon: &'a Lexicon,
    pub now: DateTime<Utc>,
    /// Source name -> source kind (`slack`, ...), for the policy's source preferences.
    pub source_kinds: &'a HashMap<String, String>,
}

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Weight of a synonym or translation against the word itself.
const EXPANSION_WEIGHT: f64 = 0.6;
/// Weight of a fuzzy (typo or name variant) match.
const FUZZY_WEIGHT: f64 = 0.7;
/// The least weight freshness has when the question asks for the latest of something.
const RECENT_FRESHNESS_WEIGHT: f64 = 0.35;
/// Freshness of evidence with no date.
const UNDATED_FRESHNESS: f64 = 0.3;

fn concepts(a: &Analysis, lexicon: &Lexicon) -> Vec<Concept> {
    let mut words: Vec<String> = a.keywords.clone();
    words.extend(a.phrases.iter().cloned());
    words
        .iter()
        .filter_map(|w| {
            let toks = text::terms(w);
            if toks.is_empty() {
                return None;
            }
            let mut alts = vec![(toks, 1.0)];
            for syn in crate::query::expand(std::slice::from_ref(w), lexicon) {
                let t = text::terms(&syn);
                if !t.is_empty() && !alts.iter().any(|(x, _)| *x == t) {
                    alts.push((t, EXPANSION_WEIGHT));
                }
            }
            Some(Concept { alternatives: alts })
        })
        .collect()
}

/// A scored unit: a hit's passage (or whole short text).
struct Unit {
    hit: usize,
    range: (usize, usize),
    /// (term id, frequency), sorted by term id.
    tf: Vec<(u32, u32)>,
    len: usize,
    /// Adjacent pairs of the question's words that occur here, side by side.
    pairs: Vec<(u32, u32)>,
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

fn scoring_text(h: &Hit, passage: &str, first: bool) -> String {
    let mut s = String::with_capacity(h.title.len() + passage.len() + 64);
    // A chat message's title is cut from its own text: counting it would count words twice.
    if h.kind != EvidenceKind::Chat {
        s.push_str(&h.title);
        s.push(' ');
    }
    s.push_str(passage);
    if first {
        if let Some(a) = &h.author {
            s.push(' ');
            s.push_str(a);
        }
        for (k, v) in &h.properties {
            s.push(' ');
            s.push_str(k);
            s.push(' ');
            s.push_str(v);
        }
    }
    s
}

/// Cuts every hit into scored units and tokenizes them: (hit index, passage range, tokens).
fn tokenize_units(hits: &[Hit]) -> Vec<(usize, (usize, usize), Vec<String>)> {
    let one = |i: usize, h: &Hit| -> Vec<(usize, (usize, usize), Vec<String>)> {
        let ranges = if h.text.chars().count() > 900 {
            text::passages(&h.text)
        } else {
            Vec::new()
        };
        let ranges = if ranges.is_empty() {
            vec![(0, h.text.len())]
        } else {
            ranges
        };
        ranges
            .into_iter()
            .enumerate()
            .map(|(k, r)| (i, r, text::terms(&scoring_text(h, &h.text[r.0..r.1], k == 0))))
            .collect()
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    if hits.len() < 2_000 || threads < 2 {
        return hits.iter().enumerate().flat_map(|(i, h)| one(i, h)).collect();
    }
    let chunk = hits.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = hits
            .chunks(chunk)
            .enumerate()
            .map(|(c, part)| {
                scope.spawn(move || {
                    part.iter()
                        .enumerate()
                        .flat_map(|(j, h)| one(c * chunk + j, h))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        // Tokenizing cannot panic on any text; were it to, that part's hits would go unmatched
        // rather than take the answer down.
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    })
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
    // Cues are lower-case ASCII or Japanese; lower-casing ASCII is all the matching needs, and
    // it is much cheaper than full normalisation of every chat message in the pool.
    let t = text.to_ascii_lowercase();
    lexicon
        .conclusion_cues
        .iter()
        .any(|c| crate::intent::cue_matches(&t, c))
}

/// Scores and orders `hits` for the question. Hits that share no word or concept with the
/// question are dropped.
pub fn rank(hits: Vec<Hit>, cx: &RankContext) -> Vec<Evidence> {
    let concepts = concepts(cx.analysis, cx.lexicon);
    // The term dictionary: every token of the pool gets an id.
    let mut vocab: FxHashMap<String, u32> = FxHashMap::default();
    let intern = |t: String, vocab: &mut FxHashMap<String, u32>| -> u32 {
        let next = vocab.len() as u32;
        *vocab.entry(t).or_insert(next)
    };
    let question_pairs: Vec<(u32, u32)> = adjacent_pairs(&cx.analysis.search_text(false))
        .into_iter()
        .map(|(a, b)| (intern(a, &mut vocab), intern(b, &mut vocab)))
        .collect();
    // Units: passages of long texts, whole short texts. Tokenizing is the costly part and needs
    // nothing shared, so large pools are cut on all cores.
    let tokenized = tokenize_units(&hits);
    let mut units: Vec<Unit> = Vec::new();
    let mut ids: Vec<u32> = Vec::new();
    for (i, r, toks) in tokenized {
        {
            ids.clear();
            ids.extend(toks.into_iter().map(|t| intern(t, &mut vocab)));
            let pairs: Vec<(u32, u32)> = if question_pairs.is_empty() {
                Vec::new()
            } else {
                ids.windows(2)
                    .map(|w| (w[0], w[1]))
                    .filter(|p| question_pairs.contains(p))
                    .collect()
            };
            let len = ids.len();
            ids.sort_unstable();
            let mut tf: Vec<(u32, u32)> = Vec::new();
            for &id in &ids {
                match tf.last_mut() {
                    Some((last, n)) if *last == id => *n += 1,
                    _ => tf.push((id, 1)),
                }
            }
            units.push(Unit {
                hit: i,
                range: r,
                len,
                tf,
                pairs,
            });
        }
    }
    let n = units.len().max(1) as f64;
    let avgdl = (units.iter().map(|u| u.len).sum::<usize>() as f64 / n).max(1.0);
    let mut df: Vec<u32> = vec![0; vocab.len()];
    for u in &units {
        for &(id, _) in &u.tf {
            df[id as usize] += 1;
        }
    }
    let idf_id = |id: Option<u32>| -> f64 {
        let d = id.map(|i| df.get(i as usize).copied().unwrap_or(0)).unwrap_or(0) as f64;
        (1.0 + (n - d + 0.5) / (d + 0.5)).ln()
    };
    // A query token: its id (when the pool has it) and fuzzy stand-ins for Latin tokens the pool
    // lacks (typos, name variants).
    struct QTok {
        id: Option<u32>,
        fuzzy: Vec<u32>,
        idf: f64,
    }
    let present = |id: Option<u32>| id.is_some_and(|i| df.get(i as usize).copied().unwrap_or(0) > 0);
    let qtok = |t: &str| -> QTok {
        let id = vocab.get(t).copied();
        if present(id) || t.len() < 4 || !t.is_ascii() {
            return QTok {
                id,
                fuzzy: Vec::new(),
                idf: idf_id(id),
            };
        }
        let fuzzy: Vec<u32> = vocab
            .iter()
            .filter(|(v, i)| df[**i as usize] > 0 && v.is_ascii() && v.len() >= 4 && strsim::jaro_winkler(t, v) >= 0.92)
            .map(|(_, i)| *i)
            .collect();
        let idf = if fuzzy.is_empty() {
            idf_id(None)
        } else {
            fuzzy.iter().map(|i| idf_id(Some(*i))).fold(0.0, f64::max)
        };
        QTok { id, fuzzy, idf }
    };
    let qconcepts: Vec<Vec<(Vec<QTok>, f64)>> = concepts
        .iter()
        .map(|c| {
            c.alternatives
                .iter()
                .map(|(alt, w)| (alt.iter().map(|t| qtok(t)).collect(), *w))
                .collect()
        })
        .collect();
    let tf_of = |u: &Unit, q: &QTok| -> (f64, f64) {
        if let Some(id) = q.id {
            let f = u.freq(id);
            if f > 0 {
                return (f as f64, 1.0);
            }
        }
        for &i in &q.fuzzy {
            let f = u.freq(i);
            if f > 0 {
                return (f as f64, FUZZY_WEIGHT);
            }
        }
        (0.0, 0.0)
    };
    // Score every unit: BM25 per concept (best alternative), and concept coverage.
    // Per hit: (BM25, coverage, passage range) of its best unit.
    type Best = (f64, f64, (usize, usize));
    let mut best: Vec<Option<Best>> = vec![None; hits.len()];
    for u in &units {
        let mut bm25 = 0.0;
        let mut covered = 0.0;
        let mut total = 0.0;
        for c in &qconcepts {
            let cw: f64 = c[0].0.iter().map(|t| t.idf).sum::<f64>() / c[0].0.len() as f64;
            total += cw;
            let mut c_best = 0.0f64;
            let mut c_cov = 0.0f64;
            for (alt, w) in c {
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
                if all > 0.0 {
                    c_cov = c_cov.max(have / all * w.max(0.85));
                }
            }
            bm25 += c_best;
            covered += cw * c_cov;
        }
        for (a, b) in &u.pairs {
            bm25 += PROXIMITY_WEIGHT * (idf_id(Some(*a)) + idf_id(Some(*b))) / 2.0;
        }
        let coverage = if total > 0.0 { covered / total } else { 0.0 };
        let slot = &mut best[u.hit];
        if slot.is_none_or(|(b, _, _)| bm25 > b) {
            *slot = Some((bm25, coverage, u.range));
        }
    }
    let max_bm25 = best.iter().flatten().map(|b| b.0).fold(0.0, f64::max);
    let mut w = cx.policy.weights;
    if cx.analysis.prefer_recent && w.freshness < RECENT_FRESHNESS_WEIGHT {
        // "the last incident": recency decides among matching evidence.
        let rest = 1.0 - w.freshness;
        let scale = (1.0 - RECENT_FRESHNESS_WEIGHT) / rest.max(1e-9);
        w.keyword *= scale;
        w.authority *= scale;
        w.completeness *= scale;
        w.freshness = RECENT_FRESHNESS_WEIGHT;
    }
    let mut out: Vec<Evidence> = Vec::new();
    for (h, b) in hits.into_iter().zip(best) {
        let Some((bm25, coverage, range)) = b else { continue };
        if bm25 <= 0.0 {
            continue;
        }
        let keyword = if max_bm25 > 0.0 { bm25 / max_bm25 } else { 0.0 };
        // A tool in the catalog is current by definition: it is listed now.
        let fresh = if h.kind == EvidenceKind::Tool {
            1.0
        } else {
            freshness(h.timestamp, cx.now, cx.policy.half_life_days)
        };
        let kind = cx.source_kinds.get(&h.source).map(String::as_str).unwrap_or("");
        let mut authority = cx.policy.authority_of(h.kind);
        let mut auth_note = None;
        if cx.analysis.tool_question && h.kind == EvidenceKind::Tool {
            authority = 1.0;
            auth_note = Some("tool question: the catalog is the authority");
        } else if h.kind == EvidenceKind::Chat && cx.policy.conclusion_bonus > 0.0 && is_conclusion(&h.text, cx.lexicon)
        {
            authority = (authority + cx.policy.conclusion_bonus).min(1.0);
            auth_note = Some("thread conclusion");
        }
        let chars = h.text[range.0..range.1].chars().count() as f64;
        let density = if text::is_japanese(&h.text) { 2.5 } else { 1.0 };
        let length = (chars * density / 200.0).min(1.0);
        let completeness = 0.7 * coverage + 0.3 * length;
        let mut source_weight = cx.policy.source_pref(&h.source, kind).weight;
        if cx.analysis.tool_question && h.kind == EvidenceKind::Tool {
            source_weight = 1.0;
        }
        // Freshness and authority count in proportion to how well the evidence matches: a fresh
        // or official item that barely touches the question must not outrank the answer.
        let gate = coverage;
        let raw = w.keyword * keyword
            + (w.freshness * fresh + w.authority * authority) * gate
            + w.completeness * completeness;
        let age_days = h.timestamp.map(|t| (cx.now - t).num_days().max(0));
        out.push(Evidence {
            hit: h,
            passage: range,
            keyword,
            freshness: fresh,
            authority,
            completeness,
            coverage,
            score: raw * source_weight,
            why: Why {
                weights: w,
                source_weight,
                auth_note,
                age_days,
                intent: cx.policy.intent,
            },
        });
    }
    sort_total(&mut out);
    out
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The documented total order: score (descending), then source name, then hit id.
pub fn sort_total(v: &mut [Evidence]) {
    v.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.hit.source.cmp(&b.hit.source))
            .then_with(|| a.hit.id.cmp(&b.hit.id))
    });
}

/// The ids of the question's concepts that `text` covers (for choosing answer sentences).
pub fn covered_concepts(text_: &str, analysis: &Analysis, lexicon: &Lexicon) -> usize {
    let toks: HashSet<String> = text::terms(text_).into_iter().collect();
    concepts(analysis, lexicon)
        .iter()
        .filter(|c| {
            c.alternatives
                .iter()
                .any(|(alt, _)| alt.iter().all(|t| toks.contains(t)))
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{Intent, Policies};

    fn policies() -> Policies {
        Policies::load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("policies"), &[]).unwrap()
    }

    fn hit(source: &str, native: &str, kind: EvidenceKind, text: &str, date: &str) -> Hit {
        let mut h = Hit::new(source, native, kind, text);
        h.timestamp = Some(format!("{date}T00:00:00Z").parse().unwrap());
        h
    }

    fn ranked(q: &str, intent: Intent, hits: Vec<Hit>) -> Vec<Evidence> {
        let p = policies();
        let now: DateTime<Utc> = "2026-11-20T09:00:00Z".parse().unwrap();
        let a = crate::query::analyze(q, now, &p.lexicon);
        let kinds: HashMap<String, String> = [("slack", "slack"), ("notion", "notion"), ("rc", "rocketchat")]
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        let cx = RankContext {
            analysis: &a,
            policy: p.get(intent),
            lexicon: &p.lexicon,
            now,
            source_kinds: &kinds,
        };
        rank(hits, &cx)
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
