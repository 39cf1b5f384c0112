//! Misspelt English words of a question, put right from the English word list of `wordfreq`
//! (the one `text::wordfreq` loads): a lower-case word the list lacks, one edit (a letter
//! dropped, added or changed, or two neighbours swapped) from words it has, is read as the most
//! frequent of them ("migraton" -> "migration", "holidya" -> "holiday").
//!
//! A word is known, and left alone, when the list has it, or a word of the same stem
//! ("pooling" for "pool"), or when JMdict has it as an English gloss ("terse"): the list holds
//! only words of Zipf 3 and up, and a rarer word one letter from a common one is not a slip.
//!
//! A keyword search finds nothing for a misspelt word, the dictionary has no translation of it
//! and the encoder reads it as noise: correcting it before the question is read helps every
//! later stage. What is corrected is kept as it was asked too (`Correction`), so that a word
//! the list happens to lack but the sources have (a product's name) still matches.

use rustc_hash::FxHashSet;

use crate::text::wordfreq::{self, Frequencies};

/// Words shorter than this are not corrected: one letter off, a short word is as often another
/// word as a slip ("form"/"from").
const MIN_LEN: usize = 5;
/// Nor are words longer than this (a code or a hash, not a word).
const MAX_LEN: usize = 24;
/// A word is read as another only as common as this (Zipf 3.5, times 100): slips are made in
/// common words, and the rarer words one letter away from an unlisted one are as often names
/// ("haruto" is no "naruto") or other rare words ("reorg" no "georg").
const MIN_TARGET_ZIPF: u16 = 350;

/// A word of the question read as another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Correction {
    /// As asked ("holidya").
    pub asked: String,
    /// As read ("holiday").
    pub read: String,
}

/// The question with its misspelt words corrected, and the corrections; `None` when nothing
/// was (or the word list is not installed).
pub fn check(question: &str) -> Option<(String, Vec<Correction>)> {
    let f = wordfreq::frequencies()?;
    let stems = STEMS.get_or_init(|| stems_of(f));
    let dictionary = crate::text::jmdict::dictionary();
    let known =
        |w: &str| stems.contains(&crate::text::stem(w)) || dictionary.is_some_and(|d| !d.to_japanese(w).is_empty());
    check_in(f, &known, question)
}

/// The stems of the list's English words, made once.
static STEMS: std::sync::OnceLock<FxHashSet<String>> = std::sync::OnceLock::new();

fn stems_of(f: &Frequencies) -> FxHashSet<String> {
    f.en_words().map(crate::text::stem).collect()
}

/// `check` against given lists; `known`: whether a word the list lacks is a word all the same.
pub fn check_in(f: &Frequencies, known: &dyn Fn(&str) -> bool, question: &str) -> Option<(String, Vec<Correction>)> {
    let mut out = String::with_capacity(question.len());
    let mut fixes: Vec<Correction> = Vec::new();
    let mut last = 0;
    let mut quoted = false;
    let mut prev: Option<char> = None;
    let mut chars = question.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if matches!(c, '"' | '“' | '”' | '「' | '」') {
            quoted = !quoted;
        }
        if !c.is_ascii_alphabetic() || prev.is_some_and(latin_like) {
            prev = Some(c);
            continue;
        }
        // A run of Latin letters starting here.
        let mut end = i + c.len_utf8();
        while let Some(&(j, d)) = chars.peek() {
            if !d.is_ascii_alphabetic() {
                break;
            }
            end = j + d.len_utf8();
            chars.next();
        }
        let next = question[end..].chars().next();
        let word = &question[i..end];
        prev = word.chars().last();
        // Part of something written on purpose: a quoted phrase, a filter (`in:`), a
        // `#channel` or `@user`, a code (`KR-500`), a path, an address, a contraction.
        let attached = |ch: Option<char>| {
            ch.is_some_and(|ch| latin_like(ch) || matches!(ch, '#' | '@' | ':' | '-' | '_' | '/' | '.' | '\'' | '’'))
        };
        let before = question[..i].chars().next_back();
        let sentence_start = question[..i].trim().is_empty();
        let ends_sentence = next == Some('.') && question[end + 1..].chars().next().is_none_or(char::is_whitespace);
        if quoted || attached(before) || (attached(next) && !ends_sentence) {
            continue;
        }
        // A capital inside a sentence names something; only the question's first word may
        // have one.
        let lower = word.to_ascii_lowercase();
        let capitalised = word.chars().skip(1).any(|ch| ch.is_ascii_uppercase())
            || (!sentence_start && word.starts_with(|ch: char| ch.is_ascii_uppercase()));
        if capitalised {
            continue;
        }
        if let Some(read) = correction(f, &lower).filter(|_| !known(&lower)) {
            out.push_str(&question[last..i]);
            out.push_str(&read);
            last = end;
            fixes.push(Correction {
                asked: word.to_string(),
                read,
            });
        }
    }
    if fixes.is_empty() {
        return None;
    }
    out.push_str(&question[last..]);
    Some((out, fixes))
}

