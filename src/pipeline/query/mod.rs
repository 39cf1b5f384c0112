//! Query understanding: keywords (English stop words and Japanese particles removed), quoted
//! phrases, explicit filters (`from:`, `in:`, `after:`, `before:`), time constraints relative to
//! the clock ("last week", "since October", "in Q3", "先週", "10月以降", "今月"), and synonym
//! expansion across the two languages. Pure: the clock is passed in.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::config::policy::{Intent, IntentCues, Lexicon};
use crate::pipeline::intent::{self, Classified};
use crate::text;
use crate::text::values::ValueKind;

mod answer_type;
mod expand;
mod time;
mod words;

pub use answer_type::{AnswerType, Typed, answer_type, states_count};
pub use expand::expand;
use expand::split_compounds;
use time::find_time;
pub use words::keywords;
use words::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    En,
    Ja,
}

/// What the question asks for, read once (`analyze_question`) and handed to every later stage.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Analysis {
    /// The question as asked (cleaned of control characters).
    #[serde(skip)]
    pub question: String,
    /// The question as asked without its search modifiers (`in:`, `from:`, `after:`,
    /// `before:`) and quotation marks: what a source that reads requests (the tool catalog)
    /// is sent.
    #[serde(skip)]
    pub request: String,
    /// The question `text::normalize`d: what every cue is matched against.
    #[serde(skip)]
    pub normalized: String,
    /// The question's language: the answer speaks through evidence in it where it can.
    #[serde(skip)]
    pub lang: Lang,
    /// The sentence encoder's vector of the question as asked, when the encoder is installed
    /// (`analyze_question` reads it once for the classifier and ranking).
    #[serde(skip)]
    pub vector: Option<Vec<f32>>,
    /// The intent, with scores over all seven intents; policies use the top one.
    #[serde(skip)]
    pub intent: Classified,
    /// The kind of value the question asks for ("how long", "いくら", "when"), if one.
    #[serde(skip)]
    pub focus: Option<ValueKind>,
    /// The kind of answer the question asks for (`answer_type`), with the words that said so.
    #[serde(skip)]
    pub answer_type: Option<Typed>,
    /// Content words as written (for the sources' own search engines).
    pub keywords: Vec<String>,
    /// Synonyms and translations of the keywords (from `lexicon.yaml`, and the surest of
    /// JMdict's translations).
    pub expansions: Vec<String>,
    /// The question in the other language, for a query of its own (`other_language_text`):
    /// the expansions in the other language, and the keywords that have no translation but
    /// read the same in both (names, codes, versions: Latin script or numbers).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub other_language: Vec<String>,
    pub phrases: Vec<String>,
    pub channel: Option<String>,
    pub user: Option<String>,
    pub after: Option<DateTime<Utc>>,
    pub before: Option<DateTime<Utc>>,
    /// The time constraint as understood, for people ("last week: 2026-11-09 to 2026-11-16").
    pub time_note: Option<String>,
    /// Words that only said what kind of answer the question's intent wants ("docs" in "where
    /// are the onboarding docs?"): not searched in the evidence (the tool catalog, sent the
    /// question as asked, still reads them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub answer_kind_words: Vec<String>,
    /// The question asks which tool, command or integration does something.
    pub tool_question: bool,
    /// The question asks for recent evidence ("recent pricing talks", "the last incident").
    pub prefer_recent: bool,
    /// The question asks for the single latest occurrence ("the last incident", "前回の障害"),
    /// not just recent ones.
    pub latest: bool,
    /// The keywords and phrases as ranking matches them: tokens, with their expansions.
    #[serde(skip)]
    pub concepts: Vec<Concept>,
    /// Each word's translations from JMdict (when installed), with their weights: shown by
    /// `--explain`, already among the concepts' alternatives.
    #[serde(skip)]
    pub translations: Vec<(String, Vec<crate::text::jmdict::Translation>)>,
    /// Misspelt words the question was read with corrected (`text::spell`): the words as asked
    /// still count for their concepts and go to the sources with the expansions.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub corrections: Vec<(String, String)>,
    /// The question joins two things it asks about by a conjunction ("the brand colors and
    /// font"; `asks_several_things`): the answer gives each.
    pub several: bool,
    /// Which way the question bounds a quantity ("above 20%": `Some(true)`, from below;
    /// `text::values::bound`), read once for sentence choice.
    pub bound: Option<bool>,
}

/// A concept of the question: a keyword (or phrase) and its alternatives (itself, synonyms,
/// translations), each alternative as its list of tokens and its weight.
#[derive(Debug, Clone, PartialEq)]
pub struct Concept {
    pub alternatives: Vec<(Vec<String>, f64)>,
    /// How specific the question's word is in the language at large (`text::wordfreq`): 1
    /// for a rare word, a name, a number, or without the word lists; less for an everyday
    /// word. Ranking weighs a concept no source has by it.
    pub specificity: f64,
    /// The question's word is a function word: an everyday English word WordNet lists as no
    /// noun, verb or adjective ("per", "via", "onto"). It says how the question's things relate,
    /// not which things they are, so a sentence is not about the question for having it. False
    /// without the word lists or WordNet.
    pub function_word: bool,
}

/// A word is everyday in the language below this specificity (`Concept::specificity`, 0.1 for
/// the commonest words to 1 for names and rare words: the middle of the scale).
pub const EVERYDAY_BELOW: f64 = 0.5;

impl Concept {
    /// Whether the concept's word is everyday in the language (`EVERYDAY_BELOW`).
    pub fn everyday(&self) -> bool {
        self.specificity < EVERYDAY_BELOW
    }

    /// Whether the concept names something specific of the question's subject: neither an
    /// everyday word (the asker's phrasing) nor a function word (how things relate). The lead
    /// checks and sentence choice ask this of a concept one text has and another lacks.
    pub fn specific(&self) -> bool {
        !self.everyday() && !self.function_word
    }

    /// Whether the concept is a value the question states ("Jan 1", "25%"): one of its
    /// alternatives is a value term (`text::values::VALUE_TERM_MARK`).
    pub fn is_value(&self) -> bool {
        self.alternatives
            .iter()
            .any(|(alt, _)| alt.iter().any(|t| t.starts_with(text::values::VALUE_TERM_MARK)))
    }
}

/// Words after which an English word is a verb: a subject pronoun, "to", an auxiliary or a
/// modal ("did we land on", "where can I park").
const BEFORE_A_VERB: &[&str] = &[
    "i", "we", "you", "they", "he", "she", "to", "do", "does", "did", "will", "would", "can", "could", "should",
    "must", "may", "might", "shall",
];

/// Whether an English keyword of the question names a physical thing (`WordNet::concrete_noun`:
/// "dogs", "coffee", "bike"), unless the question uses it as a verb: directly after a subject
/// pronoun, "to", an auxiliary or a modal. Such a word is what the question asks about, however
/// everyday it is: "bringing dogs to the office" is not answered by the office policy. A
/// Japanese noun is read by its first JMdict gloss (犬, "dog"). False without WordNet's nouns.
fn names_a_thing(word: &str, question: &str) -> bool {
    let Some(wordnet) = text::wordnet::wordnet() else {
        return false;
    };
    if text::is_japanese(word) {
        // A Japanese noun (IPADIC) whose first JMdict gloss is one.
        let noun = text::morph::analyse(word)
            .is_some_and(|m| !m.is_empty() && m.iter().all(|m| m.class == text::morph::Class::Noun));
        return noun
            && text::jmdict::dictionary()
                .and_then(|d| d.first_word_gloss(word))
                .is_some_and(|g| wordnet.concrete_noun(&g));
    }
    let words = question_words(question);
    let mut seen = false;
    for (i, w) in words.iter().enumerate() {
        if w.eq_ignore_ascii_case(word) {
            seen = true;
            if after_a_verb_cue(&words, i) {
                return false;
            }
            if !wordnet.concrete_noun(w) {
                return false;
            }
        }
    }
    seen
}

