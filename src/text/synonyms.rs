//! Synonym groups as index terms, for expanding a query inside a source (the tool catalog):
//! a query that has every term of one member of a group also searches the other members'
//! terms, at a lower weight. The groups are the general vocabulary of `policies/lexicon.yaml`
//! (built in; `sagasu source tools --lexicon FILE` reads an edited one).

use std::path::Path;

use serde::Deserialize;

use crate::text;

/// The repository's lexicon, built into the executable so that a catalog served on its own
/// expands queries too.
const BUILTIN: &str = include_str!("../../policies/lexicon.yaml");

#[derive(Deserialize)]
struct LexiconFile {
    #[serde(default)]
    synonyms: Vec<Vec<String>>,
}

/// Synonym groups, each member as its index terms and its length in letters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Synonyms {
    groups: Vec<Vec<(Vec<String>, usize)>>,
}

/// A one-word member matches a word of the query with its stem only when their lengths differ
/// by at most this much: stemming joins "excellent" to "excel" and "organization" to "organ",
/// which are other words, while inflections ("songs", "gaming") stay this close.
const STEM_LENGTH_SLACK: usize = 3;

impl Synonyms {
    pub fn new(groups: &[Vec<String>]) -> Synonyms {
        Synonyms {
            groups: groups
                .iter()
                .map(|g| {
                    g.iter()
                        .map(|m| (text::terms(m), m.chars().count()))
                        .filter(|(t, _)| !t.is_empty())
                        .collect()
                })
                .filter(|g: &Vec<(Vec<String>, usize)>| g.len() > 1)
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
        let yaml = crate::util::fs::read_regular(path, crate::util::fs::MAX_CONFIG_BYTES)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Synonyms::parse(&yaml, &path.display().to_string())
    }

    /// `terms`, the index terms of `query` (each weighing 1), with the terms of their synonyms
    /// (each weighing `weight`): a group joins when every term of one of its members is in
    /// `terms`, and a one-word member only when the query's word with its stem is about as long
    /// (`STEM_LENGTH_SLACK`), so that a stem two words share does not bring the synonyms of the
    /// other ("excellent" is no "excel").
    pub fn expand(&self, terms: &[String], query: &str, weight: f32) -> Vec<(String, f32)> {
        let mut lengths: std::collections::HashMap<String, Vec<usize>> = std::collections::HashMap::new();
        for w in query.split(|c: char| !c.is_alphanumeric()) {
            if let [t] = text::terms(w).as_slice() {
                lengths.entry(t.clone()).or_default().push(w.chars().count());
            }
        }
        let joins = |m: &(Vec<String>, usize)| {
            m.0.iter().all(|t| terms.contains(t))
                && match (m.0.as_slice(), lengths.get(&m.0[0])) {
                    ([_], Some(ls)) => ls.iter().any(|l| l.abs_diff(m.1) <= STEM_LENGTH_SLACK),
                    _ => true,
                }
        };
        let mut out: Vec<(String, f32)> = Vec::with_capacity(terms.len());
        for t in terms {
            if !out.iter().any(|(x, _)| x == t) {
                out.push((t.clone(), 1.0));
            }
        }
        for group in &self.groups {
            if !group.iter().any(joins) {
                continue;
            }
            for t in group.iter().flat_map(|m| &m.0) {
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
        let x = s.expand(&q, "new songs to listen to", 0.5);
        assert!(x.contains(&(text::terms("song")[0].clone(), 1.0)), "{x:?}");
        assert!(x.contains(&(text::terms("music")[0].clone(), 0.5)), "{x:?}");
        assert!(x.iter().any(|(t, w)| text::is_japanese(t) && *w == 0.5), "{x:?}");
        assert!(!x.iter().any(|(t, _)| t == "film"), "{x:?}");
        // Japanese in, English out.
        let x = s.expand(&text::terms("音楽を探す"), "音楽を探す", 0.5);
        assert!(x.iter().any(|(t, _)| *t == text::terms("music")[0]), "{x:?}");
        assert!(!Synonyms::builtin().groups.is_empty());
    }

    #[test]
    fn a_shared_stem_of_another_word_brings_no_synonyms() {
        let s = Synonyms::new(&[
            vec!["excel".into(), "spreadsheet".into()],
            vec!["game".into(), "play".into()],
        ]);
        let has = |q: &str, t: &str| {
            let terms = text::terms(q);
            s.expand(&terms, q, 0.5).iter().any(|(x, _)| *x == text::terms(t)[0])
        };
        assert_eq!(text::terms("excellent"), text::terms("excel"), "the stems collide");
        assert!(!has("an excellent tool", "spreadsheet"));
        assert!(has("open it in Excel", "spreadsheet"));
        assert!(has("gaming news", "play"), "an inflection still joins");
    }
}
