//! Conflict detection: when top evidence from different places states different values of the
//! kind the question asks about (an amount, a date, a duration, a percentage), each value is a
//! position with its evidence and date, newest first. Pure.

use crate::config::policy::Lexicon;
use crate::hit::EvidenceKind;
use crate::pipeline::dedup::Cluster;
use crate::pipeline::query::{Analysis, AnswerType};
use crate::pipeline::rank::Evidence;
use crate::text;
use crate::text::encoder::Encoder;
use crate::text::values::{self, ValueKind};

/// One side of a disagreement.
#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    pub value: String,
    pub claim: String,
    /// Indexes of clusters (in rank order) that hold this value.
    pub clusters: Vec<usize>,
    pub date: Option<chrono::DateTime<chrono::Utc>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Disagreement {
    pub kind: ValueKind,
    /// Newest first.
    pub sides: Vec<Side>,
}

fn clean_sentence(s: &str) -> String {
    let s = s.trim().trim_start_matches(['#', '-', '*', '>', '|', ' ']).trim();
    s.replace("**", "")
        .replace(" | ", " ")
        .trim_end_matches('|')
        .trim()
        .to_string()
}

/// Words that withdraw or negate what a sentence states ("the $49 price is withdrawn"): the
/// verbs and idioms of retraction in each language (withdraw, retract, rescind, revoke, walk
/// back, call off; 撤回, 取り消し, 取りやめ, 白紙), not words that may only mean a change ("drop",
/// "reverse", "roll back" also lower a price or undo a deploy and stay out).
const WITHDRAWN: &[&str] = &[
    "withdrawn",
    "withdrew",
    "retracted",
    "rescinded",
    "revoked",
    "walk back",
    "walks back",
    "walking back",
    "walked back",
    "called off",
    "cancelled",
    "canceled",
    "no longer",
    "reverted",
    "instead of",
    "撤回",
    "中止",
    "取り消",
    "取りやめ",
    "白紙",
    "見送",
];

/// What still stands of a claim: its sentences that withdraw nothing, joined ("we are walking
/// back the $49 price. Pro is $45." stands as "Pro is $45."); empty when every sentence withdraws.
pub fn standing(claim: &str) -> String {
    text::sentences(claim)
        .into_iter()
        .map(|(s, t)| claim[s..t].trim())
        .filter(|s| !s.is_empty() && !withdrawn(s))
        .collect::<Vec<_>>()
        .join(" ")
}

fn withdrawn(s: &str) -> bool {
    let n = text::normalize(s);
    WITHDRAWN.iter().any(|c| crate::pipeline::intent::cue_matches(&n, c))
}

/// Text read on each side of the best passage when choosing a sentence: a passage may end in
/// the middle of the bullet that answers ("SEV2: major feature degraded." ends a passage whose
/// next sentence is "Acknowledge within 30 minutes").
const AROUND_PASSAGE: usize = 600;

/// The sentence after the chosen one on the same line joins it up to this length together.
const SAME_LINE_CHARS: usize = 200;

/// The part of `text` read for a sentence: the passage `range` widened by `AROUND_PASSAGE` on
/// each side and to whole lines, with the headings above it that stay open.
fn reading_window(text: &str, range: (usize, usize)) -> (usize, usize, Vec<(usize, String)>) {
    let floor = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let from = floor(range.0.saturating_sub(AROUND_PASSAGE));
    let from = text[..from].rfind('\n').map_or(0, |i| i + 1);
    let to = floor(range.1.saturating_add(AROUND_PASSAGE));
    let to = text[to..].find('\n').map_or(text.len(), |i| to + i);
    // Headings above the window: each closes the ones at its level or deeper.
    let mut open: Vec<(usize, String)> = Vec::new();
    for line in text[..from].lines() {
        let level = heading_level(line);
        if level > 0 {
            open.retain(|(l, _)| *l < level);
            open.push((level, clean_sentence(line)));
        }
    }
    (from, to, open)
}

/// A statement of a text must be this close to the question by the sentence encoder's cosine
/// (read with its section: "Pricing Policy › Non-profits get 30% off Pro.") to count as saying
/// what it asks ...
const CLOSEST_AT: f32 = 0.25;
/// ... and this much closer than the text's next closest statement: a text whose statements
/// the encoder rates alike names none. (0.20 / 0.03 and 0.30 / 0.08 give every figure of the
/// three sets that these do; with no margin acme-dev loses the facts of three questions.)
const CLOSEST_MARGIN: f32 = 0.05;

/// The statement (an index of `sents`, never a heading) that the sentence encoder finds closest
/// in meaning to the question, read under its section, when it stands out from the text's other
/// statements (`CLOSEST_AT`, `CLOSEST_MARGIN`). A text of one statement has none to tell apart.
fn closest_in_meaning(
    encoder: &Encoder,
    analysis: &Analysis,
    sents: &[(String, usize, usize)],
    sections: &[String],
) -> Option<usize> {
    let statements: Vec<usize> = (0..sents.len()).filter(|&i| sents[i].1 == 0).collect();
    if statements.len() < 2 {
        return None;
    }
    let question = analysis.vector_by(encoder);
    let texts: Vec<String> = statements
        .iter()
        .map(|&i| match sections[i].as_str() {
            "" => sents[i].0.clone(),
            section => format!("{section} › {}", sents[i].0),
        })
        .collect();
    let vectors = encoder.encode_statements(&texts.iter().map(String::as_str).collect::<Vec<_>>());
    let mut cosines: Vec<(f32, usize)> = vectors
        .iter()
        .zip(&statements)
        .map(|(v, &i)| (crate::text::encoder::cosine(&question, v), i))
        .collect();
    cosines.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    match cosines.as_slice() {
        [(best, i), (next, _), ..] if *best >= CLOSEST_AT && best - next >= CLOSEST_MARGIN => Some(*i),
        _ => None,
    }
}

/// The sentence of `e` that best answers the question, read in and around its best passage
/// under the headings it sits under: most of the question's concepts covered, the value the
/// question asks for counting as one of them (the answer fills the question's "when" or "how
/// much"), then not withdrawn, then holding such a value, then covering the concepts fewer of
/// the text's sentences cover, then inside the passage, then reading as a conclusion, then
/// earliest.
pub fn best_sentence(e: &Evidence, analysis: &Analysis, lexicon: &Lexicon, focus: Option<ValueKind>) -> String {
    choose_sentence(e, analysis, lexicon, focus).sentence
}

/// A sentence chosen from evidence, and the passage around it that a reader (or a calling
/// model) needs to use it: its section, the statement before it and the one after.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Chosen {
    pub sentence: String,
    pub passage: String,
    /// The part of `sentence` whose values are claimed about the question: a joined sentence
    /// that mentions none of the question's concepts adds words, not a claim ("the rota is
    /// posted. I'm on duty on Dec 29 and Jan 2." claims no holiday dates).
    pub claiming: String,
    /// The best candidate sentences, best first, each with what it scored on (`--explain`).
    pub candidates: Vec<Candidate>,
    /// The values of the asked kind that the text read withdraws ("The $49 Pro price is
    /// withdrawn."), canonical.
    pub withdraws: Vec<String>,
}

/// A sentence considered for the answer and what it scored on, in the order they count.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Candidate {
    pub sentence: String,
    /// The question's concepts it covers (with its section), plus one when it also states
    /// the value asked for.
    pub covered: usize,
    /// The question's concepts it covers, by their own words (`--explain`).
    pub concepts: Vec<String>,
    pub withdrawn: bool,
    pub holds_value: bool,
    /// The statement the sentence encoder finds closest to the question (`closest_in_meaning`).
    pub closest: bool,
    pub in_passage: bool,
    pub conclusion: bool,
}

