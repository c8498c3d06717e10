//! `arena play`: a series of games between built-in agents, summarised; `arena replay`.

use crate::setup::{GameArgs, load_file};
use bots::{Agent, Budget, SeatView};
use clap::Args;
use engine::core::{AnyGame, AnySpec, MetricKind, Record, Seat, game_seed};
use indicatif::{ProgressBar, ProgressStyle};
use reports::{Figure, GameResult, PlaySummary};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args)]
pub struct PlayArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// How many games.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    pub games: u64,
    /// The series seed: game i is dealt from a seed derived from it, so the same seed plays
    /// the same games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Agents, comma-separated: one for every seat, or one per seat. Each is a kind with
    /// optional parameters: `random`, `greedy`, `mcts:iterations=2000,c=0.7`.
    #[arg(long, default_value = "random")]
    pub bots: String,
    /// Play every deal once per rotation of the agents over the seats (so `--games N` plays
    /// N × seats games): fair comparisons of agents in competitive games.
    #[arg(long)]
    pub swap_seats: bool,
    /// Start every game from this scenario (YAML) instead of a fresh deal.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
    /// Print the first game move by move, with every seat's observation.
    #[arg(long)]
    pub trace: bool,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Write every game's record (parameters, seed, actions) to this YAML file.
    #[arg(long, value_name = "FILE")]
    pub records: Option<PathBuf>,
}

/// Split an agent list: `random,mcts:iterations=200,c=0.5,greedy` is three agents (a piece
/// with `=` and no `:` continues the parameters of the agent before it).
pub fn split_agents(text: &str) -> Vec<String> {
    let mut agents: Vec<String> = Vec::new();
    for piece in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match agents.last_mut() {
            Some(last) if piece.contains('=') && !piece.contains(':') => {
                last.push(',');
                last.push_str(piece);
            }
            _ => agents.push(piece.to_string()),
        }
    }
    agents
}

/// One agent spec per seat, each checked, in canonical form.
fn seat_agents(bots: &str, spec: &dyn AnySpec) -> Result<Vec<String>, String> {
    let seats = spec.seats();
    let mut names = Vec::new();
    for text in split_agents(bots) {
        names.push(bots::BotSpec::parse(&text).map_err(|e| format!("--bots: {e}"))?.to_string());
    }
    match names.len() {
        0 => Err("--bots names no agent".into()),
        1 => Ok(vec![names[0].clone(); seats]),
        n if n == seats => Ok(names),
        n => Err(format!("--bots names {n} agents for {seats} seats: give one, or one per seat")),
    }
}

/// Play one game to its end; with `trace`, print the move-by-move account as it goes.
fn play_one(
    mut g: Box<dyn AnyGame>,
    agents: &mut [Box<dyn Agent>],
    record: &mut Record,
    trace: bool,
) -> Result<Box<dyn AnyGame>, String> {
    let mut legal = Vec::new();
    let mut n = 0;
    while let Some(seat) = g.to_move() {
        legal.clear();
        g.legal_actions(&mut legal);
        let view = SeatView::local(g.as_ref(), seat, &legal, Budget::default());
        let agent = &mut agents[seat.index()];
        let a = agent.act(&view).map_err(|e| format!("agent {} at {seat} failed: {e}", agent.name()))?;
        n += 1;
        if trace {
            outln!("── move {n}: {seat} to act");
            for s in 0..g.seats() {
                out!("{}", g.observation_text(Seat(s as u8)));
            }
            let labels: Vec<String> = legal.iter().map(|&l| g.action_label(l)).collect();
            outln!("  legal: {}", labels.join(" | "));
            outln!("▶ {seat} ({}): {}", agents[seat.index()].name(), g.action_label(a));
        }
        if let Err(e) = g.apply(a) {
            // An agent chose outside the legal list: a bug in the agent, named here.
            return Err(format!("agent {} at {seat} chose {a}: {e}", agents[seat.index()].name()));
        }
        record.actions.push(a);
    }
    if trace {
        outln!("── the end");
        for s in 0..g.seats() {
            out!("{}", g.observation_text(Seat(s as u8)));
        }
        if let Some(o) = g.outcome() {
            outln!("scores {:?}, ranks {:?}", o.scores, o.ranks);
        }
    }
    Ok(g)
}

fn new_game(spec: &dyn AnySpec, scenario: Option<&str>, seed: u64) -> Result<Box<dyn AnyGame>, String> {
    match scenario {
        Some(yaml) => spec.scenario(seed, yaml),
        None => Ok(spec.new_game(seed)),
    }
}

