//! `arena compare A B`: is agent A stronger than agent B? Deals are played in units — a
//! seat-swapped pair of games (two players), one deal played by each (a cooperative game), or
//! every seat arrangement of the two among other agents (3–4 players) — each unit scored for
//! A in [0, 1], until the sequential test ([`reports::sprt`]) decides or the cap is reached.
//! Units run on several workers, but are counted strictly in order, so a seed gives the same
//! answer whatever the number of workers.

use crate::pool::{Flow, Order};
use crate::referee::{Policy, QuietPanics, Referee, SeatAgent, TimeControl, play_game, play_versus};
use engine::core::{AnySpec, game_seed};
use reports::sprt::{Decision, SprtSpec, Tally};
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// A comparison to run.
pub struct Comparison<'a> {
    pub a: String,
    pub b: String,
    /// The agent at the other seats of a 3–4 player table.
    pub others: String,
    pub spec: &'a dyn AnySpec,
    pub cooperative: bool,
    pub sprt: Option<SprtSpec>,
    /// Games at most.
    pub max_games: u64,
    pub seed: u64,
    pub workers: usize,
    pub move_time: Option<Duration>,
}

/// What a comparison found.
#[derive(Clone, Debug, Serialize)]
pub struct CompareResult {
    pub a: String,
    pub b: String,
    pub game: String,
    /// `H1`, `H0`, or `inconclusive` (the cap came first; without an SPRT, always).
    pub result: String,
    pub games: u64,
    /// Units: game pairs, deals, or arrangements of a deal.
    pub units: u64,
    pub games_per_unit: u64,
    /// A's games won, drawn and lost against B.
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// How many units scored 0, 1/m, ..., 1 for A (the pentanomial counts for pairs).
    pub unit_scores: Vec<u64>,
    pub llr: Option<f64>,
    pub bounds: Option<(f64, f64)>,
    pub sprt: Option<SprtSpec>,
    /// A's strength from the unit scores as observed (Elo, its 95% interval, normalized Elo,
    /// likelihood of superiority).
    pub estimate: reports::sprt::Estimate,
    /// Games that ended by a verdict, by the agent at fault.
    pub verdicts: BTreeMap<String, u64>,
    pub seconds: f64,
}

/// How A did against B in one game: 1 won, 0.5 drew, 0 lost, by rank. (A cooperative game's
/// plays of one deal are compared by the game's own key: [`play_versus`].)
fn versus(ranks: &[u8], a: usize, b: usize) -> f64 {
    match ranks[a].cmp(&ranks[b]) {
        std::cmp::Ordering::Less => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Greater => 0.0,
    }
}

/// The seat arrangements of a unit: who sits where (`0` is A, `1` is B, `2` the others).
fn arrangements(seats: usize, cooperative: bool) -> Vec<Vec<u8>> {
    if cooperative {
        return vec![vec![0; seats], vec![1; seats]];
    }
    let mut out = Vec::new();
    for i in 0..seats {
        for j in 0..seats {
            if i != j {
                out.push(
                    (0..seats)
                        .map(|s| {
                            if s == i {
                                0
                            } else if s == j {
                                1
                            } else {
                                2
                            }
                        })
                        .collect(),
                );
            }
        }
    }
    out
}

/// One unit's games: A's score in [0, 1], and per game (won, drawn, lost) and verdicts.
struct Unit {
    score: f64,
    results: Vec<f64>,
    verdicts: Vec<String>,
}

fn play_unit(c: &Comparison, index: u64) -> Result<Unit, String> {
    let seed = game_seed(c.seed, index);
    let seats = c.spec.seats();
    let names = [&c.a, &c.b, &c.others];
    let mut results = Vec::new();
    let mut verdicts = Vec::new();
    let mut keys = Vec::new();
    for (k, arrangement) in arrangements(seats, c.cooperative).iter().enumerate() {
        let mut agents = Vec::new();
        for (s, &who) in arrangement.iter().enumerate() {
            let agent = bots::agent(names[who as usize], c.spec, game_seed(seed, 1 + s as u64 + 16 * u64::from(who)))?;
            agents.push(SeatAgent::new(agent, TimeControl::per_move(c.move_time)));
        }
        let referee = Referee::new(c.move_time, Policy::Forfeit, seed ^ k as u64);
        let played = play_game(c.spec.new_game(seed), agents, referee, |_, _, _| {});
        for v in &played.verdicts {
            verdicts.push(names[arrangement[v.seat] as usize].clone());
        }
        if c.cooperative {
            keys.push(played.outcome.play_key(c.spec, &played.game.metrics()));
        } else {
            let a = arrangement.iter().position(|&w| w == 0).expect("A sits");
            let b = arrangement.iter().position(|&w| w == 1).expect("B sits");
            results.push(versus(&played.outcome.result.ranks, a, b));
        }
    }
    if c.cooperative {
        results.push(play_versus(&keys[0], &keys[1]));
    }
    let score = results.iter().sum::<f64>() / results.len() as f64;
    Ok(Unit { score, results, verdicts })
}

/// Progress is reported each time the games played pass a multiple of this (and every two
/// seconds besides).
pub const PROGRESS_GAMES: u64 = 100;

