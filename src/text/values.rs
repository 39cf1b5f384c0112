//! Typed values in text, in English and Japanese: money, durations, dates, percentages and
//! plain numbers, normalised so that "$45" and "45ドル", "90 days" and "90日", "December 1" and
//! "12月1日" compare equal. Dedup uses them to tell copies from different conclusions and to
//! pair translations; conflict detection compares them.

use std::sync::LazyLock;

use chrono::Datelike;
use regex::Regex;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueKind {
    Money,
    Duration,
    Date,
    Percent,
    Number,
}

impl ValueKind {
    pub fn describe(self) -> &'static str {
        match self {
            ValueKind::Money => "the amount",
            ValueKind::Duration => "the duration",
            ValueKind::Date => "the date",
            ValueKind::Percent => "the percentage",
            ValueKind::Number => "the number",
        }
    }
}

/// A value found in text: its kind, a canonical form, and where it was written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Value {
    pub kind: ValueKind,
    pub canonical: String,
    pub start: usize,
    pub end: usize,
}

impl Value {
    /// The value as one index term, the same in either language and any spelling ("Dec 15" and
    /// "12月15日", "2.3%" and "2.3 %"): ranking matches a question's value with it. It starts with
    /// a control character, which no token of text ever holds.
    pub fn term(&self) -> String {
        format!("{VALUE_TERM_MARK}{:?}:{}", self.kind, self.canonical)
    }

    /// The value as a text in that language writes it ("Dec 15" / "12月15日", "$45" / "45円",
    /// "90 days" / "90日"): what a search in that language can find. `None` for a bare number.
    pub fn spelled(&self, japanese: bool) -> Option<String> {
        let c = self.canonical.as_str();
        Some(match self.kind {
            ValueKind::Number => return None,
            ValueKind::Percent => c.to_string(),
            ValueKind::Date => {
                let (m, d) = c.split_once('-')?;
                let (m, d): (usize, u32) = (m.parse().ok()?, d.parse().ok()?);
                let month = MONTHS.get(m.checked_sub(1)?)?;
                if japanese {
                    format!("{m}月{d}日")
                } else {
                    let mut name = month.to_string();
                    name[..1].make_ascii_uppercase();
                    format!("{name} {d}")
                }
            }
            ValueKind::Money => {
                let (cur, amount) = c.split_at(3.min(c.len()));
                match (cur, japanese) {
                    ("jpy", true) => format!("{amount}円"),
                    ("jpy", false) => format!("¥{amount}"),
                    ("usd", _) => format!("${amount}"),
                    ("eur", _) => format!("€{amount}"),
                    _ => format!("£{amount}"),
                }
            }
            ValueKind::Duration => {
                let (n, unit) = c.split_once(' ')?;
                if japanese {
                    let ja = match unit {
                        "minute" => "分",
                        "hour" => "時間",
                        "day" => "日",
                        "business-day" => "営業日",
                        "week" => "週間",
                        "month" => "か月",
                        _ => "年",
                    };
                    format!("{n}{ja}")
                } else {
                    let unit = unit.replace('-', " ");
                    if n == "1" {
                        format!("{n} {unit}")
                    } else {
                        format!("{n} {unit}s")
                    }
                }
            }
        })
    }

    /// Whether the value names one thing by itself (a date, an amount, a share, a duration),
    /// rather than being a bare number.
    pub fn is_specific(&self) -> bool {
        self.kind != ValueKind::Number
    }
}

/// What every value term (`Value::term`) starts with.
pub const VALUE_TERM_MARK: char = '\u{1}';

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

fn re(p: &str) -> Regex {
    // Pattern literals: compiling them cannot fail.
    Regex::new(p).expect("valid regex")
}