impl std::fmt::Display for Candidate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "covers {}", self.covered)?;
        if !self.concepts.is_empty() {
            write!(f, " ({})", self.concepts.join(", "))?;
        }
        for (on, what) in [
            (self.holds_value, "states the value asked for"),
            (self.closest, "closest in meaning"),
            (self.withdrawn, "withdraws"),
            (self.in_passage, "in the best passage"),
            (self.conclusion, "reads as a conclusion"),
        ] {
            if on {
                write!(f, ", {what}")?;
            }
        }
        write!(f, ": \u{201c}{}\u{201d}", text::truncate_chars(&self.sentence, 160))
    }
}

/// Candidates shown per citation.
const CANDIDATES_SHOWN: usize = 3;

/// The answering passage is cut to this many characters.
pub const PASSAGE_CHARS: usize = 600;

/// Whether `sent` states a value of the kind asked for.
/// With `relative`, a duration that says when relative to an event holds a date
/// (`relative_time`).
fn holds(sent: &str, focus: Option<ValueKind>, relative: bool) -> bool {
    focus.is_some_and(|k| {
        values::extract(sent)
            .iter()
            .any(|v| v.kind == k || (relative && k == ValueKind::Date && relative_time(sent, v)))
            // A time of day answers "when" as a date does ("refreshes nightly at 02:00 UTC").
            || (relative && k == ValueKind::Date && values::states_time_of_day(sent))
    })
}

/// Words that make the duration after them a time relative to an event ("within 5 business
/// days", "in two weeks"), and that make the one before them so in Japanese ("5営業日以内",
/// "3日前まで"): a closed class of prepositions and postpositions of time.
const RELATIVE_BEFORE: &[&str] = &["within", "in", "after", "before", "than"];
const RELATIVE_AFTER: &[&str] = &[
    "以内", "以降", "前", "後", "まで", "before", "after", "later", "earlier",
];

/// Whether value `v` of `sent` is a duration that says when, relative to something: it answers a
/// question for a date ("when must the review be written?", "what is the deadline?") as a date
/// would.
fn relative_time(sent: &str, v: &values::Value) -> bool {
    if v.kind != ValueKind::Duration {
        return false;
    }
    let before = sent[..v.start].trim_end().to_lowercase();
    let after = sent[v.end..].trim_start().to_lowercase();
    let word_before = before.rsplit(|c: char| !c.is_alphanumeric()).next().unwrap_or("");
    RELATIVE_BEFORE.contains(&word_before)
        || RELATIVE_AFTER
            .iter()
            .any(|w| after.starts_with(w) && (!w.is_ascii() || !after[w.len()..].starts_with(char::is_alphanumeric)))
}

/// A list answer gives at most this many items.
const LIST_ITEMS: usize = 10;
/// Each item of a list answer is cut to this many characters.
const ITEM_CHARS: usize = 160;

/// Whether a line is an item of a list: a bullet ("- ", "* ", "• ", "・") or a numbered line
/// ("1. ", "2) ", "(3) ", "①").
pub(crate) fn list_item(line: &str) -> bool {
    let t = line.trim_start();
    if ["- ", "* ", "+ ", "• ", "・", "- [ ] ", "- [x] "]
        .iter()
        .any(|b| t.starts_with(b))
    {
        return true;
    }
    if t.starts_with(|c: char| ('\u{2460}'..='\u{2473}').contains(&c)) {
        return true;
    }
    number_marker(t).is_some_and(|n| t[n..].starts_with(|c: char| c.is_whitespace() || !c.is_ascii()))
}

/// The length of a list number opening `t` ("1.", "2)", "(3)", "4）"), if one: up to three
/// digits, an optional opening parenthesis.
fn number_marker(t: &str) -> Option<usize> {
    let open = usize::from(t.starts_with('('));
    let digits = t[open..].chars().take_while(char::is_ascii_digit).count();
    let close = t[open + digits..]
        .chars()
        .next()
        .filter(|c| matches!(c, '.' | ')' | '）'))?;
    (1..=3).contains(&digits).then(|| open + digits + close.len_utf8())
}

/// The items of the list that the line at `at` (a byte offset of `text`) belongs to, or that
/// follows it when that line introduces one ("Acceptance criteria:"), with the introducing line
/// if there is one; `None` unless there are two items or more.
fn list_block(text: &str, at: usize) -> Option<(Option<String>, Vec<String>)> {
    let mut lines: Vec<&str> = Vec::new();
    let mut here = 0;
    let mut offset = 0;
    for line in text.split('\n') {
        if offset <= at && at <= offset + line.len() {
            here = lines.len();
        }
        offset += line.len() + 1;
        lines.push(line);
    }
    let line = lines.get(here)?;
    let (first, intro) = if list_item(line) {
        let mut k = here;
        while k > 0 && list_item(lines[k - 1]) {
            k -= 1;
        }
        let intro = k
            .checked_sub(1)
            .map(|p| lines[p].trim())
            .filter(|p| p.ends_with([':', '：']));
        (k, intro)
    } else if line.trim_end().ends_with([':', '：']) {
        (here + 1, Some(line.trim()))
    } else {
        return None;
    };
    let items: Vec<String> = lines[first.min(lines.len())..]
        .iter()
        .take_while(|l| list_item(l))
        .map(|l| text::truncate_chars(&clean_sentence(strip_number(l)), ITEM_CHARS))
        .filter(|l| !l.is_empty())
        .take(LIST_ITEMS)
        .collect();
    (items.len() >= 2).then(|| (intro.map(clean_sentence), items))
}

/// A list item without its number ("2) Book the room" → "Book the room").
fn strip_number(line: &str) -> &str {
    let t = line.trim_start();
    number_marker(t).map_or(t, |n| t[n..].trim_start())
}

/// The best clusters whose texts are read for names (`people`).
const NAMES_READ: usize = 50;

/// The people a pool of evidence knows: the authors of its hits and the assignees and owners
/// its tasks name, each once, as the sources write them; with `texts`, then the names the best
/// evidence writes in its text ("Jan 1: David Kim", `text::names`), for a "who" question.
pub fn people(clusters: &[Cluster], texts: bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for m in clusters.iter().flat_map(|c| &c.members) {
        let h = &m.hit;
        let named = [h.properties.get("Assignee"), h.properties.get("Owner")];
        for name in h.author.iter().chain(named.into_iter().flatten()) {
            let name = name.trim();
            if !name.is_empty() && !out.iter().any(|n| n == name) {
                out.push(name.to_string());
            }
        }
    }
    if texts {
        // Not a tool's description: its title is a tool's name ("Search Jira").
        for c in clusters
            .iter()
            .filter(|c| c.rep().hit.kind != EvidenceKind::Tool)
            .take(NAMES_READ)
        {
            let text = &c.rep().hit.text;
            for name in text::names::latin_names(text)
                .into_iter()
                .chain(text::names::japanese_names(text))
            {
                // A name the sources know already, or a part of one ("Tom" of "Tom Becker").
                if !out.iter().any(|n| n.contains(&name) || name.contains(n.as_str())) {
                    out.push(name);
                }
            }
        }
    }
    out
}

/// The first of `people` that `sent` names, by the whole name or one part of it ("Ken" of
/// "Ken Sato", "山本" of "山本 健"): a part of a Latin name must be a whole word of three letters
/// or more. Whole names are looked for first.
pub fn named_person<'a>(sent: &str, people: &'a [String]) -> Option<&'a str> {
    let norm = text::normalize(sent);
    // Where a name, or a part of one long enough to name someone, first occurs.
    let at = |part: &str| {
        let part = text::normalize(part);
        let long_enough = if part.is_ascii() {
            part.len() >= 3
        } else {
            part.chars().count() >= 2
        };
        long_enough.then(|| text::find_phrase(&norm, &part)).flatten()
    };
    let mut first: Option<(usize, &str)> = None;
    for name in people {
        let found = at(name).or_else(|| name.split_whitespace().filter_map(at).min());
        if let Some(found) = found
            && first.is_none_or(|(f, _)| found < f)
        {
            first = Some((found, name.as_str()));
        }
    }
    first.map(|(_, n)| n)
}

