//! The tool catalog in front of live upstream MCP servers: their tools join the catalog as
//! `<server>__<tool>`, and `execute_tool` forwards a call after two checks, made before anything
//! reaches the upstream: the arguments against the tool's `inputSchema` (the error names the
//! failing field), and the execution policy (`policies/tools.yaml`): read-only by default, so a
//! tool runs only when its server annotates it `readOnlyHint: true` (and not `destructiveHint`)
//! and its name says nothing like delete, wipe or exec, or when an `allow` rule names it; a
//! `deny` rule always refuses. Rules match (server, tool), never a joined string.

use std::collections::HashMap;
use std::path::Path;

use globset::Glob;
use serde::Deserialize;
use serde_json::Value;

use crate::config::Config;
use crate::servers::tools::catalog::{Entry, ToolDef, split_identifier};
use crate::sources::connection::Connection;

/// `policies/tools.yaml`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecPolicyFile {
    /// Rules `<server>__<tool>` (globs on each side: `github__create_issue`, `github__*`) for
    /// tools that may run although they are not annotated read-only.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Rules of the same form for tools that never run.
    #[serde(default)]
    pub deny: Vec<String>,
}

/// One rule: a glob over server names and one over tool names. A rule is written
/// `<server>__<tool>` and split at its first `__`: server names never contain `__`, so the
/// split is the one the catalog made.
#[derive(Debug, Clone)]
struct Rule {
    text: String,
    server: globset::GlobMatcher,
    tool: globset::GlobMatcher,
}

impl Rule {
    fn parse(text: &str, what: &str) -> Result<Rule, String> {
        let Some((server, tool)) = text.split_once("__") else {
            return Err(format!(
                "{what}: `{text}` must name `<server>__<tool>` (globs allowed on either side, e.g. `github__*`)"
            ));
        };
        let glob = |g: &str| {
            Glob::new(g)
                .map(|g| g.compile_matcher())
                .map_err(|e| format!("{what}: `{text}` is not a glob: {e}"))
        };
        Ok(Rule {
            text: text.to_string(),
            server: glob(server)?,
            tool: glob(tool)?,
        })
    }

    fn matches(&self, server: &str, tool: &str) -> bool {
        self.server.is_match(server) && self.tool.is_match(tool)
    }
}

/// The compiled execution policy.
#[derive(Debug, Clone)]
pub struct ExecPolicy {
    allow: Vec<Rule>,
    deny: Vec<Rule>,
    /// Where it came from, for messages.
    pub source: String,
}

/// Words in a tool's name that say it destroys, runs arbitrary code or moves something of value.
/// A tool so named runs only when a rule allows it, even when annotated read-only: an annotation
/// is the upstream's claim, not proof.
const DANGEROUS_WORDS: &[&str] = &[
    "delete",
    "del",
    "remove",
    "rm",
    "drop",
    "wipe",
    "destroy",
    "purge",
    "erase",
    "truncate",
    "format",
    "kill",
    "terminate",
    "shutdown",
    "reboot",
    "uninstall",
    "exec",
    "execute",
    "shell",
    "eval",
    "transfer",
    "deploy",
    "revoke",
    "reset",
    "overwrite",
];

impl ExecPolicy {
    fn rules(list: &[String], what: &str) -> Result<Vec<Rule>, String> {
        list.iter().map(|r| Rule::parse(r, what)).collect()
    }

    pub fn new(file: &ExecPolicyFile, source: &str) -> Result<ExecPolicy, String> {
        Ok(ExecPolicy {
            allow: Self::rules(&file.allow, "allow")?,
            deny: Self::rules(&file.deny, "deny")?,
            source: source.to_string(),
        })
    }

    /// The policy in `path`. When the file does not exist: read-only (nothing allowed) if
    /// `path` is only the default place, an error if the user named it.
    pub fn load(path: &Path, named: bool) -> Result<ExecPolicy, String> {
        if !named && !path.exists() {
            return ExecPolicy::new(&ExecPolicyFile::default(), &path.display().to_string());
        }
        let text = crate::util::fs::read_regular(path, crate::util::fs::MAX_CONFIG_BYTES)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let file: ExecPolicyFile = if text.trim().is_empty() {
            ExecPolicyFile::default()
        } else {
            serde_norway::from_str(&text)
                .map_err(|e| format!("{}: {}", path.display(), crate::util::yaml::short(&e.to_string())))?
        };
        ExecPolicy::new(&file, &path.display().to_string())
    }

    fn hint(tool: &ToolDef, key: &str) -> Option<bool> {
        tool.annotations
            .as_ref()
            .and_then(|a| a.get(key))
            .and_then(Value::as_bool)
    }

    /// Whether a tool says it only reads: annotated `readOnlyHint: true`, not `destructiveHint`.
    pub fn is_annotated_read_only(tool: &ToolDef) -> bool {
        Self::hint(tool, "readOnlyHint") == Some(true) && Self::hint(tool, "destructiveHint") != Some(true)
    }

    /// Whether a tool's name has a word that says it destroys or runs arbitrary code.
    pub fn has_dangerous_name(tool: &ToolDef) -> bool {
        split_identifier(&tool.name)
            .to_lowercase()
            .split_whitespace()
            .any(|w| DANGEROUS_WORDS.contains(&w))
    }

