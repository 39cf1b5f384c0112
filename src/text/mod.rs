//! Text analysis shared by every index and scorer: one tokenizer for English and Japanese, so
//! that a query and the evidence it is matched against are always cut the same way.
//!
//! English runs are lower-cased, stop words dropped and Snowball-stemmed. Japanese has no
//! spaces, and no dictionary can be downloaded at build time, so CJK text is cut at script
//! boundaries (kanji, katakana, hiragana) and kanji/katakana runs become overlapping character
//! bigrams (a lone kanji stays a unigram). Hiragana runs are mostly particles and inflections
//! (を, について, ました) and are dropped unless the whole text is hiragana.

pub mod encoder;
pub mod index;
pub mod jmdict;
pub mod morph;
pub mod names;
pub mod spell;
pub mod sudachi;
pub mod synonyms;
pub mod table;
pub mod values;
pub mod wordfreq;
pub mod wordnet;

use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::UnicodeNormalization;

/// A token and the byte span of the text it came from (for snippets and highlighting).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub text: String,
    pub start: usize,
    pub end: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Script {
    Word,
    Han,
    Katakana,
    Hiragana,
    Other,
}

fn script(c: char) -> Script {
    if c.is_ascii() {
        return if c.is_ascii_alphanumeric() {
            Script::Word
        } else {
            Script::Other
        };
    }
    match c {
        '\u{3040}'..='\u{309F}' => Script::Hiragana,
        '\u{30A0}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' | '\u{FF66}'..='\u{FF9F}' => Script::Katakana,
        '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}' | '\u{F900}'..='\u{FAFF}' | '々' => Script::Han,
        c if c.is_alphanumeric() => Script::Word,
        _ => Script::Other,
    }
}

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// English words that carry no meaning for search. Question words are here too: "when did we
/// decide" should match on "decide", not on "when".
const EN_STOP: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "am", "an", "and", "any", "are", "as", "at", "be", "been",
    "before", "being", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "for", "from", "had", "has",
    "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its",
    "itself", "just", "me", "my", "no", "nor", "of", "off", "on", "once", "or", "our", "ours", "out", "over", "she",
    "should", "so", "some", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this",
    "those", "to", "too", "under", "until", "up", "us", "very", "was", "we", "were", "what", "when", "where", "which",
    "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "s", "t", "let", "lets", "tell",
    "know", "anyone", "anything", "please", "thanks", "hi", "hey", "ok", "okay", "re", "ll", "ve", "d", "m",
];

/// Japanese kanji tokens that are question or filler words, not content.
const JA_STOP: &[&str] = &["何", "誰", "件", "方", "時", "事", "今", "私", "等"];

static STOP: LazyLock<rustc_hash::FxHashSet<&'static str>> =
    LazyLock::new(|| EN_STOP.iter().chain(JA_STOP.iter()).copied().collect());

/// Whether `word` (already lower-cased) is an English stop word.
pub fn is_stop_word(word: &str) -> bool {
    STOP.contains(word)
}

/// Normalises text for matching: NFKC (full-width Latin and digits become ASCII, half-width
/// katakana becomes full-width) and lower case.
pub fn normalize(text: &str) -> String {
    if text.is_ascii() {
        // NFKC leaves ASCII as it is.
        return text.to_ascii_lowercase();
    }
    // Most text is ASCII and common Japanese (kana, CJK ideographs, 、。・ー), which NFKC
    // leaves as it is and which has no case: one pass, no table lookups.
    let plain = |c: char| {
        c.is_ascii()
            || matches!(c, '\u{3001}'..='\u{3002}' | '\u{3041}'..='\u{3096}' | '\u{30A1}'..='\u{30FC}' | '\u{4E00}'..='\u{9FFF}')
    };
    if text.chars().all(plain) {
        // Bytes of multi-byte characters are never ASCII: lower-casing bytes is safe.
        return text.to_ascii_lowercase();
    }
    if unicode_normalization::is_nfkc_quick(text.chars()) == unicode_normalization::IsNormalized::Yes {
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            if c.is_ascii() {
                out.push(c.to_ascii_lowercase());
            } else if ('\u{3000}'..='\u{9FFF}').contains(&c) {
                // Japanese scripts have no case.
                out.push(c);
            } else {
                out.extend(c.to_lowercase());
            }
        }
        return out;
    }
    text.nfkc().collect::<String>().to_lowercase()
}

/// Word -> its stem, or `None` for a stop word: one lookup answers both. hashbrown's
/// `entry_ref` finds or fills an entry and copies the word only when it is new.
type StemCache = hashbrown::HashMap<String, Option<String>, rustc_hash::FxBuildHasher>;

thread_local! {
    /// Stems of words seen on this thread: ranking tokenizes the same vocabulary over and over.
    static STEMS: std::cell::RefCell<StemCache> = Default::default();
}

/// The stem of `word` (lower-case ASCII letters), from `cache` or computed into it.
/// The stem of `word` (lower-case ASCII letters), `None` for a stop word, from `cache` or
/// computed into it.
fn stem_in<'c>(cache: &'c mut StemCache, word: &str) -> Option<&'c str> {
    if cache.len() > 200_000 && !cache.contains_key(word) {
        cache.clear();
    }
    cache
        .entry_ref(word)
        .or_insert_with(|| (!is_stop_word(word)).then(|| STEMMER.stem(word).into_owned()))
        .as_deref()
}

/// Stems one lower-case English word.
pub fn stem(word: &str) -> String {
    STEMS.with(|c| match c.try_borrow_mut() {
        Ok(mut cache) => match stem_in(&mut cache, word) {
            Some(s) => s.to_string(),
            None => STEMMER.stem(word).into_owned(),
        },
        Err(_) => STEMMER.stem(word).into_owned(),
    })
}

