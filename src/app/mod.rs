//! What each subcommand of the `sagasu` command line does, one function per subcommand, each
//! taking its parsed arguments (`clap::Args` structs, so that `main.rs` only parses and calls)
//! and a writer for standard output.
//!
//! Exit status: 0 success; 1 a check failed (a source is down), or no source of an `ask` could
//! be searched, or an eval missed its thresholds; 2 bad input (arguments, configuration, data, a
//! question with nothing to search).

pub mod ask;
pub mod check;
pub mod eval;
pub mod search;
pub mod serve;
pub mod source;

use std::path::PathBuf;

use crate::config::Config;

/// Where a command writes its output (standard output for the command line).
pub type Out<'a> = &'a dyn Fn(&str);

/// Why a command did not succeed: the exit status and what to tell the user on stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// 1: something checked failed; 2: bad input.
    pub code: u8,
    /// The whole message, as printed.
    pub message: String,
}

impl Failure {
    /// Bad input (arguments, configuration, data): exit 2.
    pub fn input(why: impl std::fmt::Display) -> Failure {
        Failure {
            code: 2,
            message: format!("error: {why}"),
        }
    }

    /// Something checked failed (a source down, nothing searchable, quality below a bar): exit 1.
    pub fn failed(why: impl std::fmt::Display) -> Failure {
        Failure {
            code: 1,
            message: format!("error: {why}"),
        }
    }
}

/// A command's result.
pub type Outcome = Result<(), Failure>;

/// The configuration at `path`, or the bundled demo's.
fn load_config(path: Option<PathBuf>) -> Result<Config, Failure> {
    let path = path.unwrap_or_else(crate::demo_config_path);
    Config::load(&path).map_err(|d| Failure::input(format!("invalid configuration\n{d}")))
}

/// The engine for `config` (default: the demo) with `policies` instead of the configuration's.
fn load_engine(
    config: Option<PathBuf>,
    policies: Option<&std::path::Path>,
) -> Result<crate::pipeline::ask::Engine, Failure> {
    let path = config.unwrap_or_else(crate::demo_config_path);
    crate::pipeline::ask::Engine::load(&path, policies)
        .map_err(|d| Failure::input(format!("invalid configuration or policies\n{d}")))
}

/// What `--llm` / `--no-llm` ask of the engine: `--llm` needs a language model the command can
/// reach (an `llm:` with a `base_url`; sampling is `serve`'s alone).
fn llm_choice(engine: &crate::pipeline::ask::Engine, on: bool, off: bool) -> Result<Option<bool>, Failure> {
    if off {
        return Ok(Some(false));
    }
    if !on {
        return Ok(None);
    }
    if engine.model.is_none() {
        let why = match &engine.config.llm {
            None => "`--llm` needs a language model: add `llm:` with `base_url` and `model` to the configuration".to_string(),
            Some(_) => "`--llm` needs an OpenAI-compatible endpoint: the configuration's `llm:` has no `base_url` (sampling works only under `sagasu serve`)".to_string(),
        };
        return Err(Failure::input(why));
    }
    Ok(Some(true))
}
