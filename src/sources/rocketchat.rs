//! RocketChat adapter: the four-tool cross-room search server (`search_messages`), live or
//! offline; its coverage line ("searched 48 of 50 rooms ...") becomes the source's note.

use serde_json::{Map, Value, json};

use crate::hit::{EvidenceKind, Hit};
use crate::sources::{Connection, SourceError, SourceQuery, SourceResult, ok_text, parse_json};
use crate::wire::rocketchat::SearchResult;

pub async fn search(conn: &Connection, q: &SourceQuery) -> Result<SourceResult, SourceError> {
    let r = conn.call("search_messages", args(q)).await?;
    parse(&conn.config.name, &ok_text(&r)?)
}

pub fn args(q: &SourceQuery) -> Map<String, Value> {
    let mut m = Map::new();
    let mut text = q.text.clone();
    for p in &q.phrases {
        text.push(' ');
        text.push_str(p);
    }
    m.insert("query".into(), json!(text.trim()));
    if let Some(c) = &q.channel {
        m.insert("channel".into(), json!(c.trim_start_matches('#')));
    }
    if let Some(u) = &q.user {
        m.insert("username".into(), json!(u.trim_start_matches('@')));
    }
    if let Some(a) = q.after {
        m.insert("since".into(), json!(a.to_rfc3339()));
    }
    if let Some(b) = q.before {
        m.insert("until".into(), json!(b.to_rfc3339()));
    }
    m.insert("limit".into(), json!(q.limit.clamp(1, 200)));
    m
}

/// Parses `search_messages`' JSON into hits.
pub fn parse(source: &str, text: &str) -> Result<SourceResult, SourceError> {
    let v = parse_json(text)?;
    let r: SearchResult = serde_json::from_value(v)
        .map_err(|e| SourceError::Parse(format!("search_messages result does not have the expected shape: {e}")))?;
    let hits = r
        .messages
        .iter()
        .enumerate()
        .map(|(rank, m)| {
            let mut h = Hit::new(
                source,
                &m.id,
                EvidenceKind::Chat,
                html_escape::decode_html_entities(&m.msg).trim(),
            );
            let room = m.room.clone().unwrap_or_else(|| m.rid.clone());
            h.title = format!("#{room}: {}", crate::text::truncate_chars(h.text.trim(), 60));
            h.location = format!("#{room}");
            h.author =
                m.u.name
                    .clone()
                    .filter(|n| !n.is_empty())
                    .or_else(|| Some(m.u.username.clone()));
            // Mentions of this author (`@username`) read as the name (`pipeline::mentions`).
            h.author_id = Some(m.u.username.clone()).filter(|u| !u.is_empty());
            h.timestamp = crate::text::parse_time(&m.ts);
            h.thread = Some(m.tmid.clone().unwrap_or_else(|| m.id.clone()));
            h.native_rank = rank;
            h
        })
        .collect();
    let partial = !r.rooms_failed.is_empty() || r.rooms_skipped > 0;
    Ok(SourceResult {
        hits,
        truncated: r.truncated || partial,
        total: Some(r.hits_total),
        note: (r.truncated || partial).then(|| r.summary.clone()),
        unreadable: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_results_and_coverage() {
        let t = r#"{"messages":[{"_id":"Xk2pQ9aB7cD4eF1gH","rid":"R1","msg":"リリースは12/5に延期 &amp; 確定","ts":"2026-11-20T01:02:03.000Z","u":{"_id":"u1","username":"aiko","name":"田中 愛子"},"tmid":"P1","room":"dev-ja"}],"rooms_total":5,"rooms_searched":4,"rooms_failed":[{"room":"secret","reason":"forbidden"}],"rooms_skipped":0,"hits_total":3,"truncated":true,"summary":"searched 4 of 5 rooms (1 failed: forbidden); 1 of 3 hits shown"}"#;
        let r = parse("rocketchat", t).unwrap();
        assert_eq!(r.hits[0].id, "rocketchat:Xk2pQ9aB7cD4eF1gH");
        assert_eq!(r.hits[0].text, "リリースは12/5に延期 & 確定");
        assert_eq!(r.hits[0].author.as_deref(), Some("田中 愛子"));
        assert_eq!(r.hits[0].thread.as_deref(), Some("P1"));
        assert_eq!(r.hits[0].location, "#dev-ja");
        assert!(r.truncated);
        assert_eq!(r.total, Some(3));
        assert!(r.note.unwrap().contains("1 failed: forbidden"));
    }

    #[test]
    fn empty_and_garbage() {
        let empty = r#"{"messages":[],"rooms_total":2,"rooms_searched":2,"hits_total":0,"truncated":false,"summary":"searched 2 of 2 rooms; 0 of 0 hits shown"}"#;
        let r = parse("rc", empty).unwrap();
        assert!(r.hits.is_empty() && !r.truncated && r.note.is_none());
        assert!(matches!(parse("rc", "oops"), Err(SourceError::Parse(_))));
        assert!(matches!(
            parse("rc", r#"{"messages":[{"msg":1}]}"#),
            Err(SourceError::Parse(_))
        ));
    }
}
