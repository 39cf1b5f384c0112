//! Which English words are synonyms, from WordNet 3.1 (Princeton University; the WordNet
//! licence), as `scripts/install-language-data` writes it in the data directory:
//! `wordnet/words.tsv`, a single-word lemma and its synsets per line (a part-of-speech letter
//! and the synset's offset, "n6838449", most frequent sense first within each part of speech).
//!
//! Two words are synonyms when they share a synset among the first senses of both ("typeface"
//! and "font", "closure" and "closing"). Only the first senses count: WordNet lists every rare
//! sense a word has, and "hold" shares a sense with "keep" only far down its list.
//!
//! `wordnet/nouns.tsv` (optional: installs before its format 3 lack it) gives each noun synset
//! its lemmas and hypernyms, so that `kind_of` can tell what kind of thing a noun names: a
//! "deadline" is a point in time, a "fee" a cost, an "owner" a person.
//!
//! `wordnet/derived.tsv` (optional: installs before its format 4 lack it) pairs a verb with the
//! nouns of its doing that WordNet derives from it ("decide" and "decision"), which the stemmer
//! does not bring together.
//!
//! `wordnet/names.tsv` (optional: installs before its format 5 lack it) lists the words WordNet
//! writes only capitalised ("Yamamoto", "David"; not "smith"): names, not English words.

use std::path::Path;
use std::sync::LazyLock;

use rustc_hash::FxHashMap;

use crate::util::data::Status;

/// Senses of a word, per part of speech, that it is read in (the most frequent first).
const FIRST_SENSES: usize = 3;

/// A synset: its part of speech (as a letter) and offset, packed.
pub type Synset = u64;

/// The part-of-speech number of adverbs in a packed `Synset` (its bits from 40 up).
const ADVERB: u64 = 3;
/// `WordNet::parts_of_speech`'s bits.
pub const NOUN: u8 = 1;
pub const VERB: u8 = 1 << 1;
pub const ADJECTIVE: u8 = 1 << 2;
pub const ADVERB_BIT: u8 = 1 << ADVERB;

/// The loaded synsets: per lemma, its synsets, and for each whether it is among the word's first
/// senses in its part of speech.
pub struct WordNet {
    words: FxHashMap<String, Vec<(Synset, bool)>>,
    /// `nouns.tsv`, when installed: read on first use (`WordNet::nouns`), by `kind_of`.
    nouns_file: Option<std::path::PathBuf>,
    nouns: std::sync::OnceLock<Nouns>,
    /// `derived.tsv`, when installed: per verb the nouns of its doing WordNet derives from it,
    /// and per such noun its verbs.
    derived: FxHashMap<String, Vec<String>>,
    /// `names.tsv`, when installed: the words WordNet writes only capitalised (lower case).
    names: rustc_hash::FxHashSet<String>,
}

/// WordNet's noun hierarchy (`nouns.tsv`).
#[derive(Default)]
struct Nouns {
    /// Per noun synset (its offset), the offsets of its hypernyms.
    hypernyms: FxHashMap<u32, Box<[u32]>>,
    /// Per noun lemma as `nouns.tsv` writes it ("point_in_time"), its synsets' offsets.
    lemmas: FxHashMap<String, Vec<u32>>,
}

/// Hypernyms `kind_of` visits at most: WordNet's noun hierarchy is under twenty levels deep.
const ANCESTORS_VISITED: usize = 128;
/// `WordNet::narrower`: a kind at most this many levels below the general word ("budget", a
/// fund, is money) ...
const NARROWER_LEVELS: usize = 2;
/// ... of a general word's sense at least this many levels below a root: "person" and "event"
/// are three, "money" and "payment" six and seven.
const NARROWER_MIN_DEPTH: usize = 4;

static NAMES: crate::util::data::Names = crate::util::data::Names {
    title: "English synonyms",
    source: "WordNet",
    without: "a question word no source has is not read as a synonym the sources use",
    plural: false,
};

static STATE: LazyLock<(Option<WordNet>, Status)> = LazyLock::new(|| {
    crate::util::data::load_resource(&NAMES, "wordnet", &["words.tsv"], load, |w| {
        format!("{} English words", w.words.len())
    })
});

