//! All configured sources, asked in parallel: every source call has its own deadline and sits
//! under a concurrency limit, and a slow or broken source never holds up the others. What each
//! source did is recorded as a `SourceOutcome`, one per configured source, always.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::join_all;
use serde::Serialize;
use tokio::sync::Semaphore;
use tracing::Instrument;

use crate::config::Config;
use crate::hit::Hit;
use crate::sources::{Connection, SourceError, SourceQuery, SourceResult};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SourceStatus {
    Ok,
    Empty,
    Timeout,
    Error,
    Skipped,
}

/// Told about each asked source as it finishes (the MCP server turns this into progress
/// notifications).
#[derive(Clone)]
pub struct OnSourceDone(pub Arc<dyn Fn(&SourceOutcome) + Send + Sync>);

impl std::fmt::Debug for OnSourceDone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnSourceDone")
    }
}

/// What one source did for one question.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceOutcome {
    pub name: String,
    pub status: SourceStatus,
    pub hits: Vec<Hit>,
    pub latency_ms: u64,
    pub truncated: bool,
    pub note: Option<String>,
    /// Matches the source reported in all, when it says.
    pub total: Option<usize>,
    /// Entries of its data the source's server could not read and left out, when it says.
    pub unreadable: Option<usize>,
}

impl SourceOutcome {
    pub(crate) fn from_result(name: &str, r: Result<SourceResult, SourceError>, latency: Duration) -> SourceOutcome {
        let latency_ms = latency.as_millis() as u64;
        match r {
            Ok(res) => SourceOutcome {
                name: name.to_string(),
                status: if res.hits.is_empty() {
                    SourceStatus::Empty
                } else {
                    SourceStatus::Ok
                },
                hits: res.hits,
                latency_ms,
                truncated: res.truncated,
                note: res.note,
                total: res.total,
                unreadable: (res.unreadable > 0).then_some(res.unreadable),
            },
            Err(e) => SourceOutcome {
                name: name.to_string(),
                status: if matches!(e, SourceError::Timeout(_) | SourceError::Busy { .. }) {
                    SourceStatus::Timeout
                } else {
                    SourceStatus::Error
                },
                hits: Vec::new(),
                latency_ms,
                truncated: false,
                note: Some(e.to_string()),
                total: None,
                unreadable: None,
            },
        }
    }

    fn skipped(name: &str, why: &str) -> SourceOutcome {
        SourceOutcome {
            name: name.to_string(),
            status: SourceStatus::Skipped,
            hits: Vec::new(),
            latency_ms: 0,
            truncated: false,
            note: Some(why.to_string()),
            total: None,
            unreadable: None,
        }
    }
}

/// One line of `sagasu check`.
#[derive(Debug, Clone, PartialEq)]
pub struct Health {
    pub name: String,
    pub kind: &'static str,
    pub enabled: bool,
    pub result: Result<Vec<String>, SourceError>,
    pub latency_ms: u64,
    /// Entries of its data the server said it could not read and left out.
    pub unreadable: Option<usize>,
}

/// Connections to every configured source.
pub struct SourcePool {
    conns: Vec<Arc<Connection>>,
    /// One limit per source (same order as `conns`): a source that hangs holds only its own
    /// slots, never the others'.
    limits: Vec<Arc<Semaphore>>,
}

/// The note of a source the plan left out for the question's kind (the policy does not ask it).
pub const NOT_ASKED: &str = "not asked for this question";

/// Calls in flight at once to one source, across all questions sharing the pool.
pub const DEFAULT_CONCURRENCY: usize = 16;

impl SourcePool {
    pub fn new(config: &Config) -> SourcePool {
        SourcePool {
            conns: config
                .sources
                .iter()
                .cloned()
                .map(|s| Arc::new(Connection::new(s)))
                .collect(),
            limits: config
                .sources
                .iter()
                .map(|_| Arc::new(Semaphore::new(DEFAULT_CONCURRENCY)))
                .collect(),
        }
    }

    pub fn connections(&self) -> &[Arc<Connection>] {
        &self.conns
    }

