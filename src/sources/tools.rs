//! Tool-catalog adapter: the Dynamic-Search meta-tools. `search_tools` ranks, then
//! `describe_tools` brings the top tools' input schemas so a citation can say how to call it.

use serde_json::{Value, json};

use crate::hit::{EvidenceKind, Hit};
use crate::sources::{Connection, SourceError, SourceQuery, SourceResult, ok_text, parse_json};

/// Tools described per search (their schemas become part of the evidence).
const DESCRIBE_TOP: usize = 5;

pub async fn search(conn: &Connection, q: &SourceQuery) -> Result<SourceResult, SourceError> {
    let args = json!({"query": q.text.trim(), "limit": q.limit.clamp(1, 50)});
    let r = conn
        .call("search_tools", args.as_object().cloned().unwrap_or_default())
        .await?;
    let (mut hits, unreadable) = parse_search_counted(&conn.config.name, &ok_text(&r)?)?;
    let names: Vec<String> = hits.iter().take(DESCRIBE_TOP).map(|h| h.title.clone()).collect();
    let mut note = None;
    if !names.is_empty() {
        let args = json!({"toolNames": names});
        match conn
            .call("describe_tools", args.as_object().cloned().unwrap_or_default())
            .await
            .and_then(|r| ok_text(&r))
        {
            Ok(t) => apply_descriptions(&mut hits, &t)?,
            Err(e) => note = Some(format!("describe_tools failed: {e}")),
        }
    }
    Ok(SourceResult {
        truncated: hits.len() >= q.limit,
        hits,
        total: None,
        note,
        unreadable,
    })
}

/// Parses `search_tools`' `[{toolName, description, relevanceScore}]`.
pub fn parse_search(source: &str, text: &str) -> Result<Vec<Hit>, SourceError> {
    parse_search_counted(source, text).map(|(hits, _)| hits)
}

/// `parse_search`, also counting the entries left out: those without a `toolName` of the
/// `<server>__<tool>` shape a contract id needs.
pub fn parse_search_counted(source: &str, text: &str) -> Result<(Vec<Hit>, usize), SourceError> {
    let v = parse_json(text)?;
    let arr = v
        .as_array()
        .or_else(|| v.get("tools").and_then(Value::as_array))
        .ok_or_else(|| SourceError::Parse("search_tools did not return a list".into()))?;
    let mut unreadable = 0;
    let hits = arr
        .iter()
        .enumerate()
        .filter_map(|(rank, t)| {
            let name = t
                .get("toolName")
                .and_then(Value::as_str)
                .filter(|n| n.split_once("__").is_some_and(|(s, t)| !s.is_empty() && !t.is_empty()));
            let Some(name) = name else {
                unreadable += 1;
                return None;
            };
            let desc = t.get("description").and_then(Value::as_str).unwrap_or("");
            let mut h = Hit::new(source, name, EvidenceKind::Tool, desc);
            h.title = name.to_string();
            h.location = name.split("__").next().unwrap_or("").to_string();
            h.native_rank = rank;
            h.native_score = t.get("relevanceScore").and_then(Value::as_f64);
            Some(h)
        })
        .collect();
    Ok((hits, unreadable))
}

/// Adds parameter names and descriptions from `describe_tools` to the hits' text.
pub fn apply_descriptions(hits: &mut [Hit], text: &str) -> Result<(), SourceError> {
    let v = parse_json(text)?;
    let Some(arr) = v.as_array() else {
        return Err(SourceError::Parse("describe_tools did not return a list".into()));
    };
    for d in arr {
        if d.get("found").and_then(Value::as_bool) == Some(false) {
            continue;
        }
        let Some(name) = d.get("toolName").and_then(Value::as_str) else {
            continue;
        };
        let Some(h) = hits.iter_mut().find(|h| h.title == name) else {
            continue;
        };
        if let Some(props) = d.pointer("/inputSchema/properties").and_then(Value::as_object) {
            let required: Vec<&str> = d
                .pointer("/inputSchema/required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let params: Vec<String> = props
                .iter()
                .map(|(k, p)| {
                    let desc = p.get("description").and_then(Value::as_str).unwrap_or("");
                    let req = if required.contains(&k.as_str()) {
                        " (required)"
                    } else {
                        ""
                    };
                    format!(
                        "`{k}`{req}{}",
                        if desc.is_empty() {
                            String::new()
                        } else {
                            format!(": {desc}")
                        }
                    )
                })
                .collect();
            if !params.is_empty() {
                h.properties.insert("parameters".into(), params.join("; "));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_and_describe() {
        let mut hits = parse_search("tools", r#"[{"toolName":"github__create_issue","description":"Create an issue","relevanceScore":0.82},{"description":"no name"}]"#).unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].id, "tools:github__create_issue");
        assert_eq!(hits[0].location, "github");
        assert_eq!(hits[0].native_score, Some(0.82));
        apply_descriptions(&mut hits, r#"[{"toolName":"github__create_issue","description":"Create an issue","inputSchema":{"type":"object","properties":{"title":{"type":"string","description":"Issue title"}},"required":["title"]},"found":true},{"toolName":"x__y","description":"","inputSchema":{},"found":false}]"#).unwrap();
        assert_eq!(hits[0].properties["parameters"], "`title` (required): Issue title");
        assert!(parse_search("tools", "[]").unwrap().is_empty());
        let (hits, unreadable) = parse_search_counted(
            "tools",
            r#"[{"toolName":"no-server"},{"toolName":"__x"},{"toolName":"a__b"}]"#,
        )
        .unwrap();
        assert_eq!((hits.len(), unreadable), (1, 2));
        assert!(matches!(parse_search("tools", "{}"), Err(SourceError::Parse(_))));
    }
}
