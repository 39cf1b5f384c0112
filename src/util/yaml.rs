//! YAML with positions: every configuration, policy and golden file is read through here so
//! that each problem names the file, line and column, and all problems of a file are reported
//! in one run.
//!
//! serde_norway parses the document into a `Value`; yaml-rust2's marked events give a map from
//! each value's path (`sources.slack.command[0]`) to where it was written.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde_norway::Value;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

/// One problem at a place in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// The offending source line (an excerpt around the column), for the caret display.
    pub source_line: Option<String>,
    /// The caret's column within `source_line`.
    pub caret: usize,
}

impl Diagnostic {
    /// A problem with a whole file (it cannot be read, a folder is missing).
    pub fn about_file(file: &Path, message: String) -> Diagnostic {
        Diagnostic {
            file: file.to_path_buf(),
            line: 1,
            column: 1,
            message,
            source_line: None,
            caret: 1,
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file.display(),
            self.line,
            self.column,
            self.message
        )?;
        if let Some(src) = &self.source_line {
            let pad = " ".repeat(self.line.to_string().len());
            write!(
                f,
                "\n {pad} |\n {} | {src}\n {pad} | {}^",
                self.line,
                " ".repeat(self.caret.saturating_sub(1))
            )?;
        }
        Ok(())
    }
}

/// Every problem found in one run, in file order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        if self.0.len() > 1 {
            write!(f, "\n{} problems", self.0.len())?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

impl Diagnostics {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }
    pub fn extend(&mut self, other: Diagnostics) {
        self.0.extend(other.0);
    }
    /// `Ok(value)` when nothing was reported.
    pub fn into_result<T>(mut self, value: T) -> Result<T, Diagnostics> {
        if self.0.is_empty() {
            Ok(value)
        } else {
            self.0
                .sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
            Err(self)
        }
    }
}

/// A parsed YAML document and where each of its values was written.
#[derive(Debug, Clone)]
pub struct Document {
    pub file: PathBuf,
    pub text: String,
    pub value: Value,
    /// path -> (line, column) of the key (for mapping entries) or of the item.
    keys: HashMap<String, (usize, usize)>,
    /// path -> (line, column) of the value.
    values: HashMap<String, (usize, usize)>,
}

#[derive(Debug)]
enum Frame {
    Map { path: String, key: Option<String> },
    Seq { path: String, idx: usize },
}

#[derive(Default)]
struct SpanCollector {
    stack: Vec<Frame>,
    keys: HashMap<String, (usize, usize)>,
    values: HashMap<String, (usize, usize)>,
}

fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

impl SpanCollector {
    /// Where the next value goes; `None` when the event is a mapping key.
    fn next_value_path(&mut self, ev: &Event, at: (usize, usize)) -> Option<String> {
        match self.stack.last_mut() {
            None => Some(String::new()),
            Some(Frame::Map { path, key }) => match key.take() {
                Some(k) => Some(join(path, &k)),
                None => {
                    if let Event::Scalar(s, ..) = ev {
                        let p = join(path, s);
                        self.keys.insert(p, at);
                        *key = Some(s.clone());
                    }
                    None
                }
            },
            Some(Frame::Seq { path, idx }) => {
                let p = format!("{path}[{idx}]");
                *idx += 1;
                self.keys.insert(p.clone(), at);
                Some(p)
            }
        }
    }
}

impl MarkedEventReceiver for SpanCollector {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        let at = (mark.line(), mark.col() + 1);
        match &ev {
            Event::Scalar(..) | Event::Alias(..) => {
                if let Some(p) = self.next_value_path(&ev, at) {
                    self.values.insert(p, at);
                }
            }
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                let p = self.next_value_path(&ev, at).unwrap_or_default();
                self.values.insert(p.clone(), at);
                self.stack.push(match ev {
                    Event::MappingStart(..) => Frame::Map { path: p, key: None },
                    _ => Frame::Seq { path: p, idx: 0 },
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                self.stack.pop();
            }
            _ => {}
        }
    }
}

impl Document {
    /// Reads and parses a file.
    pub fn load(path: &Path) -> Result<Document, Diagnostics> {
        let text = crate::util::fs::read_regular(path, crate::util::fs::MAX_CONFIG_BYTES)
            .map_err(|e| Diagnostics(vec![Diagnostic::about_file(path, format!("cannot read the file: {e}"))]))?;
        Document::parse(path, text)
    }

