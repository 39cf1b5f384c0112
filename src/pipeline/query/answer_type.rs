//! What kind of answer a question asks for, from its shape: the wh-word or 疑問詞 and what
//! surrounds it ("who" a person, "how long" a period, "いくら" an amount, a question that opens
//! with an auxiliary verb or ends in 「か」 without a 疑問詞 a yes or no). General rules over the
//! grammar of questions in both languages, read from the normalised question.

use serde::Serialize;

use crate::pipeline::intent::cue_matches;

/// The kind of answer a question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AnswerType {
    /// A person: "who", "誰", "担当者は".
    Person,
    /// A date, time or period: "when", "how long", "いつ", "何日".
    Date,
    /// An amount, count or percentage: "how much", "how many", "いくら", "何件", "何%".
    Amount,
    /// A place or address: "where" (not of a document), "どこ", "住所".
    Place,
    /// A document or page: "where is the guide", "which page", "資料はどこ".
    Document,
    /// A tool, command or integration ("which tool ...").
    Tool,
    /// Yes or no: "is it ...?", "did we ...?", "…ましたか" without a 疑問詞.
    YesNo,
    /// A reason: "why", "なぜ", "理由".
    Reason,
    /// Several items: steps, criteria, requirements, "what are the ...", "一覧".
    List,
    /// What something is or what was decided: "what is ...", "what did we decide", "何が決まった".
    Definition,
}