/// How a sentence stands as the answer, compared field by field in this order (the derived
/// order): a statement over a heading, then the question's concepts it covers (one more when it
/// states the value asked for), then ...
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    statement: bool,
    covered: usize,
    /// ... the statement closest in meaning to the question (`closest_in_meaning`),
    closest: bool,
    /// ... names a code the question names,
    names_code: bool,
    /// ... among the items of a list (or introducing them), when the question asks for several,
    listed: bool,
    /// ... not withdrawn ("we are walking back ..."),
    standing: bool,
    /// ... states the value asked for,
    has_value: bool,
    /// ... states a duration in the unit the question asks for ("within 15 minutes" for
    /// 「何分以内」, over "within 5 business days"),
    same_unit: bool,
    /// ... bounds a quantity the way the question does ("Above 20%: CFO" over "Up to 20%:
    /// sales lead" for "who approves discounts above 20%"),
    same_bound: bool,
    /// ... states the value the question names (a date, an amount) itself, not by its
    /// section's heading (of the rows under "Year-end Support Rotation (Dec 27 – Jan 4)", the
    /// row "Jan 1: David Kim" for "who is on duty on Jan 1": the heading's period holds the
    /// date for every row),
    own_value: usize,
    /// ... covers the concepts few other sentences of the text cover (the sum of each covered
    /// concept's IDF over the text's statements, in thousandths: of two sentences under "Office
    /// Move FAQ" that each cover two concepts, the one with "movers" says more about the movers
    /// than the one with "office"),
    distinct: u32,
    /// ... in the passage ranking scored,
    in_passage: bool,
    /// ... reads as a conclusion.
    conclusion: bool,
}

/// `best_sentence`, with its passage.
pub fn choose_sentence(e: &Evidence, analysis: &Analysis, lexicon: &Lexicon, focus: Option<ValueKind>) -> Chosen {
    choose_among(e, analysis, lexicon, focus, &[], None)
}

