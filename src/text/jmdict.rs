//! English <-> Japanese translation of a question's words from JMdict (the Electronic
//! Dictionary Research and Development Group's dictionary, CC BY-SA 4.0), as the sorted tables
//! `jmdict/ja.tsv`, `jmdict/en.tsv` and `jmdict/acts.tsv` that `scripts/install-language-data`
//! builds in the data directory (their format and scores: `scripts/language_data.py`).
//!
//! Loading reads the files and notes where each line starts; a word is found by binary search,
//! so nothing is built at start-up. Translations are chosen, not listed: the table's score says
//! how good a choice each is (a sense by its rank in its entry, a gloss by its rank in its sense,
//! common words first); an English word is looked up as a noun first, as a verb ("to ...")
//! only when no noun sense has it; a few are kept, each with a weight below 1.

use std::path::Path;
use std::sync::LazyLock;

use crate::text::table::Table;
use crate::util::data::Status;

/// Translations kept per word, at most (`scripts/language_data.py` writes no more: its `KEEP`).
/// With the gloss penalty it uses, the first sense's first three glosses can all be kept
/// (最初: "beginning", "outset", "first").
pub const MAX_TRANSLATIONS: usize = 4;
/// A translation's weight when it is the best possible choice (first sense, first gloss, a
/// common word); every other choice weighs less.
pub const BEST_WEIGHT: f64 = 0.6;
/// Choices below this share of the best one are dropped: a word without JMdict's priority tags
/// (scored 0.6) is no translation where a common one (1.0) exists ("hotel" is ホテル, not the
/// slang テルホ). 0.45 kept them; 0.65 raised strict facts on both demo sets (0.880 -> 0.892,
/// 0.592 -> 0.604) and lost nothing. `scripts/language_data.py` writes nothing below it (its
/// `FLOOR`): raising it here needs no reinstall, lowering it does.
const RELATIVE_FLOOR: f64 = 0.65;

/// The loaded dictionary.
pub struct Dictionary {
    ja: Table,
    en: Table,
    /// The nouns taking する that JMdict glosses by an English "-ing" form (添付 "attaching").
    acts: Table,
}

/// A translation of a word, with how sure the choice is (at most `BEST_WEIGHT`).
#[derive(Debug, Clone, PartialEq)]
pub struct Translation {
    pub text: String,
    pub weight: f64,
}

/// How messages name the dictionary.
static NAMES: crate::util::data::Names = crate::util::data::Names {
    title: "English-Japanese dictionary",
    source: "JMdict",
    without: "questions cross languages only through policies/lexicon.yaml",
    plural: false,
};

static STATE: LazyLock<(Option<Dictionary>, Status)> = LazyLock::new(|| {
    crate::util::data::load_resource(&NAMES, "jmdict", &["ja.tsv", "en.tsv", "acts.tsv"], load, |d| {
        let (forms, glosses) = d.entries();
        format!("{forms} Japanese forms, {glosses} English glosses")
    })
});

/// The dictionary's status (loading it on first call).
pub fn status() -> &'static Status {
    &STATE.1
}

/// The dictionary, when installed and readable (loading it on first call).
pub fn dictionary() -> Option<&'static Dictionary> {
    STATE.0.as_ref()
}

