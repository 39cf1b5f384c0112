//! The sorted `key <TAB> score:text ...` tables that `scripts/language_data.py` builds for a
//! dictionary (JMdict's two): checked once when read, looked up by binary search, so nothing is
//! built at start-up.

/// A table of lines `key <TAB> score:text <TAB> score:text ...`, sorted by key.
pub struct Table {
    text: String,
    /// Byte offset of each line's start.
    starts: Vec<u32>,
}

impl Table {
    /// Checks the table's shape once (every line has a key and sorted keys) and indexes it.
    pub fn new(text: String) -> Result<Table, String> {
        if text.len() > u32::MAX as usize {
            return Err("larger than 4 GiB".into());
        }
        let mut starts = Vec::with_capacity(text.len() / 40);
        let mut prev: &str = "";
        let mut at = 0usize;
        for (n, line) in text.split_inclusive('\n').enumerate() {
            let line_text = line.trim_end_matches('\n');
            if !line_text.is_empty() {
                let Some((key, rest)) = line_text.split_once('\t') else {
                    return Err(format!("line {}: no tab after the word", n + 1));
                };
                if key.is_empty() || key <= prev {
                    return Err(format!(
                        "line {}: `{key}` is out of order (the table must be sorted)",
                        n + 1
                    ));
                }
                if rest.split('\t').any(|c| parse_choice(c).is_none()) {
                    return Err(format!("line {}: a translation is not `score:text`", n + 1));
                }
                prev = key;
                starts.push(at as u32);
            }
            at += line.len();
        }
        Ok(Table { text, starts })
    }

    /// Reads and checks the table at `path` (at most `max` bytes); an error names the file.
    pub fn read(path: &std::path::Path, max: u64) -> Result<Table, String> {
        let text = crate::util::fs::read_regular(path, max).map_err(|e| format!("{}: {e}", path.display()))?;
        Table::new(text).map_err(|e| format!("{}: {e}", path.display()))
    }

    fn line(&self, i: usize) -> &str {
        let s = self.starts[i] as usize;
        let rest = &self.text[s..];
        rest.split('\n').next().unwrap_or("")
    }

    /// The translations listed for `key`, best first.
    pub fn get(&self, key: &str) -> Vec<(f64, &str)> {
        let found = self.starts.binary_search_by(|&s| {
            let line = &self.text[s as usize..];
            let k = line.split(['\t', '\n']).next().unwrap_or("");
            k.cmp(key)
        });
        match found {
            Ok(i) => self.line(i).split('\t').skip(1).filter_map(parse_choice).collect(),
            Err(_) => Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.starts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }
}

fn parse_choice(c: &str) -> Option<(f64, &str)> {
    let (score, text) = c.split_once(':')?;
    let score: f64 = score.parse().ok()?;
    ((0.0..=1.0).contains(&score) && !text.is_empty()).then_some((score, text))
}
