//! Chat mentions by name: Slack writes a mention as a user id (`<@U0NDQJ0NTGC>`, shown as
//! `@U0NDQJ0NTGC`) and RocketChat as a username (`@kenji.watanabe`), which match no name in a
//! "who" question. The hosted Slack server has no tool that lists users, but every hit names its
//! author with the author's id (`From: Name (ID: U…)`; the CSV server's `UserID`; RocketChat's
//! `u.username`): across everything the sources returned for one question, a mentioned id or
//! username whose author is known is shown as `@Name`.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::sources::SourceOutcome;

/// A mention: `@` and an id or username (letters, digits, `.`, `-`, `_`, ending in a letter or
/// digit), not inside an e-mail address (what precedes the `@` is kept in the first group). Only
/// the ids and usernames of known authors are replaced.
static MENTION: LazyLock<regex::Regex> = LazyLock::new(|| {
    // A pattern literal: compiling it cannot fail.
    regex::Regex::new(r"(^|[^\w.@])@(\w(?:[\w.\-]*\w)?)").expect("valid regex")
});

/// Replaces every known `@<id>` in the hits' texts and titles by `@<author name>`.
pub fn resolve(outcomes: &mut [SourceOutcome]) {
    let names: HashMap<String, String> = outcomes
        .iter()
        .flat_map(|o| &o.hits)
        .filter_map(|h| Some((h.author_id.clone()?, h.author.clone()?)))
        .filter(|(id, name)| !name.trim().is_empty() && name != id)
        .collect();
    if names.is_empty() {
        return;
    }
    let render = |text: &str| -> Option<String> {
        if !text.contains('@') {
            return None;
        }
        let out = MENTION.replace_all(text, |c: &regex::Captures| match names.get(&c[2]) {
            Some(name) => format!("{}@{name}", &c[1]),
            None => c[0].to_string(),
        });
        match out {
            std::borrow::Cow::Owned(s) if s != text => Some(s),
            _ => None,
        }
    };
    for h in outcomes.iter_mut().flat_map(|o| o.hits.iter_mut()) {
        if let Some(t) = render(&h.text) {
            h.text = t;
        }
        if let Some(t) = render(&h.title) {
            h.title = t;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hit::{EvidenceKind, Hit};

    fn outcome(hits: Vec<Hit>) -> SourceOutcome {
        let found = crate::sources::SourceResult {
            hits,
            ..Default::default()
        };
        SourceOutcome::from_result("slack", Ok(found), std::time::Duration::from_millis(1))
    }

    fn hit(native: &str, text: &str, author: Option<(&str, &str)>) -> Hit {
        let mut h = Hit::new("slack", native, EvidenceKind::Chat, text);
        h.title = format!("#sales: {text}");
        if let Some((name, id)) = author {
            h.author = Some(name.into());
            h.author_id = Some(id.into());
        }
        h
    }

    #[test]
    fn a_mentioned_id_becomes_the_name_its_author_hits_give() {
        let mut o = [outcome(vec![
            hit(
                "sales/1.000001",
                "BRIGHTLINE SIGNED, huge thanks @U0NDQJ0NTGC and @U999999999",
                None,
            ),
            hit(
                "sales/1.000002",
                "Contract is with legal now.",
                Some(("Mei Lin", "U0NDQJ0NTGC")),
            ),
        ])];
        resolve(&mut o);
        assert_eq!(
            o[0].hits[0].text,
            "BRIGHTLINE SIGNED, huge thanks @Mei Lin and @U999999999"
        );
        assert!(o[0].hits[0].title.contains("@Mei Lin"), "{}", o[0].hits[0].title);
    }

    #[test]
    fn a_rocketchat_username_becomes_its_authors_name() {
        let mut o = [outcome(vec![
            hit(
                "x/1.000001",
                "@kenji.watanabe は大阪の件を担当します。thanks @kenji.watanabe.",
                None,
            ),
            hit("x/1.000002", "了解です", Some(("渡辺 健二", "kenji.watanabe"))),
        ])];
        resolve(&mut o);
        assert_eq!(
            o[0].hits[0].text,
            "@渡辺 健二 は大阪の件を担当します。thanks @渡辺 健二."
        );
    }

    #[test]
    fn an_email_or_a_handle_is_left_alone() {
        let mut o = [outcome(vec![
            hit("x/1.000001", "mail ops@UMBRELLA.io or ping @sato", None),
            hit("x/1.000002", "hi", Some(("Umbrella Bot", "UMBRELLA"))),
        ])];
        resolve(&mut o);
        assert_eq!(o[0].hits[0].text, "mail ops@UMBRELLA.io or ping @sato");
    }
}
