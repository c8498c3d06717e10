//! The strong agent (`strong`): information-set MCTS as [`crate::mcts`] runs it, with what
//! made it stronger in measurement:
//!
//! - a **closed-loop tree** (`tree=closed`, the default): after each action the tree branches
//!   on what the searching seat then observes that chance may have changed (journey: the
//!   satchels, the discard, the phase, the adversary fought; expedition: its hand, the board,
//!   the public counts), so that a later decision is searched for the situation it is taken
//!   in, not averaged over every card the deck could show (`tree=open`: one node per action
//!   sequence, as `mcts`; `tree=reveal`: journey, branch on the phase and adversary alone);
//! - journey's **rollout policy** ([`jp`]): the seed's rules played with sense (pay a due with
//!   the cheapest set of cards and Wreckage, strike to defeat, hold the big Diamonds for the
//!   Nemesis, Hide when the reveal is likely to slip under, Forage in refuges), where `mcts`
//!   plays the plain rules policy (`rollout=rules` here too);
//! - a reward that counts **how far the journey got** beside arrival (`w`, the weight of
//!   progress: `(arrived + w·x/(x+40)) / (travellers + w)` with `x` the score plus the Journey
//!   cards dealt with), so that rollouts that fall still tell good play from bad;
//! - optionally the **learned arrival chance** ([`crate::value`]) at the end of rollouts cut
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

use crate::eval::{Heuristics, journey_result};
use crate::mcts::{Effort, Playout, choose, deadline, root_stats, search_in};
use crate::tree::Tree;
use crate::view::{Budget, Sampler};
use engine::core::{ActionId, Game, Seat, SmallRng};
use engine::expedition::Expedition;
use engine::journey::{Card, Journey};
use rand::{Rng, SeedableRng};
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

#[derive(Clone, Debug, PartialEq)]
pub struct StrongConfig {
    /// Iterations per decision, shared among the trees (`None`: the game's own,
    /// [`Strong::ITERATIONS`]).
    pub iterations: Option<u32>,
    /// A time limit per decision (with it, the choice no longer depends on the seed alone).
    pub time: Option<Duration>,
    /// The UCB exploration constant.
    pub c: f64,
    /// Threads the trees run on (the result does not depend on it).
    pub threads: u32,
    /// journey: the weight of how far the journey got beside arrival.
    pub w: f64,
    /// What the tree branches on after an action (`None`: the game's choice, [`Strong::TREE`]).
    pub tree: Option<TreeShape>,
    /// Hindsight: samples per move (0: information-set MCTS instead).
    pub samples: u32,
    /// Rollouts by the rules policy.
    pub rules: bool,
    /// Independent trees.
    pub trees: u32,
    /// Rollout moves before the learned value judges (0: to the end).
    pub depth: u32,
    /// Keep the tree from one decision to the next (games of one seat, one tree, no
    /// hindsight: where every decision in between is the seat's own).
    pub reuse: bool,
}

impl Default for StrongConfig {
    fn default() -> Self {
        StrongConfig {
            iterations: None,
            time: None,
            c: 0.7,
            threads: 1,
            w: 1.0,
            tree: None,
            samples: 0,
            rules: false,
            trees: 1,
            depth: 0,
            reuse: true,
        }
    }
}

/// The largest of the games' own budgets ([`Strong::ITERATIONS`]): what a server must allow for
/// a plain `strong` in any game.
pub const MOST_ITERATIONS: u32 = {
    let (j, e) = (<Journey as Strong>::ITERATIONS, <Expedition as Strong>::ITERATIONS);
    if j > e { j } else { e }
};

/// What a strong agent's tree branches on after each action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeShape {
    /// Nothing: a node per action sequence, chance averaged over (as `mcts`).
    Open,
    /// What the searching seat observes that chance may have changed.
    Closed,
    /// journey: the phase and the adversary fought alone (the card revealed).
    Reveal,
}

impl TreeShape {
    pub fn name(self) -> &'static str {
        match self {
            TreeShape::Open => "open",
            TreeShape::Closed => "closed",
            TreeShape::Reveal => "reveal",
        }
    }
}

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
struct Mix(u64);

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

