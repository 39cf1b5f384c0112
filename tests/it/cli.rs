//! End-to-end: the built binary's commands, exit codes and messages.

use std::process::Command;

use crate::common::{bin, demo, repo};

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin())
        .args(args)
        .current_dir(repo())
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

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
    let export = sagasu::offline::slack::SlackExport::load(&dst).unwrap();
    assert_eq!(export.warnings.len(), 1);
    let w = export.warnings[0].to_string();
    assert!(w.contains("pricing/2026-09-10.json:2:9: malformed JSON"), "{w}");
    // the rest is served
    assert!(export.messages.iter().any(|m| m.channel == "pricing"));
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
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
