//! `sagasu eval`: golden questions through the same pipeline as `ask`, scored with the metrics
//! of contracts section 5. One way down: `runner` asks and builds the report, `report` holds
//! and renders it, `score` is the pure scoring and aggregation both use, and `golden` loads and
//! validates the question sets.

pub mod golden;
pub mod report;
pub mod runner;
pub mod score;

pub use runner::{EvalError, Request, evaluate, run};
pub use score::*;
