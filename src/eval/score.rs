//! Scoring one answer against its golden question, and aggregating (pure): the metrics of
//! contracts section 5.
//!
//! Invariant: a metric that no question in a group exercises is `None` (JSON `null`), never 0.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use serde::Serialize;

use crate::config::policy::Intent;
use crate::eval::golden::{Lang, Question};
use crate::pipeline::answer::AskResponse;
use crate::pipeline::confidence::Level;
use crate::sources::SourceStatus;

/// One question's outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuestionResult {
    pub id: String,
    /// The golden set the question came from (its path as given); an extension.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub set: String,
    pub lang: Lang,
    /// Whether the question's answer lives in the other language, when its set says
    /// (`evidence_lang`); an extension.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cross_language: Option<bool>,
    pub intent_expected: Intent,
    pub intent_predicted: Option<Intent>,
    pub ndcg_at_10: Option<f64>,
    pub recall_at_1: Option<f64>,
    pub recall_at_5: Option<f64>,
    pub recall_at_10: Option<f64>,
    pub mrr: Option<f64>,
    /// Facts stated in the answer's own prose (contracts section 5).
    pub answer_fact_recall: Option<f64>,
    /// Facts found anywhere in the answer text, source list and disclosure lines included: the
    /// rule before the contract said "prose", reported beside it for one release.
    pub answer_fact_recall_lenient: Option<f64>,
    pub citation_precision: Option<f64>,
    /// For an unanswerable question: the answer said nothing was found, with low confidence.
    pub abstained: Option<bool>,
    /// Whether the answer said nothing was found (any question); with `unanswerable` it gives
    /// abstention precision and how often an answerable question was abstained (an extension).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub said_not_found: Option<bool>,
    /// The question is answerable (has relevant evidence and is not marked unanswerable).
    #[serde(skip)]
    pub answerable: bool,
    /// For an answerable question with grade-2 evidence: the answer's lead (its first inline
    /// citation) is grade 2; an abstained answer has no lead (an extension).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lead_grade2: Option<bool>,
    /// The grade of the best-ranked citation (through any of its ids), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_grade: Option<u8>,
    /// Whether the evidence answered, with its signals (`scripts/fit-verdict` reads them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<crate::pipeline::verdict::Verdict>,
    pub confidence_ok: Option<bool>,
    pub conflict_found: Option<bool>,
    pub cited_ids: Vec<String>,
    /// What each cited id says, in `cited_ids`' order (`kind · title or opening · snippet`):
    /// enough to judge a pooled id by reading it (an extension; `scripts/golden-pool`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cited_texts: Vec<String>,
    pub latency_ms: f64,
    /// How the language model was used, when it was (an extension): calls, tokens, time, who
    /// wrote the prose.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llm: Option<crate::llm::ModelUse>,
    /// Per source: (status, latency in ms).
    #[serde(skip)]
    pub sources: Vec<(String, SourceStatus, u64)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The metrics of contracts section 5 over a group of questions.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Metrics {
    pub questions: usize,
    pub intent_accuracy: Option<f64>,
    pub ndcg_at_10: Option<f64>,
    pub recall_at_1: Option<f64>,
    pub recall_at_5: Option<f64>,
    pub recall_at_10: Option<f64>,
    pub mrr: Option<f64>,
    pub answer_fact_recall: Option<f64>,
    /// `answer_fact_recall` by the old rule (anywhere in the answer text); an extension.
    pub answer_fact_recall_lenient: Option<f64>,
    pub citation_precision: Option<f64>,
    pub abstention: Option<f64>,
    /// Of the answers that said nothing was found, the share whose question is unanswerable
    /// (an extension; `abstention` is its recall).
    pub abstention_precision: Option<f64>,
    /// Of the answerable questions, the share answered "not found" (an extension).
    pub answerable_abstained: Option<f64>,
    /// Of the answerable questions with grade-2 evidence, the share whose answer leads with a
    /// grade-2 citation (an extension).
    pub lead_grade2: Option<f64>,
    pub confidence_accuracy: Option<f64>,
    pub conflict_recall: Option<f64>,
    pub latency_p50_ms: Option<f64>,
    pub latency_p95_ms: Option<f64>,
}

