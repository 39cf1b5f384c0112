//! The language resources (issue 18): IPADIC for Japanese morphology, installed by
//! `scripts/install-language-data` into a data directory; the bigram fallback without it, said
//! once; a broken dictionary named, never a panic.

use crate::common::{language_data, run_with_data};

/// The line of `terms` (`question_terms`) for the concept headed by `head` (as shown, stemmed).
fn term_line<'a>(terms: &'a str, head: &str, err: &str) -> &'a str {
    let prefix = format!("- {head}");
    terms
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no term `{head}` in {terms}\n{err}"))
}

/// A data directory holding only the resource folder `sub` with `files` (name, text) in it: a
/// damaged install, for the tests that it is named and the question still answered.
fn data_with(sub: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let data = tempfile::tempdir().unwrap();
    let dir = data.path().join(sub);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    data
}

/// The "Question terms" section of `ask --explain`.
fn question_terms(stdout: &str) -> String {
    let start = stdout
        .find("**Question terms**")
        .expect("explain lists the question terms");
    let rest = &stdout[start..];
    rest[..rest.find("\n\n").unwrap_or(rest.len())].to_string()
}

#[test]
fn japanese_is_cut_into_words_base_forms_and_compounds_by_the_dictionary() {
    let data = language_data("ipadic");
    let (code, out, err) = run_with_data(&data, &["check"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Japanese morphology: IPADIC from"), "{out}");
    let (code, out, err) = run_with_data(&data, &["ask", "--explain", "量産判定の不良率を下げた対策は？"]);
    assert!(code == 0, "{err}");
    assert!(
        !err.contains("bigrams"),
        "no fallback notice with the dictionary: {err}"
    );
    let terms = question_terms(&out);
    // The compounds with their parts; no particles, no bigrams, and no verb (in a question a
    // verb mostly asks; evidence is indexed by the verb's base form all the same).
    for t in ["量産判定", "量産", "判定", "不良率", "不良", "対策"] {
        assert!(terms.split_whitespace().any(|w| w == t), "`{t}` missing from {terms}");
    }
    for t in ["の", "を", "下げ", "た", "産判", "良率"] {
        assert!(
            !terms.split_whitespace().any(|w| w == t),
            "`{t}` is not a term: {terms}"
        );
    }
}

#[test]
fn an_interrogative_and_its_counter_are_not_terms() {
    let data = language_data("ipadic");
    let (_, out, err) = run_with_data(&data, &["ask", "--explain", "請求書は何年保存しますか"]);
    let terms = question_terms(&out);
    assert!(terms.contains("請求書") && terms.contains("保存"), "{terms}\n{err}");
    assert!(!terms.split_whitespace().any(|w| w == "年" || w == "何年"), "{terms}");
}

#[test]
fn without_the_dictionary_japanese_is_cut_into_bigrams_and_it_is_said_once() {
    let empty = tempfile::tempdir().unwrap();
    let (code, out, _) = run_with_data(empty.path(), &["check"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("not installed") && out.contains("character bigrams"),
        "{out}"
    );
    assert!(
        out.contains("scripts/install-language-data"),
        "says how to install it: {out}"
    );
    let (code, out, err) = run_with_data(empty.path(), &["ask", "--explain", "量産判定会議の不良率は？"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err.matches("character bigrams").count(), 1, "said once: {err}");
    assert_eq!(
        err.matches("Word frequencies: not installed").count(),
        1,
        "said once: {err}"
    );
    assert!(question_terms(&out).contains("量産 産判"), "bigrams: {out}");
}

#[test]
fn a_corrupt_dictionary_is_named_and_the_bigram_fallback_answers() {
    let data = data_with(
        "ipadic",
        &[
            ("lex.csv", "量産,1285,1285,5000,*\n壊れた行"),
            ("matrix.def", "1316 1316\n0 0"),
            ("char.def", "DEFAULT 0 1 0\n"),
            ("unk.def", "DEFAULT,5,5,4769,*\n"),
            ("left-id.def", "0 BOS/EOS,*,*\n"),
        ],
    );
    let (code, out, err) = run_with_data(data.path(), &["check"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("unusable") && out.contains("character bigrams"), "{out}");
    assert!(!err.contains("panicked"), "{err}");
    let (code, out, err) = run_with_data(data.path(), &["ask", "量産判定会議の結果は？"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.is_empty() && !err.contains("panicked"), "{err}");
}

#[test]
fn word_frequencies_are_installed_and_a_damaged_list_is_named() {
    let data = language_data("wordfreq");
    let (code, out, err) = run_with_data(&data, &["check"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Word frequencies: wordfreq from"), "{out}");
    let broken = data_with("wordfreq", &[("en.tsv", "give\t571\nno tab here\n"), ("ja.tsv", "")]);
    let (code, out, err) = run_with_data(broken.path(), &["check"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("unusable") && out.contains("en.tsv line 2"), "{out}");
    let (code, out, err) = run_with_data(
        broken.path(),
        &["ask", "Could you give me a rundown of the Pro plan price?"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(!out.is_empty() && !err.contains("panicked"), "{err}");
}

#[test]
fn a_misspelt_word_is_read_as_the_word_it_misses_and_kept_as_asked() {
    let data = language_data("wordfreq");
    language_data("jmdict");
    let (code, out, err) = run_with_data(
        &data,
        &["ask", "--explain", "When does the comapny close for the holidays?"],
    );
    assert_eq!(code, 0, "{err}");
    let terms = question_terms(&out);
    // Read as the word it misses (so that it is searched, translated and ranked as that word),
    // with the word as asked among what counts for it.
    let line = term_line(&terms, "compani", &err);
    assert!(line.contains("| comapni"), "{line}");
    let queries = &out[out.find("**Queries**").expect("queries")..];
    assert!(queries.contains("company") && queries.contains("comapny"), "{queries}");
    // A name (capitalised inside the sentence) and a word of a listed one's stem are not slips.
    let (_, out, _) = run_with_data(&data, &["ask", "--explain", "who set up the Comapny pooling rules?"]);
    let terms = question_terms(&out);
    assert!(terms.contains("- comapni") && terms.contains("- pool"), "{terms}");
}

#[test]
fn a_question_finds_words_of_the_other_language_through_jmdict() {
    let data = language_data("jmdict");
    let (code, out, err) = run_with_data(&data, &["check"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("English-Japanese dictionary: JMdict from"), "{out}");
    // No lexicon pair says so: the dictionary does, with a weight below the word itself.
    let (_, out, err) = run_with_data(
        &data,
        &["ask", "--explain", "Is there a workaround for the sync issue?"],
    );
    let terms = question_terms(&out);
    let line = term_line(&terms, "workaround", &err);
    assert!(line.contains("回避策 ("), "{line}");
}

#[test]
fn a_damaged_jmdict_table_is_named_and_the_question_still_answered() {
    let data = data_with(
        "jmdict",
        &[("ja.tsv", "b\t1.000:x\na\t1.000:y\n"), ("en.tsv", "a\t1.000:x\n")],
    );
    let (code, out, err) = run_with_data(data.path(), &["check"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("ja.tsv") && out.contains("unusable") && out.contains("line 2"),
        "{out}"
    );
    let (code, out, err) = run_with_data(data.path(), &["ask", "What is the workaround?"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.is_empty() && !err.contains("panicked"), "{err}");
}

#[test]
fn a_compound_without_an_entry_crosses_languages_member_by_member_in_a_query_of_its_own() {
    language_data("ipadic");
    let data = language_data("jmdict");
    let (code, out, err) = run_with_data(&data, &["ask", "--explain", "量産判定会議の不良率は？"]);
    assert_eq!(code, 0, "{err}");
    // 不良率 has no JMdict entry: its members' translations stand for it, below the word.
    let terms = question_terms(&out);
    let line = terms
        .lines()
        .find(|l| {
            l.split(" | ")
                .next()
                .is_some_and(|head| head.split_whitespace().any(|w| w == "不良率"))
        })
        .unwrap_or_else(|| panic!("{terms}"));
    assert!(line.contains("rate ("), "{line}");
    // The sources are sent the question in English too, as a query of its own.
    let start = out
        .find("**Queries**")
        .unwrap_or_else(|| panic!("explain lists the queries: {out}"));
    let queries: Vec<&str> = out[start..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("- "))
        .collect();
    assert_eq!(queries.len(), 2, "{queries:?}");
    assert!(
        queries[0].contains("不良率") && !queries[0].contains("rate"),
        "{queries:?}"
    );
    assert!(
        queries[1].contains("rate") && !queries[1].contains("不良率"),
        "{queries:?}"
    );
}

#[test]
fn a_japanese_word_finds_its_synonyms_through_sudachi_and_a_damaged_table_is_named() {
    language_data("ipadic");
    let data = language_data("sudachi");
    let (code, out, err) = run_with_data(&data, &["check"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Japanese synonyms: the Sudachi synonym dictionary from"),
        "{out}"
    );
    // No lexicon group says so: the dictionary's groups do, below the word itself, and the
    // sources are sent the surest of them.
    let (code, out, err) = run_with_data(&data, &["ask", "--explain", "先週の打ち合わせで延期になった件は？"]);
    assert_eq!(code, 0, "{err}");
    let terms = question_terms(&out);
    let line = term_line(&terms, "延期", &err);
    assert!(line.contains("先送り (0.60)"), "{line}");
    let line = term_line(&terms, "打ち合わせ", &err);
    assert!(line.contains("会議 (0.60)"), "{line}");
    let queries = &out[out.find("**Queries**").expect("queries")..];
    assert!(
        queries.lines().nth(1).is_some_and(|l| l.contains("期間延長")),
        "{queries}"
    );
    // A damaged table is refused whole, named, and the question still answered.
    let broken = data_with("sudachi", &[("synonyms.tsv", "会議\t0.600:打ち合わせ\n延期 先送り\n")]);
    let (code, out, err) = run_with_data(broken.path(), &["check"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("synonyms.tsv") && out.contains("unusable") && out.contains("line 2"),
        "{out}"
    );
    let (code, out, err) = run_with_data(broken.path(), &["ask", "延期になった件は？"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.is_empty() && !err.contains("panicked"), "{err}");
}
