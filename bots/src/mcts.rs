//! Single-observer information-set MCTS (Cowling, Powley and Whitehouse 2012, "SO-ISMCTS").
//!
//! One tree over the searching seat's information set. Each iteration draws one
//! determinization from the [`Sampler`] (a full state built from the seat's observation alone,
//! hidden facts and future chance drawn afresh), then walks the tree restricted to the
//! children legal in that determinization: an action not yet tried there is expanded,
//! otherwise the child with the best UCB is followed, where a child's exploration term counts
//! the times it was *available* rather than the parent's visits. A rollout (random, or the
//! greedy policy; optionally cut off at a depth and scored by the evaluation) finishes the
//! iteration, and every node on the path adds the reward of the seat that chose its action.
//! The move played is the root's most visited child.
//!
//! For a seed and an iteration budget the choice is deterministic (also with several threads:
//! each thread's seed and share of the iterations are fixed); a time limit stops the search
//! early and gives up that determinism.

use crate::eval::Heuristics;
use crate::greedy::greedy_step;
use crate::spec::{MctsConfig, Rollout};
use crate::tree::{Offer, Tree, step};
use crate::view::{Budget, Sampler, SeatView};
use crate::{Agent, AgentError};
use engine::core::{ActionId, Seat, SmallRng};
use rand::{Rng, RngExt, SeedableRng};
use std::time::{Duration, Instant};

/// The statistics of the root's children: (action, visits, total reward).
pub type RootStats = Vec<(ActionId, u32, f64)>;

/// What a search found: the root's statistics, how many iterations it ran and how many
/// actions they played (down the tree and in rollouts).
pub struct Searched {
    pub stats: RootStats,
    pub iterations: u32,
    pub actions: u64,
}

/// How an iteration ends below the tree: the rollout's moves, where it stops, and the
/// rewards it backs up.
pub trait Playout<G: Heuristics>: Sync {
    /// The rollout's move in `g`, one of `legal`.
    fn choose(&self, g: &G, legal: &[ActionId], rng: &mut SmallRng) -> ActionId;
    /// Stop the rollout after this many moves and evaluate (0: play to the end).
    fn depth(&self) -> u32 {
        0
    }
    /// What `seat` (the searching seat) observes in `g` that chance may have changed, for the
    /// tree to branch on (`None`: nodes are action sequences alone, chance averaged over).
    fn observed(&self, _g: &G, _seat: Seat) -> Option<u32> {
        None
    }
    /// Every seat's reward (`out[seat]`): of the finished game when `over`, else an estimate.
    fn rewards(&self, g: &G, over: bool, out: &mut [f64]) {
        if over {
            g.rewards(out);
        } else {
            for (seat, r) in out.iter_mut().enumerate() {
                *r = g.evaluate(Seat(seat as u8));
            }
        }
    }
}

impl<G: Heuristics> Playout<G> for MctsConfig {
    fn choose(&self, g: &G, legal: &[ActionId], rng: &mut SmallRng) -> ActionId {
        match self.rollout {
            Rollout::Random => legal[rng.random_range(0..legal.len())],
            Rollout::Greedy => greedy_step(g, g.to_move().expect("not over"), legal),
            Rollout::Rules => g.policy(legal, rng),
        }
    }
    fn depth(&self) -> u32 {
        self.depth
    }
}

/// How much one search may spend.
#[derive(Clone, Copy, Debug)]
pub struct Effort {
    /// Iterations in all, shared among the trees.
    pub iterations: u32,
    pub deadline: Option<Instant>,
    /// Independent trees, their root statistics summed.
    pub trees: u32,
    /// Threads the trees run on (the result does not depend on it).
    pub threads: u32,
}

/// Run the search on one thread: `iterations` at most, until `deadline` if any; `c` is the
/// UCB exploration constant. With `settle`, it also stops once the root's most visited child
/// can no longer be overtaken in the iterations left, so the move it returns is the one the
/// whole budget would return, found sooner.
pub fn search<G: Heuristics, P: Playout<G>>(
    sampler: &Sampler<G>,
    playout: &P,
    c: f64,
    iterations: u32,
    seed: u64,
    deadline: Option<Instant>,
    settle: bool,
) -> Searched {
    let tree = Tree::new(2 * iterations as usize + 1);
    search_in(tree, sampler, playout, c, iterations, seed, deadline, settle).0
}