/// The metrics shown in tables and checked by thresholds, with their labels.
pub const METRIC_NAMES: &[(&str, &str)] = &[
    ("intent_accuracy", "intent accuracy"),
    ("ndcg_at_10", "nDCG@10"),
    ("recall_at_1", "Recall@1"),
    ("recall_at_5", "Recall@5"),
    ("recall_at_10", "Recall@10"),
    ("mrr", "MRR"),
    ("answer_fact_recall", "answer-fact recall"),
    ("answer_fact_recall_lenient", "facts incl. source list"),
    ("citation_precision", "citation precision"),
    ("abstention", "abstention"),
    ("abstention_precision", "abstention precision"),
    ("answerable_abstained", "answerable abstained"),
    ("lead_grade2", "grade-2 lead"),
    ("confidence_accuracy", "confidence accuracy"),
    ("conflict_recall", "conflict recall"),
    ("latency_p50_ms", "latency p50 (ms)"),
    ("latency_p95_ms", "latency p95 (ms)"),
];

impl Metrics {
    pub fn get(&self, name: &str) -> Option<f64> {
        match name {
            "intent_accuracy" => self.intent_accuracy,
            "ndcg_at_10" => self.ndcg_at_10,
            "recall_at_1" => self.recall_at_1,
            "recall_at_5" => self.recall_at_5,
            "recall_at_10" => self.recall_at_10,
            "mrr" => self.mrr,
            "answer_fact_recall" => self.answer_fact_recall,
            "answer_fact_recall_lenient" => self.answer_fact_recall_lenient,
            "citation_precision" => self.citation_precision,
            "abstention" => self.abstention,
            "abstention_precision" => self.abstention_precision,
            "answerable_abstained" => self.answerable_abstained,
            "lead_grade2" => self.lead_grade2,
            "confidence_accuracy" => self.confidence_accuracy,
            "conflict_recall" => self.conflict_recall,
            "latency_p50_ms" => self.latency_p50_ms,
            "latency_p95_ms" => self.latency_p95_ms,
            _ => None,
        }
    }
}

static INLINE: LazyLock<regex::Regex> = LazyLock::new(|| {
    // A pattern literal: compiling it cannot fail.
    regex::Regex::new(r"\[(\d+)\]").expect("valid regex")
});

/// The inline citation numbers of an answer: the `[n]` markers of its body, before the list of
/// sources.
pub fn inline_citations(answer: &str) -> BTreeSet<usize> {
    let body = answer.split("\n**Sources**").next().unwrap_or(answer);
    INLINE.captures_iter(body).filter_map(|c| c[1].parse().ok()).collect()
}

/// The answer's lead: the first inline citation `[n]` of its prose, in reading order.
pub fn lead_citation(prose: &str) -> Option<usize> {
    INLINE.captures_iter(prose).find_map(|c| c[1].parse().ok())
}

fn mean(v: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0usize);
    for x in v {
        sum += x;
        n += 1;
    }
    (n > 0).then(|| sum / n as f64)
}

fn share(v: impl IntoIterator<Item = bool>) -> Option<f64> {
    mean(v.into_iter().map(|b| if b { 1.0 } else { 0.0 }))
}

