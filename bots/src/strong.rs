//! The strong agent (`strong`): information-set MCTS as [`crate::mcts`] runs it, with what
//! made it stronger in measurement:
//!
//! - a **closed-loop tree** (`tree=closed`, the default): after each action the tree branches
//!   on what the searching seat then observes that chance may have changed (journey: the
//!   satchels, the discard, the phase, the adversary fought; expedition: its hand, the board,
//!   the public counts), so that a later decision is searched for the situation it is taken
//!   in, not averaged over every card the deck could show (`tree=open`: one node per action
//!   sequence, as `mcts`; `tree=reveal`: journey, branch on the phase and adversary alone);
//! - journey's **rollout policy** (`journey/rollout.rs`): the seed's rules played with sense (pay a due with
//!   the cheapest set of cards and Wreckage, strike to defeat, hold the big Diamonds for the
//!   Nemesis, Hide when the reveal is likely to slip under, Forage in refuges), where `mcts`
//!   plays the plain rules policy (`rollout=rules` here too);
//! - a reward that counts **how far the journey got** beside arrival (`w`, the weight of
//!   progress: `(arrived + w·x/(x+40)) / (travellers + w)` with `x` the score plus the Journey
//!   cards dealt with), so that rollouts that fall still tell good play from bad;
//! - optionally the **learned arrival chance** (`journey/value.rs`) at the end of rollouts cut
//!   off after `depth` moves, and **hindsight search** (`samples=N`, cooperative games only):
//!   each action judged by the best play a deep search finds after it in each of N sampled
//!   deals, averaged;
//! - in a game of one seat (solo journey), the **tree kept** from one decision to the next
//!   (`reuse=true`, the default): the next search starts from the subtree below the action
//!   played and what the seat then observed, its statistics going on growing.
//!
//! Its budget keys are `mcts`'s (`iterations`, `ms`, `c`, `threads`), with `trees`: the
//! independent trees the iterations are shared among (their root statistics summed), which
//! `threads` runs in parallel without changing the result. Without `iterations` it searches
//! its game's own budget ([`Strong::ITERATIONS`]: 20,000 in journey, 100,000 in expedition,
//! where budget is what wins).

use crate::eval::Heuristics;
use crate::mcts::{Effort, Playout, choose, deadline, root_stats, search_in};
use crate::spec::{StrongConfig, TreeShape};
use crate::tree::Tree;
use crate::view::{Budget, Sampler};
use engine::core::{ActionId, Seat, SmallRng};
use rand::{Rng, SeedableRng};
use std::hash::Hasher;
use std::time::Instant;

/// What the strong agent knows of a game beyond its evaluation.
pub trait Strong: Heuristics {
    /// The tree's shape unless told otherwise, as measured best for the game.
    const TREE: TreeShape;
    /// Iterations per decision unless told otherwise: what keeps every decision within a
    /// second on one core (journey's slowest at 20,000 took 1.0 s, expedition's at 100,000
    /// 0.65 s; docs/agents.md, Strength).
    const ITERATIONS: u32;
    /// The game is won as well as it can be (no search beyond can do better for arrival).
    fn solved(&self) -> bool {
        false
    }
    /// Every seat's estimated goal short of the end, if the game has a learned value.
    fn estimate(&self, w: f64, out: &mut [f64]) -> bool {
        let _ = (w, out);
        false
    }
    /// The rollout policy.
    fn playout(&self, legal: &[ActionId], rng: &mut SmallRng) -> ActionId {
        self.policy(legal, rng)
    }
    /// A key of what `seat` observes now that chance may have changed.
    fn observed(&self, seat: Seat, coarse: bool) -> u32;
    /// Every seat's reward of a finished game, with `w` weighing progress beside the goal.
    fn goal(&self, w: f64, out: &mut [f64]) {
        let _ = w;
        self.rewards(out);
    }
}

/// A small, fast hasher for observation keys.
#[derive(Default)]
pub(crate) struct Mix(pub(crate) u64);

impl Hasher for Mix {
    fn write(&mut self, bytes: &[u8]) {
        bytes.iter().for_each(|&b| self.write_u64(u64::from(b)));
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 32)
    }
}

struct Settings<'a>(&'a StrongConfig);

impl<G: Strong> Playout<G> for Settings<'_> {
    fn choose(&self, g: &G, legal: &[ActionId], rng: &mut SmallRng) -> ActionId {
        if self.0.rules { g.policy(legal, rng) } else { g.playout(legal, rng) }
    }
    fn observed(&self, g: &G, seat: Seat) -> Option<u32> {
        match self.0.tree.unwrap_or(G::TREE) {
            TreeShape::Open => None,
            shape => Some(g.observed(seat, shape == TreeShape::Reveal)),
        }
    }
    fn depth(&self) -> u32 {
        self.0.depth
    }
    fn rewards(&self, g: &G, over: bool, out: &mut [f64]) {
        if over {
            g.goal(self.0.w, out);
        } else if !g.estimate(self.0.w, out) {
            for (seat, r) in out.iter_mut().enumerate() {
                *r = g.evaluate(Seat(seat as u8));
            }
        }
    }
}

/// The `strong` agent.
pub type StrongAgent<G> = crate::mcts::SearchAgent<G, StrongConfig>;

