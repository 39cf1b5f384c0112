//! The tool catalog: upstream MCP tools (from `tools/list` dumps, contracts section 2, or live
//! upstreams) indexed for `search_tools`. Tools are named `<server>__<tool>`; names are split by
//! case and separators and, when run together, by the catalog's own vocabulary.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::servers::offline::{DataWarning, Folder, LoadError};
use crate::text::encoder::Encoder;
use crate::text::index::{Doc, Filter, SearchIndex};
use crate::text::synonyms::Synonyms;

/// One upstream tool.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ToolDef {
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(rename = "inputSchema", default)]
    pub input_schema: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
}

#[derive(Deserialize)]
struct ListBody {
    tools: Vec<ToolDef>,
}

/// A catalog entry: the upstream server and its tool.
#[derive(Debug, Clone)]
pub struct Entry {
    pub server: String,
    pub tool: ToolDef,
}

impl Entry {
    pub fn full_name(&self) -> String {
        format!("{}__{}", self.server, self.tool.name)
    }
}

/// Splits an identifier into words: `__`, `_`, `-`, `.`, and camelCase boundaries.
pub fn split_identifier(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 8);
    let mut prev: Option<char> = None;
    for c in name.chars() {
        if matches!(c, '_' | '-' | '.' | '/') {
            out.push(' ');
        } else {
            if c.is_uppercase() && prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit()) {
                out.push(' ');
            }
            out.push(c);
        }
        prev = Some(c);
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The text of a tool's parameters: names (split) and descriptions.
fn params_text(schema: &Value) -> String {
    let mut out = String::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (k, v) in props {
            out.push_str(&split_identifier(k));
            out.push(' ');
            if let Some(d) = v.get("description").and_then(Value::as_str) {
                out.push_str(d);
                out.push(' ');
            }
        }
    }
    out
}

/// The opening of a description, up to its first `LEAD_TERMS` index terms: where a tool says
/// what it is for ("Create music playlists, ...") before the particulars.
fn lead(description: &str) -> String {
    let mut seen = 0;
    let mut out = Vec::new();
    for w in description.split_whitespace() {
        if seen >= LEAD_TERMS {
            break;
        }
        seen += crate::text::terms(w).len();
        out.push(w);
    }
    out.join(" ")
}

/// The words run together in a lowercase tool name ("keywordexplorer", "hdbcarpark"), read
/// against `vocabulary` (the words the catalog's descriptions use): the pieces, each of at
/// least three letters, when they make up the whole name and there are at least two; else none
/// (none, too, for a name that is itself a word of the vocabulary).
/// Of several readings, the one of fewest pieces.
pub fn segment_name(word: &str, vocabulary: &std::collections::HashSet<String>) -> Vec<String> {
    const MIN_PIECE: usize = 3;
    let chars: Vec<char> = word.chars().collect();
    let n = chars.len();
    if n < 2 * MIN_PIECE || !chars.iter().all(|c| c.is_ascii_lowercase()) || vocabulary.contains(word) {
        return Vec::new();
    }
    // fewest[i]: the fewest pieces that make up the first i letters, and where the last began.
    let mut fewest: Vec<Option<(usize, usize)>> = vec![None; n + 1];
    fewest[0] = Some((0, 0));
    for end in MIN_PIECE..=n {
        for start in 0..=end - MIN_PIECE {
            let Some((count, _)) = fewest[start] else { continue };
            if (start, end) == (0, n) || !vocabulary.contains(&word[start..end]) {
                continue;
            }
            if fewest[end].is_none_or(|(c, _)| count + 1 < c) {
                fewest[end] = Some((count + 1, start));
            }
        }
    }
    let mut pieces = Vec::new();
    let mut end = n;
    while end > 0 {
        let Some((_, start)) = fewest[end] else {
            return Vec::new();
        };
        pieces.push(word[start..end].to_string());
        end = start;
    }
    pieces.reverse();
    pieces
}