/// Scores one answer against its golden question (pure).
pub fn score(q: &Question, r: Option<&AskResponse>, latency_ms: f64, error: Option<String>) -> QuestionResult {
    let empty = AskResponse::default();
    let r = r.unwrap_or(&empty);
    // A citation is as relevant as the best of its ids, merged copies included.
    let grade = |c: &crate::pipeline::answer::Citation| -> u8 {
        std::iter::once(&c.id)
            .chain(&c.also_in)
            .filter_map(|id| q.relevant.get(id).copied())
            .max()
            .unwrap_or(0)
    };
    let grades: Vec<u8> = r.citations.iter().map(grade).collect();
    let answerable = !q.unanswerable && !q.relevant.is_empty();
    let ndcg = answerable
        .then(|| {
            let dcg = |g: &[u8]| -> f64 {
                g.iter()
                    .take(10)
                    .enumerate()
                    .map(|(i, &g)| (2f64.powi(g as i32) - 1.0) / (i as f64 + 2.0).log2())
                    .sum()
            };
            let mut ideal: Vec<u8> = q.relevant.values().copied().collect();
            ideal.sort_unstable_by(|a, b| b.cmp(a));
            let best = dcg(&ideal);
            (best > 0.0).then(|| dcg(&grades) / best)
        })
        .flatten();
    let relevant_ids: BTreeSet<&String> = q.relevant.iter().filter(|(_, g)| **g >= 1).map(|(id, _)| id).collect();
    let recall = |k: usize| -> Option<f64> {
        if !answerable || relevant_ids.is_empty() {
            return None;
        }
        let found: BTreeSet<&String> = r
            .citations
            .iter()
            .take(k)
            .flat_map(|c| std::iter::once(&c.id).chain(&c.also_in))
            .filter(|id| relevant_ids.contains(id))
            .collect();
        Some(found.len() as f64 / relevant_ids.len() as f64)
    };
    let has_answer = q.relevant.values().any(|g| *g == 2);
    let mrr = (answerable && has_answer).then(|| {
        grades
            .iter()
            .position(|g| *g == 2)
            .map_or(0.0, |p| 1.0 / (p as f64 + 1.0))
    });
    let share_in = |text: &str| {
        let text = crate::text::normalize(text);
        (!q.answer_facts.is_empty()).then(|| {
            q.answer_facts
                .iter()
                .filter(|f| text.contains(&crate::text::normalize(f)))
                .count() as f64
                / q.answer_facts.len() as f64
        })
    };
    let facts = share_in(r.prose());
    let facts_lenient = share_in(&r.answer);
    let inline = inline_citations(&r.answer);
    let precision = (answerable && !inline.is_empty()).then(|| {
        let good = inline
            .iter()
            .filter(|n| r.citations.iter().find(|c| c.n == **n).is_some_and(|c| grade(c) >= 1))
            .count();
        good as f64 / inline.len() as f64
    });
    let lead_grade2 = (answerable && has_answer && error.is_none()).then(|| {
        !r.not_found
            && lead_citation(r.prose())
                .and_then(|n| r.citations.iter().find(|c| c.n == n))
                .is_some_and(|c| grade(c) == 2)
    });
    QuestionResult {
        id: q.id.clone(),
        set: String::new(),
        lang: q.lang,
        cross_language: q.cross_language(),
        intent_expected: q.intent,
        intent_predicted: error.is_none().then_some(r.intent.intent),
        ndcg_at_10: ndcg,
        recall_at_1: recall(1),
        recall_at_5: recall(5),
        recall_at_10: recall(10),
        mrr,
        answer_fact_recall: facts,
        answer_fact_recall_lenient: facts_lenient,
        citation_precision: precision,
        abstained: q
            .unanswerable
            .then_some(r.not_found && r.confidence.level == Level::Low),
        said_not_found: error.is_none().then_some(r.not_found),
        answerable,
        lead_grade2,
        top_grade: grades.first().copied(),
        verdict: r.verdict.clone(),
        confidence_ok: q.expect_confidence.map(|l| error.is_none() && r.confidence.level == l),
        conflict_found: (q.expect_conflict == Some(true)).then_some(!r.conflicts.is_empty()),
        cited_ids: r.citations.iter().map(|c| c.id.clone()).collect(),
        cited_texts: r
            .citations
            .iter()
            .map(|c| format!("{} · {} · {}", c.kind, c.title, c.snippet))
            .collect(),
        latency_ms,
        llm: r.llm.clone(),
        sources: r
            .sources
            .iter()
            .map(|s| (s.name.clone(), s.status, s.latency_ms))
            .collect(),
        error,
    }
}

/// The `p` quantile (0..1) of `v` by the nearest rank.
pub fn quantile(v: &[f64], p: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let rank = ((p * s.len() as f64).ceil() as usize).clamp(1, s.len());
    Some(s[rank - 1])
}

