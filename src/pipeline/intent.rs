//! Intent classification: which of the seven kinds of question this is, from the cues in
//! `policies/intents.yaml`, with a score and a secondary intent when the question carries two.

use serde::Serialize;

use crate::config::policy::{Intent, IntentCues};

/// The classified intent(s) of a question (contracts section 4: `intent`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct Classified {
    #[serde(rename = "type")]
    pub intent: Intent,
    /// Share of the cue weight that went to the winner (0..1); 0 when no cue matched.
    pub score: f64,
    pub secondary: Vec<Intent>,
    /// Every intent's share of the cue weight (0..1, summing to 1 when any cue matched), in
    /// the order of `Intent::ALL`: what a blend of policies would read. The top one is `intent`.
    #[serde(skip)]
    #[schemars(skip)]
    pub scores: Vec<(Intent, f64)>,
}

impl Classified {
    /// The intent a caller chose (`--intent`): certain, no secondary.
    pub fn forced(intent: Intent) -> Classified {
        Classified {
            intent,
            score: 1.0,
            secondary: Vec::new(),
            scores: Intent::ALL
                .iter()
                .map(|i| (*i, if *i == intent { 1.0 } else { 0.0 }))
                .collect(),
        }
    }
}

/// Whether `cue` occurs in `q` (both normalised): whole words for Latin text, substrings for
/// Japanese (`text::find_phrase`).
pub fn cue_matches(q: &str, cue: &str) -> bool {
    crate::text::find_phrase(q, cue).is_some()
}

/// Classifies a question: by the classifier trained on the policy folder's examples where it has
/// them (with the sentence encoder's vector when it is installed), else by the cues alone.
pub fn classify(question: &str, cues: &IntentCues) -> Classified {
    let vector = cues
        .classifier
        .as_ref()
        .and(crate::text::encoder::shared())
        .map(|e| e.encode(question));
    classify_encoded(&crate::text::normalize(question), encoder_and(vector.as_deref()), cues)
}

/// The installed encoder with a vector it made, for `classify_encoded`.
fn encoder_and(vector: Option<&[f32]>) -> Option<(&'static crate::text::encoder::Encoder, &[f32])> {
    crate::text::encoder::shared().zip(vector)
}

/// `classify` for a question already `text::normalize`d (`q`), given an encoder to use and its
/// encoding of the question as written (`None`: the classifier goes without vectors).
pub fn classify_encoded(
    q: &str,
    encoded: Option<(&crate::text::encoder::Encoder, &[f32])>,
    cues: &IntentCues,
) -> Classified {
    match &cues.classifier {
        Some(c) => classified(
            &c.probabilities(q, cues, encoded.map(|(e, _)| e), encoded.map(|(_, v)| v)),
            cues.secondary_ratio,
        ),
        None => classify_by_cues(q, cues),
    }
}

/// The intent of the highest probability, and a secondary one when the next holds at least
/// `secondary_ratio` of it. Ties break by the order of `Intent::ALL`.
fn classified(p: &[f32], secondary_ratio: f64) -> Classified {
    let scores: Vec<(Intent, f64)> = Intent::ALL
        .iter()
        .zip(p)
        .map(|(i, x)| (*i, (f64::from(*x) * 1000.0).round() / 1000.0))
        .collect();
    let mut sorted = scores.clone();
    sorted.sort_by(|a, b| b.1.total_cmp(&a.1));
    let (top, top_p) = sorted[0];
    let secondary = sorted
        .get(1)
        .filter(|(_, x)| *x > 0.0 && *x >= top_p * secondary_ratio)
        .map(|(i, _)| vec![*i])
        .unwrap_or_default();
    Classified {
        intent: top,
        score: top_p,
        secondary,
        scores,
    }
}