static MONEY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:([$¥€£])\s?(\d[\d,]*(?:\.\d+)?)(?:\s?(k|m|million))?|(\d[\d,]*(?:\.\d+)?)\s?(円|ドル|yen|usd|dollars?))",
    )
});
static DURATION: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(\d+(?:\.\d+)?)\s?(minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|business days?|分|時間|日間|日ごと|日|週間|か月|ヶ月|カ月|年)(?:間)?",
    )
});
static DATE_EN: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?-u:\b)(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?-u:\b)",
    )
});
/// The day first, as British English and many writers put it: "29 December", "the 29th of Dec".
static DATE_EN_DAY_FIRST: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?-u:\b)(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?(?-u:\b)",
    )
});
/// What joins the two ends of a period: "from Dec 27 to Jan 4", "Dec 27 – Jan 4", "12月27日〜1月4日",
/// "12月27日から1月4日まで".
static RANGE_JOIN: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^\s*(?:to|until|till|through|thru|and|-|–|—|~|〜|～|から)\s*$"));
/// A period this long or shorter stands for each of its days (`terms`); a longer one is a season.
const RANGE_DAYS_MAX: i64 = 62;
static DATE_JA: LazyLock<Regex> = LazyLock::new(|| re(r"(\d{1,2})月(\d{1,2})日"));
static DATE_ISO: LazyLock<Regex> = LazyLock::new(|| re(r"(?-u:\b)20\d\d-(\d\d)-(\d\d)(?-u:\b)"));
static DATE_SLASH: LazyLock<Regex> = LazyLock::new(|| re(r"(?-u:\b)(1[0-2]|0?[1-9])/(3[01]|[12]\d|0?[1-9])(?-u:\b)"));
static PERCENT: LazyLock<Regex> = LazyLock::new(|| re(r"(\d+(?:\.\d+)?)\s?(%|パーセント|percent)"));
static NUMBER: LazyLock<Regex> = LazyLock::new(|| re(r"\d[\d,]*(?:\.\d+)?"));
/// A time of day: "02:00", "9:30 UTC", "5 pm", 「17時」 (not "17時間", a duration).
static TIME_OF_DAY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?-u:\b)(?:[01]?\d|2[0-3]):[0-5]\d(?-u:\b)|(?i)(?-u:\b)(?:1[0-2]|[1-9])\s?[ap]\.?m(?-u:\b)|\d{1,2}時(?:[^間]|$)",
    )
});

/// Words that bound a quantity from below ("above 20%", "at least 3", 「10万円以上」) ...
const LOWER_BOUND: &[&str] = &[
    "above",
    "over",
    "more than",
    "greater than",
    "exceeding",
    "exceeds",
    "at least",
    "or more",
    "以上",
    "超",
    "を超える",
];
/// ... and from above ("up to 20%", "under $50", 「5万円以下」).
const UPPER_BOUND: &[&str] = &[
    "up to",
    "below",
    "under",
    "less than",
    "at most",
    "or less",
    "以下",
    "未満",
    "まで",
];

/// Which way a text bounds a quantity: `Some(true)` from below ("above 20%"), `Some(false)`
/// from above ("up to 20%"), `None` when it says neither or both, or states no number.
pub fn bound(text: &str) -> Option<bool> {
    if !text.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    let n = crate::text::normalize(text);
    let has = |words: &[&str]| words.iter().any(|w| crate::text::find_phrase(&n, w).is_some());
    match (has(LOWER_BOUND), has(UPPER_BOUND)) {
        (true, false) => Some(true),
        (false, true) => Some(false),
        _ => None,
    }
}

/// Words before a quantity that bound it from below, and whether the bound itself is taken
/// in ("at least 20%" holds 20%, "above 20%" does not) ...
const BOUND_BEFORE: &[(&str, bool, bool)] = &[
    // (words, from below, inclusive)
    ("above", true, false),
    ("over", true, false),
    ("more than", true, false),
    ("greater than", true, false),
    ("exceeding", true, false),
    ("in excess of", true, false),
    ("at least", true, true),
    ("minimum", true, true),
    ("minimum of", true, true),
    ("min.", true, true),
    (">", true, false),
    ("≥", true, true),
    ("up to", false, true),
    ("at most", false, true),
    ("maximum", false, true),
    ("maximum of", false, true),
    ("max.", false, true),
    ("within", false, true),
    ("<", false, false),
    ("≤", false, true),
    ("no more than", false, true),
    ("below", false, false),
    ("under", false, false),
    ("less than", false, false),
];
/// ... and after it (Japanese writes the bound after the number: 「20%以上」, 「5日以内」).
const BOUND_AFTER: &[(&str, bool, bool)] = &[
    ("or more", true, true),
    ("and above", true, true),
    ("or less", false, true),
    ("and below", false, true),
    ("以上", true, true),
    ("超", true, false),
    ("を超える", true, false),
    ("を超えた", true, false),
    ("以下", false, true),
    ("以内", false, true),
    ("未満", false, false),
    ("まで", false, true),
];

