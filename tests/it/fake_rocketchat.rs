//! A fake RocketChat REST server on 127.0.0.1 (axum), with the documented shapes: `rooms.get`,
//! `chat.search` (one room; full-text over the message like the server's text index),
//! `users.list` (paged), `chat.getMessage`, `chat.getThreadMessages`, `chat.syncThreadMessages`,
//! `channels.history`. Rooms can be made to answer 403, 500, hang, or 429 with `Retry-After`; the
//! server can be "old" (no `chat.getThreadMessages`) or answer bad JSON. Shared by the tests and
//! the fan-out benchmark.

#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

use sagasu::servers::offline::rocketchat::{RcMessage, RcRoom, RcUser, RocketExport};
use sagasu::text::index::{Doc, Filter, SearchIndex};

pub const USER_ID: &str = "fake-user";
pub const TOKEN: &str = "fake-token-123";

/// How one room answers `chat.search`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Room {
    Forbidden,
    ServerError,
    Hang,
    /// 429 with `Retry-After: secs` on the first request, then normal.
    RateLimitedOnce(u64),
    /// 429 with `Retry-After: secs` every time.
    RateLimited(u64),
}

#[derive(Default)]
pub struct Behaviour {
    pub rooms: HashMap<String, Room>,
    /// No `chat.getThreadMessages` (answers 400 as old servers do).
    pub old_server: bool,
    /// Every answer of this method is not JSON.
    pub bad_json: Option<&'static str>,
    /// Every `chat.search` answers this late.
    pub search_delay: Duration,
}

pub struct Fake {
    pub rooms: Vec<RcRoom>,
    pub messages: Vec<RcMessage>,
    pub users: Vec<RcUser>,
    index: SearchIndex,
    pub behaviour: Behaviour,
    /// `chat.search` calls in flight now, and the most at once.
    in_flight: AtomicUsize,
    pub max_in_flight: AtomicUsize,
    pub searches: AtomicUsize,
    rate_limited_once: std::sync::Mutex<Vec<String>>,
}

impl Fake {
    pub fn new(rooms: Vec<RcRoom>, messages: Vec<RcMessage>, users: Vec<RcUser>, behaviour: Behaviour) -> Fake {
        let docs = messages.iter().enumerate().map(|(ord, m)| Doc {
            ord: ord as u64,
            title: String::new(),
            body: format!("{} {}", m.msg, m.u.name.clone().unwrap_or_default()),
            keys: vec![format!("room={}", m.rid)],
            time: None,
            ..Doc::default()
        });
        let index = SearchIndex::build(docs).expect("index");
        Fake {
            rooms,
            messages,
            users,
            index,
            behaviour,
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
            searches: AtomicUsize::new(0),
            rate_limited_once: Default::default(),
        }
    }

    /// The demo's RocketChat data (the same files the offline server reads), messages without
    /// the display name the offline loader adds.
    pub fn demo(behaviour: Behaviour) -> Fake {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/acme/rocketchat");
        let e = RocketExport::load(&dir).expect("demo rocketchat");
        let messages = e
            .messages
            .iter()
            .cloned()
            .map(|mut m| {
                m.room = None;
                m
            })
            .collect();
        Fake::new(e.rooms.clone(), messages, e.users.clone(), behaviour)
    }
}

type S = Arc<Fake>;

fn authorized(h: &HeaderMap) -> bool {
    h.get("X-User-Id").and_then(|v| v.to_str().ok()) == Some(USER_ID)
        && h.get("X-Auth-Token").and_then(|v| v.to_str().ok()) == Some(TOKEN)
}

fn answer(s: &Fake, method: &str, body: Value) -> Response {
    if s.behaviour.bad_json == Some(method) {
        return (StatusCode::OK, "<html>not json</html>").into_response();
    }
    axum::Json(body).into_response()
}

fn unauthorized() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        axum::Json(json!({"status": "error", "message": "You must be logged in to do this."})),
    )
        .into_response()
}

async fn rooms_get(State(s): State<S>, h: HeaderMap) -> Response {
    if !authorized(&h) {
        return unauthorized();
    }
    answer(
        &s,
        "rooms.get",
        json!({"update": s.rooms, "remove": [], "success": true}),
    )
}

