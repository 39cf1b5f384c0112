//! Conflict detection: when top evidence from different places states different values of the
//! kind the question asks about (an amount, a date, a duration, a percentage), each value is a
//! position with its evidence and date, newest first. Pure.

use crate::config::policy::Lexicon;
use crate::pipeline::dedup::Cluster;
use crate::pipeline::query::Analysis;
use crate::pipeline::rank::Evidence;
use crate::text;
use crate::text::values::{self, ValueKind};

/// One side of a disagreement.
#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    pub value: String,
    pub claim: String,
    /// Indexes of clusters (in rank order) that hold this value.
    pub clusters: Vec<usize>,
    pub date: Option<chrono::DateTime<chrono::Utc>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Disagreement {
    pub kind: ValueKind,
    /// Newest first.
    pub sides: Vec<Side>,
}

fn clean_sentence(s: &str) -> String {
    let s = s.trim().trim_start_matches(['#', '-', '*', '>', '|', ' ']).trim();
    s.replace("**", "")
        .replace(" | ", " ")
        .trim_end_matches('|')
        .trim()
        .to_string()
}

/// Words that withdraw or negate what a sentence states ("the $49 price is withdrawn").
const WITHDRAWN: &[&str] = &[
    "withdrawn",
    "walking back",
    "walked back",
    "cancelled",
    "canceled",
    "no longer",
    "reverted",
    "instead of",
    "撤回",
    "中止",
    "取り消",
    "見送",
];

/// What still stands of a claim: its sentences that withdraw nothing, joined ("we are walking
/// back the $49 price. Pro is $45." stands as "Pro is $45."); empty when every sentence withdraws.
pub fn standing(claim: &str) -> String {
    text::sentences(claim)
        .into_iter()
        .map(|(s, t)| claim[s..t].trim())
        .filter(|s| !s.is_empty() && !withdrawn(s))
        .collect::<Vec<_>>()
        .join(" ")
}

fn withdrawn(s: &str) -> bool {
    let n = text::normalize(s);
    WITHDRAWN.iter().any(|c| crate::pipeline::intent::cue_matches(&n, c))
}

/// The sentence of `e`'s best passage that best answers the question: most concepts covered,
/// then not withdrawn, then holding a value of the focus kind, then reading as a conclusion,
/// then earliest.
pub fn best_sentence(e: &Evidence, analysis: &Analysis, lexicon: &Lexicon, focus: Option<ValueKind>) -> String {
    let p = e.passage_text();
    let sents = statements(p);
    // (not a heading, concepts covered, not withdrawn, holds a focus value, reads as a conclusion)
    type Key = (bool, usize, bool, bool, bool);
    let mut best: Option<(Key, usize)> = None;
    // A sentence is read with the headings it sits under: under "# Public API" and "## Rate
    // limits", "It allows 1,000 requests per minute" answers "what is the API's rate limit?".
    let mut open: Vec<(usize, &str)> = Vec::new();
    let in_section = |sent: &str, section: &str| format!("{section} {sent}");
    let mut sections: Vec<String> = Vec::with_capacity(sents.len());
    for (i, (sent, level)) in sents.iter().enumerate() {
        let heading = *level > 0;
        if heading {
            open.retain(|(l, _)| l < level);
            open.push((*level, sent));
        }
        sections.push(open.iter().map(|(_, h)| *h).collect::<Vec<_>>().join(" "));
        let section = &sections[i];
        // A heading names a section; it is not a statement.
        let covered = crate::pipeline::rank::covered_concepts(&in_section(sent, section), analysis);
        let has_value = focus.is_some_and(|k| values::extract(sent).iter().any(|v| v.kind == k));
        let key = (
            !heading,
            covered,
            !withdrawn(sent),
            has_value,
            crate::pipeline::rank::is_conclusion(sent, lexicon),
        );
        if best.as_ref().is_none_or(|(k, _)| key > *k) {
            best = Some((key, i));
        }
    }
    let Some((key, i)) = best else { return clean_sentence(p) };
    let mut out = sents[i].0.clone();
    // The next sentence joins when it says more about the question ("... kickoff is Sept 29.
    // I'm the point of contact."), or when this one withdraws something: what replaces it
    // usually follows ("we are walking back the $49 price. Final decision: Pro is $45.").
    if let Some((next, 0)) = sents.get(i + 1) {
        let both =
            crate::pipeline::rank::covered_concepts(&in_section(&format!("{out} {next}"), &sections[i]), analysis);
        let replacement = !key.2 && !withdrawn(next);
        if (both > key.1 || replacement) && out.chars().count() + next.chars().count() < 320 {
            out = format!("{out} {next}");
        }
    }
    out
}

