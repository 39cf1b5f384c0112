//! The full-text index behind the offline sources: tantivy with sagasu's bilingual tokenizer
//! (`text::tokenize`), BM25 over a title and a body field, keyword filters and a time range.
//!
//! Documents are addressed by the caller's ordinal (`Doc::ord`), so an offline server keeps its
//! records in a plain `Vec` and the index only answers "which ordinals, with what score".

use std::ops::Bound;

use tantivy::collector::{Count, TopDocs};
use tantivy::query::{AllQuery, BooleanQuery, BoostQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::{FAST, Field, INDEXED, IndexRecordOption, STRING, Schema, TextFieldIndexing, TextOptions};
use tantivy::tokenizer::{TextAnalyzer, Token as TantivyToken, TokenStream, Tokenizer};
use tantivy::{DocAddress, Index, IndexReader, IndexWriter, Order, TantivyDocument, Term};

use crate::text;

const TOKENIZER: &str = "sagasu";

/// tantivy adapter for `text::tokenize`.
#[derive(Clone, Default)]
struct BilingualTokenizer;

struct VecTokenStream {
    tokens: Vec<TantivyToken>,
    cursor: usize,
}

impl TokenStream for VecTokenStream {
    fn advance(&mut self) -> bool {
        self.cursor += 1;
        self.cursor <= self.tokens.len()
    }
    fn token(&self) -> &TantivyToken {
        &self.tokens[self.cursor - 1]
    }
    fn token_mut(&mut self) -> &mut TantivyToken {
        &mut self.tokens[self.cursor - 1]
    }
}

impl Tokenizer for BilingualTokenizer {
    type TokenStream<'a> = VecTokenStream;
    fn token_stream<'a>(&'a mut self, input: &'a str) -> VecTokenStream {
        let tokens = text::tokenize(input)
            .into_iter()
            .enumerate()
            .map(|(position, t)| TantivyToken {
                offset_from: t.start,
                offset_to: t.end,
                position,
                text: t.text,
                position_length: 1,
            })
            .collect();
        VecTokenStream { tokens, cursor: 0 }
    }
}

/// A document to index.
#[derive(Debug, Clone, Default)]
pub struct Doc {
    /// The caller's ordinal for this document.
    pub ord: u64,
    pub title: String,
    pub body: String,
    /// Exact-match keys for filtering, written `name=value` (e.g. `channel=pricing`).
    pub keys: Vec<String>,
    /// Seconds since the epoch, for date filters and newest-first listing.
    pub time: Option<i64>,
    /// Word prefixes (`word_prefixes`), space-separated, for matching words of one family
    /// ("financial" and "finance"); empty for sources that do not use them.
    pub prefixes: String,
    /// The opening words of the body, where a description says what its subject is for (counted
    /// again, at the index's lead boost); empty for sources that do not use it.
    pub lead: String,
}

/// Letters a word prefix keeps: long enough to tell most word families apart, short enough to
/// join derived forms that stemming leaves apart (financial/finance, analyze/analysis).
pub const PREFIX_LEN: usize = 5;

/// The `PREFIX_LEN`-letter prefixes of the alphabetic index terms (`text::terms`) that are at
/// least that long (stems, so a word and its inflections give one prefix).
pub fn word_prefixes(terms: &[String]) -> Vec<String> {
    terms
        .iter()
        .filter(|t| t.len() >= PREFIX_LEN && t.chars().all(|c| c.is_ascii_alphabetic()))
        .map(|t| t[..PREFIX_LEN].to_string())
        .collect()
}

/// A filter: every group must match, and a group matches when any of its keys does.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub all_of: Vec<Vec<String>>,
    /// Inclusive lower bound, seconds since the epoch.
    pub after: Option<i64>,
    /// Exclusive upper bound, seconds since the epoch.
    pub before: Option<i64>,
}

/// The result of one search: ordinals with BM25 scores, best first, and how many matched.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub hits: Vec<(u64, f32)>,
    pub total: usize,
}

