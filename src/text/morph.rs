//! Japanese morphology: the IPADIC dictionary (installed into the data directory by
//! `scripts/install-language-data`) read by the `vibrato` tokenizer.
//!
//! The installed form is IPADIC's own source (`lex.csv`, `matrix.def`, `char.def`, `unk.def`,
//! `left-id.def`, in UTF-8), each entry reduced to one feature, an inflected form's base form:
//! a word's part of speech is told by its left connection id, which `left-id.def` names.
//! The first process that needs it compiles it into `system.dic` beside the sources (about a
//! second) and every later one reads that. A missing, truncated or corrupt file gives a
//! status (`util::data::Status`) that says what is wrong, and text is cut into character bigrams instead.

use std::cell::RefCell;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use vibrato::{Dictionary, SystemDictionaryBuilder, Tokenizer};

use crate::util::data::Status;

/// Why a dictionary could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: {message}", path.display())]
    Format { path: PathBuf, message: String },
}

/// A loaded dictionary: the tokenizer and each left connection id's word class.
pub struct Analyser {
    tokenizer: Tokenizer,
    classes: Vec<Class>,
    /// Per left connection id, whether it is a proper noun's (名詞,固有名詞: a place, a person,
    /// an organisation).
    proper: Vec<bool>,
    /// Per left connection id, which part of a person's name it is (名詞,固有名詞,人名).
    name_parts: Vec<NamePart>,
}

/// How messages name the dictionary.
static NAMES: crate::util::data::Names = crate::util::data::Names {
    title: "Japanese morphology",
    source: "IPADIC",
    without: "Japanese text is cut into character bigrams",
    plural: false,
};

/// The analyser and whether this process compiled its dictionary, and the status.
static STATE: LazyLock<(Option<(Analyser, bool)>, Status)> = LazyLock::new(|| {
    crate::util::data::load_resource(
        &NAMES,
        "ipadic",
        &["lex.csv", "system.dic"],
        |dir| load(dir).map_err(|e| e.to_string()),
        |(_, compiled)| {
            if *compiled {
                "compiled now".into()
            } else {
                "compiled earlier".into()
            }
        },
    )
});

/// The Japanese tokenizer in use (loading it on first call).
pub fn status() -> &'static Status {
    &STATE.1
}

/// Says once per process, as a warning, that Japanese is cut into bigrams when the dictionary is
/// not installed.
pub fn notice_once() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    crate::util::data::notice_once(&ONCE, status());
}

fn analyser() -> Option<&'static Analyser> {
    STATE.0.as_ref().map(|(a, _)| a)
}

/// Whether text is analysed morphologically (else it is cut into bigrams).
pub fn available() -> bool {
    #[cfg(test)]
    if BIGRAMS_ONLY.with(std::cell::Cell::get) {
        return false;
    }
    analyser().is_some()
}