/// A tool name's words, as the index reads them: the identifier split (`split_identifier`)
/// and, after it, the pieces of any word that runs several together (`segment_name`).
fn name_words(name: &str, vocabulary: &std::collections::HashSet<String>) -> String {
    let split = split_identifier(name);
    let mut out = split.clone();
    for w in split.split(' ') {
        for piece in segment_name(&w.to_lowercase(), vocabulary) {
            out.push(' ');
            out.push_str(&piece);
        }
    }
    out
}

pub struct ToolCatalog {
    pub entries: Vec<Entry>,
    pub warnings: Vec<DataWarning>,
    index: SearchIndex,
    /// Query expansion: a word also finds tools described with its synonyms.
    pub(crate) synonyms: Synonyms,
    /// The index terms of the tools' names, sorted: a word the user wrote finds the names it
    /// begins ("sake" finds "sakenowa", "dice" finds "diceroller").
    name_terms: Vec<String>,
    /// Typos: every index term of the catalog, and each with one letter deleted, to the terms
    /// they come from (a word one edit from a term shares one of these keys with it).
    one_deleted: std::collections::HashMap<String, Vec<u32>>,
    /// The terms `one_deleted` points to.
    all_terms: Vec<String>,
    /// The sentence encoder and each tool's vector (name and description), when it is
    /// installed: `search_tools` then searches by meaning too.
    dense: Option<(&'static Encoder, Vec<Vec<f32>>)>,
}

/// Candidates each side of a hybrid search brings, at least.
const HYBRID_POOL: usize = 30;
/// Share of the dense side in a hybrid score. The catalog alone on MetaTool's 995 questions,
/// asked as written: 0.5 -> R@1 0.609, R@5 0.766; 0.6 -> 0.612, 0.770; 0.7 -> 0.610, 0.777;
/// either side alone about 0.55, 0.73. (A reciprocal-rank fusion, k 10: 0.594, 0.781.)
const DENSE_SHARE: f64 = 0.7;
/// Cosines at or below this say nothing (unrelated texts sit around it); the dense score maps
/// the rest linearly onto 0..1.
const COSINE_FLOOR: f64 = 0.2;

/// A word the catalog does not have, of at least this many letters, finds the catalog's words
/// one edit from it ("astrology" finds "strology", "forecast" finds "foreast").
pub const TYPO_MIN: usize = 6;
/// Weight of such a word against the word written.
pub const TYPO_WEIGHT: f32 = 0.5;

/// `word` with each of its letters deleted in turn.
fn deletions(word: &str) -> impl Iterator<Item = String> + '_ {
    word.char_indices()
        .map(move |(i, c)| format!("{}{}", &word[..i], &word[i + c.len_utf8()..]))
}

/// A tool's name counts as much as its description: BM25's length normalization already makes
/// a word of a short name weigh more, and many names are brands rather than words (measured on
/// MetaTool, catalog alone: R@1 0.478 with the name counted twice, 0.522 once, 0.533 at 0.75).
pub const NAME_BOOST: f32 = 1.0;
/// Weight of a synonym's match against the word the user wrote.
pub const SYNONYM_WEIGHT: f32 = 0.5;
/// Weight of a word-family match (same 5-letter prefix) against the word itself (catalog alone
/// on MetaTool: R@1 0.455 without, 0.478 at 0.4).
pub const PREFIX_WEIGHT: f32 = 0.4;

/// How many index terms of a description make its lead, and how much a match there counts on
/// top of the match in the description (MetaTool, catalog alone: R@1 +0.006, R@5 +0.005 at 6
/// terms and 0.3; 4, 8 or 10 terms, 0.2 to 0.6 all help less).
pub const LEAD_TERMS: usize = 6;
pub const LEAD_BOOST: f32 = 0.3;
/// What a request's word keeps of its weight when it is an everyday word of its language
/// (`wordfreq::specificity` 0.1), rising to all of it for a rare word, a name or a code
/// (specificity 1). MetaTool as `.ci/run` measures it, against the hand-written list of weak
/// request words this replaced (R@1 0.623, R@5 0.795, R@10 0.844): 1 (no weighting) -> 0.625,
/// 0.789, 0.839; 0.5 -> 0.620, 0.797, 0.840; 0.3 -> 0.615, 0.804, 0.840.
pub const EVERYDAY_WEIGHT: f32 = 0.5;