/// WordNet's status (loading it on first call).
pub fn status() -> &'static Status {
    &STATE.1
}

/// Says once per process, as a warning, that WordNet is not installed.
pub fn notice_once() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    crate::util::data::notice_once(&ONCE, status());
}

/// WordNet, when installed and readable (loading it on first call).
pub fn wordnet() -> Option<&'static WordNet> {
    STATE.0.as_ref()
}

/// Reads `words.tsv` in `dir` (`nouns.tsv`, when it is there, on first use). A malformed line
/// is an error naming it.
pub fn load(dir: &Path) -> Result<WordNet, String> {
    let path = dir.join("words.tsv");
    let text = crate::util::fs::read_regular(&path, 64 << 20).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut wordnet = parse(&text).map_err(|line| {
        format!(
            "{} line {line}: expected a word, a tab and its synsets (n123, v456, ...)",
            path.display()
        )
    })?;
    let path = dir.join("nouns.tsv");
    wordnet.nouns_file = path.exists().then_some(path);
    let path = dir.join("derived.tsv");
    if path.exists() {
        let read = crate::util::fs::read_regular(&path, 16 << 20)
            .map_err(|e| format!("{}: {e}", path.display()))
            .and_then(|text| {
                parse_derived(&text)
                    .map_err(|line| format!("{} line {line}: expected a verb, a tab and its nouns", path.display()))
            });
        match read {
            Ok(d) => wordnet.derived = d,
            Err(e) => tracing::warn!("WordNet's derived nouns are unusable, and none is searched: {e}"),
        }
    }
    let path = dir.join("names.tsv");
    if path.exists() {
        match crate::util::fs::read_regular(&path, 4 << 20) {
            Ok(text) => {
                wordnet.names = text
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(str::to_string)
                    .collect()
            }
            Err(e) => tracing::warn!(
                "WordNet's names are unusable, and none is read: {}: {e}",
                path.display()
            ),
        }
    }
    Ok(wordnet)
}

/// Parses the lines of `derived.tsv` into both directions (verb to nouns, noun to verbs); a
/// malformed line is an error with its number.
fn parse_derived(text: &str) -> Result<FxHashMap<String, Vec<String>>, usize> {
    let mut derived: FxHashMap<String, Vec<String>> = FxHashMap::default();
    for (i, line) in text.lines().enumerate() {
        let (verb, nouns) = line.split_once('\t').ok_or(i + 1)?;
        if verb.is_empty() || verb.contains(' ') || nouns.trim().is_empty() {
            return Err(i + 1);
        }
        for noun in nouns.split_whitespace() {
            derived.entry(verb.to_string()).or_default().push(noun.to_string());
            derived.entry(noun.to_string()).or_default().push(verb.to_string());
        }
    }
    Ok(derived)
}

/// Reads `nouns.tsv`; a damaged file is said once, as a warning, and read as absent (`kind_of`
/// then knows no noun's kind).
fn load_nouns(path: &Path) -> Nouns {
    let read = crate::util::fs::read_regular(path, 64 << 20)
        .map_err(|e| format!("{}: {e}", path.display()))
        .and_then(|text| {
            parse_nouns(&text).map_err(|line| {
                format!(
                    "{} line {line}: expected a synset offset, a tab, its lemmas, a tab and its hypernyms' offsets",
                    path.display()
                )
            })
        });
    read.unwrap_or_else(|e| {
        tracing::warn!("WordNet's noun hierarchy is unusable, and no question is typed by its noun: {e}");
        Nouns::default()
    })
}

/// Parses the lines of `nouns.tsv`; a malformed line is an error with its number.
fn parse_nouns(text: &str) -> Result<Nouns, usize> {
    let mut nouns = Nouns::default();
    for (i, line) in text.lines().enumerate() {
        let mut fields = line.split('\t');
        let (Some(offset), Some(lemmas), Some(hypernyms), None) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            return Err(i + 1);
        };
        let offset: u32 = offset.parse().map_err(|_| i + 1)?;
        let hypernyms = hypernyms
            .split_whitespace()
            .map(|h| h.parse::<u32>().map_err(|_| i + 1))
            .collect::<Result<Box<[u32]>, usize>>()?;
        if lemmas.trim().is_empty() {
            return Err(i + 1);
        }
        for lemma in lemmas.split_whitespace() {
            nouns.lemmas.entry(lemma.to_string()).or_default().push(offset);
        }
        nouns.hypernyms.insert(offset, hypernyms);
    }
    Ok(nouns)
}

