//! The Bradley–Terry fit: maximum likelihood by Newton's method on the log-strengths, each
//! step's linear system (a weighted graph Laplacian, as sparse as the pairs that met) solved by
//! conjugate gradients, on the Elo scale.

use super::graph::strong_components;
use super::{Pairwise, valid};
use std::collections::BTreeMap;
use std::f64::consts::LN_10;

/// Virtual draws added between every pair of participants that met: the prior (see the
/// [`ratings`](crate::ratings) module doc).
pub const VIRTUAL_DRAWS_PER_PAIR: f64 = 1.0;

/// Elo points per unit of natural-log strength: `rating = ELO_PER_NEPER * ln(strength)`.
pub const ELO_PER_NEPER: f64 = 400.0 / LN_10;

/// Newton steps at most (a fit from nothing takes some ten, one from a near start two or three).
const MAX_STEPS: usize = 100;
/// A fit stops when no log-strength moves more than this in a step (≈ 4e-10 Elo), or when the
/// likelihood's gradient is this small in every coordinate (it is flat to rounding)…
pub(super) const TOLERANCE: f64 = 1e-12;
/// …a bootstrap's re-fit at this (≈ 4e-4 Elo: far finer than the percentiles of a few hundred
/// re-fits, which vary by whole Elo points from one set of resamples to another).
pub(super) const RESAMPLE_TOLERANCE: f64 = 1e-6;

/// Pair tallies over `m` participants: pairs `(i, j)` with `i < j`, and per pair the games
/// and the points of `i`.
pub(super) struct Design {
    pub m: usize,
    pub pairs: Vec<(usize, usize)>,
}

impl Design {
    /// Log-strengths fitted to `games` and `points` per pair plus the prior, starting from
    /// `start` if given, to `tolerance`.
    pub fn fit_with_prior(&self, games: &[f64], points: &[f64], start: Option<&[f64]>, tolerance: f64) -> Vec<f64> {
        let games: Vec<f64> = games.iter().map(|g| g + VIRTUAL_DRAWS_PER_PAIR).collect();
        let points: Vec<f64> = points.iter().map(|p| p + VIRTUAL_DRAWS_PER_PAIR / 2.0).collect();
        fit(self, &games, &points, start, tolerance)
    }
}

/// Log-strengths on the Elo scale, shifted so that the participant at compact index `anchor`
/// (if any) is at 0.
pub(super) fn to_elo(logs: &[f64], anchor: Option<usize>) -> Vec<f64> {
    let shift = anchor.map_or(0.0, |a| logs[a]);
    logs.iter().map(|l| (l - shift) * ELO_PER_NEPER).collect()
}

/// Maximum-likelihood log-strengths (natural log, mean 0) for the design with `games[p]` games
/// and `points[p]` points of the first of pair `p`, starting from `start` if given, until a
/// step moves none by more than `tolerance` (or the gradient is that flat). Requires
/// every participant connected and the maximum to exist (guaranteed when every pair's points
/// are strictly between 0 and games).
///
/// The log-likelihood is concave; Newton's step solves `L Δ = g`, where `g` is its gradient
/// and `L` the Laplacian of the pairs weighted by `games · p · (1 − p)`, its curvature. `L` is
/// singular along "everyone up by the same amount" (ratings are differences), so one
/// participant is held still in the solve and the result shifted to mean 0. A step that would
/// lower the likelihood (far from the maximum) is halved until it does not; near it, where the
/// likelihood's change is below its rounding, the step is taken. The steps' systems are solved
/// only as finely as the gradient is small (inexact Newton): loosely far from the maximum,
/// finely near it.
fn fit(d: &Design, games: &[f64], points: &[f64], start: Option<&[f64]>, tolerance: f64) -> Vec<f64> {
    let m = d.m;
    let pairs: Vec<(usize, usize, f64, f64)> = d
        .pairs
        .iter()
        .enumerate()
        .filter(|&(p, _)| games[p] > 0.0)
        .map(|(p, &(i, j))| (i, j, games[p], points[p]))
        .collect();
    let mut theta: Vec<f64> = match start {
        Some(s) if s.len() == m && s.iter().all(|x| x.is_finite()) => s.to_vec(),
        _ => vec![0.0; m],
    };
    center(&mut theta);
    let mut solver = Solver::new(m, &pairs);
    let mut ll = log_likelihood(&pairs, &theta);
    let mut next = vec![0.0; m];
    for _ in 0..MAX_STEPS {
        let steepest = solver.gradient_and_curvature(&pairs, &theta);
        if steepest < tolerance {
            break;
        }
        solver.solve(steepest.clamp(1e-14, 0.1));
        let delta = &solver.x;
        // The likelihood's rounding: a change below it is no change.
        let noise = 1e-12 * ll.abs().max(1.0);
        let mut t = 1.0;
        let moved = loop {
            for k in 0..m {
                next[k] = theta[k] + t * delta[k];
            }
            let l = log_likelihood(&pairs, &next);
            if l >= ll - noise || t < 1e-9 {
                ll = l;
                break delta.iter().fold(0.0f64, |a, &x| a.max((t * x).abs()));
            }
            t *= 0.5;
        };
        std::mem::swap(&mut theta, &mut next);
        if moved < tolerance {
            break;
        }
    }
    center(&mut theta);
    theta
}

fn center(theta: &mut [f64]) {
    if theta.is_empty() {
        return;
    }
    let mean = theta.iter().sum::<f64>() / theta.len() as f64;
    theta.iter_mut().for_each(|x| *x -= mean);
}

/// `ln(1 + e^x)`, without overflow.
fn softplus(x: f64) -> f64 {
    if x > 0.0 { x + (-x).exp().ln_1p() } else { x.exp().ln_1p() }
}

