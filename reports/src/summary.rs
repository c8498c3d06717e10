//! The summary of a series of games: scores, win shares per seat, game length, and the
//! game's own figures, each with its error bar.

use crate::stats::{Stats, wilson};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

/// One finished game, as the summary needs it.
pub struct GameResult {
    /// The agent at each seat.
    pub agents: Vec<String>,
    pub scores: Vec<i32>,
    /// Rank per seat, 0 first; equal ranks tie.
    pub ranks: Vec<u8>,
    pub actions: u64,
    pub metrics: Vec<Figure>,
    /// Verdicts against its agents, as `agent: kind` (one per seat and kind).
    pub verdicts: Vec<String>,
}

/// One of a game's own figures, as the game declares it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Figure {
    pub name: &'static str,
    pub value: f64,
    /// A yes/no per game, summarised as a rate with a Wilson interval (otherwise a mean).
    pub rate: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct SeatSummary {
    pub seat: usize,
    pub agent: String,
    pub score: Stats,
    /// Games won, ties shared equally among the tied winners.
    pub win_share: f64,
    pub win_share_ci95: (f64, f64),
}

/// A rate with its 95% Wilson interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rate {
    pub rate: f64,
    pub ci: (f64, f64),
}

/// One agent's results over every seat it took.
#[derive(Clone, Debug, Default, Serialize)]
pub struct AgentSummary {
    /// Seats it took (a game with the agent at two seats counts twice).
    pub games: u64,
    /// First places, a tie for first shared equally among the tied.
    pub wins: f64,
    pub win_share: f64,
    pub win_share_ci: (f64, f64),
    pub score_mean: f64,
    pub score_ci: (f64, f64),
    /// The rates of the figures the game declares yes/no, over the games it played.
    #[serde(flatten)]
    pub rates: BTreeMap<String, Rate>,
    #[serde(skip)]
    score: Stats,
    #[serde(skip)]
    rate_counts: BTreeMap<String, (f64, f64)>,
}

#[derive(Clone, Debug, Serialize)]
pub struct PlaySummary {
    pub game: String,
    pub params: String,
    pub seed: u64,
    /// The series' first deals, not played (`arena play --skip`): the games are deals
    /// `skipped + 1` onwards.
    pub skipped: u64,
    pub games: u64,
    /// Every seat's score, pooled.
    pub score: Stats,
    pub seats: Vec<SeatSummary>,
    /// Actions per game.
    pub length: Stats,
    /// The game's own figures (e.g. `arrived`), each averaged over the games.
    pub metrics: BTreeMap<String, Stats>,
    /// Whether seats compete (win shares mean something).
    pub competitive: bool,
    /// Figures the game declares yes/no per game: shown as rates with a Wilson interval.
    pub rates: BTreeMap<String, (f64, f64)>,
    /// Each agent's results, over every seat it took.
    pub by_agent: BTreeMap<String, AgentSummary>,
    /// Games with each verdict (`agent: kind`).
    pub verdicts: BTreeMap<String, u64>,
}

impl PlaySummary {
    pub fn new(game: &str, params: &str, seed: u64, agents: &[String]) -> Self {
        PlaySummary {
            game: game.into(),
            params: params.into(),
            seed,
            skipped: 0,
            games: 0,
            score: Stats::default(),
            seats: agents
                .iter()
                .enumerate()
                .map(|(seat, a)| SeatSummary {
                    seat,
                    agent: a.clone(),
                    score: Stats::default(),
                    win_share: 0.0,
                    win_share_ci95: (0.0, 1.0),
                })
                .collect(),
            length: Stats::default(),
            metrics: BTreeMap::new(),
            verdicts: BTreeMap::new(),
            competitive: false,
            rates: BTreeMap::new(),
            by_agent: BTreeMap::new(),
        }
    }

    pub fn add(&mut self, r: &GameResult) {
        self.games += 1;
        let winners = r.ranks.iter().filter(|&&k| k == 0).count().max(1) as f64;
        let all_tied = r.ranks.iter().all(|&k| k == 0);
        self.competitive |= !all_tied;
        let mut wins = vec![0.0; self.seats.len()];
        for (i, s) in self.seats.iter_mut().enumerate() {
            if r.agents.get(i).is_some_and(|a| *a != s.agent) {
                s.agent = "(rotating)".into();
            }
            let score = f64::from(r.scores[i]);
            s.score.add(score);
            self.score.add(score);
            if r.ranks[i] == 0 {
                wins[i] = 1.0 / winners;
            }
            let g = self.games as f64;
            let won = s.win_share * (g - 1.0) + wins[i];
            s.win_share = won / g;
            s.win_share_ci95 = wilson(won, g);
        }
        self.length.add(r.actions as f64);
        for v in &r.verdicts {
            *self.verdicts.entry(v.clone()).or_default() += 1;
        }
        for f in &r.metrics {
            let s = self.metrics.entry(f.name.to_string()).or_default();
            s.add(f.value);
            if f.rate {
                self.rates.insert(f.name.to_string(), wilson(s.mean * s.n as f64, s.n as f64));
            }
        }
        for (i, name) in r.agents.iter().enumerate() {
            let a = self.by_agent.entry(name.clone()).or_default();
            a.games += 1;
            if r.ranks[i] == 0 {
                a.wins += 1.0 / winners;
            }
            a.win_share = a.wins / a.games as f64;
            a.win_share_ci = wilson(a.wins, a.games as f64);
            a.score.add(f64::from(r.scores[i]));
            a.score_mean = a.score.mean;
            a.score_ci = (a.score.mean - a.score.ci95, a.score.mean + a.score.ci95);
            for f in r.metrics.iter().filter(|f| f.rate) {
                let (k, n) = a.rate_counts.entry(f.name.to_string()).or_default();
                *k += f.value;
                *n += 1.0;
                let (k, n) = (*k, *n);
                a.rates.insert(f.name.to_string(), Rate { rate: k / n, ci: wilson(k, n) });
            }
        }
    }

