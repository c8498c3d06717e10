//! Statistics of recorded results: summaries with honest error bars, Bradley–Terry ratings
//! with bootstrap intervals, charts, and a self-contained report directory.

#[warn(missing_docs)]
pub mod charts;
pub mod html;
#[warn(missing_docs)]
pub mod ratings;
#[warn(missing_docs)]
pub mod report;
pub mod sprt;
pub mod stats;
pub mod summary;
pub mod variants;
pub mod viewer;

pub use ratings::{
    Bound, HeadToHead, Pairwise, Progression, Rated, RatedGame, RatingList, RatingOptions, Unrated, fit_elo,
    progression, rate,
};
pub use report::{ReportInput, ReportOutput, write_report};
pub use stats::{Stats, wilson};
pub use summary::{AgentSummary, Figure, GameResult, PlaySummary, Rate};
