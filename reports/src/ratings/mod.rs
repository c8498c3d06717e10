//! Bradley–Terry ratings on the Elo scale, as Ordo and BayesElo compute them, with bootstrap
//! intervals, likelihoods of superiority and head-to-head tables.
//!
//! # The model
//!
//! Every participant `i` has a rating `R_i`. In one pairwise result, `a` beats `b` with
//! probability `1 / (1 + 10^((R_b − R_a) / 400))` (the logistic Elo curve: 200 points above an
//! opponent is a 76% expected score, 400 points 91%). A draw counts as half a win for each side,
//! as in Ordo and BayesElo's default; the likelihood is then that of `points` wins in `games`
//! trials for every pair. The ratings are the maximum of that likelihood (Bradley–Terry),
//! found by Newton's method: the likelihood is concave, each step's linear system is the
//! Laplacian of the pairs that met (as sparse as they are), solved by conjugate gradients, and
//! a step that would lower the likelihood is shortened. A pool of thousands where each met a
//! few neighbours (a ladder's) is fitted in a few steps, where updating one participant at a
//! time (Hunter's MM algorithm, which this replaced) took hundreds of thousands of sweeps.
//!
//! Ratings are only differences: the scale's zero is a convention. By default the mean rating
//! of the rated participants is 0; [`RatingOptions::anchor`] fixes one participant at 0 instead.
//!
//! # Perfect scores: the prior
//!
//! A participant that scored every point (or none) has no finite maximum-likelihood rating: the
//! likelihood keeps growing as it moves away from the others. More generally the maximum exists
//! only when, for every split of the participants into two sides, each side scored at least some
//! points against the other. So the likelihood is always that of the data **plus one virtual
//! draw ([`VIRTUAL_DRAWS_PER_PAIR`]) between every pair of participants that met at least once**
//! (half a point to each), a BayesElo-style prior. Why this one:
//! - it is the weakest round prior that makes every rating finite whatever the results (every
//!   pair that met has then scored against each other, so the maximum always exists);
//! - it only pulls a pair's result towards 50% by one game's worth: with `n` games between two
//!   participants, a score `s` is treated as `(n·s + 0.5) / (n + 1)`; for a pair that met 100
//!   times a 60% score becomes 59.9%, a difference of about 0.7 Elo;
//! - it is applied always, not only when a score is perfect, so the estimator is one smooth
//!   function of the data and every bootstrap re-fit uses the same one (the virtual draws are
//!   those of the pairs that met in the full data, whichever games a resample draws);
//! - it adds no link between participants that never met, so it invents no comparison.
//!
//! A participant whose real results alone would put it infinitely far from the others is flagged
//! with a [`Bound`]: its rating is then the prior's doing and should be read as "at least" (or
//! "at most") this much. [`fit_elo`] gives the plain maximum likelihood without the prior.
//!
//! # Intervals and LOS
//!
//! 95% intervals come from a non-parametric bootstrap over *units* ([`RatedGame::unit`]): a
//! resample draws as many units as there are, with replacement, keeps every game of each drawn
//! unit, re-fits the ratings (anchored the same way), and the interval is the 2.5th–97.5th
//! percentile of each participant's re-fitted ratings (linear interpolation between order
//! statistics, R's type 7). Resampling whole units keeps the dependence between games that share
//! a deal or a seed, and between the several pairwise results of one multi-player game.
//!
//! The likelihood of superiority (LOS) of `x` over `y` is the share of the bootstrap re-fits in
//! which `x` is rated above `y` (a tie counts half): an estimate of how sure one can be that `x`
//! is the stronger, given games like these.
//!
//! Two ratings less than [`TIE_ELO`] apart are equal: far below any difference games can show,
//! far above the solver's rounding (participants with the same results in every unit, a
//! cooperative team's travellers, come out of a fit a few 1e-11 apart). Equal ratings are one
//! value in the list, listed by name; in a re-fit they are a tie.
//!
//! The resampling uses its own SplitMix64 generator seeded with [`RatingOptions::seed`], so a
//! seed gives the same intervals on every platform and with every dependency version.

mod bootstrap;
mod fit;
mod graph;
mod list;
mod pool;

pub use fit::{ELO_PER_NEPER, VIRTUAL_DRAWS_PER_PAIR, fit_elo};

/// Ratings (and re-fitted ratings) closer than this many Elo are equal (see the module doc).
pub const TIE_ELO: f64 = 1e-3;
pub use list::{
    Bound, HeadToHead, NO_RATED_GAME, Pairwise, Progression, Rated, RatedGame, RatingGap, RatingList, RatingOptions,
    Unrated,
};

use crate::stats::percentile_interval;
use fit::to_elo;

use pool::{Pool, PoolResults, Tally};

