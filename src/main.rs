//! The `sagasu` command line: parses arguments and calls into the library.
//!
//! Exit status: 0 success; 1 a check failed (a source is down); 2 bad input (arguments,
//! configuration, data).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use sagasu::ask::{AskOptions, Engine};
use sagasu::config::Config;
use sagasu::offline::OfflineKind;
use sagasu::sources::SourcePool;

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
    Ask {
        /// The configuration file (default: the bundled demo, examples/acme/sagasu.yaml).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Use this policy folder instead of the configuration's.
        #[arg(long)]
        policies: Option<PathBuf>,
        /// Print the answer object (contracts section 4) as JSON.
        #[arg(long)]
        json: bool,
        /// Show how every citation was scored.
        #[arg(long)]
        explain: bool,
        /// The clock for freshness and relative dates, RFC 3339 (default: now).
        #[arg(long, value_name = "RFC3339")]
        as_of: Option<String>,
        /// Ask only these sources (comma-separated names).
        #[arg(long, value_delimiter = ',')]
        sources: Option<Vec<String>>,
        /// Use this intent instead of classifying the question.
        #[arg(long)]
        intent: Option<String>,
        /// The question, in English or Japanese.
        question: String,
    },
    /// Connect to every configured source, list its tools, and show their health.
    Check {
        /// The configuration file (default: the bundled demo, examples/acme/sagasu.yaml).
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Ask every source (or one) for raw hits, unranked: what each source returns, normalised.
    Search {
        /// The configuration file (default: the bundled demo).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Only this source.
        #[arg(long)]
        source: Option<String>,
        /// Most hits per source.
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// Print JSON instead of a list.
        #[arg(long)]
        json: bool,
        /// The search words.
        query: String,
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
        /// Answer every search this many milliseconds late (simulates a slow backend).
        #[arg(long, default_value_t = 0)]
        latency_ms: u64,
    },
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .init();
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
        Command::Ask {
            config,
            policies,
            json,
            explain,
            as_of,
            sources,
            intent,
            question,
        } => {
            let now = match as_of.as_deref().map(chrono::DateTime::parse_from_rfc3339) {
                None => None,
                Some(Ok(t)) => Some(t.with_timezone(&chrono::Utc)),
                Some(Err(e)) => {
                    eprintln!("error: `--as-of` must be an RFC 3339 time like 2026-11-20T09:00:00Z: {e}");
                    return ExitCode::from(2);
                }
            };
            let intent = match intent.as_deref().map(str::parse::<sagasu::policy::Intent>) {
                None => None,
                Some(Ok(i)) => Some(i),
                Some(Err(e)) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let path = config.unwrap_or_else(sagasu::demo_config_path);
            let engine = match Engine::load(&path, policies.as_deref()) {
                Ok(e) => e,
                Err(d) => {
                    eprintln!("error: invalid configuration or policies\n{d}");
                    return ExitCode::from(2);
                }
            };
            let opts = AskOptions {
                now,
                sources,
                intent,
                ..Default::default()
            };
            let result = engine.ask(&question, &opts).await;
            engine.shutdown().await;
            match result {
                Ok(r) => {
                    if json {
                        match serde_json::to_string_pretty(&r) {
                            Ok(s) => println!("{s}"),
                            Err(e) => {
                                eprintln!("error: cannot write JSON: {e}");
                                return ExitCode::from(2);
                            }
                        }
                    } else {
                        print!("{}", sagasu::answer::render_markdown(&r, explain));
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(2)
                }
            }
        }
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
        Command::Search {
            config,
            source,
            limit,
            json,
            query,
        } => {
            let config = match load_config(config) {
                Ok(c) => c,
                Err(code) => return code,
            };
            if let Some(s) = &source
                && config.source(s).is_none()
            {
                eprintln!("error: no source named `{s}` (configured: {})", config.source_names());
                return ExitCode::from(2);
            }
            if query.trim().is_empty() {
                eprintln!("error: the query is empty");
                return ExitCode::from(2);
            }
            let pool = SourcePool::new(&config);
            let queries = config
                .sources
                .iter()
                .filter(|s| source.as_deref().is_none_or(|n| n == s.name))
                .map(|s| (s.name.clone(), sagasu::sources::SourceQuery::new(query.clone(), limit)))
                .collect();
            let mut outcomes = pool.search_all(&queries, std::time::Duration::from_secs(30)).await;
            outcomes.retain(|o| source.as_deref().is_none_or(|n| n == o.name));
            pool.shutdown().await;
            if json {
                let v: Vec<serde_json::Value> = outcomes
                    .iter()
                    .map(|o| serde_json::json!({"source": o.name, "status": o.status, "latency_ms": o.latency_ms, "truncated": o.truncated, "note": o.note, "hits": o.hits}))
                    .collect();
                println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
            } else {
                for o in &outcomes {
                    println!(
                        "## {} ({:?}, {} hits, {} ms){}",
                        o.name,
                        o.status,
                        o.hits.len(),
                        o.latency_ms,
                        o.note.as_deref().map(|n| format!(": {n}")).unwrap_or_default()
                    );
                    for h in &o.hits {
                        let when = h
                            .timestamp
                            .map(|t| t.format("%Y-%m-%d").to_string())
                            .unwrap_or_default();
                        println!(
                            "- {} [{}] {} {} — {}",
                            h.id,
                            h.kind,
                            when,
                            h.author.as_deref().unwrap_or(""),
                            sagasu::text::truncate_chars(&h.text.replace('\n', " "), 100)
                        );
                    }
                }
            }
            ExitCode::SUCCESS
        }
        Command::Source {
            kind,
            data,
            http,
            latency_ms,
        } => {
            let addr = match http.as_deref().map(sagasu::http::parse_addr).transpose() {
                Ok(a) => a,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            match sagasu::offline::run(kind, &data, addr, std::time::Duration::from_millis(latency_ms)).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: {e:#}");
                    ExitCode::from(2)
                }
            }
        }
    }
}
