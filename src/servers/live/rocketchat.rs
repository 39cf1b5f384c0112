//! Live RocketChat: cross-room search for servers that have none. `chat.search` needs a
//! `roomId`, so `search_messages` lists the joined rooms (`rooms.get`) and fans `chat.search` out
//! over them under a concurrency limit, merges newest first, and post-filters sender and dates.
//! Every failure is counted and classed (forbidden, timeout, server error, rate limited, bad
//! response), never hidden. Read-only: only GET requests. The personal access token never appears
//! in logs or errors.
//!
//! The four tools and their result shapes are the offline server's (`offline::rocketchat`), so
//! the `rocketchat` source kind in `ask` reads both alike.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{CallToolResult, ServerConfig};
use rmcp::{ErrorData as McpError, ServerHandler, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::servers::offline::rocketchat::{
    PageArgs, RcMessage, RcRoom, RcUser, RocketExport, RoomFailure, SearchArgs, SearchResult, ThreadArgs, from_user,
    json_result, parse_opt,
};
use crate::text::parse_time;

/// How the live server talks to RocketChat.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The server's base URL, e.g. `https://chat.example.com`.
    pub url: String,
    pub user_id: String,
    pub token: String,
    /// Rooms searched at once.
    pub concurrency: usize,
    /// Each REST request's timeout.
    pub request_timeout: Duration,
    /// The whole search's deadline: what is found by then is returned.
    pub deadline: Duration,
    /// Most rooms searched per query (the rest are reported as skipped).
    pub max_rooms: usize,
    /// The longest `Retry-After` honoured on HTTP 429 before a room counts as rate limited.
    pub max_retry_after: Duration,
}

impl Settings {
    /// Settings with the defaults: 6 rooms at once, 10 s per request, 25 s per search, 500 rooms,
    /// `Retry-After` honoured up to 5 s.
    pub fn new(url: &str, user_id: &str, token: &str) -> Settings {
        Settings {
            url: url.trim_end_matches('/').to_string(),
            user_id: user_id.to_string(),
            token: token.to_string(),
            concurrency: 6,
            request_timeout: Duration::from_secs(10),
            deadline: Duration::from_secs(25),
            max_rooms: 500,
            max_retry_after: Duration::from_secs(5),
        }
    }
}

/// Why a REST call failed, as reported per room.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RestError {
    #[error("forbidden")]
    Forbidden,
    #[error("not found")]
    NotFound,
    #[error("timeout")]
    Timeout,
    #[error("rate limited")]
    RateLimited,
    #[error("server error")]
    Server,
    #[error("bad response")]
    BadResponse,
    #[error("unreachable")]
    Unreachable,
}

/// A read-only RocketChat REST client.
#[derive(Clone)]
pub struct Client {
    settings: Arc<Settings>,
    http: reqwest::Client,
}

#[derive(Deserialize)]
struct RoomsBody {
    update: Vec<RcRoom>,
}
#[derive(Deserialize)]
struct MessagesBody {
    messages: Vec<RcMessage>,
}
#[derive(Deserialize)]
struct UsersPage {
    users: Vec<RcUser>,
    #[serde(default)]
    total: Option<usize>,
}
#[derive(Deserialize)]
struct MessageBody {
    message: RcMessage,
}

