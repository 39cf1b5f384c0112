//! Time constraints of a question relative to the clock: "last week", "since October", "in Q3",
//! "先週", "10月以降", "今月", month names and quarters.

use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Utc};

use crate::text;

pub(super) const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

pub(super) fn month_index(w: &str) -> Option<u32> {
    let w = w.trim_end_matches('.');
    MONTHS
        .iter()
        .position(|m| *m == w || (w.len() >= 3 && m.starts_with(w) && w.len() <= m.len()))
        .map(|i| i as u32 + 1)
}

pub(super) fn day_start(d: NaiveDate) -> DateTime<Utc> {
    Utc.from_utc_datetime(&d.and_hms_opt(0, 0, 0).unwrap_or_default())
}

/// The most recent first day of `month` at or before `now`.
pub(super) fn last_month_start(month: u32, now: DateTime<Utc>) -> DateTime<Utc> {
    let year = if month <= now.month() {
        now.year()
    } else {
        now.year() - 1
    };
    day_start(NaiveDate::from_ymd_opt(year, month, 1).unwrap_or_default())
}

pub(super) fn add_months(t: DateTime<Utc>, n: u32) -> DateTime<Utc> {
    let (y, m) = (t.year(), t.month() + n);
    let (y, m) = (y + ((m - 1) / 12) as i32, (m - 1) % 12 + 1);
    day_start(NaiveDate::from_ymd_opt(y, m, 1).unwrap_or_default())
}

/// One end of a time window (`None`: open).
type Bound = Option<DateTime<Utc>>;

pub(super) struct TimeHit {
    pub(super) after: Option<DateTime<Utc>>,
    pub(super) before: Option<DateTime<Utc>>,
    pub(super) label: String,
}

