//! The unit of evidence: a `Hit` that a source returned, with its contract id
//! (`<source>:<native>`, contracts section 1) and the kind of evidence it is.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// What kind of evidence a hit is; the policies' authority orders are written over these.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceKind {
    #[default]
    Chat,
    Page,
    Wiki,
    Task,
    MeetingNotes,
    Email,
    Tool,
}

impl EvidenceKind {
    pub const ALL: [EvidenceKind; 7] = [
        EvidenceKind::Chat,
        EvidenceKind::Page,
        EvidenceKind::Wiki,
        EvidenceKind::Task,
        EvidenceKind::MeetingNotes,
        EvidenceKind::Email,
        EvidenceKind::Tool,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EvidenceKind::Chat => "chat",
            EvidenceKind::Page => "page",
            EvidenceKind::Wiki => "wiki",
            EvidenceKind::Task => "task",
            EvidenceKind::MeetingNotes => "meeting_notes",
            EvidenceKind::Email => "email",
            EvidenceKind::Tool => "tool",
        }
    }

    /// Classifies a Notion page by its parent (wiki section or database) and title, the way a
    /// reader would: a page under a wiki is `wiki`, meeting notes are `meeting_notes`, a
    /// database row is a `task`.
    pub fn for_notion(parent: Option<&str>, title: &str, database_row: bool) -> EvidenceKind {
        let p = parent.unwrap_or("").to_lowercase();
        let t = title.to_lowercase();
        let meeting =
            |s: &str| s.contains("meeting") || s.contains("minutes") || s.contains("議事録") || s.contains("定例");
        if meeting(&p) || meeting(&t) {
            EvidenceKind::MeetingNotes
        } else if database_row || p.contains("task") || p.contains("タスク") {
            EvidenceKind::Task
        } else if p.contains("wiki")
            || p.contains("handbook")
            || p.contains("policies")
            || p.contains("規程")
            || p.contains("ハンドブック")
        {
            EvidenceKind::Wiki
        } else {
            EvidenceKind::Page
        }
    }
}

impl fmt::Display for EvidenceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for EvidenceKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        EvidenceKind::ALL.into_iter().find(|k| k.as_str() == s).ok_or_else(|| {
            format!(
                "unknown evidence kind `{s}` (expected one of: {})",
                EvidenceKind::ALL.map(|k| k.as_str()).join(", ")
            )
        })
    }
}

/// One piece of evidence as a source returned it, normalised.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Hit {
    /// `<source>:<native>` (contracts section 1).
    pub id: String,
    /// The source's name in the configuration.
    pub source: String,
    pub kind: EvidenceKind,
    pub title: String,
    /// Where it lives: `#channel`, a wiki section, a room name.
    pub location: String,
    pub author: Option<String>,
    /// The author's id in the source (a Slack user id), when it gives one: mentions of that id
    /// in other hits are shown by the author's name (`pipeline::mentions`).
    #[serde(skip)]
    pub author_id: Option<String>,
    pub timestamp: Option<DateTime<Utc>>,
    pub url: Option<String>,
    /// The text of the hit (the whole message, or a page's passage or full text).
    pub text: String,
    /// A thread key: hits in one thread share it.
    pub thread: Option<String>,
    /// The position the source itself gave the hit (0 = first).
    pub native_rank: usize,
    /// The score the source gave, when it gives one.
    pub native_score: Option<f64>,
    /// Structured properties (a task's status, assignee, due date).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub properties: BTreeMap<String, String>,
}

impl Hit {
    /// A hit with only the required fields; callers fill in the rest.
    pub fn new(source: &str, native: &str, kind: EvidenceKind, text: impl Into<String>) -> Hit {
        Hit {
            id: format!("{source}:{native}"),
            source: source.to_string(),
            kind,
            title: String::new(),
            location: String::new(),
            author: None,
            author_id: None,
            timestamp: None,
            url: None,
            text: text.into(),
            thread: None,
            native_rank: 0,
            native_score: None,
            properties: BTreeMap::new(),
        }
    }

