//! Offline Slack: searches a Slack workspace export (contracts section 2) and answers with the
//! hosted Slack MCP server's tools (`slack_search_public`, `slack_search_public_and_private`)
//! and its Markdown result shape, honouring Slack's query modifiers.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{CallToolResult, ServerConfig};
use rmcp::{ErrorData as McpError, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::hit::slack_ts_to_time;
use crate::servers::offline::{DataWarning, Folder, LoadError};
use crate::text;
use crate::text::index::{Doc, Filter, SearchIndex};

#[derive(Debug, Deserialize)]
struct RawUser {
    id: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    real_name: Option<String>,
    #[serde(default)]
    profile: Option<RawProfile>,
}

#[derive(Debug, Deserialize, Default)]
struct RawProfile {
    #[serde(default)]
    real_name: Option<String>,
    #[serde(default)]
    display_name: Option<String>,
}

#[derive(Debug, Deserialize)]
struct RawChannel {
    id: String,
    name: String,
}

#[derive(Debug, Deserialize)]
struct RawMessage {
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    user: Option<String>,
    #[serde(default)]
    text: String,
    ts: String,
    #[serde(default)]
    thread_ts: Option<String>,
    #[serde(default)]
    user_profile: Option<RawProfile>,
}

/// A person in the export.
#[derive(Debug, Clone)]
pub struct User {
    pub id: String,
    pub name: String,
    pub real_name: String,
    pub display_name: String,
}

/// One message of the export.
#[derive(Debug, Clone)]
pub struct Message {
    pub channel_id: String,
    pub channel: String,
    pub user_id: String,
    pub user_name: String,
    /// The text as exported (Slack markup kept, as the live server returns it).
    pub text: String,
    pub ts: String,
    pub time: Option<DateTime<Utc>>,
    pub thread_ts: Option<String>,
}

/// A loaded export with its index.
pub struct SlackExport {
    pub messages: Vec<Message>,
    pub users: Vec<User>,
    pub channels: Vec<(String, String)>,
    pub warnings: Vec<DataWarning>,
    index: SearchIndex,
}

impl SlackExport {
    pub fn load(dir: &Path) -> Result<SlackExport, LoadError> {
        SlackExport::load_in(&Folder::open(dir, false)?)
    }

    /// Loads the export in `dir` under its rules for links.
    pub fn load_in(dir: &Folder) -> Result<SlackExport, LoadError> {
        let mut warnings = Vec::new();
        let raw_users: Vec<RawUser> = match dir.read_json(&dir.join("users.json")) {
            Ok(u) => u,
            Err(w) => {
                warnings.push(w);
                Vec::new()
            }
        };
        let users: Vec<User> = raw_users
            .into_iter()
            .map(|u| {
                let p = u.profile.unwrap_or_default();
                let real = u.real_name.or(p.real_name).unwrap_or_else(|| u.name.clone());
                User {
                    display_name: p.display_name.filter(|d| !d.is_empty()).unwrap_or_else(|| real.clone()),
                    id: u.id,
                    name: u.name,
                    real_name: real,
                }
            })
            .collect();
        let by_id: HashMap<&str, &User> = users.iter().map(|u| (u.id.as_str(), u)).collect();
        let raw_channels: Vec<RawChannel> = match dir.read_json(&dir.join("channels.json")) {
            Ok(c) => c,
            Err(w) => {
                warnings.push(w);
                Vec::new()
            }
        };
        let channels: Vec<(String, String)> = raw_channels.into_iter().map(|c| (c.id, c.name)).collect();
        let mut messages = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (channel_id, channel) in &channels {
            let folder = dir.join(channel);
            if !folder.is_dir() {
                continue;
            }
            for file in dir.entries(&folder, &mut warnings)? {
                if file.extension().is_none_or(|e| e != "json") {
                    continue;
                }
                let day: Vec<RawMessage> = dir.read_items(&file, None, &mut warnings);
                for m in day {
                    if m.kind.as_deref().is_some_and(|k| k != "message") {
                        continue;
                    }
                    let Some(time) = slack_ts_to_time(&m.ts) else {
                        warnings.push(DataWarning::about(
                            &file,
                            format!(
                                "message skipped: `ts` `{}` is not a Slack timestamp",
                                crate::util::yaml::short(&m.ts)
                            ),
                        ));
                        continue;
                    };
                    if !seen.insert((channel_id.clone(), m.ts.clone())) {
                        warnings.push(DataWarning::about(
                            &file,
                            format!("message skipped: a second message with `ts` `{}` in #{channel}", m.ts),
                        ));
                        continue;
                    }
                    let user_id = m.user.unwrap_or_default();
                    let user_name = by_id
                        .get(user_id.as_str())
                        .map(|u| u.real_name.clone())
                        .or_else(|| m.user_profile.and_then(|p| p.real_name))
                        .unwrap_or_else(|| user_id.clone());
                    messages.push(Message {
                        channel_id: channel_id.clone(),
                        channel: channel.clone(),
                        time: Some(time),
                        user_id,
                        user_name,
                        text: m.text,
                        thread_ts: m.thread_ts,
                        ts: m.ts,
                    });
                }
            }
        }
        let name_of = |id: &str| by_id.get(id).map(|u| u.real_name.clone());
        let docs: Vec<Doc> = messages
            .iter()
            .enumerate()
            .map(|(ord, m)| {
                let mut keys = vec![
                    format!("channel={}", m.channel.to_lowercase()),
                    format!("channel={}", m.channel_id.to_lowercase()),
                    format!("user={}", m.user_id.to_lowercase()),
                ];
                if let Some(u) = by_id.get(m.user_id.as_str()) {
                    keys.extend(person_keys(u));
                }
                if m.thread_ts.is_some() {
                    keys.push("is=thread".into());
                }
                Doc {
                    ord: ord as u64,
                    title: String::new(),
                    body: format!("{} {}", text::clean_slack_markup(&m.text, &name_of), m.user_name),
                    keys,
                    time: m.time.map(|t| t.timestamp()),
                    prefixes: String::new(),
                    lead: String::new(),
                }
            })
            .collect();
        let index = SearchIndex::build(docs)?;
        Ok(SlackExport {
            messages,
            users,
            channels,
            warnings,
            index,
        })
    }

    /// Runs a Slack search query (with modifiers) and returns matching ordinals, best first
    /// (or newest first with `sort: timestamp`), and the total count.
    pub fn search(&self, req: &SearchRequest) -> Result<(Vec<usize>, usize), String> {
        let q = SlackQuery::parse(&req.query);
        let mut filter = Filter::default();
        if !q.channels.is_empty() {
            filter
                .all_of
                .push(q.channels.iter().map(|c| format!("channel={c}")).collect());
        }
        if !q.from.is_empty() {
            filter.all_of.push(q.from.iter().map(|u| format!("user={u}")).collect());
        }
        if q.thread_only {
            filter.all_of.push(vec!["is=thread".into()]);
        }
        filter.after = max_opt(q.after, req.after.map(|a| a as i64));
        filter.before = min_opt(q.before, req.before.map(|b| b as i64));
        let offset: usize = match &req.cursor {
            Some(c) if !c.is_empty() => c.parse().map_err(|_| format!("invalid cursor `{c}`"))?,
            _ => 0,
        };
        let limit = req.limit.unwrap_or(20).clamp(1, 20) as usize;
        // Fetch everything up to the page end, then post-filter quoted phrases.
        let want = if q.phrases.is_empty() {
            offset + limit
        } else {
            (offset + limit) * 4 + 50
        };
        let found = self.index.search(&q.text, &filter, want).map_err(|e| e.to_string())?;
        let name_of = |id: &str| self.users.iter().find(|u| u.id == id).map(|u| u.real_name.clone());
        let mut ords: Vec<usize> = found
            .hits
            .iter()
            .map(|(o, _)| *o as usize)
            .filter(|&o| {
                q.phrases.is_empty() || {
                    let t = text::normalize(&text::clean_slack_markup(&self.messages[o].text, &name_of));
                    q.phrases.iter().all(|p| t.contains(&text::normalize(p)))
                }
            })
            .collect();
        let total = if q.phrases.is_empty() { found.total } else { ords.len() };
        if req.sort.as_deref() == Some("timestamp") {
            ords.sort_by(|a, b| self.messages[*b].ts_num().total_cmp(&self.messages[*a].ts_num()));
        }
        let page: Vec<usize> = ords.into_iter().skip(offset).take(limit).collect();
        Ok((page, total))
    }

    /// Renders a search as the hosted Slack MCP server's Markdown.
    pub fn render(&self, req: &SearchRequest) -> Result<String, String> {
        let (page, total) = self.search(req)?;
        if page.is_empty() {
            return Ok(format!("# Search Results for \"{}\"\n\nNo results found.\n", req.query));
        }
        let offset: usize = req.cursor.as_deref().and_then(|c| c.parse().ok()).unwrap_or(0);
        let mut out = format!(
            "# Search Results for \"{}\"\n\n## Messages ({total} results)\n\n",
            req.query
        );
        for (i, &o) in page.iter().enumerate() {
            let m = &self.messages[o];
            out.push_str(&format!("### Result {} of {total}\n", offset + i + 1));
            out.push_str(&format!("Channel: #{} (ID: {})\n", m.channel, m.channel_id));
            out.push_str(&format!("From: {} (ID: {})\n", m.user_name, m.user_id));
            if let Some(t) = m.time {
                out.push_str(&format!("Time: {}\n", t.format("%Y-%m-%d %H:%M:%S UTC")));
            }
            out.push_str(&format!("Message_ts: {}\n", m.ts));
            if let Some(tt) = &m.thread_ts {
                out.push_str(&format!("Thread_ts: {tt}\n"));
            }
            out.push_str(&format!(
                "Permalink: [link](https://acme.slack.com/archives/{}/p{})\n",
                m.channel_id,
                m.ts.replace('.', "")
            ));
            out.push_str(&format!("Text: {}\n---\n", m.text));
        }
        let next = offset + page.len();
        if next < total {
            out.push_str(&format!("\nNext cursor: {next}\n"));
        }
        Ok(out)
    }
}

impl Message {
    fn ts_num(&self) -> f64 {
        self.ts.parse().unwrap_or(0.0)
    }
}

fn person_keys(u: &User) -> Vec<String> {
    let mut keys = Vec::new();
    for n in [&u.name, &u.real_name, &u.display_name] {
        let n = n.to_lowercase();
        if n.is_empty() {
            continue;
        }
        keys.push(format!("user={n}"));
        keys.push(format!("user={}", n.replace(' ', ".")));
        keys.push(format!("user={}", n.replace(' ', "")));
    }
    keys.sort();
    keys.dedup();
    keys
}

fn max_opt(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, y) => x.or(y),
    }
}

