//! The hostile inputs found so far (issue 15 and the property tests), kept under
//! `tests/corpus/<parser>/` and run through the parser they broke: each must end in a value or
//! a positioned problem, quickly, and never in a panic. A new bad input goes into its folder
//! and is checked from then on.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::{copy_dir, demo, is_contract_id, repo};

/// Longest any one input may take (debug build, a loaded 2-core machine).
const QUICK: Duration = Duration::from_secs(5);

fn cases(folder: &str) -> Vec<PathBuf> {
    let dir = repo().join("tests/corpus").join(folder);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no cases in {}", dir.display());
    files
}

/// Each case of `folder` with its text.
fn texts(folder: &str) -> Vec<(PathBuf, String)> {
    cases(folder)
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).unwrap();
            (f, text)
        })
        .collect()
}

/// Every non-empty line of every case of `folder`.
fn lines(folder: &str) -> Vec<String> {
    texts(folder)
        .iter()
        .flat_map(|(_, text)| text.lines().filter(|l| !l.is_empty()).map(str::to_string))
        .collect()
}

fn timed<T>(what: &Path, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    assert!(t.elapsed() < QUICK, "{}: took {:?}", what.display(), t.elapsed());
    out
}

fn positioned(what: &Path, d: &sagasu::util::yaml::Diagnostics) {
    assert!(!d.0.is_empty(), "{}: an error without a problem", what.display());
    for p in &d.0 {
        assert!(p.line >= 1 && p.column >= 1, "{}: {p:?}", what.display());
        assert!(
            p.message.chars().count() <= sagasu::util::yaml::MAX_MESSAGE_CHARS + 1,
            "{}: message of {} characters",
            what.display(),
            p.message.chars().count()
        );
    }
}

#[test]
fn bad_configurations_are_refused_at_positions() {
    for f in cases("config") {
        let r = timed(&f, || {
            sagasu::util::yaml::Document::load(&f)
                .and_then(|doc| sagasu::config::Config::from_document(&doc, &|_| Some("v".into())))
        });
        match r {
            Ok(_) => panic!("{}: accepted", f.display()),
            Err(d) => positioned(&f, &d),
        }
    }
}

#[test]
fn bad_golden_sets_are_refused_at_positions() {
    for f in cases("golden") {
        match timed(&f, || sagasu::eval::golden::load(&f, None)) {
            Ok(_) => panic!("{}: accepted", f.display()),
            Err(d) => positioned(&f, &d),
        }
    }
}

#[test]
fn bad_policy_files_load_or_are_refused_at_positions() {
    for f in cases("policy") {
        let dir = tempfile::tempdir().unwrap();
        crate::common::copy_dir(&repo().join("policies"), dir.path());
        std::fs::copy(&f, dir.path().join("status.yaml")).unwrap();
        if let Err(d) = timed(&f, || {
            sagasu::config::policy::Policies::load(dir.path(), &["slack".to_string()])
        }) {
            positioned(&f, &d);
        }
    }
}

#[test]
fn bad_notion_pages_parse_or_say_where() {
    for (f, text) in texts("notion") {
        let _ = timed(&f, || sagasu::servers::offline::notion::parse_page("p.md", &text));
    }
}

#[test]
fn bad_export_files_keep_what_reads_and_report_the_rest() {
    for f in cases("slack-day") {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&demo().join("slack"), dir.path());
        let name = "2026-12-02.json";
        std::fs::copy(&f, dir.path().join("general").join(name)).unwrap();
        let export = timed(&f, || sagasu::servers::offline::slack::SlackExport::load(dir.path()))
            .unwrap_or_else(|e| panic!("{}: one bad day failed the export: {e}", f.display()));
        let reported = export.warnings.iter().any(|w| w.to_string().contains(name));
        let kept = export.messages.iter().any(|m| m.ts.starts_with("1764633600"));
        assert!(reported || kept, "{}: neither kept nor reported", f.display());
    }
    for f in cases("rocketchat-messages") {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&demo().join("rocketchat"), dir.path());
        let name = "RCcorpus.json";
        std::fs::copy(&f, dir.path().join("messages").join(name)).unwrap();
        let export = timed(&f, || {
            sagasu::servers::offline::rocketchat::RocketExport::load(dir.path())
        })
        .unwrap_or_else(|e| panic!("{}: one bad file failed the export: {e}", f.display()));
        assert!(
            export.warnings.iter().any(|w| w.to_string().contains(name)),
            "{}: not reported: {:?}",
            f.display(),
            export.warnings
        );
    }
}

#[test]
fn bad_stdio_lines_get_json_rpc_errors() {
    for line in lines("stdio") {
        if let Some(r) = sagasu::servers::stdio::reply_to(&line) {
            let code = r["error"]["code"].as_i64().unwrap_or_default();
            assert!([-32700, -32600, -32602].contains(&code), "{line}: {r}");
        }
    }
    // The garbage and truncated lines are answered, not dropped.
    for line in ["garbage", "{", "\"\\ud800\""] {
        assert!(sagasu::servers::stdio::reply_to(line).is_some(), "{line}: no reply");
    }
}

#[test]
fn adversarial_questions_are_analysed_quickly() {
    let policies = sagasu::config::policy::Policies::load(&repo().join("policies"), &[]).unwrap();
    for q in lines("questions") {
        let what = PathBuf::from(sagasu::text::truncate_chars(&q, 40));
        timed(&what, || {
            sagasu::pipeline::query::analyze_question(
                &q,
                &policies.intents,
                None,
                chrono::Utc::now(),
                &policies.lexicon,
                sagasu::text::encoder::shared(),
            )
        });
    }
}

#[test]
fn bad_source_results_parse_to_contract_ids_or_say_why() {
    let ids = |f: &Path, hits: &[sagasu::hit::Hit]| {
        for h in hits {
            assert!(is_contract_id(&h.id), "{}: not a contract id: {}", f.display(), h.id);
        }
    };
    for (f, text) in texts("slack-markdown") {
        if let Ok(p) = sagasu::sources::slack::parse_markdown("slack", &text) {
            ids(&f, &p.hits);
        }
    }
    for (f, text) in texts("slack-csv") {
        if let Ok(r) = sagasu::sources::slack::parse_csv("slack", &text, 10) {
            ids(&f, &r.hits);
        }
    }
    for (f, text) in texts("notion-json") {
        if let Ok(hits) = sagasu::sources::notion::parse_hosted_search("notion", &text) {
            ids(&f, &hits);
        }
        if let Ok((hits, _)) = sagasu::sources::notion::parse_api_search("notion", &text) {
            ids(&f, &hits);
        }
    }
    for (f, text) in texts("rocketchat-json") {
        if let Ok(r) = sagasu::sources::rocketchat::parse("rocketchat", &text) {
            ids(&f, &r.hits);
        }
    }
    for (f, text) in texts("tools-json") {
        if let Ok(hits) = sagasu::sources::tools::parse_search("tools", &text) {
            ids(&f, &hits);
        }
    }
}
