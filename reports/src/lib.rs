//! Statistics of recorded results: summaries with honest error bars, and Bradley–Terry ratings
//! with bootstrap intervals.

#[warn(missing_docs)]
pub mod ratings;
pub mod stats;
pub mod summary;

pub use ratings::{
    Bound, HeadToHead, Pairwise, Progression, Rated, RatedGame, RatingList, RatingOptions, Unrated, fit_elo,
    progression, rate,
};
pub use stats::{Stats, wilson};
pub use summary::{AgentSummary, Figure, GameResult, PlaySummary, Rate};
