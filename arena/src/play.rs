//! `arena play`: a series of games between built-in agents, summarised; `arena replay`.

use crate::setup::{GameArgs, load_file};
use arena::files::refuse_files;
use arena::pool::{Flow, Order};
use arena::record::{self, MatchRecord};
use arena::referee::{
    MatchOutcome, Policy, QuietPanics, Referee, SeatAgent, TimeControl, Verdict, limit_ms, play_game,
};
use clap::Args;
use engine::core::{ActionId, AnyGame, AnySpec, MetricKind, Seat, game_seed};
use indicatif::{ProgressBar, ProgressStyle};
use reports::{Figure, GameResult, PlaySummary};
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args)]
pub struct PlayArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// How many games.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    pub games: u64,
    /// Skip the series' first N deals: `--skip 100 --games 100` plays deals 101 to 200 of the
    /// same series (to extend a series that was cut short, or to split one over machines).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub skip: u64,
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
    /// Write every game's record (parameters, seed, actions, outcome, verdicts) to this file,
    /// one JSON line per game (`arena replay` reads it).
    #[arg(long, value_name = "FILE")]
    pub records: Option<PathBuf>,
    /// The per-move limit in milliseconds (0: none). An agent past it is cut off with a
    /// `timeout` verdict.
    #[arg(long, default_value_t = 0)]
    pub move_time_ms: u64,
    /// What a verdict (timeout, illegal action, crash) does: `forfeit` (the agent loses the
    /// game) or `random-move` (a random legal action is played for it; `random` is taken too).
    #[arg(long, default_value = "forfeit", value_parser = Policy::parser())]
    pub on_timeout: String,
    /// Games played at once, each on its own thread (the summary and the records keep the
    /// games' order, so they do not depend on it).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub jobs: u32,
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

/// The first game's move-by-move account, as it is played: every seat's view, the legal
/// actions, the move.
fn trace_move(g: &dyn AnyGame, seat: Seat, action: ActionId, agent: &str, n: usize) {
    outln!("── move {n}: {seat} to act");
    for s in 0..g.seats() {
        out!("{}", g.observation_text(Seat(s as u8)));
    }
    let mut legal = Vec::new();
    g.legal_actions(&mut legal);
    let labels: Vec<String> = legal.iter().map(|&l| g.action_label(l)).collect();
    outln!("  legal: {}", labels.join(" | "));
    outln!("▶ {seat} ({agent}): {}", g.action_label(action));
}

fn trace_end(g: &dyn AnyGame, outcome: &MatchOutcome, verdicts: &[Verdict]) {
    outln!("── the end");
    for s in 0..g.seats() {
        out!("{}", g.observation_text(Seat(s as u8)));
    }
    outln!("{}", describe_outcome(outcome, verdicts));
}

/// An outcome in one line: scores and ranks, and how it ended.
pub fn describe_outcome(o: &MatchOutcome, verdicts: &[Verdict]) -> String {
    let mut line = format!("scores {:?}, ranks {:?}", o.result.scores, o.result.ranks);
    if !o.result.achieved.is_empty() {
        line += &format!(", achieved {:?}", o.result.achieved);
    }
    if o.aborted {
        line += ", aborted (the server stopped)";
    } else if o.cancelled {
        line += ", cancelled";
    }
    for v in verdicts {
        let times = if v.count > 1 { format!(" ×{}", v.count) } else { String::new() };
        line += &format!("; seat {} {}{times} ({}): {}", v.seat, v.kind.name(), v.policy.name(), v.detail);
    }
    line
}

fn new_game(spec: &dyn AnySpec, scenario: Option<&str>, seed: u64) -> Result<Box<dyn AnyGame>, String> {
    match scenario {
        Some(yaml) => spec.scenario(seed, yaml),
        None => Ok(spec.new_game(seed)),
    }
}

/// One game of a series, played: its summary line and its record (a JSON line, when records
/// are written).
struct OneGame {
    result: GameResult,
    line: String,
}

/// What every game of a series shares.
struct Series<'a> {
    spec: &'a dyn AnySpec,
    scenario: Option<&'a str>,
    seed: u64,
    /// Deals skipped: game 0 plays deal `skip`.
    skip: u64,
    agents: &'a [String],
    rotations: u64,
    move_time: Option<std::time::Duration>,
    policy: Policy,
    /// What `--trace` heads the first game with.
    title: String,
}