/// Run the comparison to its decision or its cap; `progress` is told how it stands as it goes.
pub fn run(c: &Comparison, progress: &dyn Fn(&CompareResult)) -> Result<CompareResult, String> {
    let _quiet = QuietPanics::install();
    // Games per unit, and comparisons of A with B per unit (one per game; one per deal in a
    // cooperative game).
    let per_unit = arrangements(c.spec.seats(), c.cooperative).len() as u64;
    let compared = if c.cooperative { 1 } else { per_unit };
    if c.max_games < per_unit {
        return Err(format!(
            "--max-games {}: the games come in units of {per_unit} (every arrangement of one deal's seats), so the cap is at least {per_unit}",
            c.max_games
        ));
    }
    let max_units = c.max_games / per_unit;
    let grid = 2 * compared as usize;
    let start = Instant::now();
    let mut tally = Tally::new(grid);
    let mut result = CompareResult {
        a: c.a.clone(),
        b: c.b.clone(),
        game: c.spec.game().to_string(),
        result: "inconclusive".into(),
        games: 0,
        units: 0,
        games_per_unit: per_unit,
        wins: 0,
        draws: 0,
        losses: 0,
        unit_scores: vec![],
        llr: None,
        bounds: c.sprt.map(|s| s.bounds()),
        sprt: c.sprt,
        estimate: tally.estimate(),
        verdicts: BTreeMap::new(),
        seconds: 0.0,
    };
    let mut last_shown = Instant::now();
    // Units are counted strictly in order, so that a seed decides the answer.
    crate::pool::run(
        c.workers,
        max_units,
        Order::Index,
        |i| play_unit(c, i),
        |_, unit| {
            let counted = result.units + 1;
            tally.add(unit.score);
            for &r in &unit.results {
                if r > 0.5 {
                    result.wins += 1;
                } else if r < 0.5 {
                    result.losses += 1;
                } else {
                    result.draws += 1;
                }
            }
            for v in unit.verdicts {
                *result.verdicts.entry(v).or_default() += 1;
            }
            result.units = counted;
            result.games = counted * per_unit;
            if let Some(spec) = &c.sprt {
                result.llr = Some(tally.llr(spec));
                match tally.decide(spec) {
                    Decision::H1 => result.result = "H1".into(),
                    Decision::H0 => result.result = "H0".into(),
                    Decision::Continue => {}
                }
            }
            if result.result != "inconclusive" || counted >= max_units {
                return Ok(Flow::Stop);
            }
            // Every few seconds, and each time the games pass a hundred more (so that a log,
            // or a run too short for the clock, still shows how it goes).
            let hundred = result.games / PROGRESS_GAMES > (result.games - per_unit) / PROGRESS_GAMES;
            if hundred || last_shown.elapsed() >= Duration::from_secs(2) {
                finish(&mut result, &tally, start);
                progress(&result);
                last_shown = Instant::now();
            }
            Ok(Flow::Continue)
        },
    )?;
    finish(&mut result, &tally, start);
    Ok(result)
}

fn finish(result: &mut CompareResult, tally: &Tally, start: Instant) {
    result.estimate = tally.estimate();
    result.unit_scores = tally.counts.clone();
    result.seconds = start.elapsed().as_secs_f64();
}

impl CompareResult {
    /// How a running comparison stands, on one plain line (for a log as much as a terminal).
    pub fn progress_line(&self) -> String {
        let mut t = format!(
            "{} games: {} won, {} drawn, {} lost by {}, score {:.3}",
            self.games,
            self.wins,
            self.draws,
            self.losses,
            self.a,
            (self.wins as f64 + self.draws as f64 / 2.0) / (self.wins + self.draws + self.losses).max(1) as f64
        );
        if let (Some(llr), Some((lo, hi))) = (self.llr, self.bounds) {
            t += &format!(", LLR {llr:.2} (bounds {lo:.2}, {hi:.2})");
        }
        if self.estimate.elo.is_finite() {
            t += &format!(", Elo {}", reports::stats::signed(self.estimate.elo, 1));
        }
        t
    }

    /// The result for a person.
    pub fn render(&self) -> String {
        let mut t = format!("{} vs {} on {}: ", self.a, self.b, self.game);
        t += &match (self.result.as_str(), &self.sprt) {
            ("H1", Some(s)) => Decision::H1.sentence(s, &self.a),
            ("H0", Some(s)) => Decision::H0.sentence(s, &self.a),
            (_, Some(_)) => "inconclusive: the cap came before the test decided".to_string(),
            _ => "no test (no --sprt): the estimate alone".to_string(),
        };
        t += &format!(
            "\ngames {} ({} units of {}), {} won, {} drawn, {} lost by {}\n",
            self.games, self.units, self.games_per_unit, self.wins, self.draws, self.losses, self.a
        );
        if let (Some(llr), Some((lo, hi)), Some(s)) = (self.llr, self.bounds, self.sprt) {
            t += &format!("LLR {llr:.2} (bounds {lo:.2}, {hi:.2}; {})\n", s.describe());
        }
        let elo = |x: f64| reports::stats::signed(x, 1);
        let e = &self.estimate;
        t += &format!(
            "Elo {} (95% CI {} to {}), nElo {} ± {:.1}, LOS {:.1}%; unit scores 0..1: {:?}\n",
            elo(e.elo),
            elo(e.elo_ci95.0),
            elo(e.elo_ci95.1),
            elo(e.nelo),
            e.nelo_ci95,
            100.0 * e.los,
            self.unit_scores
        );
        if !self.verdicts.is_empty() {
            let v: Vec<String> = self.verdicts.iter().map(|(a, n)| format!("{a} {n}")).collect();
            t += &format!("games ended by a verdict: {}\n", v.join(", "));
        }
        t
    }
}