async fn chat_search(State(s): State<S>, h: HeaderMap, Query(q): Query<HashMap<String, String>>) -> Response {
    if !authorized(&h) {
        return unauthorized();
    }
    let Some(room) = q.get("roomId").cloned() else {
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"success": false, "error": "The required \"roomId\" param is missing."})),
        )
            .into_response();
    };
    s.searches.fetch_add(1, Ordering::SeqCst);
    let now = s.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    s.max_in_flight.fetch_max(now, Ordering::SeqCst);
    struct Done<'a>(&'a AtomicUsize);
    impl Drop for Done<'_> {
        fn drop(&mut self) {
            self.0.fetch_sub(1, Ordering::SeqCst);
        }
    }
    let _done = Done(&s.in_flight);
    if !s.behaviour.search_delay.is_zero() {
        tokio::time::sleep(s.behaviour.search_delay).await;
    }
    match s.behaviour.rooms.get(&room) {
        Some(Room::Forbidden) => {
            return (
                StatusCode::FORBIDDEN,
                axum::Json(json!({"success": false, "error": "unauthorized"})),
            )
                .into_response();
        }
        Some(Room::ServerError) => return (StatusCode::INTERNAL_SERVER_ERROR, "boom").into_response(),
        Some(Room::Hang) => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
        Some(Room::RateLimited(secs)) => {
            return (
                StatusCode::TOO_MANY_REQUESTS,
                [("Retry-After", secs.to_string())],
                "slow down",
            )
                .into_response();
        }
        Some(Room::RateLimitedOnce(secs)) => {
            let mut seen = s.rate_limited_once.lock().unwrap();
            if !seen.contains(&room) {
                seen.push(room.clone());
                return (
                    StatusCode::TOO_MANY_REQUESTS,
                    [("Retry-After", secs.to_string())],
                    "slow down",
                )
                    .into_response();
            }
        }
        None => {}
    }
    let text = q.get("searchText").cloned().unwrap_or_default();
    let count: usize = q.get("count").and_then(|c| c.parse().ok()).unwrap_or(20);
    let filter = Filter {
        all_of: vec![vec![format!("room={room}")]],
        after: None,
        before: None,
    };
    let found = s.index.search(&text, &filter, s.messages.len().max(1)).expect("search");
    let mut msgs: Vec<&RcMessage> = found.hits.iter().map(|(o, _)| &s.messages[*o as usize]).collect();
    // RocketChat answers newest first.
    msgs.sort_by(|a, b| b.ts.cmp(&a.ts));
    msgs.truncate(count);
    answer(&s, "chat.search", json!({"messages": msgs, "success": true}))
}

async fn users_list(State(s): State<S>, h: HeaderMap, Query(q): Query<HashMap<String, String>>) -> Response {
    if !authorized(&h) {
        return unauthorized();
    }
    let offset: usize = q.get("offset").and_then(|c| c.parse().ok()).unwrap_or(0);
    let count: usize = q.get("count").and_then(|c| c.parse().ok()).unwrap_or(25);
    let page: Vec<&RcUser> = s.users.iter().skip(offset).take(count).collect();
    answer(
        &s,
        "users.list",
        json!({"users": page, "count": page.len(), "offset": offset, "total": s.users.len(), "success": true}),
    )
}

async fn get_message(State(s): State<S>, h: HeaderMap, Query(q): Query<HashMap<String, String>>) -> Response {
    if !authorized(&h) {
        return unauthorized();
    }
    let id = q.get("msgId").cloned().unwrap_or_default();
    match s.messages.iter().find(|m| m.id == id) {
        Some(m) => answer(&s, "chat.getMessage", json!({"message": m, "success": true})),
        None => (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"success": false, "error": "Message not found"})),
        )
            .into_response(),
    }
}

fn replies(s: &Fake, tmid: &str) -> Vec<RcMessage> {
    s.messages
        .iter()
        .filter(|m| m.tmid.as_deref() == Some(tmid))
        .cloned()
        .collect()
}

async fn thread_messages(State(s): State<S>, h: HeaderMap, Query(q): Query<HashMap<String, String>>) -> Response {
    if !authorized(&h) {
        return unauthorized();
    }
    if s.behaviour.old_server {
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"success": false, "error": "Method not found"})),
        )
            .into_response();
    }
    let tmid = q.get("tmid").cloned().unwrap_or_default();
    answer(
        &s,
        "chat.getThreadMessages",
        json!({"messages": replies(&s, &tmid), "success": true}),
    )
}

async fn sync_thread_messages(State(s): State<S>, h: HeaderMap, Query(q): Query<HashMap<String, String>>) -> Response {
    if !authorized(&h) {
        return unauthorized();
    }
    let tmid = q.get("tmid").cloned().unwrap_or_default();
    answer(
        &s,
        "chat.syncThreadMessages",
        json!({"messages": {"update": replies(&s, &tmid), "remove": []}, "success": true}),
    )
}

async fn history(State(s): State<S>, h: HeaderMap, Query(q): Query<HashMap<String, String>>) -> Response {
    if !authorized(&h) {
        return unauthorized();
    }
    let rid = q.get("roomId").cloned().unwrap_or_default();
    let msgs: Vec<&RcMessage> = s.messages.iter().filter(|m| m.rid == rid).collect();
    answer(&s, "channels.history", json!({"messages": msgs, "success": true}))
}

/// Starts the fake on 127.0.0.1 (any free port); returns its base URL. The server stops with
/// the test's runtime.
pub async fn start(fake: Arc<Fake>) -> String {
    let app = axum::Router::new()
        .route("/api/v1/rooms.get", get(rooms_get))
        .route("/api/v1/chat.search", get(chat_search))
        .route("/api/v1/users.list", get(users_list))
        .route("/api/v1/chat.getMessage", get(get_message))
        .route("/api/v1/chat.getThreadMessages", get(thread_messages))
        .route("/api/v1/chat.syncThreadMessages", get(sync_thread_messages))
        .route("/api/v1/channels.history", get(history))
        .with_state(fake);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}
