//! The tool catalog in front of live upstream MCP servers: their tools join the catalog as
//! `<server>__<tool>`, and `execute_tool` forwards a call after two checks, made before anything
//! reaches the upstream: the arguments against the tool's `inputSchema` (the error names the
//! failing field), and the execution policy (`policies/tools.yaml`): read-only by default, a
//! tool that may change data (annotated `destructiveHint`, or named like create/update/delete/
//! send/post) is refused unless an `allow` glob lets it through; a `deny` glob always refuses.

use std::collections::HashMap;
use std::path::Path;

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;
use serde_json::Value;

use crate::config::Config;
use crate::offline::tools::{Entry, ToolDef, split_identifier};
use crate::sources::connection::Connection;

/// `policies/tools.yaml`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecPolicyFile {
    /// Globs over full tool names (`github__create_issue`, `github__*`) that may run even when
    /// they may change data.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Globs over full tool names that never run.
    #[serde(default)]
    pub deny: Vec<String>,
}

/// The compiled execution policy.
#[derive(Debug, Clone)]
pub struct ExecPolicy {
    allow: GlobSet,
    deny: GlobSet,
    /// Where it came from, for messages.
    pub source: String,
}

/// Words in a tool's name that say it changes something.
const MUTATING_WORDS: &[&str] = &[
    "create", "update", "delete", "remove", "send", "post", "put", "patch", "write", "set", "add", "insert", "modify",
    "edit", "submit", "assign", "move", "rename", "archive", "close", "merge", "publish", "upload", "cancel",
    "approve", "trigger", "invite", "kick", "ban", "reset", "revoke", "grant", "drop", "purge", "clear",
];

impl ExecPolicy {
    fn globs(list: &[String], what: &str) -> Result<GlobSet, String> {
        let mut b = GlobSetBuilder::new();
        for g in list {
            b.add(Glob::new(g).map_err(|e| format!("{what}: `{g}` is not a glob: {e}"))?);
        }
        b.build().map_err(|e| format!("{what}: {e}"))
    }

    pub fn new(file: &ExecPolicyFile, source: &str) -> Result<ExecPolicy, String> {
        Ok(ExecPolicy {
            allow: Self::globs(&file.allow, "allow")?,
            deny: Self::globs(&file.deny, "deny")?,
            source: source.to_string(),
        })
    }

    /// The policy in `path`, or read-only (nothing allowed) when the file does not exist.
    pub fn load(path: &Path) -> Result<ExecPolicy, String> {
        if !path.exists() {
            return ExecPolicy::new(&ExecPolicyFile::default(), &path.display().to_string());
        }
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file: ExecPolicyFile = if text.trim().is_empty() {
            ExecPolicyFile::default()
        } else {
            serde_norway::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?
        };
        ExecPolicy::new(&file, &path.display().to_string())
    }

    /// Whether a tool may change data: its annotations say so (`destructiveHint: true`, or
    /// `readOnlyHint: false`, a server's explicit word that the tool changes its environment), or,
    /// with no such annotation, its name has a word like create, update, delete or send.
    pub fn is_mutating(tool: &ToolDef) -> bool {
        let hint = |k: &str| {
            tool.annotations
                .as_ref()
                .and_then(|a| a.get(k))
                .and_then(Value::as_bool)
        };
        if hint("destructiveHint") == Some(true) {
            return true;
        }
        match hint("readOnlyHint") {
            Some(true) => return false,
            Some(false) => return true,
            None => {}
        }
        split_identifier(&tool.name)
            .to_lowercase()
            .split_whitespace()
            .any(|w| MUTATING_WORDS.contains(&w))
    }

    /// `Ok` when `full_name` may run; otherwise the reason, with how to allow it.
    pub fn check(&self, full_name: &str, tool: &ToolDef) -> Result<(), String> {
        if self.deny.is_match(full_name) {
            return Err(format!(
                "`{full_name}` is denied by the execution policy ({})",
                self.source
            ));
        }
        if Self::is_mutating(tool) && !self.allow.is_match(full_name) {
            return Err(format!(
                "`{full_name}` may change data, and tools run read-only unless allowed: add `{full_name}` \
                 (or a glob such as `{}__*`) under `allow:` in {}",
                full_name.split("__").next().unwrap_or(full_name),
                self.source
            ));
        }
        Ok(())
    }
}