/// [`search`] on `tree`: a new one, or one kept from the seat's last decision and rooted at
/// this one (its statistics go on growing); returns the tree too.
#[allow(clippy::too_many_arguments)]
pub(crate) fn search_in<G: Heuristics, P: Playout<G>>(
    mut tree: Tree,
    sampler: &Sampler<G>,
    playout: &P,
    c: f64,
    iterations: u32,
    seed: u64,
    deadline: Option<Instant>,
    settle: bool,
) -> (Searched, Tree) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let observer = sampler.seat();
    let mut offer = Offer::default();
    let mut legal = Vec::with_capacity(64);
    let mut root_legal = Vec::with_capacity(64);
    let mut path = Vec::with_capacity(64);
    let seats = sampler.seats();
    let mut rewards = [0.0f64; 4];
    let max_depth = playout.depth();
    let (mut done, mut actions) = (0, 0u64);
    for it in 0..iterations {
        if let Some(d) = deadline
            && it % 16 == 0
            && it > 0
            && Instant::now() >= d
        {
            break;
        }
        if settle && it % 64 == 0 && it > 0 && tree.settled(iterations - it) {
            break;
        }
        done += 1;
        let mut g = sampler.sample_to_play(&mut rng);
        path.clear();
        path.push(0);
        let mut node = 0u32;
        // Selection and expansion.
        while let Some(mover) = g.to_move() {
            let selected = if node == 0 {
                // The root's legal actions are the seat's own, the same in every sample.
                if root_legal.is_empty() {
                    g.legal_actions(&mut root_legal);
                }
                debug_assert!({
                    legal.clear();
                    g.legal_actions(&mut legal);
                    legal == root_legal
                });
                tree.select_root(&root_legal, c, &mut offer)
            } else {
                legal.clear();
                g.legal_actions(&mut legal);
                tree.select(node, &legal, c, &mut offer)
            };
            // Every legal action has a child: follow the best by UCB over availability; or
            // expand one not tried yet.
            let Some(chosen) = selected else {
                let a = offer.untried[rng.random_range(0..offer.untried.len())];
                let child = tree.add_child(node, a, mover.0);
                step(&mut g, a);
                path.push(child);
                break;
            };
            step(&mut g, tree.nodes[chosen as usize].action);
            path.push(chosen);
            node = match playout.observed(&g, observer) {
                Some(key) => tree.outcome(chosen, key),
                None => chosen,
            };
        }
        // Rollout (an empty list of legal actions is the end).
        let mut depth = 0;
        let over = loop {
            if max_depth != 0 && depth >= max_depth {
                break false;
            }
            legal.clear();
            g.legal_actions(&mut legal);
            if legal.is_empty() {
                break true;
            }
            let a = playout.choose(&g, &legal, &mut rng);
            step(&mut g, a);
            depth += 1;
        };
        actions += u64::from(depth) + path.len() as u64 - 1;
        playout.rewards(&g, over, &mut rewards[..seats]);
        tree.backpropagate(&path, &rewards);
    }
    (Searched { stats: tree.children(0), iterations: done, actions }, tree)
}

/// Search with `effort`: its iterations shared among its trees, each with its own seed,
/// the trees run on its threads (each thread's trees one after another, sharing its time);
/// returns the root statistics summed in tree order, so the threads change nothing.
pub fn root_stats<G: Heuristics, P: Playout<G>>(
    sampler: &Sampler<G>,
    playout: &P,
    c: f64,
    effort: Effort,
    seed: u64,
) -> RootStats {
    let trees = effort.trees.max(1);
    let threads = effort.threads.clamp(1, trees);
    let mut seeds = SmallRng::seed_from_u64(seed);
    let shares: Vec<(u32, u64)> = (0..trees)
        .map(|t| (effort.iterations / trees + u32::from(t < effort.iterations % trees), seeds.next_u64()))
        .collect();
    let start = Instant::now();
    // Thread `w` runs trees w, w + threads, ...; the k-th of its m trees stops at k/m of the time.
    let run = |w: u32| -> Vec<(u32, RootStats)> {
        let mine: Vec<u32> = (w..trees).step_by(threads as usize).collect();
        let m = mine.len() as u32;
        mine.iter()
            .enumerate()
            .map(|(k, &t)| {
                let deadline = effort.deadline.map(|d| start + (d - start).mul_f64((k as f64 + 1.0) / m as f64));
                let (its, s) = shares[t as usize];
                // One tree alone may stop once its choice is settled; several are summed, so
                // each spends its whole share.
                (t, search(sampler, playout, c, its, s, deadline, trees == 1).stats)
            })
            .collect()
    };
    let mut results: Vec<(u32, RootStats)> = on_threads(threads, run).into_iter().flatten().collect();
    results.sort_by_key(|r| r.0);
    let mut merged: RootStats = Vec::new();
    for (_, stats) in results {
        for (a, v, t) in stats {
            match merged.iter_mut().find(|m| m.0 == a) {
                Some(m) => {
                    m.1 += v;
                    m.2 += t;
                }
                None => merged.push((a, v, t)),
            }
        }
    }
    merged.sort_by_key(|m| m.0);
    merged
}