/// The metrics of a group of results (pure).
pub fn aggregate(results: &[&QuestionResult]) -> Metrics {
    let latencies: Vec<f64> = results.iter().map(|r| r.latency_ms).collect();
    let round = |x: Option<f64>| x.map(|v| (v * 10_000.0).round() / 10_000.0);
    Metrics {
        questions: results.len(),
        intent_accuracy: round(share(
            results.iter().map(|r| r.intent_predicted == Some(r.intent_expected)),
        )),
        ndcg_at_10: round(mean(results.iter().filter_map(|r| r.ndcg_at_10))),
        recall_at_1: round(mean(results.iter().filter_map(|r| r.recall_at_1))),
        recall_at_5: round(mean(results.iter().filter_map(|r| r.recall_at_5))),
        recall_at_10: round(mean(results.iter().filter_map(|r| r.recall_at_10))),
        mrr: round(mean(results.iter().filter_map(|r| r.mrr))),
        answer_fact_recall: round(mean(results.iter().filter_map(|r| r.answer_fact_recall))),
        answer_fact_recall_lenient: round(mean(results.iter().filter_map(|r| r.answer_fact_recall_lenient))),
        citation_precision: round(mean(results.iter().filter_map(|r| r.citation_precision))),
        abstention: round(share(results.iter().filter_map(|r| r.abstained))),
        abstention_precision: round(share(
            results
                .iter()
                .filter(|r| r.said_not_found == Some(true))
                .map(|r| r.abstained.is_some()),
        )),
        answerable_abstained: round(share(
            results.iter().filter(|r| r.answerable).filter_map(|r| r.said_not_found),
        )),
        lead_grade2: round(share(results.iter().filter_map(|r| r.lead_grade2))),
        confidence_accuracy: round(share(results.iter().filter_map(|r| r.confidence_ok))),
        conflict_recall: round(share(results.iter().filter_map(|r| r.conflict_found))),
        latency_p50_ms: quantile(&latencies, 0.5).map(|x| x.round()),
        latency_p95_ms: quantile(&latencies, 0.95).map(|x| x.round()),
    }
}

/// Metrics overall, per intent, per language and (when there are several) per golden set.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Breakdown {
    pub overall: Metrics,
    pub by_intent: BTreeMap<Intent, Metrics>,
    pub by_lang: BTreeMap<Lang, Metrics>,
    pub by_set: BTreeMap<String, Metrics>,
    /// `same-language` and `cross-language` questions, when the sets say which are which.
    pub by_reach: BTreeMap<String, Metrics>,
}

/// The group of a question whose answer lives in the other language, and of the others.
pub const CROSS_LANGUAGE: &str = "cross-language";
pub const SAME_LANGUAGE: &str = "same-language";

pub fn breakdown(results: &[QuestionResult]) -> Breakdown {
    let all: Vec<&QuestionResult> = results.iter().collect();
    let mut by_intent: BTreeMap<Intent, Vec<&QuestionResult>> = BTreeMap::new();
    let mut by_lang: BTreeMap<Lang, Vec<&QuestionResult>> = BTreeMap::new();
    let mut by_set: BTreeMap<&str, Vec<&QuestionResult>> = BTreeMap::new();
    let mut by_reach: BTreeMap<&str, Vec<&QuestionResult>> = BTreeMap::new();
    for r in results {
        if let Some(cross) = r.cross_language {
            by_reach
                .entry(if cross { CROSS_LANGUAGE } else { SAME_LANGUAGE })
                .or_default()
                .push(r);
        }
        by_intent.entry(r.intent_expected).or_default().push(r);
        by_lang.entry(r.lang).or_default().push(r);
        by_set.entry(r.set.as_str()).or_default().push(r);
    }
    Breakdown {
        overall: aggregate(&all),
        by_intent: by_intent.into_iter().map(|(k, v)| (k, aggregate(&v))).collect(),
        by_lang: by_lang.into_iter().map(|(k, v)| (k, aggregate(&v))).collect(),
        // One set is the overall figure again.
        by_set: if by_set.len() > 1 {
            by_set
                .into_iter()
                .map(|(k, v)| (k.to_string(), aggregate(&v)))
                .collect()
        } else {
            BTreeMap::new()
        },
        by_reach: by_reach
            .into_iter()
            .map(|(k, v)| (k.to_string(), aggregate(&v)))
            .collect(),
    }
}