/// `choose_sentence` knowing the pool's `people` (for a "who" question, a sentence that names
/// one of them holds the value asked for) and, given the sentence encoder, which statement
/// means most nearly what the question asks (`closest_in_meaning`).
pub fn choose_among(
    e: &Evidence,
    analysis: &Analysis,
    lexicon: &Lexicon,
    focus: Option<ValueKind>,
    people: &[String],
    encoder: Option<&Encoder>,
) -> Chosen {
    let asks_person = analysis.asks(&[AnswerType::Person]);
    // A question whose grammar asks when ("when must …", "what is the deadline", 「いつまでに」)
    // is answered by a time relative to an event ("within 5 business days"); one that only
    // mentions a time, or reads as temporal, is not answered by any duration.
    let relative = analysis.asks(&[AnswerType::Date]);
    // A question for how many is answered by a number of things, not by any number.
    let asks_count = focus.is_none() && analysis.asks(&[AnswerType::Count]);
    let holds = |sent: &str, focus: Option<ValueKind>| {
        holds(sent, focus, relative)
            || (asks_person && named_person(sent, people).is_some())
            || (asks_count && crate::pipeline::query::states_count(sent))
    };
    let text = &e.hit.text;
    let (from, to, mut open) = reading_window(text, e.passage);
    let window = &text[from..to];
    let sents = statements_at(window);
    if sents.is_empty() {
        let only = clean_sentence(e.passage_text());
        return Chosen {
            passage: text::truncate_chars(&only, PASSAGE_CHARS),
            claiming: only.clone(),
            sentence: only,
            candidates: Vec::new(),
            withdraws: Vec::new(),
        };
    }
    let (p0, p1) = (e.passage.0.saturating_sub(from), e.passage.1.saturating_sub(from));
    let wants_list = analysis.asks(&[AnswerType::List, AnswerType::Procedure]);
    // The codes the question names ("SEV2", "v3", "KR500"): letters and digits in one word.
    let code = |t: &str| t.chars().any(|c| c.is_ascii_digit()) && t.chars().any(char::is_alphabetic);
    let codes: Vec<&String> = analysis
        .concepts
        .iter()
        .filter_map(|c| c.alternatives.first())
        .flat_map(|(alt, _)| alt.iter().filter(|t| code(t)))
        .collect();
    let names_code = |sent: &str| {
        !codes.is_empty() && {
            let mut found = false;
            text::for_each_token(sent, |t, _, _| found |= codes.iter().any(|c| c.as_str() == t));
            found
        }
    };
    let mut best: Option<(Key, usize)> = None;
    let mut scored: Vec<(Key, usize)> = Vec::new();
    let in_section = |sent: &str, section: &str| format!("{section} {sent}");
    // Each statement's open headings, outermost first ("Incident Response › Severity levels"),
    // and the concepts it covers under them.
    let mut sections: Vec<String> = Vec::with_capacity(sents.len());
    let mut which: Vec<Vec<bool>> = Vec::with_capacity(sents.len());
    for (sent, level, _) in &sents {
        if *level > 0 {
            open.retain(|(l, _)| l < level);
            open.push((*level, sent.clone()));
        }
        let section = open.iter().map(|(_, h)| h.as_str()).collect::<Vec<_>>().join(" › ");
        which.push(crate::pipeline::rank::which_concepts(
            &in_section(sent, &section),
            analysis,
        ));
        sections.push(section);
    }
    // The encoder speaks where the words do not meet: when some concept of the question is in
    // none of the text's sentences. Where they all are, the words say which sentence holds
    // them, and the encoder would prefer the sentence that echoes the question's topic over the
    // one that answers it ("Why did we pick Postgres?": "we will migrate to PostgreSQL" over
    // "Main reasons: JSONB ...").
    let gap = analysis
        .concepts
        .iter()
        .enumerate()
        .any(|(c, concept)| concept.specific() && !which.iter().any(|w| w[c]));
    let asks_value = analysis.asks(&[
        AnswerType::Person,
        AnswerType::Date,
        AnswerType::Duration,
        AnswerType::Amount,
        AnswerType::Count,
        AnswerType::Percent,
    ]);
    let closest = encoder
        .filter(|_| gap)
        .and_then(|enc| closest_in_meaning(enc, analysis, &sents, &sections));
    // Each concept's IDF over the statements: a concept every sentence covers (the title's,
    // the section's) tells them apart by nothing.
    let statements = sents.iter().filter(|(_, level, _)| *level == 0).count().max(1) as f64;
    let idf: Vec<f64> = (0..analysis.concepts.len())
        .map(|c| {
            let df = sents
                .iter()
                .zip(&which)
                .filter(|((_, level, _), w)| *level == 0 && w[c])
                .count() as f64;
            (1.0 + statements / df.max(1.0)).ln()
        })
        .collect();
    // The values of the asked kind that the text itself withdraws ("The $49 price is
    // withdrawn."): a sentence elsewhere in it that states only those ("win rate fell after the
    // move to $49") tells what was, not what stands.
    let withdrawn_values: Vec<String> = focus
        .map(|k| {
            sents
                .iter()
                .filter(|(sent, _, _)| withdrawn(sent))
                .flat_map(|(sent, _, _)| values::extract(sent))
                .filter(|v| v.kind == k)
                .map(|v| v.canonical)
                .collect()
        })
        .unwrap_or_default();
    let restates_withdrawn = |sent: &str| {
        !withdrawn_values.is_empty() && {
            let stated: Vec<String> = values::extract(sent)
                .into_iter()
                .filter(|v| Some(v.kind) == focus)
                .map(|v| v.canonical)
                .collect();
            !stated.is_empty() && stated.iter().all(|v| withdrawn_values.contains(v))
        }
    };
    let unit = analysis.answer_type.as_ref().and_then(|t| t.unit);
    let in_unit = |sent: &str, unit: &str| {
        values::extract(sent)
            .iter()
            .any(|v| v.kind == ValueKind::Duration && v.canonical.split_once(' ').is_some_and(|(_, u)| u == unit))
    };
    // The question's concepts that are values it names ("Jan 1", "25%").
    let value_concepts: Vec<usize> = analysis
        .concepts
        .iter()
        .enumerate()
        .filter(|(_, c)| c.is_value())
        .map(|(i, _)| i)
        .collect();
    for (i, (sent, level, at)) in sents.iter().enumerate() {
        let heading = *level > 0;
        // A function word ("per", "via") says how the question's things relate, not which:
        // a sentence is not about them for having it.
        let (covered, distinct) = which[i]
            .iter()
            .zip(&analysis.concepts)
            .zip(&idf)
            .filter(|((c, concept), _)| **c && !concept.function_word)
            .fold((0usize, 0.0f64), |(n, d), ((_, concept), w)| {
                (n + 1, d + w * concept.specificity)
            });
        let has_value = covered > 0 && holds(sent, focus);
        let listed = wants_list && covered > 0 && list_block(text, from + at).is_some();
        // The encoder's choice counts as one more concept covered: it stands for the words the
        // question and the text put differently ("charities" and "non-profits"). Only in a
        // sentence that speaks of the question's things at all, and of the shape the question
        // asks for: the encoder rates a sentence by its topic, and a question for a date, an
        // amount or a person is answered by the sentence that states one, a question for
        // several items by the list.
        let shaped = if asks_value { has_value } else { !wants_list || listed };
        let closest = covered > 0 && shaped && closest == Some(i);
        let key = Key {
            statement: !heading,
            // A value counts for the question only in a sentence that speaks of it.
            covered: covered + usize::from(has_value) + usize::from(closest),
            closest,
            // Of sentences that cover as much, one that names the code the question names
            // ("SEV2: ...") speaks of what it asks about, not of its neighbour (SEV1).
            names_code: covered > 0 && names_code(sent),
            // Of sentences that cover as much, one among the items of a list (or introducing
            // them) answers a question for several items.
            listed,
            standing: !withdrawn(sent) && !restates_withdrawn(sent),
            has_value,
            same_unit: has_value && unit.is_some_and(|u| in_unit(sent, u)),
            same_bound: covered > 0 && analysis.bound.is_some() && values::bound(sent) == analysis.bound,
            own_value: if value_concepts.is_empty() {
                0
            } else {
                let own = crate::pipeline::rank::which_concepts(sent, analysis);
                value_concepts.iter().filter(|&&c| which[i][c] && own[c]).count()
            },
            distinct: (distinct * 1000.0).round() as u32,
            in_passage: *at >= p0 && *at < p1.max(p0 + 1),
            conclusion: crate::pipeline::rank::is_conclusion(sent, lexicon),
        };
        if best.as_ref().is_none_or(|(k, _)| key > *k) {
            best = Some((key, i));
        }
        if !heading {
            scored.push((key, i));
        }
    }
    let Some((key, i)) = best else {
        return Chosen::default();
    };
    // Stable: among equal keys the earliest, as for the chosen one.
    scored.sort_by_key(|s| std::cmp::Reverse(s.0));
    let candidates: Vec<Candidate> = scored
        .iter()
        .take(CANDIDATES_SHOWN)
        .map(|(k, j)| Candidate {
            sentence: sents[*j].0.clone(),
            covered: k.covered,
            concepts: which[*j]
                .iter()
                .zip(&analysis.concepts)
                .filter(|(on, _)| **on)
                .filter_map(|(_, c)| c.alternatives.first().map(|(words, _)| words.join(" ")))
                .collect(),
            withdrawn: !k.standing,
            holds_value: k.has_value,
            closest: k.closest,
            in_passage: k.in_passage,
            conclusion: k.conclusion,
        })
        .collect();
    let mut out = sents[i].0.clone();
    let mut claiming = out.clone();
    let mut last = i;
    // A question for several items ("what are the steps", "how do I …") is answered by the
    // list the chosen line is in or introduces, item by item.
    if wants_list
        && key.statement
        && let Some((intro, items)) = list_block(text, from + sents[i].2)
    {
        // "Freeze the branch; run the smoke tests; tell support.": one sentence, item by item.
        let bare: Vec<&str> = items
            .iter()
            .map(|t| t.trim_end_matches(['.', '。', ';', '；']))
            .collect();
        let stop = if bare.last().is_some_and(|t| text::is_japanese(t)) {
            "。"
        } else {
            "."
        };
        let listed = format!("{}{stop}", bare.join("; "));
        out = match intro {
            Some(intro) => format!("{intro} {listed}"),
            None => listed,
        };
        let passage = if sections[i].is_empty() {
            out.clone()
        } else {
            format!("{} … {out}", sections[i])
        };
        return Chosen {
            sentence: out,
            passage: text::truncate_chars(&passage, PASSAGE_CHARS),
            claiming,
            candidates,
            withdraws: withdrawn_values,
        };
    }
    // The next sentence joins when it says more about the question ("... kickoff is Sept 29.
    // I'm the point of contact."), states the value asked for when this one does not, or when
    // this one withdraws something: what replaces it usually follows ("we are walking back the
    // $49 price. Final decision: Pro is $45.").
    if let Some((next, 0, next_at)) = sents.get(i + 1) {
        // A bullet or a line is one unit of meaning: "SEV2: major feature degraded. Acknowledge
        // within 30 minutes." says what SEV2 asks for only with its second sentence.
        let same_line = !window[sents[i].2..*next_at].contains('\n');
        let both =
            crate::pipeline::rank::covered_concepts(&in_section(&format!("{out} {next}"), &sections[i]), analysis);
        let replacement = !key.standing && !withdrawn(next);
        let value = !key.has_value && holds(next, focus);
        let length = out.chars().count() + next.chars().count();
        if ((both + usize::from(value) > key.covered - usize::from(key.has_value) - usize::from(key.closest)
            || replacement)
            && length < 320)
            || (same_line && length < SAME_LINE_CHARS)
        {
            out = format!("{out} {next}");
            if crate::pipeline::rank::covered_concepts(next, analysis) > 0 {
                claiming = out.clone();
            }
            last = i + 1;
        }
    }
    // A question of several parts ("the brand colors and font") is answered part by part: the
    // best other statement that speaks of a specific concept of the question (not an everyday
    // or a function word) that the chosen sentence and its neighbour leave out joins them, when
    // the question joins things by a conjunction (`Analysis::several`). What the evidence
    // claims (its value, for conflicts) stays the chosen sentence's.
    let mut added = None;
    if key.statement && analysis.several {
        let has_now = crate::pipeline::rank::which_concepts(&in_section(&out, &sections[i]), analysis);
        let part = |j: usize| {
            which[j]
                .iter()
                .zip(&has_now)
                .zip(&analysis.concepts)
                .any(|((on, had), c)| *on && !*had && c.specific())
        };
        added = scored
            .iter()
            .map(|(k, j)| (k, *j))
            .find(|&(k, j)| {
                j != i && j != last && k.standing && part(j) && out.chars().count() + sents[j].0.chars().count() < 320
            })
            .map(|(_, j)| j);
    }
    if let Some(j) = added {
        out = format!("{out} {}", sents[j].0);
    }
    // The passage: the section it is in, the statement before, the sentence, the one after.
    let mut parts: Vec<&str> = Vec::new();
    if !sections[i].is_empty() && key.statement {
        parts.push(&sections[i]);
    }
    if let Some((prev, 0, _)) = i.checked_sub(1).and_then(|k| sents.get(k)) {
        parts.push(prev);
    }
    parts.push(&out);
    if let Some((next, 0, _)) = sents.get(last + 1) {
        parts.push(next);
    }
    let passage = text::truncate_chars(&parts.join(" … "), PASSAGE_CHARS);
    Chosen {
        sentence: out,
        passage,
        claiming,
        candidates,
        withdraws: withdrawn_values,
    }
}