/// Parses the lines of `words.tsv`; a malformed line is an error with its number.
fn parse(text: &str) -> Result<WordNet, usize> {
    let mut words = FxHashMap::default();
    for (i, line) in text.lines().enumerate() {
        let (word, synsets) = line.split_once('\t').ok_or(i + 1)?;
        if word.is_empty() {
            return Err(i + 1);
        }
        let mut senses: Vec<(Synset, bool)> = Vec::new();
        let mut rank: [usize; 4] = [0; 4];
        for s in synsets.split_whitespace() {
            let (pos, offset) = s.split_at(s.find(|c: char| c.is_ascii_digit()).ok_or(i + 1)?);
            let p = match pos {
                "n" => 0,
                "v" => 1,
                "a" => 2,
                "r" => ADVERB as usize,
                _ => return Err(i + 1),
            };
            let offset: u64 = offset.parse().map_err(|_| i + 1)?;
            senses.push(((p as u64) << 40 | offset, rank[p] < FIRST_SENSES));
            rank[p] += 1;
        }
        words.insert(word.to_string(), senses);
    }
    Ok(WordNet {
        words,
        nouns_file: None,
        nouns: std::sync::OnceLock::new(),
        derived: FxHashMap::default(),
        names: Default::default(),
    })
}

/// WordNet's rules for the base form of an inflected word (its "morphy" detachments): noun
/// plurals, verb endings, comparative and superlative adjectives.
const DETACH: &[(&str, &str)] = &[
    ("ies", "y"),
    ("ches", "ch"),
    ("shes", "sh"),
    ("sses", "ss"),
    ("xes", "x"),
    ("zes", "z"),
    ("men", "man"),
    ("es", "e"),
    ("es", ""),
    ("s", ""),
    ("ed", "e"),
    ("ed", ""),
    ("ing", "e"),
    ("ing", ""),
    ("er", ""),
    ("est", ""),
    ("er", "e"),
    ("est", "e"),
];

/// A word as written (lower case) and its possible base forms by WordNet's detachment rules,
/// each once, the word first; with `comparatives`, "-er" and "-est" are detached too.
fn forms(word: &str, comparatives: bool) -> Vec<String> {
    let mut out = vec![word.to_string()];
    for (end, with) in DETACH {
        if !comparatives && matches!(*end, "er" | "est") {
            continue;
        }
        if let Some(stem) = word.strip_suffix(end)
            && stem.len() >= 2
        {
            let form = format!("{stem}{with}");
            if !out.contains(&form) {
                out.push(form);
            }
        }
    }
    out
}

