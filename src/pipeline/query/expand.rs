//! Synonyms and translations of a question's keywords from the lexicon, and Japanese compounds
//! split at the lexicon's words.

use crate::config::policy::Lexicon;
use crate::text;

use super::words::ANSWER_TYPE_WORDS;

/// Synonyms and translations of `keywords` (of `question`, normalised) from the lexicon's
/// groups. A keyword matches a
/// group member when their stems are equal (English) or one contains the other (Japanese,
/// two characters or more). With the Japanese dictionary, "contains" means as a word of it
/// (適格請求書 holds 請求書), never across a word boundary (一次回答 does not hold 次回); without
/// it, as characters.
pub fn expand(keywords: &[String], question: &str, lexicon: &Lexicon) -> Vec<String> {
    let stems: Vec<Vec<String>> = keywords.iter().map(|k| text::terms(k)).collect();
    // How many words each keyword has: a member of several words ("time off") meets a keyword
    // of as many, or the question that says it (`question`, normalised), not one of its words
    // ("time") that is all that is left of it once its stop words are gone.
    // Words joined by a hyphen count apart: "on-call" is two words, and "call" all that is left
    // of it once "on" is gone ("API calls" are no on-call).
    let count_words = |s: &str| {
        s.split(|c: char| c.is_whitespace() || c == '-')
            .filter(|w| !w.is_empty())
            .count()
    };
    let word_counts: Vec<usize> = keywords.iter().map(|k| count_words(k)).collect();
    let normalized: Vec<String> = keywords.iter().map(|k| text::normalize(k)).collect();
    let words = crate::text::morph::available();
    // `outer` (with its terms, when known) holds `inner`: as characters first (cheap), then as
    // one of its words.
    let holds = |outer: &str, outer_terms: Option<&Vec<String>>, inner: &str| {
        if !outer.contains(inner) {
            return false;
        }
        if !words || outer == inner {
            return true;
        }
        match outer_terms {
            Some(t) => t.iter().any(|t| t == inner),
            None => text::terms(outer).iter().any(|t| t == inner),
        }
    };
    let mut out: Vec<String> = Vec::new();
    for group in &lexicon.synonyms {
        let hit = group.iter().any(|member| {
            if member.is_ascii() {
                // Stemmed once per member, not once per keyword.
                let ms = text::terms(member);
                let n = count_words(member);
                let said = n > 1 && text::find_phrase(question, &text::normalize(member)).is_some();
                !ms.is_empty()
                    && stems
                        .iter()
                        .zip(&word_counts)
                        .any(|(ks, &kn)| *ks == ms && (kn == n || said))
            } else {
                member.chars().count() >= 2
                    && normalized
                        .iter()
                        .zip(&stems)
                        .any(|(k, ks)| holds(k, Some(ks), member) || (k.chars().count() >= 2 && holds(member, None, k)))
            }
        });
        if hit {
            for m in group {
                let already = keywords.iter().any(|k| text::normalize(k) == *m) || out.contains(m);
                if !already {
                    out.push(m.clone());
                }
            }
        }
    }
    out.truncate(16);
    out
}

/// Japanese compounds split at the lexicon's words and the answer-type words they contain
/// ("休業期間" -> "休業", "期間"; "適格請求書" -> "適格", "請求書"), so that each part is a concept
/// of its own; answer-type parts and one-character remnants are dropped.
/// The longest run of kanji or katakana read as one compound (real compounds are far shorter:
/// 量産判定会議 is six).
pub(super) const MAX_COMPOUND_CHARS: usize = 24;

pub(super) fn split_compounds(keywords: &[String], lexicon: &Lexicon) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // The words a compound is split at, once per question (a set, so a look-up costs the same
    // for any lexicon), and the longest of them in characters: no longer piece is looked up.
    let mut vocabulary: std::collections::HashSet<&str> = ANSWER_TYPE_WORDS.iter().copied().collect();
    vocabulary.extend(lexicon.synonyms.iter().flatten().map(String::as_str));
    let longest = vocabulary.iter().map(|w| w.chars().count()).max().unwrap_or(0);
    let known = |w: &str| vocabulary.contains(w);
    fn pieces<'a>(w: &'a str, known: &dyn Fn(&str) -> bool, longest: usize, out: &mut Vec<&'a str>) {
        let chars: Vec<(usize, char)> = w.char_indices().collect();
        let n = chars.len();
        let end_of = |i: usize| chars.get(i).map_or(w.len(), |c| c.0);
        // The longest known word inside, leftmost first.
        for len in (2..n.min(longest + 1)).rev() {
            for start in 0..=n - len {
                let sub = &w[chars[start].0..end_of(start + len)];
                if known(sub) {
                    pieces(&w[..chars[start].0], known, longest, out);
                    out.push(sub);
                    pieces(&w[end_of(start + len)..], known, longest, out);
                    return;
                }
            }
        }
        if n >= 2 {
            out.push(w);
        }
    }
    for k in keywords {
        let nk = text::normalize(k);
        if k.is_ascii() || nk.chars().count() < 3 {
            out.push(k.clone());
            continue;
        }
        let mut parts = Vec::new();
        if known(&nk) {
            parts.push(nk.as_str());
        } else {
            // A run longer than any real compound (a pasted paragraph, an attack) is split
            // into compound-sized chunks first, so the work stays linear in its length.
            let bounds: Vec<usize> = nk
                .char_indices()
                .map(|(i, _)| i)
                .step_by(MAX_COMPOUND_CHARS)
                .chain(std::iter::once(nk.len()))
                .collect();
            for w in bounds.windows(2) {
                pieces(&nk[w[0]..w[1]], &known, longest, &mut parts);
            }
        }
        let kept: Vec<&str> = parts
            .iter()
            .copied()
            .filter(|p| !ANSWER_TYPE_WORDS.contains(p))
            .collect();
        if kept.is_empty() {
            out.push(k.clone());
        }
        for p in kept {
            if !out.iter().any(|o| o == p) {
                out.push(p.to_string());
            }
        }
    }
    out
}
