//! Bot specifications and their configurations, as written on the command line and in YAML: `random`, `greedy`,
//! `greedy:samples=8`, `mcts:iterations=2000,c=0.7`. A bad kind, key or value is an error that
//! names it and lists what is valid.

use std::fmt;
use std::time::Duration;

/// How an MCTS rollout picks its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rollout {
    /// Uniformly among the legal actions.
    Random,
    /// The greedy agent's choice: one step of lookahead on the evaluation.
    Greedy,
    /// The game's rule-based policy (`policy.rs`): cheap, and far better than random.
    Rules,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GreedyConfig {
    /// Determinizations each action is judged on (averaged).
    pub samples: u32,
}

impl Default for GreedyConfig {
    fn default() -> Self {
        GreedyConfig { samples: 4 }
    }
}

/// The most determinizations per action (greedy's `samples`, hindsight's) a server allows by
/// default: the greedy agent with at most these answers within its budget by itself.
pub const MOST_SAMPLES: u32 = 64;

/// The iterations of a search given `ms=` and no `iterations=`: the time alone ends it (as a
/// chess engine's `movetime`), rather than the default count ending it first.
pub const UNTIL_TIME: u32 = u32::MAX;

#[derive(Clone, Debug, PartialEq)]
pub struct MctsConfig {
    /// Iterations per decision (one determinization each; [`UNTIL_TIME`]: until the time).
    pub iterations: u32,
    /// A time limit per decision, if any (the search stops at whichever comes first; with a
    /// time limit the choice no longer depends only on the seed).
    pub time: Option<Duration>,
    /// The UCB exploration constant.
    pub c: f64,
    pub rollout: Rollout,
    /// Cut rollouts off after this many actions and use the evaluation (0: play to the end).
    pub depth: u32,
    /// Root-parallel search: independent trees on this many threads, their root statistics
    /// summed (iterations are shared among them).
    pub threads: u32,
}

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig { iterations: 1000, time: None, c: 0.7, rollout: Rollout::Rules, depth: 0, threads: 1 }
    }
}

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

/// One built-in agent with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum BotSpec {
    Random,
    /// The game's rule-based policy (the `rules` rollout), as an agent.
    Rules,
    Greedy(GreedyConfig),
    Mcts(MctsConfig),
    Strong(StrongConfig),
}

/// The built-in agents, and each one's keys.
pub const KINDS: &[(&str, &[&str])] = &[
    ("random", &[]),
    ("rules", &[]),
    ("greedy", &["samples"]),
    ("mcts", &["iterations", "ms", "c", "rollout", "depth", "threads"]),
    ("strong", &["iterations", "ms", "c", "threads", "w", "tree", "samples", "rollout", "trees", "depth", "reuse"]),
];

fn positive(kind: &str, key: &str, value: &str) -> Result<u32, String> {
    match value.parse::<u32>() {
        Ok(v) if v > 0 => Ok(v),
        _ => Err(format!("{kind}: `{key}` expects a positive whole number, got `{value}`")),
    }
}

