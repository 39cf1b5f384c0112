//! What kind of answer a question asks for, read from the grammar of questions only: the
//! interrogative that opens the main clause (English) or the 疑問詞 and the counter after 何
//! (Japanese), the word after "how", a plural head noun after "what" or "which", an opening
//! auxiliary verb, a closing 「か」 with no 疑問詞. Closed word classes (interrogatives,
//! auxiliaries, determiners, prepositions, calendar and time-unit words, counters), nothing taken
//! from a golden question; what a noun means is left to the intent and to the evidence.

use serde::Serialize;

use crate::text::values::ValueKind;

/// The kind of answer a question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AnswerType {
    /// A person: "who", "whose", 「誰」.
    Person,
    /// A date or a point in time: "when", "what day", 「いつ」, 「何日に」.
    Date,
    /// A period or a frequency: "how long", "how often", 「何日間」, 「何時間」.
    Duration,
    /// An amount or a measure: "how much", "how big", 「いくら」, 「どのくらい」.
    Amount,
    /// A count: "how many", 「何人」, 「何件」, 「いくつ」.
    Count,
    /// A share: "what percentage", 「何%」, 「何割」.
    Percent,
    /// A place: "where", 「どこ」.
    Place,
    /// A document or page (a "where" or "which" question of the document intent).
    Document,
    /// A tool, command or integration.
    Tool,
    /// Yes or no: an opening auxiliary verb, 「…ますか」 with no 疑問詞.
    YesNo,
    /// A reason: "why", 「なぜ」, 「どうして」.
    Reason,
    /// A way of doing something: "how do I …", 「どうやって」, 「どのように」.
    Procedure,
    /// Several items: a plural head noun after "what are" or "which", "list", 「一覧」.
    List,
    /// What something is, what state it is in or what was decided: "what is …", "what did …",
    /// 「何」, 「…は？」.
    Definition,
}

impl AnswerType {
    pub fn as_str(self) -> &'static str {
        match self {
            AnswerType::Person => "person",
            AnswerType::Date => "date",
            AnswerType::Duration => "duration",
            AnswerType::Amount => "amount",
            AnswerType::Count => "count",
            AnswerType::Percent => "percent",
            AnswerType::Place => "place",
            AnswerType::Document => "document",
            AnswerType::Tool => "tool",
            AnswerType::YesNo => "yes_no",
            AnswerType::Reason => "reason",
            AnswerType::Procedure => "procedure",
            AnswerType::List => "list",
            AnswerType::Definition => "definition",
        }
    }
}