/// Characters read on each side of a value for a bound: more than the longest bound's words
/// ("in excess of") and the character that must not continue a word.
const BOUND_READ_CHARS: usize = 24;

/// A value's quantity, for comparing it with a bound: its kind and unit (the currency, the
/// duration's unit) and its amount. Dates and bare numbers have none (a bare number counts
/// anything).
fn quantity(kind: ValueKind, canonical: &str) -> Option<(ValueKind, String, f64)> {
    let (unit, amount) = match kind {
        ValueKind::Percent => (String::new(), canonical.strip_suffix('%')?),
        ValueKind::Money => {
            let at = canonical.find(|c: char| c.is_ascii_digit())?;
            (canonical[..at].to_string(), &canonical[at..])
        }
        ValueKind::Duration => {
            let (n, u) = canonical.split_once(' ')?;
            (u.to_string(), n)
        }
        ValueKind::Date | ValueKind::Number => return None,
    };
    Some((kind, unit, amount.parse().ok()?))
}

/// `bounded_of`, reading the values of `text` itself.
#[cfg(test)]
fn bounded_terms(text: &str, asked: &[String]) -> Vec<String> {
    bounded_of(text, &extract(text), asked)
}

/// The value terms among `asked` (a question's, as `Value::term` writes them) that a bound
/// `text` states (of its `values`) takes in: "Discounts above 20% need approval from the CFO"
/// takes in a question's "25%", and 「5日以内」 its "3 days", of the same kind and unit; "up to
/// 20%" does not take in 25%. A question about a quantity is answered by the rule whose threshold it
/// falls under, which never writes the question's number.
fn bounded_of(text: &str, values: &[Value], asked: &[String]) -> Vec<String> {
    let asked: Vec<(&String, (ValueKind, String, f64))> = asked
        .iter()
        .filter_map(|t| {
            let (kind, canonical) = t.strip_prefix(VALUE_TERM_MARK)?.split_once(':')?;
            let kind = match kind {
                "Percent" => ValueKind::Percent,
                "Money" => ValueKind::Money,
                "Duration" => ValueKind::Duration,
                _ => return None,
            };
            Some((t, quantity(kind, canonical)?))
        })
        .collect();
    if asked.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for v in values {
        let Some((kind, unit, bound)) = quantity(v.kind, &v.canonical) else {
            continue;
        };
        // The few characters on each side that can hold a bound's words and the character
        // before or after them, not the whole rest of the text for every value.
        let before: String = text[..v.start]
            .trim_end()
            .chars()
            .rev()
            .take(BOUND_READ_CHARS)
            .collect();
        let before: String = before.chars().rev().collect::<String>().to_lowercase();
        let after: String = text[v.end..]
            .trim_start()
            .chars()
            .take(BOUND_READ_CHARS)
            .collect::<String>()
            .to_lowercase();
        let ends_word = |w: &str| {
            before.ends_with(w)
                && before[..before.len() - w.len()]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !c.is_alphanumeric())
        };
        let starts_word = |w: &str| {
            after.starts_with(w)
                && (!w.is_ascii() || after[w.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric()))
        };
        let found = BOUND_BEFORE
            .iter()
            .find(|(w, _, _)| ends_word(w))
            .or_else(|| BOUND_AFTER.iter().find(|(w, _, _)| starts_word(w)));
        let Some(&(_, from_below, inclusive)) = found else {
            continue;
        };
        for (term, (k, u, x)) in &asked {
            let inside = if from_below {
                *x > bound || (inclusive && *x == bound)
            } else {
                *x < bound || (inclusive && *x == bound)
            };
            if *k == kind && *u == unit && inside && !out.contains(*term) {
                out.push((*term).clone());
            }
        }
    }
    out
}