#[cfg(test)]
thread_local! {
    static BIGRAMS_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with the bigram cut on this thread, whatever is installed (tests of the fallback).
#[cfg(test)]
pub fn with_bigrams<R>(f: impl FnOnce() -> R) -> R {
    BIGRAMS_ONLY.with(|b| b.set(true));
    let r = f();
    BIGRAMS_ONLY.with(|b| b.set(false));
    r
}

/// Loads the dictionary in `dir`: the word classes from `left-id.def`, and `system.dic`,
/// compiled from the sources first when it is missing, older than `lex.csv` or unreadable.
/// Returns the analyser and whether the dictionary was compiled now.
pub fn load(dir: &Path) -> Result<(Analyser, bool), LoadError> {
    let read = read_classes(&dir.join("left-id.def"))?;
    let classes = read.iter().map(|r| r.0).collect();
    let proper = read.iter().map(|r| r.1).collect();
    let name_parts = read.iter().map(|r| r.2).collect();
    let (tokenizer, compiled) = load_tokenizer(dir)?;
    Ok((
        Analyser {
            tokenizer,
            classes,
            proper,
            name_parts,
        },
        compiled,
    ))
}

/// Each left connection id's word class, whether it is a proper noun's and which part of a
/// person's name it is, from IPADIC's `left-id.def` ("id pos,sub,sub2,sub3,...").
fn read_classes(path: &Path) -> Result<Vec<(Class, bool, NamePart)>, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut classes = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let bad = |message: String| LoadError::Format {
            path: path.to_path_buf(),
            message: format!("line {}: {message}", n + 1),
        };
        let Some((id, feature)) = line.trim().split_once(' ') else {
            if line.trim().is_empty() {
                continue;
            }
            return Err(bad("expected `id features`".into()));
        };
        let id: usize = id.parse().map_err(|_| bad(format!("`{id}` is not a connection id")))?;
        if id != classes.len() {
            return Err(bad(format!("expected id {}, found {id}", classes.len())));
        }
        let mut f = feature.split(',');
        let (pos, sub) = (f.next().unwrap_or(""), f.next().unwrap_or(""));
        let proper = pos == "名詞" && sub == "固有名詞";
        let part = match (proper, f.next(), f.next()) {
            (true, Some("人名"), Some("姓")) => NamePart::Surname,
            (true, Some("人名"), Some("名")) => NamePart::Given,
            _ => NamePart::None,
        };
        classes.push((class_of(pos, sub), proper, part));
    }
    if classes.is_empty() {
        return Err(LoadError::Format {
            path: path.to_path_buf(),
            message: "no connection ids".into(),
        });
    }
    Ok(classes)
}

fn load_tokenizer(dir: &Path) -> Result<(Tokenizer, bool), LoadError> {
    let compiled_path = dir.join("system.dic");
    let sources = dir.join("lex.csv");
    let fresh = match (modified(&compiled_path), modified(&sources)) {
        (Some(c), Some(s)) => c >= s,
        (Some(_), None) => true,
        _ => false,
    };
    if fresh {
        match read_compiled(&compiled_path) {
            Ok(dict) => return Ok((Tokenizer::new(dict), false)),
            Err(e) if !sources.exists() => return Err(e),
            Err(e) => tracing::info!("recompiling the Japanese dictionary: {e}"),
        }
    }
    let dict = compile(dir)?;
    if let Err(e) = save_compiled(&dict, &compiled_path) {
        // Not fatal: the next process compiles again.
        tracing::warn!(
            "could not save the compiled Japanese dictionary to {}: {e}",
            compiled_path.display()
        );
    }
    Ok((Tokenizer::new(dict), true))
}

/// The checksum file beside a compiled dictionary: its length and CRC-32. The dictionary's own
/// decoder trusts the lengths it reads (a damaged file can make it ask for exabytes), so a file
/// is decoded only when it is exactly what was written.
fn sum_path(compiled: &Path) -> PathBuf {
    compiled.with_extension("dic.sum")
}

fn checksum(bytes: &[u8]) -> String {
    format!("{} {:08x}", bytes.len(), crc32fast::hash(bytes))
}

fn save_compiled(dict: &Dictionary, path: &Path) -> Result<(), String> {
    let mut bytes = Vec::new();
    dict.write(&mut bytes).map_err(|e| e.to_string())?;
    // Another process may be writing too: write aside, then rename (the result is the same).
    // The checksum goes last, so a dictionary without a matching one is never read.
    let tmp = path.with_extension(format!("dic.{}.tmp", std::process::id()));
    let sum = sum_path(path);
    let sum_tmp = sum.with_extension(format!("sum.{}.tmp", std::process::id()));
    let result = std::fs::write(&tmp, &bytes)
        .and_then(|_| std::fs::rename(&tmp, path))
        .and_then(|_| std::fs::write(&sum_tmp, checksum(&bytes)))
        .and_then(|_| std::fs::rename(&sum_tmp, &sum))
        .map_err(|e| e.to_string());
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
        let _ = std::fs::remove_file(&sum_tmp);
    }
    result
}

