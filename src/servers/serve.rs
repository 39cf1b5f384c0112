//! `sagasu serve`: the one MCP tool, `ask`, for AI assistants, over stdio or streamable HTTP.
//!
//! The result's `structuredContent` is the contract object (contracts section 4) under an output
//! schema generated from the same Rust type; its text block is the readable Markdown answer.
//! Progress notifications go out as each source finishes (when the client sent a progress
//! token); a cancelled request drops its in-flight source calls. Every ask runs on one shared
//! `Engine`, so concurrent asks share the source connections.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, ProgressNotificationParam, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use tokio_util::task::TaskTracker;

use crate::config::policy::Intent;
use crate::llm::{Completion, LanguageModel, LlmError, Prompt, Reply};
use crate::pipeline::answer::{AskResponse, render_markdown};
use crate::pipeline::ask::{AskError, AskOptions, Engine, SharedModel};
use crate::sources::pool::{OnSourceDone, SourceStatus};

/// The tool's description: when a model should call it, and what comes back.
pub const ASK_DESCRIPTION: &str = "Search the company's knowledge (Slack, Notion, RocketChat and \
the tool catalog, all at once) and answer with citations. Use it for any question about the \
company: decisions and why they were made, the status of projects and tasks, where a document \
is, who owns or knows something, facts such as prices, limits and policies, when something \
happened or is planned, overviews of a topic, and which tool or integration can do something. \
Questions may be English or Japanese, phrased as a colleague would ask them. Returns a short \
answer with inline [n] citations, the citations (source, author, date, link, snippet), any \
conflict between sources with dates, a confidence level with reasons, and which sources failed, \
timed out or were cut off.";

/// Most hits a caller may ask of one source.
pub const MAX_LIMIT: usize = 100;
/// How long a shutdown waits for in-flight asks before it stops them.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// The arguments of `ask`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskArgs {
    /// The question, in English or Japanese, as a colleague would ask it.
    pub question: String,
    /// Ask only these sources (names from the server's configuration). Default: the sources
    /// the question's kind prefers.
    #[serde(default)]
    pub sources: Option<Vec<String>>,
    /// Most hits to read from each source (1 to 100). Default: the policy's limit per source.
    #[serde(default)]
    pub limit: Option<usize>,
    /// Only evidence from this time on: a date (2026-10-01) or an RFC 3339 time.
    #[serde(default)]
    pub since: Option<String>,
    /// Only evidence before this time: a date (2026-11-01) or an RFC 3339 time.
    #[serde(default)]
    pub until: Option<String>,
    /// Read the question as this kind instead of classifying it.
    #[serde(default)]
    pub intent: Option<Intent>,
}

/// A time argument: an RFC 3339 time or a plain date (midnight UTC).
fn parse_time(field: &str, s: &str) -> Result<DateTime<Utc>, McpError> {
    let s = s.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Ok(t.with_timezone(&Utc));
    }
    if let Ok(d) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        return Ok(d.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc());
    }
    Err(McpError::invalid_params(
        format!("`{field}` must be a date like 2026-10-01 or an RFC 3339 time like 2026-10-01T09:00:00Z, not `{s}`"),
        None,
    ))
}

impl AskArgs {
    /// Checks the arguments and turns them into options; every problem is `invalid_params`.
    pub fn options(&self, engine: &Engine) -> Result<AskOptions, McpError> {
        if self.question.trim().is_empty() {
            return Err(McpError::invalid_params("`question` must not be empty", None));
        }
        if let Some(only) = &self.sources {
            if only.is_empty() {
                return Err(McpError::invalid_params(
                    format!(
                        "`sources` must name at least one source (configured: {})",
                        engine.config.source_names()
                    ),
                    None,
                ));
            }
            for s in only {
                if engine.config.source(s).is_none() {
                    return Err(McpError::invalid_params(
                        format!("unknown source `{s}` (configured: {})", engine.config.source_names()),
                        None,
                    ));
                }
            }
        }
        if let Some(l) = self.limit
            && !(1..=MAX_LIMIT).contains(&l)
        {
            return Err(McpError::invalid_params(
                format!("`limit` must be between 1 and {MAX_LIMIT}, not {l}"),
                None,
            ));
        }
        let since = self.since.as_deref().map(|s| parse_time("since", s)).transpose()?;
        let until = self.until.as_deref().map(|s| parse_time("until", s)).transpose()?;
        if let (Some(a), Some(b)) = (since, until)
            && a >= b
        {
            return Err(McpError::invalid_params("`since` must be before `until`", None));
        }
        Ok(AskOptions {
            sources: self.sources.clone(),
            limit: self.limit,
            since,
            until,
            intent: self.intent,
            ..Default::default()
        })
    }
}

/// The JSON schema of the arguments.
pub fn input_schema() -> Arc<JsonObject> {
    rmcp::handler::server::common::schema_for_type::<AskArgs>()
}

