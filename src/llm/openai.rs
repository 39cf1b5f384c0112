//! An OpenAI-compatible chat-completions endpoint (a hosted API, llama.cpp's server, vLLM,
//! Ollama), through `async-openai`. One request per call, no retries (the ask's deadline is
//! short); the key, when configured, goes in the Authorization header only.

use std::time::Duration;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::types::chat::{
    ChatCompletionRequestSystemMessageArgs, ChatCompletionRequestUserMessageArgs, CreateChatCompletionRequestArgs,
};

use super::{Completion, LanguageModel, LlmError, Prompt, Reply, clip};
use crate::config::llm::Endpoint;
use crate::util::redact::Redactor;

/// Characters of an endpoint's error message kept in a note.
const DETAIL_CHARS: usize = 160;

/// A configured endpoint.
pub struct OpenAiModel {
    client: Client<OpenAIConfig>,
    model: String,
    base_url: String,
    /// Hides the key in anything the endpoint says back.
    redactor: Redactor,
}

impl OpenAiModel {
    pub fn new(endpoint: &Endpoint) -> Result<OpenAiModel, LlmError> {
        let mut config = OpenAIConfig::new().with_api_base(endpoint.base_url.clone());
        // A local server needs no key; async-openai would otherwise send OPENAI_API_KEY from the
        // environment, which the configuration did not name.
        config = config.with_api_key(endpoint.api_key.clone().unwrap_or_default());
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .build()
            .map_err(|e| LlmError::Unreachable(e.to_string()))?;
        let redactor = Redactor::new(endpoint.api_key.clone());
        crate::util::redact::remember(&redactor);
        Ok(OpenAiModel {
            client: Client::with_config(config).with_http_client(http),
            model: endpoint.model.clone(),
            base_url: shown_url(&endpoint.base_url),
            redactor,
        })
    }

    async fn call(&self, prompt: Prompt) -> Result<Completion, LlmError> {
        let malformed = |e: OpenAIError| LlmError::Malformed(self.redactor.redact(&clip(&e.to_string(), DETAIL_CHARS)));
        let request = CreateChatCompletionRequestArgs::default()
            .model(self.model.clone())
            .messages([
                ChatCompletionRequestSystemMessageArgs::default()
                    .content(prompt.system)
                    .build()
                    .map_err(malformed)?
                    .into(),
                ChatCompletionRequestUserMessageArgs::default()
                    .content(prompt.user)
                    .build()
                    .map_err(malformed)?
                    .into(),
            ])
            .max_tokens(prompt.max_tokens)
            .temperature(prompt.temperature)
            .build()
            .map_err(malformed)?;
        let response = self.client.chat().create(request).await.map_err(|e| self.error(e))?;
        let text = response
            .choices
            .into_iter()
            .next()
            .and_then(|c| c.message.content)
            .unwrap_or_default();
        if text.trim().is_empty() {
            return Err(LlmError::Empty);
        }
        Ok(Completion {
            text,
            prompt_tokens: response.usage.as_ref().map(|u| u.prompt_tokens),
            completion_tokens: response.usage.as_ref().map(|u| u.completion_tokens),
        })
    }

    fn error(&self, e: OpenAIError) -> LlmError {
        let said = |s: &str| self.redactor.redact(&clip(s, DETAIL_CHARS));
        match e {
            OpenAIError::ApiError(api) => LlmError::Status {
                status: api.status_code.as_u16(),
                detail: Some(said(&api.api_error.message)).filter(|d| !d.is_empty()),
            },
            OpenAIError::Reqwest(e) => match e.status() {
                Some(status) => LlmError::Status {
                    status: status.as_u16(),
                    detail: None,
                },
                None => LlmError::Unreachable(said(&e.to_string())),
            },
            OpenAIError::JSONDeserialize(err, _) => LlmError::Malformed(said(&err.to_string())),
            other => LlmError::Malformed(said(&other.to_string())),
        }
    }
}

/// A base URL as answers and reports name it: without any user name or password written in it.
fn shown_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) if !u.username().is_empty() || u.password().is_some() => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.to_string().trim_end_matches('/').to_string()
        }
        _ => url.to_string(),
    }
}

impl LanguageModel for OpenAiModel {
    fn describe(&self) -> String {
        format!("{} at {}", self.model, self.base_url)
    }

    fn complete(&self, prompt: Prompt, timeout: Duration) -> Reply<'_> {
        Box::pin(async move {
            match tokio::time::timeout(timeout, self.call(prompt)).await {
                Ok(r) => r,
                Err(_) => Err(LlmError::Timeout(timeout)),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn credentials_in_a_base_url_are_never_shown() {
        assert_eq!(
            super::shown_url("https://bob:hunter22@llm.example.com/v1"),
            "https://llm.example.com/v1"
        );
        assert_eq!(super::shown_url("http://127.0.0.1:8080/v1"), "http://127.0.0.1:8080/v1");
    }
}