impl WordNet {
    /// The lemmas WordNet has for a word as written (lower case): the word itself and its base
    /// forms.
    fn lemmas<'a>(&'a self, word: &str) -> Vec<&'a [(Synset, bool)]> {
        forms(word, true)
            .iter()
            .filter_map(|f| self.words.get(f))
            .map(Vec::as_slice)
            .collect()
    }

    /// The words WordNet derives from `word` (English, as written, lower case) or it from them,
    /// between a verb and a noun that names its doing: "decision" for "decided", "qualify" for
    /// "qualification". Not the word's own forms, and not a noun for the one who does it.
    pub fn derived(&self, word: &str) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        // Plurals and verb endings; not "-er" and "-est" ("counter" is not a form of "count").
        let forms = forms(word, false);
        for form in &forms {
            for d in self.derived.get(form).into_iter().flatten() {
                if !forms.contains(d) && !out.contains(&d.as_str()) {
                    out.push(d);
                }
            }
        }
        out
    }

    /// Whether `a` and `b` (English words as written, lower case) are synonyms: they share a
    /// synset among the first senses of both. A word is not its own synonym.
    pub fn synonyms(&self, a: &str, b: &str) -> bool {
        a != b && share(&self.first_senses(a), &self.first_senses(b))
    }

    /// A word's first senses (as written or by a base form), what `synonyms` compares: looked up
    /// once for a word compared with many.
    pub fn first_senses(&self, word: &str) -> Vec<Synset> {
        self.lemmas(word)
            .iter()
            .flat_map(|s| s.iter())
            .filter(|(_, first)| *first)
            .map(|(s, _)| *s)
            .collect()
    }

    /// Whether WordNet has the word (as written or by a base form).
    pub fn knows(&self, word: &str) -> bool {
        !self.lemmas(word).is_empty()
    }

    /// Whether WordNet writes the word (lower case, as written) only capitalised: a name
    /// ("yamamoto", "david"), not an English word ("smith"). False without `names.tsv`.
    pub fn only_a_name(&self, word: &str) -> bool {
        self.names.contains(word)
    }

    /// Whether the word (lower case) is an English word WordNet has, as written or as a plural
    /// or a verb's form, and not only as a name (`only_a_name`). No "-er" is taken off: "becker"
    /// is no form of "beck".
    pub fn english_word(&self, word: &str) -> bool {
        forms(word, false)
            .iter()
            .any(|f| self.words.contains_key(f) && !self.names.contains(f))
    }

    /// Which of `classes` (noun lemmas as `nouns.tsv` writes them: "point_in_time", "person")
    /// the first noun sense of `word` (as written or by a base form) is a kind of: the class
    /// whose synset is nearest above it in WordNet's hypernyms, or the sense itself. `None` when
    /// it is none of them, is no noun, or without `nouns.tsv`. Only the most frequent sense
    /// counts: "time" is first an occasion, and a period only second.
    pub fn kind_of<'c>(&self, word: &str, classes: &[&'c str]) -> Option<&'c str> {
        let nouns = self.nouns();
        if nouns.hypernyms.is_empty() {
            return None;
        }
        let first = self
            .lemmas(word)
            .iter()
            .find_map(|senses| senses.iter().find(|(s, _)| s >> 40 == 0).map(|(s, _)| *s as u32))?;
        let targets: Vec<(&'c str, &[u32])> = classes
            .iter()
            .filter_map(|c| nouns.lemmas.get(*c).map(|s| (*c, s.as_slice())))
            .collect();
        let mut queue = std::collections::VecDeque::from([first]);
        let mut seen: Vec<u32> = Vec::new();
        while let Some(synset) = queue.pop_front() {
            if seen.contains(&synset) || seen.len() >= ANCESTORS_VISITED {
                continue;
            }
            seen.push(synset);
            if let Some((class, _)) = targets.iter().find(|(_, s)| s.contains(&synset)) {
                return Some(class);
            }
            queue.extend(nouns.hypernyms.get(&synset).into_iter().flat_map(|h| h.iter().copied()));
        }
        None
    }

    /// Whether a first noun sense of `specific` is a kind of a first noun sense of `general`
    /// (both `first_senses`) at most `NARROWER_LEVELS` levels below it ("budget" under "money",
    /// through "fund"), where that sense of `general` is at least `NARROWER_MIN_DEPTH` levels
    /// below the hierarchy's roots: a person or an event has thousands of kinds two levels
    /// down, and naming one of them does not speak of the other. Evidence about a budget speaks
    /// of money; a synonym test does not see it. False without `nouns.tsv`.
    pub fn narrower(&self, specific: &[Synset], general: &[Synset]) -> bool {
        self.below(specific, &self.general_senses(general))
    }

    /// The noun senses among `senses` that `narrower` counts as general ones (those at least
    /// `NARROWER_MIN_DEPTH` levels below a root), for `below`: worked out once for a word
    /// compared with many.
    pub fn general_senses(&self, senses: &[Synset]) -> Vec<u32> {
        if self.nouns().hypernyms.is_empty() {
            return Vec::new();
        }
        noun_offsets(senses)
            .into_iter()
            .filter(|&s| self.depth(s) >= NARROWER_MIN_DEPTH)
            .collect()
    }

    /// Whether a noun sense of `specific` has one of `general` (`general_senses`) among its
    /// hypernyms at most `NARROWER_LEVELS` levels up.
    pub fn below(&self, specific: &[Synset], general: &[u32]) -> bool {
        if general.is_empty() {
            return false;
        }
        let mut level = noun_offsets(specific);
        for _ in 0..NARROWER_LEVELS {
            level = self.parents(&level);
            if level.iter().any(|s| general.contains(s)) {
                return true;
            }
        }
        false
    }

    /// Whether WordNet lists the word (as written or by a base form) as a noun at least as
    /// often as any other part of speech: "alerts" and "queries" are mostly things, "closed"
    /// (a sense of "close" is a section of a text) is not.
    pub fn mostly_noun(&self, word: &str) -> bool {
        self.lemmas(word).iter().any(|senses| {
            let count = |pos: u64| senses.iter().filter(|(s, _)| s >> 40 == pos).count();
            let nouns = count(0);
            nouns > 0 && (1..=ADVERB).all(|pos| count(pos) <= nouns)
        })
    }

    /// The direct hypernyms of noun synsets (offsets), one level up.
    fn parents(&self, synsets: &[u32]) -> Vec<u32> {
        let nouns = self.nouns();
        synsets
            .iter()
            .flat_map(|s| nouns.hypernyms.get(s).into_iter().flat_map(|h| h.iter().copied()))
            .collect()
    }

    /// How many levels a noun synset is below the nearest root of WordNet's hierarchy (0 for a
    /// root, or an offset `nouns.tsv` does not list).
    fn depth(&self, synset: u32) -> usize {
        let nouns = self.nouns();
        let mut level = vec![synset];
        for d in 0..ANCESTORS_VISITED {
            let mut up: Vec<u32> = Vec::new();
            for s in &level {
                match nouns.hypernyms.get(s) {
                    Some(h) if !h.is_empty() => up.extend(h.iter().copied()),
                    _ => return d,
                }
            }
            level = up;
        }
        ANCESTORS_VISITED
    }

    /// The noun hierarchy, read on first use.
    fn nouns(&self) -> &Nouns {
        self.nouns
            .get_or_init(|| self.nouns_file.as_deref().map(load_nouns).unwrap_or_default())
    }

    /// Whether `a` and `b` (English words as written, lower case) are coordinate terms: a first
    /// noun sense of each are two kinds of one thing (a synset's direct hypernym is the other's),
    /// and they share no first sense. "Monday" and "Wednesday" are both weekdays, a word and
    /// its near-synonym are not; a sentence encoder puts both pairs close together. False
    /// without `nouns.tsv`.
    pub fn coordinate(&self, a: &str, b: &str) -> bool {
        let (sa, sb) = (self.first_senses(a), self.first_senses(b));
        if share(&sa, &sb) {
            return false;
        }
        let pa = self.parents(&noun_offsets(&sa));
        !pa.is_empty() && self.parents(&noun_offsets(&sb)).iter().any(|p| pa.contains(p))
    }

    /// Whether the word (as written or by a base form) is mostly a noun that names a physical
    /// thing: its first noun sense is a kind of `physical_entity` ("dog", "coffee", "bike"), and
    /// WordNet gives it more noun senses than verb senses ("park" and "ship" are verbs more
    /// often). False without `nouns.tsv`.
    pub fn concrete_noun(&self, word: &str) -> bool {
        let Some(senses) = self
            .lemmas(word)
            .into_iter()
            .find(|s| s.iter().any(|(s, _)| s >> 40 == 0))
        else {
            return false;
        };
        let count = |pos: u64| senses.iter().filter(|(s, _)| s >> 40 == pos).count();
        count(0) > count(1) && self.kind_of(word, &["physical_entity"]).is_some()
    }

    /// The parts of speech WordNet lists the word (as written or by a base form) as, one bit
    /// each: `NOUN`, `VERB`, `ADJECTIVE`, `ADVERB_BIT`; 0 when it does not know it.
    pub fn parts_of_speech(&self, word: &str) -> u8 {
        self.lemmas(word)
            .iter()
            .flat_map(|s| s.iter())
            .fold(0, |bits, (s, _)| bits | 1 << (s >> 40))
    }

    /// Whether the word (as written or by a base form) is a noun, a verb or an adjective: a word
    /// that can say which thing is meant. Prepositions and other function words ("onto", "via",
    /// "among") are not in WordNet, and the ones it lists are adverbs only ("within", "across").
    pub fn names_a_thing(&self, word: &str) -> bool {
        self.lemmas(word)
            .iter()
            .flat_map(|s| s.iter())
            .any(|(s, _)| s >> 40 != ADVERB)
    }
}

