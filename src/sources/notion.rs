//! Notion adapter: Notion's hosted MCP server (`notion-search` then `notion-fetch` for the page
//! text) and `@notionhq/notion-mcp-server` (`API-post-search`, which matches titles only, then
//! `API-get-block-children` for the text of the top pages).

use chrono::{DateTime, Utc};
use futures::future::join_all;
use serde_json::{Map, Value, json};

use crate::config::Preset;
use crate::hit::{EvidenceKind, Hit, notion_id};
use crate::sources::{Connection, SourceError, SourceQuery, SourceResult, ok_text, parse_json};

/// Pages whose full text is fetched per search (the rest keep their highlight).
const FETCH_TOP: usize = 8;

pub async fn search(conn: &Connection, q: &SourceQuery) -> Result<SourceResult, SourceError> {
    let preset = match conn.config.preset {
        Some(p) => p,
        None => {
            let names = conn.tool_names().await?;
            if names.iter().any(|n| n == "API-post-search") && !names.iter().any(|n| n == "notion-search") {
                Preset::NotionApi
            } else {
                Preset::NotionHosted
            }
        }
    };
    let source = conn.config.name.as_str();
    let mut query = q.text.clone();
    for p in &q.phrases {
        query.push(' ');
        query.push_str(p);
    }
    let mut result = match preset {
        Preset::NotionApi => {
            let args = obj(json!({
                "query": query.trim(),
                "filter": {"property": "object", "value": "page"},
                "page_size": q.limit.clamp(1, 100),
            }));
            let r = conn.call("API-post-search", args).await?;
            let (mut hits, more) = parse_api_search(source, &ok_text(&r)?)?;
            let fetches = hits.iter().take(FETCH_TOP).map(|h| {
                let id = h.id.rsplit(':').next().unwrap_or_default().to_string();
                async move {
                    let r = conn
                        .call("API-get-block-children", obj(json!({"block_id": id})))
                        .await?;
                    parse_block_children(&ok_text(&r)?)
                }
            });
            let texts = join_all(fetches).await;
            let mut failed = 0;
            for (h, t) in hits.iter_mut().zip(texts) {
                match t {
                    Ok(t) if !t.trim().is_empty() => h.text = t,
                    Ok(_) => {}
                    Err(_) => failed += 1,
                }
            }
            SourceResult {
                hits,
                truncated: more,
                total: None,
                note: fetch_note(failed),
                unreadable: 0,
            }
        }
        _ => {
            let args = obj(json!({
                "query": query.trim(),
                "query_type": "internal",
                "filters": {},
                "page_size": q.limit.clamp(1, 25),
                "max_highlight_length": 300,
            }));
            let r = conn.call("notion-search", args).await?;
            let mut hits = parse_hosted_search(source, &ok_text(&r)?)?;
            let fetches = hits.iter().take(FETCH_TOP).map(|h| {
                let id = h.id.rsplit(':').next().unwrap_or_default().to_string();
                async move {
                    let r = conn.call("notion-fetch", obj(json!({"id": id}))).await?;
                    parse_hosted_fetch(&ok_text(&r)?)
                }
            });
            let pages = join_all(fetches).await;
            let mut failed = 0;
            for (h, p) in hits.iter_mut().zip(pages) {
                match p {
                    Ok(p) => p.apply(h),
                    Err(_) => failed += 1,
                }
            }
            SourceResult {
                truncated: hits.len() >= q.limit.min(25),
                hits,
                total: None,
                note: fetch_note(failed),
                unreadable: 0,
            }
        }
    };
    // Notion's search has no date filter of its own: apply the question's window here.
    result.hits.retain(|h| {
        h.timestamp
            .is_none_or(|t| q.after.is_none_or(|a| t >= a) && q.before.is_none_or(|b| t < b))
    });
    Ok(result)
}