    /// Parses YAML text that came from `file`.
    pub fn parse(file: &Path, text: String) -> Result<Document, Diagnostics> {
        // The parser's own recursion limit comes only after a scan whose cost grows with the
        // square of the nesting (400 KB of `[` took over a minute): refuse deep nesting first.
        if let Some((line, column)) = too_deep(&text) {
            return Err(Diagnostics(vec![make(
                file,
                &text,
                line,
                column,
                format!("invalid YAML: nested more than {MAX_NESTING} levels deep"),
            )]));
        }
        let value: Value = match serde_norway::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                let (line, column) = e.location().map(|l| (l.line(), l.column())).unwrap_or((1, 1));
                let msg = e.to_string();
                // serde_norway appends " at line X column Y"; the position is shown separately.
                let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
                return Err(Diagnostics(vec![make(
                    file,
                    &text,
                    line,
                    column,
                    format!("invalid YAML: {msg}"),
                )]));
            }
        };
        let mut spans = SpanCollector::default();
        // serde_norway accepted it; yaml-rust2 only adds positions, so its failure loses nothing
        // but precision.
        let _ = Parser::new_from_str(&text).load(&mut spans, false);
        Ok(Document {
            file: file.to_path_buf(),
            text,
            value,
            keys: spans.keys,
            values: spans.values,
        })
    }

    fn lookup(&self, path: &str, key: bool) -> (usize, usize) {
        let mut p = path.to_string();
        loop {
            let found = if key {
                self.keys.get(&p).or_else(|| self.values.get(&p))
            } else {
                self.values.get(&p).or_else(|| self.keys.get(&p))
            };
            if let Some(&at) = found {
                return at;
            }
            match p.rfind(['.', '[']) {
                Some(i) => p.truncate(i),
                None => return self.values.get("").copied().unwrap_or((1, 1)),
            }
        }
    }

    /// A problem with the value at `path`.
    pub fn error_at(&self, path: &str, message: impl Into<String>) -> Diagnostic {
        let (line, column) = self.lookup(path, false);
        make(&self.file, &self.text, line, column, message.into())
    }

    /// A problem with the key at `path` (an unknown key, say).
    pub fn error_at_key(&self, path: &str, message: impl Into<String>) -> Diagnostic {
        let (line, column) = self.lookup(path, true);
        make(&self.file, &self.text, line, column, message.into())
    }

    /// The value at `path` (dotted keys), if present.
    pub fn get(&self, path: &str) -> Option<&Value> {
        let mut v = &self.value;
        for k in path.split('.').filter(|k| !k.is_empty()) {
            v = v.get(k)?;
        }
        Some(v)
    }

    /// The path of a scalar equal to `s` under `path` (the first in file order).
    fn find_scalar(&self, path: &str, s: &str) -> Option<String> {
        let mut found: Vec<(&(usize, usize), &String)> = self
            .values
            .iter()
            .filter(|(p, _)| p.starts_with(path))
            .filter(|(p, _)| self.get_path(p).and_then(Value::as_str) == Some(s))
            .map(|(p, at)| (at, p))
            .collect();
        found.sort();
        found.first().map(|(_, p)| p.to_string())
    }

    /// The value at a dotted path with `[i]` indexes.
    fn get_path(&self, path: &str) -> Option<&Value> {
        let mut v = &self.value;
        for part in path.split('.').filter(|k| !k.is_empty()) {
            let (key, idx) = match part.find('[') {
                Some(i) => (&part[..i], Some(&part[i..])),
                None => (part, None),
            };
            if !key.is_empty() {
                v = v.get(key)?;
            }
            if let Some(idx) = idx {
                for n in idx.split(['[', ']']).filter(|x| !x.is_empty()) {
                    v = v.get(n.parse::<usize>().ok()?)?;
                }
            }
        }
        Some(v)
    }

    /// Deserializes the value at `path` into `T`, pointing an error at the offending key or
    /// value (serde names unknown and missing fields; those are found under `path`).
    pub fn deserialize<T: DeserializeOwned>(&self, path: &str, value: &Value) -> Result<T, Diagnostic> {
        if path.is_empty() {
            // The whole document: parsing the text keeps serde's own position and field path.
            return serde_norway::from_str(&self.text).map_err(|e| {
                let (line, column) = e.location().map(|l| (l.line(), l.column())).unwrap_or((1, 1));
                let msg = e.to_string();
                let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
                make(&self.file, &self.text, line, column, msg)
            });
        }
        serde_norway::from_value(value.clone()).map_err(|e| {
            let msg = e.to_string();
            if let Some(bad) = quoted_after(&msg, "unknown variant `")
                && let Some(p) = self.find_scalar(path, &bad)
            {
                return self.error_at(&p, msg);
            }
            let field = field_in_message(&msg);
            match field {
                Some((f, true)) => self.error_at_key(&join(path, &f), msg),
                Some((f, false)) => self.error_at(&join(path, &f), msg),
                None => self.error_at(path, msg),
            }
        })
    }
}