impl Client {
    pub fn new(settings: Settings) -> Result<Client, String> {
        let http = reqwest::Client::builder()
            .timeout(settings.request_timeout)
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(Client {
            settings: Arc::new(settings),
            http,
        })
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// GET `/api/v1/{method}` with the token headers; one retry after a `Retry-After` that is
    /// within bounds. Errors carry a class, never the URL's secrets or the token.
    async fn get<T: DeserializeOwned>(&self, method: &str, query: &[(&str, String)]) -> Result<T, RestError> {
        let url = reqwest::Url::parse_with_params(&format!("{}/api/v1/{method}", self.settings.url), query)
            .map_err(|_| RestError::Unreachable)?;
        for attempt in 0..2 {
            let sent = self
                .http
                .get(url.clone())
                .header("X-User-Id", &self.settings.user_id)
                .header("X-Auth-Token", &self.settings.token)
                .send()
                .await;
            let resp = match sent {
                Ok(r) => r,
                Err(e) if e.is_timeout() => return Err(RestError::Timeout),
                Err(_) => return Err(RestError::Unreachable),
            };
            let status = resp.status().as_u16();
            match status {
                200..=299 => {}
                429 => {
                    let wait = resp
                        .headers()
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.trim().parse::<f64>().ok())
                        .map(Duration::from_secs_f64);
                    match wait {
                        Some(w) if attempt == 0 && w <= self.settings.max_retry_after => {
                            tracing::debug!(method, wait_ms = w.as_millis() as u64, "rate limited; retrying");
                            tokio::time::sleep(w).await;
                            continue;
                        }
                        _ => return Err(RestError::RateLimited),
                    }
                }
                401 | 403 => return Err(RestError::Forbidden),
                404 => return Err(RestError::NotFound),
                400 => {
                    // RocketChat answers an unknown method or a missing thread with 400 and
                    // `{"success":false,...}`; callers treat it as "not there".
                    return Err(RestError::NotFound);
                }
                _ => return Err(RestError::Server),
            }
            let body = match resp.bytes().await {
                Ok(b) => b,
                Err(e) if e.is_timeout() => return Err(RestError::Timeout),
                Err(_) => return Err(RestError::Unreachable),
            };
            return serde_json::from_slice(&body).map_err(|_| RestError::BadResponse);
        }
        Err(RestError::RateLimited)
    }

    /// The rooms the user has joined: public channels, private groups and direct messages.
    pub async fn rooms(&self) -> Result<Vec<RcRoom>, RestError> {
        Ok(self.get::<RoomsBody>("rooms.get", &[]).await?.update)
    }

    /// `chat.search` in one room.
    pub async fn search_room(&self, room: &str, text: &str, count: usize) -> Result<Vec<RcMessage>, RestError> {
        let q = [
            ("roomId", room.to_string()),
            ("searchText", text.to_string()),
            ("count", count.to_string()),
        ];
        Ok(self.get::<MessagesBody>("chat.search", &q).await?.messages)
    }

    /// One page of users.
    pub async fn users(&self, offset: usize, count: usize) -> Result<(Vec<RcUser>, Option<usize>), RestError> {
        let q = [("offset", offset.to_string()), ("count", count.to_string())];
        let p = self.get::<UsersPage>("users.list", &q).await?;
        Ok((p.users, p.total))
    }

    pub async fn message(&self, id: &str) -> Result<RcMessage, RestError> {
        Ok(self
            .get::<MessageBody>("chat.getMessage", &[("msgId", id.to_string())])
            .await?
            .message)
    }

    /// A thread's replies: `chat.getThreadMessages`, else `chat.syncThreadMessages` (older
    /// servers), else the room's history filtered to the thread.
    pub async fn thread_replies(&self, root: &RcMessage) -> Result<Vec<RcMessage>, RestError> {
        match self
            .get::<MessagesBody>(
                "chat.getThreadMessages",
                &[("tmid", root.id.clone()), ("count", "200".into())],
            )
            .await
        {
            Ok(b) => return Ok(b.messages),
            Err(RestError::NotFound) => {}
            Err(e) => return Err(e),
        }
        #[derive(Deserialize)]
        struct Sync {
            messages: SyncInner,
        }
        #[derive(Deserialize)]
        struct SyncInner {
            update: Vec<RcMessage>,
        }
        match self
            .get::<Sync>(
                "chat.syncThreadMessages",
                &[
                    ("tmid", root.id.clone()),
                    ("updatedSince", "1970-01-01T00:00:00.000Z".into()),
                ],
            )
            .await
        {
            Ok(b) => return Ok(b.messages.update),
            Err(RestError::NotFound) => {}
            Err(e) => return Err(e),
        }
        // The room's history, filtered to the thread (`channels.history` serves every room type
        // on the servers that lack both thread methods).
        let h = self
            .get::<MessagesBody>(
                "channels.history",
                &[("roomId", root.rid.clone()), ("count", "1000".into())],
            )
            .await?;
        Ok(h.messages
            .into_iter()
            .filter(|m| m.tmid.as_deref() == Some(root.id.as_str()))
            .collect())
    }

