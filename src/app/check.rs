//! `sagasu check`: connect to every source, list its tools, and show a table of health.

use std::fmt::Write;
use std::path::PathBuf;

use super::{Failure, Out, Outcome};
use crate::sources::SourcePool;
use crate::sources::pool::Health;

/// Connect to every configured source, list its tools, and show their health.
#[derive(Debug, Clone, clap::Args)]
pub struct CheckCommand {
    /// The configuration file (default: the bundled demo, examples/acme/sagasu.yaml).
    #[arg(long)]
    pub config: Option<PathBuf>,
}

/// Connects to every source, writes the table, and fails with 1 when an enabled source is down.
pub async fn run(cmd: CheckCommand, out: Out<'_>) -> Outcome {
    let config = super::load_config(cmd.config)?;
    let pool = SourcePool::new(&config);
    let rows = pool.check().await;
    pool.shutdown().await;
    let (table, ok) = render(&rows);
    out(&table);
    out(&format!(
        "\n{}\n{}\n{}\n{}\n{}\n{}\n",
        crate::text::morph::status().describe(),
        crate::text::jmdict::status().describe(),
        crate::text::encoder::status().describe(),
        crate::text::wordfreq::status().describe(),
        crate::text::wordnet::status().describe(),
        crate::text::sudachi::status().describe()
    ));
    if ok {
        Ok(())
    } else {
        Err(Failure {
            code: 1,
            message: String::new(),
        })
    }
}

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