impl std::fmt::Display for AnswerType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An answer type and the words of the question that gave it (for `--explain`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Typed {
    pub kind: AnswerType,
    pub because: String,
    /// The kind of value asked for, where the question's noun names it ("what is the fee":
    /// an amount of money, not any measure).
    #[serde(skip)]
    #[schemars(skip)]
    pub value: Option<ValueKind>,
    /// The plural noun that names the items a list question asks for ("steps", "criteria"):
    /// the shape of the answer, which evidence that lists them need not write.
    #[serde(skip)]
    #[schemars(skip)]
    pub items: Option<String>,
    /// The unit a duration is asked in ("how many minutes", 「何分」: "minute", as
    /// `values::duration_unit` writes it).
    #[serde(skip)]
    #[schemars(skip)]
    pub unit: Option<&'static str>,
}

fn typed(kind: AnswerType, because: impl Into<String>) -> Option<Typed> {
    Some(Typed {
        kind,
        because: because.into(),
        value: None,
        items: None,
        unit: None,
    })
}

/// Kinds of thing in WordNet's noun hierarchy (lemmas of its synsets) that are values, with the
/// answer a question for one asks for: "what is the deadline" asks for a date as "when" does,
/// "what is the fee" for an amount of money, "what is the latency" for a duration. A period
/// WordNet calls a `time_period` ("stage", "phase", "season") is not among them: "what stage
/// is it at" asks which one, not how long.
const VALUE_CLASSES: &[(&str, AnswerType, ValueKind)] = &[
    ("point_in_time", AnswerType::Date, ValueKind::Date),
    ("time_unit", AnswerType::Date, ValueKind::Date),
    ("time_interval", AnswerType::Duration, ValueKind::Duration),
    ("monetary_value", AnswerType::Amount, ValueKind::Money),
    ("cost", AnswerType::Amount, ValueKind::Money),
    ("money", AnswerType::Amount, ValueKind::Money),
    ("proportion", AnswerType::Percent, ValueKind::Percent),
];

/// The value the noun `head` names by its kind in WordNet (`VALUE_CLASSES`), for a question
/// that asks for it with `wh`; `None` without WordNet's nouns.
fn value_noun(wh: &str, head: &str) -> Option<Typed> {
    let (class, kind, value) = value_class(head)?;
    Some(Typed {
        kind,
        because: format!("\u{201c}{wh} … {head}\u{201d} (WordNet: a {})", class.replace('_', " ")),
        value: Some(value),
        items: None,
        unit: None,
    })
}

/// The class of `VALUE_CLASSES` the English noun `head` is a kind of, with its answer and value.
fn value_class(head: &str) -> Option<(&'static str, AnswerType, ValueKind)> {
    let wordnet = crate::text::wordnet::wordnet()?;
    let classes: Vec<&str> = VALUE_CLASSES.iter().map(|(c, _, _)| *c).collect();
    let class = wordnet.kind_of(head, &classes)?;
    VALUE_CLASSES.iter().find(|(c, _, _)| *c == class).copied()
}

/// English interrogative words.
const WH: &[&str] = &["who", "whom", "whose", "when", "where", "why", "what", "which", "how"];
/// Auxiliary and modal verbs: one that opens a question makes it a yes/no question.
const AUXILIARIES: &[&str] = &[
    "am", "is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "can", "could", "will", "would",
    "shall", "should", "may", "might", "must",
];
/// Words that close a noun phrase after "what" or "which": determiners, pronouns,
/// prepositions, conjunctions, auxiliaries.
const FUNCTION: &[&str] = &[
    "the",
    "a",
    "an",
    "this",
    "that",
    "these",
    "those",
    "our",
    "my",
    "your",
    "their",
    "its",
    "his",
    "her",
    "we",
    "i",
    "you",
    "they",
    "it",
    "he",
    "she",
    "of",
    "for",
    "in",
    "on",
    "at",
    "to",
    "from",
    "by",
    "with",
    "about",
    "and",
    "or",
    "but",
    "if",
    "than",
    "as",
    "into",
    "over",
    "under",
    "after",
    "before",
    "since",
    "until",
    "during",
    "between",
    "there",
    "not",
    "still",
    "currently",
    "now",
    "actually",
    "exactly",
    "really",
];
/// Determiners and possessives that may open the noun phrase after "what are".
const DETERMINERS: &[&str] = &[
    "the", "a", "an", "this", "that", "these", "those", "our", "my", "your", "their", "its", "his", "her", "all",
    "any", "some",
];
/// Calendar words: "what day", "which year" ask for a date.
const CALENDAR: &[&str] = &[
    "date", "day", "time", "year", "month", "week", "weekday", "quarter", "hour",
];
/// Units of time: "how many days", "how much time" ask for a period.
const TIME_UNITS: &[&str] = &[
    "second", "seconds", "minute", "minutes", "hour", "hours", "day", "days", "week", "weeks", "month", "months",
    "year", "years", "time", "quarters", "sprints",
];
/// Words that name the answer's shape as a list.
const LIST_WORDS: &[&str] = &["list", "enumerate", "一覧", "リスト", "列挙", "挙げて"];
/// Quantifiers of totality: a question for all of something (「全部教えて」, and in English "all
/// the limits", read by `asks_all`) asks for every item.
const JA_ALL: &[&str] = &["全部", "全て", "すべて", "一通り", "ひととおり"];
/// Words that may stand between "all" and its noun ("all of the", "all our").
const ALL_BETWEEN: &[&str] = &[
    "of", "the", "our", "my", "your", "their", "its", "his", "her", "these", "those",
];

/// Whether English `words` ask for all of a plural noun ("all the limits", "every step" is
/// singular and one item, "all day" no list).
fn asks_all(words: &[String]) -> bool {
    words.iter().enumerate().any(|(i, w)| {
        w == "all" && {
            let mut j = i + 1;
            while words.get(j).is_some_and(|w| ALL_BETWEEN.contains(&w.as_str())) {
                j += 1;
            }
            let (np, _) = noun_phrase(words, j);
            np.last().is_some_and(|h| plural(h))
        }
    })
}
/// Verbs that take a question as their object ("can you tell me who …", "do you know when …").
const ASKING_VERBS: &[&str] = &[
    "tell", "know", "show", "say", "explain", "remember", "recall", "find", "check", "see", "confirm",
];

/// Words of an English question (`text::normalize`d), contractions opened ("what's" → "what
/// is").
fn english_words(q: &str) -> Vec<String> {
    let mut out = Vec::new();
    for w in q
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
    {
        let w = w.replace('’', "'");
        match w.split_once('\'') {
            Some((head, "s")) if WH.contains(&head) || head == "it" || head == "that" => {
                out.push(head.to_string());
                out.push("is".to_string());
            }
            Some((head, "re")) => {
                out.push(head.to_string());
                out.push("are".to_string());
            }
            Some((head, "s")) => out.push(head.to_string()),
            _ => out.push(w),
        }
    }
    out
}

/// A plural English noun by its ending ("steps", "criteria" is not seen; "status" is not one).
fn plural(w: &str) -> bool {
    w.len() > 3
        && w.is_ascii()
        && w.ends_with('s')
        && !w.ends_with("ss")
        && !w.ends_with("us")
        && !w.ends_with("is")
        && !w.ends_with("ics")
}

/// The noun phrase after position `i` (up to four words that are not function words), and
/// where it ends.
fn noun_phrase(words: &[String], mut i: usize) -> (Vec<&str>, usize) {
    let mut np = Vec::new();
    while let Some(w) = words.get(i) {
        if np.len() == 4
            || FUNCTION.contains(&w.as_str())
            || AUXILIARIES.contains(&w.as_str())
            || WH.contains(&w.as_str())
        {
            break;
        }
        np.push(w.as_str());
        i += 1;
    }
    (np, i)
}

/// "Where are we with …", "where is X at": the words that ask how far something has got, for
/// the "where" at `at`; `None` for a question of place.
fn progress(words: &[String], at: usize) -> Option<String> {
    let next = words.get(at + 1).map_or("", String::as_str);
    if matches!(next, "are" | "is" | "do" | "does") {
        let after = words.get(at + 2..).unwrap_or_default();
        if let Some(p) = after.iter().take(2).find(|w| matches!(w.as_str(), "with" | "on")) {
            return Some(format!("where {next} … {p}"));
        }
    }
    words.last().filter(|w| *w == "at").map(|_| "where … at".to_string())
}

/// The type an English question asks for, from the interrogative that opens its main clause.
fn english(q: &str) -> Option<Typed> {
    let words = english_words(q);
    let first = words.first()?.as_str();
    let lists = words.iter().any(|w| LIST_WORDS.contains(&w.as_str())) || asks_all(&words);
    // "Can you tell me who …", "do you know when …": the question is the embedded one.
    let asking = |i: usize| words.get(i).is_some_and(|w| ASKING_VERBS.contains(&w.as_str()));
    let embedded = (1..words.len()).find(|&i| {
        WH.contains(&words[i].as_str())
            && (asking(i - 1) || (i >= 2 && matches!(words[i - 1].as_str(), "me" | "us") && asking(i - 2)))
    });
    // "Can you list …", "could you give me all the …": a request, not a yes/no question.
    let request = matches!(first, "can" | "could" | "would" | "will") && words.get(1).is_some_and(|w| w == "you");
    if AUXILIARIES.contains(&first) && embedded.is_none() && !(request && lists) {
        return typed(
            AnswerType::YesNo,
            format!("opens with the auxiliary \u{201c}{first}\u{201d}"),
        );
    }
    // The main clause's interrogative is the first one: a later "when" or "who" opens a
    // subordinate or relative clause ("what did we decide when …", "the person who …").
    let at = embedded.or_else(|| words.iter().position(|w| WH.contains(&w.as_str())));
    let Some(at) = at else {
        return if lists {
            typed(AnswerType::List, "asks for a list")
        } else {
            None
        };
    };
    let wh = words[at].as_str();
    let next = words.get(at + 1).map_or("", String::as_str);
    let quote = |s: &str| format!("\u{201c}{s}\u{201d}");
    match wh {
        "who" | "whom" | "whose" => typed(AnswerType::Person, quote(wh)),
        "when" => typed(AnswerType::Date, quote(wh)),
        // "Where are we with the migration?", "where is the rollout at?": how far it has got.
        "where" => match progress(&words, at) {
            Some(why) => typed(AnswerType::Definition, quote(&why)),
            None => typed(AnswerType::Place, quote(wh)),
        },
        "why" => typed(AnswerType::Reason, quote(wh)),
        "how" => match next {
            // "How much time", "how many days": a period; otherwise an amount or a count.
            "much" | "many" => {
                let unit = words.get(at + 2).map_or("", String::as_str);
                if TIME_UNITS.contains(&unit) {
                    typed(AnswerType::Duration, quote(&format!("how {next} {unit}"))).map(|t| Typed {
                        unit: crate::text::values::duration_unit(unit),
                        ..t
                    })
                } else if next == "much" {
                    typed(AnswerType::Amount, quote("how much"))
                } else {
                    typed(AnswerType::Count, quote("how many"))
                }
            }
            // "How quickly must we acknowledge": the time it may take, a period.
            "long" | "often" | "soon" | "frequently" | "quickly" | "promptly" => {
                typed(AnswerType::Duration, quote(&format!("how {next}")))
            }
            _ if AUXILIARIES.contains(&next) => {
                // "How do I …", "how should we …" ask a way; "how is …", "how did … go" a state.
                let subject = words.get(at + 2).map_or("", String::as_str);
                if matches!(next, "do" | "can" | "could" | "should" | "would" | "shall" | "must")
                    && matches!(subject, "i" | "we" | "you" | "one" | "they")
                {
                    typed(AnswerType::Procedure, quote(&format!("how {next} {subject}")))
                } else {
                    typed(AnswerType::Definition, quote(&format!("how {next}")))
                }
            }
            "to" => typed(AnswerType::Procedure, quote("how to")),
            "" => None,
            // "How big", "how far", "how old": a measure.
            adj => typed(AnswerType::Amount, quote(&format!("how {adj}"))),
        },
        _ => {
            // "what" or "which": the noun phrase that follows, directly ("which documents …") or
            // after a form of "be" and a determiner ("what are the requirements …").
            // "What should a new hire do first?", "what must we bring?", "what do I need to
            // prepare?": what is owed is usually several things, unless it is a state ("what
            // should the price be?").
            let owed = wh == "what"
                && (matches!(next, "should" | "must")
                    || (matches!(next, "do" | "does") && words[at + 1..].iter().any(|w| w == "need")))
                && !words[at + 1..]
                    .iter()
                    .any(|w| matches!(w.as_str(), "be" | "mean" | "happen"));
            if owed {
                return typed(AnswerType::List, quote(&format!("what {next}")));
            }
            let mut i = at + 1;
            let mut be = "";
            if matches!(next, "is" | "are" | "was" | "were") {
                be = next;
                i += 1;
                if words.get(i).is_some_and(|w| DETERMINERS.contains(&w.as_str())) {
                    i += 1;
                } else {
                    // "what is it", "what are we doing": no noun phrase after "be".
                    return if lists {
                        typed(AnswerType::List, "asks for a list")
                    } else {
                        typed(AnswerType::Definition, quote(&format!("{wh} {be}")))
                    };
                }
            }
            let (np, end) = noun_phrase(&words, i);
            let head = np.last().copied().unwrap_or("");
            // "what day", "which year": the first word of the phrase names the calendar.
            if be.is_empty() && np.first().is_some_and(|w| CALENDAR.contains(w)) {
                return typed(AnswerType::Date, quote(&format!("{wh} {}", np[0])));
            }
            if be.is_empty()
                && np
                    .first()
                    .is_some_and(|w| matches!(*w, "percentage" | "percent" | "share"))
            {
                return typed(AnswerType::Percent, quote(&format!("{wh} {}", np[0])));
            }
            // A plural head is several items, when the verb agrees with it ("what are the
            // steps", "which teams are", "which documents do we need").
            let agrees = matches!(be, "are" | "were")
                || (be.is_empty()
                    && words.get(end).is_some_and(|w| {
                        matches!(w.as_str(), "are" | "were" | "do" | "did" | "have" | "need" | "must")
                    }));
            if lists || (plural(head) && agrees) {
                let why = if lists {
                    "asks for a list".to_string()
                } else {
                    format!("plural \u{201c}{head}\u{201d}")
                };
                return typed(AnswerType::List, why).map(|t| Typed {
                    items: (!lists && !head.is_empty()).then(|| head.to_string()),
                    ..t
                });
            }
            // "What is the deadline for …", "which fee …": the noun names the value asked for.
            if let Some(t) = value_noun(wh, head) {
                return Some(t);
            }
            typed(AnswerType::Definition, quote(wh))
        }
    }
}

/// 疑問詞 and what each asks for, in the order they are tried.
const JA_WH: &[(&str, AnswerType)] = &[
    ("誰", AnswerType::Person),
    ("だれ", AnswerType::Person),
    ("どなた", AnswerType::Person),
    ("いつ", AnswerType::Date),
    // 「どこまで進んだ」 asks how far something has got, not where it is.
    ("どこまで", AnswerType::Definition),
    ("どこ", AnswerType::Place),
    ("なぜ", AnswerType::Reason),
    ("何故", AnswerType::Reason),
    ("どうして", AnswerType::Reason),
    ("なんで", AnswerType::Reason),
    ("いくら", AnswerType::Amount),
    ("いくつ", AnswerType::Count),
    ("どのくらい", AnswerType::Amount),
    ("どれくらい", AnswerType::Amount),
    ("どれほど", AnswerType::Amount),
    ("どうやって", AnswerType::Procedure),
    ("どのように", AnswerType::Procedure),
    ("どうすれば", AnswerType::Procedure),
    ("どうしたら", AnswerType::Procedure),
];
/// Counters after 何 and what they count: time counters of a period first ("何日間" before
/// "何日").
const JA_COUNTERS: &[(&str, AnswerType)] = &[
    ("日間", AnswerType::Duration),
    ("時間", AnswerType::Duration),
    ("週間", AnswerType::Duration),
    ("か月", AnswerType::Duration),
    ("ヶ月", AnswerType::Duration),
    ("カ月", AnswerType::Duration),
    ("年間", AnswerType::Duration),
    ("分", AnswerType::Duration),
    ("秒", AnswerType::Duration),
    ("日ごと", AnswerType::Duration),
    ("日以内", AnswerType::Duration),
    ("曜日", AnswerType::Date),
    ("月", AnswerType::Date),
    ("日", AnswerType::Date),
    ("時", AnswerType::Date),
    ("年", AnswerType::Date),
    ("%", AnswerType::Percent),
    ("パーセント", AnswerType::Percent),
    ("割", AnswerType::Percent),
    ("円", AnswerType::Amount),
    ("ドル", AnswerType::Amount),
    ("人", AnswerType::Count),
    ("名", AnswerType::Count),
    ("件", AnswerType::Count),
    ("個", AnswerType::Count),
    ("回", AnswerType::Count),
    ("度", AnswerType::Count),
    ("社", AnswerType::Count),
    ("台", AnswerType::Count),
    ("本", AnswerType::Count),
    ("枚", AnswerType::Count),
    ("冊", AnswerType::Count),
    ("つ", AnswerType::Count),
    ("点", AnswerType::Count),
];
/// Endings of a noun that names a person by role: the suffix 者 (担当者, 責任者, 管理者, 発注者),
/// and 担当 and 窓口 on their own.
const JA_PERSON_NOUNS: &[&str] = &["者", "担当", "窓口"];
/// How a question without a 疑問詞 ends after the thing it asks for: 「…は？」, 「…って？」,
/// 「…を教えて（ください）」, longest first.
const JA_ASKING: &[&str] = &["を教えてください", "を教えて下さい", "を教えて", "って", "は"];
/// 疑問詞 of an open question ("何", "どう", "どの"): with none of them, a question that ends in
/// 「か」 asks yes or no.
const JA_OPEN: &[&str] = &[
    "何",
    "なに",
    "なん",
    "どう",
    "どの",
    "どれ",
    "どんな",
    "どちら",
    "どっち",
];

/// The value the noun that ends `phrase` names (a Japanese noun phrase: 「申請の締め切り」), by
/// the kind in WordNet of its first JMdict gloss (`value_class`): the compound that ends it first
/// (割引率), then its last noun (締め切り, "deadline": a point in time). `None` without IPADIC,
/// JMdict or WordNet's nouns.
fn japanese_value_noun(phrase: &str) -> Option<Typed> {
    use crate::text::morph::Class;
    let morphemes = crate::text::morph::analyse(phrase)?;
    let dictionary = crate::text::jmdict::dictionary()?;
    let last = morphemes.last()?;
    if !matches!(last.class, Class::Noun | Class::Suffix) {
        return None;
    }
    // The compound that ends the phrase: its run of nouns, suffixes and prefixes.
    let from = morphemes
        .iter()
        .rposition(|m| !matches!(m.class, Class::Noun | Class::Suffix | Class::Prefix))
        .map_or(0, |i| i + 1);
    let compound = phrase.get(morphemes.get(from)?.start..last.end)?;
    let noun = phrase.get(last.start..last.end)?;
    let mut words = vec![compound];
    if noun != compound {
        words.push(noun);
    }
    for word in words {
        // The first gloss only, as English reads the noun itself: 期間 is first a "period",
        // which asks which one as "what is the period" does, not for how long.
        if let Some(gloss) = dictionary.first_word_gloss(word)
            && let Some((class, kind, value)) = value_class(&gloss)
        {
            return Some(Typed {
                kind,
                because: format!(
                    "\u{300c}{word}\u{300d} (JMdict: {gloss}; WordNet: a {})",
                    class.replace('_', " ")
                ),
                value: Some(value),
                items: None,
                unit: None,
            });
        }
    }
    None
}

/// The type a Japanese question asks for, from its 疑問詞.
fn japanese(q: &str) -> Option<Typed> {
    let quote = |s: &str| format!("\u{300c}{s}\u{300d}");
    // 何 with a counter: "何人" a count, "何日間" a period, "何日" a date.
    for (i, _) in q.match_indices('何') {
        let after = &q[i + '何'.len_utf8()..];
        let after = after.trim_start();
        if let Some((counter, kind)) = JA_COUNTERS.iter().find(|(c, _)| after.starts_with(c)) {
            // "How many days a week" (週に何日, 月に何日): a number of days in each period, not a date.
            let per_period = ["週に", "月に", "年に", "週", "毎週", "毎月"]
                .iter()
                .any(|p| q[..i].trim_end().ends_with(p));
            let kind = if per_period && *counter == "日" {
                &AnswerType::Duration
            } else {
                kind
            };
            let unit = (*kind == AnswerType::Duration)
                .then(|| crate::text::values::duration_unit(counter.trim_end_matches("ごと").trim_end_matches("以内")))
                .flatten();
            return typed(*kind, quote(&format!("何{counter}"))).map(|t| Typed { unit, ..t });
        }
    }
    let first = JA_WH
        .iter()
        .filter_map(|(w, kind)| q.find(w).map(|at| (at, *w, *kind)))
        .min_by_key(|(at, _, _)| *at);
    if let Some((_, w, kind)) = first {
        return typed(kind, quote(w));
    }
    if LIST_WORDS.iter().any(|w| q.contains(w)) {
        return typed(AnswerType::List, "asks for a list");
    }
    if let Some(w) = JA_ALL.iter().find(|w| q.contains(**w)) {
        return typed(AnswerType::List, format!("asks for {}", quote(w)));
    }
    let end = q.trim_end_matches(['?', '。', '.', '!', ' ']);
    // "…の担当者は？", "窓口を教えて": the thing asked for is a person by its role.
    let asked = JA_ASKING
        .iter()
        .find_map(|a| end.strip_suffix(a))
        .unwrap_or(end)
        .trim_end();
    if let Some(role) = JA_PERSON_NOUNS.iter().find(|n| asked.ends_with(**n)) {
        return typed(AnswerType::Person, format!("asks for the \u{300c}{role}\u{300d}"));
    }
    // 「申請の期限は？」, 「料金を教えて」, 「手数料は何ですか」: the noun before the asking
    // names the value asked for, as "what is the deadline" does.
    let topic = asked
        .strip_suffix("は何ですか")
        .or_else(|| asked.strip_suffix("は何"))
        .unwrap_or(asked)
        .trim_end_matches('は');
    if let Some(t) = japanese_value_noun(topic) {
        return Some(t);
    }
    if let Some(w) = JA_OPEN.iter().find(|w| q.contains(**w)) {
        return typed(AnswerType::Definition, quote(w));
    }
    // "…ましたか", "…ですか" with no 疑問詞: yes or no. "Xは？" asks what X is.
    if end.ends_with('か') {
        return typed(AnswerType::YesNo, "ends in \u{300c}か\u{300d} with no 疑問詞");
    }
    if end.ends_with('は') {
        return typed(AnswerType::Definition, "\u{300c}…は？\u{300d}");
    }
    None
}

/// Whether `sent` states a count of something: a number followed by what it counts, a Japanese
/// counter (「100件」, 「3名」) or an English noun, maybe after one adjective ("100 items", "14
/// qualified opportunities"); not a code, status or version number ("HTTP 429 with", "SEV2:",
/// "4.2.1"). WordNet tells an English noun; without it, only Japanese counters are read.
pub fn states_count(sent: &str) -> bool {
    use crate::text::wordnet::{ADJECTIVE, NOUN, wordnet};
    let is = |w: &str, class: u8| match wordnet() {
        Some(wn) => wn.parts_of_speech(w) & class != 0,
        None => false,
    };
    crate::text::values::extract(sent)
        .iter()
        .filter(|v| v.kind == ValueKind::Number)
        .any(|v| {
            let after = &sent[v.end..];
            if after.starts_with(|c: char| crate::text::is_japanese(&c.to_string())) {
                return JA_COUNTERS
                    .iter()
                    .any(|(c, kind)| *kind == AnswerType::Count && after.starts_with(c));
            }
            if !after.starts_with(' ') || sent[..v.start].ends_with(|c: char| c.is_alphanumeric() || c == '.') {
                return false;
            }
            let words: Vec<&str> = after
                .split_whitespace()
                .take(2)
                .map(|w| w.trim_end_matches(|c: char| !c.is_alphanumeric()))
                .collect();
            // A word of three letters or more ("a" is a noun in WordNet too, as a letter).
            let word = |w: &&str| w.len() >= 3 && w.chars().all(|c| c.is_ascii_lowercase());
            match words.as_slice() {
                [first, ..] if word(first) && is(first, NOUN) => true,
                [first, second] if word(first) && word(second) => is(first, ADJECTIVE) && is(second, NOUN),
                _ => false,
            }
        })
}

/// The kind of answer `q` (`text::normalize`d) asks for, and why; `tool` when the question asks
/// which tool does something, `document` when its intent is the document one (a "where" or
/// "which" question then asks for the document). `None` for a request with no question shape
/// ("tell me about the launch").
pub fn answer_type(q: &str, tool: bool, document: bool) -> Option<Typed> {
    if tool {
        return typed(AnswerType::Tool, "asks which tool");
    }
    let t = if crate::text::is_japanese(q) {
        japanese(q).or_else(|| english(q))
    } else {
        english(q)
    };
    match t {
        Some(Typed {
            kind: AnswerType::Place | AnswerType::Definition,
            because,
            ..
        }) if document => typed(AnswerType::Document, format!("{because}, of a document")),
        t => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::normalize;

    fn of(q: &str) -> Option<AnswerType> {
        answer_type(&normalize(q), false, false).map(|t| t.kind)
    }

    #[test]
    fn a_count_is_a_number_of_things() {
        // Written for this test.
        assert!(states_count("倉庫には棚が30台あります。"));
        assert!(states_count("申請は120件でした。"));
        // A code, a status, a version, a number with nothing counted after it.
        assert!(!states_count(
            "Exceeding it returns HTTP 429 with a Retry-After header."
        ));
        assert!(!states_count("SEV2: page the on-call."));
        assert!(!states_count("Version 4.2.1 fixes the export."));
        assert!(!states_count("The gate code is 4711."));
        if crate::text::wordnet::wordnet().is_some() {
            // With WordNet, an English noun after the number, or after one adjective; a letter
            // is no noun.
            assert!(states_count("The warehouse holds 40 pallets."));
            assert!(states_count("We have 14 qualified leads in Osaka."));
            assert!(!states_count("Call 5 a day."));
        }
    }

    #[test]
    fn a_noun_that_names_a_value_types_the_question() {
        use AnswerType::*;
        // Written for this test. With WordNet's nouns (tests/it/language.rs installs them) the
        // noun after "what is the" says what kind of value is asked for; without them it is a
        // definition question.
        let nouns =
            crate::text::wordnet::wordnet().is_some_and(|w| w.kind_of("deadline", &["point_in_time"]).is_some());
        for (q, t, v) in [
            ("What is the deadline for the grant report?", Date, ValueKind::Date),
            ("What's the entry fee for the hackathon?", Amount, ValueKind::Money),
            (
                "What is the typical latency of the EU mirror?",
                Duration,
                ValueKind::Duration,
            ),
            (
                "What was the percentage of reopened tickets?",
                Percent,
                ValueKind::Percent,
            ),
        ] {
            let typed = answer_type(&normalize(q), false, false).unwrap();
            if nouns {
                assert_eq!((typed.kind, typed.value), (t, Some(v)), "{q}");
                assert!(typed.because.contains("WordNet"), "{q}: {}", typed.because);
            } else {
                assert_eq!(typed.kind, Definition, "{q}");
            }
        }
        // A stage is a period in WordNet, but "what stage" asks which one.
        assert_eq!(of("What is the stage of the audit?"), Some(Definition));
        assert_eq!(of("What is the plan for the audit?"), Some(Definition));
    }

    #[test]
    fn a_japanese_noun_that_names_a_value_types_the_question() {
        use AnswerType::*;
        // Written for this test. With IPADIC, JMdict and WordNet's nouns (tests/it/language.rs
        // installs them) the noun before 「は？」 or 「を教えて」 says what kind of value is asked
        // for, through its English gloss.
        let ready = crate::text::morph::available()
            && crate::text::jmdict::dictionary().is_some()
            && crate::text::wordnet::wordnet().is_some_and(|w| w.kind_of("deadline", &["point_in_time"]).is_some());
        if !ready {
            eprintln!("SKIPPED: needs IPADIC, JMdict and WordNet's nouns in the data directory");
            return;
        }
        for (q, t, v) in [
            ("助成金の報告書の締め切りは？", Date, ValueKind::Date),
            ("ハッカソンの参加料金を教えて", Amount, ValueKind::Money),
        ] {
            let typed = answer_type(&normalize(q), false, false).unwrap();
            assert_eq!((typed.kind, typed.value), (t, Some(v)), "{q}: {}", typed.because);
            assert!(typed.because.contains("JMdict"), "{q}: {}", typed.because);
        }
        // A noun that names no value leaves the question asking what it is.
        assert_eq!(of("監査の担当範囲は？"), Some(Definition));
    }

    #[test]
    fn the_main_clause_interrogative_gives_the_type() {
        use AnswerType::*;
        // Sentences written for this test, one per grammatical shape, none from a golden set.
        for (q, t) in [
            ("Who signed the lease for the Lyon depot?", Person),
            ("Whose laptop was left in room 4?", Person),
            ("When does the pottery class start?", Date),
            ("What did the board conclude when the audit came back?", Definition),
            ("Is the engineer who wrote the parser still here?", YesNo),
            ("Can you tell me who approved the refund?", Person),
            ("How long is the warranty on the kilns?", Duration),
            ("How quickly must a refund be paid?", Duration),
            ("How many days of leave carry over?", Duration),
            ("How many kilns do we own?", Count),
            ("How much did the new glaze cost?", Amount),
            ("How big is the storage room?", Amount),
            ("How do I book the meeting room?", Procedure),
            ("How did the trade fair go?", Definition),
            ("Where is the spare key kept?", Place),
            ("Where are we with the kiln repair?", Definition),
            ("Where is the shop refit at?", Definition),
            ("Why did the supplier raise prices?", Reason),
            ("What are the steps to reset a kiln controller?", List),
            ("Which forms do new volunteers need?", List),
            ("What is the wifi password policy?", Definition),
            ("What's the plan for the spring market?", Definition),
            ("What day is the stock count?", Date),
            ("What percentage of orders ship late?", Percent),
            ("Did the bakery sign the new contract?", YesNo),
            ("Please list the open orders", List),
            ("Tell me all the rules for the pottery studio", List),
            ("Can you give me all of our shipping rates?", List),
            ("Was the shop open all day?", YesNo),
            ("What should a volunteer bring on the first day?", List),
            ("What do new members need to sign?", List),
            ("What should the entry fee be?", Definition),
            ("What does the red light mean?", Definition),
            ("倉庫の鍵を管理しているのは誰ですか", Person),
            ("次の棚卸しはいつ？", Date),
            ("窯の修理はどこまで進みましたか", Definition),
            ("窯はどこにありますか", Place),
            ("研修は何日間ですか", Duration),
            ("説明会は何日に開かれますか", Date),
            ("参加者は何人でしたか", Count),
            ("不良品の割合は何%？", Percent),
            ("送料はいくら？", Amount),
            ("なぜ発送が遅れたのですか", Reason),
            ("会議室はどうやって予約しますか", Procedure),
            ("展示会はどうなった？", Definition),
            ("新しい窯はもう届きましたか", YesNo),
            ("窯の保証期間は？", Definition),
            ("窯の修理の担当者は？", Person),
            ("展示会の問い合わせ窓口を教えてください", Person),
            ("新しい窯の発注者って？", Person),
            ("未処理の注文の一覧を見せて", List),
            ("窯のルールを全部教えて", List),
            ("展示会の準備ですべきことをすべて挙げてください", List),
        ] {
            assert_eq!(of(q), Some(t), "{q}");
        }
        assert_eq!(of("Tell me about the spring market"), None);
    }

    #[test]
    fn tool_and_document_questions_take_their_intents_type() {
        let q = normalize("Where is the volunteer handbook?");
        assert_eq!(answer_type(&q, false, true).map(|t| t.kind), Some(AnswerType::Document));
        assert_eq!(answer_type(&q, true, false).map(|t| t.kind), Some(AnswerType::Tool));
        // A "who" question of the document intent still asks for a person.
        let q = normalize("Who wrote the volunteer handbook?");
        assert_eq!(answer_type(&q, false, true).map(|t| t.kind), Some(AnswerType::Person));
    }

    #[test]
    fn hostile_questions_do_not_panic() {
        for q in ["", "?", "何", "how", "what are", "'s", "何\u{300}日", "which the of"] {
            let _ = answer_type(&normalize(q), false, false);
        }
    }
}
