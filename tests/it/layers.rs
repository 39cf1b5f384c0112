//! The module graph of `src/` stays one way: no module uses a module that (directly or through
//! others) uses it, and the folders keep the layer order ARCHITECTURE.md draws. Read from the
//! source: every `crate::` path and `use crate::{...}` group outside `#[cfg(test)]` code.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The folders (and top-level files) of `src/`, lowest first: a module may use what is in its
/// own folder or in a folder before it, never one after it.
const LAYERS: &[&str] = &[
    "util", "hit", "text", "wire", "config", "sources", "llm", "pipeline", "servers", "eval", "app",
];

/// Every module of `src/` (`text::values`, `servers::tools::catalog`, ...) with its source,
/// the part before its tests.
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<String, String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for path in entries {
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            if path.is_dir() {
                let mut p = prefix.to_vec();
                p.push(name);
                walk(&path, &p, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let mut p = prefix.to_vec();
                if !matches!(name.as_str(), "mod" | "lib" | "main") {
                    p.push(name);
                }
                let text = std::fs::read_to_string(&path).unwrap();
                let code = text.split("#[cfg(test)]").next().unwrap_or_default().to_string();
                out.insert(p.join("::"), code);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &[], &mut out);
    out
}

/// The modules `code` names: the longest known module prefix of every `crate::` path.
fn uses(code: &str, known: &BTreeMap<String, String>) -> BTreeSet<String> {
    let path = regex::Regex::new(r"crate::((?:\w+::)*\w+)").unwrap();
    let group = regex::Regex::new(r"(?s)use crate::\{(.*?)\};").unwrap();
    let inner = regex::Regex::new(r"\{[^{}]*\}").unwrap();
    let mut paths: Vec<String> = path.captures_iter(code).map(|c| c[1].to_string()).collect();
    for g in group.captures_iter(code) {
        // Top-level items of the group: `a::b`, `c::{d, e}` → `a::b`, `c`.
        let flat = inner.replace_all(&g[1], "");
        paths.extend(flat.split(',').map(|p| p.trim().trim_end_matches("::").to_string()));
    }
    let mut out = BTreeSet::new();
    for p in paths {
        let parts: Vec<&str> = p.split("::").collect();
        if let Some(m) = (1..=parts.len())
            .rev()
            .map(|k| parts[..k].join("::"))
            .find(|m| known.contains_key(m))
        {
            out.insert(m);
        }
    }
    out
}

#[test]
fn no_module_uses_a_module_that_uses_it() {
    let mods = modules();
    assert!(mods.len() > 40, "read only {} modules of src/", mods.len());
    let graph: BTreeMap<&str, BTreeSet<String>> = mods
        .iter()
        .map(|(m, code)| {
            let mut u = uses(code, &mods);
            u.remove(m);
            (m.as_str(), u)
        })
        .collect();
    // Depth-first search for a back edge; report the cycle it closes.
    fn visit<'a>(
        m: &'a str,
        graph: &'a BTreeMap<&str, BTreeSet<String>>,
        state: &mut BTreeMap<&'a str, bool>,
        stack: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        match state.get(m) {
            Some(true) => return None,
            Some(false) => {
                let at = stack.iter().position(|s| *s == m).unwrap_or(0);
                let mut cycle: Vec<String> = stack[at..].iter().map(|s| s.to_string()).collect();
                cycle.push(m.to_string());
                return Some(cycle);
            }
            None => {}
        }
        state.insert(m, false);
        stack.push(m);
        for next in graph.get(m).into_iter().flatten() {
            if let Some(c) = visit(next, graph, state, stack) {
                return Some(c);
            }
        }
        stack.pop();
        state.insert(m, true);
        None
    }
    let mut state = BTreeMap::new();
    for m in graph.keys() {
        if let Some(cycle) = visit(m, &graph, &mut state, &mut Vec::new()) {
            panic!("module cycle: {}", cycle.join(" -> "));
        }
    }
}

#[test]
fn folders_use_only_the_layers_below_them() {
    let mods = modules();
    let layer = |m: &str| LAYERS.iter().position(|l| *l == m.split("::").next().unwrap_or(m));
    let mut wrong = Vec::new();
    for (m, code) in &mods {
        let Some(own) = layer(m) else {
            // The crate root (lib.rs and main.rs' binary) sits above every layer.
            assert!(m.is_empty(), "`{m}` is in no layer of LAYERS: add its folder in order");
            continue;
        };
        for used in uses(code, &mods) {
            if layer(&used).is_some_and(|l| l > own) {
                wrong.push(format!("{m} uses {used}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "a module uses a layer above its own:\n{}",
        wrong.join("\n")
    );
}
