//! `sagasu check`: connect to every source, list its tools, and show a table of health.

use std::fmt::Write;

use crate::sources::pool::Health;

/// Renders the health table. Returns the table and whether every enabled source is healthy.
pub fn render(rows: &[Health]) -> (String, bool) {
    let mut ok = true;
    let mut lines = vec![[
        "source".to_string(),
        "kind".into(),
        "status".into(),
        "tools".into(),
        "latency".into(),
        "detail".into(),
    ]];
    for h in rows {
        let (status, tools, detail) = match (&h.result, h.enabled) {
            (_, false) => ("disabled".to_string(), "-".to_string(), String::new()),
            (Ok(names), true) => {
                let mut shown: Vec<&str> = names.iter().map(String::as_str).take(4).collect();
                if names.len() > 4 {
                    shown.push("…");
                }
                let mut detail = shown.join(", ");
                if let Some(n) = h.unreadable {
                    let _ = write!(
                        detail,
                        " ({n} unreadable {} of its data left out)",
                        if n == 1 { "entry" } else { "entries" }
                    );
                }
                ("ok".to_string(), names.len().to_string(), detail)
            }
            (Err(e), true) => {
                ok = false;
                ("FAILED".to_string(), "-".to_string(), e.to_string())
            }
        };
        lines.push([
            h.name.clone(),
            h.kind.to_string(),
            status,
            tools,
            format!("{} ms", h.latency_ms),
            detail,
        ]);
    }
    let widths: Vec<usize> = (0..5)
        .map(|i| lines.iter().map(|l| l[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for l in &lines {
        for (i, w) in widths.iter().enumerate() {
            let _ = write!(out, "{:<w$}  ", l[i], w = *w);
        }
        let _ = writeln!(out, "{}", l[5]);
    }
    (out, ok)
}