/// Cuts `text` into search tokens (see the module docs). Offsets refer to the normalised text,
/// which for ASCII and ordinary Japanese equals the input.
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut out = Vec::with_capacity(text.len() / 5);
    for_each_token(text, |t, start, end| {
        out.push(Token {
            text: t.to_string(),
            start,
            end,
        })
    });
    out
}

/// Calls `f(token, start, end)` for each token of `text`, in order, without allocating a string
/// per token: the cut of `tokenize`, for hot loops (ranking, shingles).
///
/// Returns the text's shape (its length and language), measured on the way.
pub fn for_each_token(text: &str, mut f: impl FnMut(&str, usize, usize)) -> Shape {
    let norm = normalize(text);
    STEMS.with(|c| match c.try_borrow_mut() {
        Ok(mut cache) => cut(&norm, &mut cache, &mut f),
        // `f` itself tokenizes: it gets a cache of its own.
        Err(_) => cut(&norm, &mut Default::default(), &mut f),
    })
}

/// What tokenizing learns of a text besides its tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Shape {
    /// Characters of the normalised text.
    pub chars: usize,
    /// Whether it is mostly Japanese (as `is_japanese`).
    pub japanese: bool,
}

fn cut(norm: &str, stems: &mut StemCache, f: &mut impl FnMut(&str, usize, usize)) -> Shape {
    if norm.is_ascii() {
        cut_ascii(norm, 0, norm.len(), stems, f);
        return Shape {
            chars: norm.len(),
            japanese: false,
        };
    }
    // Text with some Japanese or accented letters in it is still mostly ASCII words between
    // spaces. No run crosses whitespace, so the text is cut piece by piece between whitespace:
    // an all-ASCII piece bytewise (`cut_ascii`), any other character by character (`Mixed`).
    // The tokens are the same as cutting the whole text character by character.
    let mut mixed = Mixed::new();
    let b = norm.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if is_ascii_space(b[i]) {
            mixed.chars += 1;
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && !is_ascii_space(b[i]) {
            i += 1;
        }
        let piece = &b[start..i];
        if piece.is_ascii() {
            mixed.all_hiragana = false;
            mixed.chars += piece.len();
            mixed.letters.all += piece.iter().filter(|c| c.is_ascii_alphanumeric()).count();
            cut_ascii(norm, start, i, stems, f);
        } else {
            mixed.cut(norm, start, i, stems, f);
        }
    }
    mixed.finish(norm, stems, f)
}

/// The ASCII characters `char::is_whitespace` holds to be whitespace.
fn is_ascii_space(c: u8) -> bool {
    matches!(c, b'\t'..=b'\r' | b' ')
}

/// Cutting text of any script character by character, a piece at a time (`cut`).
struct Mixed {
    /// Whether a Japanese dictionary is installed (`morph::available`).
    morph: bool,
    chars: usize,
    letters: Letters,
    /// Hiragana runs count only when the whole text is hiragana; until another script shows
    /// up, they wait here (such a text has no other runs, so the order is kept).
    all_hiragana: bool,
    waiting: Vec<(usize, usize)>,
}

impl Mixed {
    fn new() -> Self {
        Mixed {
            morph: morph::available(),
            chars: 0,
            letters: Letters::default(),
            all_hiragana: true,
            waiting: Vec::new(),
        }
    }

    /// Cuts `norm[from..to]`, a piece that whitespace (or the text's ends) bounds.
    fn cut(
        &mut self,
        norm: &str,
        from: usize,
        to: usize,
        stems: &mut StemCache,
        f: &mut impl FnMut(&str, usize, usize),
    ) {
        // With a dictionary, a Japanese stretch (kanji, kana, mixed) is analysed as one piece:
        // particles and inflections are told apart by their part of speech, not their script.
        let morph = self.morph;
        let run_of = |s: Script| match s {
            Script::Katakana | Script::Hiragana if morph => Script::Han,
            s => s,
        };
        let mut run_start = from;
        let mut run_script = Script::Other;
        let mut it = norm[from..to].char_indices().map(|(p, c)| (from + p, c)).peekable();
        loop {
            let cur = it.next();
            let (pos, s) = match cur {
                Some((p, c)) => {
                    let s = script(c);
                    self.all_hiragana &= s == Script::Hiragana || c.is_whitespace();
                    self.chars += 1;
                    self.letters.add(s);
                    (p, run_of(s))
                }
                None => (to, Script::Other),
            };
            // Apostrophes inside English words ("don't") do not split a word, nor a thousands
            // separator a number ("1,000", as `digit_group`).
            let joins_word = run_script == Script::Word
                && (matches!(cur, Some((_, '\'' | '’')))
                    && matches!(it.peek(), Some((_, c)) if script(*c) == Script::Word)
                    || matches!(cur, Some((p, ',')) if {
                        let b = norm.as_bytes();
                        let digits = b[run_start..p].iter().rev().take_while(|c| c.is_ascii_digit()).count();
                        digits > 0
                            && (digits <= 3 || b[p - 4] == b',')
                            && b[run_start..p].iter().all(|c| c.is_ascii_digit() || *c == b',')
                            && digit_group(b, p).is_some()
                    }));
            if s != run_script && !joins_word {
                if run_script == Script::Hiragana {
                    if self.all_hiragana {
                        self.waiting.push((run_start, pos));
                    }
                } else if morph && run_script == Script::Han {
                    emit_morphemes(&norm[run_start..pos], run_start, stems, f);
                } else if run_script != Script::Other {
                    emit_run(&norm[run_start..pos], run_start, run_script, stems, f);
                }
                run_start = pos;
                run_script = s;
            }
            if cur.is_none() {
                break;
            }
        }
    }

