//! Offline source servers: MCP servers over the export formats of contracts section 2, speaking
//! the same tools and result shapes as the live servers they stand in for. They are a product
//! feature (search a Slack export or a Notion export with no account), not test doubles.
//!
//! Invariant: a malformed file is reported with its path (and line and column where JSON gives
//! them) and skipped; the rest is served. A missing folder is a startup error.

pub mod notion;
pub mod rocketchat;
pub mod slack;

use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

/// A problem with one file of an export; the file is skipped and the rest is served.
#[derive(Debug, Clone, PartialEq)]
pub struct DataWarning {
    pub path: PathBuf,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl fmt::Display for DataWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let (Some(l), Some(c)) = (self.line, self.column) {
            write!(f, ":{l}:{c}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Errors that stop an offline server from starting.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("data folder `{0}` does not exist")]
    MissingFolder(PathBuf),
    #[error("data folder `{0}` is not a folder")]
    NotAFolder(PathBuf),
    #[error("cannot read `{path}`: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("cannot build the search index: {0}")]
    Index(#[from] tantivy::TantivyError),
}

/// An export folder as the offline servers read it: entries listed in sorted order (so loading
/// order, and therefore ordinals, are stable), only regular files read, and nothing outside the
/// folder: a symbolic link is followed only when it points inside it (and a linked folder is
/// never entered, so a link cannot make a loop), unless `follow_links` allows links anywhere.
#[derive(Debug, Clone)]
pub struct Folder {
    /// The folder as given (for messages and joins).
    pub root: PathBuf,
    /// Its canonical path (for the inside check).
    canonical: PathBuf,
    pub follow_links: bool,
}

impl Folder {
    /// Opens `dir`; a missing folder, or a path that is not one, is an error.
    pub fn open(dir: &Path, follow_links: bool) -> Result<Folder, LoadError> {
        if !dir.exists() {
            return Err(LoadError::MissingFolder(dir.to_path_buf()));
        }
        if !dir.is_dir() {
            return Err(LoadError::NotAFolder(dir.to_path_buf()));
        }
        let canonical = dir.canonicalize().map_err(|e| LoadError::Io {
            path: dir.to_path_buf(),
            source: e,
        })?;
        Ok(Folder {
            root: dir.to_path_buf(),
            canonical,
            follow_links,
        })
    }

    pub fn join(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Why `path` (a link, or a file under a linked folder) may not be read, if it may not.
    fn outside(&self, path: &Path) -> Option<String> {
        if self.follow_links {
            return None;
        }
        match path.canonicalize() {
            Ok(real) if real.starts_with(&self.canonical) => None,
            Ok(_) => Some("skipped: it leads outside the data folder (pass --follow-links to allow links)".into()),
            Err(e) => Some(format!("skipped: {e}")),
        }
    }

    /// The sorted entries of `dir` (the root or a folder under it): regular files and folders,
    /// links resolved as the folder's rules say. What is left out is said in `warnings`.
    pub fn entries(&self, dir: &Path, warnings: &mut Vec<DataWarning>) -> Result<Vec<PathBuf>, LoadError> {
        // A folder named by the export itself (a channel's) may lead out through `..` or a link.
        if let Some(why) = self.outside(dir) {
            warnings.push(DataWarning::about(dir, why));
            return Ok(Vec::new());
        }
        let rd = std::fs::read_dir(dir).map_err(|e| LoadError::Io {
            path: dir.to_path_buf(),
            source: e,
        })?;
        let mut out: Vec<PathBuf> = Vec::new();
        for e in rd.flatten() {
            let path = e.path();
            let Ok(t) = e.file_type() else { continue };
            if t.is_symlink() {
                if let Some(why) = self.outside(&path) {
                    warnings.push(DataWarning::about(&path, why));
                    continue;
                }
                match std::fs::metadata(&path) {
                    Ok(m) if m.is_file() => out.push(path),
                    Ok(m) if m.is_dir() && self.follow_links => out.push(path),
                    Ok(m) if m.is_dir() => warnings.push(DataWarning::about(
                        &path,
                        "skipped: a link to a folder (pass --follow-links to enter linked folders)".into(),
                    )),
                    Ok(_) => warnings.push(DataWarning::about(&path, "skipped: not a regular file".into())),
                    Err(e) => warnings.push(DataWarning::about(&path, format!("skipped: {e}"))),
                }
            } else if t.is_file() || t.is_dir() {
                out.push(path);
            } else {
                warnings.push(DataWarning::about(
                    &path,
                    "skipped: not a regular file (a FIFO, socket or device)".into(),
                ));
            }
        }
        out.sort();
        Ok(out)
    }

    /// Reads a file of the export (a regular file inside the folder) as text.
    pub fn read(&self, path: &Path) -> Result<String, DataWarning> {
        if let Some(why) = self.outside(path) {
            return Err(DataWarning::about(path, why));
        }
        crate::util::fs::read_regular(path, crate::util::fs::MAX_DATA_BYTES)
            .map_err(|e| DataWarning::about(path, format!("cannot read: {e}")))
    }

    /// Reads and parses a JSON file of the export; a parse error becomes a warning with line and
    /// column.
    pub fn read_json<T: DeserializeOwned>(&self, path: &Path) -> Result<T, DataWarning> {
        let text = self.read(path)?;
        parse_json(path, &text)
    }
}

impl Folder {
    /// The items of a JSON array file (the array itself, or the one under `key`), each read on
    /// its own: a bad item is reported (with its index) and skipped, and the rest are kept, so
    /// one bad message never loses a whole day or room.
    pub fn read_items<T: DeserializeOwned>(
        &self,
        path: &Path,
        key: Option<&str>,
        warnings: &mut Vec<DataWarning>,
    ) -> Vec<T> {
        let value: serde_json::Value = match self.read_json(path) {
            Ok(v) => v,
            Err(w) => {
                warnings.push(w);
                return Vec::new();
            }
        };
        let array = match key {
            Some(k) => value.get(k).cloned(),
            None => Some(value),
        };
        let Some(serde_json::Value::Array(items)) = array else {
            let what = key.map_or("an array".to_string(), |k| format!("an array under `{k}`"));
            warnings.push(DataWarning::about(path, format!("skipped: expected {what}")));
            return Vec::new();
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            match serde_json::from_value::<T>(item) {
                Ok(t) => out.push(t),
                Err(e) => warnings.push(DataWarning::about(
                    path,
                    format!("item {i} skipped: {}", crate::util::yaml::short(&e.to_string())),
                )),
            }
        }
        out
    }
}

/// Parses JSON text read from `path`; a parse error becomes a warning with line and column.
pub(crate) fn parse_json<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, DataWarning> {
    serde_json::from_str(text).map_err(|e| DataWarning {
        path: path.to_path_buf(),
        line: Some(e.line()),
        column: Some(e.column()),
        message: format!("malformed JSON: {e}"),
    })
}

impl DataWarning {
    /// A warning about the whole of `path`.
    pub fn about(path: &Path, message: String) -> DataWarning {
        DataWarning {
            path: path.to_path_buf(),
            line: None,
            column: None,
            message,
        }
    }
}

/// Logs load warnings on stderr (stdout belongs to MCP in stdio mode).
pub fn log_warnings(source: &str, warnings: &[DataWarning]) {
    for w in warnings {
        tracing::warn!(source, "skipped: {w}");
    }
}