/// What a cluster's evidence claims, read once per answer: its best statement for the question
/// (`best_sentence`, with the kind of value the question asks for), what still stands of it
/// (`standing`: empty when it only withdraws), the value of that kind it states, and the
/// cluster's latest date.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    pub statement: String,
    pub standing: String,
    pub value: Option<values::Value>,
    pub date: Option<chrono::DateTime<chrono::Utc>>,
}

/// The claim of every cluster, in order.
pub fn claims(clusters: &[Cluster], analysis: &Analysis, lexicon: &Lexicon) -> Vec<Claim> {
    clusters
        .iter()
        .map(|c| {
            let statement = best_sentence(c.rep(), analysis, lexicon, analysis.focus);
            let standing = standing(&statement);
            Claim {
                value: analysis.focus.and_then(|k| claimed_value(&standing, k)),
                statement,
                standing,
                date: c.members.iter().filter_map(|m| m.hit.timestamp).max(),
            }
        })
        .collect()
}

/// The first statement of a document (its headings skipped): what the document says it is.
pub fn opening_sentence(text: &str) -> Option<String> {
    statements(text)
        .into_iter()
        .find(|(_, level)| *level == 0)
        .map(|(s, _)| s)
}

/// The sentences of a text, cleaned of markup, each with its heading level (0: not a heading);
/// fragments under three characters are dropped.
fn statements(text: &str) -> Vec<(String, usize)> {
    text::sentences(text)
        .into_iter()
        .map(|(s, t)| {
            let level = text[s..t].trim_start().chars().take_while(|&c| c == '#').count();
            (clean_sentence(&text[s..t]), level)
        })
        .filter(|(s, _)| s.chars().count() >= 3)
        .collect()
}

/// The value of `kind` a claim states in what still stands of it (`standing`).
pub fn stated_value(claim: &str, kind: ValueKind) -> Option<values::Value> {
    claimed_value(&standing(claim), kind)
}

/// A document's sections in brief: each section's heading with its first statement ("Summary:
/// the outage lasted 51 minutes. Root cause: the SAML certificate expired."), up to `max` chars;
/// a first statement that withdraws something keeps the next, which says what replaces it.
/// A document without sections gives its opening statements.
pub fn outline(text: &str, max: usize) -> String {
    let lines = statements(text);
    let sectioned = lines.iter().any(|(_, l)| *l >= 2);
    let mut parts: Vec<String> = Vec::new();
    let mut len = 0;
    let mut push = |part: String, parts: &mut Vec<String>| {
        let n = part.chars().count();
        if len + n > max && !parts.is_empty() {
            return false;
        }
        len += n + 1;
        parts.push(part);
        true
    };
    for (i, (line, level)) in lines.iter().enumerate() {
        let statement = |k: usize| {
            let (first, _) = lines.get(k).filter(|(_, l)| *l == 0)?;
            Some(match lines.get(k + 1) {
                Some((next, 0)) if withdrawn(first) && !withdrawn(next) => format!("{first} {next}"),
                _ => first.clone(),
            })
        };
        let part = if sectioned {
            if *level < 2 {
                continue;
            }
            match statement(i + 1) {
                Some(first) => format!("{}: {first}", line.trim_end_matches(':')),
                None => continue,
            }
        } else {
            if *level > 0 {
                continue;
            }
            line.clone()
        };
        if !push(part, &mut parts) {
            break;
        }
    }
    parts.join(" ")
}

/// The value a claim states: of `kind`, and in "from X to Y" (or "XからYに") the new value Y.
pub fn claimed_value(claim: &str, kind: ValueKind) -> Option<values::Value> {
    let vs: Vec<values::Value> = values::extract(claim).into_iter().filter(|v| v.kind == kind).collect();
    if vs.len() >= 2 {
        let between = &claim[vs[0].end..vs[1].start];
        let b = text::normalize(between);
        if b.trim() == "to"
            || b.contains(" to ")
            || b.starts_with("to ")
            || b.contains("から")
            || b.contains('→')
            || b.contains("->")
        {
            return Some(vs[1].clone());
        }
    }
    vs.into_iter().next()
}

