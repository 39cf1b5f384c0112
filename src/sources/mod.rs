//! The MCP client side: one adapter per kind of source turns a `SourceQuery` into tool calls
//! and parses the server's result shapes into `Hit`s with contract ids.
//!
//! Invariant: parsers never panic; garbage from a server is a `SourceError::Parse` with a note.
//! Invariant: a source failure is data (`SourceOutcome::status`), never an error of the whole.

pub mod connection;
pub mod generic;
pub mod notion;
pub mod pool;
pub mod rocketchat;
pub mod slack;
pub mod tools;

use std::time::Duration;

use chrono::{DateTime, Utc};
use rmcp::model::CallToolResult;

use crate::hit::Hit;

pub use connection::Connection;
pub use pool::{SourceOutcome, SourcePool, SourceStatus};

/// What one source is asked: words and filters already translated from the question.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SourceQuery {
    /// Free-text keywords.
    pub text: String,
    /// Phrases that must appear as written.
    pub phrases: Vec<String>,
    /// A channel or room to search in (without `#`).
    pub channel: Option<String>,
    /// A person whose messages to search.
    pub user: Option<String>,
    /// Only evidence at or after this time.
    pub after: Option<DateTime<Utc>>,
    /// Only evidence before this time.
    pub before: Option<DateTime<Utc>>,
    /// Most hits wanted.
    pub limit: usize,
    /// The same search in other words (the question in the other language): each is sent as
    /// a query of its own, with the same filters and limit, in parallel with `text`, and the
    /// hits are merged (`merge`).
    pub alternates: Vec<String>,
}

impl SourceQuery {
    pub fn new(text: impl Into<String>, limit: usize) -> SourceQuery {
        SourceQuery {
            text: text.into(),
            limit,
            ..Default::default()
        }
    }
}

/// Hits from one source, and whether the source cut them off.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SourceResult {
    pub hits: Vec<Hit>,
    /// The source had more than it returned.
    pub truncated: bool,
    /// Matches the source reported in all (when it says).
    pub total: Option<usize>,
    /// What the source said about its own coverage ("searched 4 of 5 rooms").
    pub note: Option<String>,
    /// Results the source returned that could not be read (no id of the contract's shape)
    /// and were left out.
    pub unreadable: usize,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SourceError {
    #[error("timed out after {} ms", .0.as_millis())]
    Timeout(Duration),
    /// Every slot for calls to the source stayed taken (by earlier calls still running) for
    /// the whole wait.
    #[error("timed out after {} ms waiting behind {running} calls to it still running", .waited.as_millis())]
    Busy { running: usize, waited: Duration },
    #[error("{0}")]
    Spawn(String),
    #[error("protocol error: {0}")]
    Protocol(String),
    #[error("not authorised: {0}")]
    Auth(String),
    #[error("rate limited: {0}")]
    RateLimited(String),
    #[error("tool error: {0}")]
    Tool(String),
    #[error("unreadable result: {0}")]
    Parse(String),
    #[error("{0}")]
    Unsupported(String),
}

impl SourceError {
    /// The same error with its text passed through `r` (an upstream's error body can echo a
    /// token back).
    pub fn redacted(self, r: &crate::util::redact::Redactor) -> SourceError {
        use SourceError::*;
        match self {
            Timeout(d) => Timeout(d),
            Busy { running, waited } => Busy { running, waited },
            Spawn(s) => Spawn(r.redact(&s)),
            Protocol(s) => Protocol(r.redact(&s)),
            Auth(s) => Auth(r.redact(&s)),
            RateLimited(s) => RateLimited(r.redact(&s)),
            Tool(s) => Tool(r.redact(&s)),
            Parse(s) => Parse(r.redact(&s)),
            Unsupported(s) => Unsupported(r.redact(&s)),
        }
    }
}

/// The text blocks of a tool result, joined.
pub fn result_text(r: &CallToolResult) -> String {
    let mut parts: Vec<&str> = r
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect();
    if parts.is_empty()
        && let Some(s) = &r.structured_content
    {
        return s.to_string();
    }
    parts.retain(|p| !p.is_empty());
    parts.join("\n")
}

/// Fails with the tool's own words when it returned an error result.
pub fn ok_text(r: &CallToolResult) -> Result<String, SourceError> {
    let text = result_text(r);
    if r.is_error == Some(true) {
        let msg = if text.is_empty() {
            "the tool reported an error".to_string()
        } else {
            text
        };
        let lower = msg.to_lowercase();
        return Err(if lower.contains("rate limit") || lower.contains("429") {
            SourceError::RateLimited(msg)
        } else if lower.contains("unauthor")
            || lower.contains("forbidden")
            || lower.contains("401")
            || lower.contains("403")
        {
            SourceError::Auth(msg)
        } else {
            SourceError::Tool(msg)
        });
    }
    Ok(text)
}

/// Parses a tool's JSON text, or a `Parse` error quoting the start of what came back.
pub fn parse_json(text: &str) -> Result<serde_json::Value, SourceError> {
    serde_json::from_str(text.trim()).map_err(|e| {
        SourceError::Parse(format!(
            "expected JSON ({e}); got `{}`",
            crate::text::truncate_chars(text.trim(), 80)
        ))
    })
}

