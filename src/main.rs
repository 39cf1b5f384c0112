//! The `sagasu` command line: parses arguments and calls into the library.
//!
//! Exit status: 0 success; 1 a check failed (a source is down); 2 bad input (arguments,
//! configuration, data).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use sagasu::config::Config;
use sagasu::offline::OfflineKind;
use sagasu::sources::SourcePool;

#[derive(Parser)]
#[command(name = "sagasu", version, about = "Federated enterprise search over MCP: one question, every source, cited answers")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Connect to every configured source, list its tools, and show their health.
    Check {
        /// The configuration file (default: the bundled demo, examples/acme/sagasu.yaml).
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Serve an offline export as an MCP server (stdio by default).
    Source {
        /// Which kind of export.
        kind: OfflineKind,
        /// The export folder.
        #[arg(long)]
        data: PathBuf,
        /// Serve streamable HTTP on this address (e.g. 127.0.0.1:8701) instead of stdio.
        #[arg(long)]
        http: Option<String>,
    },
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_target(false).init();
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    let rt = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    rt.block_on(run(cli))
}

fn load_config(path: Option<PathBuf>) -> Result<Config, ExitCode> {
    let path = path.unwrap_or_else(sagasu::demo_config_path);
    Config::load(&path).map_err(|d| {
        eprintln!("error: invalid configuration\n{d}");
        ExitCode::from(2)
    })
}

async fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Check { config } => {
            let config = match load_config(config) {
                Ok(c) => c,
                Err(code) => return code,
            };
            let pool = SourcePool::new(&config);
            let rows = pool.check().await;
            pool.shutdown().await;
            let (table, ok) = sagasu::check::render(&rows);
            print!("{table}");
            if ok { ExitCode::SUCCESS } else { ExitCode::from(1) }
        }
        Command::Source { kind, data, http } => {
            let addr = match http.as_deref().map(sagasu::http::parse_addr).transpose() {
                Ok(a) => a,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            match sagasu::offline::run(kind, &data, addr).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: {e:#}");
                    ExitCode::from(2)
                }
            }
        }
    }
}
