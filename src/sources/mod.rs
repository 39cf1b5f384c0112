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