/// The log-likelihood of the pairs' points at log-strengths `theta`.
fn log_likelihood(pairs: &[(usize, usize, f64, f64)], theta: &[f64]) -> f64 {
    pairs
        .iter()
        .map(|&(i, j, n, w)| {
            let x = theta[i] - theta[j];
            // w ln p + (n − w) ln(1 − p), p = 1 / (1 + e^−x).
            -w * softplus(-x) - (n - w) * softplus(x)
        })
        .sum()
}

/// Newton's linear system and the conjugate gradients that solve it, their vectors kept from
/// step to step.
struct Solver {
    m: usize,
    /// Each participant's pairs: (other, index of the pair).
    adjacent: Vec<Vec<(usize, usize)>>,
    /// The pairs' curvature weights, the gradient, the diagonal of `L`.
    weight: Vec<f64>,
    gradient: Vec<f64>,
    diagonal: Vec<f64>,
    /// The participant held still: the one with the most curvature.
    held: usize,
    x: Vec<f64>,
    r: Vec<f64>,
    z: Vec<f64>,
    p: Vec<f64>,
    q: Vec<f64>,
}

impl Solver {
    fn new(m: usize, pairs: &[(usize, usize, f64, f64)]) -> Solver {
        let mut adjacent = vec![Vec::new(); m];
        for (k, &(i, j, _, _)) in pairs.iter().enumerate() {
            adjacent[i].push((j, k));
            adjacent[j].push((i, k));
        }
        let v = || vec![0.0; m];
        Solver {
            m,
            adjacent,
            weight: vec![0.0; pairs.len()],
            gradient: v(),
            diagonal: v(),
            held: 0,
            x: v(),
            r: v(),
            z: v(),
            p: v(),
            q: v(),
        }
    }

    /// The gradient and curvature at `theta`; returns the gradient's largest coordinate.
    fn gradient_and_curvature(&mut self, pairs: &[(usize, usize, f64, f64)], theta: &[f64]) -> f64 {
        self.gradient.iter_mut().for_each(|g| *g = 0.0);
        self.diagonal.iter_mut().for_each(|d| *d = 0.0);
        for (k, &(i, j, n, w)) in pairs.iter().enumerate() {
            let p = 1.0 / (1.0 + (theta[j] - theta[i]).exp());
            let r = w - n * p;
            self.gradient[i] += r;
            self.gradient[j] -= r;
            let h = n * p * (1.0 - p);
            self.weight[k] = h;
            self.diagonal[i] += h;
            self.diagonal[j] += h;
        }
        self.held = (0..self.m).max_by(|&a, &b| self.diagonal[a].total_cmp(&self.diagonal[b])).unwrap_or(0);
        self.gradient
            .iter()
            .enumerate()
            .filter(|&(k, _)| self.diagonal[k] > 0.0)
            .fold(0.0f64, |a, (_, g)| a.max(g.abs()))
    }

    /// Is participant `i` in the solve (not held still, and with pairs)?
    fn live(&self, i: usize) -> bool {
        i != self.held && self.diagonal[i] > 0.0
    }

    /// `out = L v`, with the held participant (and any without pairs) left at 0.
    fn apply(&self, v: &[f64], out: &mut [f64]) {
        for i in 0..self.m {
            if !self.live(i) {
                out[i] = 0.0;
                continue;
            }
            let mut s = self.diagonal[i] * v[i];
            for &(j, k) in &self.adjacent[i] {
                if j != self.held {
                    s -= self.weight[k] * v[j];
                }
            }
            out[i] = s;
        }
    }

    /// `z = D⁻¹ r`: the residual scaled by `L`'s diagonal (0 off the solve).
    fn precondition(&mut self) {
        for i in 0..self.m {
            self.z[i] = if self.live(i) { self.r[i] / self.diagonal[i] } else { 0.0 };
        }
    }

    /// Newton's step: `L Δ = gradient` to a residual `relative` to the gradient's, by
    /// conjugate gradients preconditioned with `L`'s diagonal, the held participant's row and
    /// column left out (the system is then positive definite), shifted to mean 0.
    fn solve(&mut self, relative: f64) {
        let m = self.m;
        for i in 0..m {
            self.x[i] = 0.0;
            self.r[i] = if self.live(i) { self.gradient[i] } else { 0.0 };
        }
        self.precondition();
        self.p.copy_from_slice(&self.z);
        let norm0 = self.r.iter().map(|x| x * x).sum::<f64>().sqrt();
        let mut rz: f64 = self.r.iter().zip(&self.z).map(|(a, b)| a * b).sum();
        if norm0 > 0.0 {
            for _ in 0..(4 * m + 100) {
                let (p, mut q) = (std::mem::take(&mut self.p), std::mem::take(&mut self.q));
                self.apply(&p, &mut q);
                let pq: f64 = p.iter().zip(&q).map(|(a, b)| a * b).sum();
                if pq <= 0.0 {
                    self.p = p;
                    self.q = q;
                    break;
                }
                let alpha = rz / pq;
                let mut norm = 0.0;
                for i in 0..m {
                    self.x[i] += alpha * p[i];
                    self.r[i] -= alpha * q[i];
                    norm += self.r[i] * self.r[i];
                }
                self.p = p;
                self.q = q;
                if norm.sqrt() <= relative * norm0 {
                    break;
                }
                self.precondition();
                let next: f64 = self.r.iter().zip(&self.z).map(|(a, b)| a * b).sum();
                let beta = next / rz;
                rz = next;
                for i in 0..m {
                    self.p[i] = self.z[i] + beta * self.p[i];
                }
            }
        }
        center(&mut self.x);
    }
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
    Some(fit(&d, &games, &points, None, TOLERANCE).into_iter().map(|x| x * ELO_PER_NEPER).collect())
}