fn modified(path: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

fn read_compiled(path: &Path) -> Result<Dictionary, LoadError> {
    // Decoding from memory is several times faster than through a reader.
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let expected = std::fs::read_to_string(sum_path(path)).unwrap_or_default();
    if expected.trim() != checksum(&bytes) {
        return Err(LoadError::Format {
            path: path.to_path_buf(),
            message: "damaged or incomplete (its checksum does not match)".into(),
        });
    }
    guarded(path, || Dictionary::read(bytes.as_slice()))
}

/// Compiles the dictionary from IPADIC's sources in `dir`.
pub fn compile(dir: &Path) -> Result<Dictionary, LoadError> {
    let open = |name: &str| {
        let path = dir.join(name);
        File::open(&path)
            .map(BufReader::new)
            .map_err(|source| LoadError::Io { path, source })
    };
    let (lex, matrix, chars, unk) = (
        open("lex.csv")?,
        open("matrix.def")?,
        open("char.def")?,
        open("unk.def")?,
    );
    guarded(dir, || SystemDictionaryBuilder::from_readers(lex, matrix, chars, unk))
}

/// Runs a dictionary reader, turning its errors and any panic on hostile input into a
/// [`LoadError`].
fn guarded(path: &Path, f: impl FnOnce() -> vibrato::errors::Result<Dictionary>) -> Result<Dictionary, LoadError> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(d)) => Ok(d),
        Ok(Err(e)) => Err(LoadError::Format {
            path: path.to_path_buf(),
            message: e.to_string(),
        }),
        Err(_) => Err(LoadError::Format {
            path: path.to_path_buf(),
            message: "the dictionary reader failed on this file".into(),
        }),
    }
}

/// A morpheme as search cares about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Morpheme {
    /// Byte range in the analysed text.
    pub start: usize,
    pub end: usize,
    pub class: Class,
    /// A proper noun (名詞,固有名詞): a place, a person, an organisation.
    pub proper: bool,
    /// Which part of a person's name it is, if any (名詞,固有名詞,人名,姓 / 名).
    pub name_part: NamePart,
    /// The dictionary (base) form for inflecting words, else the surface.
    pub base: String,
}

/// A part of a person's name, as IPADIC tags it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NamePart {
    #[default]
    None,
    /// A family name (人名,姓: 山本).
    Surname,
    /// A given name (人名,名: 由紀).
    Given,
}

/// What a morpheme is, for deciding what becomes a search term.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// A content noun (common, proper, verbal, adjectival, number): a term, and part of a compound.
    Noun,
    /// A noun suffix (率, 者, 化): part of a compound, a term on its own when written in kanji.
    Suffix,
    /// A prefix (新, 各, 再): part of a compound only.
    Prefix,
    /// An independent verb or adjective: a term by its base form.
    Word,
    /// An adverb: a term when written with kanji.
    Adverb,
    /// Particles, auxiliaries, symbols, dependent nouns and verbs, pronouns: not terms.
    Function,
}

fn class_of(pos: &str, sub: &str) -> Class {
    match (pos, sub) {
        ("名詞", "非自立" | "代名詞" | "特殊") => Class::Function,
        ("名詞", "接尾") => Class::Suffix,
        ("名詞", _) => Class::Noun,
        ("接頭詞", _) => Class::Prefix,
        ("動詞" | "形容詞", "自立") => Class::Word,
        ("副詞", _) => Class::Adverb,
        _ => Class::Function,
    }
}

thread_local! {
    static WORKER: RefCell<Option<vibrato::tokenizer::worker::Worker<'static>>> = const { RefCell::new(None) };
}

