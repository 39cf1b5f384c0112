//! RocketChat's REST shapes (contracts section 2) and the cross-room search result, as the
//! offline and live servers write them and the client adapter reads them.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RcUserRef {
    #[serde(rename = "_id", default)]
    pub id: String,
    #[serde(default)]
    pub username: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A message in RocketChat's REST shape, plus the room's name for display.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RcMessage {
    #[serde(rename = "_id")]
    pub id: String,
    pub rid: String,
    #[serde(default)]
    pub msg: String,
    /// An RFC 3339 time; a Mongo export's `{"$date": ...}` (a string or milliseconds) is read
    /// as one.
    #[serde(deserialize_with = "time_text")]
    pub ts: String,
    pub u: RcUserRef,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tmid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcount: Option<u32>,
    /// The room's display name (not in RocketChat's message; added by the search server).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub room: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RcRoom {
    #[serde(rename = "_id")]
    pub id: String,
    pub t: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fname: Option<String>,
}

impl RcRoom {
    pub fn display_name(&self) -> String {
        self.fname
            .clone()
            .or_else(|| self.name.clone())
            .unwrap_or_else(|| self.id.clone())
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RcUser {
    #[serde(rename = "_id")]
    pub id: String,
    pub username: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

#[derive(Deserialize)]
pub(crate) struct RoomsBody {
    pub(crate) update: Vec<RcRoom>,
}
#[derive(Deserialize)]
pub(crate) struct UsersBody {
    pub(crate) users: Vec<RcUser>,
}

/// A message time as text: a string as it is, or a Mongo extended-JSON `{"$date": ...}` (an
/// RFC 3339 string or milliseconds since the epoch) as RFC 3339.
fn time_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    use serde::de::Error;
    match serde_json::Value::deserialize(d)? {
        serde_json::Value::String(s) => Ok(s),
        serde_json::Value::Object(o) => match o.get("$date") {
            Some(serde_json::Value::String(s)) => Ok(s.clone()),
            Some(serde_json::Value::Number(n)) => n
                .as_i64()
                .and_then(chrono::DateTime::from_timestamp_millis)
                .map(|t| t.to_rfc3339())
                .ok_or_else(|| D::Error::custom("`$date` is not a time")),
            _ => Err(D::Error::custom("`ts` must be a time or {\"$date\": ...}")),
        },
        other => Err(D::Error::custom(format!("`ts` must be a time, not `{other}`"))),
    }
}

/// A room that could not be searched, and why (`forbidden`, `timeout`, `server error`,
/// `rate limited`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RoomFailure {
    pub room: String,
    pub reason: String,
}

/// What `search_messages` returns (as JSON text), live or offline.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct SearchResult {
    pub messages: Vec<RcMessage>,
    pub rooms_total: usize,
    pub rooms_searched: usize,
    #[serde(default)]
    pub rooms_failed: Vec<RoomFailure>,
    #[serde(default)]
    pub rooms_skipped: usize,
    pub hits_total: usize,
    pub truncated: bool,
    /// One line for people: "searched 48 of 50 rooms (2 failed: forbidden); 30 of 112 hits shown".
    pub summary: String,
}

impl SearchResult {
    pub fn summarize(&mut self) {
        let mut s = format!("searched {} of {} rooms", self.rooms_searched, self.rooms_total);
        if !self.rooms_failed.is_empty() {
            let mut reasons: Vec<&str> = self.rooms_failed.iter().map(|f| f.reason.as_str()).collect();
            reasons.sort();
            reasons.dedup();
            s.push_str(&format!(
                " ({} failed: {})",
                self.rooms_failed.len(),
                reasons.join(", ")
            ));
        }
        if self.rooms_skipped > 0 {
            s.push_str(&format!(" ({} skipped by the room cap)", self.rooms_skipped));
        }
        s.push_str(&format!("; {} of {} hits shown", self.messages.len(), self.hits_total));
        self.summary = s;
    }
}
