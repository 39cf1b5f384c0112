//! The live RocketChat server against a fake RocketChat REST API: the same results as the
//! offline server on the same data, failures counted and classed, 429 with Retry-After, an old
//! server without thread methods, paging, bad JSON, a deadline, the concurrency limit, and
//! `ask` through the built binary with `--url`.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

use sagasu::servers::live::rocketchat::{Client, LiveRocketServer, RestError, Settings};
use sagasu::servers::offline::rocketchat::{RocketExport, RocketServer, SearchArgs, SearchResult};

use crate::common::demo;
use crate::fake_rocketchat::{self as fake, Behaviour, Fake, Room};

async fn client_for(fake: Fake) -> (Client, Arc<Fake>) {
    let fake = Arc::new(fake);
    let url = fake::start(fake.clone()).await;
    let mut s = Settings::new(&url, fake::USER_ID, fake::TOKEN);
    s.deadline = Duration::from_secs(5);
    s.request_timeout = Duration::from_secs(2);
    (Client::new(s).unwrap(), fake)
}

fn args(query: &str) -> SearchArgs {
    SearchArgs {
        query: query.into(),
        ..Default::default()
    }
}

/// Two MCP servers answer the same tool call alike.
async fn call<S: rmcp::ServerHandler>(server: S, tool: &str, a: Value) -> String {
    let (x, y) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(r) = server.serve(x).await {
            let _ = r.waiting().await;
        }
    });
    let c = ().serve(y).await.unwrap();
    let r = c
        .peer()
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(a.as_object().cloned().unwrap()))
        .await
        .unwrap();
    let _ = c.cancel().await;
    sagasu::sources::result_text(&r)
}

