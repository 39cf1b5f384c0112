//! Near-duplicate clustering: copies of the same evidence across sources become one citation
//! that names every copy (`also_in`). Candidates come from MinHash LSH (minhash-rs), never from
//! comparing all pairs; translations (which share no words) are paired by their facts (dates,
//! amounts, numbers) within a short time window.
//!
//! Merge rules (field notes): merge copies and translations of one announcement; never merge
//! different conclusions (their facts differ), or different periods (more than two days apart).
//! A cluster is represented by its most complete text, then the most authoritative, then the
//! most recent. Invariant: pure, no I/O.

use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};

use minhash_rs::prelude::*;

use crate::pipeline::rank::Evidence;
use crate::text;
use crate::text::values;

/// Signature size: 64 permutations in 16 bands of 4 rows put the LSH threshold near 0.5.
const PERMUTATIONS: usize = 64;
const BANDS: usize = 16;
/// Estimated Jaccard of shingle sets at or above which two texts are copies.
pub const SIMILARITY: f64 = 0.6;
/// Copies further apart in time than this are different periods.
const WINDOW_SECS: i64 = 2 * 86_400;
/// Members of one LSH bucket compared pairwise at most (a huge bucket is boilerplate).
const MAX_BUCKET: usize = 64;
/// Later items each item is compared with for translation, at most (keeps the pass linear).
const MAX_TRANSLATION_PEERS: usize = 256;

/// FNV hashes the (already hashed) shingles: SipHash would be spent on hashing hashes.
type Sig = MinHash<u64, PERMUTATIONS, Fnv>;

/// The shingles of a text: token trigrams (or the tokens themselves for very short texts).
pub fn shingles(t: &str) -> BTreeSet<u64> {
    let hash = |x: &dyn Fn(&mut rustc_hash::FxHasher)| {
        let mut h = rustc_hash::FxHasher::default();
        x(&mut h);
        h.finish()
    };
    let mut toks: Vec<u64> = Vec::with_capacity(t.len() / 5);
    text::for_each_token(t, |w, _, _| toks.push(hash(&|h| w.hash(h))));
    if toks.len() < 3 {
        return toks.into_iter().collect();
    }
    toks.windows(3).map(|w| hash(&|h| w.hash(h))).collect()
}

pub fn jaccard(a: &BTreeSet<u64>, b: &BTreeSet<u64>) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let inter = a.intersection(b).count() as f64;
    inter / (a.len() as f64 + b.len() as f64 - inter)
}

struct Dsu(Vec<usize>);

impl Dsu {
    fn find(&mut self, x: usize) -> usize {
        let mut r = x;
        while self.0[r] != r {
            r = self.0[r];
        }
        let mut y = x;
        while self.0[y] != r {
            let next = self.0[y];
            self.0[y] = r;
            y = next;
        }
        r
    }
    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            // the better-ranked (lower index) root stays
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.0[hi] = lo;
        }
    }
}

/// A group of evidence that says the same thing; `members[0]` is the representative.
#[derive(Debug, Clone, PartialEq)]
pub struct Cluster {
    pub members: Vec<Evidence>,
}

impl Cluster {
    pub fn rep(&self) -> &Evidence {
        &self.members[0]
    }
    /// The cluster ranks as its best member.
    pub fn score(&self) -> f64 {
        self.members.iter().map(|m| m.score).fold(0.0, f64::max)
    }
    pub fn sources(&self) -> BTreeSet<&str> {
        self.members.iter().map(|m| m.hit.source.as_str()).collect()
    }
}

fn close_in_time(a: &Evidence, b: &Evidence) -> bool {
    match (a.hit.timestamp, b.hit.timestamp) {
        (Some(x), Some(y)) => (x - y).num_seconds().abs() <= WINDOW_SECS,
        _ => true,
    }
}