    /// The hiragana runs of an all-hiragana text, and the text's shape.
    fn finish(self, norm: &str, stems: &mut StemCache, f: &mut impl FnMut(&str, usize, usize)) -> Shape {
        if self.all_hiragana && !self.morph {
            for (s, e) in self.waiting {
                emit_run(&norm[s..e], s, Script::Hiragana, stems, f);
            }
        }
        Shape {
            chars: self.chars,
            japanese: self.letters.japanese(),
        }
    }
}

/// The same cut for ASCII text (most English), without decoding characters: `norm[from..to]`.
fn cut_ascii(norm: &str, from: usize, to: usize, stems: &mut StemCache, f: &mut impl FnMut(&str, usize, usize)) {
    let b = norm.as_bytes();
    let mut i = from;
    while i < to {
        if !b[i].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let start = i;
        let mut has_apostrophe = false;
        while i < to
            && (b[i].is_ascii_alphanumeric() || (b[i] == b'\'' && i + 1 < to && b[i + 1].is_ascii_alphanumeric()))
        {
            has_apostrophe |= b[i] == b'\'';
            i += 1;
        }
        let grouped = i - start <= 3 && b[start..i].iter().all(u8::is_ascii_digit) && {
            let before = i;
            while let Some(n) = digit_group(b, i) {
                i = n;
            }
            i > before
        };
        let run = &norm[start..i];
        let word: std::borrow::Cow<str> = if has_apostrophe {
            run.replace('\'', "").into()
        } else if grouped {
            run.replace(',', "").into()
        } else {
            run.into()
        };
        word_token(&word, start, i, stems, f);
    }
}

/// Where a group of thousands (",000") starting at `at` ends: a number written with its
/// thousands separated ("1,000", "12,500,000") is one token, not "1" and "000", which would
/// match every "1" and every round number.
fn digit_group(b: &[u8], at: usize) -> Option<usize> {
    let end = at + 4;
    (b.get(at) == Some(&b',')
        && b.get(at + 1..end).is_some_and(|d| d.iter().all(u8::is_ascii_digit))
        && !b.get(end).is_some_and(u8::is_ascii_alphanumeric))
    .then_some(end)
}

/// Emits one Latin-script word: stop words dropped, alphabetic ASCII words stemmed.
fn word_token(word: &str, start: usize, end: usize, stems: &mut StemCache, f: &mut impl FnMut(&str, usize, usize)) {
    if word.is_empty() {
        return;
    }
    if word.bytes().all(|c| c.is_ascii_alphabetic()) {
        if let Some(stem) = stem_in(stems, word) {
            f(stem, start, end)
        }
    } else if !is_stop_word(word) {
        f(word, start, end)
    }
}

fn emit_run(run: &str, offset: usize, script: Script, stems: &mut StemCache, f: &mut impl FnMut(&str, usize, usize)) {
    match script {
        Script::Word => {
            let end = offset + run.len();
            if run.contains(['\'', '’', ',']) {
                let word: String = run.chars().filter(|c| !matches!(c, '\'' | '’' | ',')).collect();
                word_token(&word, offset, end, stems, f)
            } else {
                word_token(run, offset, end, stems, f)
            }
        }
        Script::Han | Script::Katakana | Script::Hiragana => {
            // Overlapping bigrams; a run of one character is a unigram.
            let mut starts = run.char_indices().map(|(i, _)| i);
            let (Some(mut s0), second) = (starts.next(), starts.next()) else {
                return;
            };
            let Some(mut s1) = second else {
                if !is_stop_word(run) {
                    f(run, offset, offset + run.len());
                }
                return;
            };
            loop {
                let s2 = starts.next().unwrap_or(run.len());
                f(&run[s0..s2], offset + s0, offset + s2);
                if s2 == run.len() {
                    break;
                }
                (s0, s1) = (s1, s2);
            }
        }
        Script::Other => {}
    }
}

/// Light verbs and adjectives that carry grammar, not content (する, ある, なる...).
const JA_LIGHT: &[&str] = &[
    "する",
    "ある",
    "いる",
    "なる",
    "できる",
    "くる",
    "いう",
    "おる",
    "れる",
    "られる",
    "せる",
    "させる",
    "ない",
    "よい",
    "いい",
    "ござる",
    "やる",
    "みる",
    "いく",
    "もらう",
    "くれる",
    "あげる",
    "おく",
    "しまう",
];

/// Japanese interrogatives (疑問詞) that IPADIC may tag as nouns or numbers.
const JA_INTERROGATIVE: &[&str] = &[
    "何",
    "幾",
    "誰",
    "いつ",
    "どこ",
    "どれ",
    "いくつ",
    "いくら",
    "なに",
    "なん",
];

/// A unit of meaning in a Japanese stretch: a noun compound (its members' byte ranges, each
/// with whether it is a term on its own) or an independent word by its base form.
enum Unit {
    Compound(Vec<(usize, usize, bool)>),
    /// A word by its base form; `verb` when it is a verb (not an adjective or an adverb).
    Word {
        base: String,
        start: usize,
        end: usize,
        verb: bool,
    },
}

