//! Golden question sets (contracts section 3): loading and validation.
//!
//! Every problem of a file is reported at once with file:line:column: unknown keys (serde's
//! `deny_unknown_fields`), unknown intents or languages, duplicate question ids, malformed hit
//! ids and grades. An id whose source is not configured can never be returned: that is a
//! warning, not an error (the set may be written for another workspace).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Deserialize;

use crate::config::policy::Intent;
use crate::config::{Config, SourceKind};
use crate::pipeline::confidence::Level;
use crate::util::yaml::{Diagnostic, Diagnostics, Document};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    En,
    Ja,
}

impl Lang {
    pub fn as_str(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ja => "ja",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSet {
    name: String,
    #[serde(default)]
    workspace: Option<String>,
    #[serde(default)]
    as_of: Option<DateTime<Utc>>,
    questions: Vec<RawQuestion>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawQuestion {
    id: String,
    question: String,
    lang: Lang,
    intent: Intent,
    #[serde(default)]
    relevant: BTreeMap<String, u8>,
    #[serde(default)]
    answer_facts: Vec<String>,
    #[serde(default)]
    expect_confidence: Option<Level>,
    #[serde(default)]
    expect_conflict: Option<bool>,
    #[serde(default)]
    unanswerable: bool,
    #[serde(default)]
    as_of: Option<DateTime<Utc>>,
    /// Ids read and judged not relevant (an extension of the format): they count as grade 0,
    /// as any unlisted id does, but a judging pool need not show them again.
    #[serde(default)]
    not_relevant: Vec<String>,
    /// The language its grade-2 evidence is written in (an extension, written by
    /// `scripts/evidence-lang`): a question whose evidence is in the other language is
    /// reported as cross-language.
    #[serde(default)]
    evidence_lang: Option<Lang>,
}

/// One golden question, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub id: String,
    pub question: String,
    pub lang: Lang,
    pub intent: Intent,
    /// Hit id -> grade (2 answers it, 1 supports it).
    pub relevant: BTreeMap<String, u8>,
    pub answer_facts: Vec<String>,
    pub expect_confidence: Option<Level>,
    pub expect_conflict: Option<bool>,
    pub unanswerable: bool,
    /// The evaluation clock for this question.
    pub as_of: DateTime<Utc>,
    /// Ids judged not relevant (grade 0, recorded so a judging pool skips them).
    pub not_relevant: Vec<String>,
    /// The language its grade-2 evidence is written in, when the set says.
    pub evidence_lang: Option<Lang>,
}

impl Question {
    /// Whether the set says its answer lives in the other language (`None`: it does not say).
    pub fn cross_language(&self) -> Option<bool> {
        self.evidence_lang.map(|l| l != self.lang)
    }
}

/// A golden set: its file, the workspace it is written for, and its questions.
#[derive(Debug, Clone, PartialEq)]
pub struct GoldenSet {
    pub file: PathBuf,
    pub name: String,
    /// The configuration the set names (`workspace:`, resolved against the set's folder: a
    /// config file, or a folder holding `sagasu.yaml`).
    pub workspace: Option<PathBuf>,
    pub questions: Vec<Question>,
}

/// Checks a hit id against contracts section 1; `None` when well formed.
pub fn malformed_id(id: &str, kind: Option<SourceKind>) -> Option<String> {
    let Some((source, native)) = id.split_once(':') else {
        return Some(format!("`{id}` is not a hit id: ids are `<source>:<native>`"));
    };
    if source.is_empty() || native.is_empty() {
        return Some(format!("`{id}` is not a hit id: ids are `<source>:<native>`"));
    }
    let bad = match kind {
        Some(SourceKind::Slack) => native
            .split_once('/')
            .is_none_or(|(channel, ts)| {
                channel.is_empty()
                    || !ts.split_once('.').is_some_and(|(s, f)| {
                        !s.is_empty()
                            && s.bytes().all(|b| b.is_ascii_digit())
                            && f.len() == 6
                            && f.bytes().all(|b| b.is_ascii_digit())
                    })
            })
            .then_some("a Slack id is `<channel>/<ts>`, the ts with six decimals"),
        Some(SourceKind::Notion) => (native.len() != 32
            || !native.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
        .then_some("a Notion id is 32 lower-case hex digits, no dashes"),
        Some(SourceKind::Tools) => (!native.contains("__")).then_some("a tool id is `<server>__<tool name>`"),
        _ => None,
    };
    bad.map(|why| format!("`{id}` is malformed: {why}"))
}

/// Loads one golden file. Returns the set and its warnings, or every problem found.
/// `config` (when known) tells which sources exist, for the warnings and the id formats.
pub fn load(path: &Path, config: Option<&Config>) -> Result<(GoldenSet, Vec<Diagnostic>), Diagnostics> {
    let doc = Document::load(path)?;
    let raw: RawSet = doc.deserialize("", &doc.value).map_err(|d| Diagnostics(vec![d]))?;
    let mut problems = Diagnostics::default();
    let mut warnings = Vec::new();
    if raw.questions.is_empty() {
        problems.push(doc.error_at("questions", "the set has no questions"));
    }
    if raw.as_of.is_none() && raw.questions.iter().any(|q| q.as_of.is_none()) {
        problems.push(doc.error_at(
            "",
            "`as_of` is missing: the evaluation clock must be pinned (set it for the file or for every question)",
        ));
    }
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut questions = Vec::new();
    for (i, q) in raw.questions.iter().enumerate() {
        let at = format!("questions[{i}]");
        if q.id.trim().is_empty() {
            problems.push(doc.error_at(&format!("{at}.id"), "the question id is empty"));
        } else if !seen.insert(q.id.as_str()) {
            problems.push(doc.error_at(&format!("{at}.id"), format!("the question id `{}` is used twice", q.id)));
        }
        if q.question.trim().is_empty() {
            problems.push(doc.error_at(&format!("{at}.question"), "the question is empty"));
        }
        if q.unanswerable && !q.relevant.is_empty() {
            problems.push(doc.error_at(
                &format!("{at}.relevant"),
                "an unanswerable question has no relevant evidence",
            ));
        }
        if !q.unanswerable && q.relevant.is_empty() {
            problems.push(doc.error_at(
                &format!("{at}.relevant"),
                "`relevant` is empty: name the evidence that answers it, or mark it `unanswerable: true`",
            ));
        }
        for (id, grade) in &q.relevant {
            let path = format!("{at}.relevant.{id}");
            let source = id.split_once(':').map(|(s, _)| s);
            let kind = config.and_then(|c| source.and_then(|s| c.source(s))).map(|s| s.kind);
            if let Some(why) = malformed_id(id, kind) {
                problems.push(doc.error_at_key(&path, why));
            } else if let (Some(c), Some(s)) = (config, source)
                && c.source(s).is_none()
            {
                warnings.push(doc.error_at_key(
                    &path,
                    format!(
                        "no configured source is named `{s}` (configured: {}): this id can never be returned",
                        c.source_names()
                    ),
                ));
            }
            if !(1..=2).contains(grade) {
                problems.push(doc.error_at(&path, format!("grade {grade}: grades are 1 (supports) or 2 (answers)")));
            }
        }
        for (i, id) in q.not_relevant.iter().enumerate() {
            let path = format!("{at}.not_relevant[{i}]");
            if let Some(why) = malformed_id(id, None) {
                problems.push(doc.error_at(&path, why));
            } else if q.relevant.contains_key(id) {
                problems.push(doc.error_at(&path, format!("`{id}` is graded under `relevant` too")));
            }
        }
        questions.push(Question {
            id: q.id.clone(),
            question: q.question.clone(),
            lang: q.lang,
            intent: q.intent,
            relevant: q.relevant.clone(),
            answer_facts: q.answer_facts.clone(),
            expect_confidence: q.expect_confidence,
            expect_conflict: q.expect_conflict,
            unanswerable: q.unanswerable,
            as_of: q.as_of.or(raw.as_of).unwrap_or_default(),
            not_relevant: q.not_relevant.clone(),
            evidence_lang: q.evidence_lang,
        });
    }
    let workspace = raw.workspace.as_ref().map(|w| {
        let p = path.parent().unwrap_or(Path::new(".")).join(w);
        if p.is_dir() { p.join("sagasu.yaml") } else { p }
    });
    problems.into_result((
        GoldenSet {
            file: path.to_path_buf(),
            name: raw.name,
            workspace,
            questions,
        },
        warnings,
    ))
}

/// The workspace a golden file names, read without validating the rest (to know which
/// configuration to validate the ids against).
pub fn workspace_of(path: &Path) -> Option<PathBuf> {
    let doc = Document::load(path).ok()?;
    let w = doc.get("workspace")?.as_str()?;
    let p = path.parent().unwrap_or(Path::new(".")).join(w);
    Some(if p.is_dir() { p.join("sagasu.yaml") } else { p })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("g.yaml");
        std::fs::write(&p, text).unwrap();
        (dir, p)
    }

    #[test]
    fn a_valid_set_loads() {
        let (_d, p) = write(
            "name: t\nas_of: 2026-11-20T09:00:00Z\nquestions:\n  - id: q1\n    question: \"What?\"\n    lang: en\n    intent: decision\n    relevant:\n      \"slack:pricing/1761905400.000200\": 2\n    answer_facts: [\"$49\"]\n  - id: q2\n    question: \"何？\"\n    lang: ja\n    intent: factual\n    unanswerable: true\n    expect_confidence: low\n",
        );
        let (set, warnings) = load(&p, None).unwrap();
        assert_eq!(set.questions.len(), 2);
        assert!(warnings.is_empty());
        assert_eq!(set.questions[1].expect_confidence, Some(Level::Low));
        assert_eq!(set.questions[0].as_of.to_rfc3339(), "2026-11-20T09:00:00+00:00");
    }

    #[test]
    fn every_problem_is_reported_with_its_position() {
        let (_d, p) = write(
            "name: t\nas_of: 2026-11-20T09:00:00Z\nquestions:\n  - id: q1\n    question: \"What?\"\n    lang: en\n    intent: decision\n    relevant:\n      \"no-colon\": 2\n      \"slack:x/1.5\": 3\n  - id: q1\n    question: \"Again\"\n    lang: en\n    intent: status\n    relevant: {\"notion:ABC\": 1}\n",
        );
        let config_text = "sources:\n  slack:\n    kind: slack\n    command: [sagasu, source, slack, --data, s]\n  notion:\n    kind: notion\n    command: [sagasu, source, notion, --data, n]\n";
        let doc = Document::parse(Path::new("c.yaml"), config_text.to_string()).unwrap();
        let config = Config::from_document(&doc, &|_| None).unwrap();
        let err = load(&p, Some(&config)).unwrap_err().to_string();
        assert!(
            err.contains("g.yaml:9:7") && err.contains("`no-colon` is not a hit id"),
            "{err}"
        );
        assert!(err.contains("g.yaml:10:7") && err.contains("six decimals"), "{err}");
        assert!(err.contains("g.yaml:10:22") && err.contains("grade 3"), "{err}");
        assert!(err.contains("g.yaml:11:9") && err.contains("used twice"), "{err}");
        assert!(err.contains("32 lower-case hex"), "{err}");
    }

    #[test]
    fn ids_judged_not_relevant_are_kept_and_checked() {
        let (_d, p) = write(
            "name: t\nas_of: 2026-11-20T09:00:00Z\nquestions:\n  - id: q1\n    question: \"What?\"\n    lang: en\n    intent: decision\n    relevant: {\"slack:a/1761905400.000200\": 2}\n    not_relevant: [\"slack:b/1761905400.000300\"]\n",
        );
        let (set, _) = load(&p, None).unwrap();
        assert_eq!(set.questions[0].not_relevant, ["slack:b/1761905400.000300"]);
        let (_d, p) = write(
            "name: t\nas_of: 2026-11-20T09:00:00Z\nquestions:\n  - id: q1\n    question: \"What?\"\n    lang: en\n    intent: decision\n    relevant: {\"slack:a/1761905400.000200\": 2}\n    not_relevant: [\"slack:a/1761905400.000200\", \"nocolon\"]\n",
        );
        let err = load(&p, None).unwrap_err().to_string();
        assert!(
            err.contains("g.yaml:9:20") && err.contains("graded under `relevant` too"),
            "{err}"
        );
        assert!(err.contains("`nocolon` is not a hit id"), "{err}");
    }

    #[test]
    fn the_language_of_the_evidence_says_whether_a_question_crosses_languages() {
        let q = |extra: &str| {
            let (_d, p) = write(&format!(
                "name: t\nas_of: 2026-11-20T09:00:00Z\nquestions:\n  - id: q1\n    question: \"What?\"\n    lang: en\n    intent: decision\n    relevant: {{\"slack:a/1761905400.000200\": 2}}\n{extra}"
            ));
            load(&p, None).map(|(s, _)| s.questions[0].cross_language())
        };
        assert_eq!(q("").unwrap(), None);
        assert_eq!(q("    evidence_lang: ja\n").unwrap(), Some(true));
        assert_eq!(q("    evidence_lang: en\n").unwrap(), Some(false));
        let err = q("    evidence_lang: de\n").unwrap_err().to_string();
        assert!(err.contains("unknown variant `de`"), "{err}");
    }

    #[test]
    fn unknown_keys_and_intents_are_errors() {
        let (_d, p) = write(
            "name: t\nas_of: 2026-11-20T09:00:00Z\nquestions:\n  - id: q1\n    question: \"What?\"\n    lang: en\n    intent: decision\n    relevnt: {}\n",
        );
        let err = load(&p, None).unwrap_err().to_string();
        assert!(
            err.contains("g.yaml:8:5") && err.contains("unknown field `relevnt`"),
            "{err}"
        );
        let (_d, p) = write(
            "name: t\nas_of: 2026-11-20T09:00:00Z\nquestions:\n  - id: q1\n    question: \"What?\"\n    lang: fr\n    intent: guess\n    unanswerable: true\n",
        );
        let err = load(&p, None).unwrap_err().to_string();
        assert!(err.contains("unknown variant `fr`"), "{err}");
    }

    #[test]
    fn an_unconfigured_source_is_a_warning() {
        let (_d, p) = write(
            "name: t\nas_of: 2026-11-20T09:00:00Z\nquestions:\n  - id: q1\n    question: \"What?\"\n    lang: en\n    intent: decision\n    relevant: {\"jira:ABC-1\": 2}\n",
        );
        let doc = Document::parse(
            Path::new("c.yaml"),
            "sources:\n  slack:\n    kind: slack\n    command: [x]\n".to_string(),
        )
        .unwrap();
        let config = Config::from_document(&doc, &|_| None).unwrap();
        let (_, warnings) = load(&p, Some(&config)).unwrap();
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].to_string().contains("no configured source is named `jira`"));
    }
}
