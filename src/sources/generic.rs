//! Generic adapter: any MCP server with a search tool, described by a `mapping` in
//! `sagasu.yaml` (tool, argument template, JSON pointers into the result).

use serde_json::{Map, Value, json};

use crate::config::GenericMapping;
use crate::hit::{EvidenceKind, Hit};
use crate::sources::{Connection, SourceError, SourceQuery, SourceResult, ok_text, parse_json};

pub async fn search(conn: &Connection, q: &SourceQuery) -> Result<SourceResult, SourceError> {
    let Some(m) = &conn.config.mapping else {
        return Err(SourceError::Unsupported("a generic source needs a `mapping`".into()));
    };
    let r = conn.call(&m.tool, arguments(m, q)).await?;
    let hits = parse(&conn.config.name, m, &ok_text(&r)?)?;
    Ok(SourceResult {
        truncated: hits.len() >= q.limit,
        hits,
        total: None,
        note: None,
        unreadable: 0,
    })
}

fn fill(v: &Value, q: &SourceQuery) -> Value {
    match v {
        Value::String(s) if s == "{limit}" => json!(q.limit),
        Value::String(s) => json!(
            s.replace("{query}", q.text.trim())
                .replace("{limit}", &q.limit.to_string())
        ),
        Value::Array(a) => Value::Array(a.iter().map(|x| fill(x, q)).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, x)| (k.clone(), fill(x, q))).collect()),
        other => other.clone(),
    }
}

/// The tool's arguments: the template with `{query}` and `{limit}` filled in.
pub fn arguments(m: &GenericMapping, q: &SourceQuery) -> Map<String, Value> {
    if m.arguments.is_empty() {
        let mut a = Map::new();
        a.insert("query".into(), json!(q.text.trim()));
        return a;
    }
    m.arguments.iter().map(|(k, v)| (k.clone(), fill(v, q))).collect()
}

fn string_at(v: &Value, pointer: &str) -> Option<String> {
    match v.pointer(pointer)? {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// Reads hits out of the tool's JSON text with the mapping's pointers.
pub fn parse(source: &str, m: &GenericMapping, text: &str) -> Result<Vec<Hit>, SourceError> {
    let v = parse_json(text)?;
    let arr = v
        .pointer(&m.results)
        .and_then(Value::as_array)
        .ok_or_else(|| SourceError::Parse(format!("no array at `{}` in the result", m.results)))?;
    let mut hits = Vec::new();
    for (rank, r) in arr.iter().enumerate() {
        let Some(id) = string_at(r, &m.id) else { continue };
        let mut h = Hit::new(
            source,
            &id,
            m.kind.unwrap_or(EvidenceKind::Page),
            string_at(r, &m.text).unwrap_or_default(),
        );
        h.title = m
            .title
            .as_deref()
            .and_then(|p| string_at(r, p))
            .unwrap_or_else(|| crate::text::truncate_chars(&h.text, 60));
        h.timestamp = m
            .time
            .as_deref()
            .and_then(|p| string_at(r, p))
            .and_then(|t| crate::text::parse_time(&t));
        h.url = m.url.as_deref().and_then(|p| string_at(r, p));
        h.author = m.author.as_deref().and_then(|p| string_at(r, p));
        h.location = m
            .location
            .as_deref()
            .and_then(|p| string_at(r, p))
            .unwrap_or_else(|| source.to_string());
        h.native_rank = rank;
        hits.push(h);
    }
    Ok(hits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mapping() -> GenericMapping {
        serde_norway::from_str(
            "tool: search_docs\narguments: {q: \"{query}\", n: \"{limit}\", opts: {lang: en}}\nresults: /data/items\nid: /key\ntitle: /name\ntext: /body\ntime: /updated\nurl: /link\nkind: wiki\n",
        )
        .unwrap()
    }

    #[test]
    fn template_and_pointers() {
        let m = mapping();
        let a = arguments(&m, &SourceQuery::new(" vpn ", 7));
        assert_eq!(Value::Object(a), json!({"q": "vpn", "n": 7, "opts": {"lang": "en"}}));
        let hits = parse("docs", &m, r#"{"data":{"items":[{"key":42,"name":"VPN","body":"Use WireGuard","updated":"2026-10-01","link":"https://d/42"},{"name":"no key"}]}}"#).unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].id, "docs:42");
        assert_eq!(hits[0].kind, EvidenceKind::Wiki);
        assert_eq!(hits[0].timestamp.unwrap().to_rfc3339(), "2026-10-01T00:00:00+00:00");
        assert!(matches!(
            parse("docs", &m, r#"{"data":{}}"#),
            Err(SourceError::Parse(_))
        ));
    }
}
