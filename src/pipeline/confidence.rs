//! Confidence from freshness x authority x agreement (field notes), scaled by how well the best
//! evidence covers the question. Three levels: high (several fresh, authoritative sources
//! agree), moderate (one source or somewhat dated), low (old, informal, conflicting, or weak).

use serde::Serialize;

use crate::pipeline::conflict::Disagreement;
use crate::pipeline::dedup::Cluster;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    High,
    Moderate,
    #[default]
    Low,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct Confidence {
    pub level: Level,
    pub score: f64,
    pub reasons: Vec<String>,
}

/// Levels: high at or above this score ...
pub const HIGH: f64 = 0.62;
/// ... moderate at or above this one, low below.
pub const MODERATE: f64 = 0.38;

/// Estimates confidence in an answer led by `clusters[0]`.
pub fn estimate(
    clusters: &[Cluster],
    lead: usize,
    conflict: Option<&Disagreement>,
    now: chrono::DateTime<chrono::Utc>,
) -> Confidence {
    let Some(best) = clusters.get(lead) else {
        return Confidence {
            level: Level::Low,
            score: 0.0,
            reasons: vec!["no evidence was found".into()],
        };
    };
    let rep = best.rep();
    let top = clusters[0].score();
    // Agreement: distinct sources among the strong clusters that do not disagree with the best.
    let mut agreeing: std::collections::BTreeSet<&str> = best.sources();
    let side_of = |i: usize| conflict.and_then(|d| d.sides.iter().position(|s| s.clusters.contains(&i)));
    for (i, c) in clusters.iter().enumerate().take(6) {
        if i != lead && c.score() >= top * 0.6 && c.rep().coverage >= 0.6 {
            let conflicts_with_best = matches!((side_of(lead), side_of(i)), (Some(a), Some(b)) if a != b);
            if !conflicts_with_best {
                agreeing.extend(c.sources());
            }
        }
    }
    let g = ((agreeing.len() as f64 - 1.0) / 2.0).clamp(0.0, 1.0);
    let f = rep.freshness;
    let a = rep.authority;
    let cov = rep.coverage;
    let mut score = cov.powf(0.7) * (0.4 * f + 0.35 * a + 0.25 * g);
    // One strong, fresh, authoritative source is still a good answer.
    score = score.max(cov.powf(0.7) * f.min(a) * 0.8);
    let mut reasons = Vec::new();
    let kind = rep.hit.kind;
    let when = rep
        .hit
        .timestamp
        .map(|t| {
            format!(
                ", dated {} ({} days before now)",
                t.format("%Y-%m-%d"),
                (now - t).num_days().max(0)
            )
        })
        .unwrap_or_else(|| ", undated".to_string());
    reasons.push(format!(
        "best evidence is {} from {}{}",
        article(kind.as_str()),
        rep.hit.source,
        when
    ));
    reasons.push(format!("it covers {:.0}% of the question", cov * 100.0));
    if agreeing.len() > 1 {
        reasons.push(format!(
            "{} sources agree: {}",
            agreeing.len(),
            agreeing.iter().copied().collect::<Vec<_>>().join(", ")
        ));
    } else {
        reasons.push("only one source supports it".into());
    }
    if f < 0.35 {
        reasons.push("the evidence is old and may be outdated".into());
    }
    let mut level = if score >= HIGH {
        Level::High
    } else if score >= MODERATE {
        Level::Moderate
    } else {
        Level::Low
    };
    if let Some(d) = conflict {
        score *= 0.8;
        reasons.push(format!("sources disagree on {}", d.kind.describe()));
        if level == Level::High {
            level = Level::Moderate;
        }
    }
    Confidence {
        level,
        score: (score * 1000.0).round() / 1000.0,
        reasons,
    }
}

fn article(kind: &str) -> String {
    let k = kind.replace('_', " ");
    match k.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {k}"),
        _ => format!("a {k}"),
    }
}
