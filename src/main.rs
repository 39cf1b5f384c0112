//! The `sagasu` command line: parses arguments and calls the library's function for the
//! subcommand (`sagasu::app`), which says what to print and the exit status.
//!
//! Exit status: 0 success; 1 a check failed (a source is down), or no source of an `ask` could
//! be searched, or an eval missed its thresholds; 2 bad input (arguments, configuration, data, a
//! question with nothing to search).

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use sagasu::app;

#[derive(Parser)]
#[command(
    name = "sagasu",
    version,
    about = "Federated enterprise search over MCP: one question, every source, cited answers"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Ask a question across every source and get a cited answer.
    Ask(app::ask::AskCommand),
    /// Connect to every configured source, list its tools, and show their health.
    Check(app::check::CheckCommand),
    /// Ask every source (or one) for raw hits, unranked: what each source returns, normalised.
    Search(app::search::SearchCommand),
    /// Run golden question sets through the pipeline and report search quality.
    Eval(app::eval::EvalCommand),
    /// Serve the `ask` tool to AI assistants over MCP (stdio by default).
    Serve(app::serve::ServeCommand),
    /// Serve an offline export as an MCP server (stdio by default).
    Source(app::source::SourceCommand),
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| sagasu::util::redact::RedactingStderr)
        .with_target(false)
        .init();
}

/// Writes data to stdout. A closed pipe (`sagasu search ... | head -1`) ends the process
/// quietly, as it does any Unix filter, instead of a panic in `println!`. SIGPIPE itself stays
/// ignored (Rust's default): a source that dies while sagasu writes to it must not kill sagasu.
fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write the output: {e}");
        std::process::exit(2);
    }
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
    let out = &emit;
    let result = rt.block_on(async {
        match cli.command {
            Command::Ask(c) => app::ask::run(c, out).await,
            Command::Check(c) => app::check::run(c, out).await,
            Command::Search(c) => app::search::run(c, out).await,
            Command::Eval(c) => app::eval::run(c, out).await,
            Command::Serve(c) => app::serve::run(c).await,
            Command::Source(c) => app::source::run(c).await,
        }
    });
    // A stdio server's stdin is read by a blocking thread that a signal does not end: do not
    // wait for it (everything that matters, asks and sources, is finished by now).
    rt.shutdown_timeout(std::time::Duration::from_millis(200));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            if !failure.message.is_empty() {
                eprintln!("{}", failure.message);
            }
            ExitCode::from(failure.code)
        }
    }
}