    /// Cross-room search: the fan-out, merged newest first, post-filtered, with its account.
    pub async fn search(&self, a: &SearchArgs) -> Result<SearchResult, String> {
        let started = Instant::now();
        let limit = a.limit.unwrap_or(30).clamp(1, 200) as usize;
        let since = parse_opt(&a.since, "since")?;
        let until = parse_opt(&a.until, "until")?;
        let all = self
            .rooms()
            .await
            .map_err(|e| format!("cannot list the joined rooms: {e}"))?;
        let mut rooms: Vec<RcRoom> = match a.channel.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
            Some(c) => {
                let c = c.trim_start_matches('#').to_lowercase();
                let r: Vec<RcRoom> = all.into_iter().filter(|r| RocketExport::room_matches(r, &c)).collect();
                if r.is_empty() {
                    return Err(format!("no joined room named `{c}`"));
                }
                r
            }
            None => all,
        };
        let rooms_total = rooms.len();
        let skipped = rooms_total.saturating_sub(self.settings.max_rooms);
        rooms.truncate(self.settings.max_rooms);
        let left = self.settings.deadline.saturating_sub(started.elapsed());
        // Each room is asked for enough to fill `limit` on its own after post-filtering.
        let per_room = (limit * 2).clamp(50, 200);
        let query = a.query.trim().to_string();
        let mut stream = futures::stream::iter(rooms.iter().cloned())
            .map(|room| {
                let query = query.clone();
                async move {
                    let r = self.search_room(&room.id, &query, per_room).await;
                    (room, r)
                }
            })
            .buffer_unordered(self.settings.concurrency.max(1));
        let mut searched = 0;
        let mut failed: Vec<RoomFailure> = Vec::new();
        let mut hits: Vec<RcMessage> = Vec::new();
        let mut answered: Vec<String> = Vec::new();
        let collect = async {
            while let Some((room, r)) = stream.next().await {
                answered.push(room.id.clone());
                match r {
                    Ok(msgs) => {
                        searched += 1;
                        let name = room.display_name();
                        hits.extend(msgs.into_iter().map(|mut m| {
                            m.room.get_or_insert_with(|| name.clone());
                            m
                        }));
                    }
                    Err(e) => {
                        tracing::debug!(room = %room.id, reason = %e, "room failed");
                        failed.push(RoomFailure {
                            room: room.display_name(),
                            reason: e.to_string(),
                        })
                    }
                }
            }
        };
        let timed_out = tokio::time::timeout(left, collect).await.is_err();
        drop(stream);
        if timed_out {
            // Rooms still running at the deadline count as timed out.
            for r in &rooms {
                if !answered.contains(&r.id) {
                    failed.push(RoomFailure {
                        room: r.display_name(),
                        reason: RestError::Timeout.to_string(),
                    });
                }
            }
        }
        let user = a.username.as_deref().map(|u| u.trim_start_matches('@').to_lowercase());
        hits.retain(|m| {
            let t = parse_time(&m.ts);
            from_user(m, user.as_deref())
                && since.is_none_or(|s| t.is_some_and(|t| t >= s))
                && until.is_none_or(|s| t.is_some_and(|t| t <= s))
        });
        hits.sort_by(|x, y| {
            let (tx, ty) = (parse_time(&x.ts), parse_time(&y.ts));
            ty.cmp(&tx).then_with(|| x.id.cmp(&y.id))
        });
        hits.dedup_by(|a, b| a.id == b.id);
        let hits_total = hits.len();
        hits.truncate(limit);
        let mut res = SearchResult {
            truncated: hits.len() < hits_total,
            messages: hits,
            rooms_total,
            rooms_searched: searched,
            rooms_failed: failed,
            rooms_skipped: skipped,
            hits_total,
            summary: String::new(),
        };
        res.summarize();
        Ok(res)
    }
}

