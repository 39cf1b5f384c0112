//! Keeping secrets in: every text that leaves sagasu from a source (error notes, `check`
//! details, what an upstream said about itself) passes through a `Redactor` that replaces the
//! configured secret values and anything that looks like a credential.

use std::sync::LazyLock;

/// What stands where a secret was.
pub const REDACTED: &str = "[redacted]";
/// Secret values shorter than this are not searched for (a two-letter value would blank out
/// ordinary words); such a value is no real secret anyway.
const MIN_SECRET_CHARS: usize = 4;

/// Replaces known secret values and credential-looking strings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Redactor {
    secrets: Vec<String>,
}

/// Credentials by their look: a bearer or basic authorization value, a token-like assignment,
/// and the token shapes of the services sagasu talks to (Slack `xox?-`, Notion `secret_`/`ntn_`,
/// GitHub `ghp_`/`github_pat_`, OpenAI-style `sk-`).
static LOOKS_SECRET: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(
        r#"(?i)(?P<lead>\b(?:bearer|basic|token)\s+)[^\s"',;]{6,}|(?P<key>\b(?:access[_-]?token|api[_-]?key|apikey|auth[_-]?token|password|passwd|secret|token|x-auth-token|x-user-id)\b["']?\s*[:=]\s*["']?)[^\s"',;&]{4,}|\b(?:xox[abposr]-[A-Za-z0-9-]{8,}|secret_[A-Za-z0-9]{16,}|ntn_[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,}|sk-[A-Za-z0-9_-]{16,})"#,
    )
    .expect("the credential pattern is valid")
});

impl Redactor {
    /// A redactor of `secrets` (values shorter than `MIN_SECRET_CHARS` are ignored).
    pub fn new(secrets: impl IntoIterator<Item = String>) -> Redactor {
        let mut secrets: Vec<String> = secrets
            .into_iter()
            .map(|s| s.trim().to_string())
            .filter(|s| s.chars().count() >= MIN_SECRET_CHARS)
            .collect();
        // Longest first, so a secret that contains another is replaced whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        Redactor { secrets }
    }

    /// `text` with every secret value and credential-looking string replaced by `[redacted]`.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for s in &self.secrets {
            if out.contains(s.as_str()) {
                out = out.replace(s.as_str(), REDACTED);
            }
        }
        LOOKS_SECRET
            .replace_all(&out, |c: &regex::Captures| {
                let lead = c.name("lead").or_else(|| c.name("key")).map_or("", |m| m.as_str());
                format!("{lead}{REDACTED}")
            })
            .into_owned()
    }
}

/// The secrets of every source this process has connected to: logs (which libraries write,
/// quoting what a server said) pass through it.
static KNOWN: LazyLock<std::sync::RwLock<Redactor>> = LazyLock::new(Default::default);

/// Adds `r`'s secrets to those hidden from logs.
pub fn remember(r: &Redactor) {
    if r.secrets.is_empty() {
        return;
    }
    if let Ok(mut known) = KNOWN.write() {
        let all = known.secrets.iter().chain(&r.secrets).cloned().collect::<Vec<_>>();
        *known = Redactor::new(all);
    }
}

/// `text` with every remembered secret and credential-looking string hidden.
pub fn redact_known(text: &str) -> String {
    match KNOWN.read() {
        Ok(k) => k.redact(text),
        Err(_) => Redactor::default().redact(text),
    }
}

/// Standard error for logs, with secrets hidden (`tracing_subscriber`'s writer: one formatted
/// event per write).
pub struct RedactingStderr;

impl std::io::Write for RedactingStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        std::io::stderr().write_all(redact_known(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configured_secrets_and_bearer_values_never_pass() {
        let r = Redactor::new(["NOTIONSECRET222".to_string(), "ab".to_string()]);
        let body = r#"401 Unauthorized: {"message":"invalid token Bearer NOTIONSECRET222","hint":"Authorization: Bearer abcdefgh123"}"#;
        let shown = r.redact(body);
        assert!(
            !shown.contains("NOTIONSECRET222") && !shown.contains("abcdefgh123"),
            "{shown}"
        );
        assert!(shown.contains("401 Unauthorized"), "{shown}");
        // Too short to be searched for: ordinary words survive.
        assert!(r.redact("about abc").contains("about"));
        for leak in [
            "token=0123456789abcdef",
            "X-Auth-Token: zzzzyyyyxxxx",
            "use xoxb-1234-5678-abcdefgh",
            "key sk-proj-abcdefghijklmnop1234",
            "\"password\": \"hunter22\"",
        ] {
            let shown = r.redact(leak);
            assert!(shown.contains(REDACTED), "{leak} -> {shown}");
        }
        assert_eq!(
            r.redact("the search timed out after 10 s"),
            "the search timed out after 10 s"
        );
    }
}
