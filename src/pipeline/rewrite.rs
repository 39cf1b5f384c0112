//! Query rewriting by the language model (the optional `llm:` mode), before the fan-out: keyword
//! queries in both languages, synonyms and the answer's likely wording, which every keyword
//! source is sent beside sagasu's own queries (each a query of its own, in parallel); and, when
//! the intent classifier is unsure, the model's choice of intent. One call, a third of the ask's
//! deadline at most; whatever fails, sagasu's own queries and intent stand.

use std::time::{Duration, Instant};

use serde::Deserialize;

use crate::config::policy::Intent;
use crate::llm::{LanguageModel, ModelUse, Prompt};
use crate::pipeline::query::Analysis;

/// Below this probability of its top intent the classifier is unsure, and the model is asked.
pub const UNSURE_BELOW: f64 = 0.5;
/// Rewritten queries kept, at most.
pub const MAX_QUERIES: usize = 4;
/// Characters of one rewritten query, at most.
const QUERY_CHARS: usize = 120;
/// Tokens the rewriting call may write: a short JSON object.
const REWRITE_TOKENS: u32 = 300;

/// What the model said, as sagasu reads it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Rewrite {
    pub queries: Vec<String>,
    /// The model's intent, when it was asked for one and gave a valid one.
    pub intent: Option<Intent>,
}

#[derive(Deserialize)]
struct Raw {
    #[serde(default)]
    queries: Vec<serde_json::Value>,
    #[serde(default)]
    intent: Option<String>,
}

/// Whether the classifier is unsure of `analysis`'s intent (and no caller chose it).
pub fn unsure(analysis: &Analysis, forced: bool) -> bool {
    !forced && analysis.intent.score < UNSURE_BELOW
}

/// The user message: the question, and the intents to choose from when one is wanted.
pub fn prompt(system: &str, question: &str, want_intent: bool, temperature: f32) -> Prompt {
    let mut user = format!("Question: {}\n", question.replace(['<', '>'], " "));
    if want_intent {
        user.push_str(
            "Intents to choose from: decision (what was decided, and why), status (where something \
             stands now), document (where a document or page is), person (who owns, knows or did \
             something), factual (a fact: a price, limit, policy, number), temporal (when something \
             happened or will), exploratory (an overview of a topic).\n",
        );
    }
    Prompt {
        system: system.to_string(),
        user,
        max_tokens: REWRITE_TOKENS,
        temperature,
    }
}

/// Reads the model's reply: the first JSON object in it. Queries are cleaned (no control
/// characters, no search modifiers such as `in:` or `from:`, which stay sagasu's to set), cut,
/// deduplicated and capped; an intent not among the seven is ignored.
pub fn parse(reply: &str, want_intent: bool) -> Result<Rewrite, String> {
    let start = reply.find('{').ok_or("no JSON object in the reply")?;
    let end = reply
        .rfind('}')
        .filter(|e| *e > start)
        .ok_or("no JSON object in the reply")?;
    let raw: Raw =
        serde_json::from_str(&reply[start..=end]).map_err(|e| format!("the reply is not the JSON asked for: {e}"))?;
    let mut queries: Vec<String> = Vec::new();
    for q in raw.queries.iter().filter_map(serde_json::Value::as_str) {
        let clean: String = q
            .split_whitespace()
            .filter(|w| !w.contains(':'))
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .filter(|c| !c.is_control())
            .take(QUERY_CHARS)
            .collect();
        let clean = clean.trim().to_string();
        if !clean.is_empty() && !queries.iter().any(|x| x.eq_ignore_ascii_case(&clean)) {
            queries.push(clean);
        }
        if queries.len() == MAX_QUERIES {
            break;
        }
    }
    let intent = if want_intent {
        raw.intent
            .as_deref()
            .and_then(|i| i.trim().to_lowercase().parse::<Intent>().ok())
    } else {
        None
    };
    if queries.is_empty() && intent.is_none() {
        return Err("the reply has no query and no intent".into());
    }
    Ok(Rewrite { queries, intent })
}

/// Asks `model` for queries (when `rewrite`) and an intent (when `want_intent`), within
/// `timeout`; `None` with a note in `used` on any failure.
pub async fn rewrite(
    model: &dyn LanguageModel,
    system: &str,
    question: &str,
    want_intent: bool,
    temperature: f32,
    timeout: Duration,
    used: &mut ModelUse,
) -> Option<Rewrite> {
    if timeout < Duration::from_millis(200) {
        used.notes.push("no time to ask the model for queries".into());
        return None;
    }
    let started = Instant::now();
    let result = model
        .complete(prompt(system, question, want_intent, temperature), timeout)
        .await;
    used.count(started, &result);
    let reply = match result {
        Ok(c) => c.text,
        Err(e) => {
            used.notes.push(format!("{e}; sagasu's own queries are used"));
            return None;
        }
    };
    match parse(&reply, want_intent) {
        Ok(r) => Some(r),
        Err(why) => {
            used.notes.push(format!("{why}; sagasu's own queries are used"));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_cleaned_capped_and_an_intent_read_only_when_asked() {
        let reply = "Sure! {\"queries\": [\"pro plan price\", \"PRO PLAN PRICE\", \"in:#ceo from:@x salary\", \"\", 7, \"プロプラン 価格\"], \"intent\": \"Decision\"} hope this helps";
        let r = parse(reply, true).unwrap();
        assert_eq!(r.queries, vec!["pro plan price", "salary", "プロプラン 価格"]);
        assert_eq!(r.intent, Some(Intent::Decision));
        assert_eq!(parse(reply, false).unwrap().intent, None);
        let many: Vec<String> = (0..20).map(|i| format!("\"q{i}\"")).collect();
        let r = parse(&format!("{{\"queries\": [{}]}}", many.join(",")), false).unwrap();
        assert_eq!(r.queries.len(), MAX_QUERIES);
    }

    #[test]
    fn a_reply_without_the_object_is_an_error() {
        assert!(parse("I cannot help with that.", true).is_err());
        assert!(parse("{\"queries\": \"not a list\"}", true).is_err());
        assert!(parse("{\"queries\": [], \"intent\": \"gossip\"}", true).is_err());
    }
}
