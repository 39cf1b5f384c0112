//! `sagasu.yaml`: which sources to ask and how to reach them, and where the policies live.
//!
//! Raw serde structs mirror the file; `Config::load` validates them into domain types and
//! reports every problem of the file in one run, each with file, line and column.

pub mod classifier;
pub mod llm;
pub mod policy;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::hit::EvidenceKind;
use crate::util::yaml::{Diagnostic, Diagnostics, Document};

/// The kinds of source sagasu knows how to ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    Slack,
    Notion,
    Rocketchat,
    Tools,
    Generic,
}

impl SourceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Slack => "slack",
            SourceKind::Notion => "notion",
            SourceKind::Rocketchat => "rocketchat",
            SourceKind::Tools => "tools",
            SourceKind::Generic => "generic",
        }
    }

    /// Whether a source of this kind can be searched with no words, by its filters alone
    /// (where, who, when): Slack's search takes a query of only modifiers (`after:… before:…`).
    /// Notion's search needs words, RocketChat's `chat.search` needs `searchText`, a tool
    /// catalog ranks descriptions by words, and a generic server's contract is unknown.
    pub fn can_browse(self) -> bool {
        matches!(self, SourceKind::Slack)
    }
}

/// Which live server's tools a source speaks, when a kind has more than one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    /// Slack's hosted MCP server (`slack_search_public`, Markdown results).
    SlackHosted,
    /// korotovsky/slack-mcp-server (`conversations_search_messages`, CSV results).
    SlackKorotovsky,
    /// Notion's hosted MCP server (`notion-search` + `notion-fetch`).
    NotionHosted,
    /// `@notionhq/notion-mcp-server` (`API-post-search`, raw Notion API JSON).
    NotionApi,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    sources: serde_norway::Mapping,
    #[serde(default)]
    policies: Option<String>,
    #[serde(default)]
    llm: Option<serde_norway::Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSource {
    kind: SourceKind,
    #[serde(default)]
    command: Option<Vec<String>>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    timeout_ms: Option<u64>,
    #[serde(default)]
    enabled: Option<bool>,
    #[serde(default)]
    preset: Option<Preset>,
    #[serde(default)]
    mapping: Option<GenericMapping>,
}

/// A declarative adapter for any MCP server with a search tool (`kind: generic`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenericMapping {
    /// The search tool to call.
    pub tool: String,
    /// Arguments; any string containing `{query}` (or `{limit}`) is filled in.
    #[serde(default)]
    pub arguments: serde_json::Map<String, serde_json::Value>,
    /// JSON pointer to the array of results in the tool's JSON text (empty: the root).
    #[serde(default)]
    pub results: String,
    /// JSON pointers, relative to one result.
    pub id: String,
    #[serde(default)]
    pub title: Option<String>,
    pub text: String,
    #[serde(default)]
    pub time: Option<String>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub author: Option<String>,
    #[serde(default)]
    pub location: Option<String>,
    /// The kind of evidence these results are (default `page`).
    #[serde(default)]
    pub kind: Option<EvidenceKind>,
}

