//! What a built-in agent may be asked to spend on one decision, for a server that runs agents
//! strangers specify.

use crate::games::MOST_ITERATIONS;
use crate::spec::{BotSpec, MOST_SAMPLES, UNTIL_TIME};
use std::time::Duration;

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
        BotLimits { iterations: MOST_ITERATIONS, samples: MOST_SAMPLES, threads: 1, time: Duration::from_secs(5) }
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
                let iterations = m.iterations.unwrap_or(MOST_ITERATIONS);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_until_its_time_is_bounded_by_the_time_cap() {
        for text in ["mcts:ms=50", "strong:ms=1000"] {
            let spec = BotSpec::parse(text).unwrap();
            assert_eq!(spec.check_limits(&BotLimits::default()), Ok(()), "the time cap bounds it: {text}");
        }
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
        use crate::strong::Strong;
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
}