/// What a cluster's evidence claims, read once per answer: its best statement for the question
/// (`best_sentence`, with the kind of value the question asks for), what still stands of it
/// (`standing`: empty when it only withdraws), the value of that kind it states, and the
/// cluster's latest date.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    pub statement: String,
    /// The passage around the statement (`Chosen::passage`).
    pub passage: String,
    /// The sentences considered, best first (`Chosen::candidates`).
    pub candidates: Vec<Candidate>,
    pub standing: String,
    pub value: Option<values::Value>,
    pub date: Option<chrono::DateTime<chrono::Utc>>,
    /// The values of the asked kind its text withdraws (`Chosen::withdraws`).
    pub withdraws: Vec<String>,
}

/// The encoder reads the statements of this many clusters, the best first: the lead is chosen
/// among them, and the encoder's cost grows with every text it reads.
const CLOSEST_CLUSTERS: usize = 5;

/// The claim of every cluster, in order; `people` are the pool's (`people`); the sentence
/// encoder, when given, reads the best `CLOSEST_CLUSTERS` (`choose_among`).
pub fn claims(
    clusters: &[Cluster],
    analysis: &Analysis,
    lexicon: &Lexicon,
    people: &[String],
    encoder: Option<&Encoder>,
) -> Vec<Claim> {
    clusters
        .iter()
        .enumerate()
        .map(|(rank, c)| {
            let Chosen {
                sentence: statement,
                passage,
                claiming,
                candidates,
                withdraws,
            } = choose_among(
                c.rep(),
                analysis,
                lexicon,
                analysis.focus,
                people,
                encoder.filter(|_| rank < CLOSEST_CLUSTERS),
            );
            let standing = standing(&statement);
            Claim {
                value: analysis
                    .focus
                    .and_then(|k| claimed_value(&self::standing(&claiming), k)),
                passage,
                candidates,
                statement,
                standing,
                date: c.members.iter().filter_map(|m| m.hit.timestamp).max(),
                withdraws,
            }
        })
        .collect()
}

/// The first statement of a document (its headings skipped): what the document says it is.
pub fn opening_sentence(text: &str) -> Option<String> {
    statements(text)
        .into_iter()
        .find(|(_, level)| *level == 0)
        .map(|(s, _)| s)
}

/// `statements`, each with where it starts in `text`.
fn statements_at(text: &str) -> Vec<(String, usize, usize)> {
    text::sentences(text)
        .into_iter()
        .map(|(s, t)| (clean_sentence(&text[s..t]), heading_level(&text[s..t]), s))
        // A heading of two Japanese characters (上限, 概要, 手順) is a whole section's name.
        .filter(|(s, level, _)| s.chars().count() >= if *level > 0 { 1 } else { 3 })
        .collect()
}

/// The sentences of a text, cleaned of markup, each with its heading level (0: not a heading);
/// fragments under three characters are dropped, but for headings.
fn statements(text: &str) -> Vec<(String, usize)> {
    statements_at(text)
        .into_iter()
        .map(|(s, level, _)| (s, level))
        .collect()
}

/// A Markdown line's heading level: its leading `#`s (0: not a heading).
fn heading_level(line: &str) -> usize {
    line.trim_start().chars().take_while(|&c| c == '#').count()
}

/// The value of `kind` a claim states in what still stands of it (`standing`).
pub fn stated_value(claim: &str, kind: ValueKind) -> Option<values::Value> {
    claimed_value(&standing(claim), kind)
}

/// A document's sections in brief: each section's heading with its first statement ("Summary:
/// the outage lasted 51 minutes. Root cause: the SAML certificate expired."), up to `max` chars;
/// a first statement that withdraws something keeps the next, which says what replaces it.
/// A document without sections gives its opening statements.
pub fn outline(text: &str, max: usize) -> String {
    let lines = statements(text);
    let sectioned = lines.iter().any(|(_, l)| *l >= 2);
    let mut parts: Vec<String> = Vec::new();
    let mut len = 0;
    let mut push = |part: String, parts: &mut Vec<String>| {
        let n = part.chars().count();
        if len + n > max && !parts.is_empty() {
            return false;
        }
        len += n + 1;
        parts.push(part);
        true
    };
    for (i, (line, level)) in lines.iter().enumerate() {
        let statement = |k: usize| {
            let (first, _) = lines.get(k).filter(|(_, l)| *l == 0)?;
            Some(match lines.get(k + 1) {
                Some((next, 0)) if withdrawn(first) && !withdrawn(next) => format!("{first} {next}"),
                _ => first.clone(),
            })
        };
        let part = if sectioned {
            if *level < 2 {
                continue;
            }
            match statement(i + 1) {
                Some(first) => format!("{}: {first}", line.trim_end_matches(':')),
                None => continue,
            }
        } else {
            if *level > 0 {
                continue;
            }
            line.clone()
        };
        if !push(part, &mut parts) {
            break;
        }
    }
    parts.join(" ")
}

/// The value a claim states: of `kind`, and in "from X to Y" (or "XからYに") the new value Y.
pub fn claimed_value(claim: &str, kind: ValueKind) -> Option<values::Value> {
    let vs: Vec<values::Value> = values::extract(claim).into_iter().filter(|v| v.kind == kind).collect();
    if vs.len() >= 2 {
        let between = &claim[vs[0].end..vs[1].start];
        let b = text::normalize(between);
        if b.trim() == "to"
            || b.contains(" to ")
            || b.starts_with("to ")
            || b.contains("から")
            || b.contains('→')
            || b.contains("->")
        {
            return Some(vs[1].clone());
        }
    }
    vs.into_iter().next()
}

/// Values compare only within one unit (dollars with dollars, days with days).
fn unit_of(v: &values::Value) -> String {
    match v.kind {
        ValueKind::Money => v.canonical.chars().take_while(|c| c.is_ascii_alphabetic()).collect(),
        ValueKind::Duration => v.canonical.split(' ').nth(1).unwrap_or("").to_string(),
        _ => String::new(),
    }
}

/// Words two claims share beyond the question and their values, at least, to be about one
/// subject when the question asks for no kind of value (`detect`).
const SUBJECT_SHARED: usize = 2;

