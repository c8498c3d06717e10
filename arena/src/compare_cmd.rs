//! `arena compare A B` and `arena bench-sprt`: the command line over [`arena::compare`].

use crate::setup::GameArgs;
use arena::compare::{self, Comparison};
use clap::Args;
use reports::sprt::{SprtSpec, Tally, expected_score};
use std::io::IsTerminal;

#[derive(Args)]
pub struct CompareArgs {
    /// Agent A (the candidate): `mcts:iterations=2000`, `greedy`, ...
    pub a: String,
    /// Agent B (the baseline).
    pub b: String,
    /// The game.
    #[arg(long)]
    pub game: String,
    #[arg(long)]
    pub preset: Option<String>,
    /// Set one parameter (repeatable).
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub param: Vec<String>,
    /// Number of seats; with 3–4, A and B sit in every arrangement among `--others`.
    #[arg(long)]
    pub players: Option<u8>,
    /// The agent at the other seats of a 3–4 player table.
    #[arg(long, default_value = "random")]
    pub others: String,
    /// Stop as soon as the sequential test decides: `elo0=0,elo1=10,alpha=0.05,beta=0.05`.
    #[arg(long, value_name = "SPEC")]
    pub sprt: Option<String>,
    /// Games at most.
    #[arg(long, default_value_t = 2000)]
    pub max_games: u64,
    /// Deals follow from this seed (the same seed, the same answer).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: one per core).
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// The per-move limit in milliseconds (0: none).
    #[arg(long, default_value_t = 0)]
    pub move_time_ms: u64,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: CompareArgs) -> Result<(), String> {
    let game = GameArgs {
        game: args.game.clone(),
        preset: args.preset.clone(),
        param: args.param.clone(),
        params_files: vec![],
        players: args.players,
        content: None,
    };
    let entry = game.entry()?;
    let spec = game.spec()?;
    for agent in [&args.a, &args.b, &args.others] {
        bots::agent(agent, spec.as_ref(), 0)?;
    }
    let sprt = args.sprt.as_deref().map(SprtSpec::parse).transpose()?;
    let c = Comparison {
        a: args.a.clone(),
        b: args.b.clone(),
        others: args.others.clone(),
        spec: spec.as_ref(),
        cooperative: entry.cooperative,
        sprt,
        max_games: args.max_games,
        seed: args.seed,
        workers: args.concurrency.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        move_time: arena::referee::limit_ms(args.move_time_ms),
    };
    let show = !args.json && std::io::stderr().is_terminal();
    let r = compare::run(&c, &|r| {
        if show {
            eprintln!("{} games, LLR {:.2}, Elo {:+.1}", r.games, r.llr.unwrap_or(0.0), r.elo);
        }
    })?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&r).map_err(|e| e.to_string())?);
    } else {
        out!("{}", r.render());
        outln!("{:.1} s", r.seconds);
    }
    Ok(())
}

#[derive(Args)]
pub struct BenchSprtArgs {
    /// Simulated tests per true Elo difference.
    #[arg(long, default_value_t = 2000)]
    pub runs: u32,
    /// The test: `elo0=0,elo1=10,alpha=0.05,beta=0.05`.
    #[arg(long, default_value = "elo0=0,elo1=10,alpha=0.05,beta=0.05")]
    pub sprt: String,
    /// The share of drawn games.
    #[arg(long, default_value_t = 0.2)]
    pub draws: f64,
    /// Game pairs at most per test.
    #[arg(long, default_value_t = 20_000)]
    pub max_pairs: u32,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// `arena bench-sprt`: the sequential test's error rates, by simulation. Game pairs between
/// players of a known Elo difference (each game won, drawn or lost independently, with the
/// logistic model's expected score and the given draw share), run until the test decides;
/// the share ending in H1 at elo0 is the false-positive rate (α), at elo1 the power (1 − β).
pub fn bench_sprt(args: BenchSprtArgs) -> Result<(), String> {
    use rand::{RngExt, SeedableRng};
    let spec = SprtSpec::parse(&args.sprt)?;
    let mut rows = Vec::new();
    let mid = (spec.elo0 + spec.elo1) / 2.0;
    for &elo in &[spec.elo0 - 5.0, spec.elo0, mid, spec.elo1, spec.elo1 + 10.0] {
        let (mut h1, mut h0, mut undecided, mut pairs) = (0u32, 0u32, 0u32, 0u64);
        for run in 0..args.runs {
            let mut rng = engine::core::SmallRng::seed_from_u64(u64::from(run) ^ (elo.to_bits() << 1));
            let mut t = Tally::new(4);
            let mut decided = reports::sprt::Decision::Continue;
            for _ in 0..args.max_pairs {
                // Each game: win with probability s − d/2, draw with d, where s is the expected score.
                let s = expected_score(elo);
                let d = args.draws.min(2.0 * s.min(1.0 - s));
                let game = |rng: &mut engine::core::SmallRng| {
                    let x: f64 = rng.random();
                    if x < s - d / 2.0 {
                        1.0
                    } else if x < s + d / 2.0 {
                        0.5
                    } else {
                        0.0
                    }
                };
                let pair = (game(&mut rng) + game(&mut rng)) / 2.0;
                t.add(pair);
                pairs += 1;
                decided = t.decide(&spec);
                if decided != reports::sprt::Decision::Continue {
                    break;
                }
            }
            match decided {
                reports::sprt::Decision::H1 => h1 += 1,
                reports::sprt::Decision::H0 => h0 += 1,
                reports::sprt::Decision::Continue => undecided += 1,
            }
        }
        let n = f64::from(args.runs);
        rows.push(serde_json::json!({
            "true_elo": elo,
            "h1_rate": f64::from(h1) / n,
            "h0_rate": f64::from(h0) / n,
            "undecided": f64::from(undecided) / n,
            "mean_games": 2.0 * pairs as f64 / n,
        }));
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&rows).map_err(|e| e.to_string())?);
        return Ok(());
    }
    outln!(
        "SPRT elo0={} elo1={} alpha={} beta={}, {} simulated tests per row, {:.0}% draws:",
        spec.elo0,
        spec.elo1,
        spec.alpha,
        spec.beta,
        args.runs,
        100.0 * args.draws
    );
    outln!("{:>9}  {:>8}  {:>8}  {:>10}  {:>10}", "true Elo", "H1", "H0", "undecided", "mean games");
    for r in &rows {
        outln!(
            "{:>+9.1}  {:>7.1}%  {:>7.1}%  {:>9.1}%  {:>10.0}",
            r["true_elo"].as_f64().unwrap_or(0.0),
            100.0 * r["h1_rate"].as_f64().unwrap_or(0.0),
            100.0 * r["h0_rate"].as_f64().unwrap_or(0.0),
            100.0 * r["undecided"].as_f64().unwrap_or(0.0),
            r["mean_games"].as_f64().unwrap_or(0.0)
        );
    }
    outln!("(at elo0 the H1 share is the false-positive rate, target alpha; at elo1 it is the power, target 1 - beta)");
    Ok(())
}