/// The units of a Japanese stretch from its morphemes. A compound loses its kana-only edges
/// (田中さん -> 田中), a prefix alone at its end and a suffix at its start (a counter after a
/// number or an interrogative, 10年 or 何年, qualifies what is outside it). Verbs and
/// adjectives count by their base form (進んでる -> 進む) unless they are light (する, ある);
/// adverbs only when written with kanji. Particles, auxiliaries, pronouns, interrogatives and
/// dependent words are no unit.
fn japanese_units(run: &str, mut ms: Vec<morph::Morpheme>) -> Vec<Unit> {
    use morph::Class;
    let only_kana = |t: &str| t.chars().all(|c| script(c) == Script::Hiragana);
    let has_kanji = |t: &str| t.chars().any(|c| script(c) == Script::Han);
    for m in &mut ms {
        if JA_INTERROGATIVE.contains(&&run[m.start..m.end]) {
            m.class = Class::Function;
        }
    }
    let compound_part = |c: Class| matches!(c, Class::Noun | Class::Suffix | Class::Prefix);
    let mut out = Vec::new();
    let mut i = 0;
    while i < ms.len() {
        let m = &ms[i];
        if !compound_part(m.class) {
            let unit = match m.class {
                Class::Word => !JA_LIGHT.contains(&m.base.as_str()) && !is_stop_word(&m.base),
                // Kana adverbs (もう, まだ, すぐ) are fillers; 至急 or 既に is not.
                Class::Adverb => !only_kana(&m.base),
                _ => false,
            };
            if unit {
                out.push(Unit::Word {
                    base: m.base.clone(),
                    start: m.start,
                    end: m.end,
                    // An adjective's base form ends in い, a verb's never does.
                    verb: m.class == Class::Word && !m.base.ends_with('い'),
                });
            }
            i += 1;
            continue;
        }
        let mut j = i;
        while j < ms.len() && compound_part(ms[j].class) {
            j += 1;
        }
        let (mut a, mut b) = (i, j);
        let kana = |m: &morph::Morpheme| only_kana(&run[m.start..m.end]);
        while a < b && ((kana(&ms[a]) && ms[a].class != Class::Noun) || ms[a].class == Class::Suffix) {
            a += 1;
        }
        while b > a && (kana(&ms[b - 1]) || ms[b - 1].class == Class::Prefix) {
            b -= 1;
        }
        let members: Vec<(usize, usize, bool)> = ms[a..b]
            .iter()
            .map(|m| {
                let text = &run[m.start..m.end];
                let term = match m.class {
                    Class::Noun => !(is_stop_word(text) || (only_kana(text) && text.chars().count() < 2)),
                    Class::Suffix => has_kanji(text) && !is_stop_word(text),
                    _ => false,
                };
                (m.start, m.end, term)
            })
            .collect();
        if members.iter().any(|m| m.2) {
            out.push(Unit::Compound(members));
        }
        i = j;
    }
    out
}

/// Emits the search terms of a Japanese stretch (its `japanese_units`): a word by its base
/// form; of a noun compound its members that are terms, their adjacent pairs and the whole
/// (量産判定会議 -> 量産, 判定, 会議, 量産判定, 判定会議, 量産判定会議), so that a compound meets
/// a longer or shorter one sharing part of it (適格請求書フォーマット holds 請求書).
fn emit_morphemes(run: &str, offset: usize, stems: &mut StemCache, f: &mut impl FnMut(&str, usize, usize)) {
    if run.len() > CACHED_RUN_MAX {
        return analyse_run(run, offset, stems, f);
    }
    let replayed = RUNS.with(|cell| {
        let Ok(runs) = cell.try_borrow() else { return false };
        let Some(tokens) = runs.get(run) else { return false };
        for (t, s, e) in tokens.iter() {
            f(t, offset + *s as usize, offset + *e as usize);
        }
        true
    });
    if replayed {
        return;
    }
    let mut tokens: Vec<(Box<str>, u32, u32)> = Vec::new();
    analyse_run(run, 0, stems, &mut |t, s, e| {
        tokens.push((t.into(), s as u32, e as u32))
    });
    for (t, s, e) in &tokens {
        f(t, offset + *s as usize, offset + *e as usize);
    }
    RUNS.with(|cell| {
        if let Ok(mut runs) = cell.try_borrow_mut() {
            if runs.len() >= CACHED_RUNS_MAX {
                runs.clear();
            }
            runs.insert(run.into(), tokens);
        }
    });
}

/// Japanese runs up to this many bytes (16 characters) are analysed once per thread and their
/// tokens replayed after (`RUNS`): short runs recur (a Japanese word among English ones, a
/// status or label, 了解です), and the morphological analysis is the costliest part of
/// tokenizing.
const CACHED_RUN_MAX: usize = 48;
/// The most runs a thread keeps; it starts over past them.
const CACHED_RUNS_MAX: usize = 1 << 16;

/// A short run's tokens (token, start, end within the run) as `analyse_run` emitted them.
type RunTokens = rustc_hash::FxHashMap<Box<str>, Vec<(Box<str>, u32, u32)>>;

thread_local! {
    /// Short Japanese runs analysed on this thread (`CACHED_RUN_MAX`).
    static RUNS: std::cell::RefCell<RunTokens> = Default::default();
}

/// `emit_morphemes` without the cache.
fn analyse_run(run: &str, offset: usize, stems: &mut StemCache, f: &mut impl FnMut(&str, usize, usize)) {
    let Some(ms) = morph::analyse(run) else {
        return emit_run(run, offset, Script::Han, stems, f);
    };
    for unit in japanese_units(run, ms) {
        match unit {
            Unit::Word { base, start, end, .. } => f(&base, offset + start, offset + end),
            Unit::Compound(members) => {
                for &(s, e, term) in &members {
                    if term {
                        f(&run[s..e], offset + s, offset + e);
                    }
                }
                for pair in members.windows(2) {
                    let (s, e) = (pair[0].0, pair[1].1);
                    f(&run[s..e], offset + s, offset + e);
                }
                if members.len() >= 3 {
                    let (s, e) = (members[0].0, members[members.len() - 1].1);
                    f(&run[s..e], offset + s, offset + e);
                }
            }
        }
    }
}