/// Finds a disagreement among the top clusters (those within reach of the best); `claims` are
/// theirs (`claims`). Without a value kind asked for, the kind is the one the best claim states,
/// and the others are read again for it.
pub fn detect(clusters: &[Cluster], claims: &[Claim], analysis: &Analysis, lexicon: &Lexicon) -> Option<Disagreement> {
    let focus_kind = analysis.focus;
    let top = clusters.first()?.score();
    let candidates: Vec<(usize, &Cluster)> = clusters
        .iter()
        .enumerate()
        .take(6)
        .filter(|(_, c)| c.score() >= top * 0.45 && c.rep().coverage >= 0.45)
        .collect();
    if candidates.len() < 2 {
        return None;
    }
    let first_claim = &claims[candidates[0].0].statement;
    let kind = focus_kind.or_else(|| {
        values::extract(first_claim)
            .into_iter()
            .map(|v| v.kind)
            .find(|k| *k != ValueKind::Number)
    })?;
    let mut sides: Vec<Side> = Vec::new();
    let mut places: Vec<(String, String)> = Vec::new();
    let mut unit: Option<String> = None;
    // The words a claim says beyond the question and its values: what it is about.
    let question_terms: std::collections::HashSet<String> = analysis
        .concepts
        .iter()
        .flat_map(|c| c.alternatives.iter().flat_map(|(alt, _)| alt.iter().cloned()))
        .collect();
    let subject = |claim: &str| -> std::collections::HashSet<String> {
        let mut bare = claim.to_string();
        for v in values::extract(claim).iter().rev() {
            if bare.is_char_boundary(v.start) && bare.is_char_boundary(v.end) && v.start <= v.end {
                bare.replace_range(v.start..v.end, " ");
            }
        }
        text::terms(&bare)
            .into_iter()
            .filter(|t| t.chars().count() >= 2 && !t.chars().any(|c| c.is_ascii_digit()))
            .filter(|t| !question_terms.contains(t))
            .collect()
    };
    let mut first_subject: Option<(std::collections::HashSet<String>, bool)> = None;
    for (i, c) in &candidates {
        let rep = c.rep();
        let (claim, v) = if focus_kind == Some(kind) {
            (claims[*i].statement.clone(), claims[*i].value.clone())
        } else {
            let claim = best_sentence(rep, analysis, lexicon, Some(kind));
            let v = stated_value(&claim, kind);
            (claim, v)
        };
        let Some(v) = v else {
            continue;
        };
        // A value in a sentence that names nothing asked about (a row of a rota, a list of
        // dates) is no position on the question.
        if !crate::pipeline::rank::concept_matches(&claim, analysis)
            .iter()
            .any(|m| *m > 0.0)
        {
            continue;
        }
        let u = unit_of(&v);
        if unit.get_or_insert_with(|| u.clone()) != &u {
            continue;
        }
        // When the question asks for no kind of value, values of one kind disagree only about
        // one subject: claims that share fewer than two words beyond the question's and their
        // values ("the Tokyo team moves on December 1", "the Osaka office opens in January")
        // speak of different things; a claim of one such word needs it, one of none nothing.
        // Claims in two languages share words only through translation: they are not compared.
        if focus_kind.is_none() {
            let words = (subject(&claim), text::is_japanese(&claim));
            match &first_subject {
                None => first_subject = Some(words),
                Some((first, ja)) if *ja == words.1 => {
                    let shared = first.intersection(&words.0).count();
                    if shared < SUBJECT_SHARED.min(first.len()).min(words.0.len()) {
                        continue;
                    }
                }
                Some(_) => {}
            }
        }
        places.push((rep.hit.source.clone(), rep.hit.location.clone()));
        let date = claims[*i].date;
        match sides.iter_mut().find(|s| s.value == v.canonical) {
            Some(s) => {
                s.clusters.push(*i);
                s.date = s.date.max(date);
            }
            None => sides.push(Side {
                value: v.canonical.clone(),
                claim,
                clusters: vec![*i],
                date,
            }),
        }
    }
    places.sort();
    places.dedup();
    if sides.len() < 2 || places.len() < 2 {
        return None;
    }
    sides.sort_by_key(|s| std::cmp::Reverse(s.date));
    Some(Disagreement { kind, sides })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_take_the_new_value() {
        let v = claimed_value("We raise the Pro plan from $39 to $49 per seat.", ValueKind::Money).unwrap();
        assert_eq!(v.canonical, "usd49");
        let v = claimed_value("リリースを11月24日から12月8日に延期します。", ValueKind::Date).unwrap();
        assert_eq!(v.canonical, "12-08");
        let v = claimed_value("Pro is $45, Enterprise $90.", ValueKind::Money).unwrap();
        assert_eq!(v.canonical, "usd45");
        assert!(withdrawn("The $49 Pro price is withdrawn."));
    }

    #[test]
    fn an_outline_gives_each_section_its_first_statement() {
        let doc = "# Postmortem\n\n## Summary\nThe outage lasted 51 minutes. SEV1.\n\n## Decision\n\
                   - The $49 price is withdrawn.\n- Pro is $45.\n\n## Links\n";
        assert_eq!(
            outline(doc, 400),
            "Summary: The outage lasted 51 minutes. Decision: The $49 price is withdrawn. Pro is $45."
        );
        assert_eq!(outline(doc, 40), "Summary: The outage lasted 51 minutes.");
        assert_eq!(
            outline("Welcome! Start here.\nAsk Ken.", 400),
            "Welcome! Start here. Ask Ken."
        );
    }

    #[test]
    fn a_withdrawal_leaves_what_replaces_it() {
        assert_eq!(
            standing("We are walking back the $49 price. Final decision: Pro is $45 per seat."),
            "Final decision: Pro is $45 per seat."
        );
        assert_eq!(standing("The $49 Pro price is withdrawn."), "");
        // Any verb of retraction, in either language; a word that may only mean a change is none.
        assert_eq!(
            standing("The board rescinded the hiring freeze. Hiring resumes in May."),
            "Hiring resumes in May."
        );
        assert_eq!(standing("大阪出張は取りやめになりました。"), "");
        assert_eq!(standing("We dropped the price to $45."), "We dropped the price to $45.");
        let v = claimed_value(
            &standing("価格改定は撤回します。Proは45ドルのままです。"),
            ValueKind::Money,
        )
        .unwrap();
        assert_eq!(v.canonical, "usd45");
    }

    #[test]
    fn a_list_question_gets_the_items_of_the_list_it_lands_in() {
        let doc = "# Release checklist\n\nBefore a release:\n1. Freeze the branch.\n2) Run the smoke tests.\n\
                   3. Tell support.\n\nAfter it, watch the dashboards.";
        let at = doc.find("Run the smoke").unwrap();
        let (intro, items) = list_block(doc, at).unwrap();
        assert_eq!(intro.as_deref(), Some("Before a release:"));
        assert_eq!(items, ["Freeze the branch.", "Run the smoke tests.", "Tell support."]);
        // The line that introduces the list answers with it.
        assert_eq!(list_block(doc, doc.find("Before").unwrap()).unwrap().1.len(), 3);
        // Prose is not a list; neither is a lone bullet, a version or a decimal.
        assert!(list_block(doc, doc.find("watch").unwrap()).is_none());
        assert!(list_block("- only one\nthen prose", 2).is_none());
        assert!(!list_item("1.5 hours of downtime"));
        assert!(list_item("・棚卸し") && list_item("① 申請する") && list_item("2） 申請する"));
    }

    /// A Notion page whose whole text is the scored passage.
    fn page(id: &str, doc: &str) -> Evidence {
        use crate::hit::{EvidenceKind, Hit};
        Evidence::plain(Hit::new("notion", id, EvidenceKind::Page, doc), 1.0)
    }

    #[test]
    fn choose_sentence_lists_the_items_only_when_the_question_asks_for_several() {
        let doc = "Onboarding\n\nIn the first week:\n- Get a laptop from IT.\n- Pair with your buddy on a bug.\n\
                   - Read the security policy.\n";
        let e = page("0000000000000000000000000000000a", doc);
        let lexicon = Lexicon::default();
        let now = "2026-11-20T09:00:00Z".parse().unwrap();
        let mut a = crate::pipeline::query::analyze("What are the tasks in the first week?", now, &lexicon);
        a.question = "What are the tasks in the first week?".into();
        a.answer_type = crate::pipeline::query::answer_type(&text::normalize(&a.question), false, false);
        let chosen = choose_sentence(&e, &a, &lexicon, None);
        assert_eq!(
            chosen.sentence,
            "In the first week: Get a laptop from IT; Pair with your buddy on a bug; Read the security policy."
        );
        a.answer_type = None;
        assert_eq!(choose_sentence(&e, &a, &lexicon, None).sentence, "In the first week:");
        // A sentence of prose that covers the question as well comes first in the page: the
        // list's items answer a question for several all the same.
        let doc = "This page is for your first week as an engineer.\n\n## Setup\n- Get a laptop from IT in your first week.\n\
                   - Pair with your buddy on a bug.\n";
        let e = page("0000000000000000000000000000000b", doc);
        a.answer_type = crate::pipeline::query::answer_type(&text::normalize(&a.question), false, false);
        assert_eq!(
            choose_sentence(&e, &a, &lexicon, None).sentence,
            "Get a laptop from IT in your first week; Pair with your buddy on a bug."
        );
    }

    #[test]
    fn the_encoder_chooses_the_sentence_that_puts_the_question_in_other_words() {
        let Some(encoder) = crate::text::encoder::shared() else {
            eprintln!("SKIPPED: needs the sentence encoder in the data directory");
            return;
        };
        if crate::text::wordfreq::frequencies().is_none() {
            eprintln!("SKIPPED: needs the word lists in the data directory");
            return;
        }
        // Written for this test: no sentence says "students" or "discount"; the last says so in
        // other words.
        let doc = "# Museum passes\nThe annual pass costs €60.\nThe annual pass includes entry to every exhibition.\n\
                   Pupils and undergraduates pay half price for the annual pass.\n";
        let e = page("0000000000000000000000000000000f", doc);
        let lexicon = Lexicon::default();
        let a = typed_analysis("Do students get a discount on the annual pass?", &lexicon);
        let chosen = choose_among(&e, &a, &lexicon, None, &[], Some(encoder));
        assert!(chosen.sentence.starts_with("Pupils"), "{chosen:?}");
        assert!(chosen.candidates[0].closest, "{:?}", chosen.candidates);
        // A question for an amount is answered by the sentence that states one: the encoder's
        // choice counts only among those.
        let a = typed_analysis("How much do students pay for the annual pass?", &lexicon);
        let chosen = choose_among(&e, &a, &lexicon, Some(ValueKind::Money), &[], Some(encoder));
        assert!(chosen.sentence.contains("€60"), "{chosen:?}");
    }

    #[test]
    fn a_sentence_stating_only_a_value_the_text_withdraws_does_not_stand() {
        // Written for this test: the first sentence tells what the withdrawn price did; the one
        // that stands states the price that holds.
        let doc = "Gym pricing\n\nSign-ups for the gym membership fell after the price moved to €30.\n\
                   The €30 price is withdrawn.\nThe gym membership price stays at €25 a month.\n";
        let e = page("0000000000000000000000000000000e", doc);
        let lexicon = Lexicon::default();
        let now = "2026-11-20T09:00:00Z".parse().unwrap();
        let a = crate::pipeline::query::analyze("What is the price of the gym membership?", now, &lexicon);
        let chosen = choose_sentence(&e, &a, &lexicon, Some(ValueKind::Money));
        assert!(chosen.sentence.contains("€25"), "{}", chosen.sentence);
        let first = chosen.candidates.iter().find(|c| c.sentence.contains("fell")).unwrap();
        assert!(first.withdrawn, "{first:?}");
        // Without a kind asked for, no value is the one withdrawn: the text's order decides.
        let chosen = choose_sentence(&e, &a, &lexicon, None);
        assert!(chosen.sentence.contains("fell"), "{}", chosen.sentence);
    }

    #[test]
    fn a_sentence_naming_the_code_the_question_names_wins_a_tie() {
        let doc = "Severity levels\n\nSEV1: the on-call must acknowledge an incident within 15 minutes.\n\
                   SEV2: an incident that degrades a feature; acknowledge within 30 minutes.\n";
        let e = page("0000000000000000000000000000000c", doc);
        let lexicon = Lexicon::default();
        let now = "2026-11-20T09:00:00Z".parse().unwrap();
        let q = "When must the on-call acknowledge a SEV2 incident?";
        let a = crate::pipeline::query::analyze(q, now, &lexicon);
        let chosen = choose_sentence(&e, &a, &lexicon, None);
        assert!(chosen.sentence.starts_with("SEV2:"), "{}", chosen.sentence);
        assert!(chosen.sentence.contains("30 minutes"), "{}", chosen.sentence);
        // Without a code in the question, the first of equals.
        let a = crate::pipeline::query::analyze("When must the on-call acknowledge an incident?", now, &lexicon);
        assert!(choose_sentence(&e, &a, &lexicon, None).sentence.starts_with("SEV1:"));
    }

    #[test]
    fn a_question_of_two_parts_is_answered_by_a_sentence_for_each() {
        // Written for this test: no one sentence speaks of both parts of the question.
        let doc = "# Front desk\n\nOpening hours: 8:00 to 19:00 on weekdays.\n\
                   Visitors sign in at reception.\n\
                   Guest wifi password: printed on the board by the door.\n";
        let e = page("0000000000000000000000000000000f", doc);
        let lexicon = Lexicon::default();
        let now = "2026-11-20T09:00:00Z".parse().unwrap();
        let a =
            crate::pipeline::query::analyze("What are the opening hours and the guest wifi password?", now, &lexicon);
        let chosen = choose_sentence(&e, &a, &lexicon, None);
        assert_eq!(
            chosen.sentence,
            "Guest wifi password: printed on the board by the door. Opening hours: 8:00 to 19:00 on weekdays.",
            "{:?}",
            chosen.candidates
        );
        // What the evidence claims is the chosen sentence's alone.
        assert!(!chosen.claiming.contains("Opening"), "{}", chosen.claiming);
        // "and" joining clauses, not two things asked about, asks one thing.
        let a = crate::pipeline::query::analyze(
            "What is the guest wifi password, and where do visitors sign in?",
            now,
            &lexicon,
        );
        assert!(!a.several);
        let a = crate::pipeline::query::analyze("受付の営業時間やゲスト用Wi-Fiのパスワードは？", now, &lexicon);
        assert!(a.several);
        let a = crate::pipeline::query::analyze("パスワードをはやく知りたい", now, &lexicon);
        assert!(!a.several);
        // A question of one part gets its sentence alone.
        let a = crate::pipeline::query::analyze("What is the guest wifi password?", now, &lexicon);
        assert_eq!(
            choose_sentence(&e, &a, &lexicon, None).sentence,
            "Guest wifi password: printed on the board by the door."
        );
    }

    #[test]
    fn of_sentences_covering_as_much_the_one_bounding_the_amount_as_the_question_does_wins() {
        // Written for this test: both lines speak of approving expenses of $500.
        let doc = "# Expense approvals\n\nUp to $500: your manager approves.\n\
                   Above $500: the finance director approves.\n";
        let e = page("0000000000000000000000000000000d", doc);
        let lexicon = Lexicon::default();
        let now = "2026-11-20T09:00:00Z".parse().unwrap();
        for (q, expected) in [
            ("Who approves expenses above $500?", "Above $500"),
            ("Who approves expenses over $500?", "Above $500"),
            ("Who approves expenses up to $500?", "Up to $500"),
            ("Who approves expenses under $500?", "Up to $500"),
        ] {
            let a = crate::pipeline::query::analyze(q, now, &lexicon);
            let chosen = choose_sentence(&e, &a, &lexicon, None);
            assert!(chosen.sentence.starts_with(expected), "{q}: {}", chosen.sentence);
        }
        assert_eq!(values::bound("上限は10万円以下です"), Some(false));
        assert_eq!(values::bound("10万円を超える場合は部長の承認が必要"), Some(true));
        assert_eq!(values::bound("Who approves discounts?"), None);
        let a = crate::pipeline::query::analyze("Who approves expenses above $500?", now, &lexicon);
        assert_eq!(a.bound, Some(true), "read once, with the question");
    }

    /// The question's analysis with its answer type read, as the pipeline reads them.
    fn typed_analysis(q: &str, lexicon: &Lexicon) -> Analysis {
        let mut a = crate::pipeline::query::analyze(q, "2026-11-20T09:00:00Z".parse().unwrap(), lexicon);
        a.answer_type = crate::pipeline::query::answer_type(&text::normalize(q), false, false);
        a
    }

    #[test]
    fn the_row_that_states_the_asked_date_wins_over_rows_its_heading_covers() {
        // Written for this test: a rota whose heading's period holds every row's date.
        let doc = "# Lab cover rota (Aug 10 – Aug 16)\n\n| Day | On call |\n|---|---|\n\
                   | Aug 10–12 | Priya Raman |\n| Aug 13 | Ole Halvorsen |\n| Aug 14–16 | Mei Takeda |\n";
        let e = page("0000000000000000000000000000000f", doc);
        let lexicon = Lexicon::default();
        let known = [
            "Priya Raman".to_string(),
            "Ole Halvorsen".to_string(),
            "Mei Takeda".to_string(),
        ];
        for (q, expected) in [
            ("Who is on call on Aug 13?", "Aug 13"),
            ("Who is on call on Aug 11?", "Aug 10–12"),
        ] {
            let a = typed_analysis(q, &lexicon);
            let chosen = choose_among(&e, &a, &lexicon, None, &known, None);
            assert!(chosen.sentence.starts_with(expected), "{q}: {:?}", chosen.candidates);
        }
        // The names the rows write are people the pool knows, for a "who" question only, when
        // WordNet tells a name from an English word.
        let clusters = [Cluster { members: vec![e] }];
        assert!(people(&clusters, false).is_empty());
        if crate::text::wordnet::wordnet().is_some() {
            assert_eq!(people(&clusters, true), ["Priya Raman", "Ole Halvorsen", "Mei Takeda"]);
        }
    }

    #[test]
    fn of_durations_the_one_in_the_unit_asked_for_wins() {
        // Written for this test: two durations for the same thing, in two units.
        let doc = "# Kiln notes\n\nCooling after a firing takes 2 hours in winter.\n\
                   Cooling after a firing takes 90 minutes in summer.\n";
        let e = page("00000000000000000000000000000010", doc);
        let lexicon = Lexicon::default();
        for (q, expected) in [
            ("How many minutes does cooling after a firing take?", "90 minutes"),
            ("How many hours does cooling after a firing take?", "2 hours"),
        ] {
            let a = typed_analysis(q, &lexicon);
            let chosen = choose_sentence(&e, &a, &lexicon, Some(ValueKind::Duration));
            assert!(chosen.sentence.contains(expected), "{q}: {:?}", chosen.candidates);
        }
        let unit =
            |q: &str| crate::pipeline::query::answer_type(&text::normalize(q), false, false).and_then(|t| t.unit);
        assert_eq!(unit("冷却は何分かかりますか？"), Some("minute"));
        assert_eq!(unit("保管は何日間ですか？"), Some("day"));
        assert_eq!(unit("How long does cooling take?"), None, "no unit asked");
        // 何日 after a period ("a week") asks how many days, not which day.
        let kind = |q: &str| crate::pipeline::query::answer_type(&text::normalize(q), false, false).map(|t| t.kind);
        assert_eq!(unit("在宅勤務は週に何日までですか？"), Some("day"));
        assert_eq!(
            kind("荷物は何日に届きますか？"),
            Some(crate::pipeline::query::AnswerType::Date)
        );
    }

    #[test]
    fn of_sentences_covering_as_much_the_one_with_the_rarer_concept_wins() {
        // Written for this test: every sentence is about the warehouse move; only one is about
        // the forklifts.
        let doc = "# Warehouse move\n\nStaff leave the old site on March 3.\n\
                   The last trucks leave on March 4.\n\
                   Forklifts go by rail on March 1.\n";
        let e = page("0000000000000000000000000000000e", doc);
        let lexicon = Lexicon::default();
        let now = "2026-11-20T09:00:00Z".parse().unwrap();
        let a = crate::pipeline::query::analyze("When do the forklifts leave for the warehouse move?", now, &lexicon);
        let chosen = choose_sentence(&e, &a, &lexicon, None);
        assert_eq!(
            chosen.sentence, "Forklifts go by rail on March 1.",
            "{:?}",
            chosen.candidates
        );
    }

    #[test]
    fn a_duration_relative_to_an_event_says_when() {
        // Sentences written for this test.
        let date = Some(ValueKind::Date);
        assert!(holds("File the claim within 10 business days.", date, true));
        assert!(holds("The badge expires 30 days after your last visit.", date, true));
        assert!(holds("申請は購入から14日以内に行うこと。", date, true));
        assert!(holds("The venue is booked for March 3.", date, true));
        assert!(!holds("The workshop lasts 3 days.", date, true));
        assert!(!holds("研修は3日間です。", date, true));
        assert!(holds("The workshop lasts 3 days.", Some(ValueKind::Duration), true));
        // Unless the question's grammar asks when, a duration is no date.
        assert!(!holds("File the claim within 10 business days.", date, false));
        assert!(holds("The venue is booked for March 3.", date, false));
    }

    #[test]
    fn a_function_word_does_not_make_a_sentence_about_the_question() {
        // Written for this test: both lines say when something ships; only the second is about
        // pallets. The first has the question's "via", which names nothing.
        let doc = "# Dispatch\n\nParcels ship via courier at 9:00.\n\
                   Pallets ship by truck at 15:00.\n";
        let e = page("0000000000000000000000000000000c", doc);
        let lexicon = Lexicon::default();
        let now = "2026-11-20T09:00:00Z".parse().unwrap();
        let a = crate::pipeline::query::analyze("When do pallets ship via the depot?", now, &lexicon);
        let chosen = choose_sentence(&e, &a, &lexicon, None);
        // With the word lists and WordNet (tests/it/language.rs installs them) "via" is a
        // function word; without them it counts as any word, the first of equals wins, and the
        // next line joins it for the "pallets" it adds.
        let known = a.concepts.iter().any(|c| c.function_word);
        let expected = if known {
            "Pallets ship by truck at 15:00."
        } else {
            "Parcels ship via courier at 9:00. Pallets ship by truck at 15:00."
        };
        assert_eq!(chosen.sentence, expected, "{:?}", chosen.candidates);
        assert_eq!(
            known,
            crate::text::wordnet::wordnet().is_some_and(|w| !w.names_a_thing("via"))
                && crate::text::wordfreq::specificity("via")
                    .is_some_and(|s| s < crate::pipeline::query::EVERYDAY_BELOW)
        );
    }

    #[test]
    fn a_short_japanese_heading_names_its_section() {
        // Written for this test: a rule book whose section 「予算」 holds the amounts.
        let doc = "# 備品購入規程\n\n## 申請\n備品は購入の前に申請すること。\n\n## 予算\n\
                   - 文房具：月3,000円まで。\n- 書籍：1冊6,000円まで。\n";
        let e = page("0000000000000000000000000000000d", doc);
        let lexicon = Lexicon::default();
        let a = typed_analysis("備品購入の予算を全部教えて", &lexicon);
        assert_eq!(a.answer_type.as_ref().map(|t| t.kind), Some(AnswerType::List));
        let chosen = choose_sentence(&e, &a, &lexicon, None);
        assert_eq!(chosen.sentence, "文房具：月3,000円まで; 書籍：1冊6,000円まで。");
        // Asked for one thing, the first line under the heading that names it.
        let a = typed_analysis("備品の予算は？", &lexicon);
        assert_eq!(
            choose_sentence(&e, &a, &lexicon, None).sentence,
            "文房具：月3,000円まで。"
        );
    }

    #[test]
    fn a_who_answer_finds_the_person_a_sentence_points_to() {
        let people = [
            "Mara Lindqvist".to_string(),
            "Tomás Ruiz".to_string(),
            "山田 由紀".to_string(),
        ];
        assert_eq!(
            named_person("Huge thanks to Tomás for the fix!", &people),
            Some("Tomás Ruiz")
        );
        assert_eq!(named_person("担当は山田さんです。", &people), Some("山田 由紀"));
        // The earliest named wins; the whole name counts as well as a part.
        assert_eq!(
            named_person("Mara Lindqvist hands over to Tomás Ruiz.", &people),
            Some("Mara Lindqvist")
        );
        // A part shorter than three letters, or inside another word, names nobody.
        assert_eq!(named_person("Ask IT about Maraschino cherries.", &people), None);
        assert_eq!(named_person("", &people), None);
    }
}