impl Series<'_> {
    /// Game `k` of the series: deal `skip + k / rotations`, the agents rotated `k % rotations` seats;
    /// with `trace`, printed move by move as it is played.
    fn play(&self, k: u64, trace: bool, with_line: bool) -> Result<OneGame, String> {
        let (i, rotation) = (self.skip + k / self.rotations, k % self.rotations);
        // The deal depends on the series seed and the game number only, never on the agents.
        let seed = game_seed(self.seed, i);
        let seats = self.agents.len();
        let at_seat: Vec<String> = (0..seats).map(|s| self.agents[(s + rotation as usize) % seats].clone()).collect();
        let g = new_game(self.spec, self.scenario, seed)?;
        let mut agents = Vec::new();
        for (s, n) in at_seat.iter().enumerate() {
            let agent = bots::agent(n, self.spec, game_seed(seed, s as u64 + 1))?;
            agents.push(SeatAgent::new(agent, TimeControl::per_move(self.move_time)));
        }
        if trace {
            outln!("══ game 1 of {}, seed {seed}", self.title);
        }
        let mut n = 0;
        let referee = Referee::new(self.move_time, self.policy, seed);
        let played = play_game(g, agents, referee, |g, seat, a| {
            n += 1;
            if trace {
                trace_move(g, seat, a, &at_seat[seat.index()], n);
            }
        });
        if trace {
            trace_end(played.game.as_ref(), &played.outcome, &played.verdicts);
        }
        let o = &played.outcome.result;
        let metrics = match played.outcome.forfeited_by {
            None => played.game.metrics(),
            Some(_) => Vec::new(),
        };
        let result = GameResult {
            agents: at_seat.clone(),
            scores: o.scores.clone(),
            ranks: o.ranks.clone(),
            actions: played.actions.len() as u64,
            metrics: metrics
                .iter()
                .map(|m| Figure { name: m.name, value: m.value, rate: m.kind == MetricKind::Rate })
                .collect(),
            verdicts: played.verdicts.iter().map(|v| format!("{}: {}", at_seat[v.seat], v.kind.name())).collect(),
        };
        let line = if with_line {
            let mut record = self.spec.record(seed, self.scenario);
            record.actions = played.actions;
            MatchRecord {
                game: record,
                players: at_seat,
                outcome: played.outcome,
                verdicts: played.verdicts,
                metrics: metrics.iter().map(|m| (m.name.to_string(), m.value)).collect(),
                move_ms: played.move_ms,
                match_id: None,
                tournament: None,
            }
            .to_line()?
        } else {
            String::new()
        };
        Ok(OneGame { result, line })
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
    let params = engine::core::params_to_yaml(&spec.params_yaml()).map_err(|e| e.to_string())?;
    let params_line = params.trim().replace('\n', ", ");
    let mut summary = PlaySummary::new(spec.game(), &params_line, args.seed, &agent_names);
    summary.skipped = args.skip;
    let move_time = limit_ms(args.move_time_ms);
    let policy = Policy::parse(&args.on_timeout).unwrap_or(Policy::Forfeit);
    let mut writer = match &args.records {
        Some(path) => Some(std::io::BufWriter::new(
            std::fs::File::create(path).map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        )),
        None => None,
    };
    let _quiet = QuietPanics::install();
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
    let series = Series {
        spec: spec.as_ref(),
        scenario: scenario.as_deref(),
        seed: args.seed,
        skip: args.skip,
        agents: &agent_names,
        rotations,
        move_time,
        policy,
        title: format!("{total}{scenario_name}"),
    };
    let mut emit = |one: OneGame| -> Result<(), String> {
        summary.add(&one.result);
        if let Some(w) = &mut writer {
            w.write_all(one.line.as_bytes()).map_err(|e| format!("cannot write the records: {e}"))?;
        }
        progress.inc(1);
        Ok(())
    };
    // Workers take games in turn; the results are emitted in game order.
    let (trace, with_line) = (args.trace, args.records.is_some());
    arena::pool::run(
        args.jobs as usize,
        total,
        Order::Index,
        |i| series.play(i, trace && i == 0, with_line),
        |_, one| emit(one).map(|()| Flow::Continue),
    )?;
    progress.finish_and_clear();
    let elapsed = start.elapsed().as_secs_f64();
    if let Some(w) = &mut writer {
        w.flush().map_err(|e| format!("cannot write the records: {e}"))?;
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
    /// A records file: `arena play --records`, a tournament's `games.jsonl`, `arena serve
    /// --records`; or a ladder's data directory (`arena ladder --data DIR`).
    pub file: PathBuf,
    /// Only game N of the file (counted from 1, as listed).
    #[arg(long, value_name = "N")]
    pub game: Option<usize>,
    /// Print the game(s) move by move: the mover, who sat there, every action's label.
    #[arg(long)]
    pub text: bool,
    /// With --text: before every move, what this seat saw (its observation as text).
    #[arg(long, value_name = "S", requires = "text")]
    pub seat: Option<u8>,
}

/// The records of a file named to replay, which must be there and hold some.
fn read_records(name: &str, path: &std::path::Path) -> Result<record::Records, String> {
    // Unlike a tournament's log (none yet: no games), a file named to replay must be there.
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    if text.trim().is_empty() {
        return Err(if text.is_empty() {
            format!("{name} is empty")
        } else {
            format!("{name} holds only blank lines")
        });
    }
    let read = record::parse(name, &text)?;
    if read.records.is_empty() {
        // Its one line that is not blank is not a record (and was taken for one cut short).
        let why = read.left_out.as_deref().unwrap_or("no line is a record");
        return Err(format!("{name} {why}; the file holds no records"));
    }
    if let Some(why) = &read.left_out {
        outln!("{name}: a last line cut short (a writer killed mid-line) was left out ({why})");
    }
    Ok(read)
}

pub fn replay(args: ReplayArgs) -> Result<(), String> {
    let name = args.file.display().to_string();
    let read = match arena::ladder::store::Store::in_dir(&args.file) {
        // A ladder's data directory: its games, in the order they finished.
        Some(dir) => {
            let store = arena::ladder::store::Store::open(&dir)?;
            let records: Vec<MatchRecord> = store.all_games()?.into_iter().map(|g| g.record).collect();
            if records.is_empty() {
                return Err(format!("the ladder of {name} has finished no game yet"));
            }
            record::Records { records, truncated: false, left_out: None }
        }
        None => read_records(&name, &args.file)?,
    };
    let chosen: Vec<(usize, &MatchRecord)> = match args.game {
        Some(n) if n == 0 || n > read.records.len() => {
            return Err(format!("--game {n}: {name} holds games 1 to {}", read.records.len()));
        }
        Some(n) => vec![(n, &read.records[n - 1])],
        None => read.records.iter().enumerate().map(|(i, r)| (i + 1, r)).collect(),
    };
    // A seat's views only of a game that has the seat: checked before anything is printed.
    if let Some(seat) = args.seat {
        // The game's own count (its parameters'); parameters that do not build are the
        // replay's error to tell, and the record's seats stand in for them meanwhile.
        let seats_of = |r: &MatchRecord| {
            engine::find_game(&r.game.game)
                .and_then(|entry| {
                    (entry.spec)(None, &[r.game.param_source()], &refuse_files).map_err(|e| e.to_string())
                })
                .map_or(r.players.len(), |spec| spec.seats())
        };
        let seats: Vec<usize> = chosen.iter().map(|(_, r)| seats_of(r)).collect();
        if let Some(k) = seats.iter().position(|&n| usize::from(seat) >= n) {
            let (n, r) = chosen[k];
            let has = match seats[k] {
                1 => "1 seat: seat 0".to_string(),
                s => format!("{s} seats: 0 to {}", s - 1),
            };
            return Err(if chosen.len() == 1 {
                format!("--seat {seat}: the recorded game ({}) has {has}", r.game.game)
            } else if seats.iter().all(|&s| s == seats[k]) {
                format!("--seat {seat}: the recorded games of {name} each have {has}")
            } else {
                format!("--seat {seat}: game {n} of {name} ({}) has {has}; choose a game with --game N", r.game.game)
            });
        }
    }
    for (n, r) in chosen {
        let g = if args.text {
            outln!(
                "══ game {n}: {} (rules version {}), seed {}{}",
                r.game.game,
                r.game.rules_version,
                r.game.seed,
                r.match_id.as_ref().map(|m| format!(", match {m}")).unwrap_or_default()
            );
            for (s, p) in r.players.iter().enumerate() {
                outln!("   seat {s}: {p}");
            }
            let mut moves = 0;
            let g = r
                .replay(&refuse_files, |g| {
                    let Some(seat) = g.to_move() else { return };
                    let Some(&a) = r.game.actions.get(moves) else { return };
                    moves += 1;
                    if let Some(s) = args.seat {
                        out!("{}", g.observation_text(Seat(s)));
                    }
                    let who = r.players.get(seat.index()).map(String::as_str).unwrap_or("?");
                    outln!("{moves:>4}. {seat} ({who}): {}", g.action_label(a));
                })
                .map_err(|e| format!("{name}: game {n}: {e}"))?;
            if let Some(s) = args.seat {
                out!("{}", g.observation_text(Seat(s)));
            }
            g
        } else {
            r.replay(&refuse_files, |_| {}).map_err(|e| format!("{name}: game {n}: {e}"))?
        };
        let _ = g;
        outln!(
            "game {n}: {} seed {}, {} actions: {}",
            r.game.game,
            r.game.seed,
            r.game.actions.len(),
            describe_outcome(&r.outcome, &r.verdicts)
        );
    }
    Ok(())
}