/// Per-source health over a run.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct SourceStats {
    pub asked: usize,
    pub ok: usize,
    pub empty: usize,
    pub timeout: usize,
    pub error: usize,
    pub skipped: usize,
    pub latency_p50_ms: Option<f64>,
    pub latency_p95_ms: Option<f64>,
}

pub fn source_stats(results: &[QuestionResult]) -> BTreeMap<String, SourceStats> {
    let mut out: BTreeMap<String, (SourceStats, Vec<f64>)> = BTreeMap::new();
    for r in results {
        for (name, status, latency) in &r.sources {
            let (s, lat) = out.entry(name.clone()).or_default();
            match status {
                SourceStatus::Skipped => s.skipped += 1,
                other => {
                    s.asked += 1;
                    lat.push(*latency as f64);
                    match other {
                        SourceStatus::Ok => s.ok += 1,
                        SourceStatus::Empty => s.empty += 1,
                        SourceStatus::Timeout => s.timeout += 1,
                        _ => s.error += 1,
                    }
                }
            }
        }
    }
    out.into_iter()
        .map(|(k, (mut s, lat))| {
            s.latency_p50_ms = quantile(&lat, 0.5);
            s.latency_p95_ms = quantile(&lat, 0.95);
            (k, s)
        })
        .collect()
}

