//! Statistics of recorded results: summaries with honest error bars.

pub mod stats;
pub mod summary;

pub use stats::{Stats, wilson};
pub use summary::{AgentSummary, Figure, GameResult, PlaySummary, Rate};