/// `run(w)` for every `w` below `threads`, in the order of `w`: the first on the calling
/// thread, each other on a thread of its own. Those threads are kept from one search to the
/// next, by each thread that asks for them: one started and joined per search cost 70 µs
/// here, 5% of a search of 1000 iterations, and a kept one wakes in a few. Where no thread can
/// be started, the calling one runs them all (the same results: no share depends on the
/// thread it runs on).
fn on_threads<R: Send>(threads: u32, run: impl Fn(u32) -> R + Sync) -> Vec<R> {
    use std::cell::RefCell;
    use std::rc::Rc;
    thread_local! {
        static POOLS: RefCell<Vec<Rc<rayon::ThreadPool>>> = const { RefCell::new(Vec::new()) };
    }
    let helpers = threads.max(1) as usize - 1;
    if helpers == 0 {
        return vec![run(0)];
    }
    let pool = POOLS.with(|pools| {
        let mut pools = pools.borrow_mut();
        if let Some(p) = pools.iter().find(|p| p.current_num_threads() == helpers) {
            return Some(p.clone());
        }
        let built = rayon::ThreadPoolBuilder::new()
            .num_threads(helpers)
            .thread_name(|i| format!("search-{}", i + 1))
            .build()
            .ok()?;
        pools.push(Rc::new(built));
        pools.last().cloned()
    });
    let Some(pool) = pool else {
        return (0..=helpers as u32).map(run).collect();
    };
    // Each helper runs one share (a broadcast: never two on one thread while another waits).
    let shares: Vec<std::sync::Mutex<Option<R>>> = (0..=helpers).map(|_| Default::default()).collect();
    let (run, slots) = (&run, &shares);
    pool.in_place_scope(|scope| {
        scope.spawn_broadcast(move |_, ctx| {
            let w = ctx.index() + 1;
            *slots[w].lock().unwrap_or_else(|e| e.into_inner()) = Some(run(w as u32));
        });
        *slots[0].lock().unwrap_or_else(|e| e.into_inner()) = Some(run(0));
    });
    shares.into_iter().map(|r| r.into_inner().ok().flatten().expect("every share ran")).collect()
}

/// The most visited action (ties: the higher mean reward, then the lower id).
pub fn choose(stats: &RootStats, legal: &[ActionId]) -> ActionId {
    stats
        .iter()
        .filter(|s| legal.contains(&s.0))
        .max_by(|a, b| {
            a.1.cmp(&b.1).then((a.2 / a.1.max(1) as f64).total_cmp(&(b.2 / b.1.max(1) as f64))).then(b.0.cmp(&a.0))
        })
        .map_or(legal[0], |s| s.0)
}

/// When the search of a decision that started at `start` (when the agent was asked) must
/// stop: at its own time limit `time`, and within the per-move limit of `budget` (with a
/// margin for the answer). Counting from the question, not from the search's own start, keeps
/// what comes before the search (the sampler, the kept tree's copy) within the limit too.
pub fn deadline(start: Instant, time: Option<Duration>, budget: Budget) -> Option<Instant> {
    // The decision's own share: a bank is kept for the seat's clock, not spent every move.
    let allowed = budget.share().map(|limit| limit.mul_f64(0.8).saturating_sub(Duration::from_millis(2)));
    let time = match (time, allowed) {
        (Some(t), Some(a)) => Some(t.min(a)),
        (t, a) => t.or(a),
    };
    time.map(|t| start + t)
}

