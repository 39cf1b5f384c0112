//! Slack adapter: Slack's hosted MCP server (`slack_search_public[_and_private]`, Markdown) and
//! korotovsky/slack-mcp-server (`conversations_search_messages`, CSV).

use chrono::{DateTime, Duration as ChronoDuration, Utc};
use serde_json::{Map, Value, json};

use crate::config::Preset;
use crate::hit::{EvidenceKind, Hit, slack_ts_to_time};
use crate::sources::{Connection, SourceError, SourceQuery, SourceResult, ok_text};
use crate::text;

/// Slack's hosted server returns at most this many per page.
const PAGE: usize = 20;

pub async fn search(conn: &Connection, q: &SourceQuery) -> Result<SourceResult, SourceError> {
    let preset = match conn.config.preset {
        Some(p) => p,
        None => {
            let names = conn.tool_names().await?;
            if names.iter().any(|n| n == "conversations_search_messages") {
                Preset::SlackKorotovsky
            } else {
                Preset::SlackHosted
            }
        }
    };
    let source = conn.config.name.as_str();
    match preset {
        Preset::SlackKorotovsky => {
            let r = conn.call("conversations_search_messages", korotovsky_args(q)).await?;
            parse_csv(source, &ok_text(&r)?, q.limit)
        }
        _ => {
            let names = conn.tool_names().await?;
            let tool = if names.iter().any(|n| n == "slack_search_public_and_private") {
                "slack_search_public_and_private"
            } else {
                "slack_search_public"
            };
            let mut out = SourceResult::default();
            let mut cursor: Option<String> = None;
            while out.hits.len() < q.limit {
                let r = conn.call(tool, hosted_args(q, cursor.as_deref())).await?;
                let page = parse_markdown(source, &ok_text(&r)?)?;
                let offset = out.hits.len();
                out.unreadable += page.unreadable;
                out.total = page.total.or(out.total);
                out.hits.extend(page.hits.into_iter().map(|mut h| {
                    h.native_rank += offset;
                    h
                }));
                match page.next_cursor {
                    Some(c) if out.hits.len() < q.limit => cursor = Some(c),
                    Some(_) => {
                        out.truncated = true;
                        break;
                    }
                    None => break,
                }
            }
            out.hits.truncate(q.limit);
            if let Some(t) = out.total {
                out.truncated |= t > out.hits.len();
            }
            Ok(out)
        }
    }
}

/// The hosted server's query: words plus Slack modifiers. Slack's `after:` excludes its day, so
/// "at or after T" becomes `after:` the day before T.
pub fn hosted_query(q: &SourceQuery) -> String {
    let mut parts = vec![q.text.trim().to_string()];
    parts.extend(q.phrases.iter().map(|p| format!("\"{p}\"")));
    if let Some(c) = &q.channel {
        parts.push(format!("in:#{}", c.trim_start_matches('#')));
    }
    if let Some(u) = &q.user {
        parts.push(format!("from:@{}", u.trim_start_matches('@')));
    }
    if let Some(a) = q.after {
        parts.push(format!("after:{}", (a - ChronoDuration::days(1)).format("%Y-%m-%d")));
    }
    if let Some(b) = q.before {
        // before: excludes its day; a bound inside a day keeps that day
        let day = if b.time() == chrono::NaiveTime::MIN {
            b
        } else {
            b + ChronoDuration::days(1)
        };
        parts.push(format!("before:{}", day.format("%Y-%m-%d")));
    }
    parts.retain(|p| !p.is_empty());
    parts.join(" ")
}

fn hosted_args(q: &SourceQuery, cursor: Option<&str>) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("query".into(), json!(hosted_query(q)));
    m.insert("limit".into(), json!(q.limit.clamp(1, PAGE)));
    // With no words there is nothing to score: the newest messages that pass the filters.
    let browsing = q.text.trim().is_empty() && q.phrases.is_empty();
    m.insert("sort".into(), json!(if browsing { "timestamp" } else { "score" }));
    m.insert("response_format".into(), json!("detailed"));
    if let Some(c) = cursor {
        m.insert("cursor".into(), json!(c));
    }
    m
}

