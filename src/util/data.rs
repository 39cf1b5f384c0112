//! Where sagasu's installed language resources live (its data directory), found by one rule:
//! `$SAGASU_DATA` when set and not empty, else `$XDG_DATA_HOME/sagasu`, else
//! `$HOME/.local/share/sagasu`. `scripts/install-language-data` installs into the same place;
//! nothing there is ever fetched at run time.

use std::path::PathBuf;

/// The data directory, or `None` when neither `SAGASU_DATA` nor `HOME` says where it is.
pub fn dir() -> Option<PathBuf> {
    dir_from(|k| std::env::var_os(k))
}

/// The rule of [`dir`] over any environment (for tests).
pub fn dir_from(env: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let set = |k: &str| env(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    set("SAGASU_DATA")
        .or_else(|| set("XDG_DATA_HOME").map(|d| d.join("sagasu")))
        .or_else(|| set("HOME").map(|h| h.join(".local/share/sagasu")))
}

/// How to install what is missing, for messages.
pub const INSTALL_HINT: &str = "scripts/install-language-data";

/// How a language resource is named in messages.
#[derive(Debug)]
pub struct Names {
    /// What it is for the reader ("English-Japanese dictionary").
    pub title: &'static str,
    /// Where it comes from ("JMdict").
    pub source: &'static str,
    /// What sagasu does without it.
    pub without: &'static str,
    /// Whether messages call it "them" (a set of files) rather than "it".
    pub plural: bool,
}

/// Whether a language resource of the data directory is loaded, and from where.
#[derive(Debug, Clone)]
pub enum State {
    /// Loaded; `what` says what it holds ("233321 Japanese forms, 176210 English glosses").
    Loaded {
        path: PathBuf,
        ms: u128,
        what: String,
    },
    Missing {
        path: Option<PathBuf>,
    },
    Broken {
        path: PathBuf,
        error: String,
    },
}

/// A resource's state with its names, for `sagasu check` and the once-said warning.
#[derive(Debug, Clone)]
pub struct Status {
    pub names: &'static Names,
    pub state: State,
}

impl Status {
    pub fn loaded(&self) -> bool {
        matches!(self.state, State::Loaded { .. })
    }

    /// One line for `sagasu check`.
    pub fn describe(&self) -> String {
        let n = self.names;
        let them = if n.plural { "them" } else { "it" };
        match &self.state {
            State::Loaded { path, ms, what } => {
                format!("{}: {} from {} ({what}, {ms} ms)", n.title, n.source, path.display())
            }
            State::Missing { path } => format!(
                "{}: not installed{}; {} (install {them} with {INSTALL_HINT})",
                n.title,
                path.as_ref()
                    .map(|p| format!(" at {}", p.display()))
                    .unwrap_or_default(),
                n.without
            ),
            State::Broken { path, error } => format!(
                "{}: {} is unusable ({error}); {} (reinstall {them} with {INSTALL_HINT})",
                n.title,
                path.display(),
                n.without
            ),
        }
    }
}

/// Loads the resource in the data directory's folder `sub` with `load`, when one of `files`
/// is there; `what` says what a loaded one holds. A resource that fails to load is warned of
/// once and reported `Broken`, never half used.
pub fn load_resource<T>(
    names: &'static Names,
    sub: &str,
    files: &[&str],
    load: impl FnOnce(&std::path::Path) -> Result<T, String>,
    what: impl FnOnce(&T) -> String,
) -> (Option<T>, Status) {
    let status = |state| Status { names, state };
    let Some(path) = dir().map(|d| d.join(sub)) else {
        return (None, status(State::Missing { path: None }));
    };
    if !files.iter().any(|f| path.join(f).exists()) {
        return (None, status(State::Missing { path: Some(path) }));
    }
    let started = std::time::Instant::now();
    match load(&path) {
        Ok(r) => {
            let what = what(&r);
            let ms = started.elapsed().as_millis();
            (Some(r), status(State::Loaded { path, ms, what }))
        }
        Err(error) => {
            let broken = status(State::Broken { path, error });
            tracing::warn!("{}", broken.describe());
            (None, broken)
        }
    }
}

/// Says once per process (`once`: the resource's own), as a warning, what sagasu does without
/// a resource that is not installed (the first `ask` calls it); a broken one was said as it
/// failed to load.
pub fn notice_once(once: &std::sync::Once, status: &Status) {
    once.call_once(|| {
        if matches!(status.state, State::Missing { .. }) {
            tracing::warn!("{}", status.describe());
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<std::ffi::OsString> + 'a {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.into())
    }

    #[test]
    fn sagasu_data_wins_then_xdg_then_home() {
        let all = [("SAGASU_DATA", "/d"), ("XDG_DATA_HOME", "/x"), ("HOME", "/h")];
        assert_eq!(dir_from(env(&all)), Some(PathBuf::from("/d")));
        assert_eq!(dir_from(env(&all[1..])), Some(PathBuf::from("/x/sagasu")));
        assert_eq!(dir_from(env(&all[2..])), Some(PathBuf::from("/h/.local/share/sagasu")));
        assert_eq!(dir_from(env(&[])), None);
    }

    #[test]
    fn an_empty_variable_counts_as_unset() {
        let pairs = [("SAGASU_DATA", ""), ("HOME", "/h")];
        assert_eq!(dir_from(env(&pairs)), Some(PathBuf::from("/h/.local/share/sagasu")));
    }
}