#[tokio::test]
async fn live_and_offline_servers_give_the_same_results_for_the_same_data() {
    let fake = Arc::new(Fake::demo(Behaviour::default()));
    let url = fake::start(fake.clone()).await;
    let live = || LiveRocketServer::new(Client::new(Settings::new(&url, fake::USER_ID, fake::TOKEN)).unwrap());
    let offline = || RocketServer::new(RocketExport::load(&demo().join("rocketchat")).unwrap());
    for a in [
        json!({"query": "価格"}),
        json!({"query": "障害 大阪"}),
        json!({"query": "リリース", "limit": 3}),
        json!({"query": "移行", "since": "2026-11-01"}),
        json!({"query": "価格", "channel": "経営チーム"}),
    ] {
        let l: SearchResult = serde_json::from_str(&call(live(), "search_messages", a.clone()).await).unwrap();
        let o: SearchResult = serde_json::from_str(&call(offline(), "search_messages", a.clone()).await).unwrap();
        assert!(!o.messages.is_empty(), "{a}: the offline server finds something");
        assert_eq!(l, o, "{a}");
    }
    for (tool, a) in [
        ("list_channels", json!({})),
        ("list_users", json!({"offset": 1, "count": 2})),
    ] {
        let l: Value = serde_json::from_str(&call(live(), tool, a.clone()).await).unwrap();
        let o: Value = serde_json::from_str(&call(offline(), tool, a.clone()).await).unwrap();
        assert_eq!(l, o, "{tool} {a}");
    }
    // A thread, asked by one of its replies.
    let e = RocketExport::load(&demo().join("rocketchat")).unwrap();
    let reply = e
        .messages
        .iter()
        .find(|m| m.tmid.is_some())
        .expect("the demo has a thread");
    let a = json!({"message_id": reply.id});
    let l: Value = serde_json::from_str(&call(live(), "get_thread_context", a.clone()).await).unwrap();
    let o: Value = serde_json::from_str(&call(offline(), "get_thread_context", a).await).unwrap();
    let ids = |v: &Value| -> Vec<String> {
        std::iter::once(&v["parent"])
            .chain(v["replies"].as_array().unwrap())
            .map(|m| m["_id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(ids(&l), ids(&o));
    assert!(ids(&l).len() >= 2);
}

#[tokio::test]
async fn failed_rooms_are_counted_and_classed_not_hidden() {
    let demo = Fake::demo(Behaviour::default());
    let ids: Vec<String> = demo.rooms.iter().map(|r| r.id.clone()).collect();
    assert!(ids.len() >= 4);
    let mut b = Behaviour::default();
    b.rooms.insert(ids[0].clone(), Room::Forbidden);
    b.rooms.insert(ids[1].clone(), Room::ServerError);
    b.rooms.insert(ids[2].clone(), Room::Hang);
    b.rooms.insert(ids[3].clone(), Room::RateLimited(3600));
    let (client, _) = client_for(Fake::new(
        demo.rooms.clone(),
        demo.messages.clone(),
        demo.users.clone(),
        b,
    ))
    .await;
    let start = Instant::now();
    let r = client.search(&args("価格 障害 リリース")).await.unwrap();
    // The hanging room costs one request timeout (2 s), not the whole deadline.
    assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
    assert_eq!(r.rooms_total, ids.len());
    assert_eq!(r.rooms_searched, ids.len() - 4);
    let mut reasons: Vec<&str> = r.rooms_failed.iter().map(|f| f.reason.as_str()).collect();
    reasons.sort();
    assert_eq!(reasons, ["forbidden", "rate limited", "server error", "timeout"]);
    assert!(
        r.summary.starts_with(&format!(
            "searched {} of {} rooms (4 failed: ",
            ids.len() - 4,
            ids.len()
        )),
        "{}",
        r.summary
    );
    assert!(r.messages.iter().all(|m| !ids[..4].contains(&m.rid)));
}

#[tokio::test]
async fn retry_after_is_honoured_within_bounds() {
    let demo = Fake::demo(Behaviour::default());
    let room = demo.rooms[0].id.clone();
    let mut b = Behaviour::default();
    b.rooms.insert(room.clone(), Room::RateLimitedOnce(1));
    let (client, fake) = client_for(Fake::new(
        demo.rooms.clone(),
        demo.messages.clone(),
        demo.users.clone(),
        b,
    ))
    .await;
    let start = Instant::now();
    let r = client.search(&args("価格")).await.unwrap();
    assert!(start.elapsed() >= Duration::from_secs(1), "waited for Retry-After");
    assert!(r.rooms_failed.is_empty(), "{:?}", r.rooms_failed);
    assert_eq!(r.rooms_searched, r.rooms_total);
    // One extra request: the retry of the rate-limited room.
    assert_eq!(fake.searches.load(Ordering::SeqCst), r.rooms_total + 1);
}

#[tokio::test]
async fn sender_dates_channel_and_limit_are_applied_and_disclosed() {
    let (client, fake) = client_for(Fake::demo(Behaviour::default())).await;
    let all = client.search(&args("価格")).await.unwrap();
    assert!(all.messages.windows(2).all(|w| w[0].ts >= w[1].ts), "newest first");
    let who = all.messages[0].u.username.clone();
    let by = client
        .search(&SearchArgs {
            username: Some(format!("@{who}")),
            ..args("価格")
        })
        .await
        .unwrap();
    assert!(!by.messages.is_empty() && by.messages.iter().all(|m| m.u.username == who));
    let recent = client
        .search(&SearchArgs {
            since: Some("2026-11-10".into()),
            ..args("価格")
        })
        .await
        .unwrap();
    assert!(recent.messages.iter().all(|m| m.ts.as_str() >= "2026-11-10"));
    let many = client.search(&args("日報")).await.unwrap();
    assert!(many.hits_total >= 3, "{}", many.summary);
    let one = client
        .search(&SearchArgs {
            limit: Some(1),
            ..args("日報")
        })
        .await
        .unwrap();
    assert_eq!(one.messages.len(), 1);
    assert_eq!(one.messages[0].id, many.messages[0].id, "the newest");
    assert!(
        one.truncated && one.summary.ends_with(&format!("1 of {} hits shown", many.hits_total)),
        "{}",
        one.summary
    );
    let room = fake.rooms[0].clone();
    let only = client
        .search(&SearchArgs {
            channel: Some(format!("#{}", room.name.clone().unwrap_or(room.id.clone()))),
            ..args("の")
        })
        .await
        .unwrap();
    assert_eq!(only.rooms_total, 1);
    assert!(only.messages.iter().all(|m| m.rid == room.id));
    let err = client
        .search(&SearchArgs {
            channel: Some("no-such-room".into()),
            ..args("価格")
        })
        .await
        .unwrap_err();
    assert!(err.contains("no-such-room"), "{err}");
}

#[tokio::test]
async fn old_servers_paging_bad_json_and_a_wrong_token() {
    // An old server: threads come from chat.syncThreadMessages.
    let (client, fake) = client_for(Fake::demo(Behaviour {
        old_server: true,
        ..Default::default()
    }))
    .await;
    let reply = fake.messages.iter().find(|m| m.tmid.is_some()).unwrap().clone();
    let root = client.message(reply.tmid.as_deref().unwrap()).await.unwrap();
    let replies = client.thread_replies(&root).await.unwrap();
    assert!(replies.iter().any(|m| m.id == reply.id));
    // Paging of users.
    let (page, total) = client.users(1, 2).await.unwrap();
    assert_eq!(page.len(), 2);
    assert_eq!(total, Some(fake.users.len()));
    assert_eq!(page[0].id, fake.users[1].id);
    // Bad JSON is a bad response, not a panic.
    let (client, _) = client_for(Fake::demo(Behaviour {
        bad_json: Some("rooms.get"),
        ..Default::default()
    }))
    .await;
    assert_eq!(client.rooms().await.unwrap_err(), RestError::BadResponse);
    let err = client.search(&args("価格")).await.unwrap_err();
    assert!(err.contains("bad response"), "{err}");
    // A wrong token is "forbidden", and the token appears nowhere in the error.
    let fake = Arc::new(Fake::demo(Behaviour::default()));
    let url = fake::start(fake).await;
    let wrong = Client::new(Settings::new(&url, fake::USER_ID, "wrong-secret-777")).unwrap();
    let err = wrong.search(&args("価格")).await.unwrap_err();
    assert!(err.contains("forbidden") && !err.contains("wrong-secret-777"), "{err}");
}

#[tokio::test]
async fn the_fan_out_keeps_to_its_concurrency_limit_and_deadline() {
    let demo = Fake::demo(Behaviour::default());
    let mut rooms = Vec::new();
    for i in 0..24 {
        let mut r = demo.rooms[i % demo.rooms.len()].clone();
        r.id = format!("{}-{i}", r.id);
        rooms.push(r);
    }
    let fake = Arc::new(Fake::new(
        rooms,
        demo.messages.clone(),
        demo.users.clone(),
        Behaviour {
            search_delay: Duration::from_millis(100),
            ..Default::default()
        },
    ));
    let url = fake::start(fake.clone()).await;
    let mut s = Settings::new(&url, fake::USER_ID, fake::TOKEN);
    s.concurrency = 4;
    let client = Client::new(s.clone()).unwrap();
    let start = Instant::now();
    let r = client.search(&args("価格")).await.unwrap();
    assert_eq!(r.rooms_searched, 24);
    assert_eq!(fake.max_in_flight.load(Ordering::SeqCst), 4);
    assert!(
        start.elapsed() >= Duration::from_millis(600),
        "24 rooms / 4 at a time x 100 ms"
    );
    // A deadline shorter than the fan-out: what is in by then, the rest counted as timed out.
    s.deadline = Duration::from_millis(250);
    let r = Client::new(s).unwrap().search(&args("価格")).await.unwrap();
    assert!(r.rooms_searched < 24);
    assert_eq!(r.rooms_searched + r.rooms_failed.len(), 24);
    assert!(r.rooms_failed.iter().all(|f| f.reason == "timeout"));
}

#[tokio::test]
async fn ask_reads_a_live_rocketchat_through_the_built_binary() {
    let fake = Arc::new(Fake::demo(Behaviour::default()));
    let url = fake::start(fake).await;
    let dir = tempfile::tempdir().unwrap();
    let yaml = format!(
        "sources:\n  rocketchat:\n    kind: rocketchat\n    command: [sagasu, source, rocketchat, --url, \"{url}\"]\n    env: {{ ROCKETCHAT_USER_ID: {}, ROCKETCHAT_TOKEN: {} }}\npolicies: {}\n",
        fake::USER_ID,
        fake::TOKEN,
        crate::common::repo().join("policies").display()
    );
    let config = crate::common::config_from(&yaml, dir.path());
    let names = vec!["rocketchat".to_string()];
    let policies = sagasu::config::policy::Policies::load(&config.policies, &names).unwrap();
    let engine = sagasu::pipeline::ask::Engine::new(config, policies);
    let opts = sagasu::pipeline::ask::AskOptions {
        now: Some("2026-11-20T09:00:00Z".parse().unwrap()),
        ..Default::default()
    };
    let r = engine.ask("前回の障害はいつでしたか？", &opts).await.unwrap();
    engine.shutdown().await;
    assert!(!r.not_found, "{}", r.answer);
    assert!(r.citations[0].id.starts_with("rocketchat:"));
    assert!(r.answer.contains("11月12日"), "{}", r.answer);
}
