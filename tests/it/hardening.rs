//! Regression tests for what a hostile user broke (the hardening issue): each test is named
//! after the defect it keeps fixed.

use std::path::Path;
use std::time::Duration;

use tokio::io::AsyncBufReadExt;

use crate::common::{bin, copy_dir, demo, repo};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}"#;

/// A bare `initialize` POST to `url` with `headers`: the HTTP status.
async fn post_initialize(url: &str, headers: &[(&str, &str)]) -> u16 {
    let mut req = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(INITIALIZE);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    req.send().await.unwrap().status().as_u16()
}

/// Starts the built binary with `args` (and `env`), and returns it with the URL it says it
/// serves at.
async fn start_http(args: &[&str], env: &[(&str, &str)]) -> (tokio::process::Child, String) {
    let mut cmd = tokio::process::Command::new(bin());
    cmd.args(args)
        .current_dir(repo())
        .env_remove("SAGASU_TOKEN")
        .env_remove("SAGASU_ALLOWED_ORIGINS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    crate::common::spawn_http(cmd).await
}

fn slack_source_args(http: &str) -> Vec<String> {
    let data = demo().join("slack").display().to_string();
    ["source", "slack", "--data", &data, "--http", http]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// Runs the built binary with `args`, `SAGASU_TOKEN` set to `token` (or unset): its exit code
/// and stderr.
fn run_with_token(args: &[String], token: Option<&str>) -> (Option<i32>, String) {
    let mut cmd = std::process::Command::new(bin());
    cmd.args(args).env_remove("SAGASU_TOKEN");
    if let Some(t) = token {
        cmd.env("SAGASU_TOKEN", t);
    }
    let out = cmd.output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn source_http_served_private_exports_beyond_loopback_without_a_token() {
    // `serve` and `source` share the rule (one `HttpArgs::access`); both are held to it.
    let serve: Vec<String> = ["serve", "--http", "0.0.0.0:0"].iter().map(|s| s.to_string()).collect();
    for args in [slack_source_args("0.0.0.0:0"), serve] {
        let (code, err) = run_with_token(&args, None);
        assert_eq!(code, Some(2), "{args:?}");
        assert!(err.contains("SAGASU_TOKEN"), "{args:?}: {err}");
        // A one-character token is no protection either.
        let (code, err) = run_with_token(&args, Some("x"));
        assert_eq!(code, Some(2), "{args:?}");
        assert!(err.contains("at least 16"), "{args:?}: {err}");
    }
}

#[tokio::test]
async fn source_http_ignored_sagasu_token_and_accepted_any_origin() {
    let args = slack_source_args("127.0.0.1:0");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let token = "a-long-enough-test-token-0123";
    let (mut child, url) = start_http(&args, &[("SAGASU_TOKEN", token)]).await;
    assert_eq!(post_initialize(&url, &[]).await, 401, "no token");
    let bearer = format!("Bearer {token}");
    let lower = format!("bearer {token}");
    assert_eq!(post_initialize(&url, &[("authorization", &bearer)]).await, 200);
    assert_eq!(
        post_initialize(&url, &[("authorization", &lower)]).await,
        200,
        "the scheme is case-insensitive"
    );
    assert_eq!(
        post_initialize(&url, &[("authorization", &bearer), ("origin", "http://evil.example")]).await,
        403,
        "a page of another site"
    );
    assert_eq!(
        post_initialize(&url, &[("authorization", &bearer), ("origin", "http://localhost:5173")]).await,
        200,
        "a page of this machine"
    );
    child.kill().await.unwrap();
}

#[tokio::test]
async fn serve_accepted_any_origin() {
    let (mut child, url) = start_http(
        &["serve", "--http", "127.0.0.1:0"],
        &[("SAGASU_ALLOWED_ORIGINS", "https://app.example.com:443")],
    )
    .await;
    assert_eq!(post_initialize(&url, &[("origin", "https://evil.example")]).await, 403);
    assert_eq!(
        post_initialize(&url, &[("origin", "https://app.example.com")]).await,
        200
    );
    assert_eq!(
        post_initialize(&url, &[]).await,
        200,
        "non-browser clients send no Origin"
    );
    child.kill().await.unwrap();
}

/// A server with no tools, for the session tests.
#[derive(Clone)]
struct Bare;

impl rmcp::ServerHandler for Bare {}

#[tokio::test]
async fn http_sessions_that_only_initialize_were_never_expired_nor_capped() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut access = sagasu::servers::http::Access::loopback(addr);
    access.idle = Duration::from_millis(800);
    access.max_sessions = 3;
    access.max_per_client = 2;
    let sessions = std::sync::Arc::new(sagasu::servers::http::BoundedSessions::new(
        access.idle,
        access.max_sessions,
        access.max_per_client,
    ));
    let stop = tokio_util::sync::CancellationToken::new();
    let stopped = stop.clone();
    let server = tokio::spawn(sagasu::servers::http::serve_with_sessions(
        Bare,
        listener,
        async move { stopped.cancelled().await },
        access,
        sessions.clone(),
    ));
    let url = format!("http://{addr}/mcp");
    assert_eq!(post_initialize(&url, &[]).await, 200);
    assert_eq!(post_initialize(&url, &[]).await, 200);
    assert_eq!(sessions.open(), 2);
    assert_eq!(post_initialize(&url, &[]).await, 503, "past the per-client cap");
    // Idle sessions close by themselves (bounded wait).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while sessions.open() > 0 {
        assert!(tokio::time::Instant::now() < deadline, "idle sessions never expired");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(post_initialize(&url, &[]).await, 200, "room again after expiry");
    stop.cancel();
    server.await.unwrap().unwrap();
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

#[cfg(unix)]
#[tokio::test]
async fn a_fifo_in_a_data_folder_or_in_place_of_a_policy_blocked_for_ever() {
    let dir = tempfile::tempdir().unwrap();
    let slack = dir.path().join("slack");
    copy_dir(&demo().join("slack"), &slack);
    mkfifo(&slack.join("general/2026-12-01.json"));
    let loaded = tokio::time::timeout(
        Duration::from_secs(20),
        tokio::task::spawn_blocking(move || sagasu::servers::offline::slack::SlackExport::load(&slack).unwrap()),
    )
    .await
    .expect("a FIFO stalled the loader")
    .unwrap();
    assert!(
        loaded.warnings.iter().any(|w| w.to_string().contains("FIFO")),
        "{:?}",
        loaded.warnings
    );
    assert!(!loaded.messages.is_empty(), "the rest is served");

    let policies = dir.path().join("policies");
    copy_dir(&repo().join("policies"), &policies);
    std::fs::remove_file(policies.join("status.yaml")).unwrap();
    mkfifo(&policies.join("status.yaml"));
    let names = vec!["slack".to_string()];
    let err = tokio::time::timeout(
        Duration::from_secs(20),
        tokio::task::spawn_blocking(move || sagasu::config::policy::Policies::load(&policies, &names).unwrap_err()),
    )
    .await
    .expect("a FIFO policy stalled the loader")
    .unwrap();
    assert!(err.to_string().contains("FIFO"), "{err}");
}

#[cfg(unix)]
#[test]
fn data_folders_followed_links_out_of_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let notion = dir.path().join("notion");
    copy_dir(&demo().join("notion"), &notion);
    let outside = dir.path().join("private.md");
    std::fs::write(
        &outside,
        "---\nid: 0123456789abcdef0123456789abcdef\ntitle: \"Private\"\n---\nsecret salary table\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(&outside, notion.join("linked.md")).unwrap();
    std::os::unix::fs::symlink(&notion, notion.join("loop")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", notion.join("passwd.md")).unwrap();
    let export = sagasu::servers::offline::notion::NotionExport::load(&notion).unwrap();
    assert!(
        export.pages.iter().all(|p| p.title != "Private"),
        "a page from outside was served"
    );
    assert!(export.pages.iter().all(|p| !p.body.contains("root:")));
    let said: Vec<String> = export.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        said.iter().filter(|w| w.contains("outside the data folder")).count() >= 2,
        "{said:?}"
    );
    assert!(said.iter().any(|w| w.contains("a link to a folder")), "{said:?}");
    // With the flag, the outside page is read (and the loop is entered once).
    let open = sagasu::servers::offline::Folder::open(&notion, true).unwrap();
    let export = sagasu::servers::offline::notion::NotionExport::load_in(&open).unwrap();
    assert!(export.pages.iter().any(|p| p.title == "Private"));
}

#[test]
fn three_notion_pages_with_one_id_panicked_the_loader() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..3 {
        std::fs::write(
            dir.path().join(format!("page{i}.md")),
            format!("---\nid: 0123456789abcdef0123456789abcdef\ntitle: \"Copy {i}\"\n---\nbody {i}\n"),
        )
        .unwrap();
    }
    let export = sagasu::servers::offline::notion::NotionExport::load(dir.path()).unwrap();
    assert_eq!(export.pages.len(), 1);
    assert_eq!(export.pages[0].title, "Copy 0");
    let dups = export
        .warnings
        .iter()
        .filter(|w| w.message.contains("duplicate page id"))
        .count();
    assert_eq!(dups, 2);
}

#[test]
fn configuration_errors_echoed_a_whole_huge_line() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("sagasu.yaml");
    let huge = "x".repeat(200_000);
    std::fs::write(&config, format!("sources: [{huge}\n")).unwrap();
    let out = std::process::Command::new(bin())
        .args(["check", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.len() < 2_000, "{} bytes of error", err.len());
    assert!(err.contains("sagasu.yaml:"), "{err}");
}

#[cfg(unix)]
#[test]
fn stdio_sources_inherited_sagasu_token_and_other_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("env.txt");
    let config = dir.path().join("sagasu.yaml");
    std::fs::write(
        &config,
        format!(
            "sources:\n  spy:\n    kind: generic\n    command: [sh, -c, 'env > \"$OUT\"']\n    env:\n      OUT: {}\n      \
             SPY_KEY: ${{SPY_KEY}}\n    mapping:\n      tool: search\n      arguments: {{q: \"{{query}}\"}}\n      \
             results: hits\n      id: id\n      text: text\n",
            seen.display()
        ),
    )
    .unwrap();
    let out = std::process::Command::new(bin())
        .args(["check", "--config"])
        .arg(&config)
        .env("SAGASU_TOKEN", "serve-token-never-shared")
        .env("OTHER_SOURCE_TOKEN", "other-token-never-shared")
        .env("SPY_KEY", "the-spys-own-key")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "the spy is no MCP server: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let env = std::fs::read_to_string(&seen).unwrap();
    assert!(!env.contains("serve-token-never-shared"), "{env}");
    assert!(!env.contains("other-token-never-shared"), "{env}");
    assert!(
        env.contains("SPY_KEY=the-spys-own-key"),
        "what the config names is passed"
    );
    assert!(env.contains("PATH="), "{env}");
}

/// An HTTP "MCP server" that refuses everyone with a body echoing the credentials it was sent.
async fn echoing_401() -> (std::net::SocketAddr, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = axum::Router::new().fallback(|headers: axum::http::HeaderMap| async move {
        let auth = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        (
            axum::http::StatusCode::UNAUTHORIZED,
            format!(
                "{{\"error\":\"invalid credentials: {auth}\",\"key\":\"{}\"}}",
                headers.get("x-api-key").and_then(|v| v.to_str().ok()).unwrap_or("")
            ),
        )
    });
    let task = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (addr, task)
}

#[tokio::test]
async fn upstream_error_bodies_echoed_secrets_into_check_and_ask() {
    let (addr, server) = echoing_401().await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("sagasu.yaml");
    std::fs::write(
        &config,
        format!(
            "sources:\n  notion:\n    kind: notion\n    url: http://{addr}/${{NOTION_PATH}}\n    headers:\n      \
             Authorization: Bearer ${{NOTION_TOKEN}}\n      X-Api-Key: ${{NOTION_KEY}}\npolicies: {}\n",
            repo().join("policies").display()
        ),
    )
    .unwrap();
    let envs = [
        ("NOTION_TOKEN", "NOTIONSECRET222"),
        ("NOTION_KEY", "keykeykey333"),
        ("NOTION_PATH", "mcp"),
    ];
    for args in [
        vec!["check", "--config"],
        vec!["ask", "--json", "--config"],
        vec!["ask", "--config"],
    ] {
        let mut cmd = tokio::process::Command::new(bin());
        cmd.args(&args).arg(&config);
        if args[0] == "ask" {
            cmd.arg("what is the refund policy");
        }
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let out = cmd.output().await.unwrap();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(all.contains("notion"), "{args:?}: {all}");
        for secret in ["NOTIONSECRET222", "keykeykey333"] {
            assert!(!all.contains(secret), "{args:?} leaked {secret}: {all}");
        }
    }
    server.abort();
}

/// Starts `sagasu <args>` as a stdio MCP server and initializes it; returns the child, its
/// stdin and its stdout lines.
async fn stdio_server(
    args: &[&str],
) -> (
    tokio::process::Child,
    tokio::process::ChildStdin,
    tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
) {
    use tokio::io::AsyncWriteExt;
    let mut child = tokio::process::Command::new(bin())
        .args(args)
        .current_dir(repo())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    stdin.write_all(format!("{INITIALIZE}\n").as_bytes()).await.unwrap();
    let first = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(first.contains("\"result\""), "{first}");
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .await
        .unwrap();
    (child, stdin, lines)
}

#[tokio::test]
async fn stdio_dropped_garbage_without_a_parse_error_reply() {
    use tokio::io::AsyncWriteExt;
    let data = demo().join("slack").display().to_string();
    let (mut child, mut stdin, mut lines) = stdio_server(&["source", "slack", "--data", &data]).await;
    let mut next = async || {
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .expect("no reply: the client would wait for ever")
            .unwrap()
            .unwrap();
        serde_json::from_str::<serde_json::Value>(&line).unwrap()
    };
    for (sent, code) in [
        ("this is not json", -32700),
        ("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/li", -32700),
        (
            "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"x\",\"arguments\":\"str\"}}",
            -32602,
        ),
    ] {
        stdin.write_all(format!("{sent}\n").as_bytes()).await.unwrap();
        let r = next().await;
        assert_eq!(r["error"]["code"], code, "{sent} -> {r}");
    }
    // The server still works.
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\"}\n")
        .await
        .unwrap();
    let r = next().await;
    assert_eq!(r["id"], 9);
    assert!(r["result"]["tools"].is_array(), "{r}");
    child.kill().await.unwrap();
}