/// How a search agent spends one decision: its settings choose an action from the seat's
/// sampler within the budget.
pub trait Search<G: Heuristics>: Send {
    /// The decision asked at `start` (the time limits count from it).
    fn decide(&self, sampler: &Sampler<G>, legal: &[ActionId], budget: Budget, start: Instant, seed: u64) -> ActionId;
    /// [`Search::decide`], going on from `kept` (the tree of the seat's last search, rooted
    /// at this decision) when the settings keep their trees; returns the tree to keep.
    fn decide_from(
        &self,
        sampler: &Sampler<G>,
        legal: &[ActionId],
        budget: Budget,
        start: Instant,
        seed: u64,
        kept: Option<Tree>,
    ) -> (ActionId, Option<Tree>) {
        let _ = kept;
        (self.decide(sampler, legal, budget, start, seed), None)
    }
    /// The key the tree's nodes below an action are found by in `g` (as
    /// [`Playout::observed`]), for a kept tree to follow what happened.
    fn observed(&self, g: &G, seat: Seat) -> Option<u32> {
        let _ = (g, seat);
        None
    }
}

impl<G: Heuristics> Search<G> for MctsConfig {
    fn decide(&self, sampler: &Sampler<G>, legal: &[ActionId], budget: Budget, start: Instant, seed: u64) -> ActionId {
        let effort = Effort {
            iterations: self.iterations,
            deadline: deadline(start, self.time, budget),
            trees: self.threads,
            threads: self.threads,
        };
        choose(&root_stats(sampler, self, self.c, effort, seed), legal)
    }
}

/// An agent that searches with settings `C`: `mcts` ([`Mcts`]) and `strong`
/// ([`crate::strong::StrongAgent`]). Each decision draws its search's seed from the agent's.
pub struct SearchAgent<G: Heuristics, C> {
    params: G::Params,
    cfg: C,
    rng: SmallRng,
    name: String,
    /// The tree of the last search, and its node of the action played since, when the
    /// settings keep their trees.
    kept: Option<(Tree, u32)>,
}

/// The most nodes a kept tree may bring to the next search (64 MiB): past it the search
/// starts afresh, so that a long game of long searches does not pile up memory.
const KEPT_NODES: usize = 1 << 21;

/// The `mcts` agent.
pub type Mcts<G> = SearchAgent<G, MctsConfig>;

impl<G: Heuristics, C: Search<G>> SearchAgent<G, C> {
    pub fn new(params: G::Params, cfg: C, seed: u64, name: String) -> Self {
        SearchAgent { params, cfg, rng: SmallRng::seed_from_u64(seed), name, kept: None }
    }
}

impl<G: Heuristics, C: Search<G>> Agent for SearchAgent<G, C> {
    fn name(&self) -> &str {
        &self.name
    }

    /// The search stops at the deadline the budget sets.
    fn answers_in_time(&self) -> bool {
        true
    }

    fn act(&mut self, view: &SeatView) -> Result<ActionId, AgentError> {
        let start = Instant::now();
        let legal = view.legal();
        let seed = self.rng.next_u64();
        if legal.len() == 1 && self.kept.is_none() {
            return Ok(legal[0]);
        }
        let sampler: Sampler<G> = view.sampler(&self.params).map_err(AgentError::Failed)?;
        // Where the kept tree stands: below the action played, at what the seat now observes.
        let here = self.kept.take().and_then(|(tree, played)| {
            let node = match self.cfg.observed(sampler.state(), view.seat()) {
                Some(key) => tree.child(played, key)?,
                None => played,
            };
            Some((tree, node))
        });
        if legal.len() == 1 {
            self.kept = here.and_then(|(tree, node)| tree.child(node, legal[0]).map(|p| (tree, p)));
            return Ok(legal[0]);
        }
        let kept = here.and_then(|(tree, node)| tree.subtree(node, tree.nodes.len(), KEPT_NODES));
        let (action, tree) = self.cfg.decide_from(&sampler, legal, view.budget(), start, seed, kept);
        self.kept = tree.and_then(|t| t.child(0, action).map(|p| (t, p)));
        Ok(action)
    }

    fn game_over(&mut self, _seat: Seat, _outcome: &engine::core::Outcome) {
        self.kept = None;
    }
}