/// The question's words, lower case (letters, digits and apostrophes).
fn question_words(question: &str) -> Vec<String> {
    question
        .split(|ch: char| !(ch.is_alphanumeric() || ch == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether the word at `i` of `words` (`question_words`) follows a subject pronoun, "to", an
/// auxiliary or a modal (`BEFORE_A_VERB`): the question uses it as a verb.
fn after_a_verb_cue(words: &[String], i: usize) -> bool {
    i > 0 && BEFORE_A_VERB.contains(&words[i - 1].as_str())
}

/// Whether the question uses an English word as a verb ("what do I attach", "who can approve").
fn used_as_verb(word: &str, question: &str) -> bool {
    let words = question_words(question);
    (0..words.len()).any(|i| words[i].eq_ignore_ascii_case(word) && after_a_verb_cue(&words, i))
}

/// Whether a keyword of the question is a name: a Japanese proper noun (IPADIC's 固有名詞:
/// 福岡, 韓国), or an English word the question writes with a capital after its first word
/// (Osaka, Pro), unless it capitalises most of its words (a title, or shouting). Without IPADIC
/// a Japanese word is not read as one.
fn is_name(word: &str, question: &str) -> bool {
    if text::is_japanese(word) {
        return text::morph::proper_noun(word).unwrap_or(false);
    }
    let later: Vec<&str> = question
        .split(|ch: char| !ch.is_alphanumeric())
        .filter(|w| !w.is_empty() && !text::is_japanese(w))
        .skip(1)
        .collect();
    let capital = |w: &&str| w.starts_with(|ch: char| ch.is_uppercase());
    later.iter().filter(|w| capital(w)).count() * 2 <= later.len()
        && later.iter().any(|w| w.eq_ignore_ascii_case(word) && capital(w))
}

/// Whether `word` (as the question writes it) is a function word (`Concept::function_word`).
fn function_word(word: &str, specificity: f64) -> bool {
    specificity < EVERYDAY_BELOW
        && word.is_ascii()
        && !word.contains(' ')
        && text::wordnet::wordnet().is_some_and(|n| !n.names_a_thing(word))
}

/// Weight of a synonym or translation against the word itself.
pub const EXPANSION_WEIGHT: f64 = 0.6;
/// Weight of a noun of the doing a verb names, or the verb of such a noun ("decision" for
/// "decide"): the same act in another part of speech, nearer than a synonym, below a translation.
const DERIVED_WEIGHT: f64 = 0.8;
/// Expansions (lexicon and dictionary) sent to the sources, at most.
const MAX_EXPANSIONS: usize = 24;
/// A Japanese keyword's synonyms (the Sudachi dictionary's) sent to the sources, at most. None
/// sent (the synonyms counting in ranking only): the paraphrase check's answerable abstained
/// 0.070 -> 0.081 and grade-2 lead 0.765 -> 0.753 (a question whose evidence writes a synonym
/// is then not found); 4 gives what 2 does on all three sets.
const SYNONYMS_SEARCHED: usize = 2;
/// A Japanese word's synonyms from the Sudachi dictionary (none without it), each with its
/// score and index terms, best first: not one whose terms are the word's own, nor one that the
/// morphology reads as another, more general word alone (決まり事 as 決まる, once its 事 is
/// dropped), which would count every text that says that word.
fn sudachi_synonyms(word: &str) -> Vec<(f64, String, Vec<String>)> {
    let Some(s) = text::sudachi::synonyms() else {
        return Vec::new();
    };
    let own = text::terms(word);
    s.of(word)
        .into_iter()
        .filter_map(|(weight, other)| {
            let terms = text::terms(other);
            let kept = !terms.is_empty()
                && terms != own
                && (!text::is_japanese(other) || terms.len() > 1 || terms == [text::normalize(other)]);
            kept.then(|| (weight, other.to_string(), terms))
        })
        .collect()
}

/// Weight of a translation (a lexicon member in the other language) against the word itself.
pub const TRANSLATION_WEIGHT: f64 = 0.9;

/// JMdict's translations of each word and of each pair of adjacent English words that is an
/// entry's gloss ("mass production" -> 量産), or of two Japanese words written together in the
/// question (`normalized`) that are one entry (ノート + PC -> ノートPC, "laptop"): the pair's
/// translations count for both words. A word written in the other language's script inside the
/// question (the "Pro" of a Japanese question, a Japanese name in an English one) is a name or a
/// term, carried as it is, and not looked up alone; so is an abbreviation written in capitals
/// (`abbreviations`).
fn translations(
    words: &[String],
    lang: Lang,
    abbreviations: &[String],
    normalized: &str,
) -> Vec<(String, Vec<crate::text::jmdict::Translation>)> {
    let Some(d) = text::jmdict::dictionary() else {
        return Vec::new();
    };
    let one = |w: &str| {
        if in_other_language(w, lang) || abbreviations.iter().any(|a| a == w) {
            Vec::new()
        } else if text::is_japanese(w) {
            d.to_english(w)
        } else if w.bytes().any(|b| b.is_ascii_alphabetic()) {
            if used_as_verb(w, normalized) {
                d.verb_to_japanese(w)
            } else {
                d.to_japanese(w)
            }
        } else {
            Vec::new()
        }
    };
    let mut out: Vec<(String, Vec<crate::text::jmdict::Translation>)> = words
        .iter()
        .map(|w| {
            let found = one(w);
            if found.is_empty() && text::is_japanese(w) {
                (w.clone(), by_members(w, d))
            } else {
                (w.clone(), found)
            }
        })
        .collect();
    let mut in_pair = vec![false; words.len()];
    for i in 1..words.len() {
        let (a, b) = (&words[i - 1], &words[i]);
        let (pair, joined) = if lang == Lang::Ja {
            // Written together, and Japanese at least in part: one word the tokenizer cut.
            let joined = format!("{a}{b}");
            if !(text::is_japanese(a) || text::is_japanese(b)) || !normalized.contains(&joined) {
                continue;
            }
            (d.to_english(&joined), joined)
        } else {
            if !a.is_ascii() || !b.is_ascii() || abbreviations.iter().any(|x| x == a || x == b) {
                continue;
            }
            let joined = format!("{a} {b}");
            (d.to_japanese(&joined), joined)
        };
        if pair.is_empty() {
            continue;
        }
        out.push((joined, pair.clone()));
        // A pair that is an entry ("shut down", "mass production") means what the entry says,
        // not what its words say apart ("down" is no 綿毛 there): its translations replace theirs.
        for k in [i - 1, i] {
            if !in_pair[k] {
                out[k].1.clear();
                in_pair[k] = true;
            }
            for t in &pair {
                if !out[k].1.iter().any(|x| x.text == t.text) {
                    out[k].1.push(t.clone());
                }
            }
        }
    }
    // A phrasal verb whose particle is a stop word, so no keyword ("sign off", "roll out",
    // "set up"): the verb means what the entry for the pair says ("sign" is no 兆候 there).
    if lang == Lang::En {
        let said = normalized.to_lowercase();
        for k in 0..words.len() {
            if in_pair[k] || !words[k].bytes().all(|b| b.is_ascii_alphabetic()) {
                continue;
            }
            for p in PARTICLES.iter().filter(|p| text::is_stop_word(p)) {
                let joined = format!("{} {p}", words[k].to_lowercase());
                if text::find_phrase(&said, &joined).is_none() {
                    continue;
                }
                let pair = d.to_japanese(&joined);
                if !pair.is_empty() {
                    out[k].1 = pair.clone();
                    out.push((joined, pair));
                    break;
                }
            }
        }
    }
    out
}

/// English ordinals, first to tenth: each is also its number (`ORDINAL_WEIGHT`).
const ORDINALS: &[&str] = &[
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
];
/// Weight of an ordinal's number against the ordinal ("second": "2"), as a derived word's.
const ORDINAL_WEIGHT: f64 = DERIVED_WEIGHT;

/// Adds `terms` to a concept's alternatives with `weight`, unless they are empty or already
/// there (the first weight given stands).
fn add_alternative(alts: &mut Vec<(Vec<String>, f64)>, terms: Vec<String>, weight: f64) {
    if !terms.is_empty() && !alts.iter().any(|(x, _)| *x == terms) {
        alts.push((terms, weight));
    }
}

/// The days of the week, in English and Japanese, and whether each is on the weekend: a day is
/// also the part of the week it falls in (`WEEK_PART_WEIGHT`). A support page's hours say what
/// happens "on weekends" or 「平日」, never on "Saturday".
const DAYS_OF_THE_WEEK: &[(&str, bool)] = &[
    ("monday", false),
    ("tuesday", false),
    ("wednesday", false),
    ("thursday", false),
    ("friday", false),
    ("saturday", true),
    ("sunday", true),
    ("月曜日", false),
    ("火曜日", false),
    ("水曜日", false),
    ("木曜日", false),
    ("金曜日", false),
    ("土曜日", true),
    ("日曜日", true),
    ("月曜", false),
    ("火曜", false),
    ("水曜", false),
    ("木曜", false),
    ("金曜", false),
    ("土曜", true),
    ("日曜", true),
];
/// The words for the weekend and for the working days, in both languages.
const WEEKEND: &[&str] = &["weekend", "週末", "土日"];
const WORKING_DAYS: &[&str] = &["weekday", "平日"];
/// Weight of the part of the week against the day ("Saturday": "weekend"), as a derived word's.
const WEEK_PART_WEIGHT: f64 = DERIVED_WEIGHT;

/// The adverbial particles that make a phrasal verb with the verb before them ("shut down",
/// "sign off", "roll out"): a closed class of English.
const PARTICLES: &[&str] = &[
    "up", "down", "off", "out", "in", "on", "over", "back", "away", "through",
];

/// The words of the question with each phrasal verb that the dictionary has as an entry of its
/// own ("shut down", "sign off": `translations` gives it the pair's meaning) written as one: a
/// verb and its particle are one concept, as they are one word in the other language, so that
/// evidence with the pair but not the question's subject ("Jenkins is shut down", asked "when
/// will MySQL be shut down?") does not cover two concepts of three.
fn dictionary_pairs(
    words: &[String],
    translated: &[(String, Vec<crate::text::jmdict::Translation>)],
    normalized: &str,
) -> Vec<String> {
    let said = normalized.to_lowercase();
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        if let Some(next) = words.get(i + 1) {
            let pair = format!("{} {}", words[i], next);
            if words[i].is_ascii()
                && PARTICLES.contains(&next.to_lowercase().as_str())
                && said.contains(&pair.to_lowercase())
                && translated.iter().any(|(k, list)| *k == pair && !list.is_empty())
            {
                out.push(pair);
                i += 2;
                continue;
            }
        }
        // A phrasal verb whose particle is a stop word ("sign off"): its verb is written as the
        // pair, whose translations it has.
        let lower = words[i].to_lowercase();
        let phrasal = PARTICLES.iter().map(|p| format!("{lower} {p}")).find(|pair| {
            text::find_phrase(&said, pair).is_some() && translated.iter().any(|(k, list)| k == pair && !list.is_empty())
        });
        out.push(phrasal.unwrap_or_else(|| words[i].clone()));
        i += 1;
    }
    out
}

/// How much less sure a compound's translation put together from its members' is than a
/// dictionary entry's (不良率 -> "defect rate": each member's first sense may not be the one the
/// compound uses).
const MEMBERS_WEIGHT: f64 = 0.8;

/// A Japanese compound with no dictionary entry translated member by member (不良率 -> 不良 +
/// 率 -> "defect rate"), each member by its surest translation, in the compound's order; members
/// without one are left out and weigh the whole down. Nothing when no member translates.
fn by_members(word: &str, d: &crate::text::jmdict::Dictionary) -> Vec<crate::text::jmdict::Translation> {
    let Some(members) = text::compound_members(word) else {
        return Vec::new();
    };
    let found: Vec<crate::text::jmdict::Translation> = members
        .iter()
        .filter_map(|m| d.to_english(m).into_iter().next())
        .collect();
    if found.is_empty() {
        return Vec::new();
    }
    let share = found.len() as f64 / members.len() as f64;
    let weight = found.iter().map(|t| t.weight).fold(f64::INFINITY, f64::min);
    vec![crate::text::jmdict::Translation {
        text: found.iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" "),
        weight: weight * share * MEMBERS_WEIGHT,
    }]
}

/// The words a question writes in capitals (CI, SSO, QA), lower-cased: abbreviations and
/// names, which text in either language writes in Latin letters. Nothing when the question is
/// in capitals throughout (no lower-case Latin letter and no Japanese), where case says nothing.
fn abbreviations(question: &str) -> Vec<String> {
    let cased = question.bytes().any(|b| b.is_ascii_lowercase()) || text::is_japanese(question);
    if !cased {
        return Vec::new();
    }
    question
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.bytes().filter(u8::is_ascii_uppercase).count() >= 2)
        .filter(|w| w.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()))
        .map(str::to_ascii_lowercase)
        .collect()
}