/// Classification by the cues alone: the intent whose cues weigh most.
pub fn classify_by_cues(q: &str, cues: &IntentCues) -> Classified {
    use crate::config::classifier::Cues;
    let mut totals: Vec<(Intent, f64)> = Intent::ALL.iter().copied().zip(cues.totals(q)).collect();
    let sum: f64 = totals.iter().map(|t| t.1).sum();
    if sum <= 0.0 {
        return Classified {
            intent: Intent::Exploratory,
            score: 0.0,
            secondary: Vec::new(),
            scores: totals,
        };
    }
    let scores = totals.iter().map(|(i, w)| (*i, w / sum)).collect();
    // stable sort keeps Intent::ALL order among equals
    totals.sort_by(|a, b| b.1.total_cmp(&a.1));
    let (top, top_w) = totals[0];
    let secondary = totals[1..]
        .iter()
        .filter(|(_, w)| *w > 0.0 && *w >= top_w * cues.secondary_ratio)
        .take(1)
        .map(|(i, _)| *i)
        .collect();
    Classified {
        intent: top,
        score: (top_w / sum * 1000.0).round() / 1000.0,
        secondary,
        scores,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::policy::Policies;

    fn cues() -> IntentCues {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("policies");
        Policies::load(&dir, &[]).unwrap().intents
    }

    fn check(q: &str, expected: Intent) {
        let c = classify(q, &cues());
        assert_eq!(c.intent, expected, "{q}: {c:?}");
    }

    #[test]
    fn english_and_japanese_questions() {
        check("What did we decide about the Pro plan price?", Intent::Decision);
        check("Where are we with the Postgres migration?", Intent::Status);
        check("Where is the onboarding guide for new engineers?", Intent::Document);
        check("Which tool lets me page the on-call engineer?", Intent::Document);
        check("Who is the point of contact for the SOC 2 audit?", Intent::Person);
        check("What is the rate limit of the public API?", Intent::Factual);
        check("When did we switch CI to GitHub Actions?", Intent::Temporal);
        check("What's going on with the Japan launch?", Intent::Exploratory);
        check("価格改定について何が決まりましたか？", Intent::Decision);
        check("PostgreSQL移行の進捗はどうなっていますか？", Intent::Status);
        check("経費精算の手順はどこにありますか？", Intent::Document);
        check("SOC 2監査の担当者は誰ですか？", Intent::Person);
        check("パスワードは何日ごとに変更する必要がありますか？", Intent::Factual);
        check("前回の障害はいつでしたか？", Intent::Temporal);
        check("日本展開について教えて", Intent::Exploratory);
    }

    #[test]
    fn the_classifier_gives_a_probability_to_every_intent() {
        let c = classify("Who decided to drop the beta, and who owns the rollout now?", &cues());
        assert_eq!(c.scores.len(), Intent::ALL.len());
        assert!((c.scores.iter().map(|s| s.1).sum::<f64>() - 1.0).abs() < 0.01, "{c:?}");
        let best = c.scores.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
        assert_eq!((best.0, best.1), (c.intent, c.score));
        assert!(c.secondary.iter().all(|s| *s != c.intent));
    }

    #[test]
    fn secondary_intent_and_defaults_by_cues() {
        let classify = |q: &str, cues: &IntentCues| classify_by_cues(&crate::text::normalize(q), cues);
        let c = classify("What did we decide about pricing, and who owns the rollout?", &cues());
        assert_eq!(c.intent, Intent::Decision);
        assert_eq!(c.secondary, vec![Intent::Person]);
        // Scores cover all seven intents and sum to one; the top is the intent.
        assert_eq!(c.scores.len(), Intent::ALL.len());
        assert!((c.scores.iter().map(|s| s.1).sum::<f64>() - 1.0).abs() < 1e-9);
        let best = c.scores.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
        assert_eq!(best.0, Intent::Decision);
        assert!(c.scores.iter().any(|(i, s)| *i == Intent::Person && *s > 0.0));
        let none = classify("zxqv", &cues());
        assert_eq!((none.intent, none.score), (Intent::Exploratory, 0.0));
        assert!(none.scores.iter().all(|(_, s)| *s == 0.0));
        assert!(cue_matches("who owns it", "who"));
        assert!(!cue_matches("whose", "who"));
        assert!(cue_matches("what's going on", "what's going on"));
    }
}
