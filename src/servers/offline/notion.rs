//! Offline Notion: searches a folder of Markdown pages (contracts section 2) passage by passage
//! and answers with the hosted Notion MCP server's tools, `notion-search` and `notion-fetch`,
//! in their JSON text shapes.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{CallToolResult, ServerConfig};
use rmcp::{ErrorData as McpError, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::hit::{notion_id, notion_id_in};
use crate::servers::offline::{DataWarning, Folder, LoadError};
use crate::text::index::{Doc, Filter, SearchIndex};
use crate::text::parse_time;
use crate::text::{self, passages};

#[derive(Debug, Deserialize, Default)]
struct FrontMatter {
    id: Option<String>,
    title: Option<String>,
    last_edited_time: Option<String>,
    created_time: Option<String>,
    created_by: Option<String>,
    url: Option<String>,
    parent: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    properties: BTreeMap<String, serde_norway::Value>,
}

/// One page of the export.
#[derive(Debug, Clone)]
pub struct Page {
    pub id: String,
    pub title: String,
    pub url: String,
    pub parent: Option<String>,
    pub database_row: bool,
    pub created_by: Option<String>,
    pub created_time: Option<DateTime<Utc>>,
    pub last_edited_time: Option<DateTime<Utc>>,
    pub properties: BTreeMap<String, String>,
    pub body: String,
    /// Byte ranges of the body's passages.
    pub passages: Vec<(usize, usize)>,
}

/// A matching page (its ordinal) and the byte range of its best passage.
pub type PageMatch = (usize, Option<(usize, usize)>);

pub struct NotionExport {
    pub pages: Vec<Page>,
    pub warnings: Vec<DataWarning>,
    /// (page ordinal, passage ordinal) for each indexed passage.
    passage_of: Vec<(usize, usize)>,
    index: SearchIndex,
}

fn value_to_string(v: &serde_norway::Value) -> String {
    match v {
        serde_norway::Value::String(s) => s.clone(),
        serde_norway::Value::Sequence(items) => items.iter().map(value_to_string).collect::<Vec<_>>().join(", "),
        serde_norway::Value::Null => String::new(),
        other => serde_norway::to_string(other)
            .map(|s| s.trim().to_string())
            .unwrap_or_default(),
    }
}

/// Parses one exported page. Errors are messages with a line where YAML gives one.
pub fn parse_page(file_name: &str, content: &str) -> Result<Page, (Option<(usize, usize)>, String)> {
    let (front, body) = match content.strip_prefix("---") {
        Some(rest) => {
            let end = rest
                .find("\n---")
                .ok_or((Some((1, 1)), "front matter is not closed by `---`".to_string()))?;
            let yaml = &rest[..end];
            let after = &rest[end + 4..];
            let body = after.split_once('\n').map(|(_, b)| b).unwrap_or("");
            if let Some((line, column)) = crate::util::yaml::too_deep(yaml) {
                return Err((
                    Some((line + 1, column)),
                    format!(
                        "bad front matter: nested more than {} levels deep",
                        crate::util::yaml::MAX_NESTING
                    ),
                ));
            }
            let fm: FrontMatter = if yaml.trim().is_empty() {
                FrontMatter::default()
            } else {
                serde_norway::from_str(yaml).map_err(|e| {
                    // The front matter starts on the file's second line.
                    (
                        e.location().map(|l| (l.line() + 1, l.column())),
                        format!("bad front matter: {}", crate::util::yaml::short(&e.to_string())),
                    )
                })?
            };
            (fm, body)
        }
        None => (FrontMatter::default(), content),
    };
    let id = front
        .id
        .as_deref()
        .and_then(notion_id)
        .or_else(|| notion_id_in(file_name))
        .ok_or((
            None,
            "no page id: give `id` in the front matter or end the file name with 32 hex digits".to_string(),
        ))?;
    let title = front
        .title
        .clone()
        .or_else(|| {
            body.lines()
                .find_map(|l| l.strip_prefix("# ").map(|t| t.trim().to_string()))
        })
        .unwrap_or_else(|| file_name.trim_end_matches(".md").to_string());
    let url = front
        .url
        .clone()
        .unwrap_or_else(|| format!("https://www.notion.so/{id}"));
    let properties = front
        .properties
        .iter()
        .map(|(k, v)| (k.clone(), value_to_string(v)))
        .collect();
    Ok(Page {
        passages: passages(body),
        body: body.to_string(),
        id,
        title,
        url,
        parent: front.parent,
        database_row: front.kind.as_deref() == Some("database_row"),
        created_by: front.created_by,
        created_time: front.created_time.as_deref().and_then(parse_time),
        last_edited_time: front.last_edited_time.as_deref().and_then(parse_time),
        properties,
    })
}

impl NotionExport {
    pub fn load(dir: &Path) -> Result<NotionExport, LoadError> {
        NotionExport::load_in(&Folder::open(dir, false)?)
    }

    /// Loads the export in `dir` under its rules for links.
    pub fn load_in(dir: &Folder) -> Result<NotionExport, LoadError> {
        let mut warnings = Vec::new();
        let mut pages: Vec<Page> = Vec::new();
        let mut files = Vec::new();
        let mut visited = std::collections::HashSet::new();
        collect_md(dir, &dir.root, &mut files, &mut visited, &mut warnings)?;
        let mut seen: HashMap<String, usize> = HashMap::new();
        for path in files {
            let warn = |line: Option<(usize, usize)>, message: String| DataWarning {
                path: path.clone(),
                line: line.map(|l| l.0),
                column: line.map(|l| l.1),
                message,
            };
            let content = match dir.read(&path) {
                Ok(c) => c,
                Err(w) => {
                    warnings.push(w);
                    continue;
                }
            };
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            match parse_page(&name, &content) {
                Ok(p) => match seen.entry(p.id.clone()) {
                    // The first page of an id is kept; every later one is reported.
                    std::collections::hash_map::Entry::Occupied(first) => warnings.push(warn(
                        None,
                        format!(
                            "duplicate page id `{}` (the page `{}` has it already); skipped",
                            p.id,
                            pages[*first.get()].title
                        ),
                    )),
                    std::collections::hash_map::Entry::Vacant(v) => {
                        v.insert(pages.len());
                        pages.push(p)
                    }
                },
                Err((line, message)) => warnings.push(warn(line, message)),
            }
        }
        let mut passage_of = Vec::new();
        let mut docs = Vec::new();
        for (pi, p) in pages.iter().enumerate() {
            let props: String = p.properties.iter().map(|(k, v)| format!("{k}: {v}\n")).collect();
            let mut keys = vec![format!("type={}", if p.database_row { "database_row" } else { "page" })];
            if let Some(parent) = &p.parent {
                keys.push(format!("parent={}", parent.to_lowercase()));
            }
            // A page with no body is still findable by its title and properties.
            let ranges = if p.passages.is_empty() {
                vec![(0, 0)]
            } else {
                p.passages.clone()
            };
            for (qi, (s, e)) in ranges.into_iter().enumerate() {
                let extra = if qi == 0 {
                    format!("{props}{}", p.created_by.clone().unwrap_or_default())
                } else {
                    String::new()
                };
                docs.push(Doc {
                    ord: passage_of.len() as u64,
                    title: p.title.clone(),
                    body: format!("{}\n{extra}", &p.body[s..e]),
                    keys: keys.clone(),
                    time: p.last_edited_time.map(|t| t.timestamp()),
                    prefixes: String::new(),
                    lead: String::new(),
                });
                passage_of.push((pi, qi));
            }
        }
        let index = SearchIndex::build(docs)?;
        Ok(NotionExport {
            pages,
            warnings,
            passage_of,
            index,
        })
    }

    /// Searches passages and returns pages (best passage first per page) with the best
    /// passage's range.
    pub fn search(&self, query: &str, filter: &Filter, page_size: usize) -> Result<Vec<PageMatch>, String> {
        let found = self
            .index
            .search(query, filter, page_size * 8 + 20)
            .map_err(|e| e.to_string())?;
        let mut out: Vec<PageMatch> = Vec::new();
        for (ord, _) in found.hits {
            let (pi, qi) = self.passage_of[ord as usize];
            if out.iter().any(|(p, _)| *p == pi) {
                continue;
            }
            out.push((pi, self.pages[pi].passages.get(qi).copied()));
            if out.len() == page_size {
                break;
            }
        }
        Ok(out)
    }

    pub fn find(&self, id_or_url: &str) -> Option<&Page> {
        let id = notion_id(id_or_url).or_else(|| notion_id_in(id_or_url))?;
        self.pages.iter().find(|p| p.id == id)
    }
}

/// The Markdown files under `at`, depth first in sorted order; a folder reached twice (through
/// links, with --follow-links) is entered once.
fn collect_md(
    dir: &Folder,
    at: &Path,
    out: &mut Vec<std::path::PathBuf>,
    visited: &mut std::collections::HashSet<std::path::PathBuf>,
    warnings: &mut Vec<DataWarning>,
) -> Result<(), LoadError> {
    if let Ok(real) = at.canonicalize()
        && !visited.insert(real)
    {
        warnings.push(DataWarning::about(
            at,
            "skipped: a folder already read (a link loop)".into(),
        ));
        return Ok(());
    }
    for p in dir.entries(at, warnings)? {
        if p.is_dir() {
            collect_md(dir, &p, out, visited, warnings)?;
        } else if p.extension().is_some_and(|e| e == "md") {
            out.push(p);
        }
    }
    Ok(())
}

/// The `<page>` text that `notion-fetch` returns.
pub fn render_page(p: &Page) -> String {
    let mut props = serde_json::Map::new();
    props.insert("title".into(), json!(p.title));
    if let Some(parent) = &p.parent {
        props.insert("parent".into(), json!(parent));
    }
    if p.database_row {
        props.insert("type".into(), json!("database_row"));
    }
    if let Some(c) = &p.created_by {
        props.insert("created_by".into(), json!(c));
    }
    if let Some(t) = p.created_time {
        props.insert("created_time".into(), json!(t.to_rfc3339()));
    }
    if let Some(t) = p.last_edited_time {
        props.insert("last_edited_time".into(), json!(t.to_rfc3339()));
    }
    for (k, v) in &p.properties {
        props.insert(k.clone(), json!(v));
    }
    format!(
        "<page url=\"{}\"><properties>{}</properties><content>{}</content></page>",
        p.url,
        serde_json::Value::Object(props),
        p.body
    )
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// What to search for, in words (titles and page text are searched).
    pub query: String,
    /// `internal` (default) searches the workspace.
    #[serde(default)]
    pub query_type: Option<String>,
    /// Optional filters; pass `{}` for none. Supports `created_date_range` and
    /// `last_edited_date_range` with `start_date`/`end_date` (YYYY-MM-DD).
    #[serde(default)]
    pub filters: Option<serde_json::Value>,
    /// Results to return (default 10, max 25).
    #[serde(default)]
    pub page_size: Option<u32>,
    /// Longest highlight in characters (default 200).
    #[serde(default)]
    pub max_highlight_length: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FetchArgs {
    /// Page id (dashed or not) or page URL.
    pub id: String,
}

#[derive(Clone)]
pub struct NotionServer {
    export: Arc<NotionExport>,
    tool_router: ToolRouter<Self>,
}

fn date_range(filters: &serde_json::Value, key: &str) -> (Option<i64>, Option<i64>) {
    let r = &filters[key];
    let get = |k: &str| r[k].as_str().and_then(parse_time).map(|t| t.timestamp());
    // end_date is inclusive of its whole day
    (get("start_date"), get("end_date").map(|e| e + 86_400))
}

#[tool_router]
impl NotionServer {
    pub fn new(export: NotionExport) -> Self {
        NotionServer {
            export: Arc::new(export),
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        name = "notion-search",
        description = "Search the Notion workspace (pages and database rows) by meaning of words. Returns JSON with results [{id, title, url, type, highlight, timestamp}].",
        annotations(read_only_hint = true, destructive_hint = false)
    )]
    async fn search(&self, Parameters(a): Parameters<SearchArgs>) -> Result<CallToolResult, McpError> {
        if a.query.trim().is_empty() {
            return Err(McpError::invalid_params("`query` must not be empty", None));
        }
        let size = a.page_size.unwrap_or(10).clamp(1, 25) as usize;
        let hl = a.max_highlight_length.unwrap_or(200).max(20) as usize;
        let filters = a.filters.unwrap_or(serde_json::Value::Null);
        let (ea, eb) = date_range(&filters, "last_edited_date_range");
        let (ca, cb) = date_range(&filters, "created_date_range");
        let filter = Filter {
            after: ea,
            before: eb,
            ..Default::default()
        };
        let found = self
            .export
            .search(&a.query, &filter, if ca.is_some() || cb.is_some() { 25 } else { size })
            .map_err(|e| McpError::internal_error(e, None))?;
        let results: Vec<serde_json::Value> = found
            .into_iter()
            .filter(|(pi, _)| {
                let c = self.export.pages[*pi].created_time.map(|t| t.timestamp());
                ca.is_none_or(|a| c.is_some_and(|c| c >= a)) && cb.is_none_or(|b| c.is_some_and(|c| c < b))
            })
            .take(size)
            .map(|(pi, range)| {
                let p = &self.export.pages[pi];
                let highlight = range
                    .map(|(s, e)| text::truncate_chars(&p.body[s..e], hl))
                    .unwrap_or_default();
                json!({
                    "id": p.id,
                    "title": p.title,
                    "url": p.url,
                    "type": "page",
                    "highlight": highlight,
                    "timestamp": p.last_edited_time.map(|t| t.to_rfc3339()),
                })
            })
            .collect();
        Ok(crate::servers::mcp::text_result(
            json!({ "results": results, "type": "workspace_search" }).to_string(),
        ))
    }

    #[tool(
        name = "notion-fetch",
        description = "Fetch a Notion page by id or URL. Returns JSON {title, url, text} where text is <page><properties>…</properties><content>markdown</content></page>.",
        annotations(read_only_hint = true, destructive_hint = false)
    )]
    async fn fetch(&self, Parameters(a): Parameters<FetchArgs>) -> Result<CallToolResult, McpError> {
        match self.export.find(&a.id) {
            Some(p) => Ok(crate::servers::mcp::text_result(
                json!({ "title": p.title, "url": p.url, "text": render_page(p) }).to_string(),
            )),
            None => Ok(crate::servers::mcp::error_result(format!("page `{}` not found", a.id))),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for NotionServer {
    fn get_info(&self) -> ServerConfig {
        crate::servers::mcp::server_info("sagasu-notion-offline", "Searches an offline Notion export.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passages_cut_at_headings_and_size_in_pages() {
        let long = "word ".repeat(200);
        let body = format!("# Title\nintro line\n\n## Part A\nalpha\n\nbeta\n## Part B\n{long}\n\n{long}\n");
        let ps: Vec<&str> = passages(&body).into_iter().map(|(s, e)| &body[s..e]).collect();
        assert_eq!(ps[0], "# Title\nintro line");
        assert_eq!(ps[1], "## Part A\nalpha\n\nbeta");
        assert_eq!(ps.len(), 4, "{ps:?}");
    }

    #[test]
    fn front_matter_and_file_name_ids() {
        let p = parse_page(
            "Deploy Guide 3F2A9C0E5B7D4E1FA0C2D4E6F8A0B1C2.md",
            "---\ntitle: Deploy\nparent: Engineering Wiki\nproperties:\n  Status: Done\n  Tags: [a, b]\n---\n# Deploy\nbody\n",
        )
        .unwrap();
        assert_eq!(p.id, "3f2a9c0e5b7d4e1fa0c2d4e6f8a0b1c2");
        assert_eq!(p.properties["Tags"], "a, b");
        assert_eq!(p.parent.as_deref(), Some("Engineering Wiki"));
        let bad = parse_page("x.md", "---\ntitle: [unclosed\n---\nbody").unwrap_err();
        assert!(bad.0.is_some(), "{bad:?}");
        assert!(parse_page("no-id.md", "# T\n").is_err());
    }
}