/// Whether `text` states a time of day ("Data refreshes nightly at 02:00 UTC"): it says when
/// something recurs or happened as a date does.
pub fn states_time_of_day(text: &str) -> bool {
    TIME_OF_DAY.is_match(text)
}

fn num(s: &str) -> String {
    let s = s.replace(',', "");
    match s.parse::<f64>() {
        Ok(v) if v.fract() == 0.0 => format!("{}", v as i64),
        Ok(v) => format!("{v}"),
        Err(_) => s,
    }
}

/// The unit a word names as `Value::canonical` writes a duration's ("minutes" and 分: "minute",
/// 日間: "day"), or `None` for a word that names no unit of a duration.
pub fn duration_unit(word: &str) -> Option<&'static str> {
    let w = word.to_lowercase();
    let known = w.starts_with("min")
        || w.starts_with("hour")
        || w.starts_with("hr")
        || w.starts_with("day")
        || w.starts_with("week")
        || w.starts_with("month")
        || w.starts_with("year")
        || w.starts_with("business day")
        || ["分", "時間", "日", "日間", "週間", "か月", "ヶ月", "カ月", "年", "年間"].contains(&w.as_str());
    known.then(|| unit(&w))
}

fn unit(u: &str) -> &'static str {
    let u = u.to_lowercase();
    if u.starts_with("business") {
        "business-day"
    } else if u.starts_with("min") || u == "分" {
        "minute"
    } else if u.starts_with('h') || u == "時間" {
        "hour"
    } else if u.starts_with("day") || u.starts_with('日') {
        "day"
    } else if u.starts_with("week") || u == "週間" {
        "week"
    } else if u.starts_with("month") || u.contains('月') {
        "month"
    } else {
        "year"
    }
}

/// Holidays on a fixed day of the calendar, by the names English and Japanese give them, and
/// their day ("MM-DD"): a question about "New Year's Day" or 元日 asks about January 1, which a
/// rota or a closure notice writes as a date. Holidays whose day moves (Easter, Thanksgiving,
/// 成人の日) are not dates, and a bare "Christmas" or "New Year" names a season as often.
const FIXED_HOLIDAYS: &[(&str, &str)] = &[
    // English names, each word but the last possibly possessive ("New Year's Day", "new years
    // day", and "new year day" as question keywords write it).
    ("new year day", "01-01"),
    ("new year eve", "12-31"),
    ("christmas eve", "12-24"),
    ("christmas day", "12-25"),
    ("boxing day", "12-26"),
    ("valentine day", "02-14"),
    ("halloween", "10-31"),
    ("元日", "01-01"),
    ("元旦", "01-01"),
    ("大晦日", "12-31"),
    ("大みそか", "12-31"),
    ("クリスマスイブ", "12-24"),
    ("クリスマス・イブ", "12-24"),
    ("クリスマスイヴ", "12-24"),
    ("建国記念の日", "02-11"),
    ("天皇誕生日", "02-23"),
    ("昭和の日", "04-29"),
    ("憲法記念日", "05-03"),
    ("みどりの日", "05-04"),
    ("こどもの日", "05-05"),
    ("山の日", "08-11"),
    ("文化の日", "11-03"),
    ("勤労感謝の日", "11-23"),
];

/// `FIXED_HOLIDAYS`, one group each: the English names as whole words, the Japanese ones
/// anywhere (Japanese writes no spaces between words).
static HOLIDAY: LazyLock<Regex> = LazyLock::new(|| {
    let groups: Vec<String> = FIXED_HOLIDAYS
        .iter()
        .map(|(name, _)| {
            if name.is_ascii() {
                let words: Vec<String> = name.split(' ').map(regex::escape).collect();
                let (last, rest) = words.split_last().expect("a name has a word");
                let mut g: String = rest.iter().map(|w| format!(r"{w}(?:['’]?s)?\s+")).collect();
                g.push_str(last);
                format!(r"(\b{g}\b)")
            } else {
                format!("({})", regex::escape(name))
            }
        })
        .collect();
    re(&format!("(?i){}", groups.join("|")))
});

