//! The public types of ratings: what goes in (pairwise results of games, options) and what
//! comes out (a rating list with its entries, head-to-head tables and LOS; a progression).

use crate::stats::percentile_interval;
use serde::{Deserialize, Serialize};

/// One pairwise result: participant `a` against `b`, `score` for `a` (1 win, 0.5 draw, 0 loss).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pairwise {
    /// Index of the first participant (into the participant names).
    pub a: usize,
    /// Index of the second participant.
    pub b: usize,
    /// Points of `a` in `[0, 1]`; `b` scored `1 − score`.
    pub score: f64,
}

/// One played game as ratings see it: its pairwise results, the group (game/variant) it
/// belongs to, and the unit the bootstrap resamples (games that share a unit, e.g. the
/// plays of one journey deal, are resampled together).
///
/// A game of `k` seats usually gives `k(k−1)/2` pairwise results (one per pair of seats, by
/// rank). Units are global: games of different groups that share a unit are resampled together
/// in the overall list (right for paired designs, where the same deal is played in every variant).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatedGame {
    /// Index of the group (game and variant) the game belongs to.
    pub group: usize,
    /// Resampling unit of the bootstrap.
    pub unit: u64,
    /// The game's pairwise results.
    pub results: Vec<Pairwise>,
    /// The games played it stands for: 1, or every play of one cooperative deal (compared
    /// pairwise), so that "games" means games played on every page.
    #[serde(default = "one")]
    pub plays: u32,
}

fn one() -> u32 {
    1
}

/// How to rate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingOptions {
    /// A participant fixed at rating 0; `None`: the mean rating of all rated participants is 0.
    /// An anchor that is not rated in a list falls back to the mean (with a note).
    pub anchor: Option<usize>,
    /// Bootstrap resamples for the intervals and LOS (e.g. 1000); 0: no intervals, no LOS.
    pub bootstrap: u32,
    /// Seed of the resampling: the same seed gives the same intervals.
    pub seed: u64,
}

impl Default for RatingOptions {
    /// Mean 0, 1000 resamples, seed 0.
    fn default() -> Self {
        RatingOptions { anchor: None, bootstrap: 1000, seed: 0 }
    }
}

/// Why a rating is only a bound: the real results alone would place the participant infinitely
/// far from the main body of the pool; the finite value comes from the prior (one virtual draw
/// per pair that met).
///
/// The real results split the rated participants into groups (strongly connected components
/// of "scored a point against"): inside a group every participant reaches every other through
/// chains of results where each side scored something, so gaps inside a group are set by the
/// data; between two groups one side scored every point, so gaps between groups are set by the
/// prior. The *main group* is the largest (ties: the one with the most results, then the one
/// with the lowest participant index); its members get no bound, the others one relative to it.
/// With a pool where everyone scored against someone who scored against them, there is one
/// group and no bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Bound {
    /// No one in the main group scored a point against it, and it (or a participant it scored
    /// against, and so on) scored against the main group: for a lone participant above the
    /// rest, it won every game against them. Its true gap above the main group is at least what
    /// the rating shows: a lower bound.
    #[serde(rename = "no losses")]
    NoLosses,
    /// It scored no point against the main group, which (directly or through others) scored
    /// against it: for a lone participant, it lost every game against them. Its rating is an
    /// upper bound.
    #[serde(rename = "no wins")]
    NoWins,
    /// Neither above nor below the main group by the results (e.g. it lost every game to one
    /// participant and won every game against another, both outside the main group): its gap
    /// to the main group is set by the prior alone.
    #[serde(rename = "apart")]
    Apart,
}

impl Bound {
    /// A short phrase for tables: "no losses", "no wins" or "apart".
    pub fn label(self) -> &'static str {
        match self {
            Bound::NoLosses => "no losses",
            Bound::NoWins => "no wins",
            Bound::Apart => "apart",
        }
    }

    /// The bound a [`Bound::label`] names (as the wire carries it), if one does.
    pub fn from_label(label: &str) -> Option<Bound> {
        [Bound::NoLosses, Bound::NoWins, Bound::Apart].into_iter().find(|b| b.label() == label)
    }

    /// The sign put before a rating in tables and charts: "≥", "≤" or "?".
    pub fn sign(self) -> &'static str {
        match self {
            Bound::NoLosses => "≥",
            Bound::NoWins => "≤",
            Bound::Apart => "?",
        }
    }
}