/// British and American endings of one word, each with the least letters before it for the
/// rule to apply ("flour" is no "flor", "prise" no "prize"): colour/color, summarise/summarize,
/// analyse/analyze, centre/center, catalogue/catalog, licence/license, travelled/traveled.
const SPELLINGS: &[(&str, &str, usize)] = &[
    ("our", "or", 3),
    ("ours", "ors", 3),
    ("oured", "ored", 3),
    ("ouring", "oring", 3),
    ("ourite", "orite", 3),
    ("ise", "ize", 4),
    ("ised", "ized", 4),
    ("ises", "izes", 4),
    ("ising", "izing", 4),
    ("isation", "ization", 3),
    ("isations", "izations", 3),
    ("yse", "yze", 3),
    ("ysed", "yzed", 3),
    ("ysing", "yzing", 3),
    ("tre", "ter", 3),
    ("tres", "ters", 3),
    ("ogue", "og", 3),
    ("ogues", "ogs", 3),
    ("ence", "ense", 3),
    ("lled", "led", 4),
    ("lling", "ling", 4),
];

/// The other spelling (British or American) of an English word, when the word list has it: a
/// source may write "color" where the question asks for "colours".
pub fn variant(word: &str) -> Option<String> {
    variant_in(wordfreq::frequencies()?, word)
}

/// `variant` against given lists.
pub fn variant_in(f: &Frequencies, word: &str) -> Option<String> {
    if !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    SPELLINGS.iter().find_map(|&(uk, us, base)| {
        [(uk, us), (us, uk)].into_iter().find_map(|(from, to)| {
            let stem = word.strip_suffix(from)?;
            let other = format!("{stem}{to}");
            (stem.len() >= base && f.en_zipf(&other).is_some()).then_some(other)
        })
    })
}

/// A letter or digit of an alphabet (not Japanese script, which writes particles directly
/// after a Latin word: "holidayの日程").
fn latin_like(c: char) -> bool {
    c.is_alphanumeric() && u32::from(c) < 0x2E80
}

