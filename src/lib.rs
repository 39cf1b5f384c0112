//! sagasu: a federated enterprise-search orchestrator over MCP.
//!
//! Modules follow the data: a question meets `config` (which sources), `sources` (ask each one
//! over MCP and normalise to `hit::Hit`s), and the offline servers in `offline` stand in for the
//! live backends. `text` and `index` are the shared text analysis and full-text index.

pub mod config;
pub mod hit;
pub mod index;
pub mod offline;
pub mod sources;
pub mod text;
pub mod yaml;