/// The noun synsets among `senses`, as `nouns.tsv` offsets.
fn noun_offsets(senses: &[Synset]) -> Vec<u32> {
    senses.iter().filter(|s| *s >> 40 == 0).map(|s| *s as u32).collect()
}

/// Whether two words' first senses (`WordNet::first_senses`) share a synset.
pub fn share(a: &[Synset], b: &[Synset]) -> bool {
    a.iter().any(|s| b.contains(s))
}

/// WordNet built from these lines, as `load` reads them from a file.
#[cfg(test)]
pub(crate) fn of(lines: &str) -> WordNet {
    parse(lines).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Lines in the format of words.tsv, with made-up offsets.
    const LINES: &str = "typeface\tn100\n\
                         font\tn100 n200\n\
                         fount\tn100 n300\n\
                         hold\tn1 n2 n3 n4 v10 v11 v12 v13\n\
                         keep\tn5 v13 v20\n\
                         close\tv30 v31 a40\n\
                         closing\tn50 n30\n\
                         closure\tn50 n60\n";

    #[test]
    fn words_are_synonyms_by_a_sense_first_in_both() {
        let w = of(LINES);
        assert!(w.synonyms("typeface", "font"));
        assert!(w.synonyms("fonts", "typeface"), "a plural is read as its base form");
        assert!(w.synonyms("closure", "closing"));
        // "hold" and "keep" share only the fourth verb sense of "hold".
        assert!(!w.synonyms("keep", "hold"));
        assert!(!w.synonyms("typeface", "typeface"));
        assert!(!w.synonyms("closure", "close"));
        assert!(!w.synonyms("font", "submarine"));
        assert!(w.knows("closing") && !w.knows("submarine"));
    }

    #[test]
    fn a_verb_and_the_noun_of_its_doing_are_derived_from_each_other() {
        let mut w = of("decide\tv1\ndecision\tn2\n");
        assert!(w.derived("decided").is_empty(), "without derived.tsv");
        w.derived = parse_derived("decide\tdecision\nqualify\tqualification qualifying\n").unwrap();
        assert_eq!(
            w.derived("decided"),
            ["decision"],
            "an inflected verb is read as its base form"
        );
        assert_eq!(w.derived("decisions"), ["decide"]);
        assert_eq!(w.derived("qualify"), ["qualification", "qualifying"]);
        // Read as "qualify" too, whose forms are not derived from it.
        assert_eq!(w.derived("qualifying"), ["qualification"]);
        assert!(
            w.derived("decider").is_empty(),
            "\"-er\" is not read as a form of the verb"
        );
        assert!(w.derived("submarine").is_empty());
        assert_eq!(parse_derived("decide\tdecision\n\tnouns\n").err(), Some(2));
        assert_eq!(parse_derived("decide\n").err(), Some(1));
    }

    #[test]
    fn nouns_verbs_and_adjectives_name_things_adverbs_and_unlisted_words_do_not() {
        let w = of("legacy\tn1\nnew\ta2 r3\nwithin\tr4\nclose\tv30 a40\n");
        assert!(w.names_a_thing("legacy") && w.names_a_thing("new") && w.names_a_thing("closed"));
        assert!(!w.names_a_thing("within"), "an adverb only");
        assert!(!w.names_a_thing("onto"), "not in WordNet: a function word");
    }

    #[test]
    fn a_noun_is_a_kind_of_the_classes_above_its_first_sense() {
        // Made-up offsets: a deadline is a point in time, a measure; a tab (first sense) is a bill
        // (a cost); its second sense is a strip (an artifact).
        assert_eq!(
            of("deadline\tn10\n").kind_of("deadline", &["point_in_time"]),
            None,
            "without nouns.tsv"
        );
        let w = of("deadline\tn10\ntab\tn20 n30\n");
        let nouns = parse_nouns(
            "1\tmeasure quantity\t\n2\tpoint point_in_time\t1\n10\tdeadline\t2\n\
             3\tcost\t1\n20\tbill tab\t3\n30\tstrip tab\t4\n4\tartifact\t\n",
        )
        .unwrap();
        assert!(w.nouns.set(nouns).is_ok());
        assert_eq!(w.kind_of("deadline", &["cost", "point_in_time"]), Some("point_in_time"));
        assert_eq!(
            w.kind_of("deadlines", &["measure"]),
            Some("measure"),
            "base form, any level up"
        );
        assert_eq!(w.kind_of("tab", &["point_in_time", "cost"]), Some("cost"));
        assert_eq!(w.kind_of("tab", &["artifact"]), None, "the second sense does not count");
        assert_eq!(w.kind_of("deadline", &["nothing_listed"]), None);
        assert_eq!(w.kind_of("submarine", &["measure"]), None);
        // The nearest class wins.
        assert_eq!(
            w.kind_of("deadline", &["measure", "point_in_time"]),
            Some("point_in_time")
        );
        assert_eq!(parse_nouns("10\tdeadline\n").err(), Some(1));
        assert_eq!(parse_nouns("10\tdeadline\t2\nx\tdue\t\n").err(), Some(2));
        assert_eq!(parse_nouns("11\t \t2\n").err(), Some(1));
        // A damaged file is read as absent, and said once.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nouns.tsv");
        std::fs::write(&path, "10\tdeadline\n").unwrap();
        assert!(load_nouns(&path).hypernyms.is_empty());
    }

    #[test]
    fn a_kind_two_levels_down_is_narrower_unless_the_general_word_is_near_a_root() {
        // Made-up offsets: entity > abstraction > relation > possession > asset > money > fund >
        // budget; entity > causal_agent > person > analyst (person three levels down).
        let w = of("money\tn6\nfund\tn7\nbudget\tn8\nperson\tn31\nanalyst\tn32\n\
                    close\tn40 v41 v42\nclosed\ta43\nentity\tn1\n");
        let bare = of("money\tn6\nbudget\tn8\n");
        assert!(
            !bare.narrower(&bare.first_senses("budget"), &bare.first_senses("money")),
            "without nouns.tsv"
        );
        let nouns = parse_nouns(
            "1\tentity\t\n2\tabstraction\t1\n3\trelation\t2\n4\tpossession\t3\n5\tasset\t4\n\
             6\tmoney\t5\n7\tfund\t6\n8\tbudget\t7\n30\tcausal_agent\t1\n31\tperson\t30\n\
             32\tanalyst\t31\n40\tclose end\t3\n",
        )
        .unwrap();
        assert!(w.nouns.set(nouns).is_ok());
        let senses = |x: &str| w.first_senses(x);
        assert!(w.narrower(&senses("budget"), &senses("money")), "two levels down");
        assert!(w.narrower(&senses("budgets"), &senses("money")), "by the base form");
        assert!(w.narrower(&senses("fund"), &senses("money")));
        assert!(
            !w.narrower(&senses("money"), &senses("budget")),
            "a broader word is not narrower"
        );
        assert!(!w.narrower(&senses("budget"), &senses("asset")), "three levels down");
        assert!(
            !w.narrower(&senses("analyst"), &senses("person")),
            "a person is two levels below a root"
        );
        assert!(!w.narrower(&senses("money"), &senses("money")));
        assert!(w.mostly_noun("budgets") && w.mostly_noun("money"));
        assert!(!w.mostly_noun("closed"), "a verb more often than a noun");
        assert!(!w.mostly_noun("submarine"), "not listed");
    }

    #[test]
    fn a_damaged_file_is_an_error_naming_its_line() {
        assert_eq!(parse("font\tn100\nbroken line\n").err(), Some(2));
        assert_eq!(parse("font\tq100\n").err(), Some(1));
        assert_eq!(parse("\tn1\n").err(), Some(1));
    }
}
