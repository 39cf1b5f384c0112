//! `sagasu eval`'s report: the JSON object of contracts section 5 (with optional extra fields),
//! and the same numbers as terminal or Markdown tables.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::config::policy::Intent;
use crate::eval::golden::Lang;
use crate::eval::score::{Breakdown, METRIC_NAMES, Metrics, QuestionResult, SourceStats};

/// A run measured against the main one: a baseline, or a second policy folder.
#[derive(Debug, Clone, Serialize)]
pub struct Side {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policies: Option<String>,
    pub overall: Metrics,
    pub by_intent: BTreeMap<Intent, Metrics>,
    pub by_lang: BTreeMap<Lang, Metrics>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub by_set: BTreeMap<String, Metrics>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub by_reach: BTreeMap<String, Metrics>,
    /// For `compare`: the questions whose quality moved most, best gain first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<Change>,
    /// Its per-question results (for judging pools and audits).
    pub questions: Vec<QuestionResult>,
}

/// One question's quality under the main policies and under the other side.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    pub id: String,
    pub before: f64,
    pub after: f64,
    pub delta: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub sets: Vec<String>,
    /// The policy folder of the main run.
    pub policies: String,
    pub overall: Metrics,
    pub by_intent: BTreeMap<Intent, Metrics>,
    pub by_lang: BTreeMap<Lang, Metrics>,
    /// Per golden set, when several ran (an extension): the first set against the others is
    /// the generalisation gap.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub by_set: BTreeMap<String, Metrics>,
    /// `same-language` and `cross-language` questions (an extension), when the sets mark the
    /// language of each question's evidence (`evidence_lang`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub by_reach: BTreeMap<String, Metrics>,
    pub baseline: Option<Side>,
    pub compare: Option<Side>,
    pub questions: Vec<QuestionResult>,
    /// Expected intent -> predicted intent -> questions.
    pub confusion: BTreeMap<Intent, BTreeMap<String, usize>>,
    /// The intent classifier's k-fold accuracy on its examples (an extension), when the policy
    /// folder has examples.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intent_classifier: Option<ClassifierStats>,
    pub sources: BTreeMap<String, SourceStats>,
}

/// How the intent classifier does on its own examples, each predicted by a model trained on
/// the other folds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassifierStats {
    pub examples: usize,
    pub folds: usize,
    pub accuracy: f64,
    /// Whether the sentence encoder's vectors were among the features.
    pub encoder: bool,
}

impl ClassifierStats {
    fn line(&self) -> String {
        format!(
            "intent classifier: {}-fold accuracy {:.3} on {} examples{}",
            self.folds,
            self.accuracy,
            self.examples,
            if self.encoder {
                " (with the sentence encoder)"
            } else {
                " (without the sentence encoder)"
            }
        )
    }
}

/// A question's quality in one number, for finding what changed: the mean of its nDCG@10,
/// answer-fact recall and abstention, where measured.
pub fn quality(r: &QuestionResult) -> Option<f64> {
    let parts: Vec<f64> = [
        r.ndcg_at_10,
        r.answer_fact_recall,
        r.abstained.map(|a| if a { 1.0 } else { 0.0 }),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!parts.is_empty()).then(|| parts.iter().sum::<f64>() / parts.len() as f64)
}