/// The words of a Japanese text as a reader would list them, or `None` without a dictionary:
/// whole noun compounds (`japanese_units`), a verb's continuative form used as a noun
/// (振り返り), and the other verbs by their base form (上げる, 終わる), each with whether it is
/// such a verb. For the question's keywords, which are then split at known words; the caller
/// leaves out the verbs that only ask (教える, 知る). Adjectives and adverbs are left out: in a
/// question they mostly qualify (怪しい), and one in no source would make the evidence look
/// partial.
pub fn japanese_words(text: &str) -> Option<Vec<(String, bool)>> {
    if !morph::available() {
        return None;
    }
    let norm = normalize(text);
    let ms = morph::analyse(&norm)?;
    let nominal = nominalised(&norm, &ms);
    Some(
        japanese_units(&norm, ms)
            .into_iter()
            .filter_map(|u| match u {
                Unit::Word { start, end, .. } if nominal.contains(&(start, end)) => {
                    Some((norm[start..end].to_string(), false))
                }
                Unit::Word { end, verb: true, .. } if requested(&norm[end..]) => None,
                Unit::Word { base, verb: true, .. } => Some((base, true)),
                Unit::Word { .. } => None,
                Unit::Compound(m) => Some((norm[m[0].0..m[m.len() - 1].1].to_string(), false)),
            })
            .collect(),
    )
}

/// Endings after a verb's て-form that make the question a request (「まとめて」,
/// 「調べてください」, 「教えてもらえますか」): the verb says what to do with the subject, not what
/// the subject is.
const REQUEST_ENDINGS: &[&str] = &[
    "",
    "ください",
    "下さい",
    "くれ",
    "くれる",
    "くれますか",
    "くれませんか",
    "ほしい",
    "欲しい",
    "もらえる",
    "もらえますか",
    "もらえませんか",
    "いただける",
    "いただけますか",
    "いただけませんか",
];

/// Whether `rest`, what follows a verb in a question, is its て-form closing a request.
fn requested(rest: &str) -> bool {
    let rest = rest.trim_end_matches(|c: char| c.is_whitespace() || "?？!！。.、".contains(c));
    rest.strip_prefix('て')
        .or_else(|| rest.strip_prefix('で'))
        .is_some_and(|after| REQUEST_ENDINGS.contains(&after))
}

/// Particles after which a verb's continuative form is a noun: 振り返りは, 見直しの, 取り決めを.
const NOMINAL_AFTER: &[&str] = &["の", "は", "が", "を", "も", "や", "と", "で"];

/// The byte ranges of `ms` (morphemes of `run`) that are verbs used as nouns: the continuative
/// form (連用形: the base form's last kana turned into its i-row kana, or dropped for ichidan
/// verbs) directly before a particle ("インシデントの振り返りは", the retrospective). Such a word
/// names a thing, as a noun would, and is a keyword of the question.
fn nominalised(run: &str, ms: &[morph::Morpheme]) -> Vec<(usize, usize)> {
    let continuative = |surface: &str, base: &str| {
        let mut b = base.chars();
        let last = b.next_back();
        let stem = b.as_str();
        let mut s = surface.chars();
        let end = s.next_back();
        match (last, end) {
            // Ichidan (取り決める -> 取り決め): the base without its る.
            (Some('る'), Some(_)) if surface == stem && !stem.is_empty() => true,
            // Godan (振り返る -> 振り返り): the same stem, the last kana on the i-row.
            (Some(_), Some(e)) => {
                s.as_str() == stem && !stem.is_empty() && "いきぎしちにびみり".contains(e) && surface != base
            }
            _ => false,
        }
    };
    ms.windows(2)
        .filter(|w| {
            let (m, next) = (&w[0], &w[1]);
            m.class == morph::Class::Word
                && !JA_LIGHT.contains(&m.base.as_str())
                && continuative(&run[m.start..m.end], &m.base)
                && NOMINAL_AFTER.contains(&&run[next.start..next.end])
        })
        .map(|w| (w[0].start, w[0].end))
        .collect()
}

/// The members of a Japanese compound as `japanese_units` cuts it (量産判定会議 -> 量産, 判定,
/// 会議), or `None` without a dictionary or when `word` is not a compound of two or more.
pub fn compound_members(word: &str) -> Option<Vec<String>> {
    if !morph::available() || !is_japanese(word) {
        return None;
    }
    let norm = normalize(word);
    let units = japanese_units(&norm, morph::analyse(&norm)?);
    let members: Vec<String> = units
        .iter()
        .flat_map(|u| match u {
            Unit::Compound(m) => m
                .iter()
                .filter(|x| x.2)
                .map(|x| norm[x.0..x.1].to_string())
                .collect::<Vec<_>>(),
            Unit::Word { base, .. } => vec![base.clone()],
        })
        .collect();
    (members.len() >= 2).then_some(members)
}

/// The token strings of `text`, in order (duplicates kept).
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::with_capacity(text.len() / 5);
    for_each_token(text, |t, _, _| out.push(t.to_string()));
    out
}

/// Letters of a text by script, for telling its language.
#[derive(Default)]
struct Letters {
    cjk: usize,
    all: usize,
}

impl Letters {
    fn add(&mut self, s: Script) {
        match s {
            Script::Han | Script::Katakana | Script::Hiragana => {
                self.cjk += 1;
                self.all += 1;
            }
            Script::Word => self.all += 1,
            Script::Other => {}
        }
    }

    /// Mostly Japanese: at least a third of the letters are CJK.
    fn japanese(&self) -> bool {
        self.all > 0 && self.cjk * 3 >= self.all
    }
}

/// Whether the text is mostly Japanese (by share of CJK characters among letters).
pub fn is_japanese(text: &str) -> bool {
    let mut letters = Letters::default();
    for c in text.chars() {
        letters.add(script(c));
    }
    letters.japanese()
}

/// Cuts a text into sentences (English `.!?` followed by space, Japanese `。！？`, and line
/// breaks). Returns byte ranges into `text`, trimmed, non-empty.
pub fn sentences(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(i, c)) in bytes.iter().enumerate() {
        let next_is_space = bytes.get(k + 1).is_none_or(|(_, n)| n.is_whitespace());
        let end_here = matches!(c, '。' | '！' | '？' | '\n') || (matches!(c, '.' | '!' | '?') && next_is_space);
        if end_here {
            let e = i + c.len_utf8();
            push_trimmed(text, start, e, &mut out);
            start = e;
        }
    }
    push_trimmed(text, start, text.len(), &mut out);
    out
}

