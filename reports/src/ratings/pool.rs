//! Who is rated, and which ratings are only bounds: the valid results tallied per pair, the
//! pools of participants connected by games, and the groups of the rated pool that scored
//! every point, or none, against the others.

use super::fit::Design;
use super::graph::strong_components;
use super::{Bound, NO_RATED_GAME, RatedGame, Unrated, valid};
use std::collections::BTreeMap;

/// The valid results, tallied per ordered pair of participants (both directions).
pub(super) struct Tally {
    /// Games that gave at least one valid result.
    pub games: usize,
    /// Valid pairwise results.
    pub results: u64,
    /// `(a, b)` → (results between them, points of `a`).
    pub pairs: BTreeMap<(usize, usize), (u64, f64)>,
}

impl Tally {
    /// The valid results of `games` between `n` participants; a note counts the others.
    pub fn new(n: usize, games: &[RatedGame], notes: &mut Vec<String>) -> Tally {
        let mut ignored = 0usize;
        let mut tally = Tally { games: 0, results: 0, pairs: BTreeMap::new() };
        for g in games {
            let mut any = false;
            for r in &g.results {
                if !valid(r, n) {
                    ignored += 1;
                    continue;
                }
                any = true;
                tally.results += 1;
                let e = tally.pairs.entry((r.a, r.b)).or_default();
                e.0 += 1;
                e.1 += r.score;
                let e = tally.pairs.entry((r.b, r.a)).or_default();
                e.0 += 1;
                e.1 += 1.0 - r.score;
            }
            tally.games += if any { g.plays as usize } else { 0 };
        }
        if ignored > 0 {
            notes.push(format!(
                "{ignored} pairwise result(s) ignored: a participant index out of range, a participant against itself, or a score outside [0, 1]."
            ));
        }
        tally
    }

    /// `i`'s results against each opponent: (opponent, results, points of `i`).
    pub fn of(&self, i: usize) -> impl Iterator<Item = (usize, u64, f64)> + '_ {
        self.pairs.range((i, 0)..(i + 1, 0)).map(|(&(_, j), &(k, p))| (j, k, p))
    }
}

/// The rated pool: the participants connected by games to the anchor, or the largest such pool.
pub(super) struct Pool {
    /// Valid results of every participant.
    pub played: Vec<u64>,
    /// The rated participants, by index.
    pub members: Vec<usize>,
    /// The anchor, when it has a rated game.
    pub anchor: Option<usize>,
    /// Everyone else, and why.
    pub unrated: Vec<Unrated>,
}

impl Pool {
    /// Who is rated (see [`rate`](super::rate)); notes say who is not, and a missing anchor.
    pub fn choose(participants: &[String], tally: &Tally, anchor: Option<usize>, notes: &mut Vec<String>) -> Pool {
        let n = participants.len();
        let mut played = vec![0u64; n];
        let mut pool_parent: Vec<usize> = (0..n).collect();
        for (&(a, b), &(k, _)) in &tally.pairs {
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
        let anchor_played = anchor.filter(|&a| a < n && played[a] > 0);
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
                unrated.push(Unrated { participant: i, name: participants[i].clone(), reason: NO_RATED_GAME.into() });
            } else if Some(pool[i]) != main {
                unrated.push(Unrated {
                    participant: i,
                    name: participants[i].clone(),
                    reason: "never met the rated pool, even through common opponents".into(),
                });
            }
        }
        if unrated.iter().any(|u| u.reason != NO_RATED_GAME) {
            notes.push(format!(
                "Some participants never met the rated pool ({}), even through common opponents: their ratings would not be comparable, so they are not rated in this list.",
                unrated.iter().filter(|u| u.reason != NO_RATED_GAME).map(|u| u.name.as_str()).collect::<Vec<_>>().join(", ")
            ));
        }
        if let Some(a) = anchor
            && anchor_played.is_none()
        {
            let name = participants.get(a).map_or_else(|| format!("#{a}"), |s| s.clone());
            notes.push(format!("The anchor {name} has no rated game here: the mean rating is 0 instead."));
        }
        Pool { played, members, anchor: anchor_played, unrated }
    }

    /// The pool's results over its members' compact indices, per pair and per bootstrap unit.
    pub fn results(&self, tally: &Tally, games: &[RatedGame]) -> PoolResults {
        let n = self.played.len();
        let mut compact = vec![usize::MAX; n];
        for (k, &i) in self.members.iter().enumerate() {
            compact[i] = k;
        }
        let mut pair_index: BTreeMap<(usize, usize), usize> = BTreeMap::new();
        let mut pairs = Vec::new();
        for &(a, b) in tally.pairs.keys() {
            if a < b && compact[a] != usize::MAX {
                pair_index.insert((compact[a], compact[b]), pairs.len());
                pairs.push((compact[a], compact[b]));
            }
        }
        let design = Design { m: self.members.len(), pairs };
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
        let units = units.values().map(|u| u.iter().map(|(&p, &(g, w))| (p, g, w)).collect()).collect();
        PoolResults { design, compact, games: base_games, points: base_points, units }
    }
}

/// The rated pool's real results, over its members' compact indices (members' order).
pub(super) struct PoolResults {
    pub design: Design,
    /// The compact index of every participant; `usize::MAX` for one not rated.
    pub compact: Vec<usize>,
    /// Games per pair of the design.
    pub games: Vec<f64>,
    /// Points of the pair's first per pair.
    pub points: Vec<f64>,
    /// Per bootstrap unit, in the order of the unit ids: (pair, games, points of its first).
    pub units: Vec<Vec<(usize, f64, f64)>>,
}

/// Which ratings are only bounds, by compact index: the strongly connected components of
/// "scored against" on the real results. Several groups get a note naming them.
pub(super) fn bounds(
    participants: &[String],
    pool: &Pool,
    results: &PoolResults,
    ratings: &[f64],
    notes: &mut Vec<String>,
) -> Vec<Option<Bound>> {
    let (m, members, played) = (results.design.m, &pool.members, &pool.played);
    let (base_games, base_points) = (&results.games, &results.points);
    let mut scored = vec![Vec::new(); m];
    for (p, &(i, j)) in results.design.pairs.iter().enumerate() {
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
    bounds
}

/// Union-find root.
fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
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