    pub fn connection(&self, name: &str) -> Option<&Arc<Connection>> {
        self.conns.iter().find(|c| c.config.name == name)
    }

    /// Asks every enabled source its query in parallel. `queries` maps a source name to its
    /// translated query; a source without one is skipped with `why_skipped`. The whole fan-out
    /// ends at `deadline`: a source still running then is recorded as timed out.
    pub async fn search_all(&self, queries: &HashMap<String, SourceQuery>, deadline: Duration) -> Vec<SourceOutcome> {
        self.search_all_with(queries, deadline, None).await
    }

    /// `search_all`, telling `on_done` about each asked source as it finishes.
    pub async fn search_all_with(
        &self,
        queries: &HashMap<String, SourceQuery>,
        deadline: Duration,
        on_done: Option<&OnSourceDone>,
    ) -> Vec<SourceOutcome> {
        let calls = self.conns.iter().zip(&self.limits).map(|(c, limit)| {
            let name = c.config.name.clone();
            let limit = limit.clone();
            let q = queries.get(&name).cloned();
            let span = tracing::info_span!("source", source = %name, latency_ms = tracing::field::Empty, hits = tracing::field::Empty);
            async move {
                if !c.config.enabled {
                    return SourceOutcome::skipped(&name, "disabled in the configuration");
                }
                let Some(q) = q else {
                    return SourceOutcome::skipped(&name, NOT_ASKED);
                };
                let start = Instant::now();
                // A source whose every slot is taken (its earlier calls hang) is waited for no
                // longer than its own timeout, and the wait counts against the ask's deadline.
                let wait = c.config.timeout.min(deadline);
                // One slot per query sent (a query in other words is a call of its own).
                let calls = (1 + q.alternates.len()).min(DEFAULT_CONCURRENCY) as u32;
                let r = match tokio::time::timeout(wait, limit.acquire_many_owned(calls)).await {
                    Err(_) => Err(SourceError::Busy {
                        running: DEFAULT_CONCURRENCY,
                        waited: wait,
                    }),
                    Ok(Err(_)) => return SourceOutcome::skipped(&name, "shutting down"),
                    Ok(Ok(_permit)) => {
                        let left = deadline.saturating_sub(start.elapsed());
                        match tokio::time::timeout(left, crate::sources::search_all_words(c, &q)).await {
                            Ok(r) => r,
                            Err(_) => Err(SourceError::Timeout(deadline)),
                        }
                    }
                };
                let r = r
                    .map(|mut res| {
                        res.note = res.note.map(|n| c.config.redactor.redact(&n));
                        res
                    })
                    .map_err(|e| e.redacted(&c.config.redactor));
                let mut out = SourceOutcome::from_result(&name, r, start.elapsed());
                // Left out of its data (the server's handshake) and of this result (here).
                out.unreadable = match (out.unreadable, c.unreadable()) {
                    (Some(a), Some(b)) => Some(a + b),
                    (a, b) => a.or(b),
                };
                tracing::Span::current().record("latency_ms", out.latency_ms).record("hits", out.hits.len());
                tracing::debug!(status = ?out.status, "source finished");
                if let Some(f) = on_done {
                    (f.0)(&out);
                }
                out
            }
            .instrument(span)
        });
        join_all(calls).await
    }

    /// Connects to every source and lists its tools.
    pub async fn check(&self) -> Vec<Health> {
        join_all(self.conns.iter().map(|c| async move {
            let start = Instant::now();
            let result = if c.config.enabled {
                c.list_tools()
                    .await
                    .map(|ts| ts.into_iter().map(|t| t.name.to_string()).collect())
            } else {
                Ok(Vec::new())
            };
            Health {
                name: c.config.name.clone(),
                kind: c.config.kind.as_str(),
                enabled: c.config.enabled,
                result,
                latency_ms: start.elapsed().as_millis() as u64,
                unreadable: c.unreadable(),
            }
        }))
        .await
    }

    /// Stops every source's server.
    pub async fn shutdown(&self) {
        join_all(self.conns.iter().map(|c| c.shutdown())).await;
    }
}
