//! `arena compare A B` and `arena bench-sprt`: the command line over [`arena::compare`].

use crate::setup::GameArgs;
use arena::compare::{self, Comparison};
use clap::Args;
use reports::sprt::{Decision, EloModel, SprtSpec, Tally, expected_score};

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
    // Progress on stderr, a plain line each time (no bar: it is read in logs as often as on a
    // terminal, and stdout stays the result alone).
    let r = compare::run(&c, &|r| eprintln!("compare: {}", r.progress_line()))?;
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
    /// Simulated tests per row and true Elo difference.
    #[arg(long, default_value_t = 2000)]
    pub runs: u32,
    /// The tests' elo1 (one row each, with each `--draws`).
    #[arg(long, value_delimiter = ',', default_values_t = [5.0, 10.0, 20.0, 50.0])]
    pub elo1: Vec<f64>,
    /// The share of drawn games (one row each, with each `--elo1`).
    #[arg(long, value_delimiter = ',', default_values_t = [0.2, 0.6])]
    pub draws: Vec<f64>,
    /// The rest of the test: `elo0=0,alpha=0.05,beta=0.05,model=logistic`.
    #[arg(long, default_value = "elo0=0,alpha=0.05,beta=0.05,model=logistic")]
    pub sprt: String,
    /// Game pairs at most per test (a test still running then counts as undecided).
    #[arg(long, default_value_t = 200_000)]
    pub max_pairs: u32,
    /// Worker threads (default: the machine's cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// How the simulated tests at one true Elo difference ended.
#[derive(Clone, Copy, Default)]
struct Ended {
    h1: u32,
    h0: u32,
    undecided: u32,
    pairs: u64,
}

/// The expected score of one game between players `elo` apart in the test's model, with
/// `draws` drawn: for normalized Elo, the score whose distance from ½ is `elo / (800 / ln 10)`
/// standard deviations of a game's result.
fn true_score(spec: &SprtSpec, elo: f64, draws: f64) -> f64 {
    match spec.model {
        EloModel::Logistic => expected_score(elo),
        EloModel::Normalized => {
            let nelo = |s: f64| {
                let d = draws.min(2.0 * s.min(1.0 - s));
                let (w, l) = (s - d / 2.0, 1.0 - s - d / 2.0);
                let var = w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s * s;
                (s - 0.5) / var.sqrt() * (800.0 / std::f64::consts::LN_10)
            };
            let (mut lo, mut hi) = if elo >= 0.0 { (0.5, 1.0 - 1e-9) } else { (1e-9, 0.5) };
            for _ in 0..100 {
                let mid = (lo + hi) / 2.0;
                if nelo(mid) < elo {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            (lo + hi) / 2.0
        }
    }
}

/// Run `runs` simulated tests of `spec` between players `elo` apart (seeded by run, so the
/// figures do not depend on the threads).
fn simulate(spec: &SprtSpec, elo: f64, draws: f64, runs: u32, max_pairs: u32, threads: usize) -> Ended {
    use rand::{RngExt, SeedableRng};
    let s = true_score(spec, elo, draws);
    let d = draws.min(2.0 * s.min(1.0 - s));
    let one = |run: u32| {
        let seed = u64::from(run) ^ (elo.to_bits() << 1) ^ draws.to_bits().rotate_left(17) ^ spec.elo1.to_bits();
        let mut rng = engine::core::SmallRng::seed_from_u64(seed);
        let mut game = || {
            let x: f64 = rng.random();
            if x < s - d / 2.0 {
                1.0
            } else if x < s + d / 2.0 {
                0.5
            } else {
                0.0
            }
        };
        let mut t = Tally::new(4);
        for pairs in 1..=u64::from(max_pairs) {
            t.add((game() + game()) / 2.0);
            match t.decide(spec) {
                Decision::Continue => {}
                decided => return (decided, pairs),
            }
        }
        (Decision::Continue, u64::from(max_pairs))
    };
    let threads = threads.clamp(1, runs.max(1) as usize);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|w| {
                scope.spawn(move || {
                    let mut e = Ended::default();
                    for run in (w as u32..runs).step_by(threads) {
                        let (decided, pairs) = one(run);
                        e.pairs += pairs;
                        match decided {
                            Decision::H1 => e.h1 += 1,
                            Decision::H0 => e.h0 += 1,
                            Decision::Continue => e.undecided += 1,
                        }
                    }
                    e
                })
            })
            .collect();
        workers.into_iter().fold(Ended::default(), |mut all, w| {
            let e = w.join().expect("a simulation thread");
            all.h1 += e.h1;
            all.h0 += e.h0;
            all.undecided += e.undecided;
            all.pairs += e.pairs;
            all
        })
    })
}