/// Finds a time constraint in the (normalised) question and returns it with the byte range of
/// the words that expressed it.
pub(super) fn find_time(q: &str, now: DateTime<Utc>) -> Option<(TimeHit, (usize, usize))> {
    let today = day_start(now.date_naive());
    let week_start = today - Duration::days(now.weekday().num_days_from_monday() as i64);
    let month_start = day_start(NaiveDate::from_ymd_opt(now.year(), now.month(), 1).unwrap_or_default());
    let year_start = day_start(NaiveDate::from_ymd_opt(now.year(), 1, 1).unwrap_or_default());
    let fixed: Vec<(&str, Bound, Bound)> = vec![
        ("yesterday", Some(today - Duration::days(1)), Some(today)),
        ("today", Some(today), None),
        ("this week", Some(week_start), None),
        ("last week", Some(week_start - Duration::days(7)), Some(week_start)),
        ("past week", Some(today - Duration::days(7)), None),
        ("this month", Some(month_start), None),
        ("last month", Some(prev_month_start(month_start)), Some(month_start)),
        ("past month", Some(today - Duration::days(30)), None),
        ("this year", Some(year_start), None),
        (
            "last year",
            Some(day_start(
                NaiveDate::from_ymd_opt(now.year() - 1, 1, 1).unwrap_or_default(),
            )),
            Some(year_start),
        ),
        ("昨日", Some(today - Duration::days(1)), Some(today)),
        ("今日", Some(today), None),
        ("今週", Some(week_start), None),
        ("先週", Some(week_start - Duration::days(7)), Some(week_start)),
        ("今月", Some(month_start), None),
        ("先月", Some(prev_month_start(month_start)), Some(month_start)),
        ("今年", Some(year_start), None),
        (
            "去年",
            Some(day_start(
                NaiveDate::from_ymd_opt(now.year() - 1, 1, 1).unwrap_or_default(),
            )),
            Some(year_start),
        ),
        (
            "昨年",
            Some(day_start(
                NaiveDate::from_ymd_opt(now.year() - 1, 1, 1).unwrap_or_default(),
            )),
            Some(year_start),
        ),
    ];
    for (phrase, after, before) in fixed {
        if let Some(i) = text::find_phrase(q, phrase) {
            let range = (i, i + phrase.len());
            let hit = TimeHit {
                after,
                before,
                label: phrase.to_string(),
            };
            return Some((hit, range));
        }
    }
    // "in q3", "during q3", 「第3四半期に」: a quarter after a preposition of time (a
    // postposition in Japanese) says when. A quarter that names what a thing is about ("the Q3
    // results", 「第3四半期の売上」) is no window: what reports on a quarter is written after it
    // ("Q3 results: closed $1.2M", posted in October), and says "Q3", which stays a keyword.
    static QUARTER: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?:(?-u:\b)(?:in|during) (?:the )?q([1-4])(?-u:\b)|(?:第([1-4])四半期|(?-u:\b)q([1-4]))(?:に|中|の間))",
        )
        .expect("valid regex")
    });
    if let Some(c) = QUARTER.captures(q) {
        let n: u32 = c
            .get(1)
            .or_else(|| c.get(2))
            .or_else(|| c.get(3))
            .and_then(|m| m.as_str().parse().ok())
            .unwrap_or(1);
        let start_month = (n - 1) * 3 + 1;
        let start = last_month_start(start_month, now);
        let m = c.get(0).map(|m| (m.start(), m.end())).unwrap_or((0, 0));
        return Some((
            TimeHit {
                after: Some(start),
                before: Some(add_months(start, 3)),
                label: format!("Q{n}"),
            },
            m,
        ));
    }
    // "since october", "after october", "from october"; "in october", "during october"
    static MONTH_EN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\b(since|after|from|in|during) (jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b")
            .expect("valid regex")
    });
    if let Some(c) = MONTH_EN.captures(q) {
        let month = month_index(&c[2])?;
        let start = last_month_start(month, now);
        let m = c.get(0).map(|m| (m.start(), m.end())).unwrap_or((0, 0));
        let (after, before) = match &c[1] {
            "in" | "during" => (Some(start), Some(add_months(start, 1))),
            _ => (Some(start), None),
        };
        return Some((
            TimeHit {
                after,
                before,
                label: c[0].to_string(),
            },
            m,
        ));
    }
    // "10月以降", "10月から"
    static MONTH_JA: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"(1[0-2]|[1-9])月(以降|から)").expect("valid regex"));
    if let Some(c) = MONTH_JA.captures(q) {
        let month: u32 = c[1].parse().ok()?;
        let m = c.get(0).map(|m| (m.start(), m.end())).unwrap_or((0, 0));
        return Some((
            TimeHit {
                after: Some(last_month_start(month, now)),
                before: None,
                label: c[0].to_string(),
            },
            m,
        ));
    }
    None
}

pub(super) fn prev_month_start(month_start: DateTime<Utc>) -> DateTime<Utc> {
    let d = month_start.date_naive();
    let (y, m) = if d.month() == 1 {
        (d.year() - 1, 12)
    } else {
        (d.year(), d.month() - 1)
    };
    day_start(NaiveDate::from_ymd_opt(y, m, 1).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quarter_is_a_window_only_after_a_word_of_time() {
        // Written for this test.
        let now = "2026-11-20T09:00:00Z".parse().unwrap();
        let (hit, _) = find_time("what did sales close in q3", now).expect("a window");
        assert_eq!(hit.label, "Q3");
        assert_eq!(
            hit.after.map(|t| t.to_rfc3339()),
            Some("2026-07-01T00:00:00+00:00".into())
        );
        assert_eq!(
            hit.before.map(|t| t.to_rfc3339()),
            Some("2026-10-01T00:00:00+00:00".into())
        );
        assert!(find_time("what happened during the q2 freeze", now).is_some());
        assert!(find_time("第3四半期に決まったことは", now).is_some());
        assert!(find_time("q3中に出た障害", now).is_some());
        // The quarter names what is asked about: reports on it come after it.
        assert!(find_time("how much new arr did the q3 results show", now).is_none());
        assert!(find_time("第3四半期の売上は", now).is_none());
    }
}