/// Whether two near-identical texts may merge: same facts (no different conclusion) and the
/// same period.
fn may_merge(a: &Evidence, b: &Evidence, fa: &BTreeSet<String>, fb: &BTreeSet<String>) -> bool {
    fa == fb && close_in_time(a, b)
}

/// Whether two texts in different languages are one announcement: at least two shared facts,
/// most facts shared, and close in time.
/// `ja` says whether each text is Japanese.
fn translations(a: &Evidence, b: &Evidence, fa: &BTreeSet<String>, fb: &BTreeSet<String>, ja: (bool, bool)) -> bool {
    if ja.0 == ja.1 || a.hit.source == b.hit.source && a.hit.kind == b.hit.kind && a.hit.location == b.hit.location {
        return false;
    }
    let shared = fa.intersection(fb).count();
    let union = fa.union(fb).count();
    shared >= 2 && shared as f64 / union as f64 >= 0.6 && close_in_time(a, b)
}

/// Clusters ranked evidence (in rank order) into citations, keeping rank order by best member.
pub fn cluster(ranked: Vec<Evidence>) -> Vec<Cluster> {
    let n = ranked.len();
    if n == 0 {
        return Vec::new();
    }
    // Each item's shingles, facts and signature: the costly part, on all cores.
    let per_item = crate::util::par::map(&ranked, 256, |e| {
        let sh = shingles(&e.hit.text);
        let sig: Sig = sh.iter().copied().collect();
        (sh, values::fact_set(&e.hit.text), sig, text::is_japanese(&e.hit.text))
    });
    let mut sh: Vec<BTreeSet<u64>> = Vec::with_capacity(n);
    let mut facts: Vec<BTreeSet<String>> = Vec::with_capacity(n);
    let mut sigs: Vec<Sig> = Vec::with_capacity(n);
    let mut japanese: Vec<bool> = Vec::with_capacity(n);
    for (a, b, c, d) in per_item {
        sh.push(a);
        facts.push(b);
        sigs.push(c);
        japanese.push(d);
    }
    let mut dsu = Dsu((0..n).collect());
    // LSH as a self-join: per band, sort (band hash, id) and pair the ids within each run of
    // equal hashes. Sequential memory, O(n log n), no per-query lookups.
    let bands: Vec<[u64; BANDS]> = sigs.iter().map(|s| s.band_hashes::<BANDS>()).collect();
    let mut seen: rustc_hash::FxHashSet<(u32, u32)> = Default::default();
    let mut entries: Vec<(u64, u32)> = Vec::with_capacity(n);
    for band in 0..BANDS {
        entries.clear();
        entries.extend(
            bands
                .iter()
                .enumerate()
                .filter(|(i, _)| !sh[*i].is_empty())
                .map(|(i, h)| (h[band], i as u32)),
        );
        entries.sort_unstable();
        for run in entries.chunk_by(|x, y| x.0 == y.0) {
            // A bucket this large is a common boilerplate text; its first members stand for it.
            for (k, &(_, i)) in run.iter().enumerate().take(MAX_BUCKET) {
                for &(_, j) in &run[k + 1..run.len().min(MAX_BUCKET)] {
                    let (i, j) = (i.min(j) as usize, i.max(j) as usize);
                    if !seen.insert((i as u32, j as u32)) {
                        continue;
                    }
                    if sigs[i].estimate_jaccard_index(&sigs[j]) >= SIMILARITY
                        && may_merge(&ranked[i], &ranked[j], &facts[i], &facts[j])
                    {
                        dsu.union(i, j);
                    }
                }
            }
        }
    }
    // Translations: sort by time and compare within the window only.
    let mut by_time: Vec<usize> = (0..n)
        .filter(|&i| facts[i].len() >= 2 && ranked[i].hit.timestamp.is_some())
        .collect();
    by_time.sort_by_key(|&i| ranked[i].hit.timestamp);
    for (k, &i) in by_time.iter().enumerate() {
        for &j in by_time[k + 1..].iter().take(MAX_TRANSLATION_PEERS) {
            let (Some(ti), Some(tj)) = (ranked[i].hit.timestamp, ranked[j].hit.timestamp) else {
                continue;
            };
            if (tj - ti).num_seconds() > WINDOW_SECS {
                break;
            }
            if translations(&ranked[i], &ranked[j], &facts[i], &facts[j], (japanese[i], japanese[j])) {
                dsu.union(i, j);
            }
        }
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut slot: Vec<Option<usize>> = vec![None; n];
    for i in 0..n {
        let r = dsu.find(i);
        match slot[r] {
            Some(g) => groups[g].push(i),
            None => {
                slot[r] = Some(groups.len());
                groups.push(vec![i]);
            }
        }
    }
    let mut items: Vec<Option<Evidence>> = ranked.into_iter().map(Some).collect();
    groups
        .into_iter()
        .map(|g| {
            let mut members: Vec<Evidence> = g.iter().filter_map(|&i| items[i].take()).collect();
            choose_representative(&mut members);
            Cluster { members }
        })
        .collect()
}

/// Moves the representative to the front: the most complete text, then the most
/// authoritative, then the most recent. A translation in the question's language is not
/// preferred here; the answer picks sentences from whichever member matched best.
fn choose_representative(members: &mut [Evidence]) {
    if members.len() < 2 {
        return;
    }
    let best_score = members.iter().map(|m| m.score).fold(0.0, f64::max);
    let best = (0..members.len())
        .max_by(|&a, &b| {
            let (x, y) = (&members[a], &members[b]);
            // Completeness among members that rank close to the best; far weaker ones never lead.
            let xs = x.score >= best_score * 0.8;
            let ys = y.score >= best_score * 0.8;
            xs.cmp(&ys)
                .then(x.hit.text.chars().count().cmp(&y.hit.text.chars().count()))
                .then(x.authority.total_cmp(&y.authority))
                .then(x.hit.timestamp.cmp(&y.hit.timestamp))
                .then(y.hit.id.cmp(&x.hit.id))
        })
        .unwrap_or(0);
    members.swap(0, best);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hit::{EvidenceKind, Hit};

    fn ev(source: &str, native: &str, text_: &str, date: &str, score: f64) -> Evidence {
        let mut h = Hit::new(source, native, EvidenceKind::Chat, text_);
        h.timestamp = Some(format!("{date}:00Z").parse().unwrap());
        Evidence::plain(h, score)
    }

    #[test]
    fn copies_and_translations_merge_but_different_conclusions_do_not() {
        let a = ev(
            "slack",
            "ann/1",
            "Year-end holidays: the company is closed from December 27 to January 4. Support keeps an on-call rotation.",
            "2026-11-02T09:00",
            0.9,
        );
        let b = ev(
            "notion",
            "0000000000000000000000000000000b",
            "Year-end holidays: the company is closed from December 27 to January 4. Support keeps an on-call rotation!",
            "2026-11-02T12:00",
            0.8,
        );
        let c = ev(
            "rocketchat",
            "X1",
            "年末年始休業のお知らせ：12月27日から1月4日まで休業します。サポートは当番制で対応します。",
            "2026-11-02T09:05",
            0.7,
        );
        let d = ev(
            "slack",
            "ann/2",
            "Year-end holidays: the company is closed from December 24 to January 4. Support keeps an on-call rotation.",
            "2026-11-02T10:00",
            0.6,
        );
        let clusters = cluster(vec![a, b, c, d]);
        assert_eq!(clusters.len(), 2, "{clusters:#?}");
        let ids: Vec<&str> = clusters[0].members.iter().map(|m| m.hit.id.as_str()).collect();
        assert_eq!(ids.len(), 3);
        // the longest text leads
        assert_eq!(clusters[0].rep().hit.id, "notion:0000000000000000000000000000000b");
        assert_eq!(clusters[1].rep().hit.id, "slack:ann/2");
    }

    #[test]
    fn different_periods_do_not_merge() {
        let a = ev(
            "slack",
            "w/1",
            "Weekly reminder: submit your timesheets by Friday 17:00.",
            "2026-11-02T09:00",
            0.9,
        );
        let b = ev(
            "slack",
            "w/2",
            "Weekly reminder: submit your timesheets by Friday 17:00.",
            "2026-11-09T09:00",
            0.8,
        );
        assert_eq!(cluster(vec![a, b]).len(), 2);
    }

    #[test]
    fn jaccard_is_exact() {
        let a: BTreeSet<u64> = [1, 2, 3, 4].into();
        let b: BTreeSet<u64> = [3, 4, 5, 6].into();
        assert!((jaccard(&a, &b) - 2.0 / 6.0).abs() < 1e-9);
    }
}

#[cfg(test)]
mod proptests {
    use super::*;
    use crate::hit::{EvidenceKind, Hit};
    use proptest::prelude::*;

    const VOCAB: &[&str] = &[
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima",
        "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey",
    ];

    fn ev(i: usize, text_: String) -> Evidence {
        let mut h = Hit::new("s", &format!("c/{i}"), EvidenceKind::Chat, text_.clone());
        h.timestamp = Some("2026-11-01T00:00:00Z".parse().unwrap());
        Evidence {
            keyword: 1.0,
            authority: 1.0,
            completeness: 1.0,
            ..Evidence::plain(h, 1.0 - i as f64 * 1e-3)
        }
    }

    fn docs() -> impl Strategy<Value = Vec<String>> {
        // base documents, and copies of some of them with one word changed
        (
            prop::collection::vec(prop::collection::vec(0..VOCAB.len(), 20..40), 2..12),
            prop::collection::vec((0usize..100, 0usize..40, 0..VOCAB.len()), 0..10),
        )
            .prop_map(|(bases, edits)| {
                let mut out: Vec<Vec<usize>> = bases.clone();
                for (b, pos, w) in edits {
                    let mut copy = bases[b % bases.len()].clone();
                    let p = pos % copy.len();
                    copy[p] = w;
                    out.push(copy);
                }
                out.into_iter()
                    .map(|d| d.iter().map(|i| VOCAB[*i]).collect::<Vec<_>>().join(" "))
                    .collect()
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// LSH finds what all-pairs Jaccard finds for clear copies, and merges nothing that
        /// all-pairs Jaccard would call unrelated.
        #[test]
        fn lsh_agrees_with_all_pairs_jaccard(texts in docs()) {
            let evidence: Vec<Evidence> = texts.iter().cloned().enumerate().map(|(i, t)| ev(i, t)).collect();
            let sh: Vec<BTreeSet<u64>> = texts.iter().map(|t| shingles(t)).collect();
            let clusters = cluster(evidence);
            let cluster_of = |id: &str| clusters.iter().position(|c| c.members.iter().any(|m| m.hit.id == id)).unwrap();
            for i in 0..texts.len() {
                for j in i + 1..texts.len() {
                    let exact = jaccard(&sh[i], &sh[j]);
                    if exact >= 0.9 {
                        prop_assert_eq!(cluster_of(&format!("s:c/{i}")), cluster_of(&format!("s:c/{j}")), "J={} missed", exact);
                    }
                }
            }
            for c in &clusters {
                if c.members.len() < 2 { continue; }
                for m in &c.members {
                    let i: usize = m.hit.id.rsplit('/').next().unwrap().parse().unwrap();
                    let best = c.members.iter().filter(|o| o.hit.id != m.hit.id).map(|o| {
                        let j: usize = o.hit.id.rsplit('/').next().unwrap().parse().unwrap();
                        jaccard(&sh[i], &sh[j])
                    }).fold(0.0, f64::max);
                    prop_assert!(best >= 0.35, "merged with J={}", best);
                }
            }
        }
    }
}
