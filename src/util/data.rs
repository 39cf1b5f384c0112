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
