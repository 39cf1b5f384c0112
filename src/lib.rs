//! sagasu: a federated enterprise-search orchestrator over MCP.
//!
//! Modules follow the data: a question meets `config` (which sources), `sources` (ask each one
//! over MCP and normalise to `hit::Hit`s), and the offline servers in `offline` stand in for the
//! live backends. `text` and `index` are the shared text analysis and full-text index.

pub mod app;
pub mod config;
pub mod eval;
pub mod hit;
pub mod llm;
pub mod pipeline;
pub mod servers;
pub mod sources;
pub mod text;
pub mod util;
pub mod wire;

/// The bundled demo configuration: `examples/acme/sagasu.yaml` under the working directory if
/// it is there, else beside the crate's source (for `cargo run` from anywhere in the repo).
pub fn demo_config_path() -> std::path::PathBuf {
    let local = std::path::PathBuf::from("examples/acme/sagasu.yaml");
    if local.exists() {
        return local;
    }
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/acme/sagasu.yaml")
}
