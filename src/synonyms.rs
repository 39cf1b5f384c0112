//! Synonym groups as index terms, for expanding a query inside a source (the tool catalog):
//! a query that has every term of one member of a group also searches the other members'
//! terms, at a lower weight. The groups are the general vocabulary of `policies/lexicon.yaml`
//! (built in; `sagasu source tools --lexicon FILE` reads an edited one).

use std::path::Path;

use serde::Deserialize;

use crate::text;

/// The repository's lexicon, built into the executable so that a catalog served on its own
/// expands queries too.
const BUILTIN: &str = include_str!("../policies/lexicon.yaml");

#[derive(Deserialize)]
struct LexiconFile {
    #[serde(default)]
    synonyms: Vec<Vec<String>>,
}

/// Synonym groups, each member as its index terms.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Synonyms {
    groups: Vec<Vec<Vec<String>>>,
}

impl Synonyms {
    pub fn new(groups: &[Vec<String>]) -> Synonyms {
        Synonyms {
            groups: groups
                .iter()
                .map(|g| g.iter().map(|m| text::terms(m)).filter(|t| !t.is_empty()).collect())
                .filter(|g: &Vec<Vec<String>>| g.len() > 1)
                .collect(),
        }
    }

    fn parse(yaml: &str, what: &str) -> Result<Synonyms, String> {
        let file: LexiconFile = serde_norway::from_str(yaml).map_err(|e| format!("{what}: {e}"))?;
        Ok(Synonyms::new(&file.synonyms))
    }

    /// The built-in general vocabulary (parsed once per process: every catalog built, and
    /// every rebuild on a tool-list change, starts from it).
    pub fn builtin() -> Synonyms {
        static PARSED: std::sync::OnceLock<Synonyms> = std::sync::OnceLock::new();
        PARSED
            .get_or_init(|| Synonyms::parse(BUILTIN, "policies/lexicon.yaml").expect("the built-in lexicon parses"))
            .clone()
    }

    /// The `synonyms:` of a lexicon file.
    pub fn load(path: &Path) -> Result<Synonyms, String> {
        let yaml = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Synonyms::parse(&yaml, &path.display().to_string())
    }

    /// `terms` (each weighing 1) with the terms of their synonyms (each weighing `weight`):
    /// a group joins when every term of one of its members is in `terms`.
    pub fn expand(&self, terms: &[String], weight: f32) -> Vec<(String, f32)> {
        let mut out: Vec<(String, f32)> = Vec::with_capacity(terms.len());
        for t in terms {
            if !out.iter().any(|(x, _)| x == t) {
                out.push((t.clone(), 1.0));
            }
        }
        for group in &self.groups {
            if !group.iter().any(|m| m.iter().all(|t| terms.contains(t))) {
                continue;
            }
            for t in group.iter().flatten() {
                if !out.iter().any(|(x, _)| x == t) {
                    out.push((t.clone(), weight));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_brings_its_group_at_a_lower_weight() {
        let s = Synonyms::new(&[
            vec!["music".into(), "song".into(), "音楽".into()],
            vec!["movie".into(), "film".into()],
        ]);
        let q = text::terms("new songs to listen to");
        let x = s.expand(&q, 0.5);
        assert!(x.contains(&(text::terms("song")[0].clone(), 1.0)), "{x:?}");
        assert!(x.contains(&(text::terms("music")[0].clone(), 0.5)), "{x:?}");
        assert!(x.iter().any(|(t, w)| text::is_japanese(t) && *w == 0.5), "{x:?}");
        assert!(!x.iter().any(|(t, _)| t == "film"), "{x:?}");
        // Japanese in, English out.
        let x = s.expand(&text::terms("音楽を探す"), 0.5);
        assert!(x.iter().any(|(t, _)| *t == text::terms("music")[0]), "{x:?}");
        assert!(!Synonyms::builtin().groups.is_empty());
    }
}