/// The fixed-day holidays `text` names, as dates.
fn holidays(text: &str, out: &mut Vec<Value>) {
    for c in HOLIDAY.captures_iter(text) {
        let Some((k, m)) = c.iter().skip(1).enumerate().find_map(|(k, m)| Some((k, m?))) else {
            continue;
        };
        out.push(Value {
            kind: ValueKind::Date,
            canonical: FIXED_HOLIDAYS[k].1.to_string(),
            start: m.start(),
            end: m.end(),
        });
    }
}

/// Every value in `text`, in order, without overlaps (money and dates win over plain numbers).
pub fn extract(text: &str) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    // Every kind of value has a digit in it, but for the holidays that name a day.
    holidays(text, &mut out);
    if !text.bytes().any(|b| b.is_ascii_digit()) && !text.chars().any(|c| ('０'..='９').contains(&c)) {
        return out;
    }
    let mut taken: Vec<(usize, usize)> = out.iter().map(|v| (v.start, v.end)).collect();
    let mut add = |kind, canonical: String, s: usize, e: usize, out: &mut Vec<Value>| {
        if taken.iter().any(|&(a, b)| s < b && a < e) {
            return;
        }
        taken.push((s, e));
        out.push(Value {
            kind,
            canonical,
            start: s,
            end: e,
        });
    };
    for c in MONEY.captures_iter(text) {
        let m = c.get(0).map(|m| (m.start(), m.end())).unwrap_or_default();
        let (cur, amount) = match (c.get(1), c.get(2), c.get(4), c.get(5)) {
            (Some(cur), Some(a), _, _) => {
                let mut v = num(a.as_str());
                if let Some(k) = c.get(3) {
                    let mult = if k.as_str().eq_ignore_ascii_case("k") { 1e3 } else { 1e6 };
                    v = num(&format!("{}", v.parse::<f64>().unwrap_or(0.0) * mult));
                }
                (
                    match cur.as_str() {
                        "$" => "usd",
                        "¥" => "jpy",
                        "€" => "eur",
                        _ => "gbp",
                    },
                    v,
                )
            }
            (_, _, Some(a), Some(u)) => {
                let cur = match u.as_str().to_lowercase().as_str() {
                    "円" | "yen" => "jpy",
                    _ => "usd",
                };
                (cur, num(a.as_str()))
            }
            _ => continue,
        };
        add(ValueKind::Money, format!("{cur}{amount}"), m.0, m.1, &mut out);
    }
    // English dates, month first then day first: (pattern, the month's group, the day's).
    for (r, month_at, day_at) in [(&*DATE_EN, 1, 2), (&*DATE_EN_DAY_FIRST, 2, 1)] {
        for c in r.captures_iter(text) {
            let m = c.get(0).map(|m| (m.start(), m.end())).unwrap_or_default();
            let mon = c[month_at].to_lowercase();
            let Some(mi) = MONTHS.iter().position(|x| mon.starts_with(x)) else {
                continue;
            };
            let day: u32 = c[day_at].parse().unwrap_or(0);
            if (1..=31).contains(&day) {
                add(ValueKind::Date, format!("{:02}-{day:02}", mi + 1), m.0, m.1, &mut out);
            }
        }
    }
    for r in [&*DATE_JA, &*DATE_ISO, &*DATE_SLASH] {
        for c in r.captures_iter(text) {
            let m = c.get(0).map(|m| (m.start(), m.end())).unwrap_or_default();
            let (mo, d): (u32, u32) = (c[1].parse().unwrap_or(0), c[2].parse().unwrap_or(0));
            if (1..=12).contains(&mo) && (1..=31).contains(&d) {
                add(ValueKind::Date, format!("{mo:02}-{d:02}"), m.0, m.1, &mut out);
            }
        }
    }
    for c in PERCENT.captures_iter(text) {
        let m = c.get(0).map(|m| (m.start(), m.end())).unwrap_or_default();
        add(ValueKind::Percent, format!("{}%", num(&c[1])), m.0, m.1, &mut out);
    }
    for c in DURATION.captures_iter(text) {
        let m = c.get(0).map(|m| (m.start(), m.end())).unwrap_or_default();
        add(
            ValueKind::Duration,
            format!("{} {}", num(&c[1]), unit(&c[2])),
            m.0,
            m.1,
            &mut out,
        );
    }
    for m in NUMBER.find_iter(text) {
        add(ValueKind::Number, num(m.as_str()), m.start(), m.end(), &mut out);
    }
    out.sort_by_key(|v| v.start);
    out
}