impl BotSpec {
    /// Parse `KIND[:key=value,...]`.
    pub fn parse(text: &str) -> Result<BotSpec, String> {
        let text = text.trim();
        let (kind, rest) = text.split_once(':').unwrap_or((text, ""));
        let kind = kind.trim();
        let keys = KINDS.iter().find(|(k, _)| *k == kind).map(|(_, keys)| *keys).ok_or_else(|| {
            let names: Vec<_> = KINDS.iter().map(|(k, _)| *k).collect();
            format!("unknown agent `{kind}`; the agents are: {}", names.join(", "))
        })?;
        let mut spec = match kind {
            "random" => BotSpec::Random,
            "rules" => BotSpec::Rules,
            "greedy" => BotSpec::Greedy(GreedyConfig::default()),
            "strong" => BotSpec::Strong(Default::default()),
            _ => BotSpec::Mcts(MctsConfig::default()),
        };
        let mut iterations_given = false;
        for pair in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = pair
                .split_once('=')
                .map(|(k, v)| (k.trim(), v.trim()))
                .ok_or_else(|| format!("{kind}: expected key=value, got `{pair}`"))?;
            if !keys.contains(&key) {
                let valid = if keys.is_empty() { "it takes none".to_string() } else { keys.join(", ") };
                return Err(format!("{kind}: unknown parameter `{key}`; valid: {valid}"));
            }
            iterations_given |= key == "iterations";
            match &mut spec {
                BotSpec::Random | BotSpec::Rules => unreachable!("{kind} takes no parameters"),
                BotSpec::Greedy(g) => g.samples = positive(kind, key, value)?,
                BotSpec::Mcts(m) => match key {
                    "iterations" => m.iterations = positive(kind, key, value)?,
                    "ms" => m.time = Some(Duration::from_millis(positive(kind, key, value)? as u64)),
                    "c" => {
                        m.c = value
                            .parse::<f64>()
                            .ok()
                            .filter(|c| c.is_finite() && *c >= 0.0)
                            .ok_or_else(|| format!("{kind}: `c` expects a number ≥ 0, got `{value}`"))?
                    }
                    "rollout" => {
                        m.rollout = match value {
                            "random" => Rollout::Random,
                            "greedy" => Rollout::Greedy,
                            "rules" => Rollout::Rules,
                            _ => {
                                return Err(format!("{kind}: `rollout` is random, greedy or rules, got `{value}`"));
                            }
                        }
                    }
                    "depth" => {
                        m.depth = value.parse::<u32>().map_err(|_| {
                            format!("{kind}: `depth` expects a whole number (0: to the end), got `{value}`")
                        })?
                    }
                    _ => m.threads = positive(kind, key, value)?.min(64),
                },
                BotSpec::Strong(m) => match key {
                    "iterations" => m.iterations = Some(positive(kind, key, value)?),
                    "ms" => m.time = Some(Duration::from_millis(positive(kind, key, value)? as u64)),
                    "c" | "w" => {
                        let x = value
                            .parse::<f64>()
                            .ok()
                            .filter(|x| x.is_finite() && *x >= 0.0)
                            .ok_or_else(|| format!("{kind}: `{key}` expects a number ≥ 0, got `{value}`"))?;
                        if key == "c" { m.c = x } else { m.w = x }
                    }
                    "tree" => {
                        m.tree = Some(match value {
                            "open" => TreeShape::Open,
                            "closed" => TreeShape::Closed,
                            "reveal" => TreeShape::Reveal,
                            _ => return Err(format!("{kind}: `tree` is open, closed or reveal, got `{value}`")),
                        })
                    }
                    "rollout" => {
                        m.rules = match value {
                            "strong" => false,
                            "rules" => true,
                            _ => return Err(format!("{kind}: `rollout` is strong or rules, got `{value}`")),
                        }
                    }
                    "trees" => m.trees = positive(kind, key, value)?.min(64),
                    "reuse" => {
                        m.reuse = match value {
                            "true" => true,
                            "false" => false,
                            _ => return Err(format!("{kind}: `reuse` is true or false, got `{value}`")),
                        }
                    }
                    "depth" | "samples" => {
                        let n = value
                            .parse::<u32>()
                            .map_err(|_| format!("{kind}: `{key}` expects a whole number (0: off), got `{value}`"))?;
                        if key == "depth" { m.depth = n } else { m.samples = n }
                    }
                    _ => m.threads = positive(kind, key, value)?.min(64),
                },
            }
        }
        // A time and no count: the time ends the search. (Hindsight's count is per sampled
        // deal and action, so it keeps its default.)
        match &mut spec {
            BotSpec::Mcts(m) if m.time.is_some() && !iterations_given => m.iterations = UNTIL_TIME,
            BotSpec::Strong(m) if m.time.is_some() && !iterations_given && m.samples == 0 => {
                m.iterations = Some(UNTIL_TIME)
            }
            _ => {}
        }
        Ok(spec)
    }

    /// The thinking time it was given (`ms=`), if any.
    pub fn time(&self) -> Option<Duration> {
        match self {
            BotSpec::Mcts(m) => m.time,
            BotSpec::Strong(m) => m.time,
            _ => None,
        }
    }

    /// The kind's name: random, greedy or mcts.
    pub fn kind(&self) -> &'static str {
        match self {
            BotSpec::Random => "random",
            BotSpec::Rules => "rules",
            BotSpec::Greedy(_) => "greedy",
            BotSpec::Mcts(_) => "mcts",
            BotSpec::Strong(_) => "strong",
        }
    }
}

