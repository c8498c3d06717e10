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
use crate::view::{Sampler, SeatView};
use crate::{Agent, AgentError};
use engine::core::{ActionId, Seat, SmallRng};
use rand::{Rng, RngExt, SeedableRng};
use std::time::{Duration, Instant};

const NONE: u32 = u32::MAX;

/// `ln(n)`, from a table for the small counts the search meets most.
#[inline]
fn ln(n: u32) -> f64 {
    static TABLE: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| (0..4096u32).map(|k| (k.max(1) as f64).ln()).collect());
    match table.get(n as usize) {
        Some(&v) => v,
        None => (n as f64).ln(),
    }
}

struct Node {
    /// The action that leads here from the parent.
    action: ActionId,
    /// The seat that chose it (whose reward this node accumulates).
    mover: u8,
    visits: u32,
    /// Iterations in which this node was legal when its parent was passed through.
    available: u32,
    total: f64,
    /// Children, sorted by action.
    children: Vec<u32>,
}

/// The statistics of the root's children: (action, visits, total reward).
pub type RootStats = Vec<(ActionId, u32, f64)>;

/// What a search found: the root's statistics, and how many iterations it ran.
pub struct Searched {
    pub stats: RootStats,
    pub iterations: u32,
}

struct Tree {
    nodes: Vec<Node>,
}

impl Tree {
    fn new() -> Tree {
        Tree { nodes: vec![Node { action: 0, mover: 0, visits: 0, available: 0, total: 0.0, children: Vec::new() }] }
    }

    fn add_child(&mut self, parent: u32, action: ActionId, mover: u8) -> u32 {
        let id = self.nodes.len() as u32;
        self.nodes.push(Node { action, mover, visits: 0, available: 1, total: 0.0, children: Vec::new() });
        let nodes = &self.nodes;
        let at = nodes[parent as usize].children.partition_point(|&c| nodes[c as usize].action < action);
        self.nodes[parent as usize].children.insert(at, id);
        id
    }
}

/// Reusable buffers of one search.
struct Scratch {
    legal: Vec<ActionId>,
    sorted: Vec<ActionId>,
    untried: Vec<ActionId>,
    available: Vec<u32>,
    path: Vec<u32>,
}

/// Run the search on one thread: `iterations` at most, until `deadline` if any.
pub fn search<G: Heuristics>(
    sampler: &Sampler<G>,
    cfg: &MctsConfig,
    iterations: u32,
    seed: u64,
    deadline: Option<Instant>,
) -> Searched {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut tree = Tree::new();
    let mut s = Scratch {
        legal: Vec::with_capacity(64),
        sorted: Vec::with_capacity(64),
        untried: Vec::with_capacity(64),
        available: Vec::with_capacity(64),
        path: Vec::with_capacity(64),
    };
    let seats = sampler.seats();
    let mut rewards = [0.0f64; 4];
    let mut done = 0;
    for it in 0..iterations {
        if let Some(d) = deadline
            && it % 16 == 0
            && it > 0
            && Instant::now() >= d
        {
            break;
        }
        done += 1;
        let mut g = sampler.sample(&mut rng);
        s.path.clear();
        s.path.push(0);
        let mut node = 0u32;
        // Selection and expansion.
        while let Some(mover) = g.to_move() {
            s.legal.clear();
            g.legal_actions(&mut s.legal);
            s.sorted.clear();
            s.sorted.extend_from_slice(&s.legal);
            s.sorted.sort_unstable();
            s.untried.clear();
            s.available.clear();
            let children = &tree.nodes[node as usize].children;
            let (mut i, mut j) = (0, 0);
            while j < s.sorted.len() {
                let a = s.sorted[j];
                if i < children.len() {
                    let c = children[i];
                    let ca = tree.nodes[c as usize].action;
                    if ca < a {
                        i += 1;
                        continue;
                    }
                    if ca == a {
                        s.available.push(c);
                        i += 1;
                        j += 1;
                        continue;
                    }
                }
                s.untried.push(a);
                j += 1;
            }
            if !s.untried.is_empty() {
                let a = s.untried[rng.random_range(0..s.untried.len())];
                let child = tree.add_child(node, a, mover.0);
                g.apply(a).expect("a legal action");
                s.path.push(child);
                break;
            }
            // Every legal action has a child: follow the best by UCB over availability.
            let mut best = (f64::MIN, NONE);
            for &c in &s.available {
                let n = &mut tree.nodes[c as usize];
                n.available += 1;
                let mean = n.total / n.visits as f64;
                let ucb = mean + cfg.c * (ln(n.available) / n.visits as f64).sqrt();
                if ucb > best.0 {
                    best = (ucb, c);
                }
            }
            node = best.1;
            g.apply(tree.nodes[node as usize].action).expect("a legal action");
            s.path.push(node);
        }
        // Rollout.
        let mut depth = 0;
        while !g.is_terminal() && (cfg.depth == 0 || depth < cfg.depth) {
            s.legal.clear();
            g.legal_actions(&mut s.legal);
            let a = match cfg.rollout {
                Rollout::Random => s.legal[rng.random_range(0..s.legal.len())],
                Rollout::Greedy => {
                    let seat = g.to_move().expect("not over");
                    greedy_step(&g, seat, &s.legal)
                }
                Rollout::Rules => g.policy(&s.legal, &mut rng),
            };
            g.apply(a).expect("a legal action");
            depth += 1;
        }
        if g.is_terminal() {
            g.rewards(&mut rewards[..seats]);
        } else {
            for (seat, r) in rewards.iter_mut().enumerate().take(seats) {
                *r = g.evaluate(Seat(seat as u8));
            }
        }
        // Backpropagation: each node adds the reward of the seat that chose its action.
        for &n in &s.path {
            let node = &mut tree.nodes[n as usize];
            node.visits += 1;
            node.total += rewards[node.mover as usize];
        }
    }
    let root = &tree.nodes[0];
    let stats = root
        .children
        .iter()
        .map(|&c| {
            let n = &tree.nodes[c as usize];
            (n.action, n.visits, n.total)
        })
        .collect();
    Searched { stats, iterations: done }
}

