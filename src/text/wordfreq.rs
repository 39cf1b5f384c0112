//! How common a word is in the language at large, from the English and Japanese word lists of
//! `wordfreq` (Robyn Speer; data CC BY-SA 4.0), as `scripts/install-language-data` writes them in
//! the data directory: `wordfreq/en.tsv` and `wordfreq/ja.tsv`, a word and its Zipf frequency
//! times 100 per line (Zipf: log10 of the word's occurrences per billion words; "the" is about
//! 7.7, "give" 5.7, "submarine" 3.8), words of Zipf 3 and up.
//!
//! A pool's IDF says how rare a word is among the evidence, and a word no passage has is as
//! rare as it can be there. That is right for the subject of a question about something absent
//! ("the Mars colony") and wrong for the asker's everyday words ("could you give me a rundown"):
//! this says which of the two a word the sources lack is.

use std::path::Path;
use std::sync::LazyLock;

use rustc_hash::FxHashMap;

use crate::util::data::Status;

/// A word this common (once per million words and more often) says nothing specific ...
const COMMON_ZIPF: f64 = 6.0;
/// ... one this rare (about once per three million words, or not listed) names a specific thing
/// ("Porto", "Salesforce"): below it the list ranks names and rare nouns alike.
const RARE_ZIPF: f64 = 3.5;
/// The least specificity a word has: even "the" is a word of the question.
const SPECIFICITY_FLOOR: f64 = 0.1;
/// A Japanese word the lists hold only as its parts is this many times rarer per extra part
/// (the lists were cut by a morphological analyser, so a compound's parts are listed apart).
const PART_PENALTY: f64 = 10.0;

/// The loaded lists.
pub struct Frequencies {
    en: FxHashMap<String, u16>,
    ja: FxHashMap<String, u16>,
}

/// How messages name the lists.
static NAMES: crate::util::data::Names = crate::util::data::Names {
    title: "Word frequencies",
    source: "wordfreq",
    without: "a question word no source has counts as the question's subject",
    plural: true,
};

static STATE: LazyLock<(Option<Frequencies>, Status)> = LazyLock::new(|| {
    crate::util::data::load_resource(&NAMES, "wordfreq", &["en.tsv", "ja.tsv"], load, |f| {
        format!("{} English and Japanese words", f.en.len() + f.ja.len())
    })
});

/// The lists' status (loading them on first call).
pub fn status() -> &'static Status {
    &STATE.1
}

/// Says once per process, as a warning, that the lists are not installed.
pub fn notice_once() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    crate::util::data::notice_once(&ONCE, status());
}

/// The lists, when installed and readable (loading them on first call).
pub fn frequencies() -> Option<&'static Frequencies> {
    STATE.0.as_ref()
}

/// Reads both lists in `dir`. A malformed line is an error naming it: a damaged file is
/// reported, not half used.
pub fn load(dir: &Path) -> Result<Frequencies, String> {
    let list = |name: &str| -> Result<FxHashMap<String, u16>, String> {
        let path = dir.join(name);
        let text = crate::util::fs::read_regular(&path, 64 << 20).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut map = FxHashMap::default();
        for (i, line) in text.lines().enumerate() {
            let parsed = line
                .split_once('\t')
                .and_then(|(w, z)| Some((w, z.parse::<u16>().ok()?)))
                .filter(|(w, z)| !w.is_empty() && *z <= 900);
            let Some((word, zipf)) = parsed else {
                return Err(format!(
                    "{} line {}: expected a word, a tab and a Zipf frequency times 100",
                    path.display(),
                    i + 1
                ));
            };
            map.entry(word.to_string()).or_insert(zipf);
        }
        Ok(map)
    };
    Ok(Frequencies {
        en: list("en.tsv")?,
        ja: list("ja.tsv")?,
    })
}

impl Frequencies {
    /// The Zipf frequency of a word or phrase (0 when the lists do not have it): a phrase's is
    /// that of all its words together (one in `1/f1 + 1/f2 + ...` words); a Japanese word the
    /// list lacks is read as its compound's members, rarer by `PART_PENALTY` per extra member.
    pub fn zipf(&self, word: &str) -> f64 {
        let norm = crate::text::normalize(word);
        let words: Vec<&str> = norm.split_whitespace().collect();
        if words.is_empty() {
            return 0.0;
        }
        together(words.iter().map(|w| self.one(w))).map_or(0.0, |z| z.max(0.0))
    }