/// Rates `participants` from `games` (see the module doc for the model, the prior, the
/// intervals and LOS). Only games' valid results count; the list is sorted by rating.
///
/// Who is rated: participants with at least one valid result, in the largest pool connected by
/// games (the anchor's pool if the anchor played; ties: the one with the most results, then the
/// lowest participant index). Everyone else is listed in [`RatingList::unrated`] with the
/// reason: ratings of pools that never met are not comparable.
///
/// The result does not depend on the order of the games: units are resampled in the order of
/// their ids, and sums of scores that are multiples of 1/2 (or any power-of-two fraction) are
/// exact in any order (other scores, e.g. thirds, may differ in the last bits).
pub fn rate(participants: &[String], games: &[RatedGame], opts: &RatingOptions) -> RatingList {
    rate_with(participants, games, opts, &Effort::default())
}

/// How a fit is computed, beyond what it computes: the same list whatever these say (to the
/// solver's tolerance).
pub struct Effort<'a> {
    /// Threads the bootstrap's re-fits run on (the resamples drawn are the same for any).
    pub threads: usize,
    /// Where to start: a participant's log-strength (natural log) in an earlier fit, if it
    /// was rated there (a standing ladder's last refit): fewer steps to the same maximum.
    pub warm: Option<&'a dyn Fn(usize) -> Option<f64>>,
    /// Set from elsewhere to stop early (a server stopping): the bootstrap draws no more
    /// resamples, and the list returned is not to be used.
    pub cancel: Option<&'a std::sync::atomic::AtomicBool>,
}

impl Default for Effort<'_> {
    /// Every core, from nothing.
    fn default() -> Self {
        Effort { threads: std::thread::available_parallelism().map_or(1, |n| n.get()), warm: None, cancel: None }
    }
}

/// [`rate`], with the effort given.
pub fn rate_with(
    participants: &[String],
    games: &[RatedGame],
    opts: &RatingOptions,
    effort: &Effort<'_>,
) -> RatingList {
    let mut notes = Vec::new();
    let tally = Tally::new(participants.len(), games, &mut notes);
    let pool = Pool::choose(participants, &tally, opts.anchor, &mut notes);
    let results = pool.results(&tally, games);
    let anchor = pool.anchor.map(|a| results.compact[a]);
    let m = pool.members.len();
    let start: Option<Vec<f64>> = effort.warm.map(|warm| {
        let known: Vec<Option<f64>> = pool.members.iter().map(|&i| warm(i).filter(|x| x.is_finite())).collect();
        // The newcomers start at the mean of the known.
        let (sum, count) = known.iter().flatten().fold((0.0, 0usize), |(s, c), x| (s + x, c + 1));
        let mean = if count > 0 { sum / count as f64 } else { 0.0 };
        known.into_iter().map(|x| x.unwrap_or(mean)).collect()
    });
    let logs = if m > 0 {
        results.design.fit_with_prior(&results.games, &results.points, start.as_deref(), fit::TOLERANCE)
    } else {
        Vec::new()
    };
    let mut ratings = to_elo(&logs, anchor);
    let bounds = pool::bounds(participants, &pool, &results, &ratings, &mut notes);
    let b = if m > 1 { opts.bootstrap as usize } else { 0 };
    let mut samples = bootstrap::resample(&results, b, opts.seed, &logs, anchor, effort.threads, effort.cancel);
    let order = best_first(participants, &pool.members, &ratings);
    equalize(&order, &mut ratings, &mut samples);
    let next = if b > 0 { bootstrap::los_next(&order, &samples, b) } else { vec![None; order.len()] };
    let los = if b > 0 && m <= bootstrap::LOS_TABLE_MAX { bootstrap::los(&order, &samples, b) } else { Vec::new() };
    let fitted = Fitted { ratings, bounds, samples };
    RatingList {
        label: String::new(),
        games: tally.games,
        results: tally.results,
        units: results.units.len(),
        anchor: pool.anchor.map(|a| participants[a].clone()),
        bootstrap: b as u32,
        seed: opts.seed,
        virtual_draws_per_pair: VIRTUAL_DRAWS_PER_PAIR,
        entries: entries(participants, &tally, &pool, &results, &fitted, &order, &next),
        unrated: pool.unrated,
        head_to_head: head_to_head(participants, &tally),
        los,
        notes,
    }
}

/// The rated pool's ratings by compact index: fitted, bounds, and the bootstrap re-fits.
struct Fitted {
    ratings: Vec<f64>,
    bounds: Vec<Option<Bound>>,
    /// `samples[k]`: member `k`'s re-fitted ratings (none without bootstrap).
    samples: Vec<Vec<f64>>,
}