/// The speed of the search against the speed of its rollouts, over the opening positions of
/// several deals of a game, each measured for a while on one thread: random playouts per
/// second (a copy of the position played out at random), search iterations per second with
/// random rollouts (each a sampled determinization, a walk down the tree and a random
/// rollout), the actions each plays, and the iterations per second of the same searches on
/// several threads. Rates are geometric means over the positions, so that their ratio is the
/// geometric mean of each position's ratio (one position's figures swing several-fold with
/// how soon random play ends its game).
///
/// Beside the playouts from the position itself, the same playouts from deals sampled from the
/// seat's information set (drawn before the clock starts, [`SAMPLED_DEALS`] of them, one after
/// another): a copy of one position played out again and again meets the same deal, its
/// chance the same, which the processor learns to predict (in journey such playouts ran 7–14%
/// faster per action than over different deals; in expedition, whose random games are long,
/// no faster), while every search iteration meets a deal of its own.
#[derive(Clone, Copy, Debug)]
pub struct Speed {
    pub playouts_per_second: f64,
    /// Random playouts per second from sampled deals of the same positions, the sampling
    /// itself not counted.
    pub sampled_playouts_per_second: f64,
    pub actions_per_sampled_playout: f64,
    pub iterations_per_second: f64,
    pub actions_per_playout: f64,
    /// Down the tree and in the rollout: the tree's policy survives longer than random play.
    pub actions_per_iteration: f64,
    /// On `threads` threads, each running a search of the same budget.
    pub threaded_iterations_per_second: f64,
}

/// The sampled deals the playouts of [`Speed::sampled_playouts_per_second`] go round (kept in
/// the cache: a journey state is under 1 kB).
pub const SAMPLED_DEALS: usize = 256;

