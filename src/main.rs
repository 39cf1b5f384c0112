//! The `sagasu` command line: parses arguments and calls into the library.
//!
//! Exit status: 0 success; 1 a check failed (a source is down), or no source of an `ask` could
//! be searched; 2 bad input (arguments, configuration, data, a question with nothing to search).

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
    /// Run golden question sets through the pipeline and report search quality.
    Eval {
        /// The configuration (default: each set's `workspace`, else the bundled demo).
        #[arg(long)]
        config: Option<PathBuf>,
        /// The policy folder to evaluate (default: the configuration's).
        #[arg(long)]
        policies: Option<PathBuf>,
        /// A second policy folder: both run, side by side, with deltas.
        #[arg(long, value_name = "DIR")]
        compare: Option<PathBuf>,
        /// Also run a naive baseline: `recency` (newest first) or `uniform` (equal weights).
        #[arg(long)]
        baseline: Option<sagasu::ask::Baseline>,
        /// Write the JSON report (contracts section 5) here.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Write a Markdown report here.
        #[arg(long, value_name = "FILE")]
        markdown: Option<PathBuf>,
        /// Questions asked at once.
        #[arg(long, default_value_t = 4)]
        jobs: usize,
        /// Fail (exit 1) when overall nDCG@10 is below this.
        #[arg(long)]
        min_ndcg: Option<f64>,
        /// Fail when overall Recall@10 is below this.
        #[arg(long)]
        min_recall: Option<f64>,
        /// Fail when overall Recall@1 is below this.
        #[arg(long)]
        min_recall_at_1: Option<f64>,
        /// Fail when overall Recall@5 is below this.
        #[arg(long)]
        min_recall_at_5: Option<f64>,
        /// Fail when overall MRR is below this.
        #[arg(long)]
        min_mrr: Option<f64>,
        /// Fail when intent accuracy is below this.
        #[arg(long)]
        min_intent_accuracy: Option<f64>,
        /// Fail when answer-fact recall is below this.
        #[arg(long)]
        min_fact_recall: Option<f64>,
        /// Fail when citation precision is below this.
        #[arg(long)]
        min_citation_precision: Option<f64>,
        /// Fail when abstention is below this.
        #[arg(long)]
        min_abstention: Option<f64>,
        /// The golden sets (contracts section 3).
        #[arg(required = true)]
        sets: Vec<PathBuf>,
    },
    /// Serve the `ask` tool to AI assistants over MCP (stdio by default).
    Serve {
        /// The configuration file (default: the bundled demo).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Use this policy folder instead of the configuration's.
        #[arg(long)]
        policies: Option<PathBuf>,
        #[command(flatten)]
        http: sagasu::http::HttpArgs,
    },
    /// Serve an offline export as an MCP server (stdio by default).
    Source {
        /// Which kind of export.
        kind: OfflineKind,
        /// The export folder.
        #[arg(long, required_unless_present_any = ["url", "config"])]
        data: Option<PathBuf>,
        /// Live upstream MCP servers for the tool catalog (only `tools`): a file with the
        /// `sources:` of sagasu.yaml; their tools join the catalog and `execute_tool` runs them.
        #[arg(long, conflicts_with = "url")]
        config: Option<PathBuf>,
        /// The execution policy for `--config` upstreams (default: `tools.yaml` in the
        /// configuration's policy folder; without it, tools run read-only).
        #[arg(long, requires = "config")]
        policy: Option<PathBuf>,
        /// A live RocketChat server (only `rocketchat`), e.g. https://chat.example.com; the
        /// personal access token comes from ROCKETCHAT_USER_ID and ROCKETCHAT_TOKEN.
        #[arg(long, conflicts_with = "data")]
        url: Option<String>,
        /// The tool catalog's synonym groups: the `synonyms:` of a lexicon file such as
        /// policies/lexicon.yaml (default: the lexicon built into sagasu).
        #[arg(long)]
        lexicon: Option<PathBuf>,
        /// Rooms searched at once on a live RocketChat server.
        #[arg(long, default_value_t = 6)]
        concurrency: usize,
        #[command(flatten)]
        http: sagasu::http::HttpArgs,
        /// Follow symbolic links that lead outside the `--data` folder (by default such links,
        /// and links to folders, are skipped with a warning).
        #[arg(long)]
        follow_links: bool,
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
        .with_writer(|| sagasu::redact::RedactingStderr)
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

/// `print!` through `emit`.
macro_rules! out {
    ($($t:tt)*) => { emit(&format!($($t)*)) };
}

/// `println!` through `emit`.
macro_rules! outln {
    ($($t:tt)*) => { emit(&(format!($($t)*) + "\n")) };
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
    let code = rt.block_on(run(cli));
    // A stdio server's stdin is read by a blocking thread that a signal does not end: do not
    // wait for it (everything that matters, asks and sources, is finished by now).
    rt.shutdown_timeout(std::time::Duration::from_millis(200));
    code
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
                            Ok(s) => outln!("{s}"),
                            Err(e) => {
                                eprintln!("error: cannot write JSON: {e}");
                                return ExitCode::from(2);
                            }
                        }
                    } else {
                        out!("{}", sagasu::answer::render_markdown(&r, explain));
                    }
                    // Exit 1 when no source could be searched: a script must not take the
                    // answer for one.
                    if let Some(why) = sagasu::serve::all_failed(&r) {
                        eprintln!("error: {why}");
                        return ExitCode::from(1);
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Command::Eval {
            config,
            policies,
            compare,
            baseline,
            json,
            markdown,
            jobs,
            min_ndcg,
            min_recall,
            min_recall_at_1,
            min_recall_at_5,
            min_mrr,
            min_intent_accuracy,
            min_fact_recall,
            min_citation_precision,
            min_abstention,
            sets,
        } => {
            let req = sagasu::eval::Request {
                config,
                policies,
                compare,
                baseline,
                sets,
                jobs,
            };
            let bar = indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
            bar.set_style(
                indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} questions ({elapsed}, eta {eta})")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            let progress = |total: Option<u64>| match total {
                Some(n) => bar.set_length(n),
                None => bar.inc(1),
            };
            let report = match sagasu::eval::evaluate(&req, &|w| eprintln!("{w}"), &progress).await {
                Ok(r) => r,
                Err(e) => {
                    bar.finish_and_clear();
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            bar.finish_and_clear();
            out!("{}", sagasu::eval::report::render_text(&report));
            let write = |path: &PathBuf, text: String| {
                std::fs::write(path, text).map_err(|e| eprintln!("error: cannot write {}: {e}", path.display()))
            };
            if let Some(p) = &json {
                let text = serde_json::to_string_pretty(&report).unwrap_or_default() + "\n";
                if write(p, text).is_err() {
                    return ExitCode::from(2);
                }
            }
            if let Some(p) = &markdown
                && write(p, sagasu::eval::report::render_markdown(&report)).is_err()
            {
                return ExitCode::from(2);
            }
            let thresholds = [
                ("ndcg_at_10", min_ndcg),
                ("recall_at_10", min_recall),
                ("recall_at_1", min_recall_at_1),
                ("recall_at_5", min_recall_at_5),
                ("mrr", min_mrr),
                ("intent_accuracy", min_intent_accuracy),
                ("answer_fact_recall", min_fact_recall),
                ("citation_precision", min_citation_precision),
                ("abstention", min_abstention),
            ];
            let mut missed = Vec::new();
            for (name, min) in thresholds {
                let Some(min) = min else { continue };
                match report.overall.get(name) {
                    Some(v) if v >= min => {}
                    Some(v) => missed.push(format!("{name} {v:.3} is below {min}")),
                    None => missed.push(format!(
                        "{name} was not measured (no question exercises it), so it cannot reach {min}"
                    )),
                }
            }
            if missed.is_empty() {
                ExitCode::SUCCESS
            } else {
                eprintln!("quality below the thresholds:\n- {}", missed.join("\n- "));
                ExitCode::from(1)
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
            out!("{table}");
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
                outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
            } else {
                for o in &outcomes {
                    outln!(
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
                        outln!(
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
        Command::Serve { config, policies, http } => {
            let access = match http.access(&|v| std::env::var(v).ok()) {
                Ok(a) => a,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let path = config.unwrap_or_else(sagasu::demo_config_path);
            let engine = match Engine::load(&path, policies.as_deref()) {
                Ok(e) => std::sync::Arc::new(e),
                Err(d) => {
                    eprintln!("error: invalid configuration or policies\n{d}");
                    return ExitCode::from(2);
                }
            };
            let result = match access {
                None => sagasu::serve::run_stdio(engine).await,
                Some(access) => match tokio::net::TcpListener::bind(access.addr).await {
                    Ok(listener) => {
                        let local = listener.local_addr().map(|a| a.to_string()).unwrap_or_default();
                        eprintln!("sagasu: serving `ask` at http://{local}/mcp ({})", access.describe());
                        sagasu::serve::run_http(engine, listener, access).await
                    }
                    Err(e) => {
                        eprintln!("error: cannot listen on `{}`: {e}", access.addr);
                        engine.shutdown().await;
                        return ExitCode::from(2);
                    }
                },
            };
            match result {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: {e:#}");
                    ExitCode::from(1)
                }
            }
        }
        Command::Source {
            kind,
            data,
            config,
            policy,
            url,
            concurrency,
            http,
            latency_ms,
            lexicon,
            follow_links,
        } => {
            if lexicon.is_some() && kind != OfflineKind::Tools {
                eprintln!("error: `--lexicon` is for the `tools` catalog only");
                return ExitCode::from(2);
            }
            let synonyms = match lexicon.as_deref().map(sagasu::synonyms::Synonyms::load).transpose() {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: cannot read the lexicon: {e}");
                    return ExitCode::from(2);
                }
            };
            let access = match http.access(&|v| std::env::var(v).ok()) {
                Ok(a) => a,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let addr = access.as_ref();
            if let Some(url) = url {
                if kind != OfflineKind::Rocketchat {
                    eprintln!("error: `--url` serves a live RocketChat server only; other kinds serve `--data`");
                    return ExitCode::from(2);
                }
                let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
                let (Some(user), Some(token)) = (var("ROCKETCHAT_USER_ID"), var("ROCKETCHAT_TOKEN")) else {
                    eprintln!(
                        "error: a live RocketChat server needs a personal access token: set ROCKETCHAT_USER_ID \
                         and ROCKETCHAT_TOKEN (My Account → Personal Access Tokens)"
                    );
                    return ExitCode::from(2);
                };
                if !url.starts_with("http://") && !url.starts_with("https://") {
                    eprintln!("error: `--url` must start with http:// or https://, not `{url}`");
                    return ExitCode::from(2);
                }
                let mut settings = sagasu::live::rocketchat::Settings::new(&url, &user, &token);
                settings.concurrency = concurrency.max(1);
                return match sagasu::live::rocketchat::run(settings, addr).await {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => {
                        eprintln!("error: {e:#}");
                        ExitCode::from(2)
                    }
                };
            }
            if let Some(config) = config {
                if kind != OfflineKind::Tools {
                    eprintln!("error: `--config` (live upstreams) is for the `tools` catalog only");
                    return ExitCode::from(2);
                }
                let config = match Config::load_for(&config, sagasu::config::Purpose::Catalog) {
                    Ok(c) => c,
                    Err(d) => {
                        eprintln!("error: invalid configuration\n{d}");
                        return ExitCode::from(2);
                    }
                };
                let dumps = match data
                    .as_deref()
                    .map(|d| sagasu::offline::Folder::open(d, follow_links))
                    .transpose()
                {
                    Ok(f) => f,
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::from(2);
                    }
                };
                let named = policy.is_some();
                let policy_path = policy.unwrap_or_else(|| config.policies.join("tools.yaml"));
                return match sagasu::live::tools::run(&config, dumps.as_ref(), &policy_path, named, addr, synonyms)
                    .await
                {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => {
                        eprintln!("error: {e:#}");
                        ExitCode::from(2)
                    }
                };
            }
            let Some(data) = data else {
                eprintln!("error: `--data` (an export folder) or `--url` (live RocketChat) is required");
                return ExitCode::from(2);
            };
            let data = match sagasu::offline::Folder::open(&data, follow_links) {
                Ok(f) => f,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            match sagasu::offline::run(
                kind,
                &data,
                addr,
                std::time::Duration::from_millis(latency_ms),
                synonyms,
            )
            .await
            {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: {e:#}");
                    ExitCode::from(2)
                }
            }
        }
    }
}