fn min_opt(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

/// A Slack search query split into free text and modifiers.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SlackQuery {
    pub text: String,
    pub phrases: Vec<String>,
    /// Lower-case channel names or ids (`in:#pricing`).
    pub channels: Vec<String>,
    /// Lower-case user names or ids (`from:@aiko`).
    pub from: Vec<String>,
    /// Inclusive lower bound (seconds): the day after `after:`'s date, or `on:`'s date.
    pub after: Option<i64>,
    /// Exclusive upper bound (seconds): `before:`'s date, or the day after `on:`'s date.
    pub before: Option<i64>,
    pub thread_only: bool,
}

impl SlackQuery {
    /// Parses Slack's modifiers (`in:`, `from:`, `after:`, `before:`, `on:`, `is:thread`) and
    /// quoted phrases. Slack's `after:` and `before:` exclude the named day.
    pub fn parse(q: &str) -> SlackQuery {
        let mut out = SlackQuery::default();
        let mut words = Vec::new();
        let mut rest = q;
        while let Some(start) = rest.find('"') {
            let (before, after) = rest.split_at(start);
            words.push(before.to_string());
            match after[1..].find('"') {
                Some(end) => {
                    let phrase = &after[1..1 + end];
                    if !phrase.trim().is_empty() {
                        out.phrases.push(phrase.to_string());
                        words.push(phrase.to_string());
                    }
                    rest = &after[end + 2..];
                }
                None => {
                    words.push(after[1..].to_string());
                    rest = "";
                }
            }
        }
        words.push(rest.to_string());
        let day = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").ok();
        let secs = |d: NaiveDate| d.and_hms_opt(0, 0, 0).map(|t| t.and_utc().timestamp());
        let mut text_words = Vec::new();
        for w in words.iter().flat_map(|w| w.split_whitespace()) {
            let lw = w.to_lowercase();
            if let Some(v) = lw.strip_prefix("in:") {
                let v = v.trim_start_matches('#').trim_start_matches("<#").trim_end_matches('>');
                let v = v.split('|').next_back().unwrap_or(v);
                out.channels.push(v.to_string());
            } else if let Some(v) = lw.strip_prefix("from:") {
                let v = v.trim_start_matches("<@").trim_start_matches('@').trim_end_matches('>');
                out.from.push(v.to_string());
            } else if let Some(d) = lw.strip_prefix("after:").and_then(day) {
                out.after = max_opt(out.after, d.succ_opt().and_then(secs));
            } else if let Some(d) = lw.strip_prefix("before:").and_then(day) {
                out.before = min_opt(out.before, secs(d));
            } else if let Some(d) = lw.strip_prefix("on:").and_then(day) {
                out.after = max_opt(out.after, secs(d));
                out.before = min_opt(out.before, d.succ_opt().and_then(secs));
            } else if lw == "is:thread" {
                out.thread_only = true;
            } else {
                text_words.push(w.to_string());
            }
        }
        out.text = text_words.join(" ");
        out
    }
}