/// Measure [`Speed`] for game `G` over the opening positions of `deals` deals from `seed` on,
/// searches of `iterations` (per thread), `seconds` per measure in all (shared among the
/// positions), the last on `threads` threads.
///
/// The four measures of a position take turns, a slice each (a search, or playouts for about
/// as long), until each has had its share of the time: this machine's speed drifts by a fifth
/// from one second to the next, and measures taken one after another inherit that drift in
/// their ratio, while measures taken in turn meet it alike.
pub fn speed<G: Heuristics>(
    params: &G::Params,
    seed: u64,
    deals: u32,
    iterations: u32,
    seconds: f64,
    threads: u32,
) -> Speed {
    let deals = deals.max(1);
    let window = Duration::from_secs_f64(seconds / f64::from(deals));
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut buf = Vec::new();
    let cfg = MctsConfig { rollout: Rollout::Random, iterations: iterations.max(1), ..MctsConfig::default() };
    let threads = threads.max(1);
    let effort = Effort { iterations: cfg.iterations * threads, deadline: None, trees: threads, threads };
    // Per measure (playouts, sampled playouts, searches, threaded searches): the sum over the
    // positions of the logarithm of its rate, and of the actions per playout or iteration.
    let (mut rates_ln, mut actions) = ([0.0f64; 4], [0.0f64; 3]);
    let mut s = seed;
    for deal in 0..deals {
        let g = G::new(params, engine::core::game_seed(seed, u64::from(deal)));
        let seat = g.to_move().expect("a game starts with a decision");
        let sampler = Sampler::<G>::new(params, &g.observation(seat), seat).expect("a game's own observation");
        let sampled_deals: Vec<G> = (0..SAMPLED_DEALS).map(|_| sampler.sample(&mut rng)).collect();
        // Time spent, work done (playouts or iterations) and actions played, per measure.
        let mut spent = [Duration::ZERO; 4];
        let (mut done, mut played) = ([0u64; 4], [0u64; 3]);
        // A slice of playouts lasts about as long as the last search did.
        let mut slice = Duration::from_micros(200);
        while spent.iter().any(|&t| t < window) {
            for (k, states) in [std::slice::from_ref(&g), &sampled_deals[..]].into_iter().enumerate() {
                let start = Instant::now();
                while start.elapsed() < slice {
                    // The next 16 of `states` (the position 16 times, or 16 sampled deals in turn).
                    for d in states[done[k] as usize % states.len()..].iter().cycle().take(16) {
                        played[k] += engine::core::random_playout(&mut d.clone(), &mut rng, &mut buf);
                    }
                    done[k] += 16;
                }
                spent[k] += start.elapsed();
            }
            // A search with a new tree, as an agent runs one per move.
            s = s.wrapping_add(1);
            let start = Instant::now();
            let searched = search(&sampler, &cfg, cfg.c, cfg.iterations, s, None, false);
            slice = start.elapsed();
            spent[2] += slice;
            done[2] += u64::from(searched.iterations);
            played[2] += searched.actions;
            let start = Instant::now();
            root_stats(&sampler, &cfg, cfg.c, effort, s);
            spent[3] += start.elapsed();
            done[3] += u64::from(effort.iterations);
        }
        for k in 0..4 {
            rates_ln[k] += (done[k] as f64 / spent[k].as_secs_f64()).ln();
        }
        for k in 0..3 {
            actions[k] += played[k] as f64 / done[k] as f64;
        }
    }
    let n = f64::from(deals);
    let rate = |k: usize| (rates_ln[k] / n).exp();
    Speed {
        playouts_per_second: rate(0),
        sampled_playouts_per_second: rate(1),
        actions_per_sampled_playout: actions[1] / n,
        iterations_per_second: rate(2),
        actions_per_playout: actions[0] / n,
        actions_per_iteration: actions[2] / n,
        threaded_iterations_per_second: rate(3),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::StrongConfig;
    use engine::core::{Dyn, Game, GameParams};
    use engine::journey::{Journey, JourneyParams};

    /// Shares run in their order, the first on the calling thread and each other on a thread
    /// of its own, which the next call with as many threads finds again.
    #[test]
    fn the_search_threads_are_kept_from_one_search_to_the_next() {
        let here = std::thread::current().id();
        let ran = |threads| on_threads(threads, |w| (w, std::thread::current().id()));
        assert_eq!(ran(1), [(0, here)]);
        let first = ran(3);
        assert_eq!(first.iter().map(|r| r.0).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(first[0].1, here);
        assert!(first[1].1 != here && first[2].1 != here && first[1].1 != first[2].1, "{first:?}");
        assert_eq!(ran(3), first, "the same threads again");
        let two = ran(2);
        assert!(two[1].1 != here && !first.contains(&two[1]), "a pool of its own for two threads");
    }

    /// A decision's deadline counts from when the agent was asked, whatever comes before the
    /// search: its own time, or the per-move limit less the margin for the answer, whichever
    /// is sooner.
    #[test]
    fn a_deadline_counts_from_the_question() {
        let asked = Instant::now() - Duration::from_millis(30);
        let ms = Duration::from_millis;
        assert_eq!(deadline(asked, Some(ms(100)), Budget::default()), Some(asked + ms(100)));
        let limit = Budget::per_move(Some(ms(50)));
        assert_eq!(deadline(asked, Some(ms(100)), limit), Some(asked + ms(38)), "80% of 50 ms less 2 ms");
        assert_eq!(deadline(asked, Some(ms(10)), limit), Some(asked + ms(10)));
        assert_eq!(deadline(asked, None, limit), Some(asked + ms(38)));
        assert_eq!(deadline(asked, None, Budget::default()), None);
    }

    /// In a solo journey `strong` goes on from its last tree: at most decisions the node it
    /// kept has a child for what the seat then observes, the kept tree's statistics start the
    /// next search, and that search's root is the kept node.
    #[test]
    fn the_strong_agent_keeps_its_tree_between_decisions() {
        let params = JourneyParams::preset("martian").unwrap();
        let cfg = StrongConfig { iterations: Some(400), ..StrongConfig::default() };
        let (mut searched, mut followed) = (0, 0);
        for seed in 0..4 {
            let mut g = Journey::new(&params, seed);
            let mut agent =
                SearchAgent::<Journey, StrongConfig>::new(params.clone(), cfg.clone(), seed, "strong".into());
            let mut legal = Vec::new();
            while let Some(seat) = g.to_move() {
                legal.clear();
                g.legal_actions(&mut legal);
                let state = Dyn(g.clone());
                let view = SeatView::local(&state, seat, &legal, Budget::default());
                let sampler: Sampler<Journey> = view.sampler(&params).unwrap();
                // The visits below the kept node for what the seat observes now.
                let visits = |tree: &Tree, node: u32| tree.children(node).iter().map(|c| c.1).sum::<u32>();
                let kept_visits = agent.kept.as_ref().and_then(|(tree, played)| {
                    let key = Search::<Journey>::observed(&cfg, sampler.state(), seat)?;
                    tree.child(*played, key).map(|n| visits(tree, n))
                });
                let a = agent.act(&view).unwrap();
                if legal.len() > 1 {
                    searched += 1;
                    followed += usize::from(kept_visits.is_some_and(|v| v > 0));
                    let (tree, played) = agent.kept.as_ref().expect("a tree kept after a search");
                    assert_eq!(tree.nodes[*played as usize].action, a);
                    // The search went on from what was kept.
                    assert!(visits(tree, 0) > kept_visits.unwrap_or(0));
                }
                g.apply(a).unwrap();
            }
            let outcome = g.outcome().unwrap();
            agent.game_over(Seat(0), &outcome);
            assert!(agent.kept.is_none(), "a finished game keeps no tree");
        }
        assert!(2 * followed >= searched, "the kept tree was followed at {followed} of {searched} searches");
    }
}
