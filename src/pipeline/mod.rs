//! The stages a question goes through, in order: `intent` and `query` (what is asked), `ask`
//! (the engine: plan per source, fan-out, broadening), `mentions` (chat mentions by name), `rank`, `dedup`, `conflict`,
//! `confidence` and `answer` (what is said); with a language model configured, `rewrite` (its
//! queries and, when the classifier is unsure, intent, before the fan-out) and `synthesis` (its
//! answer from the chosen passages, checked).

pub mod answer;
pub mod ask;
pub mod confidence;
pub mod conflict;
pub mod dedup;
pub mod intent;
pub mod mentions;
pub mod query;
pub mod rank;
pub mod rewrite;
pub mod synthesis;
pub mod verdict;