impl AnswerType {
    pub fn as_str(self) -> &'static str {
        match self {
            AnswerType::Person => "person",
            AnswerType::Date => "date",
            AnswerType::Amount => "amount",
            AnswerType::Place => "place",
            AnswerType::Document => "document",
            AnswerType::Tool => "tool",
            AnswerType::YesNo => "yes_no",
            AnswerType::Reason => "reason",
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

/// English interrogatives of a person (the wh-word itself, whole words).
const WHO: &[&str] = &["who", "whom", "whose"];
/// Interrogatives of a date, time or period.
const WHEN: &[&str] = &[
    "when",
    "what date",
    "what day",
    "which day",
    "what time",
    "how long",
    "how soon",
    "how often",
    "how fast",
    "how quickly",
    "since when",
    "until when",
    "by when",
];
/// Questions about the state of something ("where are we with", "how far along", "進捗"): the
/// answer is a statement of state, not a place or an amount.
const STATE: &[&str] = &[
    "where are we",
    "where do we stand",
    "where do things stand",
    "how far along",
    "how far are",
    "status",
    "progress",
    "どこまで",
    "進捗",
    "状況",
    "進み具合",
];
/// Interrogatives of an amount, count or share.
const HOW_MUCH: &[&str] = &["how much", "how many", "what percentage", "what percent", "what share"];
const WHERE: &[&str] = &["where"];
const WHY: &[&str] = &["why", "how come", "for what reason"];
/// Generic words for a document: with "where" or "which" the question wants the document.
const DOCUMENT_NOUNS: &[&str] = &[
    "doc",
    "docs",
    "document",
    "documents",
    "documentation",
    "page",
    "pages",
    "guide",
    "guides",
    "runbook",
    "playbook",
    "handbook",
    "manual",
    "spec",
    "specification",
    "wiki",
    "policy",
    "template",
    "notes",
    "資料",
    "ドキュメント",
    "文書",
    "書類",
    "テンプレート",
    "ページ",
    "手順書",
    "マニュアル",
    "仕様書",
    "規程",
    "ガイド",
    "議事録",
];
/// Nouns that name several items: a question for them wants a list.
const LIST_NOUNS: &[&str] = &[
    "steps",
    "requirements",
    "criteria",
    "items",
    "options",
    "stages",
    "phases",
    "conditions",
    "prerequisites",
    "deliverables",
    "action items",
    "members",
    "手順",
    "条件",
    "要件",
    "一覧",
    "項目",
    "基準",
    "ステップ",
    "メンバー",
];
/// Verbs that open a yes/no question in English.
const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "can", "could", "will", "would", "should",
    "shall", "may", "must", "am",
];
/// Japanese interrogatives (疑問詞) of each kind. Substrings of the normalised question.
const JA_WHO: &[&str] = &["誰", "だれ", "どなた", "どの人", "担当者は", "責任者は", "窓口は"];
const JA_WHEN: &[&str] = &[
    "いつ",
    "何日",
    "何月",
    "何時",
    "何年",
    "何週",
    "何か月",
    "何ヶ月",
    "どのくらいの期間",
    "期限は",
    "日程は",
];
const JA_HOW_MUCH: &[&str] = &[
    "いくら",
    "何円",
    "何件",
    "何人",
    "何個",
    "何社",
    "何台",
    "何割",
    "何%",
    "何パーセント",
    "いくつ",
    "どのくらい",
    "どれくらい",
    "金額は",
    "料金は",
    "価格は",
    "上限は",
    "率は",
];
const JA_WHERE: &[&str] = &["どこ", "住所", "場所は"];
const JA_WHY: &[&str] = &["なぜ", "何故", "どうして", "理由"];
/// 疑問詞 that make a question other than yes/no (with the ones above).
const JA_WH: &[&str] = &["何", "なに", "どう", "どの", "どれ", "どんな", "どちら"];
/// Words that ask what was decided or what something is.
const DEFINITION: &[&str] = &[
    "what is",
    "what's",
    "what are",
    "what was",
    "what did",
    "what does",
    "what do",
    "what has",
    "what happened",
    "decide",
    "decided",
    "決ま",
    "決定",
    "とは",
    "って何",
    "とは何",
];

/// Words that ask to see or find something: with a document noun, the document is the answer.
const SEE: &[&str] = &[
    "見たい",
    "見せて",
    "ほしい",
    "欲しい",
    "教えて",
    "show me",
    "link",
    "find",
];

/// The kind of answer `q` (`text::normalize`d) asks for; `tool` when it asks which tool does
/// something. `None` for a request with no question shape ("tell me about the launch").
pub fn answer_type(q: &str, tool: bool) -> Option<AnswerType> {
    let has = |list: &[&str]| list.iter().any(|c| cue_matches(q, c));
    // A list noun inside a document's name is the document ("手順書" is a document, not steps).
    let mut without_documents = q.to_string();
    for d in DOCUMENT_NOUNS.iter().filter(|d| !d.is_ascii()) {
        without_documents = without_documents.replace(d, " ");
    }
    let has_list = LIST_NOUNS.iter().any(|c| cue_matches(&without_documents, c));
    let first = q
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .find(|w| !w.is_empty())
        .unwrap_or("");
    if tool {
        return Some(AnswerType::Tool);
    }
    if has(WHY) || has(JA_WHY) {
        return Some(AnswerType::Reason);
    }
    if has(WHO) || has(JA_WHO) {
        return Some(AnswerType::Person);
    }
    if has(WHEN) || has(JA_WHEN) {
        return Some(AnswerType::Date);
    }
    if has(STATE) {
        return Some(AnswerType::Definition);
    }
    if has(HOW_MUCH) || has(JA_HOW_MUCH) {
        return Some(AnswerType::Amount);
    }
    let where_ = has(WHERE) || has(JA_WHERE);
    let document = has(DOCUMENT_NOUNS);
    if where_ {
        return Some(if document {
            AnswerType::Document
        } else {
            AnswerType::Place
        });
    }
    // "…の仕様が書かれたページは？": a Japanese question that ends in "<document>は" asks for it.
    let stem = q.trim_end_matches(['?', '？', '。', ' ']);
    let ends_in_document = stem
        .strip_suffix('は')
        .is_some_and(|s| DOCUMENT_NOUNS.iter().any(|d| !d.is_ascii() && s.ends_with(d)));
    if document && (first == "which" || has(&["どの", "どれ"]) || has(SEE) || ends_in_document) {
        return Some(AnswerType::Document);
    }
    if has_list && (has(&["what are", "what were", "which", "list"]) || !AUXILIARIES.contains(&first)) {
        return Some(AnswerType::List);
    }
    // A question that opens with an auxiliary verb asks yes or no ("is the $49 price still in
    // effect?"); so does a Japanese one that ends in か with no 疑問詞 ("…ありましたか").
    if AUXILIARIES.contains(&first) {
        return Some(AnswerType::YesNo);
    }
    let ja_question = q.trim_end_matches(['?', '？', '。', ' ']).ends_with('か');
    if ja_question && !has(JA_WH) {
        return Some(AnswerType::YesNo);
    }
    if has(DEFINITION) || has(JA_WH) || first == "what" || first == "which" {
        return Some(AnswerType::Definition);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::normalize;

    fn of(q: &str) -> Option<AnswerType> {
        answer_type(&normalize(q), false)
    }

    #[test]
    fn wh_words_and_interrogatives_give_the_answer_type() {
        use AnswerType::*;
        // Sentences written for this test, one per shape, not taken from any golden set.
        for (q, t) in [
            ("Who signed off on the vendor contract?", Person),
            ("Whose team maintains the billing cron?", Person),
            ("When is the next security review?", Date),
            ("How long does onboarding take?", Date),
            ("How many seats did the customer buy?", Amount),
            ("What percentage of tickets were escalated?", Amount),
            ("Where is the Berlin warehouse?", Place),
            ("Where can I find the deployment guide?", Document),
            ("Why was the launch pushed back?", Reason),
            ("What are the requirements for a production release?", List),
            ("Has the audit started?", YesNo),
            ("Did legal approve the new terms?", YesNo),
            ("What did the board conclude about hiring?", Definition),
            ("契約を承認したのは誰ですか", Person),
            ("次の棚卸しはいつ？", Date),
            ("交通費の上限はいくら？", Amount),
            ("新しい倉庫の住所は？", Place),
            ("申請書のテンプレートはどこにありますか", Document),
            ("なぜリリースが延期されたのですか", Reason),
            ("本番リリースの条件は何ですか", List),
            ("監査はもう始まりましたか", YesNo),
            ("採用計画について何が決まった？", Definition),
            ("Where are we with the data center exit?", Definition),
            ("How far along is the vendor review?", Definition),
            ("How quickly must a refund be issued?", Date),
            ("在庫管理システム刷新の進捗は？", Definition),
            ("倉庫の作業手順書を見たい", Document),
            ("返品の規程が書かれたページは？", Document),
            ("出荷前の手順を教えて", List),
        ] {
            assert_eq!(of(q), Some(t), "{q}");
        }
        assert_eq!(
            answer_type(&normalize("Which app converts audio to text?"), true),
            Some(Tool)
        );
        assert_eq!(of("Tell me about the Berlin launch"), None);
    }
}