    /// A table for people.
    pub fn render(&self) -> String {
        let mut t = String::new();
        let _ = match self.skipped {
            0 => writeln!(t, "{} — {} games, seed {}", self.game, self.games, self.seed),
            k => writeln!(t, "{} — {} games, seed {}, from deal {}", self.game, self.games, self.seed, k + 1),
        };
        let _ = writeln!(t, "parameters: {}", self.params);
        let f = |s: &Stats| format!("{:.2} ± {:.2} (sd {:.2}, min {}, max {})", s.mean, s.ci95, s.sd, s.min, s.max);
        let _ = writeln!(t, "score:        {}", f(&self.score));
        let _ = writeln!(t, "game length:  {:.1} ± {:.1} actions", self.length.mean, self.length.ci95);
        for (name, s) in &self.metrics {
            match self.rates.get(name) {
                Some((lo, hi)) => {
                    let _ = writeln!(
                        t,
                        "{:<13} {:.1}% (95% CI {:.1}–{:.1}%)",
                        format!("{name}:"),
                        100.0 * s.mean,
                        100.0 * lo,
                        100.0 * hi
                    );
                }
                None => {
                    let _ = writeln!(t, "{:<13} {:.3} ± {:.3}", format!("{name}:"), s.mean, s.ci95);
                }
            }
        }
        if !self.verdicts.is_empty() {
            let list: Vec<String> = self
                .verdicts
                .iter()
                .map(|(v, n)| format!("{v} in {n} game{}", if *n == 1 { "" } else { "s" }))
                .collect();
            let _ = writeln!(t, "verdicts:     {}", list.join(", "));
        }
        if self.by_agent.len() > 1 {
            let _ = writeln!(t, "agent                          seats  mean score (95% CI)     win share (95% CI)");
            for (name, a) in &self.by_agent {
                // Every yes/no figure the game declares, by its own name.
                let rates: String = a
                    .rates
                    .iter()
                    .map(|(figure, r)| {
                        format!("   {figure} {:.1}% ({:.1}–{:.1}%)", 100.0 * r.rate, 100.0 * r.ci.0, 100.0 * r.ci.1)
                    })
                    .collect();
                let _ = writeln!(
                    t,
                    "{:<30} {:>5}  {:>6.2} ({:.2}–{:.2})   {:>5.1}% ({:.1}–{:.1}%){rates}",
                    name,
                    a.games,
                    a.score_mean,
                    a.score_ci.0,
                    a.score_ci.1,
                    100.0 * a.win_share,
                    100.0 * a.win_share_ci.0,
                    100.0 * a.win_share_ci.1
                );
            }
        }
        if self.competitive {
            let _ = writeln!(t, "seat  agent      mean score        win share (95% CI)");
            for s in &self.seats {
                let _ = writeln!(
                    t,
                    "{:<5} {:<10} {:>6.2} ± {:<7.2} {:>5.1}% ({:.1}–{:.1}%)",
                    s.seat,
                    s.agent,
                    s.score.mean,
                    s.score.ci95,
                    100.0 * s.win_share,
                    100.0 * s.win_share_ci95.0,
                    100.0 * s.win_share_ci95.1
                );
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_share_the_win_and_figures_average() {
        let mut s = PlaySummary::new("g", "", 1, &["a".into(), "b".into()]);
        let fig = |name, value, rate| Figure { name, value, rate };
        s.add(&GameResult {
            agents: vec!["a".into(), "b".into()],
            scores: vec![3, 1],
            ranks: vec![0, 1],
            actions: 10,
            metrics: vec![fig("x", 1.0, true), fig("n", 1.0, false)],
            verdicts: vec![],
        });
        s.add(&GameResult {
            agents: vec!["b".into(), "a".into()],
            scores: vec![2, 2],
            ranks: vec![0, 0],
            actions: 20,
            metrics: vec![fig("x", 0.0, true), fig("n", 1.0, false)],
            verdicts: vec!["b: timeout".into()],
        });
        assert_eq!(s.games, 2);
        assert!((s.seats[0].win_share - 0.75).abs() < 1e-12);
        assert!((s.seats[1].win_share - 0.25).abs() < 1e-12);
        assert!((s.length.mean - 15.0).abs() < 1e-12);
        assert!((s.metrics["x"].mean - 0.5).abs() < 1e-12);
        assert!(s.competitive);
        assert!(s.render().contains("75.0%"));
        assert!(s.render().contains("verdicts:     b: timeout in 1 game\n"), "{}", s.render());
        assert!(s.rates.contains_key("x"), "a figure declared a rate is shown as one");
        assert!(!s.rates.contains_key("n"), "a count that happened to be 1 every time is not a rate");
        assert!(s.render().contains("n:            1.000"), "{}", s.render());
        // By agent: "a" won game 1 at seat 0 and tied game 2 at seat 1.
        let a = &s.by_agent["a"];
        assert_eq!((a.games, a.wins), (2, 1.5));
        assert!((a.score_mean - 2.5).abs() < 1e-12);
        assert_eq!(a.rates["x"].rate, 0.5);
        // The per-agent table names each rate as the game does, whatever it is called.
        let agent_line = s.render().lines().find(|l| l.starts_with("a ")).map(str::to_string);
        assert!(agent_line.is_some_and(|l| l.contains("   x 50.0% (")), "{}", s.render());
        assert_eq!(s.by_agent["b"].wins, 0.5);
        assert_eq!(s.seats[0].agent, "(rotating)", "the agents swapped seats");
    }
}