fn mask(cards: &[Card]) -> u64 {
    cards.iter().fold(0, |m, c| m | 1 << c.index())
}

impl Strong for Journey {
    /// Closed: each revealed card is searched on its own (what it bought: docs/agents.md's
    /// strength table).
    const TREE: TreeShape = TreeShape::Closed;
    const ITERATIONS: u32 = 20_000;
    fn playout(&self, legal: &[ActionId], rng: &mut SmallRng) -> ActionId {
        jp::policy(self, legal, rng, &jp::TUNE)
    }
    fn solved(&self) -> bool {
        self.arrived() == self.travellers()
    }
    fn observed(&self, _seat: Seat, coarse: bool) -> u32 {
        let mut h = Mix::default();
        if !coarse {
            for s in 0..self.travellers() {
                h.write_u64(mask(self.satchel(s)));
            }
            h.write_u64(mask(self.discard()));
        }
        self.phase().hash(&mut h);
        if let Some(f) = self.fight() {
            h.write_u64(f.adversary.index() as u64);
        }
        h.finish() as u32
    }

    fn estimate(&self, w: f64, out: &mut [f64]) -> bool {
        let Some(p) = crate::value::arrival(self) else { return false };
        let n = self.travellers();
        let alive = (0..n).filter(|&s| self.status(s) == engine::journey::Status::Journeying).count() as f64;
        out.fill(journey_result(self, w, alive * f64::from(p)));
        true
    }

    fn goal(&self, w: f64, out: &mut [f64]) {
        out.fill(journey_result(self, w, 0.0));
    }
}