fn quoted_after(msg: &str, prefix: &str) -> Option<String> {
    let i = msg.find(prefix)?;
    let rest = &msg[i + prefix.len()..];
    rest.find('`').map(|j| rest[..j].to_string())
}

/// Finds the field a serde message is about: (`name`, is_unknown_key).
fn field_in_message(msg: &str) -> Option<(String, bool)> {
    let grab = |prefix: &str| {
        msg.find(prefix).and_then(|i| {
            let rest = &msg[i + prefix.len()..];
            rest.find('`').map(|j| rest[..j].to_string())
        })
    };
    if let Some(f) = grab("unknown field `") {
        return Some((f, true));
    }
    if msg.contains("missing field `") {
        // A missing field is reported at the mapping that lacks it.
        return None;
    }
    // "sources.slack: invalid type ..." style prefixes name a nested path
    let head = msg.split(": ").next().unwrap_or("");
    if !head.contains(' ') && !head.is_empty() && head != msg {
        return Some((head.to_string(), false));
    }
    None
}

/// The deepest nesting of mappings and sequences accepted (sagasu's files need fewer than ten).
pub const MAX_NESTING: usize = 64;

/// Where `text` first nests deeper than `MAX_NESTING` (line and column, 1-based), if it does:
/// flow brackets outside quotes and comments, plus block levels by indentation and `- `
/// markers. A linear scan that may count a level too many, never one too few.
pub fn too_deep(text: &str) -> Option<(usize, usize)> {
    let mut flow = 0usize;
    let mut indents: Vec<usize> = Vec::new();
    for (li, line) in text.lines().enumerate() {
        let body = line.trim_start_matches(' ');
        let indent = line.len() - body.len();
        let mut block = 0;
        if flow == 0 && !body.is_empty() && !body.starts_with('#') {
            while indents.last().is_some_and(|&i| i >= indent) {
                indents.pop();
            }
            indents.push(indent);
            let dashes = body.split(' ').take_while(|w| *w == "-").count();
            block = indents.len() + dashes;
        }
        if block > MAX_NESTING {
            return Some((li + 1, indent + 1));
        }
        let mut quote: Option<char> = None;
        let mut prev = ' ';
        let mut escaped = false;
        for (ci, c) in line.chars().enumerate() {
            match quote {
                Some('"') if escaped => escaped = false,
                Some('"') if c == '\\' => escaped = true,
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None => match c {
                    '#' if prev.is_whitespace() => break,
                    '\'' | '"' if matches!(prev, ' ' | ':' | '-' | '[' | '{' | ',') => quote = Some(c),
                    '[' | '{' => {
                        flow += 1;
                        if block + flow > MAX_NESTING {
                            return Some((li + 1, ci + 1));
                        }
                    }
                    ']' | '}' => flow = flow.saturating_sub(1),
                    _ => {}
                },
            }
            prev = c;
        }
    }
    None
}

/// How much of a message that quotes a value is shown (a 50 MB value is not echoed back).
pub const MAX_MESSAGE_CHARS: usize = 240;
/// How many characters of the offending line are shown on each side of the caret.
const EXCERPT_CHARS: usize = 60;

