//! `sagasu eval` end to end, and the quality gate: the demo's golden set must keep its quality.

use crate::common::{language_data, repo, run_with_data};

/// `sagasu eval` with the language resources installed (into `target/sagasu-data`, as the
/// other language tests do, unless `SAGASU_DATA` says where they are): the gates hold the
/// figures measured with them, which a machine without them would not reach.
fn eval(args: &[&str]) -> (i32, String, String) {
    run_with_data(&language_data("all"), &[&["eval"], args].concat())
}

/// The quality gate, on both demo sets: thresholds are what each set measures minus a margin of
/// about three questions, so that a general change that costs one question is not blocked and a
/// real regression is. Facts are strict (the answer's own prose, contracts section 5).
/// Measured when set (2026-12-01): `golden/acme.yaml` nDCG@10 0.876, intent 0.941, strict facts
/// 0.862 (0.961 with the source list), abstention 0.875, citation precision 0.868;
/// `golden/acme-paraphrase.yaml` (never tuned on) nDCG@10 0.766, intent 0.765, strict facts
/// 0.526, abstention 0.875, citation precision 0.780. With the 9 long and list-answer questions
/// (2026-12-01, before the answer work on them): demo 0.884 / 0.915 / 0.814 / 0.875 / 0.908,
/// paraphrase 0.779 / 0.745 / 0.492 / 0.875 / 0.860. With the fitted verdict in place of the
/// coverage threshold: demo facts 0.831, abstention 0.875, precision 0.918; paraphrase facts
/// 0.539, abstention 0.750 (one unanswerable question more is answered, 19 answerable ones
/// fewer are abstained), precision 0.887. With sentences read around the passage: demo facts
/// 0.843, paraphrase 0.563. With answer types (lists, "who" names the person pointed to): demo
/// facts 0.880, paraphrase 0.575. With the semantic factor and the learned intent classifier
/// (2026-12-02): demo 0.904 / 0.894 / 0.863 / 0.750 / 0.921, paraphrase 0.823 / 0.840 / 0.633 /
/// 0.875 / 0.931; the demo's abstention gate allows one question of its eight (the classifier
/// now reads an unanswerable decision question as a decision, whose policy answers it partly).
/// With the person lead and 12 more unanswerable demo questions (2026-12-02, 106 questions):
/// demo 0.904 / 0.915 / 0.882 / 0.900 / 0.921, paraphrase 0.817 / 0.830 / 0.686 / 0.875 / 0.942;
/// the gates rose to those figures less the same margin.
/// With spelling correction, periods' days, the list and code sentence keys (2026-12-02, session
/// 17): demo 0.904 / 0.915 / 0.894 / 0.900 / 0.926, paraphrase 0.834 / 0.819 / 0.722 / 0.875 /
/// 0.932; the fact gates rose with them.
/// With the list questions of all of something and of what is owed, short Japanese headings, the
/// decision lead, one subject per disagreement and WordNet's synonyms (2026-12-02, session 18):
/// demo 0.904 / 0.915 / 0.929 / 0.900 / 0.926, paraphrase 0.836 / 0.819 / 0.745 / 0.875 / 0.939;
/// the fact gates rose with them.
/// With the counterpart of a lead in the other language, 64 more intent examples and
/// abbreviations carried untranslated (2026-12-03, session 19): demo 0.904 / 0.915 / 0.941 /
/// 0.900 / 0.926, paraphrase 0.837 / 0.840 / 0.751 / 0.875 / 0.939; the fact gates rose with them.
const GATES: &[(&str, [&str; 5])] = &[
    ("golden/acme.yaml", ["0.87", "0.88", "0.90", "0.80", "0.89"]),
    ("golden/acme-paraphrase.yaml", ["0.78", "0.79", "0.72", "0.72", "0.90"]),
];

