//! Japanese synonyms from the Sudachi synonym dictionary (Works Applications, Apache-2.0), as
//! the sorted table `sudachi/synonyms.tsv` that `scripts/install-language-data` builds in the
//! data directory (its format and scores: `scripts/language_data.py`, `sudachi`).
//!
//! A Japanese question word and the evidence that answers it are often two words for one thing
//! (締め切り and 期日, 会議 and 打ち合わせ, 申請 and 届け出): the dictionary's groups say which,
//! as people who write Japanese dictionaries decided, not as someone tuning a question set did.
//! Each member of a word's groups comes with a score: another writing of the same lexeme (締切,
//! ミーティング and "meeting" for one another) nearly counts as the word, another lexeme of the
//! group as a synonym. A word the dictionary flags as never opening an expansion (one with
//! senses outside the group) has no entry, though other words may expand to it.
//!
//! Loading reads the file and notes where each line starts; a word is found by binary search.

use std::path::Path;
use std::sync::LazyLock;

use crate::text::table::Table;
use crate::util::data::Status;

/// The loaded dictionary.
pub struct Synonyms {
    table: Table,
}

static NAMES: crate::util::data::Names = crate::util::data::Names {
    title: "Japanese synonyms",
    source: "the Sudachi synonym dictionary",
    without: "a Japanese question word finds only its own writing and its translations' synonyms",
    plural: true,
};

static STATE: LazyLock<(Option<Synonyms>, Status)> = LazyLock::new(|| {
    crate::util::data::load_resource(&NAMES, "sudachi", &["synonyms.tsv"], load, |s| {
        format!("{} Japanese words", s.table.len())
    })
});

/// The dictionary's status (loading it on first call).
pub fn status() -> &'static Status {
    &STATE.1
}

/// Says once per process, as a warning, that the dictionary is not installed.
pub fn notice_once() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    crate::util::data::notice_once(&ONCE, status());
}

/// The dictionary, when installed and readable (loading it on first call).
pub fn synonyms() -> Option<&'static Synonyms> {
    STATE.0.as_ref()
}

/// Reads `synonyms.tsv` in `dir`. A malformed line is an error naming it: a damaged file is
/// reported, not half used.
pub fn load(dir: &Path) -> Result<Synonyms, String> {
    Ok(Synonyms {
        table: Table::read(&dir.join("synonyms.tsv"), 64 << 20)?,
    })
}

impl Synonyms {
    /// Builds the dictionary from the text of a `synonyms.tsv` (tests).
    pub fn from_text(text: &str) -> Result<Synonyms, String> {
        Ok(Synonyms {
            table: Table::new(text.to_string())?,
        })
    }

    /// The other members of a Japanese word's synonym groups, each with its score (at most 1),
    /// best first; none for a word that is not Japanese or that the dictionary does not have.
    pub fn of(&self, word: &str) -> Vec<(f64, &str)> {
        if !crate::text::is_japanese(word) {
            return Vec::new();
        }
        self.table.get(&crate::text::normalize(word))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_finds_its_group_and_nothing_else_does() {
        let s =
            Synonyms::from_text("会議\t0.600:打ち合わせ\t0.600:meeting\n締切\t0.900:締め切り\t0.600:期日\n").unwrap();
        assert_eq!(s.of("会議"), vec![(0.6, "打ち合わせ"), (0.6, "meeting")]);
        assert_eq!(s.of("締切")[0], (0.9, "締め切り"));
        assert!(s.of("予算").is_empty());
        // English words are JMdict's to translate, not this dictionary's.
        assert!(s.of("meeting").is_empty());
        // A damaged table is refused, not half read.
        assert!(Synonyms::from_text("b\t0.6:x\na\t0.6:y\n").is_err());
        assert!(Synonyms::from_text("会議\t打ち合わせ\n").is_err());
    }
}
