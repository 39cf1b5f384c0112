//! sagasu's integration tests, in one binary: in-process MCP tests over `tokio::io::duplex`,
//! source tests against the built executable's offline servers, and CLI end-to-end tests.

#[path = "it/ask.rs"]
mod ask;
#[path = "it/cli.rs"]
mod cli;
#[path = "it/common.rs"]
mod common;
#[path = "it/corpus.rs"]
mod corpus;
#[path = "it/encoder.rs"]
mod encoder;
#[path = "it/eval.rs"]
mod eval;
#[path = "it/everything.rs"]
mod everything;
#[path = "it/fake_rocketchat.rs"]
mod fake_rocketchat;
#[path = "it/hardening.rs"]
mod hardening;
#[path = "it/language.rs"]
mod language;
#[path = "it/layers.rs"]
mod layers;
#[path = "it/llm.rs"]
mod llm;
#[path = "it/offline_mcp.rs"]
mod offline_mcp;
#[path = "it/properties.rs"]
mod properties;
#[path = "it/rocketchat_live.rs"]
mod rocketchat_live;
#[path = "it/serve.rs"]
mod serve;
#[path = "it/sources.rs"]
mod sources;
#[path = "it/tools_live.rs"]
mod tools_live;