/// `sagasu eval` of a gate's set with its thresholds, and `extra` arguments.
fn gated(gate: (&str, [&str; 5]), extra: &[&str]) -> (i32, String, String) {
    let (set, [ndcg, intent, facts, abstention, precision]) = gate;
    let args = [
        set,
        "--min-ndcg",
        ndcg,
        "--min-intent-accuracy",
        intent,
        "--min-fact-recall",
        facts,
        "--min-abstention",
        abstention,
        "--min-citation-precision",
        precision,
    ];
    eval(&[&args[..], extra].concat())
}

#[test]
fn quality_gate_on_the_paraphrase_set() {
    let (code, stdout, stderr) = gated(GATES[1], &[]);
    assert_eq!(
        code, 0,
        "quality on {} dropped below the gate:\n{stderr}\n{stdout}",
        GATES[1].0
    );
}

#[test]
fn quality_gate_on_the_demo_golden_set() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let (code, stdout, stderr) = gated(GATES[0], &["--json", json.to_str().unwrap()]);
    assert_eq!(code, 0, "quality dropped below the gate:\n{stderr}\n{stdout}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    // The contract's shape (section 5).
    for key in [
        "sets",
        "overall",
        "by_intent",
        "by_lang",
        "baseline",
        "compare",
        "questions",
    ] {
        assert!(report.get(key).is_some(), "report lacks `{key}`");
    }
    assert!(report["baseline"].is_null() && report["compare"].is_null());
    assert_eq!(report["overall"]["questions"], 106);
    assert_eq!(report["by_intent"].as_object().unwrap().len(), 7);
    assert_eq!(report["by_lang"].as_object().unwrap().len(), 2);
    let q = &report["questions"][0];
    for key in [
        "id",
        "intent_expected",
        "intent_predicted",
        "ndcg_at_10",
        "recall_at_10",
        "answer_fact_recall",
        "cited_ids",
        "latency_ms",
    ] {
        assert!(q.get(key).is_some(), "question entry lacks `{key}`");
    }
    assert!(
        stdout.contains("Intent confusion") && stdout.contains("Sources (main run)"),
        "{stdout}"
    );
}

/// sagasu's policies against both naive baselines, intent by intent: nDCG@10 ahead, and strict
/// answer-fact recall behind by at most one question of the intent (1 / the intent's questions
/// with facts), the gate's regression margin. (Since facts count only in the answer's prose,
/// an English question answered from a Japanese document states its value in Japanese and
/// misses it; answering in the question's language is issue 17's work.)
#[test]
fn the_policies_beat_both_baselines_in_every_intent() {
    for baseline in ["uniform", "recency"] {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("report.json");
        let (code, stdout, stderr) = eval(&[
            "golden/acme.yaml",
            "--baseline",
            baseline,
            "--json",
            json.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stderr}\n{stdout}");
        let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let ours = report["by_intent"].as_object().unwrap();
        let theirs = &report["baseline"]["by_intent"];
        assert_eq!(ours.len(), 7);
        for (intent, m) in ours {
            let metric = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{intent} lacks {k}"));
            let (n, bn) = (metric(m, "ndcg_at_10"), metric(&theirs[intent], "ndcg_at_10"));
            assert!(n > bn, "{intent}: nDCG@10 {n:.3} is not ahead of {baseline}'s {bn:.3}");
            let (f, bf) = (
                metric(m, "answer_fact_recall"),
                metric(&theirs[intent], "answer_fact_recall"),
            );
            let with_facts = report["questions"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|q| q["intent_expected"] == intent.as_str() && q["answer_fact_recall"].is_number())
                .count();
            let one_question = 1.0 / with_facts.max(1) as f64;
            assert!(
                f >= bf - one_question - 1e-9,
                "{intent}: answer-fact recall {f:.3} is behind {baseline}'s {bf:.3} by more than one question"
            );
        }
    }
}

const SMALL: &str = r#"name: small
workspace: WORKSPACE
as_of: 2026-11-20T09:00:00Z
questions:
  - id: price
    question: "What did we decide about the Pro plan price?"
    lang: en
    intent: decision
    relevant:
      "slack:pricing/1792501200.445394": 2
    answer_facts: ["$45"]
  - id: nothing
    question: "What is the plan for our Mars colony?"
    lang: en
    intent: exploratory
    unanswerable: true
"#;

#[test]
fn baselines_and_comparisons_run_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let golden = dir.path().join("small.yaml");
    let workspace = repo().join("examples/acme");
    std::fs::write(&golden, SMALL.replace("WORKSPACE", workspace.to_str().unwrap())).unwrap();
    // A second policy folder with every weight on freshness: the comparison must show it.
    let alt = dir.path().join("policies");
    crate::common::copy_dir(&repo().join("policies"), &alt);
    let decision = std::fs::read_to_string(alt.join("decision.yaml")).unwrap();
    let changed = decision.replace(
        "weights: { keyword: 0.3, freshness: 0.3, authority: 0.2, completeness: 0.2, semantic: 0.25 }",
        "weights: { keyword: 0.0, freshness: 1.0, authority: 0.0, completeness: 0.0 }",
    );
    assert_ne!(changed, decision, "the decision policy's weights line moved");
    std::fs::write(alt.join("decision.yaml"), changed).unwrap();
    let json = dir.path().join("r.json");
    let md = dir.path().join("r.md");
    let (code, stdout, stderr) = eval(&[
        golden.to_str().unwrap(),
        "--baseline",
        "recency",
        "--compare",
        alt.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
        "--min-ndcg",
        "1.01",
    ]);
    assert_eq!(code, 1, "an unreachable threshold exits 1:\n{stderr}");
    assert!(
        stderr.contains("ndcg_at_10") && stderr.contains("below 1.01"),
        "{stderr}"
    );
    assert!(
        stdout.contains("baseline recency") && stdout.contains("compare ("),
        "{stdout}"
    );
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["baseline"]["name"], "recency");
    assert_eq!(report["compare"]["overall"]["questions"], 2);
    assert!(report["overall"]["abstention"].is_number());
    assert!(
        report["overall"]["conflict_recall"].is_null(),
        "no question expects a conflict"
    );
    let markdown = std::fs::read_to_string(&md).unwrap();
    assert!(
        markdown.starts_with("# sagasu eval") && markdown.contains("| metric |"),
        "{markdown}"
    );
}