/// The most frequent listed word one edit from `word` (lower-case ASCII letters), when the list
/// lacks `word` itself.
fn correction(f: &Frequencies, word: &str) -> Option<String> {
    if !(MIN_LEN..=MAX_LEN).contains(&word.len()) || f.en_zipf(word).is_some() {
        return None;
    }
    let b = word.as_bytes();
    let mut best: Option<(u16, Vec<u8>)> = None;
    let mut consider = |cand: Vec<u8>| {
        if cand.len() + 1 < MIN_LEN {
            return;
        }
        let Ok(s) = std::str::from_utf8(&cand) else { return };
        if let Some(z) = f.en_zipf(s).filter(|z| *z >= MIN_TARGET_ZIPF)
            && best.as_ref().is_none_or(|(bz, bw)| z > *bz || (z == *bz && cand < *bw))
        {
            best = Some((z, cand));
        }
    };
    for i in 0..b.len() {
        let mut c = b.to_vec();
        c.remove(i);
        consider(c);
    }
    for i in 0..b.len() - 1 {
        let mut c = b.to_vec();
        c.swap(i, i + 1);
        consider(c);
    }
    for i in 0..=b.len() {
        for l in b'a'..=b'z' {
            if i < b.len() && b[i] != l {
                let mut c = b.to_vec();
                c[i] = l;
                consider(c);
            }
            let mut c = b.to_vec();
            c.insert(i, l);
            consider(c);
        }
    }
    best.map(|(_, w)| String::from_utf8(w).unwrap_or_default())
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lists() -> Frequencies {
        wordfreq::lists_of(
            "holiday\t466\nholidays\t422\nmigration\t414\nretain\t416\nclosure\t420\noath\t390\nform\t560\nfrom\t700\npool\t450\ncooling\t400\nverse\t420\nnaruto\t348\n",
            "",
        )
    }

    fn check(q: &str) -> Option<String> {
        let f = lists();
        let stems = stems_of(&f);
        check_in(&f, &|w| stems.contains(&crate::text::stem(w)) || w == "terse", q).map(|(t, _)| t)
    }

    #[test]
    fn a_word_one_edit_from_a_listed_one_is_read_as_it() {
        let f = lists();
        let (text, fixes) = check_in(&f, &|_| false, "what are the dates of the holidya closure?").unwrap();
        assert_eq!(text, "what are the dates of the holiday closure?");
        assert_eq!(
            fixes,
            [Correction {
                asked: "holidya".into(),
                read: "holiday".into()
            }]
        );
        // dropped, swapped, changed and added letters
        assert_eq!(check("the migraton plan").as_deref(), Some("the migration plan"));
        assert_eq!(
            check("how long do we retian it").as_deref(),
            Some("how long do we retain it")
        );
        assert_eq!(check("the holodays").as_deref(), Some("the holidays"));
        assert_eq!(
            check("Holidya dates").as_deref(),
            Some("holiday dates"),
            "the first word may be capitalised"
        );
        assert_eq!(check("the migrationn.").as_deref(), Some("the migration."));
    }

    #[test]
    fn british_and_american_spellings_find_each_other_where_the_list_has_both() {
        let f = wordfreq::lists_of(
            "color\t491\ncolours\t415\nsummarize\t323\ncenter\t519\ncatalogue\t391\nfor\t701\nfiled\t420\nprize\t440\n",
            "",
        );
        assert_eq!(variant_in(&f, "colour").as_deref(), Some("color"));
        assert_eq!(variant_in(&f, "colors").as_deref(), Some("colours"));
        assert_eq!(variant_in(&f, "summarise").as_deref(), Some("summarize"));
        assert_eq!(variant_in(&f, "centre").as_deref(), Some("center"));
        assert_eq!(variant_in(&f, "catalog").as_deref(), Some("catalogue"));
        // Too few letters before the ending, or no such word in the list.
        for w in ["four", "filled", "prise", "colourful", "Colour"] {
            assert_eq!(variant_in(&f, w), None, "{w}");
        }
    }

    #[test]
    fn names_codes_filters_and_quotes_are_left_as_written() {
        assert_eq!(
            check("what is Holidya doing"),
            None,
            "a capital inside a sentence names something"
        );
        assert_eq!(check("in:holidya closure"), None);
        assert_eq!(check("#holidya and @holidya"), None);
        assert_eq!(check("the holidya-2 build"), None);
        assert_eq!(check("search \"holidya\" please"), None);
        assert_eq!(check("see docs/holidya.md"), None);
        // Listed words, short words and words far from any listed one stay.
        assert_eq!(check("the holiday closure"), None);
        assert_eq!(check("the frm form"), None);
        assert_eq!(check("ask kubernetes"), None);
        // A rare word one letter away is no reading: it is as often a name.
        assert_eq!(check("what did haruto say"), None);
        // A word of a listed word's stem, or one the dictionary knows, is no slip.
        assert_eq!(
            check("the pooling rules"),
            None,
            "pooling is pool's, not a slip of cooling"
        );
        assert_eq!(check("a terse reply"), None);
        // Japanese text around Latin words is no obstacle.
        assert_eq!(check("holidyaの日程").as_deref(), Some("holidayの日程"));
        assert_eq!(check("holidyaé"), None, "attached to other letters");
    }
}
