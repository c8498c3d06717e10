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
//! found by Hunter's MM algorithm (Hunter 2004, "MM algorithms for generalized Bradley–Terry
//! models"), updated one participant at a time, which converges monotonically to the unique
//! maximum whenever it exists.
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
//! The resampling uses its own SplitMix64 generator seeded with [`RatingOptions::seed`], so a
//! seed gives the same intervals on every platform and with every dependency version.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::f64::consts::LN_10;

/// Virtual draws added between every pair of participants that met (see the module doc).
pub const VIRTUAL_DRAWS_PER_PAIR: f64 = 1.0;

/// Elo points per unit of natural-log strength: `rating = ELO_PER_NEPER * ln(strength)`.
pub const ELO_PER_NEPER: f64 = 400.0 / LN_10;

/// Sweeps of the MM algorithm at most (it stops far earlier on real data).
const MAX_SWEEPS: usize = 200_000;
/// The MM algorithm stops when no log-strength moves more than this in a sweep (≈ 2e-9 Elo).
const TOLERANCE: f64 = 1e-12;

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
}

/// A participant left out of a [`RatingList`], and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unrated {
    /// Index of the participant.
    pub participant: usize,
    /// Its name.
    pub name: String,
    /// Why it has no rating: "no rated game", or not connected to the rated pool by any game.
    pub reason: String,
}

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
    /// What the list rates (set by the report; empty from [`rate`]).
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
    /// without bootstrap; 0.5 on the diagonal.
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

/// A small, exactly specified generator (SplitMix64) so resamples never depend on a library
/// version.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..k` (Lemire's multiply-and-reject, no bias). `k > 0`.
    fn below(&mut self, k: usize) -> usize {
        let k = k as u64;
        let threshold = k.wrapping_neg() % k;
        loop {
            let m = u128::from(self.next_u64()) * u128::from(k);
            if (m as u64) >= threshold {
                return (m >> 64) as usize;
            }
        }
    }
}

