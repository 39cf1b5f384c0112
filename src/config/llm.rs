//! The optional `llm:` section of `sagasu.yaml`: a language model that rewrites the question's
//! queries, settles an intent the classifier is unsure of and writes the answer from the
//! passages sagasu chose, each use switchable, the model-free path always the fallback.
//!
//! ```yaml
//! llm:
//!   base_url: http://127.0.0.1:8080/v1   # any OpenAI-compatible endpoint
//!   model: qwen2.5-3b-instruct
//!   api_key_env: OPENAI_API_KEY          # the variable that holds the key (never the key)
//!   timeout_ms: 20000
//!   max_tokens: 600
//!   temperature: 0.2
//!   enabled: true                        # `--llm` / `--no-llm` override it per call
//!   uses: { rewrite: true, intent: true, synthesis: true }
//!   sampling: false                      # serve: may ask the MCP client's own model
//! ```

use std::time::Duration;

use serde::Deserialize;

use crate::util::yaml::{Diagnostics, Document};

/// The default deadline of one model call (the ask's own deadline bounds it too).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);
/// The default most tokens a model writes per call.
pub const DEFAULT_MAX_TOKENS: u32 = 600;
/// The default sampling temperature: low, the answer is read from the passages.
pub const DEFAULT_TEMPERATURE: f32 = 0.2;

/// The validated section.
#[derive(Clone, PartialEq)]
pub struct LlmConfig {
    /// The OpenAI-compatible endpoint, when one is configured (sampling needs none).
    pub endpoint: Option<Endpoint>,
    pub timeout: Duration,
    pub max_tokens: u32,
    pub temperature: f32,
    /// Whether asks use the model unless told otherwise.
    pub enabled: bool,
    pub uses: Uses,
    /// Whether `sagasu serve` may ask the connected client's own model (MCP sampling) when the
    /// client offers it.
    pub sampling: bool,
}

/// Where the model is.
#[derive(Clone, PartialEq)]
pub struct Endpoint {
    pub base_url: String,
    pub model: String,
    /// The key, read from the variable `api_key_env` names; never shown.
    pub api_key: Option<String>,
    /// The variable's name, for messages.
    pub api_key_env: Option<String>,
}

// The key never reaches a log, an error or `--explain` through a Debug print.
impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| crate::util::redact::REDACTED))
            .field("api_key_env", &self.api_key_env)
            .finish()
    }
}

impl std::fmt::Debug for LlmConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmConfig")
            .field("endpoint", &self.endpoint)
            .field("timeout", &self.timeout)
            .field("max_tokens", &self.max_tokens)
            .field("temperature", &self.temperature)
            .field("enabled", &self.enabled)
            .field("uses", &self.uses)
            .field("sampling", &self.sampling)
            .finish()
    }
}

/// Which of the model's uses are on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Uses {
    /// Keyword queries in both languages, synonyms and the answer's likely wording, sent to
    /// the sources beside sagasu's own.
    pub rewrite: bool,
    /// The intent, when the classifier is unsure.
    pub intent: bool,
    /// The answer, written from the passages the extractive answer chose, its citations checked.
    pub synthesis: bool,
}

