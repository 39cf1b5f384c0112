//! The words of a question that are not its subject: fillers, the words that only say what kind
//! of answer is wanted, recency and reason words; and `keywords`, the content words left.

use crate::text;

/// Extra filler that says nothing about the subject of a question.
pub(super) const QUESTION_FILLER: &[&str] = &[
    // question shapes: "how often", "how much", "how long", "how fast"
    "much",
    "many",
    "often",
    "long",
    "fast",
    "quickly",
    "soon",
    "far",
    "exactly",
    "usually",
    "typically",
    "supposed",
    "must",
    "has",
    "have",
    "shall",
    "may",
    "might",
    "ago",
    "kind",
    "sort",
    "whats",
    "currently",
    "ever",
    "anybody",
    "somebody",
    "someone",
    "need",
    "want",
    "find",
    "right",
    "now",
    "latest",
    "thing",
    "things",
    "stuff",
    "something",
    "happened",
    "happen",
    "become",
    "became",
    "becomes",
    "get",
    "got",
    "go",
    "goes",
    "going",
    "happening",
    "make",
    "made",
    "use",
    "used",
    "say",
    "said",
    "mean",
    "current",
    "actually",
    "really",
    "also",
    "one",
    "ones",
    "lets",
    "me",
];

/// Words that ask for recent evidence; they set `prefer_recent` instead of being searched.
pub(super) const RECENCY_WORDS: &[&str] = &[
    "latest", "last", "recent", "recently", "lately", "newest", "previous", "前回", "最新", "直近", "最近",
];
/// Those of them that ask for the single latest occurrence; they also set `latest`.
pub(super) const LATEST_WORDS: &[&str] = &["latest", "last", "newest", "previous", "前回", "最新", "直近"];

/// Words that say what kind of answer is wanted (a person, a status), not what the question is
/// about.
pub(super) const ANSWER_TYPE_WORDS: &[&str] = &[
    "owns",
    "owner",
    "owned",
    "responsible",
    "assignee",
    "assigned",
    "charge",
    "担当者",
    "責任者",
    "担当",
    // what a status question wants to know, not what it is about ("is the export done yet?")
    "status",
    "progress",
    "done",
    "finished",
    "started",
    "yet",
    "far",
    "along",
    "ready",
    "進捗",
    "状況",
    "進み具合",
    // what a decision question wants to know ("what did we decide about CI?" is about CI)
    "decide",
    "decided",
    "decision",
    "decisions",
    "settle",
    "settled",
    "pick",
    "picked",
    "choose",
    "chose",
    "chosen",
    "select",
    "selected",
    "決定",
    "決め",
    "選定",
    // what a "when" or "how long" question wants to know ("休業期間はいつから？")
    "期間",
    "日程",
    "時期",
    "日時",
];

/// Phrases that ask for a decision; their words say nothing about its subject.
pub(super) const DECISION_IDIOMS: &[&str] = &[
    "final call",
    "final say",
    "final word",
    "the call on",
    "make the call",
    "made the call",
];

/// Words that ask why; the question then asks for a reason.
pub(super) const WHY_WORDS: &[&str] = &["why", "なぜ", "何故", "どうして"];
/// Words that name a reason; the first is what a "why" question searches for.
pub(super) const REASON_WORDS: &[&str] = &["reason", "reasons", "理由"];

/// In a question for a document, words that say a document is wanted ("where are the onboarding
/// docs?" is about onboarding; the guide that answers it may never call itself a doc). Outside
/// such questions they may be the subject ("a tool that converts a document to PDF").
pub(super) const DOCUMENT_WORDS: &[&str] = &[
    "doc",
    "docs",
    "document",
    "documents",
    "documentation",
    "ドキュメント",
    "資料",
    "文書",
    "spec",
    "specs",
    "specification",
    "仕様",
    "仕様書",
];

/// In an exploratory question, words that say an overview is wanted ("an overview of the Japan
/// launch", "最近の価格の議論をまとめて").
/// ("summary" and "summarize" are not: a summarizer may be what a question looks for.)
pub(super) const OVERVIEW_WORDS: &[&str] = &[
    "overview",
    "recap",
    "discussion",
    "discussions",
    "全体像",
    "概要",
    "議論",
];

pub(super) const TOOL_WORDS: &[&str] = &[
    "tool",
    "tools",
    "integration",
    "integrations",
    "command",
    "commands",
    "ツール",
    "コマンド",
    "lets",
    "let",
    "allows",
    "allow",
];