fn push_trimmed(text: &str, s: usize, e: usize, out: &mut Vec<(usize, usize)>) {
    let piece = &text[s..e];
    let lead = piece.len() - piece.trim_start().len();
    let trail = piece.len() - piece.trim_end().len();
    if lead + trail < piece.len() {
        out.push((s + lead, e - trail));
    }
}

/// Where `phrase` first occurs in `q` (both normalised): as whole words for Latin text (a word
/// boundary is needed only where the phrase itself begins or ends with a letter or digit, so
/// "decision:" matches "decision: x"), as a substring for Japanese. `None` for an empty phrase.
pub fn find_phrase(q: &str, phrase: &str) -> Option<usize> {
    if phrase.is_empty() {
        return None;
    }
    if !phrase.is_ascii() {
        return q.find(phrase);
    }
    let bytes = q.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric();
    let (first, last) = (phrase.as_bytes()[0], phrase.as_bytes()[phrase.len() - 1]);
    let mut from = 0;
    while let Some(i) = q[from..].find(phrase) {
        let s = from + i;
        let e = s + phrase.len();
        let left_ok = s == 0 || !word(bytes[s - 1]) || !word(first);
        let right_ok = e >= bytes.len() || !word(bytes[e]) || !word(last);
        if left_ok && right_ok {
            return Some(s);
        }
        from = s + 1;
        while !q.is_char_boundary(from) {
            from += 1;
        }
    }
    None
}

/// A set of phrases matched as `find_phrase` matches one (whole words for Latin text, substrings
/// for Japanese; ASCII letters in any case), all in one pass over the text. `_` counts as a word
/// character here.
#[derive(Debug, Clone, Default)]
pub struct PhraseSet {
    phrases: Vec<String>,
    matcher: Option<regex::Regex>,
}

impl PhraseSet {
    /// `phrases` should be normalised (`normalize`).
    pub fn new(phrases: Vec<String>) -> PhraseSet {
        let alternatives: Vec<String> = phrases
            .iter()
            .filter(|p| !p.is_empty())
            .map(|p| {
                let edge = |c: Option<char>| {
                    if c.is_some_and(|c| c.is_ascii_alphanumeric()) {
                        r"(?-u:\b)"
                    } else {
                        ""
                    }
                };
                format!(
                    "{}{}{}",
                    edge(p.chars().next()),
                    regex::escape(p),
                    edge(p.chars().last())
                )
            })
            .collect();
        let matcher = (!alternatives.is_empty()).then(|| {
            regex::RegexBuilder::new(&alternatives.join("|"))
                .case_insensitive(true)
                .build()
                // Escaped literals and word boundaries always compile.
                .expect("escaped phrases form a valid pattern")
        });
        PhraseSet { phrases, matcher }
    }

    pub fn phrases(&self) -> &[String] {
        &self.phrases
    }

    /// Whether any phrase occurs in `text`.
    pub fn is_match(&self, text: &str) -> bool {
        self.matcher.as_ref().is_some_and(|m| m.is_match(text))
    }
}

impl PartialEq for PhraseSet {
    fn eq(&self, other: &Self) -> bool {
        self.phrases == other.phrases
    }
}

/// Shortens `text` to about `max_chars` characters (kept in `util`, below the YAML reader).
pub use crate::util::truncate_chars;

/// Renders Slack's message markup as plain text: `<@U123>` becomes `@name` (via `user_name`,
/// or `@U123` when unknown), `<#C1|general>` becomes `#general`, `<https://x|label>` becomes
/// `label (https://x)`, `<!here>` becomes `@here`, and HTML entities are decoded.
pub fn clean_slack_markup(text: &str, user_name: &dyn Fn(&str) -> Option<String>) -> String {
    static RE: LazyLock<regex::Regex> = LazyLock::new(|| {
        // A pattern literal: compiling it cannot fail.
        regex::Regex::new(r"<([^<>]+)>").expect("valid regex")
    });
    let replaced = RE.replace_all(text, |caps: &regex::Captures| {
        let inner = &caps[1];
        let (target, label) = match inner.split_once('|') {
            Some((t, l)) => (t, Some(l)),
            None => (inner, None),
        };
        if let Some(id) = target.strip_prefix('@') {
            let name = label
                .map(str::to_string)
                .or_else(|| user_name(id))
                .unwrap_or_else(|| id.to_string());
            format!("@{name}")
        } else if let Some(id) = target.strip_prefix('#') {
            format!("#{}", label.unwrap_or(id))
        } else if let Some(special) = target.strip_prefix('!') {
            format!("@{}", label.unwrap_or(special.split('^').next().unwrap_or(special)))
        } else {
            match label {
                Some(l) if l != target => format!("{l} ({target})"),
                _ => target.to_string(),
            }
        }
    });
    html_escape::decode_html_entities(&replaced).into_owned()
}

/// Long texts (pages) are searched and cited passage by passage. Passages are cut at headings and blank lines, and paragraphs are joined up to this size.
const PASSAGE_CHARS: usize = 700;