/// The index terms of the values `text` states (`Value::term`), and of each day of a period it
/// states ("closed from December 27 to January 4" holds 12-29 too): a question about a day
/// inside a period is about that period.
pub fn terms(text: &str) -> Vec<String> {
    terms_of(text, &extract(text))
}

/// `terms`, and the value terms among `asked` (a question's) that a bound of `text` takes in
/// (`bounded_of`), from one reading of its values.
pub fn terms_for(text: &str, asked: &[String]) -> Vec<String> {
    let values = extract(text);
    let mut out = terms_of(text, &values);
    out.extend(bounded_of(text, &values, asked));
    out
}

/// `terms` with the values of `text` extracted.
fn terms_of(text: &str, values: &[Value]) -> Vec<String> {
    let mut out: Vec<String> = values.iter().map(Value::term).collect();
    // A period within one month writes its month once: "Dec 30–31", 「12月30日〜31日」. Its
    // last day is a bare number (or a count of days, to the reader of 「31日」).
    for pair in values.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let last_day = match b.kind {
            ValueKind::Number => b.canonical.parse::<u32>().ok(),
            ValueKind::Duration if text[b.start..b.end].ends_with('日') => {
                b.canonical.strip_suffix(" day").and_then(|n| n.parse::<u32>().ok())
            }
            _ => None,
        };
        let (Some(last), ValueKind::Date) = (last_day, a.kind) else {
            continue;
        };
        let Some((month, first)) = a.canonical.split_once('-') else {
            continue;
        };
        let Ok(first) = first.parse::<u32>() else {
            continue;
        };
        if last <= first || last > 31 || !text.get(a.end..b.start).is_some_and(|gap| RANGE_JOIN.is_match(gap)) {
            continue;
        }
        for day in first + 1..=last {
            out.push(
                Value {
                    kind: ValueKind::Date,
                    canonical: format!("{month}-{day:02}"),
                    start: a.start,
                    end: b.end,
                }
                .term(),
            );
        }
    }
    let dates: Vec<&Value> = values.iter().filter(|v| v.kind == ValueKind::Date).collect();
    for pair in dates.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if !text.get(a.end..b.start).is_some_and(|gap| RANGE_JOIN.is_match(gap)) {
            continue;
        }
        let day = |v: &Value| {
            let (m, d) = v.canonical.split_once('-')?;
            // A leap year, so that Feb 29 is a day.
            chrono::NaiveDate::from_ymd_opt(2024, m.parse().ok()?, d.parse().ok()?)
        };
        let (Some(from), Some(mut to)) = (day(a), day(b)) else {
            continue;
        };
        if to < from {
            // Across the new year.
            to = to.with_year(2025).unwrap_or(to);
        }
        let span = (to - from).num_days();
        if !(2..=RANGE_DAYS_MAX).contains(&span) {
            continue;
        }
        for d in 1..span {
            let inside = from + chrono::Duration::days(d);
            let v = Value {
                kind: ValueKind::Date,
                canonical: inside.format("%m-%d").to_string(),
                start: a.start,
                end: b.end,
            };
            out.push(v.term());
        }
    }
    out
}

