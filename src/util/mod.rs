//! Small helpers below everything else: the data directory (`data`), safe file reading (`fs`), data parallelism (`par`),
//! secret redaction (`redact`), positioned YAML (`yaml`).

pub mod data;
pub mod fs;
pub mod hash;
pub mod par;
pub mod redact;
pub mod yaml;

/// Shortens `text` to about `max_chars` characters on a char boundary, adding `…` when cut.
pub fn truncate_chars(text: &str, max_chars: usize) -> String {
    let mut it = text.char_indices();
    match it.nth(max_chars) {
        None => text.to_string(),
        Some((i, _)) => format!("{}…", text[..i].trim_end()),
    }
}