#[test]
fn bad_golden_files_exit_2_with_positions() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.yaml");
    std::fs::write(
        &bad,
        "name: bad\nas_of: 2026-11-20T09:00:00Z\nquestions:\n  - id: a\n    question: \"x\"\n    lang: en\n    intent: guessing\n    unanswerable: true\n",
    )
    .unwrap();
    let (code, _, stderr) = eval(&[bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("bad.yaml:7:13") && stderr.contains("unknown variant `guessing`"),
        "{stderr}"
    );
    let (code, _, stderr) = eval(&["/nonexistent/golden.yaml"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("cannot read the file"), "{stderr}");
}

/// The intent classifier's examples are written from the intents' definitions, never copied from
/// a golden set: no example is within a small edit distance of any golden question (the
/// closest, measured when written, share 61% of their characters in place).
#[test]
fn no_intent_example_is_a_golden_question_reworded_slightly() {
    type Examples = std::collections::BTreeMap<String, std::collections::BTreeMap<String, Vec<String>>>;
    let text = std::fs::read_to_string(repo().join("policies/intent-examples.yaml")).unwrap();
    let examples: Examples = serde_norway::from_str(&text).unwrap();
    let mut golden = Vec::new();
    for entry in std::fs::read_dir(repo().join("golden")).unwrap() {
        let path = entry.unwrap().path();
        let set: serde_json::Value = serde_norway::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for q in set["questions"].as_array().unwrap() {
            golden.push(q["question"].as_str().unwrap().to_lowercase());
        }
    }
    assert!(golden.len() > 100, "{}", golden.len());
    for (intent, by_lang) in &examples {
        for example in by_lang.values().flatten() {
            let e = example.to_lowercase();
            for g in &golden {
                let similarity = strsim::normalized_levenshtein(&e, g);
                assert!(
                    similarity < 0.75,
                    "{intent} example {example:?} is {similarity:.2} like the golden question {g:?}"
                );
            }
        }
    }
}