/// A word as the English table's key: lower case, single spaces.
fn key(word: &str) -> String {
    word.to_lowercase().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Reads the tables in `dir`. A malformed line is an error naming it: a damaged file is
/// reported, not half used.
pub fn load(dir: &Path) -> Result<Dictionary, String> {
    let table = |name: &str| Table::read(&dir.join(name), 256 << 20);
    Ok(Dictionary {
        ja: table("ja.tsv")?,
        en: table("en.tsv")?,
        acts: table("acts.tsv")?,
    })
}

impl Dictionary {
    /// English translations of a Japanese word, best first.
    pub fn to_english(&self, word: &str) -> Vec<Translation> {
        choose(self.ja.get(&crate::text::normalize(word)))
    }

    /// A Japanese word's first English translation, lower case, when it is one word (締め切り:
    /// "deadline"; not "time limit"): what WordNet can look up for it.
    pub fn first_word_gloss(&self, word: &str) -> Option<String> {
        let first = self.to_english(word).into_iter().next()?.text.to_lowercase();
        (!first.contains(' ')).then_some(first)
    }

    /// Japanese translations of an English word or phrase, best first: its noun senses, else
    /// its singular's, else its verb senses ("to ...").
    pub fn to_japanese(&self, phrase: &str) -> Vec<Translation> {
        let k = key(phrase);
        let mut found = self.en.get(&k);
        // A compound written with a hyphen that the dictionary writes with a space
        // ("per-person": "per person" 1人あたり).
        if found.is_empty() && k.contains('-') {
            return self.to_japanese(&k.replace('-', " "));
        }
        // A plural is looked up as its singular too: where the singular's entry is the surer
        // choice, the plural's own (often a rarer word's gloss: "workers" 勤務者) does not
        // shadow it ("worker" ワーカー); a plural with a meaning of its own ("glasses" 眼鏡) is as
        // sure as its singular and keeps its own. (A verb's "-ed" form is not looked up by its
        // stem: "closed" is お休み中, and "close" is 密接.)
        if let Some(s) = singular(&k) {
            let one = self.en.get(&s);
            let (own, theirs) = (found.first().map_or(0.0, |c| c.0), one.first().map_or(0.0, |c| c.0));
            if theirs > own {
                for c in one {
                    match found.iter_mut().find(|f| f.1 == c.1) {
                        Some(f) => f.0 = f.0.max(c.0),
                        None => found.push(c),
                    }
                }
                found.sort_by(|a, b| b.0.total_cmp(&a.0));
            }
        }
        if found.is_empty() {
            found = self.en.get(&format!("to {k}"));
        }
        choose(found)
    }

    /// Japanese translations of an English word the question uses as a verb ("what do I
    /// attach"): the noun taking する that JMdict glosses first by the verb's "-ing" form, when
    /// that is its surest choice (添付, "attaching": the noun a Japanese text writes for the act;
    /// not an adjective, 清々しい "refreshing"),
    /// then the word's translations as `to_japanese` chooses them (アタッチ; a loanword noun
    /// such as ロック is how Japanese text often writes the act too).
    pub fn verb_to_japanese(&self, word: &str) -> Vec<Translation> {
        let mut found = self.to_japanese(word);
        if let Some((score, noun)) = gerunds(&key(word))
            .iter()
            .filter_map(|g| self.acts.get(g).into_iter().next())
            .find(|(score, _)| *score >= GERUND_MIN)
        {
            found.retain(|t| t.text != noun);
            found.insert(
                0,
                Translation {
                    text: noun.to_string(),
                    weight: BEST_WEIGHT * score,
                },
            );
            found.truncate(MAX_TRANSLATIONS);
        }
        found
    }

    /// Written forms and glosses in the two tables.
    pub fn entries(&self) -> (usize, usize) {
        (self.ja.len(), self.en.len())
    }
}

/// A gloss by a verb's "-ing" form names a noun for the act only when it is the entry's surest
/// choice (first sense, first gloss, a common word: 添付 "attaching", 適用 "applying"); weaker
/// ones are stray senses ("canceling": お倉).
const GERUND_MIN: f64 = 0.9;

/// The "-ing" forms an English verb may have: "attach" -> "attaching", "approve" ->
/// "approving", "submit" -> "submitting" (a doubled last consonant).
fn gerunds(verb: &str) -> Vec<String> {
    if verb.contains(' ') || verb.len() < 3 || !verb.bytes().all(|b| b.is_ascii_lowercase()) {
        return Vec::new();
    }
    // A silent "e" goes ("approve": "approving"), a doubled one stays ("agree": "agreeing").
    if let Some(stem) = verb.strip_suffix('e')
        && !verb.ends_with("ee")
    {
        return vec![format!("{stem}ing")];
    }
    let mut out = vec![format!("{verb}ing")];
    let b = verb.as_bytes();
    let vowel = |c: u8| b"aeiou".contains(&c);
    let n = b.len();
    if !vowel(b[n - 1]) && !b"wxy".contains(&b[n - 1]) && vowel(b[n - 2]) && !vowel(b[n - 3]) {
        out.push(format!("{verb}{}ing", b[n - 1] as char));
    }
    out
}

/// An English plural's singular ("rates" -> "rate", "policies" -> "policy"), if it is one.
fn singular(word: &str) -> Option<String> {
    if word.contains(' ') || word.len() < 4 {
        return None;
    }
    if let Some(stem) = word.strip_suffix("ies") {
        return Some(format!("{stem}y"));
    }
    if word.ends_with("ss") {
        return None;
    }
    word.strip_suffix('s').map(str::to_string)
}

/// The best few of `candidates` (`(score, text)`, best first) as translations: within
/// `RELATIVE_FLOOR` of the best, at most `MAX_TRANSLATIONS`, weighed by `BEST_WEIGHT`.
fn choose(candidates: Vec<(f64, &str)>) -> Vec<Translation> {
    let best = candidates.first().map_or(0.0, |c| c.0);
    candidates
        .into_iter()
        .filter(|c| c.0 >= best * RELATIVE_FLOOR)
        .take(MAX_TRANSLATIONS)
        .map(|(score, text)| Translation {
            text: text.to_string(),
            weight: BEST_WEIGHT * score,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const JA: &str = "住所\t1.000:address\t0.741:residence\t0.588:domicile\n\
率\t1.000:rate\t0.741:ratio\t0.700:proportion\t0.690:percentage\t0.660:quotient\t0.488:share\n\
量産\t1.000:mass production\n";
    const EN: &str = "address\t1.000:住所\t1.000:アドレス\t0.400:挨拶\n\
mass production\t1.000:量産\t0.700:大量生産\n\
rate\t1.000:率\n\
to migrate\t1.000:移行する\n\
workaround\t0.600:回避策\n";

    fn dict() -> Dictionary {
        with_tables(EN, "")
    }

    /// The sample Japanese table with these English and act tables.
    fn with_tables(en: &str, acts: &str) -> Dictionary {
        Dictionary {
            ja: Table::new(JA.into()).expect("a valid sample"),
            en: Table::new(en.into()).expect("a valid sample"),
            acts: Table::new(acts.into()).expect("a valid sample"),
        }
    }

    #[test]
    fn a_verb_is_read_first_as_the_noun_for_its_act() {
        // Sample lines in the table's format, written for this test.
        let en = "attaching\t1.000:添付\n\
canceling\t0.375:お倉\n\
refresh\t1.000:リフレッシュ\n\
refreshing\t1.000:清々しい\n\
to attach\t1.000:付ける\t1.000:つける\n\
to cancel\t1.000:取り消す\n";
        let acts = "attaching\t1.000:添付\n\
canceling\t0.375:お倉\n";
        let d = with_tables(en, acts);
        let texts = |w: &str| -> Vec<String> { d.verb_to_japanese(w).into_iter().map(|t| t.text).collect() };
        assert_eq!(texts("attach"), ["添付", "付ける", "つける"]);
        assert_eq!(
            texts("cancel"),
            ["取り消す"],
            "a stray sense of the -ing form is no noun for the act"
        );
        assert_eq!(
            texts("refresh"),
            ["リフレッシュ"],
            "an adjective glossed by the -ing form is no noun for the act"
        );
        assert_eq!(
            d.to_japanese("attach")[0].text,
            "付ける",
            "a word not used as a verb is read as before"
        );
        assert_eq!(
            dict().to_japanese("mass-production")[0].text,
            "量産",
            "a hyphen for the space"
        );
        assert_eq!(gerunds("approve"), ["approving"]);
        assert_eq!(gerunds("agree"), ["agreeing"]);
        assert_eq!(gerunds("submit"), ["submiting", "submitting"]);
        assert_eq!(gerunds("see"), ["seeing"]);
    }

    #[test]
    fn a_far_weaker_sense_is_not_a_translation() {
        let got = dict().to_japanese("Address");
        let texts: Vec<&str> = got.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(
            texts,
            ["住所", "アドレス"],
            "挨拶 (a speech) is below the floor: {got:?}"
        );
        assert!(got.iter().all(|t| t.weight <= BEST_WEIGHT));
    }

    #[test]
    fn phrases_plurals_and_verbs_translate() {
        let d = dict();
        let mass = d.to_japanese("mass production");
        assert_eq!(mass[0].text, "量産", "{mass:?}");
        assert!(mass[1].weight < mass[0].weight);
        assert_eq!(d.to_japanese("rates")[0].text, "率");
        let en = "glass\t1.000:ガラス\n\
glasses\t1.000:眼鏡\n\
worker\t1.000:ワーカー\t0.833:労働者\n\
workers\t0.600:勤務者\n";
        let d2 = with_tables(en, "");
        let texts = |w: &str| -> Vec<String> { d2.to_japanese(w).into_iter().map(|t| t.text).collect() };
        assert_eq!(texts("workers"), ["ワーカー", "労働者"], "the singular's surer entry");
        assert_eq!(
            texts("glasses"),
            ["眼鏡"],
            "a plural as sure as its singular keeps its own"
        );
        assert_eq!(
            d.to_japanese("migrate")[0].text,
            "移行する",
            "a verb sense when no noun has it"
        );
        assert!(d.to_japanese("absent").is_empty());
    }

    #[test]
    fn an_uncommon_word_is_no_translation_where_a_common_one_exists() {
        let en = "hotel\t1.000:ホテル\t0.600:テルホ\n";
        let got = with_tables(en, "").to_japanese("hotel");
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].text, "ホテル");
    }

    #[test]
    fn japanese_to_english_keeps_the_best_few() {
        let got = dict().to_english("率");
        assert_eq!(got.len(), MAX_TRANSLATIONS, "{got:?}");
        assert_eq!(got[0].text, "rate");
        assert!(dict().to_english("存在しない").is_empty());
    }

    #[test]
    fn a_damaged_table_is_named_by_line() {
        let err = Table::new("b\t1.0:x\na\t1.0:y\n".into()).err().expect("an error");
        assert!(err.contains("line 2") && err.contains("order"), "{err}");
        let err = Table::new("a\t1.0:x\nb\n".into()).err().expect("an error");
        assert!(err.contains("line 2"), "{err}");
        let err = Table::new("a\tnot-a-score\n".into()).err().expect("an error");
        assert!(err.contains("score:text"), "{err}");
    }
}