/// The canonical text: the kind, then every parameter that differs from its default.
impl fmt::Display for BotSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        match self {
            BotSpec::Random | BotSpec::Rules => {}
            BotSpec::Greedy(g) => {
                if g.samples != GreedyConfig::default().samples {
                    parts.push(format!("samples={}", g.samples));
                }
            }
            BotSpec::Strong(m) => {
                let d = StrongConfig::default();
                let implied = if m.time.is_some() && m.samples == 0 { Some(UNTIL_TIME) } else { d.iterations };
                budget_parts(&mut parts, (m.iterations, implied), m.time, (m.c, d.c));
                if m.w != d.w {
                    parts.push(format!("w={}", m.w));
                }
                if let Some(t) = m.tree {
                    parts.push(format!("tree={}", t.name()));
                }
                if m.rules {
                    parts.push("rollout=rules".into());
                }
                if m.trees != d.trees {
                    parts.push(format!("trees={}", m.trees));
                }
                if m.depth != d.depth {
                    parts.push(format!("depth={}", m.depth));
                }
                if m.samples != d.samples {
                    parts.push(format!("samples={}", m.samples));
                }
                if m.reuse != d.reuse {
                    parts.push(format!("reuse={}", m.reuse));
                }
                if m.threads != d.threads {
                    parts.push(format!("threads={}", m.threads));
                }
            }
            BotSpec::Mcts(m) => {
                let d = MctsConfig::default();
                let implied = if m.time.is_some() { UNTIL_TIME } else { d.iterations };
                budget_parts(&mut parts, (Some(m.iterations), Some(implied)), m.time, (m.c, d.c));
                match m.rollout {
                    Rollout::Rules => {}
                    Rollout::Greedy => parts.push("rollout=greedy".into()),
                    Rollout::Random => parts.push("rollout=random".into()),
                }
                if m.depth != d.depth {
                    parts.push(format!("depth={}", m.depth));
                }
                if m.threads != d.threads {
                    parts.push(format!("threads={}", m.threads));
                }
            }
        }
        if parts.is_empty() { f.write_str(self.kind()) } else { write!(f, "{}:{}", self.kind(), parts.join(",")) }
    }
}