    /// An English word's Zipf frequency times 100, when the list has it (as written: lower case).
    pub fn en_zipf(&self, word: &str) -> Option<u16> {
        self.en.get(word).copied()
    }

    /// The English list's words.
    pub fn en_words(&self) -> impl Iterator<Item = &str> {
        self.en.keys().map(String::as_str)
    }

    fn one(&self, word: &str) -> Option<f64> {
        let listed = |table: &FxHashMap<String, u16>, w: &str| table.get(w).map(|&z| f64::from(z) / 100.0);
        let table = if crate::text::is_japanese(word) {
            &self.ja
        } else {
            &self.en
        };
        if let Some(z) = listed(table, word) {
            return Some(z);
        }
        // The lists were cut at hyphens ("write-up" is "write" and "up"): a hyphenated word
        // they lack is as rare as its parts together.
        if word.contains('-') && !crate::text::is_japanese(word) {
            let parts = word.split('-').filter(|p| !p.is_empty());
            return together(parts.map(|p| listed(&self.en, p))).map(|z| z.max(0.0));
        }
        let members = crate::text::compound_members(word)?;
        let z = together(members.iter().map(|m| listed(&self.ja, m)))?;
        let parts = members.len() as f64;
        Some((z - (parts - 1.0) * PART_PENALTY.log10()).max(0.0))
    }
}

/// The Zipf frequency of words together (one in `1/f1 + 1/f2 + ...` words), from each word's;
/// `None` when one of them is unlisted, or there are none.
fn together(zipfs: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let mut inverse = 0.0;
    let mut any = false;
    for z in zipfs {
        inverse += 10f64.powf(-z?);
        any = true;
    }
    any.then(|| -inverse.log10())
}

/// How specific a word is, from 1 (rare in the language, a name, a code, a number: it names
/// a thing) down to `SPECIFICITY_FLOOR` (an everyday word: it is the asker's phrasing); `None`
/// without the lists.
pub fn specificity(word: &str) -> Option<f64> {
    let f = frequencies()?;
    Some(specificity_in(f, word))
}

/// `specificity` in given lists.
pub fn specificity_in(f: &Frequencies, word: &str) -> f64 {
    if word.chars().any(|c| c.is_ascii_digit()) {
        return 1.0;
    }
    let z = f.zipf(word);
    ((COMMON_ZIPF - z) / (COMMON_ZIPF - RARE_ZIPF)).clamp(SPECIFICITY_FLOOR, 1.0)
}

/// Lists loaded from these English and Japanese lines, as `load` reads them from files.
#[cfg(test)]
pub(crate) fn lists_of(en: &str, ja: &str) -> Frequencies {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("en.tsv"), en).unwrap();
    std::fs::write(dir.path().join("ja.tsv"), ja).unwrap();
    load(dir.path()).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lists() -> Frequencies {
        lists_of("give\t571\nsubmarine\t381\nsign\t520\noff\t580\n", "内容\t524\n")
    }

    #[test]
    fn everyday_words_are_less_specific_than_rare_ones_and_unknown_ones_are_specific() {
        let f = lists();
        let give = specificity_in(&f, "Give");
        let submarine = specificity_in(&f, "submarine");
        assert!(give < 0.2, "{give}");
        assert!(submarine > 0.7, "{submarine}");
        assert_eq!(specificity_in(&f, "salesforce"), 1.0);
        assert_eq!(specificity_in(&f, "give 1.32"), 1.0);
        // A hyphenated word the lists lack is read as its parts; one with an unlisted part is
        // a name or a term.
        assert!((specificity_in(&f, "sign-off") - specificity_in(&f, "sign off")).abs() < 1e-9);
        assert!(specificity_in(&f, "sign-off") < 0.5);
        assert_eq!(specificity_in(&f, "sign-zzqx"), 1.0);
        assert!(specificity_in(&f, "内容") < 0.4);
    }

    #[test]
    fn a_phrase_is_rarer_than_its_words() {
        let f = lists();
        let phrase = f.zipf("sign off");
        assert!(phrase < f.zipf("sign") && phrase > 4.0, "{phrase}");
        assert_eq!(f.zipf("sign nowhere"), 0.0);
    }

    #[test]
    fn a_damaged_list_is_an_error_naming_its_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("en.tsv"), "give\t571\nbroken line\n").unwrap();
        std::fs::write(dir.path().join("ja.tsv"), "").unwrap();
        let e = load(dir.path()).err().unwrap();
        assert!(e.contains("en.tsv line 2"), "{e}");
    }
}