/// The live server: the offline server's four read-only tools over a RocketChat REST API.
#[derive(Clone)]
pub struct LiveRocketServer {
    client: Client,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl LiveRocketServer {
    pub fn new(client: Client) -> Self {
        LiveRocketServer {
            client,
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Search messages across every joined RocketChat room (public, private and direct), newest first. Says how many rooms were searched, which failed and why, and whether hits were cut by `limit`.",
        annotations(read_only_hint = true, destructive_hint = false)
    )]
    async fn search_messages(&self, Parameters(a): Parameters<SearchArgs>) -> Result<CallToolResult, McpError> {
        if a.query.trim().is_empty() {
            return Err(McpError::invalid_params("`query` must not be empty", None));
        }
        match self.client.search(&a).await {
            Ok(r) => json_result(&r),
            Err(e) if e.starts_with("cannot list") => Ok(crate::servers::mcp::error_result(e)),
            Err(e) => Err(McpError::invalid_params(e, None)),
        }
    }

    #[tool(
        description = "List the rooms (channels, private groups, direct messages) the user has joined.",
        annotations(read_only_hint = true, destructive_hint = false)
    )]
    async fn list_channels(&self, Parameters(a): Parameters<PageArgs>) -> Result<CallToolResult, McpError> {
        match self.client.rooms().await {
            Ok(rooms) => {
                let offset = a.offset.unwrap_or(0) as usize;
                let count = a.count.unwrap_or(100).clamp(1, 1000) as usize;
                let total = rooms.len();
                let page: Vec<RcRoom> = rooms.into_iter().skip(offset).take(count).collect();
                json_result(&serde_json::json!({"rooms": page, "offset": offset, "count": page.len(), "total": total}))
            }
            Err(e) => Ok(crate::servers::mcp::error_result(format!(
                "cannot list the joined rooms: {e}"
            ))),
        }
    }

    #[tool(
        description = "List users of the RocketChat server.",
        annotations(read_only_hint = true, destructive_hint = false)
    )]
    async fn list_users(&self, Parameters(a): Parameters<PageArgs>) -> Result<CallToolResult, McpError> {
        let offset = a.offset.unwrap_or(0) as usize;
        let count = a.count.unwrap_or(100).clamp(1, 1000) as usize;
        match self.client.users(offset, count).await {
            Ok((users, total)) => json_result(&serde_json::json!({
                "users": users, "offset": offset, "count": users.len(), "total": total.unwrap_or(offset + users.len())
            })),
            Err(e) => Ok(crate::servers::mcp::error_result(format!("cannot list users: {e}"))),
        }
    }

    #[tool(
        description = "Get a thread: the parent message and its replies, oldest first.",
        annotations(read_only_hint = true, destructive_hint = false)
    )]
    async fn get_thread_context(&self, Parameters(a): Parameters<ThreadArgs>) -> Result<CallToolResult, McpError> {
        let m = match self.client.message(&a.message_id).await {
            Ok(m) => m,
            Err(RestError::NotFound) => {
                return Ok(crate::servers::mcp::error_result(format!(
                    "message `{}` not found",
                    a.message_id
                )));
            }
            Err(e) => {
                return Ok(crate::servers::mcp::error_result(format!(
                    "cannot read the message: {e}"
                )));
            }
        };
        let parent = match &m.tmid {
            Some(root) => match self.client.message(root).await {
                Ok(p) => p,
                Err(e) => {
                    return Ok(crate::servers::mcp::error_result(format!(
                        "cannot read the thread's parent: {e}"
                    )));
                }
            },
            None => m,
        };
        match self.client.thread_replies(&parent).await {
            Ok(mut replies) => {
                replies.sort_by_key(|m| parse_time(&m.ts));
                json_result(&serde_json::json!({"parent": parent, "replies": replies}))
            }
            Err(e) => Ok(crate::servers::mcp::error_result(format!(
                "cannot read the thread: {e}"
            ))),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for LiveRocketServer {
    fn get_info(&self) -> ServerConfig {
        crate::servers::mcp::server_info(
            "sagasu-rocketchat",
            "Read-only cross-room search over a live RocketChat server (fan-out of chat.search).",
        )
    }
}

/// Serves the live server over stdio, or over streamable HTTP at `http`.
pub async fn run(settings: Settings, http: Option<&crate::servers::http::Access>) -> anyhow::Result<()> {
    let client = Client::new(settings).map_err(anyhow::Error::msg)?;
    let server = LiveRocketServer::new(client);
    crate::servers::mcp::serve(server, http, "the live rocketchat source").await
}