    /// Where the hit lives, when that names a place of its own (a channel, a room, a parent
    /// page, a tool's server), not only which source it came from: not the source's name, and
    /// not a source's label for "no parent known" (`NO_PLACE`).
    pub fn place(&self) -> Option<&str> {
        let l = self.location.trim().trim_start_matches('#');
        (!l.is_empty() && !l.eq_ignore_ascii_case(&self.source) && !NO_PLACE.contains(&l)).then_some(l)
    }
}

/// The locations a source gives a hit whose place it does not know (Notion's search results
/// and database rows without a parent): shown, but naming no topic.
pub const NO_PLACE: [&str; 2] = ["Notion", "Notion database"];

/// Normalises a Notion page id to 32 lower-case hex digits (dashes removed), or `None` when it
/// is not one.
pub fn notion_id(raw: &str) -> Option<String> {
    let hex: String = raw.chars().filter(|c| *c != '-').collect::<String>().to_lowercase();
    (hex.len() == 32 && hex.chars().all(|c| c.is_ascii_hexdigit())).then_some(hex)
}

/// Finds the last run of 32 hex digits (optionally dashed as a UUID) in `s`, e.g. in a Notion
/// export file name or URL.
pub fn notion_id_in(s: &str) -> Option<String> {
    let re = regex_lite_uuid();
    re.find_iter(s).last().and_then(|m| notion_id(m.as_str()))
}

fn regex_lite_uuid() -> &'static regex::Regex {
    static RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        // A pattern literal: compiling it cannot fail.
        regex::Regex::new(r"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}").expect("valid regex")
    });
    &RE
}

/// Seconds since the epoch as Slack writes them (`"1761905400.000200"`) to a time.
pub fn slack_ts_to_time(ts: &str) -> Option<DateTime<Utc>> {
    let (secs, frac) = ts.split_once('.').unwrap_or((ts, "0"));
    let secs: i64 = secs.parse().ok()?;
    let micros: u32 = format!("{frac:0<6}")[..6].parse().ok()?;
    DateTime::from_timestamp(secs, micros * 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_is_where_a_hit_lives_not_which_source_it_came_from() {
        let mut h = Hit::new(
            "slack",
            "sales/1",
            EvidenceKind::Chat,
            "Japan pipeline: 14 opportunities.",
        );
        h.location = "#sales".into();
        assert_eq!(h.place(), Some("sales"));
        h.location = "Engineering Wiki".into();
        assert_eq!(h.place(), Some("Engineering Wiki"));
        for none in ["", "#", "Slack", "Notion", "Notion database"] {
            h.location = none.into();
            assert_eq!(h.place(), None, "{none:?}");
        }
    }

    #[test]
    fn notion_ids_are_normalised() {
        assert_eq!(
            notion_id("3F2A9C0E-5B7D-4E1F-A0C2-D4E6F8A0B1C2").as_deref(),
            Some("3f2a9c0e5b7d4e1fa0c2d4e6f8a0b1c2")
        );
        assert_eq!(notion_id("xyz"), None);
        assert_eq!(
            notion_id_in("Pricing Policy 3f2a9c0e5b7d4e1fa0c2d4e6f8a0b1c2.md").as_deref(),
            Some("3f2a9c0e5b7d4e1fa0c2d4e6f8a0b1c2")
        );
    }

    #[test]
    fn slack_ts_parses_micros() {
        let t = slack_ts_to_time("1761905400.000200").unwrap();
        assert_eq!(t.timestamp(), 1761905400);
        assert_eq!(t.timestamp_subsec_micros(), 200);
        assert!(slack_ts_to_time("garbage").is_none());
    }

    #[test]
    fn notion_kinds() {
        assert_eq!(
            EvidenceKind::for_notion(Some("Engineering Wiki"), "Deploys", false),
            EvidenceKind::Wiki
        );
        assert_eq!(
            EvidenceKind::for_notion(Some("Tasks"), "Fix login", true),
            EvidenceKind::Task
        );
        assert_eq!(
            EvidenceKind::for_notion(Some("Meeting Notes"), "Weekly", false),
            EvidenceKind::MeetingNotes
        );
        assert_eq!(
            EvidenceKind::for_notion(None, "2026-10-01 経営会議 議事録", false),
            EvidenceKind::MeetingNotes
        );
        assert_eq!(
            EvidenceKind::for_notion(Some("Specs"), "API v2", false),
            EvidenceKind::Page
        );
    }
}