fn concepts(a: &Analysis, lexicon: &Lexicon) -> (Vec<Concept>, Vec<(String, Vec<crate::text::jmdict::Translation>)>) {
    let words = split_compounds(&a.keywords, lexicon);
    let translated = translations(&words, a.lang, &abbreviations(&a.question), &a.normalized);
    let units = dictionary_pairs(&words, &translated, &a.normalized);
    let mut groups: Vec<Vec<String>> = Vec::new();
    let concepts = units
        .iter()
        .chain(&a.phrases)
        .filter_map(|w| {
            let toks = text::terms(w);
            if toks.is_empty() {
                return None;
            }
            // A phrasal verb whose particle is a stop word is the lexicon's by its verb alone:
            // without the particle "sign off" would read as "sign-in".
            // (A phrase the question quotes, "time off", is the lexicon's as written.)
            let lexicon_word = match w.split_once(' ') {
                Some((verb, particle))
                    if text::is_stop_word(particle) && !a.phrases.contains(w) && words.iter().any(|x| x == verb) =>
                {
                    verb.to_string()
                }
                _ => w.clone(),
            };
            let syns = expand(std::slice::from_ref(&lexicon_word), &a.normalized, lexicon);
            // Two words of one lexicon group ("年末年始の休業") are one concept, not two that any
            // member of the group would cover at once.
            let mut group: Vec<String> = syns
                .iter()
                .chain(std::iter::once(w))
                .map(|x| text::normalize(x))
                .collect();
            group.sort();
            if !syns.is_empty() {
                if groups
                    .iter()
                    .any(|g| g.iter().all(|x| group.contains(x)) || group.iter().all(|x| g.contains(x)))
                {
                    return None;
                }
                groups.push(group);
            }
            let mut alts = vec![(toks, 1.0)];
            for syn in syns {
                // The same word in the other language is nearer than a synonym.
                let weight = if text::is_japanese(&syn) != text::is_japanese(w) {
                    TRANSLATION_WEIGHT
                } else {
                    EXPANSION_WEIGHT
                };
                add_alternative(&mut alts, text::terms(&syn), weight);
            }
            // An ordinal is also its number: "the second week" is "Week 2" in a page's heading.
            if let Some(n) = ORDINALS.iter().position(|o| w.eq_ignore_ascii_case(o)) {
                add_alternative(&mut alts, vec![(n + 1).to_string()], ORDINAL_WEIGHT);
            }
            // A day of the week is also the part of the week it is in.
            if let Some(&(_, weekend)) = DAYS_OF_THE_WEEK.iter().find(|(d, _)| w.eq_ignore_ascii_case(d)) {
                for part in if weekend { WEEKEND } else { WORKING_DAYS } {
                    add_alternative(&mut alts, text::terms(part), WEEK_PART_WEIGHT);
                }
            }
            // The dictionary's translations, where the lexicon (which a person wrote for their
            // company's words) has none in the other language.
            let lexicon_translates = alts.iter().any(|(_, wt)| *wt == TRANSLATION_WEIGHT);
            for (_, list) in translated.iter().filter(|(x, _)| x == w && !lexicon_translates) {
                for tr in list {
                    add_alternative(&mut alts, text::terms(&tr.text), tr.weight);
                }
            }
            // A Japanese word's other writings and synonyms, as the Sudachi dictionary groups
            // them (期日 for 締め切り, 打ち合わせ for 会議), each weighed as it scores them.
            for (weight, _, terms) in sudachi_synonyms(w) {
                add_alternative(&mut alts, terms, weight);
            }
            // A name is never the asker's phrasing, however often the language uses it; nor
            // is a thing named by a noun ("dogs", "coffee"). A phrasal verb is as specific as
            // its verb.
            let of_word = |w: &str| {
                if is_name(w, &a.question) {
                    1.0
                } else {
                    let s = text::wordfreq::specificity(w).unwrap_or(1.0);
                    if s < EVERYDAY_BELOW && names_a_thing(w, &a.question) {
                        EVERYDAY_BELOW
                    } else {
                        s
                    }
                }
            };
            let specificity = match w.split_once(' ').filter(|_| !words.contains(w)) {
                Some((verb, _)) => of_word(verb),
                None => of_word(w),
            };
            Some(Concept {
                alternatives: alts,
                specificity,
                function_word: function_word(w, specificity),
            })
        })
        .collect();
    (with_values(concepts, &a.keywords), translated)
}

/// The concepts with each value the keywords state (a date, an amount, a share, a duration) as
/// one concept that its value term (`Value::term`) also stands for, so that "Dec 15" meets
/// "12月15日" and "2.3%" meets "2.3 %". The concepts made of the value's words become that one.
fn with_values(mut concepts: Vec<Concept>, keywords: &[String]) -> Vec<Concept> {
    let said = keywords.join(" ");
    for v in crate::text::values::extract(&said)
        .into_iter()
        .filter(|v| v.is_specific())
    {
        let words = text::terms(&said[v.start..v.end]);
        if words.is_empty() {
            continue;
        }
        let part_of_value = |c: &Concept| c.alternatives[0].0.iter().all(|t| words.contains(t));
        let Some(at) = concepts.iter().position(part_of_value) else {
            continue;
        };
        concepts.retain(|c| !part_of_value(c));
        concepts.insert(
            at.min(concepts.len()),
            Concept {
                alternatives: vec![(words, 1.0), (vec![v.term()], 1.0)],
                specificity: 1.0,
                function_word: false,
            },
        );
    }
    concepts
}