    /// `Ok` when `server`'s `tool` may run; otherwise the reason, with the line that allows it.
    /// A tool runs when no `deny` rule matches and either an `allow` rule matches it or it is
    /// annotated read-only and its name says nothing dangerous.
    pub fn check(&self, server: &str, tool: &ToolDef) -> Result<(), String> {
        let name = &tool.name;
        let full = format!("{server}__{name}");
        if let Some(r) = self.deny.iter().find(|r| r.matches(server, name)) {
            return Err(format!(
                "`{full}` is denied by the execution policy (rule `{}` in {})",
                r.text, self.source
            ));
        }
        if self.allow.iter().any(|r| r.matches(server, name)) {
            return Ok(());
        }
        let why = if !Self::is_annotated_read_only(tool) {
            "is not annotated read-only (readOnlyHint: true) by its server, and tools run read-only unless allowed"
        } else if Self::has_dangerous_name(tool) {
            "is annotated read-only, but its name says it may destroy or run something, so it runs only when allowed"
        } else {
            return Ok(());
        };
        Err(format!(
            "`{full}` {why}: to let it run, add `- {full}` under `allow:` in {}",
            self.source
        ))
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

    fn policy(allow: &[&str], deny: &[&str]) -> ExecPolicy {
        let file = ExecPolicyFile {
            allow: allow.iter().map(|s| s.to_string()).collect(),
            deny: deny.iter().map(|s| s.to_string()).collect(),
        };
        ExecPolicy::new(&file, "policies/tools.yaml").unwrap()
    }

    const READ_ONLY: fn() -> Option<Value> = || Some(json!({"readOnlyHint": true, "destructiveHint": false}));

    #[test]
    fn only_tools_annotated_read_only_run_by_default() {
        let p = policy(&[], &[]);
        // The verbs a deny list of "mutating words" let through: none runs unannotated.
        for name in [
            "wipe_disk",
            "destroy_cluster",
            "exec_shell",
            "run_command",
            "transfer_money",
            "rm_rf",
            "format_volume",
            "shutdown_server",
            "deploy_prod",
            "kill_process",
            "list_issues",
        ] {
            let err = p.check("ops", &tool(name, None)).unwrap_err();
            assert!(
                err.contains("not annotated read-only")
                    && err.contains(&format!("- ops__{name}"))
                    && err.contains("allow:"),
                "{err}"
            );
        }
        assert!(p.check("jira", &tool("list_issues", READ_ONLY())).is_ok());
        // A server that says a tool is not read-only, or destructive, is believed.
        let toggles = tool(
            "toggle-simulated-logging",
            Some(json!({"readOnlyHint": false, "destructiveHint": false})),
        );
        assert!(p.check("everything", &toggles).is_err());
        let destructive = tool("tidy", Some(json!({"readOnlyHint": true, "destructiveHint": true})));
        assert!(p.check("x", &destructive).is_err());
    }

    #[test]
    fn a_read_only_hint_on_a_destructive_name_is_not_proof() {
        let p = policy(&["ops__purge_cache"], &[]);
        for name in ["delete_repo", "drop_table", "wipe_disk", "exec_shell", "kill_process"] {
            let err = p.check("ops", &tool(name, READ_ONLY())).unwrap_err();
            assert!(
                err.contains("its name says") && err.contains(&format!("- ops__{name}")),
                "{err}"
            );
        }
        assert!(
            p.check("ops", &tool("purge_cache", READ_ONLY())).is_ok(),
            "allowed by name"
        );
        assert!(p.check("ops", &tool("get_deletion_log", READ_ONLY())).is_ok());
    }

    #[test]
    fn allow_and_deny_rules_match_server_and_tool_apart() {
        let p = policy(
            &["github__create_*", "a__b__c"],
            &["*__delete_*", "github__list_secrets"],
        );
        assert!(p.check("github", &tool("create_issue", None)).is_ok());
        let denied = p.check("github", &tool("delete_repo", READ_ONLY())).unwrap_err();
        assert!(
            denied.contains("denied") && denied.contains("`*__delete_*`"),
            "{denied}"
        );
        assert!(p.check("github", &tool("list_secrets", READ_ONLY())).is_err());
        // `a__b__c` is server `a`'s tool `b__c`, never server `a__b`'s tool `c` (server names
        // cannot hold `__`, so the first `__` is where the server ends).
        assert!(p.check("a", &tool("b__c", None)).is_ok());
        assert!(p.check("a__b", &tool("c", None)).is_err());
        let refused = |rule: &str| {
            let file = ExecPolicyFile {
                allow: vec![rule.into()],
                deny: vec![],
            };
            ExecPolicy::new(&file, "f").unwrap_err()
        };
        let e = refused("no_server_part");
        assert!(e.contains("<server>__<tool>"), "{e}");
        let e = refused("x__[");
        assert!(e.contains("not a glob"), "{e}");
    }

    #[test]
    fn a_named_policy_file_that_does_not_exist_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("tools.yaml");
        assert!(
            ExecPolicy::load(&missing, false).is_ok(),
            "the default place may be empty"
        );
        let e = ExecPolicy::load(&missing, true).unwrap_err();
        assert!(e.contains("tools.yaml"), "{e}");
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