/// A search's budget keys that differ from what parsing implies without them (`iterations`
/// given as (the count, the count implied; `None`: the game's own), `ms`, `c`), in the
/// canonical order.
fn budget_parts(
    parts: &mut Vec<String>,
    iterations: (Option<u32>, Option<u32>),
    time: Option<Duration>,
    c: (f64, f64),
) {
    if let Some(n) = iterations.0
        && iterations.0 != iterations.1
    {
        parts.push(format!("iterations={n}"));
    }
    if let Some(t) = time {
        parts.push(format!("ms={}", t.as_millis()));
    }
    if c.0 != c.1 {
        parts.push(format!("c={}", c.0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_specs_parse_and_print_canonically() {
        assert_eq!(BotSpec::parse("random").unwrap(), BotSpec::Random);
        assert_eq!(BotSpec::parse("greedy").unwrap(), BotSpec::Greedy(GreedyConfig { samples: 4 }));
        let m = BotSpec::parse(" mcts: iterations=2000 , c=0.5,rollout=greedy,depth=20,threads=2,ms=50").unwrap();
        let BotSpec::Mcts(cfg) = &m else { panic!("{m:?}") };
        assert_eq!((cfg.iterations, cfg.c, cfg.rollout, cfg.depth, cfg.threads), (2000, 0.5, Rollout::Greedy, 20, 2));
        assert_eq!(cfg.time, Some(Duration::from_millis(50)));
        assert_eq!(m.to_string(), "mcts:iterations=2000,ms=50,c=0.5,rollout=greedy,depth=20,threads=2");
        assert_eq!(BotSpec::parse("mcts").unwrap().to_string(), "mcts");
        assert_eq!(BotSpec::parse("mcts:rollout=rules").unwrap().to_string(), "mcts", "rules is the default rollout");
        assert_eq!(BotSpec::parse("mcts:rollout=random").unwrap().to_string(), "mcts:rollout=random");
        assert_eq!(BotSpec::parse("rules").unwrap(), BotSpec::Rules);
        assert_eq!(BotSpec::parse(&m.to_string()).unwrap(), m, "the canonical text parses back");
        let s = BotSpec::parse("strong:ms=1000,tree=reveal,rollout=rules,trees=2,threads=2,samples=3,w=0.5").unwrap();
        assert_eq!(s.to_string(), "strong:ms=1000,w=0.5,tree=reveal,rollout=rules,trees=2,samples=3,threads=2");
        assert_eq!(BotSpec::parse("strong:tree=open").unwrap().to_string(), "strong:tree=open");
        assert_eq!(BotSpec::parse(&s.to_string()).unwrap(), s, "the canonical text parses back");
        assert_eq!(BotSpec::parse("strong:rollout=strong").unwrap().to_string(), "strong");
    }

    #[test]
    fn a_time_without_a_count_ends_the_search_by_time() {
        for text in ["mcts:ms=50", "strong:ms=1000"] {
            let spec = BotSpec::parse(text).unwrap();
            let iterations = match &spec {
                BotSpec::Mcts(m) => m.iterations,
                BotSpec::Strong(m) => m.iterations.expect("a count"),
                _ => unreachable!(),
            };
            assert_eq!(iterations, UNTIL_TIME, "{text}");
            assert_eq!(spec.to_string(), text);
        }
        // A count given with the time is kept, and written.
        for text in ["mcts:iterations=1000,ms=50", "strong:iterations=20000,ms=1000"] {
            assert_eq!(BotSpec::parse(text).unwrap().to_string(), text);
        }
        // Hindsight's count is per sample and action: it keeps its default under a time.
        let BotSpec::Strong(h) = BotSpec::parse("strong:ms=1000,samples=2").unwrap() else { panic!() };
        assert_eq!(h.iterations, StrongConfig::default().iterations);
        assert_eq!(BotSpec::Strong(h).to_string(), "strong:ms=1000,samples=2");
    }

    #[test]
    fn bad_specs_name_what_is_wrong_and_what_is_valid() {
        let e = BotSpec::parse("alphazero").unwrap_err();
        assert!(e.contains("`alphazero`") && e.contains("random, rules, greedy, mcts"), "{e}");
        let e = BotSpec::parse("mcts:iters=5").unwrap_err();
        assert!(e.contains("`iters`") && e.contains("iterations, ms, c, rollout, depth, threads"), "{e}");
        let e = BotSpec::parse("mcts:iterations=0").unwrap_err();
        assert!(e.contains("`iterations`") && e.contains("`0`"), "{e}");
        let e = BotSpec::parse("mcts:c=-1").unwrap_err();
        assert!(e.contains("`c`"), "{e}");
        let e = BotSpec::parse("mcts:rollout=smart").unwrap_err();
        assert!(e.contains("random, greedy or rules") && e.contains("`smart`"), "{e}");
        let e = BotSpec::parse("mcts:iterations").unwrap_err();
        assert!(e.contains("key=value"), "{e}");
        let e = BotSpec::parse("random:x=1").unwrap_err();
        assert!(e.contains("`x`") && e.contains("takes none"), "{e}");
        for (bad, named) in
            [("strong:tree=bushy", "open, closed or reveal"), ("strong:rollout=random", "strong or rules")]
        {
            let e = BotSpec::parse(bad).unwrap_err();
            assert!(e.contains(named), "{bad}: {e}");
        }
        let e = BotSpec::parse("strong:w=-1").unwrap_err();
        assert!(e.contains("`w`") && e.contains("`-1`"), "{e}");
        let e = BotSpec::parse("greedy:samples=lots").unwrap_err();
        assert!(e.contains("`samples`") && e.contains("`lots`"), "{e}");
    }
}