impl Analysis {
    /// The sentence encoder's vector of the question: the one analysis read, or, for an
    /// analysis made without the encoder, encoded now.
    pub fn vector_by(&self, encoder: &crate::text::encoder::Encoder) -> std::borrow::Cow<'_, [f32]> {
        match &self.vector {
            Some(v) => std::borrow::Cow::Borrowed(v.as_slice()),
            None => std::borrow::Cow::Owned(encoder.encode(self.question.trim())),
        }
    }

    /// Whether the question asks for an answer of one of `kinds` (`answer_type`).
    pub fn asks(&self, kinds: &[AnswerType]) -> bool {
        self.answer_type.as_ref().is_some_and(|t| kinds.contains(&t.kind))
    }

    /// Keywords, phrases and (`with_expansions`) the expansions in the question's own language,
    /// as one query string; the other language's are `other_language_text`.
    pub fn search_text(&self, with_expansions: bool) -> String {
        let mut parts: Vec<&str> = self.keywords.iter().map(String::as_str).collect();
        parts.extend(self.phrases.iter().map(String::as_str));
        if with_expansions {
            parts.extend(
                self.expansions
                    .iter()
                    .filter(|e| !self.other_language.contains(e))
                    .map(String::as_str),
            );
        }
        parts.join(" ")
    }

    /// The question in the other language as one query string, when it has words there.
    pub fn other_language_text(&self) -> Option<String> {
        self.other_language
            .iter()
            .any(|w| in_other_language(w, self.lang))
            .then(|| self.other_language.join(" "))
    }
}

const MONEY_CUES: &[&str] = &[
    "price",
    "cost",
    "how much",
    "pricing",
    "fee",
    "charge",
    "budget",
    "いくら",
    "価格",
    "料金",
    "値段",
    "金額",
    "費用",
    "予算",
];
const DURATION_CUES: &[&str] = &[
    "how long",
    "how often",
    "every",
    "within",
    "how many days",
    "how many minutes",
    "何日ごと",
    "何分",
    "何時間",
    "何日以内",
    "期間",
    "ごと",
    "以内",
    "何日間",
];
/// Words that ask for a date wherever they stand. "When" is not one: it opens clauses too ("what
/// happens when …"); the grammar (`answer_type`) reads it where it opens the question.
const DATE_CUES: &[&str] = &["what date", "which day", "date", "いつ", "何月何日", "日付", "何日に"];
const PERCENT_CUES: &[&str] = &["percent", "percentage", "rate", "%", "割合", "率"];

/// The kind of value a question (`text::normalize`d) asks for, if it asks for one.
pub fn focus(q: &str, intent: Intent) -> Option<ValueKind> {
    let has = |cues: &[&str]| cues.iter().any(|c| intent::cue_matches(q, c));
    if has(DURATION_CUES) {
        Some(ValueKind::Duration)
    } else if has(MONEY_CUES) {
        Some(ValueKind::Money)
    } else if has(DATE_CUES) || intent == Intent::Temporal {
        Some(ValueKind::Date)
    } else if has(PERCENT_CUES) {
        Some(ValueKind::Percent)
    } else {
        None
    }
}

/// Whether `word` is written in the language that is not `lang` (Japanese for an English
/// question; Latin letters for a Japanese one).
fn in_other_language(word: &str, lang: Lang) -> bool {
    match lang {
        Lang::En => text::is_japanese(word),
        Lang::Ja => !text::is_japanese(word) && word.chars().any(|c| c.is_ascii_alphabetic()),
    }
}

pub fn language(question: &str) -> Lang {
    if text::is_japanese(question) {
        Lang::Ja
    } else {
        Lang::En
    }
}

/// True when "last" ends the question (`text::normalize`d), where it is the verb ("how long did
/// it last?").
fn ends_with_verb_last(q: &str) -> bool {
    let words: Vec<&str> = q
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    words.last() == Some(&"last") && words.iter().filter(|w| **w == "last").count() == 1
}

/// Reads a question once for the whole pipeline: normalised text, language, intent (classified
/// from `cues`, or `forced`), the value asked for, and what to search (`analyze_as`). With
/// `encoder` (the engine's: the installed one, or none), the question's vector too.
pub fn analyze_question(
    question: &str,
    cues: &IntentCues,
    forced: Option<Intent>,
    now: DateTime<Utc>,
    lexicon: &Lexicon,
    encoder: Option<&text::encoder::Encoder>,
) -> Analysis {
    let (spelled, corrections) = spelled(question);
    let normalized = text::normalize(&spelled);
    // The question's meaning, read once from the question as written (the encoder reads case),
    // its slips corrected: the classifier and ranking's semantic factor use it.
    let vector = encoder.map(|e| e.encode(&spelled));
    let classified = match forced {
        Some(i) => Classified::forced(i),
        None => intent::classify_encoded(&normalized, encoder.zip(vector.as_deref()), cues),
    };
    let mut a = read(
        &spelled,
        &normalized,
        Some(classified.intent),
        now,
        lexicon,
        corrections,
    );
    a.question = question.to_string();
    a.focus = focus(&normalized, classified.intent);
    a.answer_type = answer_type(&normalized, a.tool_question, classified.intent == Intent::Document);
    if a.focus.is_none() {
        // The grammar names a value where no cue did ("what day", "何日間"). Not a count: nearly
        // every sentence holds some number, so "a number" would not tell evidence apart.
        a.focus = a.answer_type.as_ref().and_then(|t| match t.kind {
            _ if t.value.is_some() => t.value,
            AnswerType::Date => Some(ValueKind::Date),
            AnswerType::Duration => Some(ValueKind::Duration),
            AnswerType::Percent => Some(ValueKind::Percent),
            _ => None,
        });
    }
    a.intent = classified;
    a.vector = vector;
    a
}

/// Analyses a question against the clock `now`, its intent unknown.
pub fn analyze(question: &str, now: DateTime<Utc>, lexicon: &Lexicon) -> Analysis {
    analyze_as(question, None, now, lexicon)
}

/// `analyze` for a question of a known intent: words that only say what kind of answer that
/// intent wants (a document, an overview) are not searched for.
pub fn analyze_as(question: &str, intent: Option<Intent>, now: DateTime<Utc>, lexicon: &Lexicon) -> Analysis {
    let (spelled, corrections) = spelled(question);
    let mut a = read(&spelled, &text::normalize(&spelled), intent, now, lexicon, corrections);
    a.question = question.to_string();
    a
}

/// The question with its misspelt words corrected (`text::spell`), and the corrections as
/// (asked, read) pairs.
fn spelled(question: &str) -> (std::borrow::Cow<'_, str>, Vec<(String, String)>) {
    match text::spell::check(question) {
        Some((text, fixes)) => (
            std::borrow::Cow::Owned(text),
            fixes.into_iter().map(|c| (c.asked.to_lowercase(), c.read)).collect(),
        ),
        None => (std::borrow::Cow::Borrowed(question), Vec::new()),
    }
}

