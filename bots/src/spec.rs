//! Bot specifications as written on the command line and in YAML: `random`, `greedy`,
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
    /// The game's rule-based policy ([`crate::policy`]): cheap, and far better than random.
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

/// One built-in agent with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum BotSpec {
    Random,
    /// The game's rule-based policy (the `rules` rollout), as an agent.
    Rules,
    Greedy(GreedyConfig),
    Mcts(MctsConfig),
    Strong(crate::strong::StrongConfig),
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
                        use crate::strong::TreeShape;
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

/// What a built-in agent may be asked to spend on one decision: a server runs agents that
/// strangers specify, and refuses a spec over any of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BotLimits {
    /// MCTS iterations.
    pub iterations: u32,
    /// Greedy determinizations per action.
    pub samples: u32,
    /// Search threads.
    pub threads: u32,
    /// Thinking time (MCTS `ms`).
    pub time: Duration,
}

impl Default for BotLimits {
    fn default() -> Self {
        // As many iterations as `strong`'s own budget in any game (a second's work at most),
        // well within the time cap.
        BotLimits { iterations: crate::strong::MOST_ITERATIONS, samples: 64, threads: 1, time: Duration::from_secs(5) }
    }
}

impl BotSpec {
    /// Refuse a spec that asks for more than `limits`, naming the key, the value and the cap.
    pub fn check_limits(&self, limits: &BotLimits) -> Result<(), String> {
        let over = |key: &str, asked: u128, cap: u128| {
            Err(format!("{}: `{key}={asked}` is over this server's cap of {cap}", self.kind()))
        };
        // A search until its time is bounded by the cap on time.
        let search_limits = |iterations: u32, threads: u32, time: Option<Duration>| {
            if iterations > limits.iterations && !(iterations == UNTIL_TIME && time.is_some()) {
                return over("iterations", iterations.into(), limits.iterations.into());
            }
            if threads > limits.threads {
                return over("threads", threads.into(), limits.threads.into());
            }
            match time {
                Some(t) if t > limits.time => over("ms", t.as_millis(), limits.time.as_millis()),
                _ => Ok(()),
            }
        };
        match self {
            BotSpec::Random | BotSpec::Rules => Ok(()),
            BotSpec::Greedy(g) if g.samples > limits.samples => {
                over("samples", g.samples.into(), limits.samples.into())
            }
            BotSpec::Greedy(_) => Ok(()),
            BotSpec::Mcts(m) => search_limits(m.iterations, m.threads, m.time),
            BotSpec::Strong(m) => {
                // Hindsight plays `iterations` per sample and legal action: its samples count
                // against the same cap as a search's iterations.
                if m.samples > limits.samples {
                    return over("samples", m.samples.into(), limits.samples.into());
                }
                if m.trees > limits.threads.max(8) {
                    return over("trees", m.trees.into(), limits.threads.max(8).into());
                }
                // Its own budget is the game's: the largest of any game is counted.
                let iterations = m.iterations.unwrap_or(crate::strong::MOST_ITERATIONS);
                // A search until its time (no samples, a time given) is bounded by the time cap.
                let until_time = iterations == UNTIL_TIME && m.samples == 0 && m.time.is_some();
                let work = u64::from(iterations) * u64::from(m.samples.max(1));
                if work > u64::from(limits.iterations) && !until_time {
                    let asked =
                        if m.samples > 0 { format!("{iterations}×{}", m.samples) } else { iterations.to_string() };
                    return Err(format!(
                        "strong: `iterations={asked}` (iterations × samples) is over this server's cap of {}",
                        limits.iterations
                    ));
                }
                search_limits(iterations, m.threads, m.time)
            }
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
                let d = crate::strong::StrongConfig::default();
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
            let limits = BotLimits::default();
            assert_eq!(spec.check_limits(&limits), Ok(()), "the time cap bounds it: {text}");
        }
        // A count given with the time is kept, and written.
        for text in ["mcts:iterations=1000,ms=50", "strong:iterations=20000,ms=1000"] {
            assert_eq!(BotSpec::parse(text).unwrap().to_string(), text);
        }
        // Hindsight's count is per sample and action: it keeps its default under a time.
        let BotSpec::Strong(h) = BotSpec::parse("strong:ms=1000,samples=2").unwrap() else { panic!() };
        assert_eq!(h.iterations, crate::strong::StrongConfig::default().iterations);
        assert_eq!(BotSpec::Strong(h).to_string(), "strong:ms=1000,samples=2");
        // Hindsight asked for the largest count by hand is refused, time or not.
        let e = BotSpec::parse(&format!("strong:iterations={UNTIL_TIME},samples=2,ms=400"))
            .unwrap()
            .check_limits(&BotLimits::default())
            .unwrap_err();
        assert!(e.contains("iterations × samples"), "{e}");
        // Over the time cap, refused all the same.
        let e = BotSpec::parse("strong:ms=6000").unwrap().check_limits(&BotLimits::default()).unwrap_err();
        assert!(e.contains("ms=6000"), "{e}");
    }

    #[test]
    fn limits_refuse_what_is_over_them_naming_the_key_and_the_cap() {
        let limits = BotLimits { iterations: 5000, samples: 8, threads: 2, time: Duration::from_millis(500) };
        for ok in [
            "random",
            "rules",
            "greedy:samples=8",
            "mcts",
            "mcts:iterations=5000,threads=2,ms=500",
            "strong:iterations=5000",
            "strong:iterations=500,samples=8",
        ] {
            assert_eq!(BotSpec::parse(ok).unwrap().check_limits(&limits), Ok(()), "{ok}");
        }
        for (bad, key, cap) in [
            ("mcts:iterations=1000000000", "iterations=1000000000", "5000"),
            ("mcts:threads=64", "threads=64", "2"),
            ("mcts:ms=600", "ms=600", "500"),
            ("greedy:samples=9", "samples=9", "8"),
            ("strong:iterations=6000", "iterations=6000", "5000"),
            ("strong:iterations=1000,samples=6", "iterations=1000×6", "5000"),
            ("strong:samples=9", "samples=9", "8"),
            ("strong:trees=64", "trees=64", "8"),
            ("strong:iterations=100,ms=600", "ms=600", "500"),
            // Its own budget counts as the largest of any game's.
            ("strong", "iterations=100000", "5000"),
        ] {
            let e = BotSpec::parse(bad).unwrap().check_limits(&limits).unwrap_err();
            assert!(e.contains(key) && e.contains(cap), "{bad}: {e}");
        }
    }

    #[test]
    fn a_strong_agent_without_a_count_searches_its_games_own_budget() {
        use crate::strong::{MOST_ITERATIONS, Strong};
        let BotSpec::Strong(s) = BotSpec::parse("strong").unwrap() else { panic!() };
        assert_eq!(s.iterations, None, "the game's own");
        assert_eq!(<engine::journey::Journey as Strong>::ITERATIONS, 20_000);
        assert_eq!(<engine::expedition::Expedition as Strong>::ITERATIONS, 100_000);
        assert_eq!(MOST_ITERATIONS, 100_000);
        // A server's default caps let a stranger ask for it in either game.
        assert_eq!(BotSpec::Strong(s).check_limits(&BotLimits::default()), Ok(()));
        // Written out, a count is kept even where it equals a game's own.
        assert_eq!(BotSpec::parse("strong:iterations=20000").unwrap().to_string(), "strong:iterations=20000");
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