impl Default for Uses {
    fn default() -> Uses {
        Uses {
            rewrite: true,
            intent: true,
            synthesis: true,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    base_url: Option<String>,
    model: Option<String>,
    api_key_env: Option<String>,
    timeout_ms: Option<u64>,
    max_tokens: Option<u32>,
    temperature: Option<f32>,
    enabled: Option<bool>,
    #[serde(default)]
    uses: Uses,
    #[serde(default)]
    sampling: bool,
}

/// Reads and checks the section at `at` of `doc`; `env` supplies the key's variable.
pub fn validate(
    doc: &Document,
    at: &str,
    value: &serde_norway::Value,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<LlmConfig, Diagnostics> {
    let mut problems = Diagnostics::default();
    let raw: Raw = match doc.deserialize(at, value) {
        Ok(r) => r,
        Err(d) => {
            problems.push(d);
            return Err(problems);
        }
    };
    let field = |name: &str| format!("{at}.{name}");
    let endpoint = match (raw.base_url, raw.model) {
        (Some(base_url), Some(model)) => {
            let base_url = base_url.trim().trim_end_matches('/').to_string();
            if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
                problems.push(doc.error_at(
                    &field("base_url"),
                    "`base_url` must start with http:// or https:// (an OpenAI-compatible API, e.g. http://127.0.0.1:8080/v1)",
                ));
            }
            if model.trim().is_empty() {
                problems.push(doc.error_at(&field("model"), "`model` is empty: name the model the endpoint serves"));
            }
            let api_key = match &raw.api_key_env {
                Some(var) if var.trim().is_empty() || var.contains(char::is_whitespace) => {
                    problems.push(doc.error_at(
                        &field("api_key_env"),
                        "`api_key_env` names the environment variable that holds the key (e.g. OPENAI_API_KEY), not the key",
                    ));
                    None
                }
                Some(var) => match env(var).filter(|v| !v.trim().is_empty()) {
                    Some(key) => Some(key.trim().to_string()),
                    None => {
                        problems.push(doc.error_at(
                            &field("api_key_env"),
                            format!("environment variable `{var}` (the model's API key) is not set"),
                        ));
                        None
                    }
                },
                None => None,
            };
            Some(Endpoint {
                base_url,
                model: model.trim().to_string(),
                api_key,
                api_key_env: raw.api_key_env,
            })
        }
        (None, None) => None,
        (Some(_), None) => {
            problems.push(doc.error_at(
                at,
                "`llm` has a `base_url` but no `model`: name the model the endpoint serves",
            ));
            None
        }
        (None, Some(_)) => {
            problems.push(doc.error_at(
                at,
                "`llm` has a `model` but no `base_url`: give the OpenAI-compatible endpoint's URL",
            ));
            None
        }
    };
    if endpoint.is_none() && !raw.sampling && problems.is_empty() {
        problems.push(doc.error_at(
            at,
            "`llm` needs a `base_url` and a `model`, or `sampling: true` (the MCP client's own model under `sagasu serve`)",
        ));
    }
    let timeout = match raw.timeout_ms {
        Some(0) => {
            problems.push(doc.error_at(&field("timeout_ms"), "`timeout_ms` must be above 0"));
            DEFAULT_TIMEOUT
        }
        Some(ms) => Duration::from_millis(ms.min(600_000)),
        None => DEFAULT_TIMEOUT,
    };
    let max_tokens = match raw.max_tokens {
        Some(n) if !(16..=32_000).contains(&n) => {
            problems.push(doc.error_at(&field("max_tokens"), "`max_tokens` must be between 16 and 32000"));
            DEFAULT_MAX_TOKENS
        }
        Some(n) => n,
        None => DEFAULT_MAX_TOKENS,
    };
    let temperature = match raw.temperature {
        Some(t) if !(0.0..=2.0).contains(&t) => {
            problems.push(doc.error_at(&field("temperature"), "`temperature` must be between 0 and 2"));
            DEFAULT_TEMPERATURE
        }
        Some(t) => t,
        None => DEFAULT_TEMPERATURE,
    };
    problems.into_result(LlmConfig {
        endpoint,
        timeout,
        max_tokens,
        temperature,
        enabled: raw.enabled.unwrap_or(true),
        uses: raw.uses,
        sampling: raw.sampling,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn read(text: &str, env: &[(&str, &str)]) -> Result<LlmConfig, String> {
        let doc = Document::parse(Path::new("sagasu.yaml"), text.to_string()).unwrap();
        let value = doc.get("llm").unwrap().clone();
        let env: Vec<(String, String)> = env.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        validate(&doc, "llm", &value, &move |k| {
            env.iter().find(|(a, _)| a == k).map(|(_, b)| b.clone())
        })
        .map_err(|d| d.to_string())
    }

    #[test]
    fn an_endpoint_reads_with_defaults_and_its_key_from_the_environment() {
        let c = read(
            "llm:\n  base_url: http://127.0.0.1:9/v1/\n  model: small\n  api_key_env: MY_KEY\n",
            &[("MY_KEY", "sk-test-key-123456")],
        )
        .unwrap();
        let e = c.endpoint.as_ref().unwrap();
        assert_eq!(e.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(e.api_key.as_deref(), Some("sk-test-key-123456"));
        assert_eq!(c.timeout, DEFAULT_TIMEOUT);
        assert!(c.enabled && c.uses.synthesis && !c.sampling);
        assert!(!format!("{c:?}").contains("sk-test-key"), "{c:?}");
    }

    #[test]
    fn every_problem_is_named_at_its_field() {
        let e = read(
            "llm:\n  base_url: ftp://x\n  model: m\n  api_key_env: NOT_SET\n  temperature: 9\n  timeout_ms: 0\n",
            &[],
        )
        .unwrap_err();
        assert!(e.contains("sagasu.yaml:2:13: `base_url` must start with"), "{e}");
        assert!(e.contains("`NOT_SET` (the model's API key) is not set"), "{e}");
        assert!(e.contains("`temperature` must be between 0 and 2"), "{e}");
        assert!(e.contains("`timeout_ms` must be above 0"), "{e}");
        let e = read("llm:\n  model: m\n", &[]).unwrap_err();
        assert!(e.contains("no `base_url`"), "{e}");
        let e = read("llm:\n  enabled: true\n", &[]).unwrap_err();
        assert!(e.contains("or `sampling: true`"), "{e}");
        let e = read("llm:\n  sampling: true\n  uses: { rewrit: true }\n", &[]).unwrap_err();
        assert!(e.contains("rewrit"), "{e}");
        let c = read("llm:\n  sampling: true\n  uses: { rewrite: false }\n", &[]).unwrap();
        assert!(c.endpoint.is_none() && !c.uses.rewrite && c.uses.synthesis);
    }
}