/// What to search for in `question` (`nq`: it normalised; `corrections`: its words that were
/// read as others).
fn read(
    question: &str,
    nq: &str,
    intent: Option<Intent>,
    now: DateTime<Utc>,
    lexicon: &Lexicon,
    corrections: Vec<(String, String)>,
) -> Analysis {
    let mut a = Analysis {
        question: question.to_string(),
        normalized: nq.to_string(),
        lang: language(question),
        corrections,
        ..Analysis::default()
    };
    let mut rest = String::new();
    // quoted phrases
    let mut in_quote = false;
    let mut phrase = String::new();
    for c in question.chars() {
        match c {
            '"' | '“' | '”' | '「' | '」' => {
                if in_quote && !phrase.trim().is_empty() {
                    a.phrases.push(phrase.trim().to_string());
                }
                phrase.clear();
                in_quote = !in_quote;
                rest.push(' ');
            }
            _ if in_quote => phrase.push(c),
            _ => rest.push(c),
        }
    }
    if in_quote {
        rest.push_str(&phrase);
    }
    // explicit filters
    let mut words = Vec::new();
    for w in rest.split_whitespace() {
        let lw = w.to_lowercase();
        if let Some(v) = lw.strip_prefix("from:") {
            a.user = Some(v.trim_start_matches('@').to_string());
        } else if let Some(v) = lw.strip_prefix("in:") {
            a.channel = Some(v.trim_start_matches('#').to_string());
        } else if let Some(t) = lw.strip_prefix("after:").and_then(crate::text::parse_time) {
            a.after = Some(t);
        } else if let Some(t) = lw.strip_prefix("before:").and_then(crate::text::parse_time) {
            a.before = Some(t);
        } else {
            words.push(w);
        }
    }
    a.request = words.join(" ");
    let mut body = text::normalize(&words.join(" "));
    if a.after.is_none()
        && a.before.is_none()
        && let Some((t, (s, e))) = find_time(&body, now)
    {
        a.after = t.after;
        a.before = t.before;
        let fmt = |d: DateTime<Utc>| d.format("%Y-%m-%d").to_string();
        a.time_note = Some(match (t.after, t.before) {
            (Some(x), Some(y)) => format!("{}: {} to {}", t.label, fmt(x), fmt(y)),
            (Some(x), None) => format!("{}: since {}", t.label, fmt(x)),
            (None, Some(y)) => format!("{}: before {}", t.label, fmt(y)),
            (None, None) => t.label,
        });
        body.replace_range(s..e, " ");
    }
    a.keywords = keywords(&body);
    let is_in = |k: &String, list: &[&str]| list.contains(&text::normalize(k).as_str());
    if a.keywords.iter().any(|k| is_in(k, RECENCY_WORDS)) {
        a.prefer_recent = true;
        a.latest = a.keywords.iter().any(|k| is_in(k, LATEST_WORDS));
        if a.latest && ends_with_verb_last(nq) {
            // "How long did the outage last?": the verb, not "the last outage".
            a.latest = false;
            a.prefer_recent = a
                .keywords
                .iter()
                .any(|k| is_in(k, RECENCY_WORDS) && text::normalize(k) != "last");
        }
        if a.keywords.len() > 1 {
            a.keywords.retain(|k| !is_in(k, RECENCY_WORDS));
        }
    }
    // Idioms that ask for a decision ("what's the final call on pricing?") name no subject.
    let idioms: Vec<&str> = DECISION_IDIOMS
        .iter()
        .filter(|p| intent::cue_matches(&body, p))
        .flat_map(|p| p.split_whitespace())
        .collect();
    let answer_type = |k: &String| is_in(k, ANSWER_TYPE_WORDS) || idioms.contains(&text::normalize(k).as_str());
    if a.keywords.iter().any(|k| !answer_type(k)) {
        a.keywords.retain(|k| !answer_type(k));
    }
    // "Why ...?" asks for a reason, as "理由は？" does: the reason is a concept to search for
    // (its lexicon group brings "because", "理由"), not a stop word to drop.
    if WHY_WORDS.iter().any(|c| intent::cue_matches(nq, c)) && !a.keywords.iter().any(|k| is_in(k, REASON_WORDS)) {
        a.keywords.push(REASON_WORDS[0].to_string());
    }
    a.tool_question = lexicon.tool_cues.iter().any(|c| intent::cue_matches(nq, c));
    if a.tool_question {
        // "tool" says what kind of answer is wanted, not what it is about.
        a.keywords.retain(|k| !is_in(k, TOOL_WORDS));
    } else {
        let wanted = match intent {
            Some(Intent::Document) => DOCUMENT_WORDS,
            Some(Intent::Exploratory) => OVERVIEW_WORDS,
            _ => &[],
        };
        if a.keywords.iter().any(|k| !is_in(k, wanted)) {
            let (kind, about) = std::mem::take(&mut a.keywords)
                .into_iter()
                .partition(|k| is_in(k, wanted));
            a.answer_kind_words = kind;
            a.keywords = about;
        }
    }
    a.expansions = expand(&a.keywords, &a.normalized, lexicon);
    (a.concepts, a.translations) = concepts(&a, lexicon);
    // Other writings of a keyword count as it and are searched too: its other spelling
    // (British or American), and a corrected word as it was asked (a name the word list lacks
    // may be what the sources say). Pairs of (the keyword as its concept is headed, the other).
    // A verb's noun of doing (and back), which the stemmer keeps apart, counts nearly as the
    // word: "decide" and "decision", "qualify" and a page's "Qualification" section (WordNet's
    // derivations, `WordNet::derived`).
    let derived: Vec<(String, String, f64)> = match text::wordnet::wordnet() {
        Some(wn) => a
            .keywords
            .iter()
            .filter(|k| k.bytes().all(|b| b.is_ascii_alphabetic()) && !is_name(k, &a.question))
            .flat_map(|k| {
                let lower = k.to_lowercase();
                wn.derived(&lower)
                    .into_iter()
                    .map(|d| (k.clone(), d.to_string(), DERIVED_WEIGHT))
                    .collect::<Vec<_>>()
            })
            .collect(),
        None => Vec::new(),
    };
    // A Japanese word's English translation counts by its WordNet derivations too: 解決 is
    // "resolution", and English text says the issue was "resolved" (a noun of doing that
    // Japanese writes with する is a verb in English as often as not). Each translation's,
    // weighed as the translation times `DERIVED_WEIGHT`, searched too.
    let translated_derived: Vec<(String, String, f64)> = match text::wordnet::wordnet() {
        Some(wn) if a.lang == Lang::Ja => a
            .translations
            .iter()
            .filter(|(w, _)| text::is_japanese(w))
            .flat_map(|(w, list)| {
                list.iter()
                    .filter(|t| t.text.bytes().all(|b| b.is_ascii_alphabetic()))
                    .flat_map(|t| {
                        wn.derived(&t.text.to_lowercase())
                            .into_iter()
                            .map(|d| (w.clone(), d.to_string(), t.weight * DERIVED_WEIGHT))
                            .collect::<Vec<_>>()
                    })
                    .collect::<Vec<_>>()
            })
            .collect(),
        _ => Vec::new(),
    };
    let others: Vec<(String, String, f64)> = a
        .keywords
        .iter()
        .filter_map(|k| Some((k.clone(), text::spell::variant(&k.to_lowercase())?, 1.0)))
        .chain(
            a.corrections
                .iter()
                .map(|(asked, read)| (read.clone(), asked.clone(), 1.0)),
        )
        .chain(derived)
        .chain(translated_derived)
        .collect();
    for (word, other, weight) in others {
        let (head, toks) = (text::terms(&word), text::terms(&other));
        if let Some(c) = a.concepts.iter_mut().find(|c| c.alternatives[0].0 == head)
            && !toks.is_empty()
            && !c.alternatives.iter().any(|(t, _)| *t == toks)
        {
            c.alternatives.push((toks, weight));
            if a.expansions.len() < MAX_EXPANSIONS && !a.expansions.contains(&other) {
                a.expansions.push(other);
            }
        }
    }
    // The sources search in both languages: the two surest translations of each word go to
    // them with the lexicon's expansions.
    for (_, list) in &a.translations {
        for t in list.iter().take(2) {
            if !a.expansions.contains(&t.text) && a.expansions.len() < MAX_EXPANSIONS {
                a.expansions.push(t.text.clone());
            }
        }
    }
    // A Japanese keyword's surest synonyms go to them too (`SYNONYMS_SEARCHED`): a source
    // finds evidence by the words it writes.
    for k in &a.keywords {
        let found: Vec<String> = sudachi_synonyms(k)
            .into_iter()
            .map(|(_, w, _)| w)
            .filter(|w| text::is_japanese(w) && !a.expansions.contains(w))
            .take(SYNONYMS_SEARCHED)
            .collect();
        for w in found {
            if a.expansions.len() < MAX_EXPANSIONS {
                a.expansions.push(w);
            }
        }
    }
    // The question in the other language: what translates, and what reads the same in both.
    let crossed = |w: &String| in_other_language(w, a.lang);
    a.other_language = a.expansions.iter().filter(|e| crossed(e)).cloned().collect();
    if !a.other_language.is_empty() {
        // The words that have a translation: a concept headed by their terms has an
        // alternative in the other language (from the lexicon or the dictionary).
        let translated_heads: std::collections::HashSet<&[String]> = a
            .concepts
            .iter()
            .filter(|c| {
                c.alternatives
                    .iter()
                    .skip(1)
                    .any(|(t, _)| t.iter().any(|x| in_other_language(x, a.lang)))
            })
            .map(|c| c.alternatives[0].0.as_slice())
            .collect();
        let translated = |k: &String| translated_heads.contains(text::terms(k).as_slice());
        // A value the question states, as the other language writes it ("Dec 15" -> 12月15日);
        // its words are not carried as they are.
        let said = a.keywords.join(" ");
        let mut value_words: Vec<String> = Vec::new();
        for v in text::values::extract(&said) {
            if let Some(spelled) = v.spelled(a.lang == Lang::En) {
                value_words.extend(text::terms(&said[v.start..v.end]));
                a.other_language.push(spelled);
            }
        }
        let in_value = |k: &String| {
            let t = text::terms(k);
            !t.is_empty() && t.iter().all(|t| value_words.contains(t))
        };
        let same_in_both = |k: &String| k.is_ascii() && k.chars().any(|c| c.is_ascii_alphanumeric());
        let neutral: Vec<String> = a
            .keywords
            .iter()
            .chain(&a.phrases)
            .filter(|k| same_in_both(k) && !translated(k) && !in_value(k))
            .cloned()
            .collect();
        a.other_language.extend(neutral);
    }
    a.several = asks_several_things(&a.question, &a.concepts);
    a.bound = text::values::bound(&a.question);
    a
}