impl Strong for Expedition {
    /// Open: a closed tree split by every board change lost to `mcts` (47.5% over 40 games
    /// at 5000 iterations) where the open one won 57.5%.
    const TREE: TreeShape = TreeShape::Open;
    /// Budget is what wins here: 20,000 iterations won 67% of no-dice games against `mcts`,
    /// 100,000 won 79% (200 games; slowest decision 0.65 s).
    const ITERATIONS: u32 = 100_000;
    fn observed(&self, seat: Seat, _coarse: bool) -> u32 {
        let mut h = Mix::default();
        h.write_u64(self.player(seat.index()).cards);
        for (tile, tools) in self.hq() {
            tile.hash(&mut h);
            tools.hash(&mut h);
        }
        self.face_up().hash(&mut h);
        self.bag().hash(&mut h);
        for p in 0..self.seats() {
            let pl = self.player(p);
            (pl.tools, pl.tiles.as_slice(), pl.done.as_slice(), pl.torch_lit, pl.score, pl.known).hash(&mut h);
            h.write_u64(u64::from(pl.cards.count_ones()));
        }
        (self.step(), self.die(), self.current()).hash(&mut h);
        h.finish() as u32
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

pub mod jp {
    //! journey: the strong agent's rollout policy, tuned by `Tune` on random deals.
    use engine::core::{ActionId, Game, SmallRng};
    use engine::journey::{Action as J, Card, DueKind, Journey, Phase, Suit};
    use rand::RngExt;

    fn damage(g: &Journey, c: Card) -> i32 {
        if g.is_power_ace(c) && c.is(Suit::Diamonds) {
            return 20;
        }
        let v = i32::from(g.value(c));
        if c.is(Suit::Diamonds) { 2 * v } else { v }
    }

    /// How much a card is worth keeping (strike use first).
    fn keep(g: &Journey, c: Card) -> i32 {
        if c.is_joker() {
            return 0;
        }
        if g.is_power_ace(c) {
            return 40;
        }
        if c.is(Suit::Diamonds) || c.is(Suit::Clubs) { damage(g, c) } else { i32::from(g.value(c)) }
    }

    /// The policy's few numbers.
    pub struct Tune {
        /// What a point of Wreckage costs to spend, beside a card's keep value (×100).
        pub wreck_cost: i32,
        /// Hide with a card when at least this share of the Supply would slip under it.
        pub hide_p: f64,
        /// Set up a direct hit only when the counter-attack is covered with this to spare.
        pub flee_margin: i32,
    }

    pub const TUNE: Tune = Tune { wreck_cost: 20, hide_p: 0.6, flee_margin: 5 };

    /// The first item to pay of the cheapest way to pay `owed`: any set of `cards` (value,
    /// cost), then Wreckage (`wreck`: worth, cost) taken greedily for what is left. Ties: the
    /// least overpaid, then the set of the lowest mask (cards in the order given).
    ///
    /// The sets are visited in Gray-code order, each one card away from the last (its sums kept
    /// rather than added up again), and a set of cards already dearer than the best plan is not
    /// topped up from the Wreckage (that only adds cost).
    fn pay_plan(cards: &[(i32, i32, ActionId)], wreck: &[(i32, i32, ActionId)], owed: i32) -> Option<ActionId> {
        let n = cards.len().min(10);
        let free_wreckage = wreck.iter().any(|w| w.1 < 0);
        let mut best: Option<(i32, i32, u32, Option<usize>)> = None;
        let (mut v, mut cards_cost) = (0, 0);
        for k in 0u32..(1 << n) {
            let m = k ^ (k >> 1);
            if k > 0 {
                let i = k.trailing_zeros() as usize;
                let sign = if m >> i & 1 == 1 { 1 } else { -1 };
                v += sign * cards[i].0;
                cards_cost += sign * cards[i].1;
            }
            if !free_wreckage && best.is_some_and(|b| cards_cost > b.0) {
                continue;
            }
            let Some((wreck_cost, overpaid, first_wreck)) = top_up(wreck, owed - v) else { continue };
            let key = (cards_cost + wreck_cost, overpaid, m, first_wreck);
            if best.is_none_or(|b| (key.0, key.1, key.2) < (b.0, b.1, b.2)) {
                best = Some(key);
            }
        }
        first_to_pay(cards, wreck, n, best?)
    }

    /// What is left to pay (`left`), from the Wreckage: the smallest piece that covers it, else
    /// the biggest, until paid. `None` if all of it falls short; else the pieces' cost, what
    /// they overpay, and the first piece taken.
    fn top_up(wreck: &[(i32, i32, ActionId)], mut left: i32) -> Option<(i32, i32, Option<usize>)> {
        let (mut cost, mut first, mut used) = (0, None, 0u32);
        while left > 0 {
            let pick = wreck
                .iter()
                .enumerate()
                .filter(|(i, w)| used >> i & 1 == 0 && w.0 >= left)
                .min_by_key(|(_, w)| w.0)
                .or_else(|| wreck.iter().enumerate().filter(|(i, _)| used >> i & 1 == 0).max_by_key(|(_, w)| w.0));
            let (i, w) = pick?;
            used |= 1 << i;
            first.get_or_insert(i);
            left -= w.0;
            cost += w.1;
        }
        Some((cost, -left, first))
    }

    /// The first item to pay of a plan (its cost, what it overpays, the mask of the first `n`
    /// cards it spends, the first piece of Wreckage): the biggest card first, the Wreckage after.
    fn first_to_pay(
        cards: &[(i32, i32, ActionId)],
        wreck: &[(i32, i32, ActionId)],
        n: usize,
        (_, _, m, w): (i32, i32, u32, Option<usize>),
    ) -> Option<ActionId> {
        (0..n)
            .filter(|&i| m >> i & 1 == 1)
            .max_by_key(|&i| cards[i].0)
            .map(|i| cards[i].2)
            .or_else(|| w.map(|i| wreck[i].2))
    }

    pub fn policy(g: &Journey, legal: &[ActionId], rng: &mut SmallRng, t: &Tune) -> ActionId {
        let Some(seat) = g.to_move() else { return legal[0] };
        let me = seat.index();
        let dec = |a: ActionId| J::from_id(a);
        if let Some(due) = g.dues().first() {
            let owed = i32::from(due.owed);
            match due.kind {
                DueKind::Discard | DueKind::DiscardAny => {
                    return *legal
                        .iter()
                        .min_by_key(|&&a| match dec(a) {
                            Some(J::Spend(c)) => keep(g, c),
                            _ => 1000,
                        })
                        .expect("a legal action");
                }
                _ => {
                    let (mut cards, mut wreck) = ([(0, 0, 0); 12], [(0, 0, 0); 16]);
                    let (mut nc, mut nw) = (0, 0);
                    for &a in legal {
                        match dec(a) {
                            Some(J::Spend(c)) if nc < cards.len() => {
                                cards[nc] = (i32::from(g.value(c)), keep(g, c) * 100, a);
                                nc += 1;
                            }
                            Some(J::SpendCompanion) if nc < cards.len() => {
                                cards[nc] = (10, 1500, a);
                                nc += 1;
                            }
                            Some(J::SpendWreckage(c)) if nw < wreck.len() => {
                                wreck[nw] = (i32::from(g.worth(c)), i32::from(g.worth(c)) * t.wreck_cost, a);
                                nw += 1;
                            }
                            _ => {}
                        }
                    }
                    return pay_plan(&cards[..nc], &wreck[..nw], owed).unwrap_or(legal[0]);
                }
            }
        }
        match g.phase() {
            Phase::Refuge { .. } => {
                if legal.contains(&J::Forage.id()) {
                    return J::Forage.id();
                }
                let best = legal
                    .iter()
                    .filter_map(|&a| match dec(a) {
                        Some(J::Recover(c)) => Some((keep(g, c), a)),
                        _ => None,
                    })
                    .max();
                if let Some((k, a)) = best
                    && k >= 8
                {
                    return a;
                }
                if legal.contains(&J::Pass.id()) {
                    return J::Pass.id();
                }
                J::EndRefuge.id()
            }
            Phase::Fight { .. } => fight(g, me, legal, rng, t),
            Phase::Take { .. } => *legal
                .iter()
                .max_by_key(|&&a| match dec(a) {
                    Some(J::Take(c)) => keep(g, c),
                    _ => -1,
                })
                .expect("a legal action"),
            Phase::HideBonus { .. } => {
                if legal.contains(&J::Forage.id()) {
                    J::Forage.id()
                } else {
                    legal[legal.len() - 1]
                }
            }
            _ => crate::policy::Policy::policy(g, legal, rng),
        }
    }

    /// Cards a satchel holds at most (its pile's capacity): the most strikes a fight lists, one
    /// per card.
    const SATCHEL: usize = 40;

    fn fight(g: &Journey, me: usize, legal: &[ActionId], rng: &mut SmallRng, t: &Tune) -> ActionId {
        let f = g.fight().expect("in a fight");
        let health = i32::from(f.health);
        let attack = i32::from((f.attack - f.reduction).max(0));
        let nemesis_ahead = g.journey_deck().iter().any(|&c| g.is_nemesis(c));
        let fighting_nemesis = g.is_nemesis(f.adversary);
        if legal.contains(&J::Reckoning.id()) && (fighting_nemesis || (!nemesis_ahead && health > 20)) {
            return J::Reckoning.id();
        }
        let satchel = g.satchel(me);
        let big = satchel.iter().filter(|&&c| damage(g, c) >= 20).count();
        let reserve = |c: Card| !fighting_nemesis && nemesis_ahead && big <= 1 && damage(g, c) >= 20;
        // The strikes with their damage, in the order listed (no allocation: one per card).
        let mut strikes = [(0, Card::default(), 0); SATCHEL];
        let mut ns = 0;
        for &a in legal {
            if let Some(J::Strike(c)) = J::from_id(a)
                && ns < SATCHEL
            {
                strikes[ns] = (a, c, damage(g, c));
                ns += 1;
            }
        }
        let strikes = &strikes[..ns];
        // A direct hit, with the card least worth keeping.
        if let Some(&(a, _, _)) = strikes.iter().filter(|s| s.2 == health && !reserve(s.1)).min_by_key(|s| keep(g, s.1))
        {
            return a;
        }
        // Classic Hide, when the reveal is likely to slip under.
        let supply = g.supply();
        let hide = legal
            .iter()
            .filter_map(|&a| match J::from_id(a) {
                Some(J::HideWith(c)) => {
                    let under = supply.iter().filter(|&&s| s.is_ace() || g.rank(s) < g.rank(c)).count();
                    Some((under as f64 / supply.len().max(1) as f64, a))
                }
                _ => None,
            })
            .max_by(|x, y| x.0.total_cmp(&y.0));
        if let Some((p, a)) = hide
            && p >= t.hide_p
        {
            return a;
        }
        // The cheapest strike that defeats it.
        if let Some(&(a, _, _)) =
            strikes.iter().filter(|s| s.2 > health && !reserve(s.1)).min_by_key(|s| (s.2, keep(g, s.1)))
        {
            return a;
        }
        // It survives this round: the counter must be covered.
        let cover: i32 = satchel.iter().map(|&c| i32::from(g.value(c))).sum::<i32>()
            + g.wreckage().iter().map(|&c| i32::from(g.worth(c))).sum::<i32>();
        let hits = |x: i32| satchel.iter().any(|&c| damage(g, c) == x);
        let set_up = strikes
            .iter()
            .filter(|s| s.2 < health && !reserve(s.1) && hits(health - s.2))
            .filter(|s| cover - i32::from(g.value(s.1)) - (health - s.2) / 2 >= attack + t.flee_margin)
            .max_by_key(|s| s.2);
        if let Some(&(a, _, _)) = set_up {
            return a;
        }
        let flee = legal
            .iter()
            .filter_map(|&a| match J::from_id(a) {
                Some(J::Flee(c)) => Some((keep(g, c), a)),
                _ => None,
            })
            .min();
        if let Some((_, a)) = flee {
            return a;
        }
        if legal.contains(&J::Hide.id()) && f.hide_bar >= 9 && rng.random_range(0..2) == 0 {
            return J::Hide.id();
        }
        if let Some(&(a, _, _)) = strikes.iter().filter(|s| !reserve(s.1)).max_by_key(|s| s.2) {
            return a;
        }
        if let Some(&(a, _, _)) = strikes.iter().max_by_key(|s| s.2) {
            return a;
        }
        crate::policy::Policy::policy(g, legal, rng)
    }
    #[cfg(test)]
    mod tests {
        use super::*;
        use rand::SeedableRng;

        /// The plan as first written: every set of cards summed afresh, in mask order, each
        /// topped up from the Wreckage.
        fn pay_plan_by_every_set(
            cards: &[(i32, i32, ActionId)],
            wreck: &[(i32, i32, ActionId)],
            owed: i32,
        ) -> Option<ActionId> {
            let n = cards.len().min(10);
            let mut best: Option<(i32, i32, u32, Option<usize>)> = None;
            for m in 0u32..(1 << n) {
                let (mut v, mut c) = (0, 0);
                for (i, it) in cards.iter().enumerate().take(n) {
                    if m >> i & 1 == 1 {
                        v += it.0;
                        c += it.1;
                    }
                }
                let Some((wreck_cost, overpaid, first_wreck)) = top_up(wreck, owed - v) else { continue };
                let key = (c + wreck_cost, overpaid, m, first_wreck);
                if best.is_none_or(|b| (key.0, key.1) < (b.0, b.1)) {
                    best = Some(key);
                }
            }
            first_to_pay(cards, wreck, n, best?)
        }

        /// The Gray-code walk with its pruning finds the plan every set finds, ties included.
        #[test]
        fn the_pay_plan_is_the_cheapest_over_every_set() {
            let mut rng = SmallRng::seed_from_u64(3);
            for case in 0..3000 {
                let item =
                    |rng: &mut SmallRng, id: ActionId| (rng.random_range(0..12), 100 * rng.random_range(0..8), id);
                let cards: Vec<_> = (0..rng.random_range(0..11)).map(|i| item(&mut rng, i)).collect();
                let wreck: Vec<_> = (0..rng.random_range(0..5)).map(|i| item(&mut rng, 100 + i)).collect();
                let owed = rng.random_range(0..40);
                assert_eq!(
                    pay_plan(&cards, &wreck, owed),
                    pay_plan_by_every_set(&cards, &wreck, owed),
                    "case {case}: {cards:?} {wreck:?} owing {owed}"
                );
            }
        }
    }
}
