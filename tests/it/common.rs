//! Shared helpers: paths to the demo workspace and configurations that run the built binary.

use std::path::{Path, PathBuf};
use std::process::Command;

use sagasu::config::Config;
use sagasu::util::yaml::Document;

/// The fields of the answer object (contracts section 4).
pub const CONTRACT_FIELDS: [&str; 7] = [
    "question",
    "intent",
    "answer",
    "confidence",
    "conflicts",
    "citations",
    "sources",
];

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn demo() -> PathBuf {
    repo().join("examples/acme")
}

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_sagasu")
}

/// Runs the built binary from the repository root: (exit status, stdout, stderr).
pub fn run(args: &[&str]) -> (i32, String, String) {
    output(Command::new(bin()).args(args))
}

/// Runs `cmd` from the repository root without `RUST_LOG`: (exit status, stdout, stderr).
fn output(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd
        .current_dir(repo())
        .env_remove("RUST_LOG")
        .output()
        .expect("run sagasu");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// A configuration whose `sagasu` commands run the built binary (tests run inside the test
/// executable, so `current_exe` would be the wrong program).
pub fn config_from(yaml: &str, dir: &Path) -> Config {
    let yaml = yaml.replace("[sagasu,", &format!("[{:?},", bin()));
    let doc = Document::parse(&dir.join("sagasu.yaml"), yaml).expect("valid yaml");
    Config::from_document(&doc, &|_| None).expect("valid config")
}

/// The demo's four offline sources.
pub fn demo_config() -> Config {
    let text = std::fs::read_to_string(demo().join("sagasu.yaml")).expect("demo config");
    config_from(&text, &demo())
}

/// Whether `id` has the contract's shape for its source kind (contracts section 1).
pub fn is_contract_id(id: &str) -> bool {
    let Some((source, native)) = id.split_once(':') else {
        return false;
    };
    match source {
        "slack" => native
            .split_once('/')
            .is_some_and(|(c, ts)| !c.is_empty() && ts.len() == 17 && ts.as_bytes()[10] == b'.'),
        "notion" => native.len() == 32 && native.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
        "rocketchat" => !native.is_empty() && native.chars().all(|c| c.is_ascii_alphanumeric()),
        "tools" => native
            .split_once("__")
            .is_some_and(|(s, t)| !s.is_empty() && !t.is_empty()),
        _ => false,
    }
}

/// Copies a folder tree (an export to spoil in a test).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// Spawns `cmd` (an HTTP server of the built binary, stderr piped) and returns it with the URL
/// its startup line names; stderr is drained from then on, so the server never blocks on it.
pub async fn spawn_http(mut cmd: tokio::process::Command) -> (tokio::process::Child, String) {
    use tokio::io::AsyncBufReadExt;
    cmd.stderr(std::process::Stdio::piped()).kill_on_drop(true);
    let mut child = cmd.spawn().unwrap();
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let url = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(i) = line.find("http://") {
                return line[i..].split_whitespace().next().unwrap().to_string();
            }
        }
        panic!("the server never said where it listens");
    })
    .await
    .unwrap();
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, url)
}

/// The data directory the tests install sagasu's language resources into (`target/sagasu-data`,
/// as `.ci/run` does), installing `what` (a resource of `scripts/install-language-data`, or
/// `all`) first if needed with that script, once per test process.
pub fn language_data(what: &str) -> PathBuf {
    static DONE: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let dir = std::env::var_os("SAGASU_DATA")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/sagasu-data"));
    let mut done = DONE.lock().unwrap_or_else(|e| e.into_inner());
    if !done.iter().any(|d| d == what) {
        let status = Command::new("bash")
            .arg(repo().join("scripts/install-language-data"))
            .arg(what)
            .env("SAGASU_DATA", &dir)
            .status()
            .expect("run scripts/install-language-data");
        assert!(
            status.success(),
            "scripts/install-language-data {what} failed: {status}"
        );
        done.push(what.to_string());
    }
    dir
}

/// Runs the built binary from the repository root with `SAGASU_DATA` set to `data`.
pub fn run_with_data(data: &Path, args: &[&str]) -> (i32, String, String) {
    output(Command::new(bin()).args(args).env("SAGASU_DATA", data))
}