/// Whether a Japanese word is a name: IPADIC reads it as nouns, one of them a proper noun
/// (福岡, 韓国, 田中). `None` without a dictionary.
pub fn proper_noun(word: &str) -> Option<bool> {
    let m = analyse(word)?;
    Some(
        !m.is_empty()
            && m.iter().all(|m| m.class == Class::Noun || m.class == Class::Suffix)
            && m.iter().any(|m| m.proper),
    )
}

/// The morphemes of `text` (Japanese; no spaces needed), or `None` without a dictionary.
pub fn analyse(text: &str) -> Option<Vec<Morpheme>> {
    let analyser = analyser()?;
    let run = |worker: &mut vibrato::tokenizer::worker::Worker<'static>| {
        worker.reset_sentence(text);
        worker.tokenize();
        let mut out = Vec::with_capacity(worker.num_tokens());
        for t in worker.token_iter() {
            let range = t.range_byte();
            let base = t.feature();
            let id = usize::from(t.left_id());
            let class = analyser.classes.get(id).copied().unwrap_or(Class::Function);
            out.push(Morpheme {
                start: range.start,
                end: range.end,
                class,
                proper: analyser.proper.get(id).copied().unwrap_or(false),
                name_part: analyser.name_parts.get(id).copied().unwrap_or_default(),
                base: if base == "*" || base.is_empty() {
                    t.surface()
                } else {
                    base
                }
                .to_string(),
            });
        }
        out
    };
    Some(WORKER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => run(slot.get_or_insert_with(|| analyser.tokenizer.new_worker())),
        Err(_) => run(&mut analyser.tokenizer.new_worker()),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_dictionary_is_an_io_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let err = compile(dir.path()).err().expect("an error");
        assert!(matches!(err, LoadError::Io { .. }));
        assert!(err.to_string().contains("lex.csv"), "{err}");
    }

    #[test]
    fn a_corrupt_compiled_dictionary_without_sources_is_a_format_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("left-id.def"), "0 BOS/EOS,*,*\n").unwrap();
        std::fs::write(dir.path().join("system.dic"), b"VibratoTokenizer 0.5\n\x01\x02garbage").unwrap();
        std::fs::write(dir.path().join("system.dic.sum"), "31 00000000").unwrap();
        let err = load(dir.path()).err().expect("an error");
        assert!(matches!(err, LoadError::Format { .. }), "{err}");
    }

    #[test]
    fn a_truncated_lexicon_is_a_format_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("lex.csv"), "量産,1285,1285,5000,名詞,一般\n壊れ").unwrap();
        std::fs::write(dir.path().join("matrix.def"), "2 2\n0 0 1\n").unwrap();
        std::fs::write(dir.path().join("char.def"), "DEFAULT 0 1 0\n").unwrap();
        std::fs::write(dir.path().join("unk.def"), "DEFAULT,0,0,0,*\n").unwrap();
        std::fs::write(dir.path().join("left-id.def"), "0 BOS/EOS,*,*\n1 名詞,一般,*\n").unwrap();
        let err = load(dir.path()).err().expect("an error");
        assert!(matches!(err, LoadError::Format { .. }), "{err}");
    }

    #[test]
    fn a_connection_id_table_out_of_order_is_a_format_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("left-id.def");
        std::fs::write(&path, "0 BOS/EOS,*\n2 名詞,一般\n").unwrap();
        let err = read_classes(&path).unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
    }

    #[test]
    fn word_classes_follow_ipadic_parts_of_speech() {
        assert_eq!(class_of("名詞", "一般"), Class::Noun);
        assert_eq!(class_of("名詞", "サ変接続"), Class::Noun);
        assert_eq!(class_of("名詞", "接尾"), Class::Suffix);
        assert_eq!(class_of("名詞", "非自立"), Class::Function);
        assert_eq!(class_of("動詞", "自立"), Class::Word);
        assert_eq!(class_of("動詞", "非自立"), Class::Function);
        assert_eq!(class_of("助詞", "格助詞"), Class::Function);
        assert_eq!(class_of("接頭詞", "名詞接続"), Class::Prefix);
    }
}