pub fn run(args: PlayArgs) -> Result<(), String> {
    let spec = args.game.spec()?;
    let seats = spec.seats();
    let agent_names = seat_agents(&args.bots, spec.as_ref())?;
    // Check every agent can be built for this game before anything is played.
    for name in &agent_names {
        bots::agent(name, spec.as_ref(), 0).map_err(|e| format!("--bots: {e}"))?;
    }
    let scenario = match &args.scenario {
        Some(p) => Some(load_file(&p.display().to_string())?),
        None => None,
    };
    let scenario_name = args.scenario.as_ref().map(|p| format!(" from {}", p.display())).unwrap_or_default();
    // Check the scenario once, before the series.
    if let (Some(yaml), Some(path)) = (&scenario, &args.scenario) {
        spec.scenario(args.seed, yaml).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let params = serde_yaml::to_string(&spec.params_yaml()).map_err(|e| e.to_string())?;
    let params_line = params.trim().replace('\n', ", ");
    let mut summary = PlaySummary::new(spec.game(), &params_line, args.seed, &agent_names);
    let mut records = Vec::new();
    let rotations = if args.swap_seats { seats as u64 } else { 1 };
    let total = args.games * rotations;
    let progress = ProgressBar::new(total);
    progress.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games, {per_sec}, eta {eta}").map_err(|e| e.to_string())?,
    );
    let slow_agents = agent_names.iter().any(|a| a != "random");
    if args.json || args.trace || (total < 10_000 && !slow_agents) {
        progress.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let start = Instant::now();
    for i in 0..args.games {
        // The deal depends on the series seed and the game number only, never on the agents.
        let seed = game_seed(args.seed, i);
        for rotation in 0..rotations {
            let at_seat: Vec<String> =
                (0..seats).map(|s| agent_names[(s + rotation as usize) % seats].clone()).collect();
            let g = new_game(spec.as_ref(), scenario.as_deref(), seed)?;
            let mut agents = at_seat
                .iter()
                .enumerate()
                .map(|(s, n)| bots::agent(n, spec.as_ref(), game_seed(seed, s as u64 + 1)))
                .collect::<Result<Vec<_>, _>>()?;
            let mut record = spec.record(seed, scenario.as_deref());
            let trace = args.trace && i == 0 && rotation == 0;
            if trace {
                outln!("══ game 1 of {total}{scenario_name}, seed {seed}");
            }
            let g = play_one(g, &mut agents, &mut record, trace)?;
            let o = g.outcome().expect("a finished game has an outcome");
            summary.add(&GameResult {
                agents: at_seat,
                scores: o.scores,
                ranks: o.ranks,
                actions: record.actions.len() as u64,
                metrics: g
                    .metrics()
                    .into_iter()
                    .map(|m| Figure { name: m.name, value: m.value, rate: m.kind == MetricKind::Rate })
                    .collect(),
            });
            if args.records.is_some() {
                records.push(record);
            }
            progress.inc(1);
        }
    }
    progress.finish_and_clear();
    let elapsed = start.elapsed().as_secs_f64();
    if let Some(path) = &args.records {
        let text = serde_yaml::to_string(&records).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if args.json {
        let mut v = serde_json::to_value(&summary).map_err(|e| e.to_string())?;
        v["elapsed_seconds"] = serde_json::json!(elapsed);
        outln!("{}", serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?);
    } else {
        out!("{}", summary.render());
        outln!("wall clock:   {elapsed:.2} s ({:.0} games/s)", total as f64 / elapsed.max(1e-9));
    }
    Ok(())
}

#[derive(Args)]
pub struct ReplayArgs {
    /// A records file written by `arena play --records`.
    pub file: PathBuf,
    /// Print every game move by move.
    #[arg(long)]
    pub trace: bool,
}

pub fn replay(args: ReplayArgs) -> Result<(), String> {
    let name = args.file.display().to_string();
    let text = load_file(&name)?;
    let records: Vec<Record> = serde_yaml::from_str(&text).map_err(|e| format!("{name}: {e}"))?;
    for (i, r) in records.iter().enumerate() {
        let mut moves = 0;
        let g = r
            .replay(&load_file, |g| {
                if args.trace
                    && let Some(seat) = g.to_move()
                {
                    moves += 1;
                    out!("── move {moves}: {seat} to act\n{}", g.observation_text(seat));
                }
            })
            .map_err(|e| format!("{name}: record {i}: {e}"))?;
        let over = g.outcome().map(|o| format!("scores {:?}, ranks {:?}", o.scores, o.ranks));
        outln!(
            "record {i}: {} seed {}, {} actions: {}",
            r.game,
            r.seed,
            r.actions.len(),
            over.unwrap_or_else(|| "not finished".into())
        );
    }
    Ok(())
}
