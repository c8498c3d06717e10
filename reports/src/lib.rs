//! Statistics of recorded results: summaries with honest error bars.

pub mod stats;
pub mod summary;

pub use stats::{wilson, Stats};
pub use summary::{GameResult, PlaySummary};