/// Values compare only within one unit (dollars with dollars, days with days).
fn unit_of(v: &values::Value) -> String {
    match v.kind {
        ValueKind::Money => v.canonical.chars().take_while(|c| c.is_ascii_alphabetic()).collect(),
        ValueKind::Duration => v.canonical.split(' ').nth(1).unwrap_or("").to_string(),
        _ => String::new(),
    }
}

/// Finds a disagreement among the top clusters (those within reach of the best); `claims` are
/// theirs (`claims`). Without a value kind asked for, the kind is the one the best claim states,
/// and the others are read again for it.
pub fn detect(clusters: &[Cluster], claims: &[Claim], analysis: &Analysis, lexicon: &Lexicon) -> Option<Disagreement> {
    let focus_kind = analysis.focus;
    let top = clusters.first()?.score();
    let candidates: Vec<(usize, &Cluster)> = clusters
        .iter()
        .enumerate()
        .take(6)
        .filter(|(_, c)| c.score() >= top * 0.45 && c.rep().coverage >= 0.45)
        .collect();
    if candidates.len() < 2 {
        return None;
    }
    let first_claim = &claims[candidates[0].0].statement;
    let kind = focus_kind.or_else(|| {
        values::extract(first_claim)
            .into_iter()
            .map(|v| v.kind)
            .find(|k| *k != ValueKind::Number)
    })?;
    let mut sides: Vec<Side> = Vec::new();
    let mut places: Vec<(String, String)> = Vec::new();
    let mut unit: Option<String> = None;
    for (i, c) in &candidates {
        let rep = c.rep();
        let (claim, v) = if focus_kind == Some(kind) {
            (claims[*i].statement.clone(), claims[*i].value.clone())
        } else {
            let claim = best_sentence(rep, analysis, lexicon, Some(kind));
            let v = stated_value(&claim, kind);
            (claim, v)
        };
        let Some(v) = v else {
            continue;
        };
        let u = unit_of(&v);
        if unit.get_or_insert_with(|| u.clone()) != &u {
            continue;
        }
        places.push((rep.hit.source.clone(), rep.hit.location.clone()));
        let date = claims[*i].date;
        match sides.iter_mut().find(|s| s.value == v.canonical) {
            Some(s) => {
                s.clusters.push(*i);
                s.date = s.date.max(date);
            }
            None => sides.push(Side {
                value: v.canonical.clone(),
                claim,
                clusters: vec![*i],
                date,
            }),
        }
    }
    places.sort();
    places.dedup();
    if sides.len() < 2 || places.len() < 2 {
        return None;
    }
    sides.sort_by_key(|s| std::cmp::Reverse(s.date));
    Some(Disagreement { kind, sides })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_take_the_new_value() {
        let v = claimed_value("We raise the Pro plan from $39 to $49 per seat.", ValueKind::Money).unwrap();
        assert_eq!(v.canonical, "usd49");
        let v = claimed_value("リリースを11月24日から12月8日に延期します。", ValueKind::Date).unwrap();
        assert_eq!(v.canonical, "12-08");
        let v = claimed_value("Pro is $45, Enterprise $90.", ValueKind::Money).unwrap();
        assert_eq!(v.canonical, "usd45");
        assert!(withdrawn("The $49 Pro price is withdrawn."));
    }

    #[test]
    fn an_outline_gives_each_section_its_first_statement() {
        let doc = "# Postmortem\n\n## Summary\nThe outage lasted 51 minutes. SEV1.\n\n## Decision\n\
                   - The $49 price is withdrawn.\n- Pro is $45.\n\n## Links\n";
        assert_eq!(
            outline(doc, 400),
            "Summary: The outage lasted 51 minutes. Decision: The $49 price is withdrawn. Pro is $45."
        );
        assert_eq!(outline(doc, 40), "Summary: The outage lasted 51 minutes.");
        assert_eq!(
            outline("Welcome! Start here.\nAsk Ken.", 400),
            "Welcome! Start here. Ask Ken."
        );
    }

    #[test]
    fn a_withdrawal_leaves_what_replaces_it() {
        assert_eq!(
            standing("We are walking back the $49 price. Final decision: Pro is $45 per seat."),
            "Final decision: Pro is $45 per seat."
        );
        assert_eq!(standing("The $49 Pro price is withdrawn."), "");
        let v = claimed_value(
            &standing("価格改定は撤回します。Proは45ドルのままです。"),
            ValueKind::Money,
        )
        .unwrap();
        assert_eq!(v.canonical, "usd45");
    }
}
