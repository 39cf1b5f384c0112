//! People's names that a text writes in Latin letters ("Jan 1: David Kim", "Above 20%: CFO
//! (Tom Becker)"), for a "who" question whose answer names someone the sources do not list as an
//! author or assignee. A name is read from its shape: two or three capitalised words side by
//! side, the last of which (the family name, in the order English text writes names) is no
//! English word: WordNet does not have it, or has it only as a name ("Yamamoto"). A title ("Year-end Support Rotation"), a product and its
//! part ("Figma Library") end in a word WordNet knows; a family name that is also an English
//! word ("Smith", "King") is missed, a name in the other order ("Ito Sakura") is found.
//! Without WordNet nothing is read.

/// Names of two or three words, at most: a longer run of capitalised words is a title.
const MAX_WORDS: usize = 3;

/// Whether `word` is one capitalised word: an upper-case letter, then lower-case letters, with
/// an apostrophe or a hyphen before a capital inside ("O'Brien", "Jean-Luc").
fn capitalised(word: &str) -> bool {
    let mut chars = word.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    if !first.is_uppercase() || !first.is_alphabetic() {
        return false;
    }
    let mut prev = first;
    let mut letters = 1;
    for c in chars {
        let ok = if prev == '\'' || prev == '-' {
            c.is_uppercase()
        } else {
            c.is_lowercase() || ((c == '\'' || c == '-') && prev.is_alphabetic())
        };
        if !ok {
            return false;
        }
        letters += usize::from(c.is_alphabetic());
        prev = c;
    }
    letters >= 2 && prev.is_alphabetic()
}

/// The names `text` writes, each once, in the order they first occur.
pub fn latin_names(text: &str) -> Vec<String> {
    let Some(wordnet) = crate::text::wordnet::wordnet() else {
        return Vec::new();
    };
    // An English word, not a name that WordNet has ("Yamamoto", "David").
    let word = |w: &str| wordnet.english_word(&w.to_lowercase());
    let mut out: Vec<String> = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    let mut flush = |run: &mut Vec<&str>| {
        let mut words: &[&str] = run;
        // A sentence's first word is capitalised whatever it is: "Ask Sakura Ito", "Thanks
        // David Kim".
        if words.len() == MAX_WORDS && word(words[0]) {
            words = &words[1..];
        }
        // A longer run is a title.
        let name = (2..=MAX_WORDS).contains(&words.len()) && words.last().is_some_and(|last| !word(last));
        if name {
            let joined = words.join(" ");
            if !out.contains(&joined) {
                out.push(joined);
            }
        }
        run.clear();
    };
    const OPEN: &[char] = &['(', '[', '"', '\u{201c}', '\u{2018}', '\'', '*', '_', '@'];
    const CLOSE: &[char] = &[
        ')', ']', '"', '\u{201d}', '\u{2019}', '\'', '*', '_', ',', '.', ';', ':', '!', '?', '|',
    ];
    for chunk in text.split(|c: char| c.is_whitespace() || c == '|' || c == '/') {
        let opened = chunk.trim_start_matches(OPEN);
        if opened.len() != chunk.len() {
            flush(&mut run);
        }
        let word = opened.trim_end_matches(CLOSE);
        // A possessive closes the name it ends ("David Kim's rota").
        let (word, possessive) = match word.strip_suffix("'s").or_else(|| word.strip_suffix("\u{2019}s")) {
            Some(w) => (w, true),
            None => (word, false),
        };
        // A function word is no part of a name, capitalised or not ("Summary From 06:31": a
        // heading, then a sentence).
        if capitalised(word) && !crate::text::is_stop_word(&word.to_lowercase()) {
            run.push(word);
        } else {
            flush(&mut run);
        }
        if possessive || word.len() != opened.len() {
            flush(&mut run);
        }
    }
    flush(&mut run);
    out
}

/// Honorifics written after a family name alone (山本さん): the name of someone.
const HONORIFICS: &[&str] = &["さん", "様", "さま", "氏", "くん", "君", "先生"];