/// Kanji of words that ask rather than name, alone (教, 知) or as a verb's stem (教える, 知る,
/// 書く in 「どこに書いてありますか」, where something is written).
pub(super) const JA_FILLER: &[&str] = &["教", "決", "変", "使", "知", "思", "言", "見", "行", "来", "書"];

/// Splits a question into content words (see the module docs).
pub fn keywords(q: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |w: String| {
        if !w.is_empty() && !out.contains(&w) {
            out.push(w);
        }
    };
    let mut cur = String::new();
    let mut cur_kind = 0u8; // 0 none, 1 latin word, 2 kanji, 3 katakana
    let flush = |cur: &mut String, kind: u8, push: &mut dyn FnMut(String)| {
        let w = std::mem::take(cur);
        match kind {
            1 => {
                let mut w = w.trim_matches(|c: char| c == '-' || c == '\'' || c == '.').to_string();
                // English contractions and possessives: "what's", "don't", "company's".
                if let Some((base, suffix)) = w.split_once('\'')
                    && matches!(
                        suffix.to_lowercase().as_str(),
                        "s" | "re" | "ve" | "ll" | "d" | "m" | "t"
                    )
                {
                    // "don't", "isn't": a negated helper verb; "it's", "what's", "we're": a
                    // pronoun or question word with a verb; "company's": the noun.
                    let lb = base.to_lowercase();
                    w = if suffix.eq_ignore_ascii_case("t")
                        || text::is_stop_word(&lb)
                        || QUESTION_FILLER.contains(&lb.as_str())
                        || text::REQUEST_FILLER.contains(&lb.as_str())
                    {
                        String::new()
                    } else {
                        base.to_string()
                    };
                }
                let lw = w.to_lowercase();
                if lw.is_empty()
                    || text::is_stop_word(&lw)
                    || QUESTION_FILLER.contains(&lw.as_str())
                    || text::REQUEST_FILLER.contains(&lw.as_str())
                {
                    return;
                }
                push(w);
            }
            2 | 3 => {
                let keep = |w: &str| {
                    let n = w.chars().count();
                    !(text::is_stop_word(w) || (n == 1 && JA_FILLER.contains(&w)))
                };
                // A verb whose stem is a filler kanji asks (教えて, 知りたい) rather than names.
                let asks = |w: &str| {
                    w.chars()
                        .next()
                        .is_some_and(|c| JA_FILLER.iter().any(|f| f.starts_with(c)))
                };
                match text::japanese_words(&w) {
                    // With a dictionary: its words (compounds whole, verbs by base form).
                    Some(words) => {
                        for (w, verb) in words {
                            if keep(&w) && !(verb && asks(&w)) {
                                push(w);
                            }
                        }
                    }
                    None if keep(&w) => push(w),
                    None => {}
                }
            }
            _ => {}
        }
    };
    // With a dictionary a Japanese stretch, kana and all, is read as one piece: particles and
    // inflections are told apart by their part of speech. Without one, runs of kanji or of
    // katakana are the words and hiragana separates them.
    let morph = text::morph::available();
    for c in q.chars() {
        let kind = if c.is_ascii_alphanumeric() || c == '$' || matches!(c, '-' | '\'' | '.' | '%') && cur_kind == 1 {
            1
        } else if morph && (is_cjk_content(c) || matches!(c, '\u{3040}'..='\u{309F}')) {
            2
        } else if matches!(c, '\u{30A0}'..='\u{30FF}') {
            3
        } else if is_cjk_content(c) {
            2
        } else {
            0
        };
        if kind != cur_kind && !cur.is_empty() {
            flush(&mut cur, cur_kind, &mut push);
        }
        if kind != 0 {
            cur.push(c);
        }
        cur_kind = kind;
    }
    if !cur.is_empty() {
        flush(&mut cur, cur_kind, &mut push);
    }
    // A lone kanji is usually a verb stem or counter (書, 決); keep it only when it is all there is.
    if out.len() > 1 {
        let lone = |w: &String| w.chars().count() == 1 && w.chars().all(|c| !c.is_ascii());
        if out.iter().any(|w| !lone(w)) {
            out.retain(|w| !lone(w));
        }
    }
    out
}

pub(super) fn is_cjk_content(c: char) -> bool {
    matches!(c, '\u{30A0}'..='\u{30FF}' | '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}' | '々')
        || (c.is_alphanumeric() && !c.is_ascii() && !matches!(c, '\u{3040}'..='\u{309F}'))
}