/// Saturation of a word's weight with the times it is asked (BM25's k3): twice counts 1.8
/// times, three times 2.5 (MetaTool, catalog alone: R@1 0.562 -> 0.570 for k3 from 2 to 100).
pub const QUERY_TF_K3: f32 = 8.0;

/// Weight of a name that a word of the query begins ("sake" for "sakenowa").
pub const NAME_PREFIX_WEIGHT: f32 = 0.5;
/// Shorter words begin too many names to say which.
pub const NAME_PREFIX_MIN: usize = 4;
pub const NAME_PREFIX_FANOUT: usize = 8;

/// A search hit on the catalog.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ToolMatch {
    pub tool_name: String,
    /// The upstream server, apart from the name (`tool_name` is `<server>__<tool>`).
    #[serde(default)]
    pub server: String,
    pub description: String,
    pub relevance_score: f64,
}

impl ToolCatalog {
    pub fn load(dir: &Path) -> Result<ToolCatalog, LoadError> {
        ToolCatalog::load_in(&Folder::open(dir, false)?)
    }

    /// Loads the dumps in `dir` under its rules for links.
    pub fn load_in(dir: &Folder) -> Result<ToolCatalog, LoadError> {
        let mut warnings = Vec::new();
        let mut entries = Vec::new();
        for f in dir.entries(&dir.root, &mut warnings)? {
            if f.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let server = f
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if server.is_empty() || server.contains("__") {
                warnings.push(DataWarning::about(
                    &f,
                    "skipped: the file name is the server's name, which must be non-empty and hold no `__` \
                     (tools are named `<server>__<tool>`)"
                        .into(),
                ));
                continue;
            }
            match dir.read_json::<ListBody>(&f) {
                Ok(b) => entries.extend(b.tools.into_iter().map(|tool| Entry {
                    server: server.clone(),
                    tool,
                })),
                Err(w) => warnings.push(w),
            }
        }
        Self::from_entries(entries, warnings)
    }

    pub fn from_entries(mut entries: Vec<Entry>, mut warnings: Vec<DataWarning>) -> Result<ToolCatalog, LoadError> {
        // One tool per (server, name): a later duplicate is reported and left out, so that a
        // name always means one tool.
        let mut seen = std::collections::HashSet::new();
        entries.retain(|e| {
            let fresh = seen.insert((e.server.clone(), e.tool.name.clone()));
            if !fresh {
                warnings.push(DataWarning::about(
                    Path::new(&e.server),
                    format!("skipped: a second tool named `{}`", e.full_name()),
                ));
            }
            fresh
        });
        let mut vocabulary = std::collections::HashSet::new();
        for e in &entries {
            for w in e.tool.description.split(|c: char| !c.is_ascii_alphabetic()) {
                if w.len() >= 3 && !crate::text::is_stop_word(&w.to_lowercase()) {
                    vocabulary.insert(w.to_lowercase());
                }
            }
        }
        let names: Vec<String> = entries
            .iter()
            .map(|e| {
                format!(
                    "{} {}",
                    name_words(&e.tool.name, &vocabulary),
                    split_identifier(&e.server)
                )
            })
            .collect();
        let mut name_terms: Vec<String> = names.iter().flat_map(|n| crate::text::terms(n)).collect();
        let mut all_terms: Vec<String> = name_terms
            .iter()
            .cloned()
            .chain(entries.iter().flat_map(|e| crate::text::terms(&e.tool.description)))
            .filter(|t| t.len() >= TYPO_MIN - 1 && t.chars().all(|c| c.is_ascii_alphabetic()))
            .collect();
        all_terms.sort_unstable();
        all_terms.dedup();
        let mut one_deleted: std::collections::HashMap<String, Vec<u32>> = std::collections::HashMap::new();
        for (i, t) in all_terms.iter().enumerate() {
            for k in std::iter::once(t.clone()).chain(deletions(t)) {
                one_deleted.entry(k).or_default().push(i as u32);
            }
        }
        name_terms.sort_unstable();
        name_terms.dedup();
        let docs = entries.iter().zip(names).enumerate().map(|(ord, (e, title))| Doc {
            ord: ord as u64,
            title,
            body: format!("{} {}", e.tool.description, params_text(&e.tool.input_schema)),
            keys: vec![format!("server={}", e.server)],
            time: None,
            prefixes: crate::text::index::word_prefixes(&crate::text::terms(&format!(
                "{} {}",
                split_identifier(&e.tool.name),
                e.tool.description
            )))
            .join(" "),
            lead: lead(&e.tool.description),
        });
        let index = SearchIndex::build_catalog(docs, NAME_BOOST, LEAD_BOOST)?;
        Ok(ToolCatalog {
            entries,
            warnings,
            index,
            synonyms: Synonyms::builtin(),
            name_terms,
            one_deleted,
            all_terms,
            dense: None,
        })
    }