fn korotovsky_args(q: &SourceQuery) -> Map<String, Value> {
    let mut m = Map::new();
    let mut text = q.text.clone();
    for p in &q.phrases {
        text.push_str(&format!(" \"{p}\""));
    }
    m.insert("search_query".into(), json!(text.trim()));
    if let Some(c) = &q.channel {
        m.insert(
            "filter_in_channel".into(),
            json!(format!("#{}", c.trim_start_matches('#'))),
        );
    }
    if let Some(u) = &q.user {
        m.insert(
            "filter_users_from".into(),
            json!(format!("@{}", u.trim_start_matches('@'))),
        );
    }
    if let Some(a) = q.after {
        m.insert(
            "filter_date_after".into(),
            json!((a - ChronoDuration::days(1)).format("%Y-%m-%d").to_string()),
        );
    }
    if let Some(b) = q.before {
        m.insert("filter_date_before".into(), json!(b.format("%Y-%m-%d").to_string()));
    }
    m.insert("limit".into(), json!(q.limit.clamp(1, 100)));
    m
}

/// One page of the hosted server's Markdown.
#[derive(Debug, Default)]
pub struct MarkdownPage {
    pub hits: Vec<Hit>,
    pub total: Option<usize>,
    pub next_cursor: Option<String>,
    /// Results without a channel or a message ts of Slack's shape, left out.
    pub unreadable: usize,
}

/// Whether `c` can be the channel of a contract id (`<channel>/<ts>`): not empty, no `/`.
fn is_channel(c: &str) -> bool {
    !c.is_empty() && !c.contains('/')
}

/// Whether `ts` is a Slack message timestamp (`1794703080.237475`: seconds, a dot, six digits),
/// the shape a contract id needs.
pub fn is_message_ts(ts: &str) -> bool {
    let b = ts.as_bytes();
    b.len() == 17 && b[10] == b'.' && b.iter().enumerate().all(|(i, c)| i == 10 || c.is_ascii_digit())
}

fn message_hit(source: &str, channel: &str, ts: &str, raw_text: &str) -> Hit {
    let clean = text::clean_slack_markup(raw_text, &|_| None);
    let mut h = Hit::new(source, &format!("{channel}/{ts}"), EvidenceKind::Chat, clean.trim());
    h.location = format!("#{channel}");
    h.timestamp = slack_ts_to_time(ts);
    h.title = format!("#{channel}: {}", text::truncate_chars(clean.trim(), 60));
    h
}

/// Parses the hosted Slack server's Markdown result.
pub fn parse_markdown(source: &str, md: &str) -> Result<MarkdownPage, SourceError> {
    let mut page = MarkdownPage::default();
    let trimmed = md.trim();
    if trimmed.contains("No results found") {
        return Ok(page);
    }
    if !trimmed.contains("### Result") && !trimmed.starts_with("# Search Results") {
        return Err(SourceError::Parse(format!(
            "expected Slack search Markdown; got `{}`",
            text::truncate_chars(trimmed, 80)
        )));
    }
    for line in trimmed.lines() {
        if let Some(rest) = line.strip_prefix("## Messages (") {
            page.total = rest.split_whitespace().next().and_then(|n| n.parse().ok());
        }
        if let Some(rest) = line.trim().strip_prefix("Next cursor:") {
            let c = rest.trim();
            if !c.is_empty() {
                page.next_cursor = Some(c.to_string());
            }
        }
    }
    for (rank, block) in trimmed.split("### Result").skip(1).enumerate() {
        let mut fields: Vec<(&str, String)> = Vec::new();
        let mut text_lines: Option<Vec<&str>> = None;
        for line in block.lines().skip(1) {
            if line.trim() == "---" || line.trim_start().starts_with("Next cursor:") {
                break;
            }
            if let Some(t) = text_lines.as_mut() {
                t.push(line);
                continue;
            }
            if let Some((k, v)) = line.split_once(':') {
                let k = k.trim();
                if k == "Text" {
                    text_lines = Some(vec![v.trim_start()]);
                } else {
                    fields.push((k, v.trim().to_string()));
                }
            }
        }
        let get = |k: &str| fields.iter().find(|(f, _)| *f == k).map(|(_, v)| v.clone());
        let channel_line = get("Channel").unwrap_or_default();
        let channel = channel_line
            .trim_start_matches('#')
            .split(" (ID:")
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        let permalink = get("Permalink").map(|p| {
            p.split_once("](")
                .map(|(_, u)| u.trim_end_matches(')').to_string())
                .unwrap_or(p)
        });
        let ts = get("Message_ts")
            .filter(|t| is_message_ts(t))
            .or_else(|| permalink.as_deref().and_then(ts_from_permalink));
        let (Some(ts), true) = (ts, is_channel(&channel)) else {
            // A result without a channel or message ts cannot be cited: left out, and counted.
            page.unreadable += 1;
            continue;
        };
        let body = text_lines.map(|t| t.join("\n")).unwrap_or_default();
        let mut h = message_hit(source, &channel, &ts, &body);
        h.native_rank = rank;
        if let Some(from) = get("From") {
            let (name, id) = from.split_once(" (ID:").unwrap_or((&from, ""));
            h.author = Some(name.trim().to_string());
            let id = id.trim().trim_end_matches(')').trim();
            h.author_id = (!id.is_empty()).then(|| id.to_string());
        }
        let thread_ts = get("Thread_ts").or_else(|| {
            permalink.as_deref().and_then(|p| {
                p.split("thread_ts=")
                    .nth(1)
                    .map(|t| t.split('&').next().unwrap_or(t).to_string())
            })
        });
        h.thread = Some(format!("{channel}/{}", thread_ts.unwrap_or_else(|| ts.clone())));
        h.url = permalink;
        if h.timestamp.is_none() {
            h.timestamp = get("Time").and_then(|t| parse_loose_time(&t));
        }
        page.hits.push(h);
    }
    Ok(page)
}

