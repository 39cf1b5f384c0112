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
        match sagasu::util::yaml::Document::parse(Path::new("p.yaml"), text.clone()) {
            Ok(doc) => {
                // Config validation of any document: a value or positioned problems.
                if let Err(d) = sagasu::config::Config::from_document(&doc, &|_| Some("v".into())) {
                    prop_assert!(!d.0.is_empty());
                    for p in &d.0 {
                        prop_assert!(p.line >= 1 && p.column >= 1);
                        prop_assert!(p.message.chars().count() <= sagasu::util::yaml::MAX_MESSAGE_CHARS + 1);
                    }
                }
            }
            Err(d) => prop_assert!(d.0.iter().all(|p| p.line >= 1)),
        }
    }

    #[test]
    fn stdio_lines_pass_or_get_a_json_rpc_error(line in formatish()) {
        if let Some(r) = sagasu::servers::stdio::reply_to(&line) {
            let code = r["error"]["code"].as_i64().unwrap();
            prop_assert!([-32700, -32600, -32602].contains(&code), "{r}");
        }
    }

    #[test]
    fn notion_pages_parse_or_say_where(text in formatish()) {
        let _ = sagasu::servers::offline::notion::parse_page("p.md", &text);
    }

    #[test]
    fn export_message_files_keep_what_reads(items in prop::collection::vec(formatish(), 0..6)) {
        let dir = tempfile::tempdir().unwrap();
        let body = format!("[{}]", items.iter().map(|i| serde_json::to_string(i).unwrap()).collect::<Vec<_>>().join(","));
        let path = dir.path().join("day.json");
        std::fs::write(&path, &body).unwrap();
        let folder = sagasu::servers::offline::Folder::open(dir.path(), false).unwrap();
        let mut warnings = Vec::new();
        let got: Vec<String> = folder.read_items(&path, None, &mut warnings);
        prop_assert_eq!(got.len() + warnings.len(), items.len());
    }

    #[test]
    fn questions_never_panic_the_analysis(q in formatish()) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("policies");
        let policies = sagasu::config::policy::Policies::load(&dir, &[]).unwrap();
        let _ = sagasu::pipeline::query::analyze_question(
            &q,
            &policies.intents,
            None,
            chrono::Utc::now(),
            &policies.lexicon,
            sagasu::text::encoder::shared(),
        );
    }
}

/// Text shaped like what the backends' MCP tools return (Slack Markdown and CSV, Notion and
/// RocketChat JSON, tool-catalog JSON), cut and spliced.
fn resultish() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        Just("# Search Results for \"q\"\n".to_string()),
        Just("## Messages (3 results)\n".to_string()),
        Just("### Result 1 of 3\n".to_string()),
        Just("Channel: #general (ID: C1)\n".to_string()),
        Just("From: Ken (ID: U1)\n".to_string()),
        Just("Time: 2026-11-01 10:00:00 UTC\n".to_string()),
        Just("Message_ts: 1794703080.237475\n".to_string()),
        Just("Permalink: [link](https://x.slack.com/archives/C1/p1794703080237475?thread_ts=1.2)\n".to_string()),
        Just("Text: hello\n".to_string()),
        Just("---\n".to_string()),
        Just("Next cursor: 20\n".to_string()),
        Just("No results found.".to_string()),
        Just("MsgID,UserID,UserName,RealName,Channel,ThreadTs,Text,Time,Cursor\n".to_string()),
        Just("1.2,U1,ken,Ken,#general,,hi,2026-11-01T10:00:00Z,\n".to_string()),
        Just("{\"results\":[".to_string()),
        Just("{\"id\":\"0123456789abcdef0123456789abcdef\",\"title\":\"T\",\"url\":\"u\",\"type\":\"page\",\"highlight\":\"h\",\"timestamp\":\"2026-11-01T00:00:00Z\"}".to_string()),
        Just("{\"object\":\"page\",\"id\":\"x\",\"last_edited_time\":\"2026-11-01\",\"properties\":{\"Name\":{\"title\":[{\"plain_text\":\"P\"}]}}}".to_string()),
        Just("{\"messages\":[{\"_id\":\"m\",\"rid\":\"r\",\"msg\":\"x\",\"ts\":\"2026-11-01T00:00:00Z\",\"u\":{\"username\":\"k\"}}]".to_string()),
        Just("{\"toolName\":\"a__b\",\"description\":\"d\",\"relevanceScore\":0.5}".to_string()),
        Just("<page><properties>".to_string()),
        Just("<content>".to_string()),
        Just("\"has_more\":true,\"next_cursor\":\"c\"".to_string()),
        Just("]".to_string()),
        Just("}".to_string()),
        Just(",".to_string()),
        Just("\"".to_string()),
        Just(":".to_string()),
        Just("null".to_string()),
        "[a-zA-Z0-9 :#,\\-\\[\\]{}\"\\n]{0,10}",
        "\\PC{0,4}",
    ];
    prop::collection::vec(atom, 0..30).prop_map(|v| v.concat())
}

/// Every hit a parser returns has a contract id of its source (contracts section 1).
fn contract_hits(source: &str, hits: &[sagasu::hit::Hit]) -> Result<(), TestCaseError> {
    for h in hits {
        prop_assert!(h.id.starts_with(&format!("{source}:")), "{}", h.id);
        prop_assert!(crate::common::is_contract_id(&h.id), "not a contract id: {}", h.id);
        prop_assert_eq!(&h.source, source);
    }
    Ok(())
}