/// Splits Markdown into passages: a heading starts a new passage; paragraphs are joined while
/// the passage stays under `PASSAGE_CHARS` characters.
pub fn passages(body: &str) -> Vec<(usize, usize)> {
    let mut paragraphs: Vec<(usize, usize, bool)> = Vec::new();
    let mut start: Option<usize> = None;
    let mut offset = 0;
    for line in body.split_inclusive('\n') {
        let trimmed = line.trim();
        let heading = trimmed.starts_with('#');
        if (trimmed.is_empty() || heading)
            && let Some(s) = start.take()
        {
            paragraphs.push((s, offset, false));
        }
        if heading {
            start = Some(offset);
            paragraphs.push((offset, offset, true)); // marks a cut
        } else if !trimmed.is_empty() && start.is_none() {
            start = Some(offset);
        }
        offset += line.len();
    }
    if let Some(s) = start {
        paragraphs.push((s, offset, false));
    }
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut cur: Option<(usize, usize)> = None;
    for (s, e, cut) in paragraphs {
        if cut {
            if let Some(c) = cur.take() {
                out.push(c);
            }
            continue;
        }
        cur = match cur {
            Some((cs, ce)) if body[cs..e].chars().count() <= PASSAGE_CHARS => Some((cs, e.max(ce))),
            Some(c) => {
                out.push(c);
                Some((s, e))
            }
            None => Some((s, e)),
        };
    }
    if let Some(c) = cur {
        out.push(c);
    }
    out.into_iter()
        .filter_map(|(s, e)| {
            let piece = &body[s..e];
            let lead = piece.len() - piece.trim_start().len();
            let trimmed = piece.trim();
            (!trimmed.is_empty()).then_some((s + lead, s + lead + trimmed.len()))
        })
        .collect()
}

/// Parses a date or time given by a user or a tool argument: RFC 3339, `YYYY-MM-DD`
/// (midnight UTC), or seconds since the epoch.
pub fn parse_time(s: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    let s = s.trim();
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&chrono::Utc));
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        return d.and_hms_opt(0, 0, 0).map(|t| t.and_utc());
    }
    if let Ok(secs) = s.parse::<f64>()
        && secs.is_finite()
    {
        return chrono::DateTime::from_timestamp(secs as i64, 0);
    }
    None
}

/// How a request is put, not what it asks for ("could you kindly assist me in ..."): a tool's
/// description that happens to use one of these is no better for it. Left out of questions and
/// of tool searches (`is_request_filler`).
pub const REQUEST_FILLER: &[&str] = &[
    "help",
    "assist",
    "assistance",
    "kindly",
    "desperately",
    "immediate",
    "immediately",
    "extremely",
    "quite",
    "bit",
    "particular",
    "particularly",
    "specific",
    "specifically",
    "certain",
    "therefore",
    "perhaps",
    "possibly",
    "wondering",
    "wonder",
    "interested",
    "curious",
    "looking",
    "appreciate",
    "grateful",
    "lend",
    "expertise",
    "provide",
    "detailed",
    "comprehensive",
];

pub type StemSet = std::sync::OnceLock<std::collections::HashSet<String>>;

/// Whether `term` (an index term, a stem as `text::terms` makes them) is one of `words`'
/// terms; `cell` keeps those terms, made on first use.
pub fn in_stems(cell: &'static StemSet, words: &[&str], term: &str) -> bool {
    cell.get_or_init(|| words.iter().flat_map(|w| terms(w)).collect())
        .contains(term)
}