    /// The encoder the catalog searches by meaning with, if any.
    pub fn encoder(&self) -> Option<&'static Encoder> {
        self.dense.as_ref().map(|(e, _)| *e)
    }

    /// The catalog searching by meaning too with `encoder` (each tool's name and description
    /// encoded once, here), or by words only with `None` (the default: the servers give it the
    /// installed encoder, `text::encoder::shared`).
    pub fn with_encoder(mut self, encoder: Option<&'static Encoder>) -> ToolCatalog {
        self.dense = encoder.map(|enc| {
            let texts: Vec<String> = self
                .entries
                .iter()
                .map(|e| format!("{}: {}", split_identifier(&e.tool.name), e.tool.description))
                .collect();
            (enc, enc.encode_cached(&texts, "tools"))
        });
        self
    }

    /// The catalog expanding queries with `synonyms` instead of the built-in vocabulary.
    pub fn with_synonyms(mut self, synonyms: Synonyms) -> ToolCatalog {
        self.synonyms = synonyms;
        self
    }

    /// Ranks tools for `query`. `relevanceScore` maps BM25 into 0..1 with a fixed saturation,
    /// so a score means the same across queries.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<ToolMatch>, String> {
        let mut asked = crate::text::terms(query);
        if asked.iter().any(|t| !crate::text::is_request_filler(t)) {
            asked.retain(|t| !crate::text::is_request_filler(t));
        }
        let mut terms = self.synonyms.expand(&asked, query, SYNONYM_WEIGHT);
        // Words of the everyday language ("show", "best", "information", "latest") say little
        // of what is wanted, however rare they are among the catalog's descriptions.
        let specificity = crate::text::wordfreq::frequencies().map(|f| term_specificity(f, query));
        for (t, w) in terms.iter_mut() {
            if let Some(s) = specificity.as_ref().and_then(|m| m.get(t.as_str())) {
                *w *= EVERYDAY_WEIGHT + (1.0 - EVERYDAY_WEIGHT) * *s as f32;
            }
            // A word asked several times weighs more (BM25's query term frequency).
            let times = asked.iter().filter(|a| *a == t).count() as f32;
            if times > 1.0 {
                *w *= (QUERY_TF_K3 + 1.0) * times / (QUERY_TF_K3 + times);
            }
        }
        for t in self.typos_of(&asked) {
            if !terms.iter().any(|(x, _)| *x == t) {
                terms.push((t, TYPO_WEIGHT));
            }
        }
        for t in self.names_begun_by(&asked) {
            if !terms.iter().any(|(x, _)| *x == t) {
                terms.push((t, NAME_PREFIX_WEIGHT));
            }
        }
        let prefixes: Vec<(String, f32)> = crate::text::index::word_prefixes(&asked)
            .into_iter()
            .map(|p| (p, PREFIX_WEIGHT))
            .collect();
        let pool = if self.dense.is_some() {
            limit.max(HYBRID_POOL)
        } else {
            limit
        };
        let found = self
            .index
            .search_with_prefixes(&terms, &prefixes, &Filter::default(), pool)
            .map_err(|e| e.to_string())?;
        // BM25 mapped onto 0..1 with a fixed saturation: the same score means the same match in
        // any query.
        let mut scored: Vec<(usize, f64)> = found
            .hits
            .into_iter()
            .filter(|(_, s)| *s > 0.0)
            .map(|(o, s)| (o as usize, s as f64 / (s as f64 + 8.0)))
            .collect();
        if let Some((enc, vectors)) = &self.dense {
            // The request as asked and, when it is long, each of its clauses, in one batch.
            let parts = clauses(query);
            let mut texts = vec![query];
            if parts.len() > 1 {
                texts.extend(parts);
            }
            let mut encoded = enc.encode_all(&texts);
            let whole = encoded.remove(0);
            scored = hybrid(scored, vectors, &whole, &encoded);
        }
        scored.truncate(limit);
        Ok(scored
            .into_iter()
            .map(|(o, s)| {
                let e = &self.entries[o];
                ToolMatch {
                    tool_name: e.full_name(),
                    server: e.server.clone(),
                    description: e.tool.description.clone(),
                    relevance_score: (s * 1000.0).round() / 1000.0,
                }
            })
            .collect())
    }

    /// The catalog's terms one edit (Damerau-Levenshtein) from the words of `asked` that the
    /// catalog does not have.
    fn typos_of(&self, asked: &[String]) -> Vec<String> {
        let mut out = Vec::new();
        for q in asked {
            if q.len() < TYPO_MIN
                || !q.chars().all(|c| c.is_ascii_alphabetic())
                || self.all_terms.binary_search(q).is_ok()
            {
                continue;
            }
            for k in std::iter::once(q.clone()).chain(deletions(q)) {
                for &i in self.one_deleted.get(&k).into_iter().flatten() {
                    let t = &self.all_terms[i as usize];
                    if strsim::damerau_levenshtein(q, t) <= 1 && !out.contains(t) {
                        out.push(t.clone());
                    }
                }
            }
        }
        out
    }

    /// The name terms that the words `asked` begin (each word of at least `NAME_PREFIX_MIN`
    /// letters, at most `NAME_PREFIX_FANOUT` names a word).
    fn names_begun_by(&self, asked: &[String]) -> Vec<String> {
        let mut out = Vec::new();
        for q in asked {
            if q.len() < NAME_PREFIX_MIN || !q.chars().all(|c| c.is_ascii_alphabetic()) {
                continue;
            }
            let from = self.name_terms.partition_point(|t| t.as_str() <= q.as_str());
            out.extend(
                self.name_terms[from..]
                    .iter()
                    .take_while(|t| t.starts_with(q.as_str()))
                    .take(NAME_PREFIX_FANOUT)
                    .cloned(),
            );
        }
        out
    }

    /// The entry named `<server>__<tool>`: the server is what comes before the first `__`.
    pub fn get(&self, full_name: &str) -> Option<&Entry> {
        let (server, tool) = full_name.split_once("__")?;
        self.entries.iter().find(|e| e.server == server && e.tool.name == tool)
    }
}

