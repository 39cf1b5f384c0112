//! Sources through the built executable: contract ids from every offline server, a dead stdio
//! source is restarted, and a hanging or broken one never stalls the others.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use sagasu::sources::{Connection, SourcePool, SourceQuery, SourceStatus};

use crate::common::{config_from, demo, demo_config, is_contract_id};

#[tokio::test]
async fn every_demo_source_answers_with_contract_ids() {
    let config = demo_config();
    let pool = SourcePool::new(&config);
    let queries: HashMap<String, SourceQuery> = [
        ("slack", "Postgres migration cutover"),
        ("notion", "Postgres migration"),
        ("rocketchat", "PostgreSQL 移行"),
        ("tools", "create an issue"),
    ]
    .into_iter()
    .map(|(s, q)| (s.to_string(), SourceQuery::new(q, 5)))
    .collect();
    let outcomes = pool.search_all(&queries, Duration::from_secs(30)).await;
    pool.shutdown().await;
    assert_eq!(outcomes.len(), 4);
    for o in &outcomes {
        assert_eq!(o.status, SourceStatus::Ok, "{}: {:?}", o.name, o.note);
        for h in &o.hits {
            assert!(is_contract_id(&h.id), "{}", h.id);
            assert_eq!(h.source, o.name);
        }
    }
    // notion hits carry the fetched page text and kind
    let notion = outcomes.iter().find(|o| o.name == "notion").unwrap();
    let task = notion
        .hits
        .iter()
        .find(|h| h.title == "Migrate billing DB to PostgreSQL")
        .expect("task row");
    assert_eq!(task.kind, sagasu::hit::EvidenceKind::Task);
    assert_eq!(task.properties["Status"], "In progress");
}

#[tokio::test]
async fn a_dead_stdio_source_is_restarted_on_the_next_call() {
    let config = demo_config();
    let conn = Connection::new(config.source("slack").unwrap().clone());
    let q = SourceQuery::new("pricing", 3);
    assert!(!sagasu::sources::search(&conn, &q).await.unwrap().hits.is_empty());
    let pid = conn.pid().await.expect("a child process");
    std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    // wait until the child is really gone
    let deadline = Instant::now() + Duration::from_secs(5);
    while std::path::Path::new(&format!("/proc/{pid}")).exists() && Instant::now() < deadline {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if stat.contains(") Z ") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let again = sagasu::sources::search(&conn, &q).await.unwrap();
    assert!(!again.hits.is_empty());
    assert_eq!(conn.starts(), 2);
    assert_ne!(conn.pid().await, Some(pid));
    conn.shutdown().await;
}

#[tokio::test]
async fn a_hanging_source_times_out_and_a_broken_one_errors_without_stalling_the_rest() {
    let dir = demo();
    let config = config_from(
        "sources:\n  slack:\n    kind: slack\n    command: [sagasu, source, slack, --data, slack]\n  hang:\n    kind: notion\n    command: [sleep, \"30\"]\n    timeout_ms: 800\n  broken:\n    kind: rocketchat\n    command: [/nonexistent/server]\n  off:\n    kind: tools\n    command: [sagasu, source, tools, --data, tools]\n    enabled: false\n",
        &dir,
    );
    let pool = SourcePool::new(&config);
    let queries: HashMap<String, SourceQuery> = ["slack", "hang", "broken", "off"]
        .iter()
        .map(|s| (s.to_string(), SourceQuery::new("pricing", 5)))
        .collect();
    let start = Instant::now();
    let outcomes = pool.search_all(&queries, Duration::from_secs(20)).await;
    let elapsed = start.elapsed();
    pool.shutdown().await;
    let by: HashMap<&str, _> = outcomes.iter().map(|o| (o.name.as_str(), o)).collect();
    assert_eq!(by["slack"].status, SourceStatus::Ok);
    assert_eq!(by["hang"].status, SourceStatus::Timeout);
    assert!(
        by["hang"].note.as_deref().unwrap().contains("800 ms"),
        "{:?}",
        by["hang"].note
    );
    assert_eq!(by["broken"].status, SourceStatus::Error);
    assert!(by["broken"].note.as_deref().unwrap().contains("/nonexistent/server"));
    assert_eq!(by["off"].status, SourceStatus::Skipped);
    // bounded by the hanging source's own deadline, not the fan-out's
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
}

/// An offline server over streamable HTTP, reached by the HTTP client transport.
#[tokio::test]
async fn an_offline_server_serves_streamable_http() {
    let mut cmd = tokio::process::Command::new(crate::common::bin());
    cmd.args(["source", "notion", "--data"])
        .arg(demo().join("notion"))
        .args(["--http", "127.0.0.1:0"]);
    let (mut child, url) = crate::common::spawn_http(cmd).await;
    let config = config_from(
        &format!("sources:\n  notion:\n    kind: notion\n    url: {url}\n"),
        &demo(),
    );
    let conn = Connection::new(config.sources[0].clone());
    let r = sagasu::sources::search(&conn, &SourceQuery::new("public API rate limit", 3))
        .await
        .unwrap();
    assert_eq!(r.hits[0].title, "Public API Reference");
    assert!(
        r.hits[0].text.contains("1,000 requests per minute"),
        "the page text was fetched over HTTP too"
    );
    conn.shutdown().await;
    child.kill().await.unwrap();
}