pub struct SearchIndex {
    reader: IndexReader,
    title: Field,
    body: Field,
    keys: Field,
    time: Field,
    prefixes: Field,
    lead: Field,
    title_boost: f32,
    /// How much a match in a document's lead counts on top of the body match (0: leads unused).
    lead_boost: f32,
    /// For indexes built with one term rarity for title and body (`build_catalog`):
    /// how many documents have each term in either field.
    doc_freq: Option<std::collections::HashMap<String, u64>>,
}

/// BM25's inverse document frequency (Lucene's and tantivy's form).
fn idf(doc_freq: u64, docs: u64) -> f32 {
    let (n, total) = (doc_freq as f32, docs as f32);
    (1.0 + (total - n + 0.5) / (n + 0.5)).ln()
}

/// Title matches count this much more than body matches (by default).
const TITLE_BOOST: f32 = 2.0;

impl SearchIndex {
    /// Builds an in-memory index over `docs`.
    pub fn build(docs: impl IntoIterator<Item = Doc>) -> tantivy::Result<SearchIndex> {
        SearchIndex::build_fields(docs, TITLE_BOOST)
    }

    /// The tool catalog's index: `build`, with title matches counting `title_boost` times body
    /// matches, and a term as rare in the title as it is in the whole document (BM25F's single
    /// document frequency: a word that many bodies use but one title has, "find" in
    /// `find_agency`, is no rarer for that). Matches in a document's `lead` count `lead_boost`
    /// times a body match, on top of it.
    pub fn build_catalog(
        docs: impl IntoIterator<Item = Doc>,
        title_boost: f32,
        lead_boost: f32,
    ) -> tantivy::Result<SearchIndex> {
        let mut doc_freq = std::collections::HashMap::new();
        let docs: Vec<Doc> = docs.into_iter().collect();
        for d in &docs {
            let mut terms = text::terms(&d.title);
            terms.extend(text::terms(&d.body));
            terms.sort_unstable();
            terms.dedup();
            for t in terms {
                *doc_freq.entry(t).or_insert(0) += 1;
            }
        }
        let mut index = SearchIndex::build_fields(docs, title_boost)?;
        index.doc_freq = Some(doc_freq);
        index.lead_boost = lead_boost;
        Ok(index)
    }