/// Checks `args` against `schema`; the error names the failing field.
pub fn validate(schema: &Value, args: &Value) -> Result<(), String> {
    if schema.as_object().is_none_or(|o| o.is_empty()) {
        return Ok(());
    }
    let validator = jsonschema::validator_for(schema).map_err(|e| format!("the tool's inputSchema is invalid: {e}"))?;
    let problems: Vec<String> = validator
        .iter_errors(args)
        .map(|e| {
            let at = e.instance_path.to_string();
            if at.is_empty() {
                format!("arguments: {e}")
            } else {
                format!("argument `{}`: {e}", at.trim_start_matches('/').replace('/', "."))
            }
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

/// The live upstream servers of a catalog, by name.
pub struct Upstreams {
    pub conns: HashMap<String, Connection>,
    /// Upstreams that could not be listed at startup, with why.
    pub down: Vec<(String, String)>,
    /// Names of upstreams that said their tool list changed (taken once, by the catalog's
    /// refresher).
    changed: std::sync::Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<String>>>,
}

/// An upstream's tools as catalog entries.
fn entries_of(server: &str, tools: Vec<rmcp::model::Tool>) -> Vec<Entry> {
    tools
        .into_iter()
        .map(|t| Entry {
            server: server.to_string(),
            tool: ToolDef {
                name: t.name.to_string(),
                description: t.description.as_deref().unwrap_or("").to_string(),
                input_schema: Value::Object((*t.input_schema).clone()),
                annotations: t.annotations.as_ref().and_then(|a| serde_json::to_value(a).ok()),
            },
        })
        .collect()
}

impl Upstreams {
    /// Connects to every enabled source of `config` and lists its tools as catalog entries. An
    /// upstream that is down is reported (in `down`), not fatal.
    pub async fn connect(config: &Config) -> (Upstreams, Vec<Entry>) {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let mut conns = HashMap::new();
        let mut down = Vec::new();
        let mut entries = Vec::new();
        let listed = futures::future::join_all(config.sources.iter().filter(|s| s.enabled).map(|s| {
            let tx = tx.clone();
            async move {
                let conn = Connection::watching_tools(s.clone(), tx);
                let tools = conn.list_tools().await;
                (s.name.clone(), conn, tools)
            }
        }))
        .await;
        for (name, conn, tools) in listed {
            match tools {
                Ok(tools) => entries.extend(entries_of(&name, tools)),
                Err(e) => {
                    tracing::warn!(upstream = %name, error = %e, "upstream is down; its tools are not in the catalog");
                    down.push((name.clone(), e.to_string()));
                }
            }
            conns.insert(name, conn);
        }
        let upstreams = Upstreams {
            conns,
            down,
            changed: std::sync::Mutex::new(Some(rx)),
        };
        (upstreams, entries)
    }

    /// The receiver of tool-list changes; `None` after the first call.
    pub fn take_changes(&self) -> Option<tokio::sync::mpsc::UnboundedReceiver<String>> {
        self.changed.lock().ok()?.take()
    }

    /// Lists `server`'s tools again.
    pub async fn relist(&self, server: &str) -> Result<Vec<Entry>, String> {
        let conn = self
            .conns
            .get(server)
            .ok_or_else(|| format!("no upstream `{server}`"))?;
        conn.list_tools()
            .await
            .map(|tools| entries_of(server, tools))
            .map_err(|e| e.to_string())
    }

    pub async fn shutdown(&self) {
        for c in self.conns.values() {
            c.shutdown().await;
        }
    }
}

/// Serves the catalog of `config`'s upstreams (plus the dumps in `data`, if given) over stdio, or
/// over streamable HTTP at `http`; stops the upstreams when it ends.
pub async fn run(
    config: &Config,
    data: Option<&Path>,
    policy: &Path,
    http: Option<std::net::SocketAddr>,
    synonyms: Option<crate::synonyms::Synonyms>,
) -> anyhow::Result<()> {
    use crate::offline::tools::{ToolCatalog, ToolsServer};
    let policy = ExecPolicy::load(policy).map_err(|e| anyhow::anyhow!("bad execution policy: {e}"))?;
    let (upstreams, mut entries) = Upstreams::connect(config).await;
    let mut warnings = Vec::new();
    if let Some(dir) = data {
        let dumps = ToolCatalog::load(dir).map_err(|e| anyhow::anyhow!("cannot load the tool dumps: {e}"))?;
        entries.extend(dumps.entries);
        warnings = dumps.warnings;
    }
    for (name, why) in &upstreams.down {
        eprintln!("warning: upstream `{name}` is down ({why}); its tools are not in the catalog");
    }
    let mut catalog = ToolCatalog::from_entries(entries, warnings)?;
    if let Some(s) = synonyms {
        catalog = catalog.with_synonyms(s);
    }
    tracing::info!(
        tools = catalog.entries.len(),
        upstreams = upstreams.conns.len(),
        "tool catalog ready"
    );
    let server = ToolsServer::with_upstreams(catalog, upstreams, policy);
    let result = match http {
        None => crate::offline::serve_stdio(server.clone()).await,
        Some(addr) => {
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|e| anyhow::anyhow!("cannot listen on `{addr}`: {e}"))?;
            eprintln!("serving the tool catalog at http://{}/mcp", listener.local_addr()?);
            crate::http::serve(server.clone(), listener, crate::http::shutdown_signal())
                .await
                .map_err(anyhow::Error::from)
        }
    };
    server.shutdown().await;
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, annotations: Option<Value>) -> ToolDef {
        ToolDef {
            name: name.into(),
            description: String::new(),
            input_schema: json!({}),
            annotations,
        }
    }

    #[test]
    fn read_only_unless_allowed_and_deny_wins() {
        let p = ExecPolicy::new(
            &ExecPolicyFile {
                allow: vec!["github__create_*".into()],
                deny: vec!["*__delete_*".into(), "github__list_secrets".into()],
            },
            "policies/tools.yaml",
        )
        .unwrap();
        assert!(p.check("jira__list_issues", &tool("list_issues", None)).is_ok());
        let err = p.check("slack__sendMessage", &tool("sendMessage", None)).unwrap_err();
        assert!(
            err.contains("may change data") && err.contains("`slack__*`") && err.contains("allow:"),
            "{err}"
        );
        assert!(p.check("github__create_issue", &tool("create_issue", None)).is_ok());
        assert!(
            p.check("github__delete_repo", &tool("delete_repo", None))
                .unwrap_err()
                .contains("denied")
        );
        assert!(p.check("github__list_secrets", &tool("list_secrets", None)).is_err());
        // Annotations speak louder than names.
        let ro = tool("update_index_stats", Some(json!({"readOnlyHint": true})));
        assert!(p.check("x__update_index_stats", &ro).is_ok());
        let destructive = tool("wipe", Some(json!({"destructiveHint": true})));
        assert!(p.check("x__wipe", &destructive).is_err());
        // A server that says a tool is not read-only is believed, whatever the name.
        let toggles = tool(
            "toggle-simulated-logging",
            Some(json!({"readOnlyHint": false, "destructiveHint": false})),
        );
        assert!(p.check("everything__toggle-simulated-logging", &toggles).is_err());
        let plain = tool("get-sum", Some(json!({"readOnlyHint": true, "destructiveHint": false})));
        assert!(p.check("everything__get-sum", &plain).is_ok());
        assert!(
            ExecPolicy::new(
                &ExecPolicyFile {
                    allow: vec!["[".into()],
                    deny: vec![]
                },
                "f"
            )
            .is_err()
        );
    }

    #[test]
    fn arguments_are_checked_against_the_schema_naming_the_field() {
        let schema = json!({"type": "object", "properties": {
            "count": {"type": "integer", "minimum": 1},
            "room": {"type": "string"}
        }, "required": ["room"]});
        assert!(validate(&schema, &json!({"room": "general", "count": 3})).is_ok());
        let e = validate(&schema, &json!({"room": "general", "count": "three"})).unwrap_err();
        assert!(e.contains("`count`"), "{e}");
        let e = validate(&schema, &json!({"count": 2})).unwrap_err();
        assert!(e.contains("room"), "{e}");
        assert!(validate(&json!({}), &json!({"anything": 1})).is_ok());
    }
}