/// A JSON value of any shape, for `ask` arguments.
fn jsonish() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::json;
    let leaf = prop_oneof![
        Just(json!(null)),
        any::<bool>().prop_map(|b| json!(b)),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        Just(json!("")),
        Just(json!("2026-10-01")),
        Just(json!("2026-10-01T09:00:00Z")),
        Just(json!("2026-99-99")),
        Just(json!("slack")),
        Just(json!("status")),
        Just(json!("What is the refund policy?")),
        "\\PC{0,8}".prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..3)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

fn demo_engine() -> &'static sagasu::pipeline::ask::Engine {
    static ENGINE: std::sync::OnceLock<sagasu::pipeline::ask::Engine> = std::sync::OnceLock::new();
    ENGINE.get_or_init(|| {
        let config = crate::common::demo_config();
        let names: Vec<String> = config.sources.iter().map(|s| s.name.clone()).collect();
        let policies = sagasu::config::policy::Policies::load(&config.policies, &names).unwrap();
        sagasu::pipeline::ask::Engine::new(config, policies)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn slack_markdown_and_csv_results_parse_or_say_why(text in resultish(), limit in 0usize..30) {
        if let Ok(page) = sagasu::sources::slack::parse_markdown("slack", &text) {
            contract_hits("slack", &page.hits)?;
        }
        if let Ok(r) = sagasu::sources::slack::parse_csv("slack", &text, limit) {
            prop_assert!(r.hits.len() <= limit.max(1) || limit == 0, "{} hits for limit {limit}", r.hits.len());
            contract_hits("slack", &r.hits)?;
        }
    }

    #[test]
    fn notion_json_results_parse_or_say_why(text in resultish()) {
        if let Ok(hits) = sagasu::sources::notion::parse_hosted_search("notion", &text) {
            contract_hits("notion", &hits)?;
        }
        let _ = sagasu::sources::notion::parse_hosted_fetch(&text);
        if let Ok((hits, _)) = sagasu::sources::notion::parse_api_search("notion", &text) {
            contract_hits("notion", &hits)?;
        }
        let _ = sagasu::sources::notion::parse_block_children(&text);
    }

    #[test]
    fn rocketchat_and_tool_results_parse_or_say_why(text in resultish()) {
        if let Ok(r) = sagasu::sources::rocketchat::parse("rocketchat", &text) {
            contract_hits("rocketchat", &r.hits)?;
        }
        if let Ok(hits) = sagasu::sources::tools::parse_search("tools", &text) {
            contract_hits("tools", &hits)?;
        }
    }

    #[test]
    fn golden_sets_load_or_say_where(text in formatish(), extra in resultish()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("set.yaml");
        // Half the cases start as a golden set, so that the validation past parsing runs too.
        let body = if extra.len() % 2 == 0 {
            format!("version: 1\nworkspace: w\nas_of: 2026-11-30T00:00:00Z\nquestions:\n  - id: q1\n    question: {text:?}\n    intent: status\n    relevant:\n      - id: {extra:?}\n        grade: 2\n")
        } else {
            text
        };
        std::fs::write(&path, body).unwrap();
        if let Err(d) = sagasu::eval::golden::load(&path, None) {
            prop_assert!(!d.0.is_empty());
            for p in &d.0 {
                prop_assert!(p.line >= 1 && p.column >= 1, "{p:?}");
                prop_assert!(p.message.chars().count() <= sagasu::util::yaml::MAX_MESSAGE_CHARS + 1);
            }
        }
    }

    #[test]
    fn policy_files_load_or_say_where(text in formatish()) {
        let dir = tempfile::tempdir().unwrap();
        let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("policies");
        crate::common::copy_dir(&real, dir.path());
        std::fs::write(dir.path().join("status.yaml"), &text).unwrap();
        if let Err(d) = sagasu::config::policy::Policies::load(dir.path(), &["slack".to_string()]) {
            prop_assert!(!d.0.is_empty());
            for p in &d.0 {
                prop_assert!(p.line >= 1 && p.column >= 1, "{p:?}");
            }
        }
    }

    #[test]
    fn ask_arguments_are_options_or_invalid_params(args in prop::collection::btree_map(
        prop_oneof![
            Just("question".to_string()),
            Just("sources".to_string()),
            Just("limit".to_string()),
            Just("since".to_string()),
            Just("until".to_string()),
            Just("intent".to_string()),
            "[a-z]{1,5}",
        ],
        jsonish(),
        0..6,
    )) {
        let value = serde_json::Value::Object(args.into_iter().collect());
        // rmcp turns a deserialization error into invalid_params; what deserializes is checked.
        if let Ok(a) = serde_json::from_value::<sagasu::servers::serve::AskArgs>(value) {
            match a.options(demo_engine()) {
                Ok(o) => {
                    prop_assert!(!a.question.trim().is_empty());
                    prop_assert!(o.limit.is_none_or(|l| (1..=sagasu::servers::serve::MAX_LIMIT).contains(&l)));
                    if let (Some(s), Some(u)) = (o.since, o.until) {
                        prop_assert!(s < u);
                    }
                }
                Err(e) => prop_assert_eq!(e.code, rmcp::model::ErrorCode::INVALID_PARAMS),
            }
        }
    }
}
