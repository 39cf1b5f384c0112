//! End-to-end: the built binary's commands, exit codes and messages.

use crate::common::{copy_dir, demo, repo, run};

#[test]
fn check_shows_four_healthy_demo_sources() {
    let (code, out, err) = run(&["check", "--config", "examples/acme/sagasu.yaml"]);
    assert_eq!(code, 0, "{out}{err}");
    for s in ["slack", "notion", "rocketchat", "tools"] {
        let line = out
            .lines()
            .find(|l| l.starts_with(s))
            .unwrap_or_else(|| panic!("{s} missing: {out}"));
        assert!(line.contains(" ok "), "{line}");
    }
}

#[test]
fn check_fails_with_status_1_when_a_source_is_down() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("sagasu.yaml");
    std::fs::write(
        &cfg,
        "sources:\n  gone:\n    kind: slack\n    command: [/nonexistent/mcp-server]\n",
    )
    .unwrap();
    let (code, out, _) = run(&["check", "--config", cfg.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAILED"), "{out}");
}

#[test]
fn config_errors_name_file_line_and_column_with_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("sagasu.yaml");
    std::fs::write(&cfg, "sources:\n  a:\n    kind: slack\n    comand: [x]\n  b:\n    kind: notion\n    url: http://127.0.0.1:9/mcp\n    headers:\n      Authorization: Bearer ${SAGASU_TEST_UNSET_VAR}\n").unwrap();
    let (code, _, err) = run(&["check", "--config", cfg.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("sagasu.yaml:4:5: unknown field `comand`"), "{err}");
    assert!(
        err.contains("sagasu.yaml:9:22: environment variable `SAGASU_TEST_UNSET_VAR` is not set"),
        "{err}"
    );
    assert!(err.contains("2 problems"), "{err}");
}

#[test]
fn offline_server_reports_a_missing_folder() {
    let (code, _, err) = run(&["source", "slack", "--data", "/nonexistent/export"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("data folder `/nonexistent/export` does not exist"),
        "{err}"
    );
}

#[test]
fn a_malformed_export_file_is_reported_with_its_position_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let src = demo().join("slack");
    let dst = dir.path().join("slack");
    copy_dir(&src, &dst);
    let bad = dst.join("pricing/2026-09-10.json");
    std::fs::write(&bad, "[{\"type\": \"message\", \"text\": \"x\",\n  \"ts\": }]").unwrap();
    let export = sagasu::servers::offline::slack::SlackExport::load(&dst).unwrap();
    assert_eq!(export.warnings.len(), 1);
    let w = export.warnings[0].to_string();
    assert!(w.contains("pricing/2026-09-10.json:2:9: malformed JSON"), "{w}");
    // the rest is served
    assert!(export.messages.iter().any(|m| m.channel == "pricing"));
}

#[test]
fn search_prints_hits_per_source() {
    let (code, out, err) = run(&["search", "--source", "tools", "--json", "schedule a meeting"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1);
    assert_eq!(v[0]["hits"][0]["id"], "tools:calendar__create_event");
    let (code, _, err) = run(&["search", "--source", "nope", "x"]);
    assert_eq!(code, 2);
    assert!(err.contains("no source named `nope`"), "{err}");
}

#[test]
fn ask_prints_the_contract_object_as_json() {
    let (code, out, err) = run(&[
        "ask",
        "--json",
        "--as-of",
        "2026-11-20T09:00:00Z",
        "Who owns the certificate expiry alerts?",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for key in crate::common::CONTRACT_FIELDS {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["intent"]["type"], "person");
    let c = &v["citations"][0];
    for key in [
        "n", "id", "source", "kind", "title", "location", "author", "date", "url", "snippet", "also_in", "score",
        "explain",
    ] {
        assert!(c.get(key).is_some(), "citation lacks {key}");
    }
    assert!(v["answer"].as_str().unwrap().contains("David Kim"), "{}", v["answer"]);
    for s in v["sources"].as_array().unwrap() {
        assert!(["ok", "empty", "timeout", "error", "skipped"].contains(&s["status"].as_str().unwrap()));
    }
}

#[test]
fn ask_rejects_an_empty_question_and_a_bad_clock() {
    let (code, _, err) = run(&["ask", "   "]);
    assert_eq!(code, 2);
    assert!(err.contains("the question is empty"), "{err}");
    let (code, _, err) = run(&["ask", "--as-of", "yesterday", "x"]);
    assert_eq!(code, 2);
    assert!(err.contains("`--as-of` must be an RFC 3339 time"), "{err}");
    let (code, _, err) = run(&["ask", "--deadline", "0", "x"]);
    assert_eq!(code, 2);
    assert!(err.contains("the deadline must be more than 0"), "{err}");
}

#[test]
fn ask_reports_policy_errors_with_positions_and_status_2() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::copy_dir(&repo().join("policies"), dir.path());
    let p = dir.path().join("factual.yaml");
    let text = std::fs::read_to_string(&p).unwrap().replace(
        "freshness: { half_life_days: 365 }",
        "freshness: { half_life_days: -1 }",
    );
    std::fs::write(&p, text).unwrap();
    let (code, _, err) = run(&["ask", "--policies", dir.path().to_str().unwrap(), "x"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("factual.yaml:") && err.contains("`half_life_days` must be above 0"),
        "{err}"
    );
}

#[test]
fn explain_shows_each_factor() {
    let (code, out, err) = run(&[
        "ask",
        "--explain",
        "--as-of",
        "2026-11-20T09:00:00Z",
        "public API rate limit",
    ]);
    assert_eq!(code, 0, "{err}");
    for f in ["keyword", "freshness", "authority", "completeness"] {
        assert!(out.contains(f), "{out}");
    }
    assert!(out.contains("1,000 requests per minute"), "{out}");
}

#[test]
fn explain_shows_the_answer_type_the_lead_and_the_candidate_sentences() {
    let (code, out, err) = run(&[
        "ask",
        "--explain",
        "--as-of",
        "2026-11-20T09:00:00Z",
        "How long are application logs kept?",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("**Answer type**: duration (“how long”)"), "{out}");
    assert!(
        out.contains("**Lead**: [1]: the best evidence, and it states the duration"),
        "{out}"
    );
    let chosen = out
        .lines()
        .find(|l| l.trim_start().starts_with("chosen"))
        .unwrap_or_default();
    assert!(
        chosen.contains("states the value asked for") && chosen.contains("90 days"),
        "{out}"
    );
}

#[test]
fn snapshot_of_a_configuration_error() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("sagasu.yaml");
    std::fs::write(
        &cfg,
        "sources:\n  a:\n    kind: slak\n    command: [x]\n    timeout_ms: 0\n",
    )
    .unwrap();
    let (code, _, err) = run(&["check", "--config", cfg.to_str().unwrap()]);
    assert_eq!(code, 2);
    let shown = err.replace(dir.path().to_str().unwrap(), "[DIR]");
    insta::assert_snapshot!("configuration_error", shown);
}