/// Compact indices of the members, best rating first; equal ratings (runs of neighbours less
/// than [`TIE_ELO`] apart) by name, then index.
fn best_first(participants: &[String], members: &[usize], ratings: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..members.len()).collect();
    order.sort_by(|&x, &y| ratings[y].total_cmp(&ratings[x]).then(members[x].cmp(&members[y])));
    for run in order.chunk_by_mut(|&x, &y| ratings[x] - ratings[y] < TIE_ELO) {
        run.sort_by(|&x, &y| participants[members[x]].cmp(&participants[members[y]]).then(members[x].cmp(&members[y])));
    }
    order
}

/// Equal ratings made one value: each run of equal ratings in `order` takes its first
/// member's rating, and a member equal in every re-fit to one before it in the run takes
/// that one's re-fits (so their intervals are one as well).
fn equalize(order: &[usize], ratings: &mut [f64], samples: &mut [Vec<f64>]) {
    let runs: Vec<&[usize]> = order.chunk_by(|&x, &y| (ratings[x] - ratings[y]).abs() < TIE_ELO).collect();
    for run in runs {
        for (i, &k) in run.iter().enumerate().skip(1) {
            ratings[k] = ratings[run[0]];
            let same = |j: usize| samples[k].iter().zip(&samples[j]).all(|(a, b)| (a - b).abs() < TIE_ELO);
            if let Some(&j) = run[..i].iter().find(|&&j| same(j)) {
                samples[k] = samples[j].clone();
            }
        }
    }
}

/// The list's entries, in `order`, with their intervals, totals and LOS over the next one.
fn entries(
    participants: &[String],
    tally: &Tally,
    pool: &Pool,
    results: &PoolResults,
    fitted: &Fitted,
    order: &[usize],
    los_next: &[Option<f64>],
) -> Vec<Rated> {
    let resampled = fitted.samples.first().is_some_and(|s| !s.is_empty());
    let mut entries = Vec::with_capacity(order.len());
    for (rank, &k) in order.iter().enumerate() {
        let i = pool.members[k];
        let interval = resampled.then(|| percentile_interval(&fitted.samples[k]));
        let points: f64 = tally.of(i).map(|(_, _, p)| p).sum();
        let opp_games: f64 = tally.of(i).map(|(_, k, _)| k as f64).sum();
        let opponents =
            tally.of(i).map(|(j, k, _)| k as f64 * fitted.ratings[results.compact[j]]).sum::<f64>() / opp_games;
        entries.push(Rated {
            rank: rank + 1,
            participant: i,
            name: participants[i].clone(),
            rating: fitted.ratings[k],
            interval,
            games: pool.played[i],
            points,
            score: points / pool.played[i] as f64,
            opponents,
            bound: fitted.bounds[k],
            los_next: los_next[rank],
            resampled: if resampled { fitted.samples[k].clone() } else { Vec::new() },
        });
    }
    entries
}

/// Every ordered pair of participants that met in `games`, by participant index: what
/// [`rate`] lists as [`RatingList::head_to_head`], without fitting anything.
pub fn head_to_head_of(participants: &[String], games: &[RatedGame]) -> Vec<HeadToHead> {
    head_to_head(participants, &Tally::new(participants.len(), games, &mut Vec::new()))
}

/// Every ordered pair of participants that met, by participant index.
fn head_to_head(participants: &[String], tally: &Tally) -> Vec<HeadToHead> {
    tally
        .pairs
        .iter()
        .map(|(&(a, b), &(k, p))| HeadToHead {
            a,
            b,
            a_name: participants[a].clone(),
            b_name: participants[b].clone(),
            games: k,
            points: p,
            score: p / k as f64,
        })
        .collect()
}

/// Ratings re-fitted on growing prefixes of `games` (in the order given) at about
/// `checkpoints` evenly spaced points (at most one per game), without bootstrap, anchored as
/// `anchor` says. Shows how the ratings settled as games accumulated.
pub fn progression(
    participants: &[String],
    games: &[RatedGame],
    anchor: Option<usize>,
    checkpoints: usize,
) -> Progression {
    let c = checkpoints.clamp(1, games.len().max(1));
    let mut stops: Vec<usize> = (1..=c).map(|k| (k * games.len()).div_ceil(c)).collect();
    stops.dedup();
    let opts = RatingOptions { anchor, bootstrap: 0, seed: 0 };
    let mut ratings = vec![Vec::with_capacity(stops.len()); participants.len()];
    for &s in &stops {
        let list = rate(participants, &games[..s], &opts);
        for (p, r) in ratings.iter_mut().enumerate() {
            r.push(list.entry(p).map(|e| e.rating));
        }
    }
    Progression { games: stops, ratings }
}

/// A result that counts: two different participants in range, a score in `[0, 1]`.
fn valid(r: &Pairwise, n: usize) -> bool {
    r.a < n && r.b < n && r.a != r.b && r.score.is_finite() && (0.0..=1.0).contains(&r.score)
}