/// A serde message in words a user knows: Rust type names and serde's internal ones become the
/// YAML they ask for.
pub fn plain_words(msg: &str) -> String {
    let mut out = msg.to_string();
    for (jargon, plain) in [
        (
            "expected a Value::Tagged enum",
            "expected a plain value (YAML `!tags` are not read here)",
        ),
        ("Value::Tagged", "a `!tagged` value"),
        ("expected u64", "expected a whole number"),
        ("expected u32", "expected a whole number"),
        ("expected usize", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected f32", "expected a number"),
        ("expected a sequence", "expected a list"),
        ("invalid type: sequence", "invalid type: a list"),
        ("invalid type: map", "invalid type: a mapping"),
        ("expected a map", "expected a mapping"),
    ] {
        out = out.replace(jargon, plain);
    }
    out
}

/// `s` cut to `MAX_MESSAGE_CHARS` characters, with `…` where it was cut.
pub fn short(s: &str) -> String {
    crate::util::truncate_chars(s, MAX_MESSAGE_CHARS)
}

/// The part of `line` around character `column` (1-based) and the caret's column in it: at
/// most `EXCERPT_CHARS` either side, `…` where it was cut.
fn excerpt(line: &str, column: usize) -> (String, usize) {
    let chars: Vec<char> = line.chars().collect();
    let at = column.saturating_sub(1).min(chars.len());
    let from = at.saturating_sub(EXCERPT_CHARS);
    let to = (at + EXCERPT_CHARS).min(chars.len());
    let mut out = String::new();
    let mut caret = at - from + 1;
    if from > 0 {
        out.push('…');
        caret += 1;
    }
    out.extend(&chars[from..to]);
    if to < chars.len() {
        out.push('…');
    }
    (out, caret)
}

fn make(file: &Path, text: &str, line: usize, column: usize, message: String) -> Diagnostic {
    let (source_line, column_in_excerpt) = match text.lines().nth(line.saturating_sub(1)) {
        Some(l) => {
            let (e, c) = excerpt(l, column);
            (Some(e), c)
        }
        None => (None, column),
    };
    Diagnostic {
        file: file.to_path_buf(),
        line,
        column,
        message: short(&plain_words(&message)),
        source_line,
        caret: column_in_excerpt,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Document {
        Document::parse(Path::new("t.yaml"), text.to_string()).unwrap()
    }

    #[test]
    fn paths_map_to_positions() {
        let d = doc("a: 1\nsources:\n  slack:\n    command: [x, y]\n    kind: slack\nlist:\n  - one\n  - two\n");
        assert_eq!(d.lookup("sources.slack.kind", true), (5, 5));
        assert_eq!(d.lookup("sources.slack.kind", false), (5, 11));
        assert_eq!(d.lookup("sources.slack.command[1]", false), (4, 18));
        assert_eq!(d.lookup("list[1]", false), (8, 5));
        // unknown paths fall back to the nearest known parent
        assert_eq!(d.lookup("sources.slack.nope", true), (3, 3));
    }

    #[test]
    fn syntax_errors_have_positions_and_a_caret() {
        let e = Document::parse(Path::new("p.yaml"), "a: [1, 2\nb: 3\n".into()).unwrap_err();
        let shown = e.to_string();
        assert!(shown.starts_with("p.yaml:"), "{shown}");
        assert!(shown.contains("invalid YAML"), "{shown}");
        assert!(shown.contains('^'), "{shown}");
    }

    #[test]
    fn deep_nesting_took_minutes_before_it_was_refused() {
        for deep in [
            format!("sources: {}", "[".repeat(400_000)),
            (0..200)
                .map(|i| format!("{}k{i}:\n", "  ".repeat(i)))
                .collect::<String>(),
            format!("a:\n{}x\n", "- ".repeat(100)),
        ] {
            let t = std::time::Instant::now();
            let e = Document::parse(Path::new("deep.yaml"), deep).unwrap_err().to_string();
            assert!(e.contains("nested more than 64"), "{e}");
            assert!(t.elapsed() < std::time::Duration::from_secs(2), "{:?}", t.elapsed());
        }
        // Brackets in quotes and comments, and ordinary files, are fine.
        let ok = format!(
            "q: \"{}\"\nr: '{}' # {}\ns: [[1], {{a: [2]}}]\n",
            "[".repeat(200),
            "{".repeat(200),
            "[".repeat(200)
        );
        assert!(Document::parse(Path::new("ok.yaml"), ok).is_ok());
        assert!(
            Document::parse(
                Path::new("ok.yaml"),
                "q: What's [the] price?\nlist:\n  - a\n  - - b\n".into()
            )
            .is_ok()
        );
    }

    #[test]
    fn unknown_fields_point_at_the_key() {
        #[derive(serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct S {
            kind: String,
        }
        let d = doc("s:\n  kind: a\n  knd: b\n");
        let v = d.get("s").unwrap().clone();
        let e = d.deserialize::<S>("s", &v).unwrap_err();
        assert_eq!((e.line, e.column), (3, 3));
        assert!(e.message.contains("unknown field `knd`"), "{}", e.message);
    }
}