/// `https://x.slack.com/archives/C1/p1761905400000200` -> `1761905400.000200`.
/// The message ts a permalink names (`…/p1794703080237475` is `1794703080.237475`), when it
/// has Slack's shape.
fn ts_from_permalink(url: &str) -> Option<String> {
    let p = url.rsplit('/').next()?.split('?').next()?.strip_prefix('p')?;
    (p.len() > 6 && p.chars().all(|c| c.is_ascii_digit()))
        .then(|| format!("{}.{}", &p[..p.len() - 6], &p[p.len() - 6..]))
        .filter(|t| is_message_ts(t))
}

fn parse_loose_time(s: &str) -> Option<DateTime<Utc>> {
    let s = s.trim().trim_end_matches(" UTC");
    crate::text::parse_time(s).or_else(|| {
        chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S")
            .ok()
            .map(|t| t.and_utc())
    })
}

/// Parses korotovsky/slack-mcp-server's CSV (`MsgID,UserID,UserName,RealName,Channel,ThreadTs,Text,Time,...,Cursor`).
pub fn parse_csv(source: &str, csv_text: &str, limit: usize) -> Result<SourceResult, SourceError> {
    let mut out = SourceResult::default();
    if csv_text.trim().is_empty() {
        return Ok(out);
    }
    let mut rdr = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(csv_text.as_bytes());
    let headers = rdr
        .headers()
        .map_err(|e| SourceError::Parse(format!("bad CSV header: {e}")))?
        .clone();
    let col = |name: &str| headers.iter().position(|h| h.trim().eq_ignore_ascii_case(name));
    let (Some(c_id), Some(c_chan), Some(c_text)) = (col("MsgID"), col("Channel"), col("Text")) else {
        return Err(SourceError::Parse(format!(
            "CSV lacks MsgID/Channel/Text columns; got `{}`",
            headers.iter().collect::<Vec<_>>().join(",")
        )));
    };
    let c_user_id = col("UserID");
    let (c_real, c_user, c_thread, c_time, c_cursor) = (
        col("RealName"),
        col("UserName"),
        col("ThreadTs"),
        col("Time"),
        col("Cursor"),
    );
    for (rank, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| SourceError::Parse(format!("bad CSV row: {e}")))?;
        let get = |c: Option<usize>| c.and_then(|i| rec.get(i)).map(str::trim).filter(|s| !s.is_empty());
        if let Some(cur) = get(c_cursor)
            && get(Some(c_id)).is_none()
        {
            // The last row carries only the next page's cursor.
            out.truncated = !cur.is_empty();
            continue;
        }
        let channel = get(Some(c_chan)).unwrap_or("").trim_start_matches('#').to_string();
        let Some(ts) = get(Some(c_id)).filter(|t| is_message_ts(t) && is_channel(&channel)) else {
            // A row without a channel or message ts cannot be cited: left out, and counted.
            out.unreadable += 1;
            continue;
        };
        let mut h = message_hit(source, &channel, ts, get(Some(c_text)).unwrap_or(""));
        h.native_rank = rank;
        h.author = get(c_real).or(get(c_user)).map(str::to_string);
        h.author_id = get(c_user_id).map(str::to_string);
        h.thread = Some(format!("{channel}/{}", get(c_thread).unwrap_or(ts)));
        if h.timestamp.is_none() {
            h.timestamp = get(c_time).and_then(parse_loose_time);
        }
        out.hits.push(h);
    }
    if out.hits.len() > limit {
        out.hits.truncate(limit);
        out.truncated = true;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTED: &str = "# Search Results for \"price\"\n\n## Messages (2 results)\n\n### Result 1 of 2\nChannel: #pricing (ID: C01)\nFrom: Aiko Tanaka (ID: U01)\nTime: 2026-10-31 10:10:00 UTC\nMessage_ts: 1761905400.000200\nPermalink: [link](https://acme.slack.com/archives/C01/p1761905400000200)\nText: We go with $49 &amp; <@U02> agrees, see <#C02|finance>\nsecond line\n---\n### Result 2 of 2\nChannel: #general (ID: C03)\nFrom: Ken (ID: U03)\nPermalink: [link](https://acme.slack.com/archives/C03/p1761905500000100?thread_ts=1761905400.000200&cid=C03)\nText: reply\n---\n";

    #[test]
    fn hosted_markdown_parses() {
        let p = parse_markdown("slack", HOSTED).unwrap();
        assert_eq!(p.total, Some(2));
        assert_eq!(p.hits.len(), 2);
        let h = &p.hits[0];
        assert_eq!(h.id, "slack:pricing/1761905400.000200");
        assert_eq!(h.author.as_deref(), Some("Aiko Tanaka"));
        assert_eq!(h.author_id.as_deref(), Some("U01"), "the id, for naming mentions of it");
        assert_eq!(h.text, "We go with $49 & @U02 agrees, see #finance\nsecond line");
        assert_eq!(h.location, "#pricing");
        assert_eq!(h.timestamp.unwrap().timestamp(), 1761905400);
        // ts from the permalink, thread from its query string
        let r = &p.hits[1];
        assert_eq!(r.id, "slack:general/1761905500.000100");
        assert_eq!(r.thread.as_deref(), Some("general/1761905400.000200"));
        assert_eq!(r.native_rank, 1);
    }

    #[test]
    fn hosted_empty_and_garbage() {
        let p = parse_markdown("slack", "# Search Results for \"x\"\n\nNo results found.").unwrap();
        assert!(p.hits.is_empty());
        let e = parse_markdown("slack", "<html>502 Bad Gateway</html>").unwrap_err();
        assert!(matches!(e, SourceError::Parse(_)), "{e}");
        let p = parse_markdown(
            "slack",
            "# Search Results for \"x\"\n### Result 1 of 1\nText: no channel\n",
        )
        .unwrap();
        assert!(p.hits.is_empty());
        assert_eq!(p.unreadable, 1);
    }

    #[test]
    fn korotovsky_csv_parses() {
        let csv = "MsgID,UserID,UserName,RealName,Channel,ThreadTs,Text,Time,Reactions,Cursor\n1761905400.000200,U01,aiko,Aiko Tanaka,#pricing,,\"Price is $49, final\",2026-10-31T10:10:00Z,,\n1761905500.000100,U02,ken,,#pricing,1761905400.000200,ok &lt;3,2026-10-31T10:11:40Z,,\n,,,,,,,,,bmV4dA==\n";
        let r = parse_csv("slack", csv, 10).unwrap();
        assert_eq!(r.hits.len(), 2);
        assert!(r.truncated);
        assert_eq!(r.hits[0].text, "Price is $49, final");
        assert_eq!(r.hits[1].author.as_deref(), Some("ken"));
        assert_eq!(r.hits[1].author_id.as_deref(), Some("U02"));
        assert_eq!(r.hits[1].text, "ok <3");
        assert_eq!(r.hits[1].thread.as_deref(), Some("pricing/1761905400.000200"));
        assert!(parse_csv("slack", "", 10).unwrap().hits.is_empty());
        assert!(matches!(
            parse_csv("slack", "a,b\n1,2\n", 10),
            Err(SourceError::Parse(_))
        ));
    }

    #[test]
    fn hosted_query_translation() {
        let t = |s: &str| crate::text::parse_time(s).unwrap();
        let q = SourceQuery {
            text: "price".into(),
            channel: Some("#pricing".into()),
            user: Some("aiko".into()),
            after: Some(t("2026-10-01")),
            before: Some(t("2026-11-01")),
            phrases: vec!["per seat".into()],
            limit: 5,
            ..Default::default()
        };
        assert_eq!(
            hosted_query(&q),
            "price \"per seat\" in:#pricing from:@aiko after:2026-09-30 before:2026-11-01"
        );
    }
}
