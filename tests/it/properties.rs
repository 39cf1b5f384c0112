//! Property tests over the parsers sagasu owns: whatever the input, they return a value or a
//! positioned problem, never a panic, and never take long.

use std::path::Path;

use proptest::prelude::*;

/// Text that looks like the formats (YAML, JSON, front matter) more often than random bytes do.
fn formatish() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        Just("sources:".to_string()),
        Just("\n  slack:\n    kind: slack".to_string()),
        Just("command: [x, y]".to_string()),
        Just("url: ${VAR}".to_string()),
        Just("---\n".to_string()),
        Just("id: 0123456789abcdef0123456789abcdef\n".to_string()),
        Just("[".to_string()),
        Just("{".to_string()),
        Just("]".to_string()),
        Just("\"".to_string()),
        Just("'".to_string()),
        Just(": ".to_string()),
        Just("- ".to_string()),
        Just("\n".to_string()),
        Just("  ".to_string()),
        Just("!tag ".to_string()),
        Just("&a *a ".to_string()),
        Just("\\ud800".to_string()),
        Just("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":".to_string()),
        "[a-z0-9 :#\\-\\[\\]{}\"'\\n\\\\]{0,12}",
        "\\PC{0,6}",
    ];
    prop::collection::vec(atom, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn yaml_documents_parse_or_say_where(text in formatish()) {
        match sagasu::yaml::Document::parse(Path::new("p.yaml"), text.clone()) {
            Ok(doc) => {
                // Config validation of any document: a value or positioned problems.
                if let Err(d) = sagasu::config::Config::from_document(&doc, &|_| Some("v".into())) {
                    prop_assert!(!d.0.is_empty());
                    for p in &d.0 {
                        prop_assert!(p.line >= 1 && p.column >= 1);
                        prop_assert!(p.message.chars().count() <= sagasu::yaml::MAX_MESSAGE_CHARS + 1);
                    }
                }
            }
            Err(d) => prop_assert!(d.0.iter().all(|p| p.line >= 1)),
        }
    }

    #[test]
    fn stdio_lines_pass_or_get_a_json_rpc_error(line in formatish()) {
        if let Some(r) = sagasu::stdio::reply_to(&line) {
            let code = r["error"]["code"].as_i64().unwrap();
            prop_assert!([-32700, -32600, -32602].contains(&code), "{r}");
        }
    }

    #[test]
    fn notion_pages_parse_or_say_where(text in formatish()) {
        let _ = sagasu::offline::notion::parse_page("p.md", &text);
    }

    #[test]
    fn export_message_files_keep_what_reads(items in prop::collection::vec(formatish(), 0..6)) {
        let dir = tempfile::tempdir().unwrap();
        let body = format!("[{}]", items.iter().map(|i| serde_json::to_string(i).unwrap()).collect::<Vec<_>>().join(","));
        let path = dir.path().join("day.json");
        std::fs::write(&path, &body).unwrap();
        let folder = sagasu::offline::Folder::open(dir.path(), false).unwrap();
        let mut warnings = Vec::new();
        let got: Vec<String> = folder.read_items(&path, None, &mut warnings);
        prop_assert_eq!(got.len() + warnings.len(), items.len());
    }

    #[test]
    fn questions_never_panic_the_analysis(q in formatish()) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("policies");
        let policies = sagasu::policy::Policies::load(&dir, &[]).unwrap();
        let c = sagasu::intent::classify(&q, &policies.intents);
        let _ = sagasu::query::analyze_as(&q, Some(c.intent), chrono::Utc::now(), &policies.lexicon);
    }
}