/// Arguments of `slack_search_public` / `slack_search_public_and_private`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct SearchRequest {
    /// Search query. Slack modifiers work inside it: `in:#channel`, `from:@user`,
    /// `before:`/`after:`/`on:` YYYY-MM-DD, `is:thread`, and "quoted phrases".
    pub query: String,
    /// Results per page (1-20, default 20).
    #[serde(default)]
    pub limit: Option<u32>,
    /// Cursor from a previous page's `Next cursor:` line.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Only messages at or after this time (Unix seconds).
    #[serde(default)]
    pub after: Option<f64>,
    /// Only messages before this time (Unix seconds).
    #[serde(default)]
    pub before: Option<f64>,
    /// `score` (default) or `timestamp` (newest first).
    #[serde(default)]
    pub sort: Option<String>,
    /// `detailed` (default) or `concise`.
    #[serde(default)]
    pub response_format: Option<String>,
}

/// The MCP server over a Slack export.
#[derive(Clone)]
pub struct SlackServer {
    export: Arc<SlackExport>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl SlackServer {
    pub fn new(export: SlackExport) -> Self {
        SlackServer {
            export: Arc::new(export),
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Search public Slack channels for messages. Supports in:#channel, from:@user, before:/after:/on: YYYY-MM-DD and is:thread inside the query.",
        annotations(read_only_hint = true, destructive_hint = false)
    )]
    async fn slack_search_public(
        &self,
        Parameters(req): Parameters<SearchRequest>,
    ) -> Result<CallToolResult, McpError> {
        self.run(req)
    }

    #[tool(
        description = "Search public and private Slack channels for messages (the offline export has only what was exported). Same modifiers as slack_search_public.",
        annotations(read_only_hint = true, destructive_hint = false)
    )]
    async fn slack_search_public_and_private(
        &self,
        Parameters(req): Parameters<SearchRequest>,
    ) -> Result<CallToolResult, McpError> {
        self.run(req)
    }
}