/// One rated participant in a [`RatingList`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rated {
    /// Place in the list, 1 first.
    pub rank: usize,
    /// Index of the participant (into the participant names).
    pub participant: usize,
    /// Its name.
    pub name: String,
    /// Bradley–Terry rating on the Elo scale (see the module doc for the zero).
    pub rating: f64,
    /// 95% bootstrap percentile interval of the rating; `None` without bootstrap.
    pub interval: Option<(f64, f64)>,
    /// Pairwise results it took part in (a four-seat game counts three).
    pub games: u64,
    /// Points it scored in them (wins plus half the draws).
    pub points: f64,
    /// `points / games`: its score share.
    pub score: f64,
    /// The mean rating of its opponents, weighted by the games against each.
    pub opponents: f64,
    /// Set when the rating is only a bound (a perfect score against part of the pool).
    pub bound: Option<Bound>,
    /// Likelihood of superiority over the next participant down the list (share of bootstrap
    /// re-fits rating it higher); `None` for the last one or without bootstrap.
    pub los_next: Option<f64>,
    /// Its rating in each bootstrap re-fit (the same resamples for every entry of the list,
    /// so that a difference of two entries resamples jointly); not written out.
    #[serde(skip)]
    pub resampled: Vec<f64>,
}

/// The difference of two ratings of one list: `a`'s rating minus `b`'s.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingGap {
    /// `a`'s rating minus `b`'s.
    pub value: f64,
    /// Its 95% bootstrap percentile interval (the re-fits' differences); `None` without
    /// bootstrap.
    pub interval: Option<(f64, f64)>,
    /// The difference in each re-fit.
    pub resampled: Vec<f64>,
    /// Either rating is only a bound: the gap is then the prior's doing.
    pub bound: bool,
}

/// A participant left out of a [`RatingList`], and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unrated {
    /// Index of the participant.
    pub participant: usize,
    /// Its name.
    pub name: String,
    /// Why it has no rating: [`NO_RATED_GAME`], or not connected to the rated pool by any game.
    pub reason: String,
}

/// Why a participant that has played nothing rated has no rating.
pub const NO_RATED_GAME: &str = "no rated game";

/// The results of one participant against another (both directions are listed).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeadToHead {
    /// Index of the participant whose points these are.
    pub a: usize,
    /// Index of its opponent.
    pub b: usize,
    /// Name of `a`.
    pub a_name: String,
    /// Name of `b`.
    pub b_name: String,
    /// Pairwise results between them.
    pub games: u64,
    /// Points `a` scored against `b`.
    pub points: f64,
    /// `points / games`.
    pub score: f64,
}

/// A rating list: the participants sorted by rating, with intervals, LOS and head-to-head.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingList {
    /// What the list rates (set by the report; empty from [`rate`](super::rate)).
    pub label: String,
    /// Games that gave at least one valid pairwise result.
    pub games: usize,
    /// Valid pairwise results.
    pub results: u64,
    /// Distinct bootstrap units among the rated games.
    pub units: usize,
    /// The participant fixed at 0, or `None` when the mean rating is 0.
    pub anchor: Option<String>,
    /// Bootstrap resamples behind the intervals and LOS.
    pub bootstrap: u32,
    /// Seed of the resampling.
    pub seed: u64,
    /// Virtual draws added per pair of participants that met (the prior).
    pub virtual_draws_per_pair: f64,
    /// The rated participants, best first (ties by name).
    pub entries: Vec<Rated>,
    /// Participants without a rating in this list.
    pub unrated: Vec<Unrated>,
    /// Every ordered pair of participants that met, by participant index.
    pub head_to_head: Vec<HeadToHead>,
    /// `los[i][j]`: likelihood that entry `i` is stronger than entry `j` (entry order); empty
    /// without bootstrap, and for lists of more than 100 (each entry's `los_next` is kept);
    /// 0.5 on the diagonal.
    pub los: Vec<Vec<f64>>,
    /// What the reader must know about this list's data (ignored results, bounds, a missing
    /// anchor, participants not connected to the pool).
    pub notes: Vec<String>,
}

impl RatingList {
    /// The entry of participant `p`, if rated.
    pub fn entry(&self, p: usize) -> Option<&Rated> {
        self.entries.iter().find(|e| e.participant == p)
    }

    /// The rating of the entry named `a` minus that of `b`, if both are rated.
    pub fn gap(&self, a: &str, b: &str) -> Option<RatingGap> {
        let find = |name: &str| self.entries.iter().find(|e| e.name == name);
        let (x, y) = (find(a)?, find(b)?);
        let resampled: Vec<f64> = x.resampled.iter().zip(&y.resampled).map(|(p, q)| p - q).collect();
        Some(RatingGap {
            value: x.rating - y.rating,
            interval: (!resampled.is_empty()).then(|| percentile_interval(&resampled)),
            resampled,
            bound: x.bound.is_some() || y.bound.is_some(),
        })
    }

    /// The results of `a` against `b`, if they met.
    pub fn head_to_head(&self, a: usize, b: usize) -> Option<&HeadToHead> {
        self.head_to_head.iter().find(|h| h.a == a && h.b == b)
    }
}

/// Ratings re-fitted as games accumulate (no bootstrap), for the progression chart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progression {
    /// Games played (a prefix of the games, in the order given) at each checkpoint.
    pub games: Vec<usize>,
    /// `ratings[p][k]`: participant `p`'s rating at checkpoint `k`, `None` while unrated.
    pub ratings: Vec<Vec<Option<f64>>>,
}