#[cfg(unix)]
#[tokio::test]
async fn stdio_serve_ignored_sigterm_after_initialize() {
    for args in [vec!["serve".to_string()], slack_source_args("x")[..4].to_vec()] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (mut child, _stdin, _lines) = stdio_server(&args).await;
        let pid = child.id().unwrap() as i32;
        // SAFETY: signalling our own child.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
        let status = tokio::time::timeout(Duration::from_secs(15), child.wait())
            .await
            .unwrap_or_else(|_| panic!("`{}` ignored SIGTERM", args.join(" ")))
            .unwrap();
        assert!(status.success(), "{status:?}");
    }
}

#[cfg(unix)]
#[test]
fn printing_into_a_closed_pipe_panicked() {
    use std::io::Read;
    for args in [
        vec!["search", "--limit", "100", "pricing"],
        vec!["ask", "--json", "what did we decide about pricing"],
    ] {
        let mut child = std::process::Command::new(bin())
            .args(&args)
            .current_dir(repo())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Hang up before anything is printed, as `head` does once it has its lines.
        drop(child.stdout.take());
        let mut err = String::new();
        child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        child.wait().unwrap();
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn questions_with_nothing_to_search_blamed_every_source() {
    for q in ["(", "who?", "the of and", "はがのを", "from:"] {
        let (code, out, err) = crate::common::run(&["ask", q]);
        assert_eq!(code, 2, "{q}: {out}{err}");
        assert!(
            err.contains("nothing to search for") || err.contains("not what to look for"),
            "{q}: {err}"
        );
        assert!(
            !err.contains("failed") && !out.contains("Not searched"),
            "{q}: {err}{out}"
        );
    }
}

#[test]
fn time_only_questions_were_refused_instead_of_searched_by_time() {
    // Slack lists by its filters alone (`after:… before:…`): a question of only a time is
    // answered from the newest messages of that window, in either language.
    for q in ["what happened last week", "先週何があった？"] {
        let (code, out, err) = crate::common::run(&["ask", "--json", "--as-of", "2026-11-18T09:00:00Z", q]);
        assert_eq!(code, 0, "{q}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["not_found"], false, "{q}: {}", v["answer"]);
        let slack = v["sources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "slack")
            .unwrap();
        assert_eq!(slack["status"], "ok", "{q}: {slack}");
        let citations = v["citations"].as_array().unwrap();
        assert!(!citations.is_empty());
        for c in citations {
            let date = c["date"].as_str().unwrap();
            assert!(
                ("2026-11-09".."2026-11-17").contains(&date),
                "{q}: {date} is outside last week"
            );
        }
        for s in v["sources"].as_array().unwrap() {
            assert_ne!(s["status"], "error", "{q}: a source was sent an empty query: {s}");
        }
        // Why the others were not asked is said as it is, not as the policy's choice.
        assert!(
            v["answer"].as_str().unwrap().contains("notion")
                && v["answer"]
                    .as_str()
                    .unwrap()
                    .contains("cannot list by time, place or person"),
            "{q}: {}",
            v["answer"]
        );
    }
    // A workspace of sources that cannot list by time alone says so, and blames none of them.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("sagasu.yaml");
    std::fs::write(
        &config,
        format!(
            "sources:\n  notion:\n    kind: notion\n    command: [{}, source, notion, --data, {}]\npolicies: {}\n",
            bin(),
            demo().join("notion").display(),
            repo().join("policies").display()
        ),
    )
    .unwrap();
    let (code, out, err) =
        crate::common::run(&["ask", "--config", config.to_str().unwrap(), "what happened last week"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("last week") && err.contains("can list"), "{err}");
}

#[test]
fn the_cli_exited_zero_when_every_source_failed() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("sagasu.yaml");
    std::fs::write(
        &config,
        format!(
            "sources:\n  slack:\n    kind: slack\n    command: [/nonexistent/server]\npolicies: {}\n",
            repo().join("policies").display()
        ),
    )
    .unwrap();
    let out = std::process::Command::new(bin())
        .args(["ask", "--config"])
        .arg(&config)
        .arg("what is the refund policy")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("No source could be searched"));
}

#[test]
fn deeply_nested_notion_front_matter_took_seconds() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("deep.md"),
        format!(
            "---\nid: 0123456789abcdef0123456789abcdef\ntitle: \"Deep\"\nproperties:\n  x: {}\n---\nbody\n",
            "[".repeat(200_000)
        ),
    )
    .unwrap();
    let t = std::time::Instant::now();
    let export = sagasu::servers::offline::notion::NotionExport::load(dir.path()).unwrap();
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert!(export.pages.is_empty());
    assert!(
        export.warnings[0].message.contains("nested more than"),
        "{:?}",
        export.warnings
    );
}

#[test]
fn one_bad_message_dropped_a_whole_slack_day_or_rocketchat_room() {
    let dir = tempfile::tempdir().unwrap();
    let slack = dir.path().join("slack");
    copy_dir(&demo().join("slack"), &slack);
    let good = |ts: &str, text: &str| format!(r#"{{"type":"message","user":"U1","text":"{text}","ts":"{ts}"}}"#);
    std::fs::write(
        slack.join("general/2026-12-02.json"),
        format!(
            "[{}, {{\"type\":\"message\",\"text\":null,\"ts\":\"1764633600.000100\"}}, {{\"type\":\"message\",\"text\":\"n\",\"ts\":1764633600}}, \
             {}, \"a bare string\", {}, {}]",
            good("1764633600.000200", "kept zebra one"),
            good("not-a-ts", "bad ts"),
            good("1764633600.000300", "kept zebra two"),
            good("1764633600.000300", "a duplicate"),
        ),
    )
    .unwrap();
    let export = sagasu::servers::offline::slack::SlackExport::load(&slack).unwrap();
    let kept: Vec<&str> = export
        .messages
        .iter()
        .filter(|m| m.text.contains("zebra"))
        .map(|m| m.text.as_str())
        .collect();
    assert_eq!(kept, ["kept zebra one", "kept zebra two"]);
    let said: Vec<String> = export.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        said.iter().filter(|w| w.contains("2026-12-02.json")).count(),
        5,
        "{said:?}"
    );
    assert!(said.iter().any(|w| w.contains("not-a-ts")), "{said:?}");
    assert!(said.iter().any(|w| w.contains("a second message")), "{said:?}");

    let rc = dir.path().join("rocketchat");
    copy_dir(&demo().join("rocketchat"), &rc);
    let msg = |id: &str, rid: &str, ts: &str| {
        format!(r#"{{"_id":"{id}","rid":"{rid}","msg":"quokka {id}","ts":{ts},"u":{{"_id":"u1","username":"ken"}}}}"#)
    };
    std::fs::write(
        rc.join("messages/RCextra.json"),
        format!(
            "{{\"messages\": [{}, {}, {}, {}, {}, {}]}}",
            msg("m1", "RCdevja000002", "\"2026-12-01T09:00:00Z\""),
            msg("m2", "RCdevja000002", "{\"$date\": 1764579600000}"),
            msg("m3", "RCdevja000002", "\"NaN\""),
            msg("m4", "RCdevja000002", "\"2026-99-99\""),
            msg("m1", "RCdevja000002", "\"2026-12-01T10:00:00Z\""),
            msg("m5", "RCnosuchroom", "\"2026-12-01T11:00:00Z\""),
        ),
    )
    .unwrap();
    let export = sagasu::servers::offline::rocketchat::RocketExport::load(&rc).unwrap();
    let mut kept: Vec<&str> = export
        .messages
        .iter()
        .filter(|m| m.msg.starts_with("quokka"))
        .map(|m| m.id.as_str())
        .collect();
    kept.sort();
    assert_eq!(kept, ["m1", "m2", "m5"]);
    let said: Vec<String> = export.warnings.iter().map(|w| w.to_string()).collect();
    assert!(said.iter().any(|w| w.contains("`NaN`")), "{said:?}");
    assert!(said.iter().any(|w| w.contains("2026-99-99")), "{said:?}");
    assert!(
        said.iter().any(|w| w.contains("second message with id `m1`")),
        "{said:?}"
    );
    assert!(said.iter().any(|w| w.contains("RCnosuchroom")), "{said:?}");
}

#[test]
fn skipped_export_messages_were_not_said_in_the_source_status_or_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("acme");
    copy_dir(&demo(), &ws);
    let yaml = std::fs::read_to_string(ws.join("sagasu.yaml")).unwrap().replace(
        "policies: ../../policies",
        &format!("policies: {}", repo().join("policies").display()),
    );
    std::fs::write(ws.join("sagasu.yaml"), yaml).unwrap();
    std::fs::write(
        ws.join("slack/general/2026-12-02.json"),
        r#"[{"type":"message","text":null,"ts":"1764633600.000100"}, "a bare string",
            {"type":"message","user":"U1","text":"kept","ts":"1764633600.000200"}]"#,
    )
    .unwrap();
    let config = ws.join("sagasu.yaml");
    let config = config.to_str().unwrap();
    let (code, out, err) = crate::common::run(&["ask", "--json", "--config", config, "what is the refund policy"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let report = |name: &str| {
        v["sources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .cloned()
            .unwrap()
    };
    assert_eq!(report("slack")["unreadable"], 2, "{}", v["sources"]);
    assert!(report("notion").get("unreadable").is_none(), "{}", v["sources"]);
    let (_, md, _) = crate::common::run(&["ask", "--config", config, "what is the refund policy"]);
    assert!(
        md.contains("**Left out:** slack (2 entries of its data could not be read)"),
        "{md}"
    );
    let (code, table, _) = crate::common::run(&["check", "--config", config]);
    assert_eq!(code, 0, "{table}");
    let slack = table.lines().find(|l| l.starts_with("slack")).unwrap();
    assert!(slack.contains("2 unreadable entries of its data left out"), "{table}");
}

#[test]
fn a_source_that_exits_at_once_must_not_kill_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("sagasu.yaml");
    std::fs::write(
        &config,
        "sources:\n  gone:\n    kind: generic\n    command: [sh, -c, 'exit 0']\n    mapping:\n      tool: search\n      \
         arguments: {q: \"{query}\"}\n      results: hits\n      id: id\n      text: text\n",
    )
    .unwrap();
    for _ in 0..5 {
        let out = std::process::Command::new(bin())
            .args(["check", "--config"])
            .arg(&config)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "killed by a signal? {:?}", out.status);
    }
}
