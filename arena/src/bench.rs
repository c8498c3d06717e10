//! `arena bench`: random-play speed (actions and games per second on one core), the cost of a
//! state clone and of a seat's observation tensor, per game, preset and seat count; and the MCTS agent's search speed beside the
//! speed of random playouts from the same position, and from deals sampled there as the
//! search's iterations sample them; medians of several runs.

use crate::setup::load_file;
use clap::Args;
use engine::core::{AnyGame, AnySpec, ParamSource, Seat, SmallRng, tensor_size};
use engine::find_game;
use rand::{RngExt, SeedableRng};
use serde::Serialize;
use std::time::Instant;

#[derive(Args)]
pub struct BenchArgs {
    /// Only these games (default: all).
    pub games: Vec<String>,
    /// Seconds of random play per run.
    #[arg(long, default_value_t = 0.5)]
    pub seconds: f64,
    /// Runs per case; the median is reported.
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// Print one JSON array.
    #[arg(long)]
    pub json: bool,
    /// Set one parameter in every case, e.g. `--param satchel_limit=5` (repeatable).
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub param: Vec<String>,
    /// Threads for the MCTS scaling figure (iterations per second on this many threads).
    #[arg(long, default_value_t = 2)]
    pub threads: u32,
    /// Deals whose opening positions the search speed is measured from, in every run (the
    /// figures are geometric means over them).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub deals: u32,
    /// Iterations of each search (per thread): `mcts`'s default, 1000; `strong` searches 20000 in journey, 100000 in expedition.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    pub iterations: u32,
}

#[derive(Serialize)]
struct Row {
    game: &'static str,
    preset: &'static str,
    seats: usize,
    actions_per_second: f64,
    games_per_second: f64,
    actions_per_game: f64,
    clone_ns: f64,
    /// Nanoseconds to write the tensor of the seat to move into a reused row (what a learner's
    /// batch does at every step), over the positions of random games.
    tensor_ns: f64,
}

#[derive(Serialize)]
struct MctsRow {
    game: &'static str,
    preset: &'static str,
    seats: usize,
    /// Random playouts per second from the opening position of a deal (a copy played out at
    /// random), the geometric mean over `--deals` deals.
    playouts_per_second: f64,
    /// Random playouts per second from deals sampled from the seat's information set at the
    /// same positions (drawn before the clock starts): each meets a deal of its own, as a
    /// search iteration does, where playouts of the position itself replay one deal (which
    /// the processor learns).
    sampled_playouts_per_second: f64,
    /// MCTS iterations per second with random rollouts, from the same positions.
    iterations_per_second: f64,
    /// Iterations over playouts: what the tree costs beside the rollouts.
    ratio: f64,
    /// Iterations over playouts of sampled deals.
    ratio_to_sampled: f64,
    /// Actions a random playout plays, one of a sampled deal, and an iteration (down the tree
    /// and in its rollout).
    actions_per_playout: f64,
    actions_per_sampled_playout: f64,
    actions_per_iteration: f64,
    /// Iterations over playouts per action played: the cost of a search step beside a
    /// playout's step; and beside a step of a sampled deal's playout.
    ratio_per_action: f64,
    ratio_per_action_to_sampled: f64,
    /// Iterations per second on `threads` threads, and over one thread.
    threads: u32,
    threaded_iterations_per_second: f64,
    thread_scaling: f64,
}

#[derive(Serialize)]
struct Report {
    random_play: Vec<Row>,
    mcts: Vec<MctsRow>,
}

/// The MCTS search speed of one game's spec: the seed, deals, iterations per search, seconds
/// per measure, threads.
struct Speed(u64, u32, u32, f64, u32);

impl bots::WithGame for Speed {
    type Output = bots::mcts::Speed;
    fn run<G: bots::strong::Strong>(self, params: &G::Params) -> bots::mcts::Speed {
        bots::mcts::speed::<G>(params, self.0, self.1, self.2, self.3, self.4)
    }
}

/// Positions of random games from `seed` on (every decision of each, up to `count`).
fn positions(spec: &dyn AnySpec, seed: u64, count: usize) -> Result<Vec<Box<dyn AnyGame>>, String> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let (mut out, mut legal) = (Vec::with_capacity(count), Vec::new());
    for deal in seed.. {
        let mut g = spec.new_game(deal);
        while g.to_move().is_some() {
            if out.len() == count {
                return Ok(out);
            }
            out.push(g.clone_box());
            legal.clear();
            g.legal_actions(&mut legal);
            g.apply(legal[rng.random_range(0..legal.len())]).map_err(|e| e.to_string())?;
        }
    }
    Ok(out)
}