/// The canonical values of `text` as a set of tokens (`money:usd45`, `date:12-01`, ...), for
/// comparing two texts' facts. Plain one-digit numbers are left out: they are noise.
pub fn fact_set(text: &str) -> std::collections::BTreeSet<String> {
    extract(text)
        .into_iter()
        .filter(|v| v.kind != ValueKind::Number || v.canonical.len() >= 2)
        .map(|v| format!("{:?}:{}", v.kind, v.canonical))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_holiday_on_a_fixed_day_is_that_date_in_either_language() {
        let dates = |t: &str| -> Vec<String> { super::extract(t).into_iter().map(|v| v.canonical).collect() };
        assert_eq!(dates("Who is on call on New Year's Day?"), ["01-01"]);
        assert_eq!(dates("who is on call on new year’s eve"), ["12-31"]);
        assert_eq!(dates("元日のサポート当番は誰？"), ["01-01"]);
        assert_eq!(dates("大晦日と元旦は休みです"), ["12-31", "01-01"]);
        assert_eq!(dates("Closed on Christmas Day and Dec 26."), ["12-25", "12-26"]);
        // A season, a holiday whose day moves, or a name inside another word is no date.
        assert!(dates("Plans for the new year and Christmas season").is_empty());
        assert!(dates("Thanksgiving week").is_empty());
        assert!(dates("Halloweenish").is_empty());
        // As a question's keywords write it.
        assert_eq!(dates("covering support new year day"), ["01-01"]);
        assert_eq!(dates("New Years Day"), ["01-01"]);
    }

    #[test]
    fn a_bound_takes_in_the_quantities_it_covers_of_its_own_kind_and_unit() {
        let asked =
            |v: &[&str]| -> Vec<String> { v.iter().flat_map(|t| super::extract(t)).map(|v| v.term()).collect() };
        let q = asked(&["25%"]);
        assert_eq!(
            super::bounded_terms("Discounts above 20% need approval from the CFO.", &q),
            q
        );
        assert!(super::bounded_terms("Up to 20%: sales lead.", &q).is_empty());
        // A bare number or another kind is not bounded by it.
        assert!(super::bounded_terms("Discounts above 20 seats.", &q).is_empty());
        assert!(super::bounded_terms("Discounts of 20% apply.", &q).is_empty());
        assert!(super::bounded_terms("above $20", &q).is_empty());
        // The bound's own value counts only where the bound takes it in.
        let twenty = asked(&["20%"]);
        assert!(super::bounded_terms("above 20%", &twenty).is_empty());
        assert_eq!(super::bounded_terms("at least 20%", &twenty), twenty);
        // Japanese writes the bound after the number; units must agree.
        let days = asked(&["3日"]);
        assert_eq!(super::bounded_terms("申請は5日以内に提出してください。", &days), days);
        assert!(super::bounded_terms("申請は5時間以内に提出してください。", &days).is_empty());
        let yen = asked(&["$150"]);
        assert_eq!(super::bounded_terms("Orders over $100 ship free.", &yen), yen);
        assert!(super::bounded_terms("Orders over ¥100 ship free.", &yen).is_empty());
        assert_eq!(
            super::bounded_terms("Refunds within 30 days of purchase.", &asked(&["10 days"])),
            asked(&["10 days"])
        );
        assert_eq!(super::bounded_terms("a minimum of 10% off", &q), q);
        // "over" inside a word is no bound.
        assert!(super::bounded_terms("The rollover 20% rule", &q).is_empty());
    }

    use super::*;

    #[test]
    fn times_of_day() {
        // Written for this test.
        for t in [
            "Backups run nightly at 02:00 UTC.",
            "Standup is at 9:30.",
            "Doors open at 5 pm.",
            "会議は17時からです。",
            "10時開始",
        ] {
            assert!(states_time_of_day(t), "{t}");
        }
        for t in [
            "The build took 17時間.",
            "Version 1.2 ships on May 3.",
            "Ratio 3:1 is fine.",
            "We need 25:00 slots.",
        ] {
            assert!(!states_time_of_day(t), "{t}");
        }
    }

    #[test]
    fn a_value_is_spelled_as_either_language_writes_it_and_reads_back_the_same() {
        let one = |t: &str| extract(t).into_iter().find(Value::is_specific).expect("a value");
        for (text, en, ja) in [
            ("Dec 15", "Dec 15", "12月15日"),
            ("12月15日", "Dec 15", "12月15日"),
            ("$1.64M", "$1640000", "$1640000"),
            ("3000円", "¥3000", "3000円"),
            ("2.3 %", "2.3%", "2.3%"),
            ("90日間", "90 days", "90日"),
            ("1 hour", "1 hour", "1時間"),
        ] {
            let v = one(text);
            assert_eq!(v.spelled(false).as_deref(), Some(en), "{text}");
            assert_eq!(v.spelled(true).as_deref(), Some(ja), "{text}");
            for spelled in [en, ja] {
                assert_eq!(one(spelled).term(), v.term(), "{text} as {spelled}");
            }
        }
        assert_eq!(one_number("about 12").spelled(true), None);
    }

    #[test]
    fn a_day_may_come_first_and_a_period_holds_each_of_its_days() {
        let dates = |t: &str| -> Vec<String> {
            extract(t)
                .into_iter()
                .filter(|v| v.kind == ValueKind::Date)
                .map(|v| v.canonical)
                .collect()
        };
        assert_eq!(dates("on the 29th of December"), ["12-29"]);
        assert_eq!(dates("29 Dec and 3rd of March"), ["12-29", "03-03"]);
        assert_eq!(dates("December 29"), ["12-29"], "month first, as before");
        let day = |m: &str, d: &str| format!("{VALUE_TERM_MARK}Date:{m}-{d}");
        let t = terms("The company is closed from December 27 to January 4.");
        for inside in [
            day("12", "27"),
            day("12", "29"),
            day("12", "31"),
            day("01", "02"),
            day("01", "04"),
        ] {
            assert!(t.contains(&inside), "{inside:?} in {t:?}");
        }
        assert!(!t.contains(&day("01", "05")), "{t:?}");
        let t = terms("年末年始休業：12月27日〜1月4日");
        assert!(t.contains(&day("12", "30")), "{t:?}");
        // Two dates that are no period, or a period longer than two months, add no days.
        assert!(!terms("Kickoff Dec 1, review Dec 20.").contains(&day("12", "10")));
        assert!(!terms("from March 1 to September 30").contains(&day("06", "01")));
        // A period within one month, its month written once.
        for (t, inside, after) in [
            ("Dec 30–31: Yuki", day("12", "31"), day("01", "01")),
            ("March 3-5 offsite", day("03", "04"), day("03", "06")),
            ("12月30日〜31日は休み", day("12", "31"), day("01", "01")),
        ] {
            let found = terms(t);
            assert!(found.contains(&inside) && !found.contains(&after), "{t}: {found:?}");
        }
        // A number after a date that is no day of its month adds nothing.
        assert!(!terms("Dec 3 - 40 attendees").iter().any(|x| x.contains("12-04")));
    }

    fn one_number(t: &str) -> Value {
        extract(t).into_iter().next().expect("a number")
    }

    fn canon(t: &str) -> Vec<String> {
        extract(t)
            .into_iter()
            .map(|v| format!("{:?}:{}", v.kind, v.canonical))
            .collect()
    }

    #[test]
    fn dates_next_to_japanese_text_are_found() {
        // Word boundaries are ASCII: a kanji after a date is not part of a word with it.
        assert_eq!(canon("2026-12-01に公開"), ["Date:12-01"]);
        assert_eq!(canon("締切は12/5です"), ["Date:12-05"]);
        assert_eq!(canon("Dec 5日"), ["Date:12-05"]);
    }

    #[test]
    fn both_languages_normalise_alike() {
        assert_eq!(canon("Pro is $45 per seat"), ["Money:usd45"]);
        assert_eq!(canon("月額6,800円"), ["Money:jpy6800"]);
        assert_eq!(canon("rotate every 90 days"), ["Duration:90 day"]);
        assert_eq!(canon("180日ごとに変更"), ["Duration:180 day"]);
        assert_eq!(
            canon("within 15 minutes, 24/7"),
            ["Duration:15 minute", "Number:24", "Number:7"]
        );
        assert_eq!(canon("moves on December 1."), ["Date:12-01"]);
        assert_eq!(canon("12月1日に移転"), ["Date:12-01"]);
        assert_eq!(canon("release 12/5"), ["Date:12-05"]);
        assert_eq!(canon("win rate 22%"), ["Percent:22%"]);
        assert_eq!(canon("closed $1.2M"), ["Money:usd1200000"]);
    }

    #[test]
    fn translations_share_their_facts() {
        let en = fact_set(
            "Office move: the Tokyo team moves to the new Shibuya office on December 1. The new address is Shibuya Scramble Square 21F.",
        );
        let ja =
            fact_set("東京チームは12月1日に渋谷の新オフィスへ移転します。新住所は渋谷スクランブルスクエア21階です。");
        assert_eq!(en, ja);
    }
}