impl<G: Strong> crate::mcts::Search<G> for StrongConfig {
    fn decide(&self, sampler: &Sampler<G>, legal: &[ActionId], budget: Budget, start: Instant, seed: u64) -> ActionId {
        let d = deadline(start, self.time, budget);
        let iterations = self.iterations.unwrap_or(G::ITERATIONS);
        // Hindsight judges an action by the best play found after it, which is every seat's
        // best only when all seats share one goal: competitive games search as ISMCTS.
        if self.samples > 0 && G::COOPERATIVE {
            let stats = hindsight(sampler, legal, self, self.samples, iterations, seed, d);
            let best = stats.iter().max_by(|a, b| (a.2 / a.1.max(1) as f64).total_cmp(&(b.2 / b.1.max(1) as f64)));
            return best.map_or(legal[0], |b| b.0);
        }
        let effort = Effort { iterations, deadline: d, trees: self.trees, threads: self.threads };
        choose(&root_stats(sampler, &Settings(self), self.c, effort, seed), legal)
    }

    /// With `reuse`, in a game of one seat, one tree and no hindsight: the search goes on from
    /// the subtree of the last decision (the same seed as [`root_stats`] gives its one tree,
    /// so that a first decision is the same either way).
    fn decide_from(
        &self,
        sampler: &Sampler<G>,
        legal: &[ActionId],
        budget: Budget,
        start: Instant,
        seed: u64,
        kept: Option<Tree>,
    ) -> (ActionId, Option<Tree>) {
        if !(self.reuse && self.trees <= 1 && self.samples == 0 && sampler.seats() == 1) {
            return (self.decide(sampler, legal, budget, start, seed), None);
        }
        let iterations = self.iterations.unwrap_or(G::ITERATIONS);
        let room = 2 * iterations as usize + 1 + kept.as_ref().map_or(0, |t| t.nodes.len());
        let tree = match kept {
            Some(t) => t.grown(room),
            None => Tree::new(room),
        };
        let seed = SmallRng::seed_from_u64(seed).next_u64();
        let d = deadline(start, self.time, budget);
        let (searched, tree) = search_in(tree, sampler, &Settings(self), self.c, iterations, seed, d, true);
        (choose(&searched.stats, legal), Some(tree))
    }

    fn observed(&self, g: &G, seat: Seat) -> Option<u32> {
        Playout::observed(&Settings(self), g, seat)
    }
}

/// Reusable memory of the deep searches.
struct Deep {
    tree: crate::tree::Tree,
    offer: crate::tree::Offer,
    legal: Vec<ActionId>,
    path: Vec<u32>,
}

impl Deep {
    fn new() -> Deep {
        Deep { tree: crate::tree::Tree::new(1024), offer: Default::default(), legal: Vec::new(), path: Vec::new() }
    }

    /// The best goal found from `g`, a state with every fact known (a sample): UCT on the
    /// exact tree for `iterations`, rollouts by the playout policy.
    fn search<G: Strong>(
        &mut self,
        g: &G,
        cfg: &StrongConfig,
        iterations: u32,
        deadline: Option<Instant>,
        rng: &mut SmallRng,
    ) -> f64 {
        use crate::tree::step;
        let mut out = [0.0f64; 4];
        let seats = g.seats();
        self.tree.clear();
        let mut overall = f64::MIN;
        for it in 0..iterations {
            if it % 16 == 15 && deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            let mut s = g.clone();
            self.path.clear();
            self.path.push(0);
            let mut node = 0u32;
            while let Some(mover) = s.to_move() {
                self.legal.clear();
                s.legal_actions(&mut self.legal);
                let Some(chosen) = self.tree.select(node, &self.legal, cfg.c, &mut self.offer) else {
                    // The policy's choice first, then the others in turn.
                    let pick = s.policy(&self.offer.untried, rng);
                    let child = self.tree.add_child(node, pick, mover.0);
                    step(&mut s, pick);
                    self.path.push(child);
                    break;
                };
                node = chosen;
                step(&mut s, self.tree.nodes[node as usize].action);
                self.path.push(node);
            }
            loop {
                self.legal.clear();
                s.legal_actions(&mut self.legal);
                if self.legal.is_empty() {
                    break;
                }
                let a = s.playout(&self.legal, rng);
                step(&mut s, a);
            }
            s.goal(cfg.w, &mut out[..seats]);
            let r = out[0];
            overall = overall.max(r);
            self.tree.backpropagate(&self.path, &out[..seats]);
            if s.solved() {
                break;
            }
        }
        overall
    }
}

/// Hindsight optimisation: each action's worth is the best found after it in each of the same
/// samples, averaged; the best is played.
pub fn hindsight<G: Strong>(
    sampler: &Sampler<G>,
    legal: &[ActionId],
    cfg: &StrongConfig,
    samples: u32,
    per_action: u32,
    seed: u64,
    deadline: Option<Instant>,
) -> Vec<(ActionId, u32, f64)> {
    use crate::tree::step;
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut deep = Deep::new();
    let mut totals: Vec<(ActionId, u32, f64)> = legal.iter().map(|&a| (a, 0, 0.0)).collect();
    let seats = sampler.seats();
    let mut out = [0.0f64; 4];
    let mut values = Vec::with_capacity(legal.len());
    for k in 0..samples {
        if k > 0 && deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let s = sampler.sample(&mut rng);
        values.clear();
        for t in &totals {
            let mut g = s.clone();
            step(&mut g, t.0);
            values.push(if g.is_terminal() {
                g.goal(cfg.w, &mut out[..seats]);
                out[0]
            } else {
                deep.search(&g, cfg, per_action, deadline, &mut rng)
            });
        }
        // A sample the deadline cut short judged its last actions on less search: the first
        // sample counts all the same (there must be an answer), a later one not.
        if k > 0 && deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        for (t, &v) in totals.iter_mut().zip(&values) {
            t.1 += 1;
            t.2 += v;
        }
    }
    totals
}
