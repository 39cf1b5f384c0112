//! sagasu: a federated enterprise-search orchestrator over MCP.
//!
//! Modules follow the data: a question meets `config` (which sources), `sources` (ask each one
//! over MCP and normalise to `hit::Hit`s), and the offline servers in `offline` stand in for the
//! live backends. `text` and `index` are the shared text analysis and full-text index.

pub mod answer;
pub mod ask;
pub mod check;
pub mod confidence;
pub mod config;
pub mod conflict;
pub mod dedup;
pub mod eval;
pub mod fsutil;
pub mod golden;
pub mod hit;
pub mod http;
pub mod index;
pub mod intent;
pub mod live;
pub mod offline;
pub mod par;
pub mod policy;
pub mod query;
pub mod rank;
pub mod redact;
pub mod serve;
pub mod sources;
pub mod stdio;
pub mod synonyms;
pub mod text;
pub mod values;
pub mod wire;
pub mod yaml;

/// The bundled demo configuration: `examples/acme/sagasu.yaml` under the working directory if
/// it is there, else beside the crate's source (for `cargo run` from anywhere in the repo).
pub fn demo_config_path() -> std::path::PathBuf {
    let local = std::path::PathBuf::from("examples/acme/sagasu.yaml");
    if local.exists() {
        return local;
    }
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/acme/sagasu.yaml")
}