/// Each term of `query` with the specificity (`wordfreq::specificity_in`) of the word it was
/// written as, the most specific where several words give one term.
fn term_specificity(f: &crate::text::wordfreq::Frequencies, query: &str) -> rustc_hash::FxHashMap<String, f64> {
    let norm = crate::text::normalize(query);
    let mut out: rustc_hash::FxHashMap<String, f64> = Default::default();
    crate::text::for_each_token(&norm, |t, start, end| {
        let surface = norm.get(start..end).unwrap_or(t);
        let s = crate::text::wordfreq::specificity_in(f, surface);
        let e = out.entry(t.to_string()).or_insert(0.0);
        *e = e.max(s);
    });
    out
}

/// How many of the tools nearest a query's vector move it (`feedback`) ...
const FEEDBACK_DEPTH: usize = 3;
/// ... and how far: the share of their mean added to the query's vector. MetaTool, the catalog
/// alone: none -> R@1 0.610, R@5 0.777, R@10 0.821; 3 at 0.3 -> 0.611, 0.799, 0.844; 3 at 0.5
/// -> 0.606, 0.797, 0.845; 5 at 0.5 -> 0.604, 0.804, 0.851.
const FEEDBACK_WEIGHT: f32 = 0.3;

/// Of the tools nearest the query as asked, this many are scored again with the moved query
/// (`feedback`): a tool further away does not come into the nearest `HYBRID_POOL` by a move of
/// `FEEDBACK_WEIGHT`, and 10,000 cosines are not computed twice.
const RESCORED: usize = 4 * HYBRID_POOL;