/// Whether an index term is request filler (`REQUEST_FILLER`).
pub fn is_request_filler(term: &str) -> bool {
    static STEMS: StemSet = StemSet::new();
    in_stems(&STEMS, REQUEST_FILLER, term)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(input: &str, expected: &[&str]) {
        assert_eq!(terms(input), expected, "tokens of {input:?}");
    }

    /// Cutting mixed text piece by piece between whitespace gives what cutting it character
    /// by character in one piece gives: the same tokens, spans and shape.
    #[test]
    fn mixed_text_is_cut_the_same_piece_by_piece() {
        let texts = [
            "Pro plan 価格 は $40 に決定 don't 1,000 users",
            "café au lait costs 1,200円 l'été",
            "ひらがな だけ の ぶん",
            "ひらがな\u{b}だけ",
            "KR-500 の出荷は 12,500,000 ドル, 4.2.1 版\tok",
            "それ’s fine  \r\n 東京 office’s 1,00 and 1234,567",
            "ＡＰＩ キー 🙂 rotate",
        ];
        for text in texts {
            let norm = normalize(text);
            let mut pieces = Vec::new();
            let shape = cut(&norm, &mut Default::default(), &mut |t, s, e| {
                pieces.push((t.to_string(), s, e))
            });
            let mut whole = Vec::new();
            let mut mixed = Mixed::new();
            let mut stems = StemCache::default();
            mixed.cut(&norm, 0, norm.len(), &mut stems, &mut |t, s, e| {
                whole.push((t.to_string(), s, e))
            });
            let whole_shape = mixed.finish(&norm, &mut stems, &mut |t, s, e| whole.push((t.to_string(), s, e)));
            assert!(!pieces.is_empty(), "{text:?}");
            assert_eq!(pieces, whole, "{text:?}");
            assert_eq!(shape, whole_shape, "{text:?}");
        }
    }

    #[test]
    fn english_is_stemmed_and_stop_words_dropped() {
        check(
            "What did we decide about the pricing changes?",
            &["decid", "price", "chang"],
        );
        check("Don't deploy on Fridays", &["dont", "deploy", "friday"]);
    }

    #[test]
    fn a_number_with_its_thousands_separated_is_one_token() {
        check("1,000 requests a minute", &["1000", "request", "minut"]);
        check("budget of 12,500,000 yen", &["budget", "12500000", "yen"]);
        // A list of numbers is not one number, nor is a group of other than three digits.
        check("steps 1,2 and 3", &["step", "1", "2", "3"]);
        check("1,0000 and 1234,567", &["1", "0000", "1234", "567"]);
        check("1,000円まで", &["1000", "円"]);
        check("上限は2,500件です", &["上限", "2500"]);
    }

    #[test]
    fn japanese_becomes_bigrams_per_script_run() {
        morph::with_bigrams(|| {
            check("価格改定を決定しました", &["価格", "格改", "改定", "決定"]);
            check("データベース移行", &["デー", "ータ", "タベ", "ベー", "ース", "移行"]);
            check("何が決まった？", &["決"]);
        });
    }

    #[test]
    fn mixed_and_full_width_text() {
        morph::with_bigrams(|| {
            check("Ｑ３のSLA目標は99.9%", &["q3", "sla", "目標", "99", "9"]);
            check("ひらがな", &["ひら", "らが", "がな"]);
        });
    }

    /// With IPADIC installed (as `.ci/run` does): words, base forms, compounds with their parts
    /// and pairs, no particles, auxiliaries, light verbs or interrogatives.
    #[test]
    fn japanese_becomes_words_with_the_dictionary() {
        if !morph::available() {
            eprintln!(
                "SKIPPED: no IPADIC in the data directory ({})",
                morph::status().describe()
            );
            return;
        }
        check("価格改定を決定しました", &["価格", "改定", "価格改定", "決定"]);
        check("移行は進んでる？", &["移行", "進む"]);
        check("請求書は何年保存しますか", &["請求", "書", "請求書", "保存"]);
        check("Ｑ３のSLA目標は99.9%", &["q3", "sla", "目標", "99", "9"]);
        check(
            "量産判定会議",
            &["量産", "判定", "会議", "量産判定", "判定会議", "量産判定会議"],
        );
    }

    #[test]
    fn a_short_run_seen_before_gives_the_same_tokens_at_its_own_offsets() {
        if !morph::available() {
            eprintln!("SKIPPED: no IPADIC in the data directory");
            return;
        }
        let text = "価格改定 pricing 価格改定 決定しました";
        let mut first = Vec::new();
        for_each_token(text, |t, s, e| first.push((t.to_string(), s, e)));
        let mut again = Vec::new();
        for_each_token(text, |t, s, e| again.push((t.to_string(), s, e)));
        assert_eq!(first, again);
        // The second 価格改定 (replayed from the first) points at itself.
        let second = text.rfind("価格改定").unwrap();
        assert!(
            first
                .iter()
                .any(|(t, s, e)| t == "価格改定" && *s == second && &text[*s..*e] == "価格改定"),
            "{first:?}"
        );
        // A run longer than the cache's reach is analysed as before.
        let long = "量産判定会議では価格改定と請求書の保存期間について決定しました";
        assert!(long.len() > CACHED_RUN_MAX);
        let mut got = Vec::new();
        for_each_token(long, |t, _, _| got.push(t.to_string()));
        assert!(
            got.iter().any(|t| t == "量産判定会議") && got.iter().any(|t| t == "保存"),
            "{got:?}"
        );
    }

    #[test]
    fn offsets_point_into_normalized_text() {
        let t = tokenize("hello 世界");
        assert_eq!(
            t[1],
            Token {
                text: "世界".into(),
                start: 6,
                end: 12
            }
        );
    }

    #[test]
    fn sentences_split_both_languages() {
        let text = "We chose Postgres. It is fast!\n次に移行します。完了";
        let got: Vec<&str> = sentences(text).into_iter().map(|(s, e)| &text[s..e]).collect();
        assert_eq!(got, ["We chose Postgres.", "It is fast!", "次に移行します。", "完了"]);
    }

    #[test]
    fn slack_markup_is_rendered() {
        let names = |id: &str| (id == "U1").then(|| "aiko".to_string());
        assert_eq!(
            clean_slack_markup(
                "<@U1> see <#C9|pricing> &amp; <https://x.io|doc> <@U2> &lt;3 <!here>",
                &names
            ),
            "@aiko see #pricing & doc (https://x.io) @U2 <3 @here"
        );
    }

    proptest::proptest! {
        /// The fast path of `normalize` agrees with NFKC + lower case on the text it takes.
        #[test]
        fn normalize_fast_path_is_nfkc(s in "[a-zA-Z0-9 .,!?'\u{3001}-\u{3002}\u{3041}-\u{3096}\u{30A1}-\u{30FC}\u{4E00}-\u{9FFF}]{0,40}") {
            proptest::prop_assert_eq!(normalize(&s), s.nfkc().collect::<String>().to_lowercase());
        }

        /// For any input, token offsets are in bounds and on character boundaries of the
        /// normalised text.
        #[test]
        fn token_offsets_are_valid(s in "\\PC{0,60}") {
            let norm = normalize(&s);
            for t in tokenize(&s) {
                proptest::prop_assert!(t.start < t.end && t.end <= norm.len());
                proptest::prop_assert!(norm.is_char_boundary(t.start) && norm.is_char_boundary(t.end));
            }
        }
    }

    #[test]
    fn phrase_sets_match_like_find_phrase() {
        let set = PhraseSet::new(vec![
            "decision:".into(),
            "we will".into(),
            "決定".into(),
            "agreed".into(),
        ]);
        for (text, expected) in [
            ("Decision: ship it", true),
            ("indecision: none", false),
            ("We will ship", true),
            ("we willingly ship", false),
            ("価格を決定しました", true),
            ("disagreed", false),
            ("AGREED.", true),
            ("nothing here", false),
        ] {
            assert_eq!(set.is_match(text), expected, "{text}");
            let lower = text.to_ascii_lowercase();
            assert_eq!(
                set.phrases().iter().any(|p| find_phrase(&lower, p).is_some()),
                expected,
                "find_phrase on {text}"
            );
        }
        assert!(!PhraseSet::default().is_match("anything"));
    }

    #[test]
    fn language_detection() {
        for t in [
            "来週のリリースはいつ？",
            "When is the release?",
            "Q3の価格改定について",
            "",
            "123",
        ] {
            let shape = for_each_token(t, |_, _, _| {});
            assert_eq!(shape.japanese, is_japanese(t), "{t}");
            assert_eq!(shape.chars, t.chars().count(), "{t}");
        }
        assert!(is_japanese("来週のリリースはいつ？"));
        assert!(!is_japanese("When is the release?"));
        assert!(is_japanese("Q3の価格改定について"));
    }
}
