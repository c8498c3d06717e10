//! The Bradley–Terry fit: maximum likelihood by Hunter's MM algorithm, one participant at a
//! time, on the Elo scale.

use super::graph::strong_components;
use super::{Pairwise, valid};
use std::collections::BTreeMap;
use std::f64::consts::LN_10;

/// Virtual draws added between every pair of participants that met: the prior (see the
/// [`ratings`](crate::ratings) module doc).
pub const VIRTUAL_DRAWS_PER_PAIR: f64 = 1.0;

/// Elo points per unit of natural-log strength: `rating = ELO_PER_NEPER * ln(strength)`.
pub const ELO_PER_NEPER: f64 = 400.0 / LN_10;

/// Sweeps of the MM algorithm at most (it stops far earlier on real data).
const MAX_SWEEPS: usize = 200_000;
/// The MM algorithm stops when no log-strength moves more than this in a sweep (≈ 2e-9 Elo).
const TOLERANCE: f64 = 1e-12;

/// Pair tallies over `m` participants: pairs `(i, j)` with `i < j`, and per pair the games
/// and the points of `i`.
pub(super) struct Design {
    pub m: usize,
    pub pairs: Vec<(usize, usize)>,
}

impl Design {
    /// Log-strengths fitted to `games` and `points` per pair plus the prior, starting from
    /// `start` if given.
    pub fn fit_with_prior(&self, games: &[f64], points: &[f64], start: Option<&[f64]>) -> Vec<f64> {
        let games: Vec<f64> = games.iter().map(|g| g + VIRTUAL_DRAWS_PER_PAIR).collect();
        let points: Vec<f64> = points.iter().map(|p| p + VIRTUAL_DRAWS_PER_PAIR / 2.0).collect();
        fit(self, &games, &points, start)
    }
}

/// Log-strengths on the Elo scale, shifted so that the participant at compact index `anchor`
/// (if any) is at 0.
pub(super) fn to_elo(logs: &[f64], anchor: Option<usize>) -> Vec<f64> {
    let shift = anchor.map_or(0.0, |a| logs[a]);
    logs.iter().map(|l| (l - shift) * ELO_PER_NEPER).collect()
}

/// Maximum-likelihood log-strengths (natural log, mean 0) for the design with `games[p]` games
/// and `points[p]` points of the first of pair `p`. Requires every participant connected and
/// the maximum to exist (guaranteed when every pair's points are strictly between 0 and games).
fn fit(d: &Design, games: &[f64], points: &[f64], start: Option<&[f64]>) -> Vec<f64> {
    let m = d.m;
    let mut adj: Vec<Vec<(usize, f64)>> = vec![Vec::new(); m];
    let mut wins = vec![0.0; m];
    for (p, &(i, j)) in d.pairs.iter().enumerate() {
        if games[p] > 0.0 {
            adj[i].push((j, games[p]));
            adj[j].push((i, games[p]));
            wins[i] += points[p];
            wins[j] += games[p] - points[p];
        }
    }
    let mut g: Vec<f64> = match start {
        Some(s) => s.iter().map(|x| x.exp()).collect(),
        None => vec![1.0; m],
    };
    let mut prev: Vec<f64> = g.iter().map(|x| x.ln()).collect();
    for _ in 0..MAX_SWEEPS {
        for i in 0..m {
            if adj[i].is_empty() {
                continue;
            }
            let denom: f64 = adj[i].iter().map(|&(j, n)| n / (g[i] + g[j])).sum();
            g[i] = wins[i] / denom;
        }
        let mean = g.iter().map(|x| x.ln()).sum::<f64>() / m as f64;
        let mut change = 0.0f64;
        for (k, x) in g.iter_mut().enumerate() {
            let l = x.ln() - mean;
            *x = l.exp();
            change = change.max((l - prev[k]).abs());
            prev[k] = l;
        }
        if change < TOLERANCE {
            break;
        }
    }
    prev
}

/// The plain maximum-likelihood Bradley–Terry ratings (Elo scale, mean 0) of `n` participants
/// from pairwise results, with `virtual_draws` added between every pair that met (0: no prior,
/// the textbook MLE). `None` when the ratings are not all finite and determined: some
/// participant has no result, the participants do not all connect through games, or (without
/// virtual draws) some group of them scored every point, or none, against the rest.
/// Results with an index out of range, `a == b` or a score outside `[0, 1]` are ignored.
pub fn fit_elo(n: usize, results: &[Pairwise], virtual_draws: f64) -> Option<Vec<f64>> {
    let mut tally: BTreeMap<(usize, usize), (f64, f64)> = BTreeMap::new();
    for r in results.iter().filter(|r| valid(r, n)) {
        let (key, pts) = if r.a < r.b { ((r.a, r.b), r.score) } else { ((r.b, r.a), 1.0 - r.score) };
        let t = tally.entry(key).or_default();
        t.0 += 1.0;
        t.1 += pts;
    }
    let d = Design { m: n, pairs: tally.keys().copied().collect() };
    let games: Vec<f64> = tally.values().map(|t| t.0 + virtual_draws).collect();
    let points: Vec<f64> = tally.values().map(|t| t.1 + virtual_draws / 2.0).collect();
    let mut adj = vec![Vec::new(); n];
    for (p, &(i, j)) in d.pairs.iter().enumerate() {
        if points[p] > 0.0 {
            adj[i].push(j);
        }
        if games[p] - points[p] > 0.0 {
            adj[j].push(i);
        }
    }
    if n == 0 || strong_components(&adj).iter().any(|&c| c != 0) {
        return None;
    }
    Some(fit(&d, &games, &points, None).into_iter().map(|x| x * ELO_PER_NEPER).collect())
}