/// The JSON schema of `structuredContent`: the contract object (contracts section 4).
pub fn output_schema() -> Arc<JsonObject> {
    // Generated for serializing: a field left out when empty is not required.
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<AskResponse>();
    match serde_json::to_value(schema) {
        Ok(serde_json::Value::Object(o)) => Arc::new(o),
        _ => Arc::new(JsonObject::new()),
    }
}

/// The sources that were asked and failed or timed out, when no asked source answered.
pub fn all_failed(r: &AskResponse) -> Option<String> {
    let asked: Vec<_> = r.sources.iter().filter(|s| s.status != SourceStatus::Skipped).collect();
    let failed =
        |s: &&crate::pipeline::answer::SourceReport| matches!(s.status, SourceStatus::Error | SourceStatus::Timeout);
    if asked.is_empty() || !asked.iter().all(failed) {
        return None;
    }
    let lines: Vec<String> = asked
        .iter()
        .map(|s| {
            let what = if s.status == SourceStatus::Timeout {
                "timed out"
            } else {
                "failed"
            };
            match &s.note {
                Some(n) => format!("- {}: {what}: {n}", s.name),
                None => format!("- {}: {what}", s.name),
            }
        })
        .collect();
    Some(format!(
        "No source could be searched, so there is no answer:\n{}",
        lines.join("\n")
    ))
}

/// The MCP server: one tool, `ask`, over a shared engine.
/// Whether the connected client declared the `sampling` capability.
fn offers_sampling(peer: &rmcp::Peer<RoleServer>) -> bool {
    peer.peer_info()
        .is_some_and(|info| info.capabilities.sampling.is_some())
}

/// The connected MCP client's own model, asked by `sampling/createMessage`: an assistant's user
/// needs no API key. The client may show the request to its user, decline it, or choose the
/// model; what comes back is checked like any model's answer.
struct SamplingModel {
    peer: rmcp::Peer<RoleServer>,
}

impl LanguageModel for SamplingModel {
    fn describe(&self) -> String {
        "the MCP client's model (sampling)".into()
    }