/// The people's names a Japanese text writes, each once, in the order they first occur: a
/// family name and the given name after it (渡辺健二, 山本 由紀: written "渡辺 健二"), or a
/// family name alone before an honorific (山本さん: "山本"), as IPADIC tags them (人名). Without
/// the dictionary nothing is read.
pub fn japanese_names(text: &str) -> Vec<String> {
    // Kana or kanji: the dictionary has nothing else to tag.
    if !text
        .chars()
        .any(|c| matches!(c, '\u{3040}'..='\u{30ff}' | '\u{4e00}'..='\u{9fff}'))
    {
        return Vec::new();
    }
    let Some(morphemes) = crate::text::morph::analyse(text) else {
        return Vec::new();
    };
    use crate::text::morph::NamePart;
    let mut out: Vec<String> = Vec::new();
    for (i, m) in morphemes.iter().enumerate() {
        if m.name_part != NamePart::Surname {
            continue;
        }
        let surname = &text[m.start..m.end];
        let next = morphemes.get(i + 1);
        // The given name follows directly or after one space.
        let name = match next {
            Some(g) if g.name_part == NamePart::Given && text[m.end..g.start].trim().is_empty() => {
                format!("{surname} {}", &text[g.start..g.end])
            }
            // An honorific, or a morpheme an honorific begins (「山本さん」 may be read so).
            Some(h) if HONORIFICS.iter().any(|x| text[h.start..h.end].starts_with(x)) => surname.to_string(),
            _ => continue,
        };
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capitalised_words() {
        assert!(capitalised("David"));
        assert!(capitalised("O'Brien"));
        assert!(capitalised("Jean-Luc"));
        assert!(!capitalised("CFO"));
        assert!(!capitalised("iPhone"));
        assert!(!capitalised("A"));
        assert!(!capitalised("Kubernetes1"));
        assert!(!capitalised("Jean-"));
    }

    #[test]
    fn names_are_read_from_their_shape() {
        if crate::text::wordnet::wordnet().is_none() {
            eprintln!("SKIPPED: no WordNet in the data directory");
            return;
        }
        assert_eq!(latin_names("Jan 1 David Kim"), ["David Kim"]);
        assert_eq!(
            latin_names("Up to 20%: sales lead. Above 20%: CFO (Tom Becker)."),
            ["Tom Becker"]
        );
        assert_eq!(
            latin_names("Ask Sakura Ito, or Haruto Suzuki's team."),
            ["Sakura Ito", "Haruto Suzuki"]
        );
        if crate::text::wordnet::wordnet().is_some_and(|w| w.only_a_name("yamamoto")) {
            // A family name WordNet has as a name only (names.tsv).
            assert_eq!(latin_names("Dec 30–31 Yuki Yamamoto"), ["Yuki Yamamoto"]);
        }
        // Titles and a product with its part end in an English word.
        assert!(latin_names("Year-end Support Rotation (Dec 27 – Jan 4)").is_empty());
        assert!(latin_names("Components live in the Figma Library.").is_empty());
        // A run longer than a name is a title; one word is no name.
        assert!(latin_names("The Quarterly Business Review Kickoff Agenda").is_empty());
        assert!(latin_names("Thanks Kim!").is_empty());
        // A function word is no part of a name: a heading, then a sentence.
        assert!(latin_names("Summary From 06:31 to 07:22 UTC").is_empty());
    }

    #[test]
    fn japanese_names_are_read_as_the_dictionary_tags_them() {
        if crate::text::morph::analyse("山本").is_none() {
            eprintln!("SKIPPED: no IPADIC in the data directory");
            return;
        }
        // Written for this test.
        assert_eq!(japanese_names("月曜の当番は渡辺健二です。"), ["渡辺 健二"]);
        assert_eq!(japanese_names("詳しくは山本さんに聞いてください。"), ["山本"]);
        assert!(japanese_names("東京の新しいオフィスに移ります。").is_empty());
        assert!(latin_names("no Japanese here").is_empty());
    }
}