/// Nanoseconds per tensor of the seat to move at `positions`, each written into one reused
/// row, `rounds` times over.
fn tensor_ns(spec: &dyn AnySpec, positions: &[Box<dyn AnyGame>], rounds: usize) -> f64 {
    let mut row = vec![0.0; tensor_size(&spec.tensor_layout())];
    let t = Instant::now();
    for _ in 0..rounds {
        for g in positions {
            g.write_observation_tensor(g.to_move().unwrap_or(Seat(0)), &mut row);
            std::hint::black_box(&row);
        }
    }
    t.elapsed().as_secs_f64() * 1e9 / (rounds * positions.len()) as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

pub fn run(args: BenchArgs) -> Result<(), String> {
    if args.runs == 0 || args.seconds <= 0.0 {
        return Err("--runs and --seconds must be positive".into());
    }
    let names: Vec<&str> = if args.games.is_empty() {
        engine::games().iter().map(|g| g.name).collect()
    } else {
        args.games.iter().map(String::as_str).collect()
    };
    let mut rows = Vec::new();
    let mut mcts_rows = Vec::new();
    for name in names {
        let entry = find_game(name)?;
        for preset in entry.presets {
            let seat_counts: &[u8] = if entry.seats_param == "players" { &[2, 4] } else { &[1, 4] };
            for &seats in seat_counts {
                let mut src = vec![ParamSource::KeyValue { key: entry.seats_param.into(), value: seats.to_string() }];
                for kv in &args.param {
                    let (key, value) =
                        kv.split_once('=').ok_or_else(|| format!("--param expects KEY=VALUE, got `{kv}`"))?;
                    src.push(ParamSource::KeyValue { key: key.trim().into(), value: value.trim().into() });
                }
                let spec = (entry.spec)(Some(preset), &src, &load_file).map_err(|e| e.to_string())?;
                let (mut aps, mut gps, mut apg, mut clone, mut tensor) = (vec![], vec![], vec![], vec![], vec![]);
                let at = positions(spec.as_ref(), 1, 2_000)?;
                let mut seed = 1;
                for _ in 0..args.runs {
                    let (mut actions, mut played) = (0u64, 0u64);
                    let t = Instant::now();
                    while t.elapsed().as_secs_f64() < args.seconds {
                        actions += spec.random_playouts(seed, 100);
                        seed += 100;
                        played += 100;
                    }
                    let el = t.elapsed().as_secs_f64();
                    aps.push(actions as f64 / el);
                    gps.push(played as f64 / el);
                    apg.push(actions as f64 / played as f64);
                    let n = 2_000_000;
                    let t = Instant::now();
                    std::hint::black_box(spec.clone_many(seed, n));
                    clone.push(t.elapsed().as_secs_f64() * 1e9 / n as f64);
                    tensor.push(tensor_ns(spec.as_ref(), &at, 50));
                }
                let row = Row {
                    game: entry.name,
                    preset,
                    seats: seats as usize,
                    actions_per_second: median(aps),
                    games_per_second: median(gps),
                    actions_per_game: median(apg),
                    clone_ns: median(clone),
                    tensor_ns: median(tensor),
                };
                if !args.json {
                    outln!(
                        "{:<11} {:<8} seats {}  {:>6.2} M actions/s  {:>9.0} games/s  {:>6.1} actions/game  clone {:>5.1} ns  tensor {:>6.0} ns",
                        row.game,
                        row.preset,
                        row.seats,
                        row.actions_per_second / 1e6,
                        row.games_per_second,
                        row.actions_per_game,
                        row.clone_ns,
                        row.tensor_ns
                    );
                }
                rows.push(row);
            }
            // The search against its rollouts, at the smallest table.
            let seats = seat_counts[0];
            let src = [ParamSource::KeyValue { key: entry.seats_param.into(), value: seats.to_string() }];
            let spec = (entry.spec)(Some(preset), &src, &load_file).map_err(|e| e.to_string())?;
            let mut m: [Vec<f64>; 12] = Default::default();
            for run in 0..args.runs {
                let s = bots::with_game(
                    spec.as_ref(),
                    Speed(run as u64 + 1, args.deals, args.iterations, args.seconds, args.threads),
                )?;
                let stepped = s.iterations_per_second * s.actions_per_iteration;
                let figures = [
                    s.playouts_per_second,
                    s.sampled_playouts_per_second,
                    s.iterations_per_second,
                    s.iterations_per_second / s.playouts_per_second,
                    s.iterations_per_second / s.sampled_playouts_per_second,
                    s.actions_per_playout,
                    s.actions_per_sampled_playout,
                    s.actions_per_iteration,
                    stepped / (s.playouts_per_second * s.actions_per_playout),
                    stepped / (s.sampled_playouts_per_second * s.actions_per_sampled_playout),
                    s.threaded_iterations_per_second,
                    s.threaded_iterations_per_second / s.iterations_per_second,
                ];
                m.iter_mut().zip(figures).for_each(|(v, f)| v.push(f));
            }
            let [
                playouts,
                sampled,
                iterations,
                ratio,
                ratio_to_sampled,
                app,
                apsp,
                api,
                per_action,
                per_action_to_sampled,
                threaded,
                scaling,
            ] = m.map(median);
            let row = MctsRow {
                game: entry.name,
                preset,
                seats: seats as usize,
                playouts_per_second: playouts,
                sampled_playouts_per_second: sampled,
                iterations_per_second: iterations,
                ratio,
                ratio_to_sampled,
                actions_per_playout: app,
                actions_per_sampled_playout: apsp,
                actions_per_iteration: api,
                ratio_per_action: per_action,
                ratio_per_action_to_sampled: per_action_to_sampled,
                threads: args.threads,
                threaded_iterations_per_second: threaded,
                thread_scaling: scaling,
            };
            if !args.json {
                outln!(
                    "{:<11} {:<8} seats {}  mcts {:>9.0} iterations/s  random playouts {:>9.0}/s  ratio {:.2}  \
                     (of sampled deals {:>9.0}/s, ratio {:.2})  \
                     actions {:.1} vs {:.1} (ratio per action {:.2})  {} threads {:>9.0}/s ({:.2}×)",
                    row.game,
                    row.preset,
                    row.seats,
                    row.iterations_per_second,
                    row.playouts_per_second,
                    row.ratio,
                    row.sampled_playouts_per_second,
                    row.ratio_to_sampled,
                    row.actions_per_iteration,
                    row.actions_per_playout,
                    row.ratio_per_action,
                    row.threads,
                    row.threaded_iterations_per_second,
                    row.thread_scaling
                );
            }
            mcts_rows.push(row);
        }
    }
    if args.json {
        let report = Report { random_play: rows, mcts: mcts_rows };
        outln!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
    }
    Ok(())
}