/// Runs a query and its `alternates` on one source, in parallel, and merges what they found.
pub async fn search_all_words(conn: &Connection, q: &SourceQuery) -> Result<SourceResult, SourceError> {
    if q.alternates.is_empty() {
        return search(conn, q).await;
    }
    let queries: Vec<SourceQuery> = std::iter::once(q.text.clone())
        .chain(q.alternates.iter().cloned())
        .map(|text| SourceQuery {
            text,
            alternates: Vec::new(),
            ..q.clone()
        })
        .collect();
    let results = futures::future::join_all(queries.iter().map(|q| search(conn, q))).await;
    merge(results)
}

/// One result from the results of a query and its alternates (the first is the query's own):
/// the hits of each in turn, a hit found again kept once (with the higher of its native
/// scores), each query's hits keeping their own rank. What failed is said in the note while
/// another query found something; when every query failed, the first query's error stands.
pub fn merge(results: Vec<Result<SourceResult, SourceError>>) -> Result<SourceResult, SourceError> {
    let mut out: Option<SourceResult> = None;
    let mut failed: Vec<String> = Vec::new();
    let mut first_error: Option<SourceError> = None;
    for (i, r) in results.into_iter().enumerate() {
        let res = match r {
            Ok(res) => res,
            Err(e) => {
                failed.push(if i == 0 {
                    format!("the query failed ({e})")
                } else {
                    format!("the query in other words failed ({e})")
                });
                first_error.get_or_insert(e);
                continue;
            }
        };
        let Some(acc) = out.as_mut() else {
            out = Some(res);
            continue;
        };
        for h in res.hits {
            match acc.hits.iter_mut().find(|x| x.id == h.id) {
                Some(x) => {
                    x.native_score = match (x.native_score, h.native_score) {
                        (Some(a), Some(b)) => Some(a.max(b)),
                        (a, b) => a.or(b),
                    };
                    x.native_rank = x.native_rank.min(h.native_rank);
                }
                None => acc.hits.push(h),
            }
        }
        acc.truncated |= res.truncated;
        acc.total = match (acc.total, res.total) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        acc.unreadable += res.unreadable;
        if let Some(n) = res.note
            && acc.note.as_deref() != Some(n.as_str())
        {
            acc.note = Some(match acc.note.take() {
                Some(a) => format!("{a}; {n}"),
                None => n,
            });
        }
    }
    match out {
        None => Err(first_error.unwrap_or_else(|| SourceError::Unsupported("no query to run".into()))),
        Some(mut acc) => {
            if !failed.is_empty() {
                let f = failed.join("; ");
                acc.note = Some(match acc.note.take() {
                    Some(a) => format!("{a}; {f}"),
                    None => f,
                });
            }
            Ok(acc)
        }
    }
}

/// Runs one search on one source with the adapter for its kind.
pub async fn search(conn: &Connection, q: &SourceQuery) -> Result<SourceResult, SourceError> {
    use crate::config::SourceKind;
    match conn.config.kind {
        SourceKind::Slack => slack::search(conn, q).await,
        SourceKind::Notion => notion::search(conn, q).await,
        SourceKind::Rocketchat => rocketchat::search(conn, q).await,
        SourceKind::Tools => tools::search(conn, q).await,
        SourceKind::Generic => generic::search(conn, q).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hit::EvidenceKind;

    fn found(ids: &[(&str, f64)], truncated: bool, note: Option<&str>) -> Result<SourceResult, SourceError> {
        Ok(SourceResult {
            hits: ids
                .iter()
                .enumerate()
                .map(|(rank, (id, score))| {
                    let mut h = Hit::new("s", id, EvidenceKind::Chat, *id);
                    h.native_rank = rank;
                    h.native_score = Some(*score);
                    h
                })
                .collect(),
            truncated,
            total: Some(ids.len()),
            note: note.map(str::to_string),
            unreadable: 1,
        })
    }

    #[test]
    fn merged_queries_keep_each_hit_once() {
        let r = merge(vec![
            found(&[("a", 0.5), ("b", 0.4)], false, Some("searched 3 of 4 rooms")),
            found(&[("c", 0.9), ("a", 0.8)], true, Some("searched 3 of 4 rooms")),
        ])
        .expect("both found");
        let ids: Vec<&str> = r.hits.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids, ["s:a", "s:b", "s:c"]);
        assert_eq!(r.hits[0].native_score, Some(0.8), "the better of its scores");
        assert_eq!(r.hits[2].native_rank, 0, "its own query's rank");
        assert!(r.truncated);
        assert_eq!(r.unreadable, 2);
        assert_eq!(r.note.as_deref(), Some("searched 3 of 4 rooms"), "the same note once");
    }

    #[test]
    fn a_failed_query_is_said_while_another_found_something() {
        let r = merge(vec![
            Err(SourceError::Timeout(std::time::Duration::from_secs(2))),
            found(&[("a", 0.5)], false, None),
        ])
        .expect("the other query found");
        assert_eq!(r.hits.len(), 1);
        assert!(
            r.note.as_deref().is_some_and(|n| n.contains("timed out")),
            "{:?}",
            r.note
        );
        let err = merge(vec![
            Err(SourceError::Auth("bad token".into())),
            Err(SourceError::Timeout(std::time::Duration::from_secs(2))),
        ])
        .expect_err("both failed");
        assert_eq!(
            err,
            SourceError::Auth("bad token".into()),
            "the query's own error stands"
        );
    }
}