fn fetch_note(failed: usize) -> Option<String> {
    (failed > 0).then(|| format!("{failed} page(s) could not be fetched; their highlights were used"))
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn time_of(v: &Value) -> Option<DateTime<Utc>> {
    v.as_str().and_then(crate::text::parse_time)
}

/// Parses `notion-search`'s `{"results":[{id,title,url,type,highlight,timestamp}]}`.
pub fn parse_hosted_search(source: &str, text: &str) -> Result<Vec<Hit>, SourceError> {
    let v = parse_json(text)?;
    let results = v
        .get("results")
        .and_then(Value::as_array)
        .ok_or_else(|| SourceError::Parse("notion-search result has no `results` array".into()))?;
    let mut hits = Vec::new();
    for (rank, r) in results.iter().enumerate() {
        let Some(id) = r.get("id").and_then(Value::as_str).and_then(notion_id) else {
            continue;
        };
        let title = r.get("title").and_then(Value::as_str).unwrap_or("").to_string();
        let highlight = r.get("highlight").and_then(Value::as_str).unwrap_or("");
        let mut h = Hit::new(
            source,
            &id,
            EvidenceKind::Page,
            html_escape::decode_html_entities(highlight),
        );
        h.kind = EvidenceKind::for_notion(None, &title, r.get("type").and_then(Value::as_str) == Some("database"));
        h.title = title;
        h.url = r.get("url").and_then(Value::as_str).map(str::to_string);
        h.timestamp = r.get("timestamp").and_then(time_of);
        h.native_rank = rank;
        h.location = crate::hit::NO_PLACE[0].into();
        hits.push(h);
    }
    Ok(hits)
}

/// A fetched page: properties and Markdown content.
#[derive(Debug, Default, PartialEq)]
pub struct FetchedPage {
    pub title: Option<String>,
    pub url: Option<String>,
    pub properties: Map<String, Value>,
    pub content: String,
}

impl FetchedPage {
    fn prop(&self, k: &str) -> Option<String> {
        self.properties.get(k).and_then(|v| match v {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            other => Some(other.to_string()),
        })
    }

    /// Fills a search hit with the page's text, author, section and properties.
    pub fn apply(self, h: &mut Hit) {
        let parent = self.prop("parent");
        let is_row = self.prop("type").as_deref() == Some("database_row");
        if let Some(t) = self.title.clone().or_else(|| self.prop("title")) {
            h.title = t;
        }
        h.kind = EvidenceKind::for_notion(parent.as_deref(), &h.title, is_row);
        if let Some(p) = &parent {
            h.location = p.clone();
        }
        h.author = self.prop("created_by").or(h.author.take());
        if let Some(t) = self
            .prop("last_edited_time")
            .as_deref()
            .and_then(crate::text::parse_time)
        {
            h.timestamp = Some(t);
        }
        if h.url.is_none() {
            h.url = self.url.clone();
        }
        for (k, v) in &self.properties {
            if !matches!(
                k.as_str(),
                "title" | "parent" | "type" | "created_by" | "created_time" | "last_edited_time"
            ) {
                if let Value::String(s) = v {
                    h.properties.insert(k.clone(), s.clone());
                } else if !v.is_null() {
                    h.properties.insert(k.clone(), v.to_string());
                }
            }
        }
        if !self.content.trim().is_empty() {
            h.text = self.content.trim().to_string();
        }
    }
}

/// Parses `notion-fetch`'s `{title, url, text: "<page><properties>…</properties><content>…</content></page>"}`.
/// Properties may be JSON or `Key: Value` lines.
pub fn parse_hosted_fetch(text: &str) -> Result<FetchedPage, SourceError> {
    let v = parse_json(text)?;
    let body = v
        .get("text")
        .and_then(Value::as_str)
        .ok_or_else(|| SourceError::Parse("notion-fetch result has no `text`".into()))?;
    let between = |open: &str, close: &str| -> Option<String> {
        let s = body.find(open)? + open.len();
        let e = body[s..].find(close)? + s;
        Some(body[s..e].to_string())
    };
    let props_raw = between("<properties>", "</properties>").unwrap_or_default();
    let properties = match serde_json::from_str::<Value>(props_raw.trim()) {
        Ok(Value::Object(m)) => m,
        _ => props_raw
            .lines()
            .filter_map(|l| l.split_once(':').map(|(k, v)| (k.trim().to_string(), json!(v.trim()))))
            .filter(|(k, _)| !k.is_empty())
            .collect(),
    };
    let content = between("<content>", "</content>").unwrap_or_else(|| {
        if body.contains("<page") {
            String::new()
        } else {
            body.to_string()
        }
    });
    Ok(FetchedPage {
        title: v.get("title").and_then(Value::as_str).map(str::to_string),
        url: v.get("url").and_then(Value::as_str).map(str::to_string),
        properties,
        content,
    })
}

/// Parses the raw Notion API search list of `API-post-search`; returns hits and `has_more`.
pub fn parse_api_search(source: &str, text: &str) -> Result<(Vec<Hit>, bool), SourceError> {
    let v = parse_json(text)?;
    if v.get("object").and_then(Value::as_str) == Some("error") {
        let msg = v.get("message").and_then(Value::as_str).unwrap_or("error").to_string();
        return Err(match v.get("status").and_then(Value::as_u64) {
            Some(401 | 403) => SourceError::Auth(msg),
            Some(429) => SourceError::RateLimited(msg),
            _ => SourceError::Tool(msg),
        });
    }
    let results = v
        .get("results")
        .and_then(Value::as_array)
        .ok_or_else(|| SourceError::Parse("API-post-search result has no `results` array".into()))?;
    let mut hits = Vec::new();
    for (rank, r) in results.iter().enumerate() {
        if r.get("object").and_then(Value::as_str).is_some_and(|o| o != "page") {
            continue;
        }
        let Some(id) = r.get("id").and_then(Value::as_str).and_then(notion_id) else {
            continue;
        };
        let props = r.get("properties").and_then(Value::as_object);
        let title = props
            .and_then(|p| {
                p.values()
                    .find(|pv| pv.get("type").and_then(Value::as_str) == Some("title") || pv.get("title").is_some())
            })
            .and_then(|pv| pv.get("title").and_then(Value::as_array))
            .map(|parts| {
                parts
                    .iter()
                    .filter_map(|t| t.get("plain_text").and_then(Value::as_str))
                    .collect::<String>()
            })
            .unwrap_or_default();
        let in_db = r.pointer("/parent/type").and_then(Value::as_str) == Some("database_id");
        let mut h = Hit::new(
            source,
            &id,
            EvidenceKind::for_notion(None, &title, in_db),
            title.clone(),
        );
        h.title = title;
        h.url = r.get("url").and_then(Value::as_str).map(str::to_string);
        h.timestamp = r.get("last_edited_time").and_then(time_of);
        h.native_rank = rank;
        h.location = if in_db {
            crate::hit::NO_PLACE[1]
        } else {
            crate::hit::NO_PLACE[0]
        }
        .into();
        if let Some(p) = props {
            for (k, pv) in p {
                if let Some(s) = property_text(pv) {
                    h.properties.insert(k.clone(), s);
                }
            }
        }
        hits.push(h);
    }
    Ok((hits, v.get("has_more").and_then(Value::as_bool).unwrap_or(false)))
}

/// The plain text of a Notion API property value (select, status, people, date, rich text).
fn property_text(pv: &Value) -> Option<String> {
    let ty = pv.get("type")?.as_str()?;
    let v = pv.get(ty)?;
    let s = match ty {
        "title" => return None,
        "select" | "status" => v.get("name")?.as_str()?.to_string(),
        "multi_select" => v
            .as_array()?
            .iter()
            .filter_map(|x| x.get("name")?.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        "people" => v
            .as_array()?
            .iter()
            .filter_map(|x| x.get("name")?.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        "date" => v.get("start")?.as_str()?.to_string(),
        "rich_text" => v
            .as_array()?
            .iter()
            .filter_map(|x| x.get("plain_text")?.as_str())
            .collect(),
        "number" | "checkbox" => v.to_string(),
        _ => return None,
    };
    (!s.is_empty()).then_some(s)
}

/// Parses `API-get-block-children`: the plain text of each block, one per line.
pub fn parse_block_children(text: &str) -> Result<String, SourceError> {
    let v = parse_json(text)?;
    let blocks = v
        .get("results")
        .and_then(Value::as_array)
        .ok_or_else(|| SourceError::Parse("block children result has no `results` array".into()))?;
    let mut out = Vec::new();
    for b in blocks {
        let Some(ty) = b.get("type").and_then(Value::as_str) else {
            continue;
        };
        let line: String = b
            .pointer(&format!("/{ty}/rich_text"))
            .and_then(Value::as_array)
            .map(|parts| {
                parts
                    .iter()
                    .filter_map(|t| t.get("plain_text").and_then(Value::as_str))
                    .collect()
            })
            .unwrap_or_default();
        let prefix = match ty {
            "heading_1" => "# ",
            "heading_2" => "## ",
            "heading_3" => "### ",
            "bulleted_list_item" | "numbered_list_item" | "to_do" => "- ",
            _ => "",
        };
        if !line.is_empty() {
            out.push(format!("{prefix}{line}"));
        }
    }
    Ok(out.join("\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosted_search_and_fetch() {
        let s = r#"{"results":[{"id":"3F2A9C0E-5B7D-4E1F-A0C2-D4E6F8A0B1C2","title":"Pricing &amp; plans","url":"https://notion.so/x","type":"page","highlight":"Seats cost &amp;lt;$49","timestamp":"2026-10-01T09:00:00Z"},{"id":"not-an-id","title":"skip"},{"id":"00000000000000000000000000000abc","title":"Tasks row","type":"database"}]}"#;
        let hits = parse_hosted_search("notion", s).unwrap();
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].id, "notion:3f2a9c0e5b7d4e1fa0c2d4e6f8a0b1c2");
        assert_eq!(hits[0].timestamp.unwrap().to_rfc3339(), "2026-10-01T09:00:00+00:00");
        assert_eq!(hits[1].kind, EvidenceKind::Task);

        let f = r#"{"title":"Deploy","url":"u","text":"<page url=\"u\"><properties>{\"title\":\"Deploy\",\"parent\":\"Engineering Wiki\",\"created_by\":\"Aiko\",\"Status\":\"Done\",\"last_edited_time\":\"2026-11-01T00:00:00Z\"}</properties><content># Deploy\nSteps</content></page>"}"#;
        let page = parse_hosted_fetch(f).unwrap();
        let mut h = hits[0].clone();
        page.apply(&mut h);
        assert_eq!(h.kind, EvidenceKind::Wiki);
        assert_eq!(h.author.as_deref(), Some("Aiko"));
        assert_eq!(h.text, "# Deploy\nSteps");
        assert_eq!(h.properties["Status"], "Done");
        assert_eq!(h.location, "Engineering Wiki");

        let kv = r#"{"text":"<page><properties>Status: Open\nOwner: Ken</properties><content>x</content></page>"}"#;
        assert_eq!(parse_hosted_fetch(kv).unwrap().properties["Owner"], "Ken");
    }

    #[test]
    fn hosted_garbage_and_empty() {
        assert!(parse_hosted_search("n", r#"{"results":[]}"#).unwrap().is_empty());
        assert!(matches!(
            parse_hosted_search("n", "Internal Server Error"),
            Err(SourceError::Parse(_))
        ));
        assert!(matches!(
            parse_hosted_search("n", r#"{"items":[]}"#),
            Err(SourceError::Parse(_))
        ));
        assert!(matches!(
            parse_hosted_fetch(r#"{"title":"x"}"#),
            Err(SourceError::Parse(_))
        ));
    }

    #[test]
    fn api_search_and_blocks() {
        let s = r#"{"object":"list","results":[{"object":"page","id":"3f2a9c0e-5b7d-4e1f-a0c2-d4e6f8a0b1c2","url":"https://www.notion.so/Fix-3f2a","last_edited_time":"2026-11-02T10:00:00.000Z","parent":{"type":"database_id","database_id":"d"},"properties":{"Name":{"id":"title","type":"title","title":[{"plain_text":"Fix "},{"plain_text":"login"}]},"Status":{"type":"status","status":{"name":"In progress"}},"Assignee":{"type":"people","people":[{"name":"Aiko Tanaka"}]},"Due":{"type":"date","date":{"start":"2026-12-05"}}}},{"object":"database","id":"x"}],"has_more":true,"next_cursor":"c"}"#;
        let (hits, more) = parse_api_search("notion", s).unwrap();
        assert!(more);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].title, "Fix login");
        assert_eq!(hits[0].kind, EvidenceKind::Task);
        assert_eq!(hits[0].properties["Assignee"], "Aiko Tanaka");
        assert_eq!(hits[0].properties["Due"], "2026-12-05");
        let err = parse_api_search(
            "notion",
            r#"{"object":"error","status":401,"message":"API token is invalid."}"#,
        )
        .unwrap_err();
        assert!(matches!(err, SourceError::Auth(_)));
        let b = r#"{"results":[{"type":"heading_2","heading_2":{"rich_text":[{"plain_text":"Plan"}]}},{"type":"paragraph","paragraph":{"rich_text":[{"plain_text":"Ship "},{"plain_text":"Friday"}]}},{"type":"divider","divider":{}}]}"#;
        assert_eq!(parse_block_children(b).unwrap(), "## Plan\n\nShip Friday");
    }
}