/// Expected intent -> predicted intent -> count.
pub fn confusion(results: &[QuestionResult]) -> BTreeMap<Intent, BTreeMap<String, usize>> {
    let mut m: BTreeMap<Intent, BTreeMap<String, usize>> = BTreeMap::new();
    for r in results {
        let predicted = r.intent_predicted.map_or("error".to_string(), |i| i.to_string());
        *m.entry(r.intent_expected).or_default().entry(predicted).or_default() += 1;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hit::EvidenceKind;
    use crate::pipeline::answer::Citation;

    fn question(relevant: &[(&str, u8)], facts: &[&str]) -> Question {
        Question {
            id: "q".into(),
            question: "What?".into(),
            lang: Lang::En,
            intent: Intent::Decision,
            relevant: relevant.iter().map(|(k, g)| (k.to_string(), *g)).collect(),
            answer_facts: facts.iter().map(|f| f.to_string()).collect(),
            expect_confidence: None,
            expect_conflict: None,
            unanswerable: relevant.is_empty(),
            as_of: Default::default(),
            not_relevant: Vec::new(),
            evidence_lang: None,
        }
    }

    fn citation(n: usize, id: &str, also: &[&str]) -> Citation {
        Citation {
            n,
            id: id.into(),
            source: "s".into(),
            kind: EvidenceKind::Chat,
            title: String::new(),
            location: String::new(),
            author: None,
            date: None,
            url: None,
            snippet: String::new(),
            passage: String::new(),
            also_in: also.iter().map(|s| s.to_string()).collect(),
            score: 0.0,
            explain: Vec::new(),
            properties: Default::default(),
            candidates: Vec::new(),
        }
    }

    fn response(answer: &str, citations: Vec<Citation>) -> AskResponse {
        AskResponse {
            answer: answer.into(),
            citations,
            prose_end: answer.find("\n**Sources**").unwrap_or(answer.len()),
            ..Default::default()
        }
    }

    #[test]
    fn facts_count_only_in_the_answers_own_prose() {
        let q = question(&[("s:a", 2)], &["$45", "per seat"]);
        let r = response(
            "Pro is $45 [1].\n\n**Sources**\n[1] chat · Pro costs $45 per seat · Aiko\n\n**Cut off:** s (per seat).",
            vec![citation(1, "s:a", &[])],
        );
        let m = score(&q, Some(&r), 1.0, None);
        assert_eq!(m.answer_fact_recall, Some(0.5), "`per seat` is only in the source list");
        assert_eq!(m.answer_fact_recall_lenient, Some(1.0));
    }

    #[test]
    fn ranking_metrics_follow_the_contract() {
        let q = question(&[("s:a", 2), ("s:b", 1), ("s:c", 1)], &["$45", "per seat"]);
        // a at 2, b merged into the cluster at 1, c missing.
        let r = response(
            "Pro is $45 per SEAT [2]. Also [1] and [3].\n\n**Sources**\n[1] x\n[2] y\n[3] z\n[4] w",
            vec![
                citation(1, "s:x", &["s:b"]),
                citation(2, "s:a", &[]),
                citation(3, "s:y", &[]),
            ],
        );
        let m = score(&q, Some(&r), 12.0, None);
        let dcg = 1.0 / 2f64.log2() + 3.0 / 3f64.log2();
        let idcg = 3.0 / 2f64.log2() + 1.0 / 3f64.log2() + 1.0 / 4f64.log2();
        assert!((m.ndcg_at_10.unwrap() - dcg / idcg).abs() < 1e-9);
        assert_eq!(m.recall_at_1, Some(1.0 / 3.0));
        assert_eq!(m.recall_at_5, Some(2.0 / 3.0));
        assert_eq!(m.mrr, Some(0.5));
        assert_eq!(m.answer_fact_recall, Some(1.0));
        // inline [2], [1], [3]: two of three relevant; the source list does not count
        assert_eq!(m.citation_precision, Some(2.0 / 3.0));
        assert_eq!(m.abstained, None);
    }

    #[test]
    fn unanswerable_questions_measure_abstention_only() {
        let q = question(&[], &[]);
        let mut r = response("Nothing found.", vec![]);
        r.not_found = true;
        r.confidence.level = Level::Low;
        let m = score(&q, Some(&r), 1.0, None);
        assert_eq!(m.abstained, Some(true));
        assert_eq!(
            (m.ndcg_at_10, m.recall_at_10, m.mrr, m.citation_precision),
            (None, None, None, None)
        );
        let agg = aggregate(&[&m]);
        assert_eq!(agg.abstention, Some(1.0));
        assert_eq!(agg.ndcg_at_10, None, "no question exercises it: null, never 0");
        assert_eq!(agg.conflict_recall, None);
    }

    #[test]
    fn the_lead_is_the_first_citation_read_and_abstention_has_a_precision() {
        let q = question(&[("s:a", 2), ("s:b", 1)], &["$45"]);
        // [2] is read first: it leads, though [1] ranks higher.
        let r = response(
            "Pro is $45 [2].\n- Also [1].\n\n**Sources**\n[1] x\n[2] y",
            vec![citation(1, "s:b", &[]), citation(2, "s:a", &[])],
        );
        let answered = score(&q, Some(&r), 1.0, None);
        assert_eq!(answered.lead_grade2, Some(true));
        let mut abstained = response("Not found.", vec![citation(1, "s:a", &[])]);
        abstained.not_found = true;
        abstained.confidence.level = Level::Low;
        let missed = score(&q, Some(&abstained), 1.0, None);
        assert_eq!(missed.lead_grade2, Some(false), "an abstained answer has no lead");
        let absent = score(&question(&[], &[]), Some(&abstained), 1.0, None);
        let agg = aggregate(&[&answered, &missed, &absent]);
        assert_eq!(agg.abstention, Some(1.0));
        assert_eq!(agg.abstention_precision, Some(0.5), "one of two abstentions was right");
        assert_eq!(agg.answerable_abstained, Some(0.5));
        assert_eq!(agg.lead_grade2, Some(0.5));
    }

    #[test]
    fn a_failed_ask_scores_zero_where_it_counts() {
        let q = question(&[("s:a", 2)], &["x"]);
        let m = score(&q, None, 1.0, Some("boom".into()));
        assert_eq!(
            (m.ndcg_at_10, m.mrr, m.answer_fact_recall),
            (Some(0.0), Some(0.0), Some(0.0))
        );
        assert_eq!(aggregate(&[&m]).intent_accuracy, Some(0.0));
    }

    #[test]
    fn quantiles_by_nearest_rank() {
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(quantile(&v, 0.5), Some(10.0));
        assert_eq!(quantile(&v, 0.95), Some(19.0));
        assert_eq!(quantile(&[], 0.5), None);
    }
}