/// Whether a question joins two things it asks about by a conjunction: English "and" between
/// two of its concepts' words ("the brand colors and font", not "..., and what did we do"), or
/// Japanese や, および, 及び between two words that are not hiragana (「色やフォント」, not
/// 「はやく」); と is left out, as it also means "with", and a comma only separates clauses.
fn asks_several_things(question: &str, concepts: &[Concept]) -> bool {
    let q = text::normalize(question);
    let mut tokens: Vec<(usize, usize, bool)> = Vec::new();
    text::for_each_token(&q, |t, s, e| {
        let asked = concepts.iter().any(|c| {
            c.alternatives
                .first()
                .is_some_and(|(alt, _)| alt.iter().any(|a| a == t))
        });
        tokens.push((s, e, asked));
    });
    let english = q.match_indices(" and ").any(|(at, w)| {
        let before = tokens.iter().rev().find(|(_, e, _)| *e <= at);
        let after = tokens.iter().find(|(s, _, _)| *s >= at + w.len());
        // Nothing between the first word and "and"; at most an article or a possessive after it.
        let after_gap = |s: usize| {
            let gap = q[at + w.len()..s].trim();
            gap.is_empty() || ["the", "a", "an", "our", "its", "their", "your", "my"].contains(&gap)
        };
        matches!((before, after), (Some((_, e, true)), Some((s, _, true))) if *e == at && after_gap(*s))
    });
    // A character of a word (not a space) that is not hiragana.
    let word_not_kana =
        |c: Option<char>| c.is_some_and(|c| !c.is_whitespace() && !('\u{3041}'..='\u{309F}').contains(&c));
    let japanese = ["や", "および", "及び"].iter().any(|w| {
        q.match_indices(w).any(|(at, w)| {
            word_not_kana(q[..at].chars().next_back()) && word_not_kana(q[at + w.len()..].chars().next())
        })
    });
    english || japanese
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Datelike;

    #[test]
    fn focus_kinds() {
        assert_eq!(
            focus(&text::normalize("How much is the Pro plan per seat?"), Intent::Factual),
            Some(ValueKind::Money)
        );
        assert_eq!(
            focus(
                &text::normalize("How often must passwords be rotated?"),
                Intent::Factual
            ),
            Some(ValueKind::Duration)
        );
        assert_eq!(
            focus(&text::normalize("パスワードは何日ごとに変更しますか"), Intent::Factual),
            Some(ValueKind::Duration)
        );
        assert_eq!(
            focus(&text::normalize("When does mobile v3 ship?"), Intent::Temporal),
            Some(ValueKind::Date)
        );
        assert_eq!(focus(&text::normalize("Who owns billing?"), Intent::Person), None);
        // "When" opening a clause inside the question is no cue: the grammar (`answer_type`)
        // asks for a date only when "when" opens the main clause.
        assert_eq!(
            focus(
                &text::normalize("What happens when the print queue is full?"),
                Intent::Factual
            ),
            None
        );
        let t = answer_type(&text::normalize("When does the print queue drain?"), false, false);
        assert_eq!(t.map(|t| t.kind), Some(AnswerType::Date));
    }

    fn now() -> DateTime<Utc> {
        "2026-11-20T09:00:00Z".parse().unwrap()
    }

    fn lexicon() -> Lexicon {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("policies");
        crate::config::policy::Policies::load(&dir, &[]).unwrap().lexicon
    }

    #[test]
    fn keywords_drop_stop_words_and_particles() {
        assert_eq!(
            keywords("what did we decide about the q3 price increase?"),
            ["decide", "q3", "price", "increase"]
        );
        crate::text::morph::with_bigrams(|| {
            assert_eq!(keywords("v3のリリースはいつですか？"), ["v3", "リリース"]);
            assert_eq!(keywords("前回の障害はいつ？"), ["前回", "障害"]);
        });
        assert_eq!(keywords("v3のリリースはいつですか？"), ["v3", "リリース"]);
        assert_eq!(keywords("前回の障害はいつ？"), ["前回", "障害"]);
        assert_eq!(
            keywords("how much is the pro plan per seat ($45?)"),
            ["pro", "plan", "per", "seat", "$45"]
        );
        assert_eq!(keywords("who owns on-call for sre"), ["owns", "on-call", "sre"]);
        // Contractions say nothing about the subject; a possessive keeps its noun.
        assert_eq!(keywords("What's going on with pricing lately?"), ["pricing", "lately"]);
        assert_eq!(
            keywords("Why don't we ship the company's app?"),
            ["ship", "company", "app"]
        );
        // Without a dictionary, runs of one script; with one, the compound whole.
        let ja = crate::text::morph::with_bigrams(|| keywords("火星オフィスの住所は？"));
        assert_eq!(ja, ["火星", "オフィス", "住所"]);
        if crate::text::morph::available() {
            assert_eq!(keywords("火星オフィスの住所は？"), ["火星オフィス", "住所"]);
            // A verb's continuative form before a particle is a noun (the retrospective, the
            // arrangements); another verb is a keyword by its base form, unless it only asks:
            // a filler stem (教える, 知る) or the て-form of a request (まとめて, 調べてください).
            assert_eq!(
                keywords("障害の振り返りは誰がまとめますか？"),
                ["障害", "振り返り", "まとめる"]
            );
            assert_eq!(keywords("会場の取り決めを確認したい"), ["会場", "取り決め", "確認"]);
            assert_eq!(
                keywords("サーバーの移行はもう終わった？"),
                ["サーバー", "移行", "終わる"]
            );
            assert_eq!(keywords("倉庫の在庫を調べてください"), ["倉庫", "在庫"]);
            assert_eq!(keywords("倉庫の場所を教えて"), ["倉庫", "場所"]);
            // An adjective qualifies: it is left out.
            assert_eq!(keywords("怪しい荷物は誰に渡す？"), ["荷物", "渡す"]);
        }
        // How a request is put is not what it asks for.
        assert_eq!(
            keywords("Could you kindly assist me with this extremely tricky Sudoku?"),
            ["tricky", "Sudoku"]
        );
        assert!(text::is_request_filler(&text::terms("assistance")[0]) && !text::is_request_filler("sudoku"));
        assert_eq!(
            keywords("経費精算の期限はどこに書いてありますか？"),
            ["経費精算", "期限"]
        );
    }

    #[test]
    fn why_asks_for_a_reason_and_answer_kinds_are_not_searched() {
        let lx = lexicon();
        let a = analyze("Why did we pick Postgres for billing?", now(), &lx);
        assert_eq!(a.keywords, ["postgres", "billing", "reason"]);
        let a = analyze("What's the final call on the Pro plan price?", now(), &lx);
        assert_eq!(a.keywords, ["pro", "plan", "price"]);
        let a = analyze("Who is on call this week?", now(), &lx);
        assert!(a.keywords.iter().any(|k| k == "call"), "{:?}", a.keywords);
        let a = analyze("課金DBをPostgreSQLに移す理由は？", now(), &lx);
        assert_eq!(a.keywords.iter().filter(|k| *k == "理由" || *k == "reason").count(), 1);
        let doc = Some(Intent::Document);
        let a = analyze_as("Where are the onboarding docs for new engineers?", doc, now(), &lx);
        assert_eq!(a.keywords, ["onboarding", "new", "engineers"]);
        assert_eq!(a.answer_kind_words, ["docs"]);
        // Only a question for a document wants one; elsewhere a document may be the subject.
        let a = analyze_as("Who reviewed the security document?", Some(Intent::Person), now(), &lx);
        assert!(a.keywords.iter().any(|k| k == "document"), "{:?}", a.keywords);
        let a = analyze_as("Which tool converts a document to PDF?", doc, now(), &lx);
        assert!(a.keywords.iter().any(|k| k == "document"), "{:?}", a.keywords);
        let a = analyze_as("最近の価格の議論をまとめて", Some(Intent::Exploratory), now(), &lx);
        assert_eq!(a.keywords, ["価格"]);
    }

    #[test]
    fn relative_times() {
        let lx = lexicon();
        let a = analyze("What happened in #incidents last week?", now(), &lx);
        assert_eq!(a.after.unwrap().to_rfc3339(), "2026-11-09T00:00:00+00:00");
        assert_eq!(a.before.unwrap().to_rfc3339(), "2026-11-16T00:00:00+00:00");
        assert_eq!(a.keywords, ["incidents"]);
        let a = analyze("pricing changes since October", now(), &lx);
        assert_eq!(a.after.unwrap().to_rfc3339(), "2026-10-01T00:00:00+00:00");
        assert!(a.before.is_none());
        assert_eq!(a.keywords, ["pricing", "changes"]);
        let a = analyze("Q3に出た障害", now(), &lx);
        assert_eq!((a.after.unwrap().month(), a.before.unwrap().month()), (7, 10));
        // A quarter that names what is asked about is a word, not a window.
        let a = analyze("Q3の売上", now(), &lx);
        assert!(a.after.is_none() && a.before.is_none());
        assert!(a.keywords.iter().any(|k| k == "q3"), "{:?}", a.keywords);
        let a = analyze("10月以降の障害", now(), &lx);
        assert_eq!(a.after.unwrap().to_rfc3339(), "2026-10-01T00:00:00+00:00");
        assert_eq!(a.keywords, ["障害"]);
        let a = analyze("今月のリリース", now(), &lx);
        assert_eq!(a.after.unwrap().to_rfc3339(), "2026-11-01T00:00:00+00:00");
        let a = analyze("先月の障害", now(), &lx);
        assert_eq!(a.after.unwrap().to_rfc3339(), "2026-10-01T00:00:00+00:00");
        assert_eq!(a.before.unwrap().to_rfc3339(), "2026-11-01T00:00:00+00:00");
        let a = analyze("deploys in December", now(), &lx);
        assert_eq!(a.after.unwrap().to_rfc3339(), "2025-12-01T00:00:00+00:00");
        let a = analyze("what changed last month", now(), &lx);
        assert_eq!(a.after.unwrap().to_rfc3339(), "2026-10-01T00:00:00+00:00");
    }

    #[test]
    fn filters_phrases_and_expansion() {
        let a = analyze(
            "\"per seat\" price from:@aiko in:#pricing after:2026-09-01",
            now(),
            &lexicon(),
        );
        assert_eq!(a.phrases, ["per seat"]);
        assert_eq!(a.user.as_deref(), Some("aiko"));
        assert_eq!(a.channel.as_deref(), Some("pricing"));
        assert_eq!(a.after.unwrap().to_rfc3339(), "2026-09-01T00:00:00+00:00");
        assert!(a.expansions.contains(&"価格".to_string()), "{:?}", a.expansions);
        let ja = analyze("v3のリリースはいつ？", now(), &lexicon());
        assert!(ja.expansions.contains(&"release".to_string()), "{:?}", ja.expansions);
        assert!(analyze("Which tool lets me page the on-call?", now(), &lexicon()).tool_question);
        assert!(!analyze("Who is on call?", now(), &lexicon()).tool_question);
        // A lexicon member of several words ("time off") is met where the question says it,
        // not by the one word of it that stop words leave.
        let leave = |q: &str| analyze(q, now(), &lexicon()).expansions.contains(&"休暇".to_string());
        assert!(leave("How much time off do I get?"));
        assert!(!leave("What is the acknowledgement time for SEV2?"));
        // Words joined by a hyphen are several words too: "API calls" are no on-call.
        let on_call = |q: &str| analyze(q, now(), &lexicon()).expansions.contains(&"当番".to_string());
        assert!(on_call("Who is on-call this weekend?"));
        assert!(!on_call("Why do the webhook calls to the billing API time out?"));
    }

    /// The first token list of each concept (the word itself).
    fn heads(a: &Analysis) -> Vec<String> {
        a.concepts.iter().map(|c| c.alternatives[0].0.join(" ")).collect()
    }

    #[test]
    fn japanese_compounds_split_at_known_words() {
        let lx = lexicon();
        // "期間" asks for the answer's kind (a period); "休業" is the subject.
        let a = analyze("年末年始の休業期間はいつから？", now(), &lx);
        let h = heads(&a);
        assert!(!h.iter().any(|t| t.contains("期間")), "{h:?}");
        // Two words of one lexicon group (year-end holidays, closure) make one concept.
        assert_eq!(h.len(), 1, "{h:?}");
        let a = crate::text::morph::with_bigrams(|| analyze("適格請求書の対応", now(), &lx));
        let h = heads(&a);
        assert!(
            h.contains(&"適格".to_string()) && h.contains(&"請求 求書".to_string()),
            "{h:?}"
        );
    }

    #[test]
    fn translations_weigh_more_than_synonyms() {
        let a = analyze("大阪オフィス", now(), &lexicon());
        let osaka = &a.concepts[0].alternatives;
        let en = osaka.iter().find(|(t, _)| t == &["osaka".to_string()]).unwrap();
        assert_eq!(en.1, TRANSLATION_WEIGHT);
        let b = analyze("office", now(), &lexicon());
        let ja = b.concepts[0]
            .alternatives
            .iter()
            .find(|(t, _)| t.join("") == "拠点")
            .unwrap();
        assert_eq!(ja.1, TRANSLATION_WEIGHT);
        let b = analyze("outage", now(), &lexicon());
        let syn = b.concepts[0]
            .alternatives
            .iter()
            .find(|(t, _)| t[0] == "incid")
            .unwrap();
        assert_eq!(syn.1, EXPANSION_WEIGHT);
    }

    #[test]
    fn the_other_language_is_a_query_of_its_own() {
        let lx = lexicon();
        // The lexicon translates "price" (価格): the English query keeps English words only, the
        // Japanese one the translations and what reads the same in both ("v2").
        let a = analyze("What did we decide about the v2 price?", now(), &lx);
        let own = a.search_text(true);
        assert!(own.contains("price") && !own.contains("価格"), "{own}");
        let other = a.other_language_text().expect("a query in Japanese");
        assert!(other.contains("価格") && other.contains("v2"), "{other}");
        assert!(!other.contains("price"), "{other}");
        // Nothing translates: no second query.
        let a = analyze("zyxwv xqzjt", now(), &lx);
        assert_eq!(a.other_language_text(), None);
    }

    #[test]
    fn a_word_in_the_other_script_is_a_name_not_looked_up() {
        let a = analyze("結局Proプランはいくら？", now(), &lexicon());
        let pro = a.translations.iter().find(|(w, _)| w == "pro");
        assert!(pro.is_none_or(|(_, list)| list.is_empty()), "{:?}", a.translations);
    }

    #[test]
    fn an_abbreviation_in_capitals_is_carried_not_looked_up() {
        assert_eq!(abbreviations("Who signed off on CI and the SSO setup?"), ["ci", "sso"]);
        assert_eq!(abbreviations("CIの移行はどうなった？"), ["ci"]);
        assert_eq!(abbreviations("Is the EC2 bill Up?"), ["ec2"]);
        // A question in capitals throughout says nothing by its case.
        assert!(abbreviations("WHAT WAS DECIDED ABOUT CI?").is_empty());
        let a = analyze("Is the CI pipeline green again?", now(), &lexicon());
        let ci = a.translations.iter().find(|(w, _)| w == "ci");
        assert!(ci.is_none_or(|(_, list)| list.is_empty()), "{:?}", a.translations);
    }

    #[test]
    fn a_stated_value_is_one_concept_in_any_spelling() {
        let lx = lexicon();
        let a = analyze("What changed on the invoice of 2.3%?", now(), &lx);
        let value = a
            .concepts
            .iter()
            .find(|c| {
                c.alternatives
                    .iter()
                    .any(|(t, _)| t[0].starts_with(text::values::VALUE_TERM_MARK))
            })
            .expect("the share is a value concept");
        assert_eq!(
            value.alternatives[1].0,
            [format!("{}Percent:2.3%", text::values::VALUE_TERM_MARK)]
        );
        // Its words are no concepts of their own.
        let words = &value.alternatives[0].0;
        assert_eq!(
            a.concepts.iter().filter(|c| c.alternatives[0].0 == *words).count(),
            1,
            "{:?}",
            a.concepts
        );
    }

    #[test]
    fn a_compound_the_dictionary_lacks_is_translated_member_by_member() {
        let Some(d) = text::jmdict::dictionary() else {
            return; // without JMdict there is nothing to translate with (tests/it/language.rs installs it)
        };
        if !crate::text::morph::available() || !d.to_english("不良率").is_empty() {
            return;
        }
        let found = by_members("不良率", d);
        let [t] = found.as_slice() else {
            panic!("one translation put together: {found:?}")
        };
        assert!(t.text.ends_with("rate") && t.text.contains(' '), "{t:?}");
        assert!(t.weight < crate::text::jmdict::BEST_WEIGHT, "{t:?}");
    }

    #[test]
    fn japanese_words_written_together_are_looked_up_as_one() {
        let Some(d) = text::jmdict::dictionary() else {
            return; // without JMdict there is nothing to translate with (tests/it/language.rs installs it)
        };
        if !crate::text::morph::available() || d.to_english("cmソング").is_empty() {
            return;
        }
        let jingle = |q: &str| {
            analyze(q, now(), &lexicon())
                .concepts
                .iter()
                .flat_map(|c| c.alternatives.iter())
                .any(|(alt, _)| alt.iter().any(|t| t.starts_with("jingl")))
        };
        // Written for this test: CM and ソング are one entry ("advertising jingle") only together.
        assert!(jingle("新しいCMソングの予算は？"));
        assert!(!jingle("CMの予算とソングの候補は？"));
    }

    #[test]
    fn a_name_is_as_specific_as_can_be() {
        // Written for this test. "London" is common in English, but a name: never the asker's
        // phrasing.
        let spec = |q: &str, w: &str| {
            analyze(q, now(), &lexicon())
                .concepts
                .iter()
                .find(|c| c.alternatives[0].0 == [w])
                .map(|c| c.specificity)
        };
        assert_eq!(spec("When does the London office open?", "london"), Some(1.0));
        // Lower-cased it is a word like any other: a place is a thing a question asks about, so
        // with WordNet's nouns it is not everyday either (`names_a_thing`).
        let mut lower = crate::text::wordfreq::specificity("london").unwrap_or(1.0);
        if crate::text::wordnet::wordnet().is_some_and(|w| w.concrete_noun("london")) {
            lower = lower.max(EVERYDAY_BELOW);
        }
        assert_eq!(spec("when does the london office open?", "london"), Some(lower));
        // A question in title case names nothing by its capitals.
        assert_eq!(spec("When Does The London Office Open?", "london"), Some(lower));
        if crate::text::morph::available() {
            assert_eq!(crate::text::morph::proper_noun("東京"), Some(true));
            assert_eq!(crate::text::morph::proper_noun("拠点"), Some(false));
            assert_eq!(spec("東京の拠点はいつ開く？", "東京"), Some(1.0));
        }
    }

    #[test]
    fn a_verb_counts_the_noun_of_its_doing_nearly_as_itself() {
        // Written for this test: the stemmer keeps "qualify" (qualifi) and "qualification"
        // (qualif) apart; WordNet derives one from the other.
        let ready = crate::text::wordnet::wordnet().is_some_and(|w| !w.derived("qualify").is_empty());
        if !ready {
            eprintln!("SKIPPED: needs WordNet's derived.tsv in the data directory");
            return;
        }
        let a = analyze("How do we qualify a lead for the pilot?", now(), &lexicon());
        let qualify = concept_headed(&a, &["qualifi"]);
        assert!(
            qualify
                .alternatives
                .iter()
                .any(|(t, w)| *t == ["qualif"] && *w == DERIVED_WEIGHT),
            "{:?}",
            qualify.alternatives
        );
        assert!(
            a.expansions.contains(&"qualification".to_string()),
            "{:?}",
            a.expansions
        );
        // A Japanese word's English translation brings its derivations: 解決 is "resolution",
        // and English text says "resolved".
        if crate::text::jmdict::dictionary().is_some() && crate::text::morph::available() {
            let a = analyze("障害はいつ解決しましたか", now(), &lexicon());
            let solved = concept_headed(&a, &["解決"]);
            assert!(
                solved
                    .alternatives
                    .iter()
                    .any(|(t, w)| *t == ["resolv"] && *w < DERIVED_WEIGHT),
                "{:?}",
                solved.alternatives
            );
        }
        // A name is not read as a word of the language.
        let plain = analyze("Who looks after the shipment tracker?", now(), &lexicon());
        assert!(plain.expansions.iter().any(|e| e == "ship"), "{:?}", plain.expansions);
        let named = analyze("Who looks after the Shipment Tracker?", now(), &lexicon());
        assert!(!named.expansions.iter().any(|e| e == "ship"), "{:?}", named.expansions);
    }

    /// The concept whose first alternative is `head` (index terms).
    fn concept_headed<'a>(a: &'a Analysis, head: &[&str]) -> &'a Concept {
        a.concepts
            .iter()
            .find(|c| c.alternatives[0].0 == head)
            .unwrap_or_else(|| panic!("a concept for {head:?}: {:?}", a.concepts))
    }

    #[test]
    fn an_ordinal_is_also_its_number() {
        // Written for this test: "the third week" is "Week 3" in a heading.
        let a = analyze("What happens in the third week of training?", now(), &lexicon());
        let third = concept_headed(&a, &["third"]);
        assert!(
            third
                .alternatives
                .iter()
                .any(|(t, w)| *t == ["3"] && *w == ORDINAL_WEIGHT),
            "{:?}",
            third.alternatives
        );
    }

    #[test]
    fn a_day_of_the_week_is_also_the_part_of_the_week_it_is_in() {
        // Written for this test: office hours are written for weekends and weekdays.
        for (q, day, part) in [
            ("Is the office open on Saturday?", "saturday", "weekend"),
            ("Is the office open on Tuesday?", "tuesday", "weekday"),
            ("日曜日はオフィスに入れますか？", "日曜日", "週末"),
        ] {
            let a = analyze(q, now(), &lexicon());
            let Some(c) = a
                .concepts
                .iter()
                .find(|c| c.alternatives[0].0.iter().any(|t| text::terms(day).contains(t)))
            else {
                // Without IPADIC a Japanese question may cut the day otherwise.
                assert!(text::is_japanese(day), "{q}: {:?}", a.concepts);
                continue;
            };
            let want = text::terms(part);
            assert!(
                c.alternatives.iter().any(|(t, w)| *t == want && *w == WEEK_PART_WEIGHT),
                "{q}: {:?}",
                c.alternatives
            );
        }
    }

    #[test]
    fn a_pair_the_dictionary_has_is_one_concept() {
        // Written for this test: the pair's translation as `translations` gives it.
        let tr = |w: &str, t: &[&str]| {
            let list = t
                .iter()
                .map(|x| crate::text::jmdict::Translation {
                    text: x.to_string(),
                    weight: 0.5,
                })
                .collect();
            (w.to_string(), list)
        };
        let words: Vec<String> = ["mysql", "shut", "down"].map(String::from).to_vec();
        let translated = vec![
            tr("mysql", &[]),
            tr("shut", &["潰す"]),
            tr("down", &["潰す"]),
            tr("shut down", &["潰す"]),
        ];
        assert_eq!(
            dictionary_pairs(&words, &translated, "when will mysql be shut down?"),
            ["mysql", "shut down"]
        );
        assert_eq!(
            dictionary_pairs(&words, &translated, "when will mysql shut its doors down?"),
            ["mysql", "shut", "down"],
            "words apart in the question are two"
        );
        assert_eq!(
            dictionary_pairs(&words, &translated[..3], "when will mysql be shut down?"),
            ["mysql", "shut", "down"],
            "a pair the dictionary lacks is two words"
        );
        // A particle that is a stop word is no keyword: the verb is written as the pair.
        let words: Vec<String> = ["sign", "discount"].map(String::from).to_vec();
        let translated = vec![
            tr("sign", &["サインオフ"]),
            tr("discount", &["割引"]),
            tr("sign off", &["サインオフ"]),
        ];
        assert_eq!(
            dictionary_pairs(&words, &translated, "who has to sign off on a discount?"),
            ["sign off", "discount"]
        );
    }

    #[test]
    fn a_noun_that_names_a_thing_is_never_everyday() {
        // Written for this test. "car" and "water" are everyday English, but as nouns of things
        // they are what the question asks about; "park" after "I" is a verb, and stays everyday.
        let ready = crate::text::wordfreq::frequencies().is_some()
            && crate::text::wordnet::wordnet().is_some_and(|w| w.kind_of("car", &["physical_entity"]).is_some());
        if !ready {
            eprintln!("SKIPPED: needs the word lists and WordNet's nouns in the data directory");
            return;
        }
        let everyday = |q: &str, w: &str| {
            analyze(q, now(), &lexicon())
                .concepts
                .iter()
                .find(|c| c.alternatives[0].0 == [w])
                .map(Concept::everyday)
        };
        assert_eq!(
            everyday("Is there a charger for my car in the garage?", "car"),
            Some(false)
        );
        assert_eq!(
            everyday("Can guests get water at the front desk?", "water"),
            Some(false)
        );
        assert_eq!(everyday("Where should I park during the audit?", "park"), Some(true));
        if crate::text::morph::available() && crate::text::jmdict::dictionary().is_some() {
            assert_eq!(everyday("会議室にコーヒーはありますか", "コーヒー"), Some(false));
            assert_eq!(everyday("倉庫の作業はいつ終わる？", "作業"), Some(true));
        }
    }

    #[test]
    fn latest_versus_recent_versus_the_verb_last() {
        let lx = lexicon();
        let a = analyze("When was the last incident?", now(), &lx);
        assert!(a.latest && a.prefer_recent);
        let a = analyze("最近の価格の議論をまとめて", now(), &lx);
        assert!(a.prefer_recent && !a.latest);
        let a = analyze("How long did the EU login outage last?", now(), &lx);
        assert!(!a.latest && !a.prefer_recent);
        assert!(!a.keywords.contains(&"last".to_string()), "{:?}", a.keywords);
        // Decision words say what is asked, not what it is about.
        let a = analyze("What was decided about CI tooling?", now(), &lx);
        assert_eq!(a.keywords, ["ci", "tooling"]);
    }
}