    #[allow(deprecated)] // Sampling is deprecated by a newer protocol revision; clients still offer it.
    fn complete(&self, prompt: Prompt, timeout: Duration) -> Reply<'_> {
        use rmcp::model::{CreateMessageRequestParams, SamplingMessage, SamplingMessageContentBlock};
        Box::pin(async move {
            let mut params =
                CreateMessageRequestParams::new(vec![SamplingMessage::user_text(prompt.user)], prompt.max_tokens)
                    .with_system_prompt(prompt.system);
            params.temperature = Some(prompt.temperature.clamp(0.0, 1.0));
            let result = match tokio::time::timeout(timeout, self.peer.create_message(params)).await {
                Err(_) => return Err(LlmError::Timeout(timeout)),
                Ok(Err(e)) => return Err(LlmError::Declined(crate::llm::clip(&e.to_string(), 160))),
                Ok(Ok(r)) => r,
            };
            let text: String = result
                .message
                .content
                .iter()
                .filter_map(|b| match b {
                    SamplingMessageContentBlock::Text(t) => Some(t.text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n");
            if text.trim().is_empty() {
                return Err(LlmError::Empty);
            }
            Ok(Completion {
                text,
                prompt_tokens: None,
                completion_tokens: None,
            })
        })
    }
}

#[derive(Clone)]
pub struct SagasuServer {
    engine: Arc<Engine>,
    /// In-flight asks, so that a shutdown can let them finish.
    asks: TaskTracker,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl SagasuServer {
    pub fn new(engine: Arc<Engine>) -> Self {
        SagasuServer {
            engine,
            asks: TaskTracker::new(),
            tool_router: Self::tool_router(),
        }
    }

    /// The in-flight asks (a shutdown closes it and waits for it).
    pub fn asks(&self) -> &TaskTracker {
        &self.asks
    }

    #[tool(
        name = "ask",
        description = ASK_DESCRIPTION,
        input_schema = input_schema(),
        output_schema = output_schema(),
        annotations(read_only_hint = true, destructive_hint = false)
    )]
    async fn ask(&self, arguments: JsonObject, ctx: RequestContext<RoleServer>) -> Result<CallToolResult, McpError> {
        if self.asks.is_closed() {
            return Err(McpError::internal_error("the server is shutting down", None));
        }
        // Arguments are read here, not by an extractor, so that bad ones are `invalid_params`.
        let args: AskArgs = serde_json::from_value(serde_json::Value::Object(arguments))
            .map_err(|e| McpError::invalid_params(format!("bad arguments for `ask`: {e}"), None))?;
        let mut opts = args.options(&self.engine)?;
        // The client's own model, when the configuration allows sampling and the client offers it.
        if self.engine.config.llm.as_ref().is_some_and(|l| l.sampling) && offers_sampling(&ctx.peer) {
            opts.model = Some(SharedModel(Arc::new(SamplingModel { peer: ctx.peer.clone() })));
        }
        // Progress: one notification per finished source, sent in order by one task.
        let mut forward = None;
        if let Some(token) = ctx.meta.get_progress_token() {
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
            let done = Arc::new(AtomicUsize::new(0));
            let total = self.engine.config.sources.iter().filter(|s| s.enabled).count();
            opts.on_source_done = Some(OnSourceDone(Arc::new(move |o| {
                let _ = tx.send(format!(
                    "{}: {} ({} hits, {} ms)",
                    o.name,
                    format!("{:?}", o.status).to_lowercase(),
                    o.hits.len(),
                    o.latency_ms
                ));
            })));
            let peer = ctx.peer.clone();
            forward = Some(tokio::spawn(async move {
                while let Some(message) = rx.recv().await {
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    let p = ProgressNotificationParam::new(token.clone(), n as f64)
                        .with_total(total as f64)
                        .with_message(message);
                    if peer.notify_progress(p).await.is_err() {
                        break;
                    }
                }
            }));
        }
        let engine = self.engine.clone();
        let question = args.question.clone();
        let work = self
            .asks
            .track_future(async move { engine.ask(&question, &opts).await });
        let result = tokio::select! {
            r = work => r,
            () = ctx.ct.cancelled() => {
                // Dropping the ask drops its in-flight source calls.
                tracing::info!("ask cancelled by the client");
                return Err(McpError::internal_error("the request was cancelled", None));
            }
        };
        if let Some(f) = forward {
            // The sender is gone with the ask's options: the forwarder drains and ends.
            let _ = f.await;
        }
        let r = match result {
            Ok(r) => r,
            Err(e @ (AskError::Empty | AskError::UnknownSource(..) | AskError::NothingToSearch(..))) => {
                return Err(McpError::invalid_params(e.to_string(), None));
            }
            Err(e @ AskError::Internal(_)) => return Err(McpError::internal_error(e.to_string(), None)),
        };
        let structured = serde_json::to_value(&r).map_err(|e| McpError::internal_error(e.to_string(), None))?;
        if let Some(why) = all_failed(&r) {
            let mut out = CallToolResult::error(vec![ContentBlock::text(why)]);
            out.structured_content = Some(structured);
            return Ok(out);
        }
        let mut out = CallToolResult::success(vec![ContentBlock::text(render_markdown(&r, false))]);
        out.structured_content = Some(structured);
        Ok(out)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for SagasuServer {
    fn get_info(&self) -> ServerConfig {
        crate::servers::mcp::server_info(
            "sagasu",
            "One tool, `ask`: a cited answer from every company source at once (Slack, Notion, \
             RocketChat, the tool catalog), with conflicts, confidence and what could not be searched.",
        )
    }
}

/// Serves `engine` over stdio until the client closes stdin or a signal arrives; then lets
/// in-flight asks finish (up to `SHUTDOWN_GRACE`) and stops the sources.
pub async fn run_stdio(engine: Arc<Engine>) -> anyhow::Result<()> {
    use rmcp::ServiceExt;
    let server = SagasuServer::new(engine.clone());
    let asks = server.asks().clone();
    let stop = crate::servers::http::shutdown_signal();
    let running = server.serve(crate::servers::stdio::stdio()).await?;
    let ct = running.cancellation_token();
    tokio::select! {
        r = running.waiting() => { r?; }
        () = stop => {
            finish(&asks).await;
            ct.cancel();
        }
    }
    finish(&asks).await;
    engine.shutdown().await;
    Ok(())
}

/// Serves `engine` over streamable HTTP at `/mcp` on `listener` under `access` (token, origins,
/// session limits). On a signal: no new asks, in-flight asks finish (up to `SHUTDOWN_GRACE`),
/// then sessions close and the sources stop.
pub async fn run_http(
    engine: Arc<Engine>,
    listener: tokio::net::TcpListener,
    access: crate::servers::http::Access,
) -> anyhow::Result<()> {
    let server = SagasuServer::new(engine.clone());
    let asks = server.asks().clone();
    let stop = crate::servers::http::shutdown_signal();
    let shutdown = async move {
        stop.await;
        finish(&asks).await;
    };
    crate::servers::http::serve(server, listener, shutdown, access).await?;
    engine.shutdown().await;
    Ok(())
}

/// Time for the last answers to reach their clients after the asks are done (an answer is
/// written after its ask's future ends) before the sessions close.
const FLUSH: Duration = Duration::from_millis(300);

/// Refuses new asks and waits for the running ones, up to `SHUTDOWN_GRACE`.
async fn finish(asks: &TaskTracker) {
    asks.close();
    if !asks.is_empty() {
        tracing::info!(running = asks.len(), "shutting down: letting the running asks finish");
    }
    if tokio::time::timeout(SHUTDOWN_GRACE, asks.wait()).await.is_err() {
        tracing::warn!(
            running = asks.len(),
            "asks still running after the grace period; stopping them"
        );
    }
    tokio::time::sleep(FLUSH).await;
}