/// Search with `cfg` (on `cfg.threads` threads) and return the summed root statistics.
pub fn root_stats<G: Heuristics>(sampler: &Sampler<G>, cfg: &MctsConfig, seed: u64) -> RootStats {
    let deadline = cfg.time.map(|t| Instant::now() + t);
    let threads = cfg.threads.max(1);
    let mut seeds = SmallRng::seed_from_u64(seed);
    let shares: Vec<(u32, u64)> = (0..threads)
        .map(|t| (cfg.iterations / threads + u32::from(t < cfg.iterations % threads), seeds.next_u64()))
        .collect();
    if threads == 1 {
        return search(sampler, cfg, shares[0].0, shares[0].1, deadline).stats;
    }
    let results: Vec<RootStats> = std::thread::scope(|scope| {
        let handles: Vec<_> =
            shares.iter().map(|&(its, s)| scope.spawn(move || search(sampler, cfg, its, s, deadline).stats)).collect();
        handles.into_iter().map(|h| h.join().expect("a search thread")).collect()
    });
    let mut merged: RootStats = Vec::new();
    for stats in results {
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

pub struct Mcts<G: Heuristics> {
    params: G::Params,
    cfg: MctsConfig,
    rng: SmallRng,
    name: String,
}

impl<G: Heuristics> Mcts<G> {
    pub fn new(params: G::Params, cfg: MctsConfig, seed: u64, name: String) -> Self {
        Mcts { params, cfg, rng: SmallRng::seed_from_u64(seed), name }
    }
}

impl<G: Heuristics> Agent for Mcts<G> {
    fn name(&self) -> &str {
        &self.name
    }

    /// The search stops at the deadline the budget sets.
    fn answers_in_time(&self) -> bool {
        true
    }

    fn act(&mut self, view: &SeatView) -> Result<ActionId, AgentError> {
        let legal = view.legal();
        let seed = self.rng.next_u64();
        if legal.len() == 1 {
            return Ok(legal[0]);
        }
        let sampler: Sampler<G> = view.sampler(&self.params).map_err(AgentError::Failed)?;
        let mut cfg = self.cfg.clone();
        // Keep within the time the arena allows for the move (with a margin for the answer).
        if let Some(limit) = view.budget().per_move {
            let allowed = limit.mul_f64(0.8).saturating_sub(Duration::from_millis(2));
            cfg.time = Some(cfg.time.map_or(allowed, |t| t.min(allowed)));
        }
        Ok(choose(&root_stats(&sampler, &cfg, seed), legal))
    }
}

/// The speed of the search against the speed of its rollouts, from one position of a game: random playouts per second (a copy of the position played out at random), and
/// search iterations per second with random rollouts (each a sampled determinization, a walk
/// down the tree and a random rollout), each measured for `seconds` on one thread.
#[derive(Clone, Copy, Debug)]
pub struct Speed {
    pub playouts_per_second: f64,
    pub iterations_per_second: f64,
}

/// Measure [`Speed`] for game `G` from the position `moves` random moves into game `seed`
/// (or the last one before the end).
pub fn speed<G: Heuristics>(params: &G::Params, seed: u64, moves: usize, seconds: f64) -> Speed {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut g = G::new(params, seed);
    let mut buf = Vec::new();
    for _ in 0..moves {
        buf.clear();
        g.legal_actions(&mut buf);
        let mut next = g.clone();
        next.apply(buf[rng.random_range(0..buf.len())]).expect("a legal action");
        if next.is_terminal() {
            break;
        }
        g = next;
    }
    let seat = g.to_move().expect("a position before the end");
    let window = Duration::from_secs_f64(seconds);
    let start = Instant::now();
    let mut playouts = 0u64;
    while start.elapsed() < window {
        for _ in 0..16 {
            let mut p = g.clone();
            engine::core::random_playout(&mut p, &mut rng, &mut buf);
        }
        playouts += 16;
    }
    let playouts_per_second = playouts as f64 / start.elapsed().as_secs_f64();
    // Searches of the default budget, one after another (each with a new tree), as an agent
    // runs them move after move.
    let sampler = Sampler::<G>::new(params, &g.observation(seat), seat).expect("a game's own observation");
    let cfg = MctsConfig { rollout: Rollout::Random, ..MctsConfig::default() };
    let start = Instant::now();
    let mut iterations = 0u64;
    let mut s = seed;
    while start.elapsed() < window {
        s = s.wrapping_add(1);
        iterations += u64::from(search(&sampler, &cfg, cfg.iterations, s, None).iterations);
    }
    Speed { playouts_per_second, iterations_per_second: iterations as f64 / start.elapsed().as_secs_f64() }
}