/// `arena bench-sprt`: the sequential test's error rates, by simulation. For each `elo1` and
/// draw share, game pairs between players elo0 apart (the share of tests ending in H1 is the
/// false-positive rate, against α) and elo1 apart (the power, against 1 − β), each game won,
/// drawn or lost independently, run until the test decides. A row is within its bounds when
/// both rates are within two standard errors of them.
pub fn bench_sprt(args: BenchSprtArgs) -> Result<(), String> {
    let base = SprtSpec::parse(&format!("elo0=0,elo1=1000,{}", args.sprt))?;
    if args.sprt.split(',').any(|kv| kv.trim().starts_with("elo1")) {
        return Err("bench-sprt: give the tests' elo1 with --elo1, not in --sprt".into());
    }
    if let Some(d) = args.draws.iter().find(|d| !(0.0..1.0).contains(*d)) {
        return Err(format!("bench-sprt: --draws is a share in [0, 1), got {d}"));
    }
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let started = std::time::Instant::now();
    let mut rows = Vec::new();
    for &draws in &args.draws {
        for &elo1 in &args.elo1 {
            let spec = SprtSpec::parse(&format!("{},elo1={elo1}", args.sprt))?;
            let at0 = simulate(&spec, spec.elo0, draws, args.runs, args.max_pairs, threads);
            let at1 = simulate(&spec, spec.elo1, draws, args.runs, args.max_pairs, threads);
            let n = f64::from(args.runs);
            let (fp, power) = (f64::from(at0.h1) / n, f64::from(at1.h1) / n);
            let se = |p: f64| (p * (1.0 - p) / n).sqrt();
            let (se_alpha, se_beta) = (se(spec.alpha), se(1.0 - spec.beta));
            rows.push(serde_json::json!({
                "elo0": spec.elo0,
                "elo1": elo1,
                "draws": draws,
                "false_positives": fp,
                "power": power,
                "standard_error_at_alpha": se_alpha,
                "standard_error_at_power": se_beta,
                "undecided": f64::from(at0.undecided + at1.undecided) / (2.0 * n),
                "mean_games_at_elo0": 2.0 * at0.pairs as f64 / n,
                "mean_games_at_elo1": 2.0 * at1.pairs as f64 / n,
                "within_bounds": fp <= spec.alpha + 2.0 * se_alpha && power >= 1.0 - spec.beta - 2.0 * se_beta,
            }));
        }
    }
    if args.json {
        // The test's common part: each row has its own elo1.
        let sprt =
            serde_json::json!({ "elo0": base.elo0, "alpha": base.alpha, "beta": base.beta, "model": base.model });
        let out = serde_json::json!({ "sprt": sprt, "runs": args.runs, "max_pairs": args.max_pairs, "rows": rows });
        outln!("{}", serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?);
        return Ok(());
    }
    outln!(
        "SPRT elo0={}, alpha={}, beta={}, {:?} Elo; {} simulated tests per cell, at most {} pairs each ({:.0} s):",
        base.elo0,
        base.alpha,
        base.beta,
        base.model,
        args.runs,
        args.max_pairs,
        started.elapsed().as_secs_f64()
    );
    outln!(
        "{:>6}  {:>6}  {:>16}  {:>10}  {:>12}  {:>12}  {:>9}",
        "elo1",
        "draws",
        "false positives",
        "power",
        "games at elo0",
        "games at elo1",
        "bounds"
    );
    for r in &rows {
        let f = |k: &str| r[k].as_f64().unwrap_or(f64::NAN);
        outln!(
            "{:>6}  {:>5.0}%  {:>15.2}%  {:>9.2}%  {:>12.0}  {:>12.0}  {:>9}",
            f("elo1"),
            100.0 * f("draws"),
            100.0 * f("false_positives"),
            100.0 * f("power"),
            f("mean_games_at_elo0"),
            f("mean_games_at_elo1"),
            if r["within_bounds"].as_bool() == Some(true) { "within" } else { "OUTSIDE" }
        );
    }
    outln!(
        "(false positives: tests ending in H1 when the players are elo0 apart, against alpha; power: ending in H1 at elo1, against 1 - beta; within = both within two standard errors)"
    );
    Ok(())
}