/// The query's vector moved towards the mean of `nearest` (the tools nearest it), unit length
/// again (pseudo-relevance feedback, Rocchio's): a request says what it wants in its own words,
/// the nearest tools say it in a catalog's, and tools described like them come closer.
fn feedback(vectors: &[Vec<f32>], query: &[f32], nearest: &[usize]) -> Vec<f32> {
    let mut q = query.to_vec();
    if nearest.is_empty() {
        return q;
    }
    let share = FEEDBACK_WEIGHT / nearest.len() as f32;
    for &o in nearest {
        for (a, b) in q.iter_mut().zip(&vectors[o]) {
            *a += share * b;
        }
    }
    let norm = q.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        q.iter_mut().for_each(|x| *x /= norm);
    }
    q
}

/// Lexical matches (tool, score) fused with the tools nearest the query's vector: each candidate
/// scores `DENSE_SHARE` of its cosine with the query moved by `feedback` (past `COSINE_FLOOR`,
/// mapped onto 0..1) and the rest of its
/// lexical score; both maps are fixed, so the score stays comparable across queries. Best first,
/// ties by catalog order.
fn hybrid(lexical: Vec<(usize, f64)>, vectors: &[Vec<f32>], query: &[f32], clauses: &[Vec<f32>]) -> Vec<(usize, f64)> {
    // Every tool's cosine with the query as asked once; the nearest found by selection, not by
    // sorting them all.
    let mut first: Vec<(usize, f32)> = vectors
        .iter()
        .enumerate()
        .map(|(o, v)| (o, crate::text::encoder::cosine(v, query)))
        .collect();
    let nearer = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if first.len() > RESCORED {
        first.select_nth_unstable_by(RESCORED - 1, nearer);
        first.truncate(RESCORED);
    }
    first.sort_by(nearer);
    let nearest: Vec<usize> = first.iter().take(FEEDBACK_DEPTH).map(|(o, _)| *o).collect();
    let moved = feedback(vectors, query, &nearest);
    let dense = |o: usize| {
        let mut c = f64::from(crate::text::encoder::cosine(&vectors[o], &moved));
        // A long request says what it needs in one of its clauses ("... asking me questions
        // about music"); the rest is its situation, which the whole request's vector averages
        // in.
        if let Some(best) = clauses
            .iter()
            .map(|v| f64::from(crate::text::encoder::cosine(&vectors[o], v)))
            .reduce(f64::max)
        {
            c = (1.0 - CLAUSE_SHARE) * c + CLAUSE_SHARE * best;
        }
        ((c - COSINE_FLOOR) / (1.0 - COSINE_FLOOR)).clamp(0.0, 1.0)
    };
    let mut near: Vec<(usize, f64)> = first.iter().map(|(o, _)| (*o, dense(*o))).collect();
    let nearer = |a: &(usize, f64), b: &(usize, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    near.sort_by(nearer);
    near.truncate(HYBRID_POOL);
    let mut candidates: Vec<usize> = lexical.iter().map(|(o, _)| *o).collect();
    candidates.extend(
        near.iter()
            .map(|(o, _)| *o)
            .filter(|o| !lexical.iter().any(|(x, _)| x == o)),
    );
    let lexical_of = |o: usize| lexical.iter().find(|(x, _)| *x == o).map_or(0.0, |(_, s)| *s);
    let mut out: Vec<(usize, f64)> = candidates
        .into_iter()
        .map(|o| (o, DENSE_SHARE * dense(o) + (1.0 - DENSE_SHARE) * lexical_of(o)))
        .filter(|(_, s)| *s > 0.0)
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

/// Share of a long request's best clause in its dense score (`clauses`). MetaTool, as `.ci/run`
/// measures it: none -> R@1 0.611, R@5 0.796, R@10 0.846; 0.3 -> 0.617, 0.796, 0.850; 0.5 ->
/// 0.621, 0.797, 0.846; 0.7 -> 0.618, 0.795, 0.845.
const CLAUSE_SHARE: f64 = 0.5;
/// A clause has at least this many words.
const CLAUSE_MIN_WORDS: usize = 3;

/// The clauses of a request: its pieces between sentence and clause punctuation (both
/// languages) and before English words that open a clause ("and", "who", "that", "which"),
/// those of at least `CLAUSE_MIN_WORDS` words (a Japanese piece counts as one word per two
/// characters). A request of one clause gives one.
fn clauses(query: &str) -> Vec<&str> {
    let b = query.as_bytes();
    let mut cuts = Vec::new();
    for (i, c) in query.char_indices() {
        let cut = match c {
            '.' | '?' | '!' | ';' | ',' => b.get(i + 1).is_none_or(u8::is_ascii_whitespace),
            '。' | '、' | '？' | '！' | '；' => true,
            ' ' => {
                let next = &b[i + 1..];
                [&b"and "[..], b"who ", b"that ", b"which "]
                    .iter()
                    .any(|w| next.len() > w.len() && next[..w.len()].eq_ignore_ascii_case(w))
            }
            _ => false,
        };
        if cut {
            cuts.push((i, i + c.len_utf8()));
        }
    }
    let mut out = Vec::new();
    let mut start = 0;
    for (end, next) in cuts.into_iter().chain(std::iter::once((query.len(), query.len()))) {
        let piece = query[start..end].trim();
        let words = if crate::text::is_japanese(piece) {
            piece.chars().count() / 2
        } else {
            piece.split_whitespace().count()
        };
        if words >= CLAUSE_MIN_WORDS {
            out.push(piece);
        }
        start = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_long_request_is_cut_into_its_clauses() {
        let q = "My 5-year-old, who is showing a keen interest in music, keeps asking me questions. \
                 Can you suggest songs for kids?";
        assert_eq!(
            clauses(q),
            vec![
                "who is showing a keen interest in music",
                "keeps asking me questions",
                "Can you suggest songs for kids"
            ]
        );
        // One clause, or pieces too short to say anything alone: the request as it is.
        assert_eq!(clauses("Convert 10 dollars to yen"), vec!["Convert 10 dollars to yen"]);
        assert_eq!(clauses("Hi, weather?"), Vec::<&str>::new());
        assert_eq!(
            clauses("来週の東京の天気を教えて。傘は必要ですか？"),
            vec!["来週の東京の天気を教えて", "傘は必要ですか"]
        );
        // "and" inside a word ("candidates", "band") is no cut.
        assert_eq!(
            clauses("find band candidates for the wedding party"),
            vec!["find band candidates for the wedding party"]
        );
    }

    #[test]
    fn identifiers_split() {
        assert_eq!(split_identifier("github__createIssue"), "github create Issue");
        assert_eq!(split_identifier("list-pull_requests"), "list pull requests");
        assert_eq!(split_identifier("getHTTPStatus2Code"), "get HTTPStatus2 Code");
    }

    fn catalog_of(tools: Vec<Entry>) -> ToolCatalog {
        ToolCatalog::from_entries(tools, Vec::new()).unwrap()
    }

    /// The names the catalog finds for `q`, best first.
    fn names_for(catalog: &ToolCatalog, q: &str) -> Vec<String> {
        catalog
            .search(q, 10)
            .unwrap()
            .into_iter()
            .map(|m| m.tool_name)
            .collect()
    }

    fn tool(server: &str, name: &str, description: &str) -> Entry {
        Entry {
            server: server.into(),
            tool: ToolDef {
                name: name.into(),
                description: description.into(),
                input_schema: json!({"type": "object"}),
                annotations: None,
            },
        }
    }

    #[test]
    fn the_opening_of_a_description_and_the_subject_of_a_request_count_most() {
        let catalog = catalog_of(vec![
            tool(
                "b",
                "studio",
                "News from artists, labels, studios and venues, with weekly charts and music playlists.",
            ),
            tool(
                "a",
                "charts",
                "Music charts and playlists, with weekly news from artists, labels, studios and venues.",
            ),
            tool("c", "adviser", "Recommendations and the best tips for anything."),
            tool("d", "lyrics", "Song lyrics."),
        ]);
        let names = |q: &str| names_for(&catalog, q);
        // Same words, same length: the tool that opens with music is about music (without
        // leads, the tie would go to the first listed).
        assert_eq!(names("music")[..2], ["a__charts", "b__studio"]);
        // "recommend the best" says only that something is wanted; "lyrics" says what. The
        // word lists say which words are everyday ones.
        if crate::text::wordfreq::frequencies().is_some() {
            assert_eq!(names("recommend the best lyrics")[0], "d__lyrics");
            assert_eq!(names("the best song lyrics")[0], "d__lyrics");
        } else {
            eprintln!("SKIPPED: the everyday words need the word lists in the data directory");
        }
    }

    #[test]
    fn a_word_asked_twice_weighs_more() {
        let catalog = catalog_of(vec![
            tool("a", "charts", "Song charts."),
            tool("b", "words", "Lyrics finder."),
        ]);
        let top = |q: &str| catalog.search(q, 10).unwrap()[0].clone();
        assert!(top("songs or song lyrics").relevance_score > top("song lyrics").relevance_score);
        assert_eq!(top("songs or song lyrics").tool_name, "a__charts");
    }

    #[test]
    fn a_word_one_edit_from_the_catalogs_finds_it() {
        let catalog = catalog_of(vec![
            tool("a", "stars", "Povides strology services for you."),
            tool("b", "weather", "Weather forecasts for any city."),
        ]);
        let names = |q: &str| names_for(&catalog, q);
        assert_eq!(names("my astrology reading"), ["a__stars"]);
        assert_eq!(names("weather forcasts"), ["b__weather"]);
        // A word the catalog has is taken as written.
        assert!(catalog.typos_of(&crate::text::terms("weather")).is_empty());
    }

    #[test]
    fn run_together_names_are_read_as_words() {
        let vocabulary: std::collections::HashSet<String> = ["keyword", "explorer", "car", "park", "key", "word"]
            .iter()
            .map(|w| w.to_string())
            .collect();
        assert_eq!(segment_name("keywordexplorer", &vocabulary), ["keyword", "explorer"]);
        assert_eq!(
            segment_name("hdbcarpark", &vocabulary),
            Vec::<String>::new(),
            "'hdb' is no word here"
        );
        assert_eq!(segment_name("carpark", &vocabulary), ["car", "park"]);
        // A whole word is not cut into smaller ones, and a part left over means no reading.
        assert!(segment_name("keyword", &vocabulary).is_empty());
        assert!(segment_name("parkside", &vocabulary).is_empty());
    }

    #[test]
    fn a_word_finds_the_run_together_name_it_is_part_of() {
        let catalog = catalog_of(vec![
            tool("kw", "keywordexplorer", "Related keywords to amplify your content."),
            tool(
                "seo",
                "site_audit",
                "Audit a site for search engine optimization and keyword use.",
            ),
            tool("sake", "sakenowa", "Japanese rice wine ratings."),
            tool("wine", "cellar", "Wine ratings and tasting notes."),
        ]);
        let names = |q: &str| names_for(&catalog, q);
        // "keyword explorer" is read out of the name, so it counts as a name match.
        assert_eq!(names("explore related keywords")[0], "kw__keywordexplorer");
        // "sake" begins the name "sakenowa".
        assert_eq!(names("sake ratings"), ["sake__sakenowa", "wine__cellar"]);
    }
}