/// The questions that moved most between two runs of the same questions (won first, then lost).
pub fn changes(before: &[QuestionResult], after: &[QuestionResult], most: usize) -> Vec<Change> {
    let mut all: Vec<Change> = before
        .iter()
        .zip(after)
        .filter_map(|(b, a)| {
            let (x, y) = (quality(b)?, quality(a)?);
            ((y - x).abs() > 1e-9).then(|| Change {
                id: b.id.clone(),
                before: round(x),
                after: round(y),
                delta: round(y - x),
            })
        })
        .collect();
    all.sort_by(|a, b| b.delta.total_cmp(&a.delta).then_with(|| a.id.cmp(&b.id)));
    let won: Vec<Change> = all.iter().filter(|c| c.delta > 0.0).take(most).cloned().collect();
    let lost: Vec<Change> = all.iter().rev().filter(|c| c.delta < 0.0).take(most).cloned().collect();
    won.into_iter().chain(lost).collect()
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

pub fn side(
    name: Option<String>,
    policies: Option<String>,
    b: Breakdown,
    changed: Vec<Change>,
    questions: Vec<QuestionResult>,
) -> Side {
    Side {
        questions,
        name,
        policies,
        overall: b.overall,
        by_intent: b.by_intent,
        by_lang: b.by_lang,
        by_set: b.by_set,
        by_reach: b.by_reach,
        changed,
    }
}

/// A table that prints aligned for a terminal or as Markdown.
pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(headers: &[&str]) -> Table {
        Table {
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    pub fn text(&self) -> String {
        let width = |i: usize| {
            std::iter::once(&self.headers[i])
                .chain(self.rows.iter().filter_map(|r| r.get(i)))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        };
        let widths: Vec<usize> = (0..self.headers.len()).map(width).collect();
        let line = |cells: &[String]| {
            let mut s = String::new();
            for (i, c) in cells.iter().enumerate() {
                let pad = widths[i].saturating_sub(c.chars().count());
                if i == 0 {
                    s.push_str(c);
                    s.push_str(&" ".repeat(pad));
                } else {
                    s.push_str("  ");
                    s.push_str(&" ".repeat(pad));
                    s.push_str(c);
                }
            }
            s.trim_end().to_string() + "\n"
        };
        let mut out = line(&self.headers);
        out.push_str(&line(&widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>()));
        for r in &self.rows {
            out.push_str(&line(r));
        }
        out
    }

    pub fn markdown(&self) -> String {
        let mut out = format!("| {} |\n", self.headers.join(" | "));
        out.push_str(&format!(
            "|{}|\n",
            self.headers
                .iter()
                .enumerate()
                .map(|(i, _)| if i == 0 { " --- " } else { " ---: " })
                .collect::<Vec<_>>()
                .join("|")
        ));
        for r in &self.rows {
            out.push_str(&format!("| {} |\n", r.join(" | ")));
        }
        out
    }
}

fn cell(x: Option<f64>, latency: bool) -> String {
    match x {
        None => "—".into(),
        Some(v) if latency => format!("{v:.0}"),
        Some(v) => format!("{v:.3}"),
    }
}

fn delta(a: Option<f64>, b: Option<f64>, latency: bool) -> String {
    match (a, b) {
        (Some(a), Some(b)) if latency => format!("{:+.0}", a - b),
        (Some(a), Some(b)) => format!("{:+.3}", a - b),
        _ => "—".into(),
    }
}

/// The report's sections as (title, table) pairs.
pub fn tables(r: &Report) -> Vec<(String, Table)> {
    let mut out = vec![("Overall".to_string(), overall(r))];
    out.extend(groups(r));
    out.push(("Intent confusion".to_string(), confusion(r)));
    out.push(("Sources (main run)".to_string(), sources(r)));
    out.extend(changed(r));
    out
}

/// Overall, with the baseline and the comparison side by side.
fn overall(r: &Report) -> Table {
    let mut headers = vec!["metric".to_string(), format!("sagasu ({})", r.policies)];
    if let Some(b) = &r.baseline {
        headers.push(format!("baseline {}", b.name.as_deref().unwrap_or("")));
        headers.push("sagasu − baseline".into());
    }
    if let Some(c) = &r.compare {
        headers.push(format!("compare ({})", c.policies.as_deref().unwrap_or("")));
        headers.push("compare − sagasu".into());
    }
    let mut t = Table {
        headers,
        rows: Vec::new(),
    };
    t.rows.push(
        std::iter::once("questions".to_string())
            .chain(std::iter::once(r.overall.questions.to_string()))
            .chain(
                r.baseline
                    .iter()
                    .flat_map(|b| [b.overall.questions.to_string(), String::new()]),
            )
            .chain(
                r.compare
                    .iter()
                    .flat_map(|c| [c.overall.questions.to_string(), String::new()]),
            )
            .collect(),
    );
    for (key, label) in METRIC_NAMES {
        let lat = key.starts_with("latency");
        let main = r.overall.get(key);
        let mut row = vec![label.to_string(), cell(main, lat)];
        if let Some(b) = &r.baseline {
            let v = b.overall.get(key);
            row.push(cell(v, lat));
            row.push(delta(main, v, lat));
        }
        if let Some(c) = &r.compare {
            let v = c.overall.get(key);
            row.push(cell(v, lat));
            row.push(delta(v, main, lat));
        }
        t.rows.push(row);
    }
    t
}

/// A group's table (per intent, language or set): the main run, and the other sides' headline
/// numbers.
fn group(r: &Report, title: &str, rows: Vec<(String, &Metrics, Vec<&Metrics>)>) -> Table {
    let mut headers = vec![
        title.to_string(),
        "n".into(),
        "intent acc".into(),
        "nDCG@10".into(),
        "R@10".into(),
        "MRR".into(),
        "facts".into(),
        "cit. prec".into(),
        "g2 lead".into(),
        "abstain".into(),
    ];
    if let Some(b) = &r.baseline {
        let n = b.name.as_deref().unwrap_or("baseline");
        headers.push(format!("{n} nDCG@10"));
        headers.push(format!("{n} facts"));
    }
    if r.compare.is_some() {
        headers.push("compare nDCG@10".into());
        headers.push("compare facts".into());
    }
    let mut t = Table {
        headers,
        rows: Vec::new(),
    };
    for (name, m, others) in rows {
        let mut row = vec![
            name,
            m.questions.to_string(),
            cell(m.intent_accuracy, false),
            cell(m.ndcg_at_10, false),
            cell(m.recall_at_10, false),
            cell(m.mrr, false),
            cell(m.answer_fact_recall, false),
            cell(m.citation_precision, false),
            cell(m.lead_grade2, false),
            cell(m.abstention, false),
        ];
        for o in others {
            row.push(cell(o.ndcg_at_10, false));
            row.push(cell(o.answer_fact_recall, false));
        }
        t.rows.push(row);
    }
    t
}

/// Per intent, per language and (with several sets) per set, with the gap of each set to the
/// first.
fn groups(r: &Report) -> Vec<(String, Table)> {
    let mut out = Vec::new();
    // The other sides' metrics for a group, in column order (an absent group counts as empty).
    let empty = Metrics::default();
    let sides: Vec<&Side> = r.baseline.iter().chain(r.compare.iter()).collect();
    // A group's rows: each key's metrics beside the other sides' (empty where they lack it).
    fn rows<'a, K: Ord>(
        own: &'a BTreeMap<K, Metrics>,
        sides: &[&'a Side],
        of: impl Fn(&'a Side) -> &'a BTreeMap<K, Metrics>,
        name: impl Fn(&K) -> String,
        empty: &'a Metrics,
    ) -> Vec<(String, &'a Metrics, Vec<&'a Metrics>)> {
        own.iter()
            .map(|(k, m)| {
                let others = sides.iter().map(|s| of(s).get(k).unwrap_or(empty)).collect();
                (name(k), m, others)
            })
            .collect()
    }
    let by_intent = rows(&r.by_intent, &sides, |s| &s.by_intent, Intent::to_string, &empty);
    out.push(("By intent".to_string(), group(r, "intent", by_intent)));
    let by_lang = rows(&r.by_lang, &sides, |s| &s.by_lang, |l| l.as_str().to_string(), &empty);
    out.push(("By language".to_string(), group(r, "lang", by_lang)));
    if !r.by_reach.is_empty() {
        let by_reach = rows(&r.by_reach, &sides, |s| &s.by_reach, String::clone, &empty);
        out.push((
            "By the language of the evidence".to_string(),
            group(r, "evidence", by_reach),
        ));
    }
    if !r.by_set.is_empty() {
        // In the order the sets were given; the first is the reference for the gap.
        let rows = r
            .sets
            .iter()
            .filter_map(|name| {
                let m = r.by_set.get(name)?;
                let others = sides.iter().map(|s| s.by_set.get(name).unwrap_or(&empty)).collect();
                Some((name.clone(), m, others))
            })
            .collect();
        let mut t = group(r, "set", rows);
        if let Some(first) = r.sets.first().and_then(|f| r.by_set.get(f)) {
            for name in r.sets.iter().skip(1) {
                let Some(m) = r.by_set.get(name) else { continue };
                let mut row = vec![
                    format!("gap: {name}"),
                    String::new(),
                    delta(m.intent_accuracy, first.intent_accuracy, false),
                    delta(m.ndcg_at_10, first.ndcg_at_10, false),
                    delta(m.recall_at_10, first.recall_at_10, false),
                    delta(m.mrr, first.mrr, false),
                    delta(m.answer_fact_recall, first.answer_fact_recall, false),
                    delta(m.citation_precision, first.citation_precision, false),
                    delta(m.abstention, first.abstention, false),
                ];
                row.resize(t.headers.len(), String::new());
                t.rows.push(row);
            }
        }
        out.push(("By golden set".to_string(), t));
    }
    out
}

/// Intent confusion: expected against predicted.
fn confusion(r: &Report) -> Table {
    let mut predicted: Vec<String> = r.confusion.values().flat_map(|m| m.keys().cloned()).collect();
    predicted.sort();
    predicted.dedup();
    let mut t = Table {
        headers: std::iter::once("expected \\ predicted".to_string())
            .chain(predicted.iter().cloned())
            .collect(),
        rows: Vec::new(),
    };
    for (i, m) in &r.confusion {
        t.rows.push(
            std::iter::once(i.to_string())
                .chain(
                    predicted
                        .iter()
                        .map(|p| m.get(p).map_or(String::new(), |n| n.to_string())),
                )
                .collect(),
        );
    }
    t
}

/// Each source's outcomes and latency in the main run.
fn sources(r: &Report) -> Table {
    let mut t = Table::new(&["source", "asked", "ok", "empty", "timeout", "error", "p50 ms", "p95 ms"]);
    for (name, s) in &r.sources {
        t.rows.push(vec![
            name.clone(),
            s.asked.to_string(),
            s.ok.to_string(),
            s.empty.to_string(),
            s.timeout.to_string(),
            s.error.to_string(),
            cell(s.latency_p50_ms, true),
            cell(s.latency_p95_ms, true),
        ]);
    }
    t
}

/// The questions a comparison changed most.
fn changed(r: &Report) -> Option<(String, Table)> {
    if let Some(c) = &r.compare
        && !c.changed.is_empty()
    {
        let mut t = Table::new(&["question", "sagasu", "compare", "delta"]);
        for ch in &c.changed {
            t.rows.push(vec![
                ch.id.clone(),
                format!("{:.3}", ch.before),
                format!("{:.3}", ch.after),
                format!("{:+.3}", ch.delta),
            ]);
        }
        return Some((
            "Questions that changed most (quality = mean of nDCG@10, facts, abstention; won first)".to_string(),
            t,
        ));
    }
    None
}

fn errors(r: &Report) -> Vec<String> {
    r.questions
        .iter()
        .filter_map(|q| q.error.as_ref().map(|e| format!("{}: {e}", q.id)))
        .collect()
}

/// What the language model did over the main run, when it was used: its calls, tokens and
/// time per question, and how many answers it wrote (the rest kept the extractive answer).
fn model_line(r: &Report) -> Option<String> {
    let used: Vec<&crate::llm::ModelUse> = r.questions.iter().filter_map(|q| q.llm.as_ref()).collect();
    let first = used.first()?;
    let n = used.len() as f64;
    let sum = |f: &dyn Fn(&crate::llm::ModelUse) -> u64| used.iter().map(|m| f(m)).sum::<u64>() as f64 / n;
    let mut ms: Vec<u64> = used.iter().map(|m| m.ms).collect();
    ms.sort_unstable();
    let written = used.iter().filter(|m| m.answer == crate::llm::Writer::Model).count();
    Some(format!(
        "language model ({}): {written} of {} answers written by it; per question {:.1} calls, {:.0} prompt and {:.0} completion tokens, {} ms at the median",
        first.model,
        used.len(),
        sum(&|m| u64::from(m.calls)),
        sum(&|m| u64::from(m.prompt_tokens)),
        sum(&|m| u64::from(m.completion_tokens)),
        ms[ms.len() / 2]
    ))
}

pub fn render_text(r: &Report) -> String {
    let mut out = format!(
        "sagasu eval: {} questions from {}\n",
        r.overall.questions,
        r.sets.join(", ")
    );
    if let Some(c) = &r.intent_classifier {
        let _ = writeln!(out, "{}", c.line());
    }
    if let Some(m) = model_line(r) {
        let _ = writeln!(out, "{m}");
    }
    for (title, t) in tables(r) {
        let _ = write!(out, "\n{title}\n{}", t.text());
    }
    let errs = errors(r);
    if !errs.is_empty() {
        let _ = write!(out, "\nQuestions that failed to run:\n- {}\n", errs.join("\n- "));
    }
    out
}

pub fn render_markdown(r: &Report) -> String {
    let mut out = format!(
        "# sagasu eval\n\n{} questions from {}; policies `{}`.\n",
        r.overall.questions,
        r.sets.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", "),
        r.policies
    );
    if let Some(c) = &r.intent_classifier {
        let _ = writeln!(out, "\n{}.", c.line());
    }
    if let Some(m) = model_line(r) {
        let _ = writeln!(out, "\n{m}.");
    }
    for (title, t) in tables(r) {
        let _ = write!(out, "\n## {title}\n\n{}", t.markdown());
    }
    let errs = errors(r);
    if !errs.is_empty() {
        let _ = write!(out, "\n## Questions that failed to run\n\n- {}\n", errs.join("\n- "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_and_render_as_markdown() {
        let mut t = Table::new(&["metric", "value"]);
        t.rows.push(vec!["nDCG@10".into(), "0.812".into()]);
        t.rows.push(vec!["MRR".into(), "1.000".into()]);
        assert_eq!(
            t.text(),
            "metric   value\n-------  -----\nnDCG@10  0.812\nMRR      1.000\n"
        );
        assert_eq!(
            t.markdown(),
            "| metric | value |\n| --- | ---: |\n| nDCG@10 | 0.812 |\n| MRR | 1.000 |\n"
        );
    }
}