    fn build_fields(docs: impl IntoIterator<Item = Doc>, title_boost: f32) -> tantivy::Result<SearchIndex> {
        let mut sb = Schema::builder();
        let text_opts = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(TOKENIZER)
                .set_index_option(IndexRecordOption::WithFreqs),
        );
        let title = sb.add_text_field("title", text_opts.clone());
        let body = sb.add_text_field("body", text_opts.clone());
        let lead = sb.add_text_field("lead", text_opts);
        let keys = sb.add_text_field("keys", STRING);
        let prefixes = sb.add_text_field(
            "prefixes",
            TextOptions::default().set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer("whitespace")
                    .set_index_option(IndexRecordOption::WithFreqs),
            ),
        );
        let time = sb.add_i64_field("time", INDEXED | FAST);
        let ord = sb.add_u64_field("ord", FAST);
        let index = Index::create_in_ram(sb.build());
        index
            .tokenizers()
            .register(TOKENIZER, TextAnalyzer::from(BilingualTokenizer));
        // One indexing thread: documents then get the same addresses on every start, so hits
        // with equal scores come back in the same order and evaluation runs are repeatable.
        // (Several threads would share documents among segments differently each time.)
        let mut writer: IndexWriter = index.writer_with_num_threads(1, 128_000_000)?;
        for d in docs {
            let mut doc = TantivyDocument::default();
            doc.add_text(title, &d.title);
            doc.add_text(body, &d.body);
            if !d.lead.is_empty() {
                doc.add_text(lead, &d.lead);
            }
            if !d.prefixes.is_empty() {
                doc.add_text(prefixes, &d.prefixes);
            }
            for k in &d.keys {
                doc.add_text(keys, k);
            }
            doc.add_i64(time, d.time.unwrap_or(i64::MIN));
            doc.add_u64(ord, d.ord);
            writer.add_document(doc)?;
        }
        writer.commit()?;
        writer.wait_merging_threads()?;
        let reader = index.reader()?;
        reader.reload()?;
        Ok(SearchIndex {
            reader,
            title,
            body,
            keys,
            time,
            prefixes,
            lead,
            title_boost,
            lead_boost: 0.0,
            doc_freq: None,
        })
    }

    /// Number of indexed documents.
    pub fn len(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// BM25 search for `query` under `filter`. An empty query (no tokens) lists the filtered
    /// documents newest first, with score 0.
    pub fn search(&self, query: &str, filter: &Filter, limit: usize) -> tantivy::Result<Found> {
        let terms: Vec<(String, f32)> = text::terms(query).into_iter().map(|t| (t, 1.0)).collect();
        self.search_with_prefixes(&terms, &[], filter, limit)
    }

    /// `search` with index terms already made and weighted (a synonym weighing less than the
    /// word the user wrote; a term given twice counts once, at its first weight), also matching
    /// word prefixes (`word_prefixes`) in the documents' `prefixes`, each with its weight.
    pub fn search_with_prefixes(
        &self,
        terms: &[(String, f32)],
        prefixes: &[(String, f32)],
        filter: &Filter,
        limit: usize,
    ) -> tantivy::Result<Found> {
        let searcher = self.reader.searcher();
        let mut must: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let has_text = !terms.is_empty() || !prefixes.is_empty();
        if has_text {
            let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
            let mut seen = std::collections::HashSet::new();
            let docs = searcher.num_docs();
            for (tok, weight) in terms.iter().filter(|(t, _)| seen.insert(t.as_str())) {
                let fields = [
                    (self.title, self.title_boost),
                    (self.body, 1.0),
                    (self.lead, self.lead_boost),
                ];
                for (field, boost) in fields.into_iter().filter(|(_, b)| *b > 0.0) {
                    let term = Term::from_field_text(field, tok);
                    // Tantivy weighs a term by its rarity in the field; rescaled to its rarity
                    // in the document where the index keeps one.
                    let rarity = match self.doc_freq.as_ref().and_then(|m| m.get(tok.as_str())) {
                        Some(&all) => match searcher.doc_freq(&term)? {
                            0 => 1.0,
                            n => idf(all, docs) / idf(n, docs),
                        },
                        None => 1.0,
                    };
                    let q = TermQuery::new(term, IndexRecordOption::WithFreqs);
                    should.push((
                        Occur::Should,
                        Box::new(BoostQuery::new(Box::new(q), boost * weight * rarity)),
                    ));
                }
            }
            let mut seen = std::collections::HashSet::new();
            for (p, weight) in prefixes.iter().filter(|(p, _)| seen.insert(p.as_str())) {
                let q = TermQuery::new(Term::from_field_text(self.prefixes, p), IndexRecordOption::WithFreqs);
                should.push((Occur::Should, Box::new(BoostQuery::new(Box::new(q), *weight))));
            }
            must.push((Occur::Must, Box::new(BooleanQuery::new(should))));
        }
        for group in &filter.all_of {
            let any: Vec<(Occur, Box<dyn Query>)> = group
                .iter()
                .map(|k| {
                    let q: Box<dyn Query> = Box::new(TermQuery::new(
                        Term::from_field_text(self.keys, k),
                        IndexRecordOption::Basic,
                    ));
                    (Occur::Should, q)
                })
                .collect();
            must.push((Occur::Must, Box::new(BooleanQuery::new(any))));
        }
        if filter.after.is_some() || filter.before.is_some() {
            let lo = filter.after.map_or(Bound::Unbounded, |a| {
                Bound::Included(Term::from_field_i64(self.time, a))
            });
            let hi = filter.before.map_or(Bound::Unbounded, |b| {
                Bound::Excluded(Term::from_field_i64(self.time, b))
            });
            must.push((Occur::Must, Box::new(RangeQuery::new(lo, hi))));
        }
        let query: Box<dyn Query> = if must.is_empty() {
            Box::new(AllQuery)
        } else {
            Box::new(BooleanQuery::new(must))
        };
        let limit = limit.max(1);
        let (addrs, total): (Vec<(f32, DocAddress)>, usize) = if has_text {
            searcher.search(&query, &(TopDocs::with_limit(limit).order_by_score(), Count))?
        } else {
            let (docs, total) = searcher.search(
                &query,
                &(
                    TopDocs::with_limit(limit).order_by_fast_field::<i64>("time", Order::Desc),
                    Count,
                ),
            )?;
            (docs.into_iter().map(|(_, a)| (0.0, a)).collect(), total)
        };
        let mut hits = Vec::with_capacity(addrs.len());
        for (score, addr) in addrs {
            let col = searcher.segment_reader(addr.segment_ord).fast_fields().u64("ord")?;
            if let Some(ord) = col.first(addr.doc_id) {
                hits.push((ord, score));
            }
        }
        Ok(Found { hits, total })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_common_in_bodies_is_no_rarer_in_one_title() {
        let d = |ord, title: &str, body: &str| Doc {
            ord,
            title: title.into(),
            body: body.into(),
            ..Doc::default()
        };
        let docs = vec![
            d(0, "find agency", "Marketing agencies by service and rating."),
            d(
                1,
                "tunes",
                "Music, songs, playlists, albums, artists and charts for every mood and moment.",
            ),
            d(2, "recipes", "Find recipes and cooking tips."),
            d(3, "jobs", "Find jobs near you."),
            d(4, "hotels", "Find hotels and book rooms."),
        ];
        let q: Vec<(String, f32)> = text::terms("find music").into_iter().map(|t| (t, 1.0)).collect();
        let top = |index: &SearchIndex| index.search_with_prefixes(&q, &[], &Filter::default(), 5).unwrap().hits[0].0;
        // Per field, "find" is rare among titles, so the one title that has it would win.
        assert_eq!(top(&SearchIndex::build_fields(docs.clone(), 1.0).unwrap()), 0);
        // As rare in the title as in the whole document: the tool about songs wins.
        assert_eq!(top(&SearchIndex::build_catalog(docs, 1.0, 0.0).unwrap()), 1);
    }

    fn docs() -> Vec<Doc> {
        let d = |ord, title: &str, body: &str, keys: &[&str], time| Doc {
            ord,
            title: title.into(),
            body: body.into(),
            keys: keys.iter().map(|s| s.to_string()).collect(),
            time: Some(time),
            prefixes: String::new(),
            lead: String::new(),
        };
        vec![
            d(
                0,
                "",
                "We decided to raise the price to $49 per seat",
                &["channel=pricing"],
                100,
            ),
            d(1, "", "Lunch is at noon", &["channel=random"], 200),
            d(2, "Pricing policy", "Seats cost $45", &["channel=wiki"], 300),
            d(3, "", "価格改定は来月から適用します", &["channel=pricing"], 400),
        ]
    }

    #[test]
    fn bm25_finds_and_ranks() {
        let idx = SearchIndex::build(docs()).unwrap();
        assert_eq!(idx.len(), 4);
        let f = idx.search("decided price", &Filter::default(), 10).unwrap();
        let ords: Vec<u64> = f.hits.iter().map(|h| h.0).collect();
        assert_eq!(ords[0], 0);
        assert!(ords.contains(&2));
        assert!(!ords.contains(&1));
    }

    #[test]
    fn japanese_and_filters() {
        let idx = SearchIndex::build(docs()).unwrap();
        let f = idx.search("価格改定", &Filter::default(), 10).unwrap();
        assert_eq!(f.hits[0].0, 3);
        let filter = Filter {
            all_of: vec![vec!["channel=random".into()]],
            ..Default::default()
        };
        assert!(idx.search("price", &filter, 10).unwrap().hits.is_empty());
        let dated = Filter {
            after: Some(250),
            ..Default::default()
        };
        let got: Vec<u64> = idx.search("", &dated, 10).unwrap().hits.iter().map(|h| h.0).collect();
        assert_eq!(got, vec![3, 2]);
    }
}
