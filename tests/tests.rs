//! sagasu's integration tests, in one binary: in-process MCP tests over `tokio::io::duplex`,
//! source tests against the built executable's offline servers, and CLI end-to-end tests.

#[path = "it/ask.rs"]
mod ask;
#[path = "it/cli.rs"]
mod cli;
#[path = "it/common.rs"]
mod common;
#[path = "it/eval.rs"]
mod eval;
#[path = "it/offline_mcp.rs"]
mod offline_mcp;
#[path = "it/serve.rs"]
mod serve;
#[path = "it/sources.rs"]
mod sources;
