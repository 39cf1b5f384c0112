//! Language models sagasu may use (the optional `llm:` of `sagasu.yaml`): an OpenAI-compatible
//! endpoint (`openai.rs`), or the MCP client's own model by sampling (`servers::serve`). Both are
//! a [`LanguageModel`]: one prompt in, one text out, under a deadline. What the text is used for,
//! and how it is checked, is the pipeline's business (`pipeline::synthesis`, `pipeline::rewrite`).

pub mod openai;

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

use serde::Serialize;

/// One call: a system prompt (how to behave, that evidence is data) and a user message (the
/// question and the delimited passages).
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub system: String,
    pub user: String,
    pub max_tokens: u32,
    pub temperature: f32,
}

/// What a model wrote, with what it cost.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Completion {
    pub text: String,
    pub prompt_tokens: Option<u32>,
    pub completion_tokens: Option<u32>,
}

/// Why a call gave no text. Messages never hold the API key: they are built from the status,
/// the endpoint's own words (redacted) or the kind of failure.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    #[error("the model did not answer within {0:?}")]
    Timeout(Duration),
    #[error("the model's endpoint refused the call: HTTP {status}{}", detail.as_ref().map(|d| format!(" ({d})")).unwrap_or_default())]
    Status { status: u16, detail: Option<String> },
    #[error("the model's endpoint could not be reached: {0}")]
    Unreachable(String),
    #[error("the model's reply could not be read: {0}")]
    Malformed(String),
    #[error("the model wrote nothing")]
    Empty,
    #[error("the MCP client declined to sample: {0}")]
    Declined(String),
}

/// The future a model's call returns.
pub type Reply<'a> = Pin<Box<dyn Future<Output = Result<Completion, LlmError>> + Send + 'a>>;

/// A model that completes one prompt.
pub trait LanguageModel: Send + Sync {
    /// How the model is named in answers and reports ("endpoint qwen2.5-3b", "MCP sampling").
    fn describe(&self) -> String;
    /// One completion of `prompt`, given up after `timeout`.
    fn complete(&self, prompt: Prompt, timeout: Duration) -> Reply<'_>;
}

/// `text` cut to `max` characters, for error details.
pub(crate) fn clip(text: &str, max: usize) -> String {
    let t = text.trim();
    if t.chars().count() <= max {
        t.to_string()
    } else {
        format!("{}…", t.chars().take(max).collect::<String>())
    }
}

/// Who wrote an answer's prose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Writer {
    /// sagasu's own sentences from the evidence.
    #[default]
    Extractive,
    /// The language model, its text checked against the passages it cites.
    Model,
}

/// How the model was used for one ask (an extension of the contract's answer object).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct ModelUse {
    /// The model, as configured ("qwen2.5-3b at http://127.0.0.1:8080/v1", "MCP sampling").
    pub model: String,
    /// Who wrote the answer's prose.
    pub answer: Writer,
    /// The model's keyword queries, sent to the keyword sources beside sagasu's own.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub queries: Vec<String>,
    /// Why the model's answer or queries were not used, or what else happened, in words.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Model calls made for this ask, their tokens and time.
    pub calls: u32,
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
    pub ms: u64,
}

impl ModelUse {
    pub fn new(model: &dyn LanguageModel) -> ModelUse {
        ModelUse {
            model: model.describe(),
            answer: Writer::Extractive,
            ..ModelUse::default()
        }
    }

    /// Counts one call and its result's tokens.
    pub fn count(&mut self, started: Instant, result: &Result<Completion, LlmError>) {
        self.calls += 1;
        self.ms += started.elapsed().as_millis() as u64;
        if let Ok(c) = result {
            self.prompt_tokens += c.prompt_tokens.unwrap_or(0);
            self.completion_tokens += c.completion_tokens.unwrap_or(0);
        }
    }
}