/// How to reach a source.
#[derive(Debug, Clone, PartialEq)]
pub enum Transport {
    /// A stdio MCP server: program, arguments, working directory and extra environment.
    Stdio {
        program: PathBuf,
        args: Vec<String>,
        cwd: PathBuf,
        env: BTreeMap<String, String>,
    },
    /// A streamable-HTTP MCP endpoint with headers (secrets already expanded).
    Http {
        url: String,
        headers: BTreeMap<String, String>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct SourceConfig {
    pub name: String,
    pub kind: SourceKind,
    pub transport: Transport,
    pub timeout: Duration,
    pub enabled: bool,
    pub preset: Option<Preset>,
    pub mapping: Option<GenericMapping>,
    /// Hides this source's secrets (values from the environment, header values) in every text
    /// about it that leaves sagasu.
    pub redactor: crate::util::redact::Redactor,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub path: PathBuf,
    pub sources: Vec<SourceConfig>,
    pub policies: PathBuf,
    /// The optional language model (`llm:`).
    pub llm: Option<llm::LlmConfig>,
}

/// The default per-call deadline of a source.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Expands `${VAR}` from `env` (`${VAR:-default}` falls back to the default); a missing
/// variable without a default is an error naming it.
pub fn expand_env(s: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    expand_env_noting(s, env, &mut Vec::new())
}

/// `expand_env`, adding each value it put in from the environment to `taken` (they are the
/// secrets that must never be shown).
pub fn expand_env_noting(
    s: &str,
    env: &dyn Fn(&str) -> Option<String>,
    taken: &mut Vec<String>,
) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let end = after.find('}').ok_or_else(|| format!("unclosed `${{` in `{s}`"))?;
        let (var, default) = match after[..end].split_once(":-") {
            Some((v, d)) => (v, Some(d)),
            None => (&after[..end], None),
        };
        let from_env = env(var).filter(|v| !(default.is_some() && v.is_empty()));
        if let Some(v) = &from_env {
            taken.push(v.clone());
        }
        let val = from_env
            .or_else(|| default.map(str::to_string))
            .ok_or_else(|| format!("environment variable `{var}` is not set"))?;
        out.push_str(&val);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// A source name: letters, digits, `_` and `-`, without `__` (the tool catalog names tools
/// `<server>__<tool>` and splits at the first `__`, so a server name must not hold one).
fn is_valid_source_name(n: &str) -> bool {
    !n.is_empty() && !n.contains("__") && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// What a configuration file is read for: the sources `ask` searches, or the upstream MCP
/// servers whose tools the tool catalog lists (`sagasu source tools --config`), where a
/// `generic` server needs no search `mapping` because nothing searches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Search,
    Catalog,
}

impl Config {
    /// Loads and validates a configuration file of sources to search.
    pub fn load(path: &Path) -> Result<Config, Diagnostics> {
        Config::load_for(path, Purpose::Search)
    }

    /// Loads and validates a configuration file read for `purpose`.
    pub fn load_for(path: &Path, purpose: Purpose) -> Result<Config, Diagnostics> {
        let doc = Document::load(path)?;
        Config::from_document_for(&doc, &|v| std::env::var(v).ok(), purpose)
    }

    /// Validates a parsed document of sources to search; `env` supplies environment variables.
    pub fn from_document(doc: &Document, env: &dyn Fn(&str) -> Option<String>) -> Result<Config, Diagnostics> {
        Config::from_document_for(doc, env, Purpose::Search)
    }

    /// Validates a parsed document read for `purpose`.
    pub fn from_document_for(
        doc: &Document,
        env: &dyn Fn(&str) -> Option<String>,
        purpose: Purpose,
    ) -> Result<Config, Diagnostics> {
        let mut problems = Diagnostics::default();
        // An unknown top-level key is one problem among the others, not the only one shown.
        let mut top = doc.value.clone();
        if let serde_norway::Value::Mapping(m) = &mut top {
            let unknown: Vec<serde_norway::Value> = m
                .keys()
                .filter(|k| !matches!(k.as_str(), Some("sources" | "policies" | "llm")))
                .cloned()
                .collect();
            for k in unknown {
                let name = k.as_str().map(str::to_string).unwrap_or_else(|| format!("{k:?}"));
                problems.push(doc.error_at_key(
                    &name,
                    format!("unknown key `{name}`: a configuration has `sources`, `policies` and `llm`"),
                ));
                m.remove(&k);
            }
        }
        let raw: RawConfig = match serde_norway::from_value(top) {
            Ok(r) => r,
            Err(e) => {
                problems.push(doc.error_at("", crate::util::yaml::plain_words(&e.to_string())));
                return Err(problems);
            }
        };
        let dir = doc.file.parent().map(Path::to_path_buf).unwrap_or_default();
        let dir = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir
        };
        let mut sources = Vec::new();
        for (k, v) in &raw.sources {
            let Some(name) = k.as_str() else {
                problems.push(doc.error_at("sources", "source names must be strings"));
                continue;
            };
            let at = format!("sources.{name}");
            if !is_valid_source_name(name) {
                problems.push(doc.error_at_key(
                    &at,
                    format!("source name `{name}` may use only letters, digits, `_` and `-`, and no `__`"),
                ));
            }
            match doc.deserialize::<RawSource>(&at, v) {
                Ok(rs) => match validate_source(doc, &at, name, rs, &dir, env, purpose) {
                    Ok(s) => sources.push(s),
                    Err(ds) => problems.extend(ds),
                },
                Err(d) => problems.extend(every_field_problem(doc, &at, v, d)),
            }
        }
        if raw.sources.is_empty() {
            problems.push(doc.error_at("sources", "`sources` is empty: configure at least one source"));
        }
        let policies = match raw.policies {
            Some(p) => dir.join(p),
            None => dir.join("policies"),
        };
        let llm = match &raw.llm {
            Some(v) if !v.is_null() => match llm::validate(doc, "llm", v, env) {
                Ok(l) => Some(l),
                Err(ds) => {
                    problems.extend(ds);
                    None
                }
            },
            _ => None,
        };
        problems.into_result(Config {
            path: doc.file.clone(),
            sources,
            policies,
            llm,
        })
    }

    pub fn source(&self, name: &str) -> Option<&SourceConfig> {
        self.sources.iter().find(|s| s.name == name)
    }

    /// The configured source names, comma-separated (for messages about an unknown one).
    pub fn source_names(&self) -> String {
        self.sources
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Every field of a source that does not read, each at its own value: serde stops at the first,
/// so each field is read again on its own (beside the source's `kind`). `first` is serde's own
/// report, kept when no single field explains it (a missing `kind`, say).
fn every_field_problem(doc: &Document, at: &str, v: &serde_norway::Value, first: Diagnostic) -> Diagnostics {
    let mut out = Diagnostics::default();
    let Some(m) = v.as_mapping() else {
        out.push(doc.error_at(at, "a source is a mapping of `kind`, `command` or `url`, ..."));
        return out;
    };
    let kind = m.get("kind").cloned();
    let kind_reads = kind
        .clone()
        .is_some_and(|k| serde_norway::from_value::<SourceKind>(k).is_ok());
    for (k, val) in m {
        let mut probe = serde_norway::Mapping::new();
        if k.as_str() == Some("kind") {
            probe.insert(k.clone(), val.clone());
        } else {
            // A stand-in kind when the source's own does not read, so only this field is judged.
            let kind = if kind_reads { kind.clone() } else { None };
            probe.insert("kind".into(), kind.unwrap_or_else(|| "generic".into()));
            probe.insert(k.clone(), val.clone());
        }
        if let Err(d) = doc.deserialize::<RawSource>(at, &serde_norway::Value::Mapping(probe))
            && !d.message.contains("missing field")
        {
            // Pointed at the field's own value, which the probe knows (serde's message may not).
            let name = k.as_str().map(str::to_string).unwrap_or_else(|| format!("{k:?}"));
            let d = if d.message.contains("unknown field") {
                d
            } else {
                doc.error_at(&format!("{at}.{name}"), format!("`{name}`: {}", d.message))
            };
            if !out.0.iter().any(|o| o.message == d.message && o.line == d.line) {
                out.push(d);
            }
        }
    }
    if out.is_empty() {
        out.push(first);
    }
    out
}

fn validate_source(
    doc: &Document,
    at: &str,
    name: &str,
    rs: RawSource,
    dir: &Path,
    env: &dyn Fn(&str) -> Option<String>,
    purpose: Purpose,
) -> Result<SourceConfig, Diagnostics> {
    let mut problems = Diagnostics::default();
    let err = |key: &str, msg: String| -> Diagnostic { doc.error_at(&format!("{at}.{key}"), msg) };
    // Every value taken from the environment, and every header value, is a secret.
    let mut secrets = Vec::new();
    let transport = match (rs.command, rs.url) {
        (Some(_), Some(_)) => {
            problems.push(doc.error_at_key(&format!("{at}.url"), "give either `command` or `url`, not both"));
            None
        }
        (None, None) => {
            problems.push(doc.error_at_key(
                at,
                format!("source `{name}` needs `command` (a stdio server) or `url` (streamable HTTP)"),
            ));
            None
        }
        (Some(cmd), None) => {
            if cmd.is_empty() {
                problems.push(err("command", "`command` must not be empty".into()));
                None
            } else {
                let mut envs = BTreeMap::new();
                for (k, v) in rs.env {
                    match expand_env_noting(&v, env, &mut secrets) {
                        Ok(x) => {
                            envs.insert(k, x);
                        }
                        Err(m) => problems.push(err(&format!("env.{k}"), m)),
                    }
                }
                let program = if cmd[0] == "sagasu" {
                    // Runs this very executable, so the bundled offline servers need no install.
                    std::env::current_exe().unwrap_or_else(|_| PathBuf::from("sagasu"))
                } else {
                    PathBuf::from(&cmd[0])
                };
                let mut args = Vec::with_capacity(cmd.len() - 1);
                for (i, a) in cmd.iter().enumerate().skip(1) {
                    match expand_env_noting(a, env, &mut secrets) {
                        Ok(x) => args.push(x),
                        Err(m) => problems.push(err(&format!("command[{i}]"), m)),
                    }
                }
                Some(Transport::Stdio {
                    program,
                    args,
                    cwd: dir.to_path_buf(),
                    env: envs,
                })
            }
        }
        (None, Some(url)) => {
            // `${VAR}` in a URL (a key in a query string, a tenant's host) is expanded like
            // anywhere else; the expanded value is a secret and never printed.
            let url = match expand_env_noting(&url, env, &mut secrets) {
                Ok(u) => u,
                Err(m) => {
                    problems.push(err("url", m));
                    url
                }
            };
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                problems.push(err(
                    "url",
                    format!(
                        "`url` must start with http:// or https://, got `{}`",
                        crate::util::redact::Redactor::new(secrets.clone()).redact(&url)
                    ),
                ));
            }
            let mut headers = BTreeMap::new();
            for (k, v) in rs.headers {
                match expand_env_noting(&v, env, &mut secrets) {
                    Ok(x) => {
                        secrets.push(x.strip_prefix("Bearer ").unwrap_or(&x).to_string());
                        headers.insert(k, x);
                    }
                    Err(m) => problems.push(err(&format!("headers.{k}"), m)),
                }
            }
            Some(Transport::Http { url, headers })
        }
    };
    if rs.timeout_ms == Some(0) {
        problems.push(err("timeout_ms", "`timeout_ms` must be above 0".into()));
    }
    let preset_ok = matches!(
        (rs.kind, rs.preset),
        (_, None)
            | (SourceKind::Slack, Some(Preset::SlackHosted | Preset::SlackKorotovsky))
            | (SourceKind::Notion, Some(Preset::NotionHosted | Preset::NotionApi))
    );
    if !preset_ok {
        problems.push(err(
            "preset",
            format!("preset does not fit kind `{}`", rs.kind.as_str()),
        ));
    }
    if rs.kind == SourceKind::Generic && rs.mapping.is_none() && purpose == Purpose::Search {
        problems.push(doc.error_at_key(
            at,
            "a `generic` source needs a `mapping` (tool, arguments, results, id, text, ...) to be searched; \
             an MCP server that only lends its tools to the catalog goes in the catalog's own config \
             (`sagasu source tools --config FILE`), where no mapping is needed",
        ));
    }
    if rs.kind != SourceKind::Generic && rs.mapping.is_some() {
        problems.push(doc.error_at_key(&format!("{at}.mapping"), "`mapping` is only for `kind: generic`"));
    }
    let Some(transport) = transport else {
        return Err(problems);
    };
    problems.into_result(SourceConfig {
        name: name.to_string(),
        kind: rs.kind,
        transport,
        timeout: rs.timeout_ms.map(Duration::from_millis).unwrap_or(DEFAULT_TIMEOUT),
        enabled: rs.enabled.unwrap_or(true),
        redactor: crate::util::redact::Redactor::new(secrets),
        preset: rs.preset,
        mapping: rs.mapping,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str, env: &[(&str, &str)]) -> Result<Config, Diagnostics> {
        let doc = Document::parse(Path::new("cfg/sagasu.yaml"), text.to_string())?;
        let env: Vec<(String, String)> = env.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        Config::from_document(&doc, &move |k| env.iter().find(|(a, _)| a == k).map(|(_, b)| b.clone()))
    }

    #[test]
    fn a_good_config_validates() {
        let c = load(
            "sources:\n  slack:\n    kind: slack\n    command: [sagasu, source, slack, --data, slack]\n    timeout_ms: 500\n  remote:\n    kind: notion\n    url: https://mcp.example.com/mcp\n    headers:\n      Authorization: Bearer ${TOKEN}\npolicies: ../policies\n",
            &[("TOKEN", "s3cret")],
        )
        .unwrap();
        assert_eq!(c.sources.len(), 2);
        assert_eq!(c.sources[0].timeout, Duration::from_millis(500));
        match &c.sources[0].transport {
            Transport::Stdio { args, cwd, .. } => {
                assert_eq!(args[0], "source");
                assert_eq!(cwd, Path::new("cfg"));
            }
            t => panic!("unexpected {t:?}"),
        }
        match &c.sources[1].transport {
            Transport::Http { headers, .. } => assert_eq!(headers["Authorization"], "Bearer s3cret"),
            t => panic!("unexpected {t:?}"),
        }
        assert_eq!(c.policies, Path::new("cfg/../policies"));
    }

    #[test]
    fn every_problem_is_reported_with_its_position() {
        let e = load(
            "sources:\n  a:\n    kind: slack\n  b:\n    kind: notion\n    url: ftp://x\n  c:\n    kind: notion\n    url: https://x\n    headers:\n      Authorization: ${MISSING}\n  d:\n    kind: slak\n    command: [x]\n",
            &[],
        )
        .unwrap_err();
        let shown = e.to_string();
        assert_eq!(e.0.len(), 4, "{shown}");
        assert!(
            shown.contains("cfg/sagasu.yaml:2:3: source `a` needs `command`"),
            "{shown}"
        );
        assert!(shown.contains("cfg/sagasu.yaml:6:10: `url` must start with"), "{shown}");
        assert!(
            shown.contains("cfg/sagasu.yaml:11:22: environment variable `MISSING` is not set"),
            "{shown}"
        );
        assert!(
            shown.contains("cfg/sagasu.yaml:13:11: `kind`: unknown variant `slak`"),
            "{shown}"
        );
    }

    #[test]
    fn a_generic_server_needs_a_mapping_to_be_searched_but_not_to_lend_its_tools() {
        let text = "sources:\n  everything:\n    kind: generic\n    command: [node, server.js, stdio]\n";
        let e = load(text, &[]).unwrap_err().to_string();
        assert!(
            e.contains("cfg/sagasu.yaml:2:3: a `generic` source needs a `mapping`"),
            "{e}"
        );
        assert!(e.contains("sagasu source tools --config"), "{e}");
        let doc = Document::parse(Path::new("cfg/tools.yaml"), text.to_string()).unwrap();
        let c = Config::from_document_for(&doc, &|_| None, Purpose::Catalog).unwrap();
        assert_eq!(c.sources[0].name, "everything");
        assert_eq!(c.sources[0].mapping, None);
    }

    #[test]
    fn url_env_vars_were_sent_literally_and_a_source_name_could_hold_double_underscores() {
        let c = load(
            "sources:\n  remote:\n    kind: notion\n    url: https://${HOST}/mcp?key=${KEY}\n",
            &[("HOST", "mcp.example.com"), ("KEY", "k3y-value-secret")],
        )
        .unwrap();
        let s = &c.sources[0];
        match &s.transport {
            Transport::Http { url, .. } => assert_eq!(url, "https://mcp.example.com/mcp?key=k3y-value-secret"),
            other => panic!("{other:?}"),
        }
        assert!(
            !s.redactor
                .redact("GET /mcp?key=k3y-value-secret")
                .contains("k3y-value-secret")
        );
        let e = load(
            "sources:\n  r:\n    kind: notion\n    url: ${KEY}\n",
            &[("KEY", "k3y-value-secret")],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("http://") && !e.contains("k3y-value-secret"), "{e}");
        let e = load("sources:\n  a__b:\n    kind: notion\n    url: https://x\n", &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("no `__`"), "{e}");
    }

    #[test]
    fn only_the_first_problem_of_a_source_was_shown_and_an_unknown_key_hid_the_rest() {
        let e = load(
            "sources:\n  slack:\n    kind: slack\n    command: [x]\n    timeout_ms: \"fast\"\n    enabled: maybe\n  notion:\n    kind: !weird x\n    url: 5\nbogus: 1\n",
            &[],
        )
        .unwrap_err();
        let at: Vec<(usize, usize)> = e.0.iter().map(|d| (d.line, d.column)).collect();
        assert_eq!(at, [(5, 17), (6, 14), (8, 18), (9, 10), (10, 1)], "{e}");
        let shown = e.to_string();
        assert!(
            shown.contains("`timeout_ms`") && shown.contains("whole number"),
            "{shown}"
        );
        assert!(shown.contains("unknown key `bogus`"), "{shown}");
        assert!(!shown.contains("Value::Tagged") && !shown.contains("u64"), "{shown}");
    }

    #[test]
    fn env_expansion() {
        let env = |k: &str| (k == "A").then(|| "1".to_string());
        assert_eq!(expand_env("x${A}y${A}", &env).unwrap(), "x1y1");
        assert_eq!(expand_env("${B:-dir}/tools", &env).unwrap(), "dir/tools");
        assert_eq!(expand_env("${A:-dir}", &env).unwrap(), "1");
        assert!(expand_env("${B}", &env).unwrap_err().contains("`B`"));
        assert!(expand_env("${A", &env).is_err());
    }
}