impl SlackServer {
    fn run(&self, req: SearchRequest) -> Result<CallToolResult, McpError> {
        if req.query.trim().is_empty() {
            return Err(McpError::invalid_params("`query` must not be empty", None));
        }
        match self.export.render(&req) {
            Ok(md) => Ok(crate::servers::mcp::text_result(md)),
            Err(e) => Err(McpError::invalid_params(e, None)),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for SlackServer {
    fn get_info(&self) -> ServerConfig {
        crate::servers::mcp::server_info("sagasu-slack-offline", "Searches an offline Slack workspace export.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modifiers_are_parsed() {
        let q = SlackQuery::parse(
            r#"price in:#Pricing from:@aiko.tanaka after:2026-10-01 before:2026-11-01 is:thread "per seat""#,
        );
        assert_eq!(q.text, "price per seat");
        assert_eq!(q.channels, ["pricing"]);
        assert_eq!(q.from, ["aiko.tanaka"]);
        assert_eq!(q.phrases, ["per seat"]);
        assert!(q.thread_only);
        assert_eq!(q.after, Some(1790899200)); // 2026-10-02T00:00Z: after: excludes the day
        assert_eq!(q.before, Some(1793491200)); // 2026-11-01T00:00Z
        let on = SlackQuery::parse("on:2026-10-01 deploy");
        assert_eq!((on.after, on.before), (Some(1790812800), Some(1790899200)));
    }
}
