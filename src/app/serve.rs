//! `sagasu serve`: the `ask` tool for AI assistants, over stdio or streamable HTTP.

use std::path::PathBuf;

use super::{Failure, Outcome};

/// Serve the `ask` tool to AI assistants over MCP (stdio by default).
#[derive(Debug, Clone, clap::Args)]
pub struct ServeCommand {
    /// The configuration file (default: the bundled demo).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Use this policy folder instead of the configuration's.
    #[arg(long)]
    pub policies: Option<PathBuf>,
    #[command(flatten)]
    pub http: crate::servers::http::HttpArgs,
}

/// Serves until the client closes stdin, or until SIGTERM or Ctrl-C.
pub async fn run(cmd: ServeCommand) -> Outcome {
    let access = cmd.http.access(&|v| std::env::var(v).ok()).map_err(Failure::input)?;
    let engine = std::sync::Arc::new(super::load_engine(cmd.config, cmd.policies.as_deref())?);
    let result = match access {
        None => crate::servers::serve::run_stdio(engine).await,
        Some(access) => match tokio::net::TcpListener::bind(access.addr).await {
            Ok(listener) => {
                let local = listener.local_addr().map(|a| a.to_string()).unwrap_or_default();
                eprintln!("sagasu: serving `ask` at http://{local}/mcp ({})", access.describe());
                crate::servers::serve::run_http(engine, listener, access).await
            }
            Err(e) => {
                engine.shutdown().await;
                return Err(Failure::input(format!("cannot listen on `{}`: {e}", access.addr)));
            }
        },
    };
    result.map_err(|e| Failure::failed(format!("{e:#}")))
}
