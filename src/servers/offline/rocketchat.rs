//! Offline RocketChat: serves a dump of RocketChat's REST shapes (contracts section 2) with the
//! four read-only tools of the cross-room search server: `search_messages`, `list_channels`,
//! `list_users`, `get_thread_context`. Results are merged newest first and post-filtered by
//! sender and dates, as the live fan-out does, and every result says what was searched.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{CallToolResult, ServerConfig};
use rmcp::{ErrorData as McpError, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::servers::offline::{DataWarning, Folder, LoadError};
use crate::text::index::{Doc, Filter, SearchIndex};
use crate::text::parse_time;

// The REST and search-result shapes are shared with the live server and the client adapter.
pub use crate::wire::rocketchat::*;

pub struct RocketExport {
    pub rooms: Vec<RcRoom>,
    pub users: Vec<RcUser>,
    pub messages: Vec<RcMessage>,
    pub warnings: Vec<DataWarning>,
    index: SearchIndex,
}

impl RocketExport {
    pub fn load(dir: &Path) -> Result<RocketExport, LoadError> {
        RocketExport::load_in(&Folder::open(dir, false)?)
    }

    /// Loads the export in `dir` under its rules for links.
    pub fn load_in(dir: &Folder) -> Result<RocketExport, LoadError> {
        let mut warnings = Vec::new();
        let rooms = match dir.read_json::<RoomsBody>(&dir.join("rooms.json")) {
            Ok(b) => b.update,
            Err(w) => {
                warnings.push(w);
                Vec::new()
            }
        };
        let users = match dir.read_json::<UsersBody>(&dir.join("users.json")) {
            Ok(b) => b.users,
            Err(w) => {
                warnings.push(w);
                Vec::new()
            }
        };
        let names: HashMap<&str, String> = rooms.iter().map(|r| (r.id.as_str(), r.display_name())).collect();
        let mut messages = Vec::new();
        let mdir = dir.join("messages");
        let mut seen = std::collections::HashSet::new();
        let mut unknown_rooms: Vec<String> = Vec::new();
        if mdir.is_dir() {
            for f in dir.entries(&mdir, &mut warnings)? {
                if f.extension().is_none_or(|e| e != "json") {
                    continue;
                }
                for mut m in dir.read_items::<RcMessage>(&f, Some("messages"), &mut warnings) {
                    if parse_time(&m.ts).is_none() {
                        warnings.push(DataWarning::about(
                            &f,
                            format!(
                                "message `{}` skipped: `ts` `{}` is not a time",
                                m.id,
                                crate::util::yaml::short(&m.ts)
                            ),
                        ));
                        continue;
                    }
                    if !seen.insert(m.id.clone()) {
                        warnings.push(DataWarning::about(
                            &f,
                            format!("message skipped: a second message with id `{}`", m.id),
                        ));
                        continue;
                    }
                    m.room = names.get(m.rid.as_str()).cloned();
                    if m.room.is_none() && !unknown_rooms.contains(&m.rid) {
                        warnings.push(DataWarning::about(
                            &f,
                            format!("messages of room `{}`, which rooms.json does not list", m.rid),
                        ));
                        unknown_rooms.push(m.rid.clone());
                    }
                    messages.push(m);
                }
            }
        }
        let docs = messages.iter().enumerate().map(|(ord, m)| Doc {
            ord: ord as u64,
            title: String::new(),
            body: format!("{} {}", m.msg, m.u.name.clone().unwrap_or_default()),
            keys: vec![format!("room={}", m.rid)],
            time: parse_time(&m.ts).map(|t| t.timestamp()),
            prefixes: String::new(),
            lead: String::new(),
        });
        let index = SearchIndex::build(docs)?;
        Ok(RocketExport {
            rooms,
            users,
            messages,
            warnings,
            index,
        })
    }

    /// Whether `r` is the room `channel` names (id, name or display name, `#` optional).
    pub(crate) fn room_matches(r: &RcRoom, channel: &str) -> bool {
        let c = channel.trim_start_matches('#').to_lowercase();
        r.id.to_lowercase() == c
            || r.name.as_deref().is_some_and(|n| n.to_lowercase() == c)
            || r.fname.as_deref().is_some_and(|n| n.to_lowercase() == c)
    }

    /// Cross-room search with the live server's semantics.
    pub fn search(&self, a: &SearchArgs) -> Result<SearchResult, String> {
        let rooms: Vec<&RcRoom> = match &a.channel {
            Some(c) if !c.trim().is_empty() => {
                let r: Vec<&RcRoom> = self.rooms.iter().filter(|r| Self::room_matches(r, c)).collect();
                if r.is_empty() {
                    return Err(format!("no room named `{c}`"));
                }
                r
            }
            _ => self.rooms.iter().collect(),
        };
        let since = parse_opt(&a.since, "since")?;
        let until = parse_opt(&a.until, "until")?;
        let limit = a.limit.unwrap_or(30).clamp(1, 200) as usize;
        let filter = Filter {
            all_of: vec![rooms.iter().map(|r| format!("room={}", r.id)).collect()],
            after: since.map(|t| t.timestamp()),
            before: until.map(|t| t.timestamp() + 1),
        };
        let found = self
            .index
            .search(&a.query, &filter, self.messages.len().max(1))
            .map_err(|e| e.to_string())?;
        let user = a.username.as_deref().map(|u| u.trim_start_matches('@').to_lowercase());
        let mut hits: Vec<&RcMessage> = found
            .hits
            .iter()
            .map(|(o, _)| &self.messages[*o as usize])
            .filter(|m| from_user(m, user.as_deref()))
            .collect();
        hits.sort_by(|x, y| y.ts.cmp(&x.ts).then_with(|| x.id.cmp(&y.id)));
        let hits_total = hits.len();
        let mut res = SearchResult {
            messages: hits.into_iter().take(limit).cloned().collect(),
            rooms_total: rooms.len(),
            rooms_searched: rooms.len(),
            hits_total,
            ..Default::default()
        };
        res.truncated = res.messages.len() < hits_total;
        res.summarize();
        Ok(res)
    }
}

/// Whether `m` was sent by `user` (a lowercased username or display name); `None` matches all.
pub(crate) fn from_user(m: &RcMessage, user: Option<&str>) -> bool {
    user.is_none_or(|u| m.u.username.to_lowercase() == u || m.u.name.as_deref().is_some_and(|n| n.to_lowercase() == u))
}

pub(crate) fn parse_opt(v: &Option<String>, name: &str) -> Result<Option<DateTime<Utc>>, String> {
    match v.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(s) => parse_time(s)
            .map(Some)
            .ok_or_else(|| format!("`{name}` must be a date (YYYY-MM-DD) or RFC 3339 time, got `{s}`")),
    }
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// Words to search for.
    pub query: String,
    /// Only this room (name or id).
    #[serde(default)]
    pub channel: Option<String>,
    /// Only messages from this user (username or display name).
    #[serde(default)]
    pub username: Option<String>,
    /// Only messages at or after this time (YYYY-MM-DD or RFC 3339).
    #[serde(default)]
    pub since: Option<String>,
    /// Only messages at or before this time (YYYY-MM-DD or RFC 3339).
    #[serde(default)]
    pub until: Option<String>,
    /// Most messages to return (default 30, max 200).
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct PageArgs {
    /// Items to skip (default 0).
    #[serde(default)]
    pub offset: Option<u32>,
    /// Items to return (default 100).
    #[serde(default)]
    pub count: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ThreadArgs {
    /// The `_id` of any message in the thread (the parent or a reply).
    pub message_id: String,
}

#[derive(Clone)]
pub struct RocketServer {
    export: Arc<RocketExport>,
    tool_router: ToolRouter<Self>,
}

pub(crate) fn json_result<T: Serialize>(v: &T) -> Result<CallToolResult, McpError> {
    serde_json::to_string(v)
        .map(crate::servers::mcp::text_result)
        .map_err(|e| McpError::internal_error(e.to_string(), None))
}

fn page<T: Clone>(items: &[T], a: &PageArgs) -> (Vec<T>, usize, usize) {
    let offset = a.offset.unwrap_or(0) as usize;
    let count = a.count.unwrap_or(100).clamp(1, 1000) as usize;
    (
        items.iter().skip(offset).take(count).cloned().collect(),
        offset,
        items.len(),
    )
}

#[tool_router]
impl RocketServer {
    pub fn new(export: RocketExport) -> Self {
        RocketServer {
            export: Arc::new(export),
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Search messages across every joined RocketChat room (public, private and direct), newest first. Says how many rooms were searched and whether hits were cut by `limit`.",
        annotations(read_only_hint = true, destructive_hint = false)
    )]
    async fn search_messages(&self, Parameters(a): Parameters<SearchArgs>) -> Result<CallToolResult, McpError> {
        if a.query.trim().is_empty() {
            return Err(McpError::invalid_params("`query` must not be empty", None));
        }
        let r = self.export.search(&a).map_err(|e| McpError::invalid_params(e, None))?;
        json_result(&r)
    }

    #[tool(
        description = "List the rooms (channels, private groups, direct messages) the user has joined.",
        annotations(read_only_hint = true, destructive_hint = false)
    )]
    async fn list_channels(&self, Parameters(a): Parameters<PageArgs>) -> Result<CallToolResult, McpError> {
        let (rooms, offset, total) = page(&self.export.rooms, &a);
        json_result(&serde_json::json!({"rooms": rooms, "offset": offset, "count": rooms.len(), "total": total}))
    }

    #[tool(
        description = "List users of the RocketChat server.",
        annotations(read_only_hint = true, destructive_hint = false)
    )]
    async fn list_users(&self, Parameters(a): Parameters<PageArgs>) -> Result<CallToolResult, McpError> {
        let (users, offset, total) = page(&self.export.users, &a);
        json_result(&serde_json::json!({"users": users, "offset": offset, "count": users.len(), "total": total}))
    }

    #[tool(
        description = "Get a thread: the parent message and its replies, oldest first.",
        annotations(read_only_hint = true, destructive_hint = false)
    )]
    async fn get_thread_context(&self, Parameters(a): Parameters<ThreadArgs>) -> Result<CallToolResult, McpError> {
        let msgs = &self.export.messages;
        let Some(m) = msgs.iter().find(|m| m.id == a.message_id) else {
            return Ok(crate::servers::mcp::error_result(format!(
                "message `{}` not found",
                a.message_id
            )));
        };
        let root = m.tmid.clone().unwrap_or_else(|| m.id.clone());
        let parent = msgs.iter().find(|x| x.id == root).cloned();
        let mut replies: Vec<RcMessage> = msgs
            .iter()
            .filter(|x| x.tmid.as_deref() == Some(root.as_str()))
            .cloned()
            .collect();
        replies.sort_by(|x, y| x.ts.cmp(&y.ts));
        json_result(&serde_json::json!({"parent": parent, "replies": replies}))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for RocketServer {
    fn get_info(&self) -> ServerConfig {
        crate::servers::mcp::server_info(
            "sagasu-rocketchat-offline",
            "Read-only cross-room search over an offline RocketChat dump.",
        )
    }
}