/// Pair tallies over `m` participants: pairs `(i, j)` with `i < j`, and per pair the games
/// and the points of `i`.
struct Design {
    m: usize,
    pairs: Vec<(usize, usize)>,
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

/// Union-find root.
fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// Strongly connected component id of each node of a digraph given by adjacency lists
/// (Kosaraju, iterative).
fn strong_components(adj: &[Vec<usize>]) -> Vec<usize> {
    let m = adj.len();
    let mut order = Vec::with_capacity(m);
    let mut seen = vec![false; m];
    for s in 0..m {
        if seen[s] {
            continue;
        }
        seen[s] = true;
        let mut stack = vec![(s, 0usize)];
        while let Some((v, k)) = stack.pop() {
            if k < adj[v].len() {
                stack.push((v, k + 1));
                let w = adj[v][k];
                if !seen[w] {
                    seen[w] = true;
                    stack.push((w, 0));
                }
            } else {
                order.push(v);
            }
        }
    }
    let mut radj = vec![Vec::new(); m];
    for (v, ws) in adj.iter().enumerate() {
        for &w in ws {
            radj[w].push(v);
        }
    }
    let mut comp = vec![usize::MAX; m];
    let mut c = 0;
    for &s in order.iter().rev() {
        if comp[s] != usize::MAX {
            continue;
        }
        comp[s] = c;
        let mut stack = vec![s];
        while let Some(v) = stack.pop() {
            for &w in &radj[v] {
                if comp[w] == usize::MAX {
                    comp[w] = c;
                    stack.push(w);
                }
            }
        }
        c += 1;
    }
    comp
}

/// Nodes reachable from `start` along `adj` (including `start`).
fn reachable(adj: &[Vec<usize>], start: &[usize]) -> Vec<bool> {
    let mut seen = vec![false; adj.len()];
    let mut stack = start.to_vec();
    for &s in start {
        seen[s] = true;
    }
    while let Some(v) = stack.pop() {
        for &w in &adj[v] {
            if !seen[w] {
                seen[w] = true;
                stack.push(w);
            }
        }
    }
    seen
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

fn valid(r: &Pairwise, n: usize) -> bool {
    r.a < n && r.b < n && r.a != r.b && r.score.is_finite() && (0.0..=1.0).contains(&r.score)
}

/// Quantile `q` of sorted `xs` by linear interpolation between order statistics (type 7).
fn quantile(xs: &[f64], q: f64) -> f64 {
    let h = (xs.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(xs.len() - 1);
    xs[lo] + (h - lo as f64) * (xs[hi] - xs[lo])
}

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
    let n = participants.len();
    let mut notes = Vec::new();

    // Valid results, tallies per ordered pair (for head-to-head and totals).
    let mut ignored = 0usize;
    let mut rated_games = 0usize;
    let mut results = 0u64;
    let mut h2h: BTreeMap<(usize, usize), (u64, f64)> = BTreeMap::new();
    for g in games {
        let mut any = false;
        for r in &g.results {
            if !valid(r, n) {
                ignored += 1;
                continue;
            }
            any = true;
            results += 1;
            let e = h2h.entry((r.a, r.b)).or_default();
            e.0 += 1;
            e.1 += r.score;
            let e = h2h.entry((r.b, r.a)).or_default();
            e.0 += 1;
            e.1 += 1.0 - r.score;
        }
        rated_games += usize::from(any);
    }
    if ignored > 0 {
        notes.push(format!(
            "{ignored} pairwise result(s) ignored: a participant index out of range, a participant against itself, or a score outside [0, 1]."
        ));
    }

    // Connected pools of participants with results.
    let mut played = vec![0u64; n];
    let mut pool_parent: Vec<usize> = (0..n).collect();
    for (&(a, b), &(k, _)) in &h2h {
        played[a] += k;
        let (ra, rb) = (root(&mut pool_parent, a), root(&mut pool_parent, b));
        pool_parent[ra] = rb;
    }
    let pool: Vec<usize> = (0..n).map(|i| root(&mut pool_parent, i)).collect();
    let mut pools: BTreeMap<usize, (usize, u64, usize)> = BTreeMap::new(); // root -> (members, results, lowest)
    for i in (0..n).filter(|&i| played[i] > 0) {
        let e = pools.entry(pool[i]).or_insert((0, 0, i));
        e.0 += 1;
        e.1 += played[i];
    }
    let anchor_played = opts.anchor.filter(|&a| a < n && played[a] > 0);
    let main = match anchor_played {
        Some(a) => Some(pool[a]),
        None => pools
            .iter()
            .max_by(|x, y| x.1.0.cmp(&y.1.0).then(x.1.1.cmp(&y.1.1)).then(y.1.2.cmp(&x.1.2)))
            .map(|(&r, _)| r),
    };
    let members: Vec<usize> = (0..n).filter(|&i| played[i] > 0 && Some(pool[i]) == main).collect();
    let mut unrated = Vec::new();
    for i in 0..n {
        if played[i] == 0 {
            unrated.push(Unrated { participant: i, name: participants[i].clone(), reason: "no rated game".into() });
        } else if Some(pool[i]) != main {
            unrated.push(Unrated {
                participant: i,
                name: participants[i].clone(),
                reason: "never met the rated pool, even through common opponents".into(),
            });
        }
    }
    if unrated.iter().any(|u| u.reason != "no rated game") {
        notes.push(format!(
            "Some participants never met the rated pool ({}), even through common opponents: their ratings would not be comparable, so they are not rated in this list.",
            unrated.iter().filter(|u| u.reason != "no rated game").map(|u| u.name.as_str()).collect::<Vec<_>>().join(", ")
        ));
    }
    if let Some(a) = opts.anchor
        && anchor_played.is_none()
    {
        let name = participants.get(a).map_or_else(|| format!("#{a}"), |s| s.clone());
        notes.push(format!("The anchor {name} has no rated game here: the mean rating is 0 instead."));
    }

    // Compact design over the rated members.
    let m = members.len();
    let mut compact = vec![usize::MAX; n];
    for (k, &i) in members.iter().enumerate() {
        compact[i] = k;
    }
    let mut pair_index: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    let mut pairs = Vec::new();
    for &(a, b) in h2h.keys() {
        if a < b && compact[a] != usize::MAX {
            pair_index.insert((compact[a], compact[b]), pairs.len());
            pairs.push((compact[a], compact[b]));
        }
    }
    let design = Design { m, pairs };
    let np = design.pairs.len();
    let mut base_games = vec![0.0; np];
    let mut base_points = vec![0.0; np];
    let mut units: BTreeMap<u64, BTreeMap<usize, (f64, f64)>> = BTreeMap::new();
    for g in games {
        for r in g.results.iter().filter(|r| valid(r, n) && compact[r.a] != usize::MAX) {
            let (i, j) = (compact[r.a], compact[r.b]);
            let (key, pts) = if i < j { ((i, j), r.score) } else { ((j, i), 1.0 - r.score) };
            let p = pair_index[&key];
            base_games[p] += 1.0;
            base_points[p] += pts;
            let u = units.entry(g.unit).or_default().entry(p).or_default();
            u.0 += 1.0;
            u.1 += pts;
        }
    }
    let prior_games: Vec<f64> = base_games.iter().map(|_| VIRTUAL_DRAWS_PER_PAIR).collect();
    let with_prior = |games: &[f64], points: &[f64]| -> (Vec<f64>, Vec<f64>) {
        (
            games.iter().zip(&prior_games).map(|(g, v)| g + v).collect(),
            points.iter().zip(&prior_games).map(|(p, v)| p + v / 2.0).collect(),
        )
    };
    let anchor_compact = anchor_played.map(|a| compact[a]);
    let to_elo = |logs: &[f64]| -> Vec<f64> {
        let shift = anchor_compact.map_or(0.0, |a| logs[a]);
        logs.iter().map(|l| (l - shift) * ELO_PER_NEPER).collect()
    };
    let (g0, p0) = with_prior(&base_games, &base_points);
    let logs = if m > 0 { fit(&design, &g0, &p0, None) } else { Vec::new() };
    let ratings = to_elo(&logs);

    // Bounds: strongly connected components of "scored against" on the real results.
    let mut scored = vec![Vec::new(); m];
    for (p, &(i, j)) in design.pairs.iter().enumerate() {
        if base_points[p] > 0.0 {
            scored[i].push(j);
        }
        if base_games[p] - base_points[p] > 0.0 {
            scored[j].push(i);
        }
    }
    let scc = strong_components(&scored);
    let mut bounds = vec![None; m];
    let comps = scc.iter().max().map_or(0, |c| c + 1);
    if comps > 1 {
        let (mut size, mut res, mut first) = (vec![0usize; comps], vec![0u64; comps], vec![usize::MAX; comps]);
        for (i, &c) in scc.iter().enumerate() {
            size[c] += 1;
            res[c] += played[members[i]];
            first[c] = first[c].min(i);
        }
        let main = (0..comps)
            .max_by(|&x, &y| size[x].cmp(&size[y]).then(res[x].cmp(&res[y])).then(first[y].cmp(&first[x])))
            .unwrap_or(0);
        let mut reverse = vec![Vec::new(); m];
        for (i, js) in scored.iter().enumerate() {
            for &j in js {
                reverse[j].push(i);
            }
        }
        let from_main: Vec<usize> = (0..m).filter(|&i| scc[i] == main).collect();
        let below = reachable(&scored, &from_main);
        let above = reachable(&reverse, &from_main);
        for i in 0..m {
            bounds[i] = if scc[i] == main {
                None
            } else if above[i] {
                Some(Bound::NoLosses)
            } else if below[i] {
                Some(Bound::NoWins)
            } else {
                Some(Bound::Apart)
            };
        }
        // Groups best first, members best first.
        let mut by_rating: Vec<usize> = (0..m).collect();
        by_rating.sort_by(|&x, &y| ratings[y].total_cmp(&ratings[x]).then(x.cmp(&y)));
        let mut groups: Vec<Vec<&str>> = Vec::new();
        let mut slot = vec![usize::MAX; comps];
        for &i in &by_rating {
            if slot[scc[i]] == usize::MAX {
                slot[scc[i]] = groups.len();
                groups.push(Vec::new());
            }
            groups[slot[scc[i]]].push(participants[members[i]].as_str());
        }
        notes.push(format!(
            "The real results split the rated participants into {comps} groups, each of which scored every point, or none, against the others: {}. Gaps between these groups are set by the prior (one virtual draw per pair that met), gaps within a group by the data; the intervals of the ratings marked as bounds only show how the prior's effect varies with the games resampled.",
            groups.iter().map(|g| format!("{{{}}}", g.join(", "))).collect::<Vec<_>>().join(", ")
        ));
    }

    // Bootstrap over units.
    let unit_list: Vec<Vec<(usize, f64, f64)>> =
        units.values().map(|u| u.iter().map(|(&p, &(g, w))| (p, g, w)).collect()).collect();
    let b = if m > 1 { opts.bootstrap as usize } else { 0 };
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(b); m];
    let mut rng = SplitMix64(opts.seed);
    let mut counts = vec![0u32; unit_list.len()];
    for _ in 0..b {
        counts.iter_mut().for_each(|c| *c = 0);
        for _ in 0..unit_list.len() {
            counts[rng.below(unit_list.len())] += 1;
        }
        let mut games_r = vec![0.0; np];
        let mut points_r = vec![0.0; np];
        for (u, &c) in unit_list.iter().zip(&counts) {
            if c > 0 {
                let c = f64::from(c);
                for &(p, g, w) in u {
                    games_r[p] += c * g;
                    points_r[p] += c * w;
                }
            }
        }
        let (gr, pr) = with_prior(&games_r, &points_r);
        let r = to_elo(&fit(&design, &gr, &pr, Some(&logs)));
        for (s, x) in samples.iter_mut().zip(r) {
            s.push(x);
        }
    }

    // Sort and assemble.
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&x, &y| {
        ratings[y]
            .total_cmp(&ratings[x])
            .then_with(|| participants[members[x]].cmp(&participants[members[y]]))
            .then(members[x].cmp(&members[y]))
    });
    let los: Vec<Vec<f64>> = if b > 0 {
        order
            .iter()
            .map(|&x| {
                order
                    .iter()
                    .map(|&y| {
                        let above: f64 = samples[x]
                            .iter()
                            .zip(&samples[y])
                            .map(|(rx, ry)| {
                                if rx > ry {
                                    1.0
                                } else if rx == ry {
                                    0.5
                                } else {
                                    0.0
                                }
                            })
                            .sum();
                        above / b as f64
                    })
                    .collect()
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut entries = Vec::with_capacity(m);
    for (rank, &k) in order.iter().enumerate() {
        let i = members[k];
        let interval = (b > 0).then(|| {
            let mut s = samples[k].clone();
            s.sort_by(f64::total_cmp);
            (quantile(&s, 0.025), quantile(&s, 0.975))
        });
        let points: f64 = h2h.range((i, 0)..(i + 1, 0)).map(|(_, &(_, p))| p).sum();
        let opp_games: f64 = h2h.range((i, 0)..(i + 1, 0)).map(|(_, &(k, _))| k as f64).sum();
        let opponents =
            h2h.range((i, 0)..(i + 1, 0)).map(|(&(_, j), &(k, _))| k as f64 * ratings[compact[j]]).sum::<f64>()
                / opp_games;
        entries.push(Rated {
            rank: rank + 1,
            participant: i,
            name: participants[i].clone(),
            rating: ratings[k],
            interval,
            games: played[i],
            points,
            score: points / played[i] as f64,
            opponents,
            bound: bounds[k],
            los_next: (b > 0 && rank + 1 < m).then(|| los[rank][rank + 1]),
        });
    }
    let head_to_head = h2h
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
        .collect();
    RatingList {
        label: String::new(),
        games: rated_games,
        results,
        units: unit_list.len(),
        anchor: anchor_played.map(|a| participants[a].clone()),
        bootstrap: b as u32,
        seed: opts.seed,
        virtual_draws_per_pair: VIRTUAL_DRAWS_PER_PAIR,
        entries,
        unrated,
        head_to_head,
        los,
        notes,
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generator_is_uniform_enough_and_in_range() {
        let mut r = SplitMix64(7);
        let mut hist = [0u32; 5];
        for _ in 0..50_000 {
            hist[r.below(5)] += 1;
        }
        assert!(hist.iter().all(|&h| (9_500..10_500).contains(&h)), "{hist:?}");
    }

    #[test]
    fn strong_components_of_a_chain_are_separate() {
        let c = strong_components(&[vec![1], vec![2], vec![]]);
        assert!(c[0] != c[1] && c[1] != c[2]);
        let c = strong_components(&[vec![1], vec![2], vec![0]]);
        assert!(c[0] == c[1] && c[1] == c[2]);
    }

    #[test]
    fn quantile_interpolates() {
        assert_eq!(quantile(&[0.0, 10.0], 0.25), 2.5);
        assert_eq!(quantile(&[1.0, 2.0, 3.0], 0.5), 2.0);
    }
}
