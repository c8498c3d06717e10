//! The referee: one way to judge a move wherever a game is played — `arena play`, a
//! tournament, a server match.
//!
//! A seat answers a decision with an action, or fails to (it crashed, its client
//! disconnected, nothing came in time). [`Referee::judge`] takes that answer with the time it
//! took and rules: the action is played, or the seat is at fault — `timeout`, `illegal`,
//! `crash`, `disconnected` (and, outside a move, `resigned`, `idle`; for a launched
//! participant whose process broke a limit, `memory limit`, `process count`) — and the policy applies:
//! it forfeits (the game ends, the seat last and every other seat first) or a random legal
//! action is played for it. Verdicts are kept one per seat and kind, with a count.
//!
//! [`play_game`] is the synchronous loop `arena play` and the tournament run: agents in this
//! process asked in turn, each on a thread of its own when there is a per-move limit, so that
//! one that never answers is cut off with its verdict and left behind while the game goes on.

use bots::{Agent, AgentError, Budget, SeatView};
use engine::core::{ActionId, AnyGame, AnySpec, Figures, Outcome, Seat, SmallRng};
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A limit given in whole units where 0 means none (files, flags and the wire all say so).
pub fn limit_ms(ms: u64) -> Option<Duration> {
    (ms > 0).then(|| Duration::from_millis(ms))
}

/// A limit as whole milliseconds, 0 for none (for the wire and files).
pub fn as_ms(limit: Option<Duration>) -> u64 {
    limit.map_or(0, |d| d.as_millis().min(u128::from(u64::MAX)) as u64)
}

/// What a seat did wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fault {
    /// No answer within the per-move limit (or one that came after it).
    Timeout,
    /// An action that is not legal.
    Illegal,
    /// The agent panicked or reported an error.
    Crash,
    /// The client's connection is gone.
    Disconnected,
    /// The seat gave the game up.
    Resigned,
    /// No seat acted for the server's idle limit: the seat to move is blamed.
    Idle,
    /// A launched participant's processes used more than their memory limit (the kernel's
    /// OOM killer ended one: see `crate::limits`).
    #[serde(rename = "memory limit")]
    MemoryLimit,
    /// A launched participant tried to have more processes than its limit.
    #[serde(rename = "process count")]
    ProcessCount,
    /// A launched participant used its whole CPU time (`cpu_seconds`), and was stopped.
    #[serde(rename = "CPU time")]
    CpuTime,
    /// A launched participant ran past its wall time (`wall_seconds`), and was stopped.
    #[serde(rename = "wall time")]
    WallTime,
}

impl Fault {
    pub const ALL: [Fault; 10] = [
        Fault::Timeout,
        Fault::Illegal,
        Fault::Crash,
        Fault::Disconnected,
        Fault::Resigned,
        Fault::Idle,
        Fault::MemoryLimit,
        Fault::ProcessCount,
        Fault::CpuTime,
        Fault::WallTime,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Fault::Timeout => "timeout",
            Fault::Illegal => "illegal",
            Fault::Crash => "crash",
            Fault::Disconnected => "disconnected",
            Fault::Resigned => "resigned",
            Fault::Idle => "idle",
            Fault::MemoryLimit => "memory limit",
            Fault::ProcessCount => "process count",
            Fault::CpuTime => "CPU time",
            Fault::WallTime => "wall time",
        }
    }

    pub fn parse(name: &str) -> Option<Fault> {
        Fault::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// What happens to a seat at fault. One spelling everywhere: `forfeit` and `random-move` on
/// the command line (`--on-timeout`), in records and in the wire's `Verdict.policy` (the
/// contract's `TimeoutPolicy` enum names the same two); records written with the older
/// `random move` still load, and the command line still takes the older `random`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Policy {
    /// It loses: the game ends there.
    #[serde(rename = "forfeit")]
    Forfeit,
    /// A random legal action is played for it, and the game goes on.
    #[serde(rename = "random-move", alias = "random move", alias = "random")]
    RandomMove,
}

impl Policy {
    pub const ALL: [Policy; 2] = [Policy::Forfeit, Policy::RandomMove];

    pub fn name(self) -> &'static str {
        match self {
            Policy::Forfeit => "forfeit",
            Policy::RandomMove => "random-move",
        }
    }

    /// A policy by its name, or an older spelling of it (`random`, `random move`).
    pub fn parse(name: &str) -> Option<Policy> {
        match name {
            "forfeit" => Some(Policy::Forfeit),
            "random-move" | "random" | "random move" => Some(Policy::RandomMove),
            _ => None,
        }
    }

    /// The command line's `--on-timeout` values: the names, the older `random` taken too.
    pub fn parser() -> clap::builder::PossibleValuesParser {
        clap::builder::PossibleValuesParser::new([
            clap::builder::PossibleValue::new("forfeit"),
            clap::builder::PossibleValue::new("random-move").alias("random"),
        ])
    }
}

/// The limit a decision ran under, worded once for every verdict that names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// The seat's per-move limit.
    PerMove(Duration),
    /// What was left on the seat's game clock (less than any per-move limit).
    Clock(Duration),
    /// The seat's per-move limit and what was left in its overage bank: a move may take both.
    Bank { per_move: Duration, left: Duration },
    /// No seat acted for this long.
    Idle(Duration),
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Limit::PerMove(d) => write!(f, "the {} ms per-move limit", d.as_millis()),
            Limit::Clock(d) => write!(f, "the {} ms left on its clock", d.as_millis()),
            Limit::Bank { per_move, left } => write!(
                f,
                "the {} ms per-move limit and the {} ms left in its bank",
                per_move.as_millis(),
                left.as_millis()
            ),
            Limit::Idle(d) => write!(f, "the {} ms idle limit", d.as_millis()),
        }
    }
}

impl Limit {
    pub fn duration(self) -> Duration {
        match self {
            Limit::PerMove(d) | Limit::Clock(d) | Limit::Idle(d) => d,
            Limit::Bank { per_move, left } => per_move + left,
        }
    }

    /// The detail of a verdict for nothing within the limit: `no action within the 500 ms
    /// per-move limit`, `… within the 320 ms left on its clock`, `no seat acted within the
    /// 300000 ms idle limit`.
    pub fn missed(self) -> String {
        match self {
            Limit::Idle(_) => format!("no seat acted within {self}"),
            _ => format!("no action within {self}"),
        }
    }

    /// The detail of a verdict for an answer that came after the limit: `answered after 612
    /// ms, past the 500 ms per-move limit`.
    pub fn late(self, took: Duration) -> String {
        format!("answered after {} ms, past {self}", took.as_millis())
    }
}

/// The detail of a resignation, wherever it comes from (a token's `Resign`, a Play client's).
pub fn resigned(seat: usize, at_move: usize) -> String {
    format!("seat {seat} resigned at move {at_move}")
}

/// One seat's faults of one kind in one game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub seat: usize,
    pub kind: Fault,
    pub policy: Policy,
    /// How many times (a random move is played for each).
    pub count: u32,
    /// The decision of the first, counted from 0.
    pub at_move: usize,
    /// What happened the first time.
    pub detail: String,
}

/// How a match ended, and its result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchOutcome {
    /// Scores, ranks and what each seat achieved: the game's own when it was played out; after
    /// a forfeit every score is 0, the seat at fault last and every other seat first.
    #[serde(flatten)]
    pub result: Outcome,
    /// The seat whose verdict ended the match, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forfeited_by: Option<usize>,
    /// The match was called off before its end: no result.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cancelled: bool,
    /// …because the server stopped before it ended (a ladder's stop, past its grace period):
    /// rated for nobody, no seat at fault.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub aborted: bool,
}

impl MatchOutcome {
    /// The game's own outcome.
    pub fn played(result: Outcome) -> MatchOutcome {
        MatchOutcome { result, forfeited_by: None, cancelled: false, aborted: false }
    }

    /// `seat` lost by a verdict, the others tie for first.
    pub fn forfeit(seats: usize, seat: usize) -> MatchOutcome {
        let ranks = (0..seats).map(|i| if i == seat { (seats - 1) as u8 } else { 0 }).collect();
        MatchOutcome {
            result: Outcome { scores: vec![0; seats], ranks, achieved: Vec::new() },
            forfeited_by: Some(seat),
            cancelled: false,
            aborted: false,
        }
    }

    /// Called off: every score 0, every rank the same.
    pub fn cancelled(seats: usize) -> MatchOutcome {
        MatchOutcome {
            result: Outcome { scores: vec![0; seats], ranks: vec![0; seats], achieved: Vec::new() },
            forfeited_by: None,
            cancelled: true,
            aborted: false,
        }
    }

    /// Called off because the server stopped: no result, rated for nobody.
    pub fn aborted(seats: usize) -> MatchOutcome {
        MatchOutcome { aborted: true, ..MatchOutcome::cancelled(seats) }
    }

    /// How this play ranks among plays of the same deal of a cooperative game, given its
    /// figures (the game's live, or a record's): the game's own key ([`AnySpec::play_key`]);
    /// `None`, below every key, when a verdict ended it. Compare two with [`play_versus`].
    pub fn play_key(&self, spec: &dyn AnySpec, figures: &dyn Figures) -> Option<Vec<f64>> {
        self.forfeited_by.is_none().then(|| spec.play_key(&self.result, figures))
    }
}

/// A's share of one comparison of two plays of the same deal, by their keys
/// ([`MatchOutcome::play_key`]): 1 when A's ranks higher, 0 lower, ½ when they are equal (or do
/// not compare).
pub fn play_versus(a: &Option<Vec<f64>>, b: &Option<Vec<f64>>) -> f64 {
    match a.partial_cmp(b) {
        Some(std::cmp::Ordering::Greater) => 1.0,
        Some(std::cmp::Ordering::Less) => 0.0,
        _ => 0.5,
    }
}

/// An answer that is not an action: the fault, and what happened.
pub type NoAnswer = (Fault, String);

/// What the referee rules on an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ruling {
    /// The seat's own action: play it.
    Play(ActionId),
    /// The policy's random move for a seat at fault: play it.
    Substitute(ActionId),
    /// The seat at fault forfeits: the match ends.
    Forfeit(usize),
}

/// A game clock: `base` for the whole game, `increment` added after each of the seat's moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    pub base: Duration,
    pub increment: Duration,
}

impl Clock {
    /// A clock of `base_ms` for the game and `increment_ms` a move.
    pub fn from_ms(base_ms: u64, increment_ms: u64) -> Clock {
        Clock { base: Duration::from_millis(base_ms), increment: Duration::from_millis(increment_ms) }
    }

    /// What is left of `seat`'s time on `clock` (a game clock, or an overage bank), kept by
    /// seat in `left`: its `base` before the seat's first move.
    fn left(left: &[Option<Duration>], seat: usize, clock: Option<Clock>) -> Option<Duration> {
        match left.get(seat) {
            Some(left) => *left,
            None => clock.map(|c| c.base),
        }
    }

    /// `spent` taken from `seat`'s time on this clock (kept by seat in `left`), then the
    /// increment added.
    fn spend(self, left: &mut Vec<Option<Duration>>, seat: usize, spent: Duration) {
        if left.len() <= seat {
            left.resize_with(seat + 1, || Some(self.base));
        }
        let now = left[seat].unwrap_or(self.base);
        left[seat] = Some(now.saturating_sub(spent) + self.increment);
    }
}

/// How long a seat may think: per move, on a game clock, and with an overage bank.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeControl {
    pub per_move: Option<Duration>,
    pub clock: Option<Clock>,
    /// An overage bank (Kaggle's `remainingOverageTime`), with a per-move limit: a move may
    /// take its per-move limit and what is left in the bank; the time past the limit is drawn
    /// from the bank, and `increment` is added to it after each of the seat's moves. `base` is
    /// what it holds at the start.
    pub bank: Option<Clock>,
}

impl TimeControl {
    pub fn per_move(limit: Option<Duration>) -> TimeControl {
        TimeControl { per_move: limit, clock: None, bank: None }
    }

    /// Is there any limit at all?
    pub fn is_limited(&self) -> bool {
        self.per_move.is_some() || self.clock.is_some()
    }
}

/// Judges one match's moves under its time controls and policy, and keeps its verdicts.
#[derive(Clone, Debug)]
pub struct Referee {
    /// Every seat's time control (the last one stands for the seats past the list).
    controls: Vec<TimeControl>,
    /// Time left on each seat's clock.
    clocks: Vec<Option<Duration>>,
    /// Time left in each seat's overage bank.
    banks: Vec<Option<Duration>>,
    pub policy: Policy,
    /// Random moves are drawn from this and the move number (replayable).
    seed: u64,
    verdicts: Vec<Verdict>,
}

fn legal_of(game: &dyn AnyGame) -> Vec<ActionId> {
    let mut legal = Vec::new();
    game.legal_actions(&mut legal);
    legal
}

impl Referee {
    /// The same per-move limit for every seat.
    pub fn new(limit: Option<Duration>, policy: Policy, seed: u64) -> Referee {
        Referee::with_controls(vec![TimeControl::per_move(limit)], policy, seed)
    }

    /// A time control per seat.
    pub fn with_controls(controls: Vec<TimeControl>, policy: Policy, seed: u64) -> Referee {
        let clocks = controls.iter().map(|c| c.clock.map(|c| c.base)).collect();
        let banks = controls.iter().map(|c| c.bank.map(|b| b.base)).collect();
        Referee { controls, clocks, banks, policy, seed, verdicts: Vec::new() }
    }

    fn control(&self, seat: usize) -> TimeControl {
        self.controls.get(seat).or(self.controls.last()).copied().unwrap_or_default()
    }

    fn clock_left(&self, seat: usize) -> Option<Duration> {
        Clock::left(&self.clocks, seat, self.control(seat).clock)
    }

    /// What is left in `seat`'s overage bank, if it has one.
    pub fn bank_left(&self, seat: usize) -> Option<Duration> {
        Clock::left(&self.banks, seat, self.control(seat).bank)
    }

    /// How long `seat` may think on its next move: its per-move limit (and what is left in its
    /// bank), or what is left on its clock, whichever is less.
    pub fn allowed(&self, seat: usize) -> Option<Duration> {
        self.limit(seat).map(Limit::duration)
    }

    /// What an agent is told of `seat`'s next move: the time it may take in all, and how much
    /// of that is its bank's (to be drawn on only when needed).
    pub fn budget(&self, seat: usize) -> Budget {
        let bank = match self.limit(seat) {
            Some(Limit::Bank { left, .. }) => Some(left),
            _ => None,
        };
        Budget { per_move: self.allowed(seat), bank }
    }

    /// The limit of `seat`'s next move, and which one it is: its per-move limit (with what is
    /// left in its bank, if it has one), or what is left on its clock when that is less (or
    /// the same).
    pub fn limit(&self, seat: usize) -> Option<Limit> {
        let per_move = self.control(seat).per_move.map(|p| match self.bank_left(seat) {
            Some(left) => Limit::Bank { per_move: p, left },
            None => Limit::PerMove(p),
        });
        match (per_move, self.clock_left(seat)) {
            (Some(a), Some(b)) if a.duration() < b => Some(a),
            (_, Some(b)) => Some(Limit::Clock(b)),
            (a, None) => a,
        }
    }

    pub fn verdicts(&self) -> &[Verdict] {
        &self.verdicts
    }

    /// Take the verdicts another referee gave (a match played elsewhere, shown here).
    pub fn keep(&mut self, verdicts: Vec<Verdict>) {
        self.verdicts = verdicts;
    }

    /// The detail of a `timeout` of `seat` on its coming move, in the one wording every
    /// timeout has (the limit that applied named), with `note` (what else happened) after it.
    pub fn timed_out(&self, seat: usize, note: &str) -> String {
        let missed = match self.limit(seat) {
            Some(limit) => limit.missed(),
            None => "no action in time".to_string(),
        };
        if note.is_empty() { missed } else { format!("{missed}: {note}") }
    }

    /// Judge `seat`'s answer at decision `at_move` of `game` (not yet applied), which took
    /// `took`: an action on time and legal is played; anything else is a fault. A timeout's
    /// detail is the referee's own (the limit that applied), whoever noticed it.
    pub fn judge(
        &mut self,
        game: &dyn AnyGame,
        seat: usize,
        at_move: usize,
        answer: Result<ActionId, NoAnswer>,
        took: Duration,
    ) -> Ruling {
        let limit = self.limit(seat);
        let (fault, detail) = match answer {
            Ok(_) if limit.is_some_and(|l| took > l.duration()) => (Fault::Timeout, limit.expect("a limit").late(took)),
            Ok(a) => {
                let legal = legal_of(game);
                if legal.contains(&a) {
                    let control = self.control(seat);
                    if let Some(clock) = control.clock {
                        clock.spend(&mut self.clocks, seat, took);
                    }
                    if let (Some(bank), Some(per_move)) = (control.bank, control.per_move) {
                        // The time past the per-move limit is the bank's.
                        bank.spend(&mut self.banks, seat, took.saturating_sub(per_move));
                    }
                    return Ruling::Play(a);
                }
                (Fault::Illegal, format!("action {a} ({}) is not legal; legal: {legal:?}", game.action_label(a)))
            }
            Err((Fault::Timeout, note)) => (Fault::Timeout, self.timed_out(seat, &note)),
            Err((Fault::Resigned, _)) => (Fault::Resigned, resigned(seat, at_move)),
            Err(no) => no,
        };
        self.fault(game, seat, at_move, fault, detail)
    }

    /// `seat` is at fault: the verdict is kept (counted with the same seat's earlier ones of
    /// the kind) and the policy applies. Resigning, idling and breaking a launched process's
    /// limit (its process is gone) always forfeit.
    pub fn fault(&mut self, game: &dyn AnyGame, seat: usize, at_move: usize, kind: Fault, detail: String) -> Ruling {
        let policy = match kind {
            Fault::Resigned
            | Fault::Idle
            | Fault::MemoryLimit
            | Fault::ProcessCount
            | Fault::CpuTime
            | Fault::WallTime => Policy::Forfeit,
            _ => self.policy,
        };
        tracing::debug!(seat, kind = kind.name(), policy = policy.name(), "verdict: {detail}");
        match self.verdicts.iter_mut().find(|v| v.seat == seat && v.kind == kind) {
            Some(v) => v.count += 1,
            None => self.verdicts.push(Verdict { seat, kind, policy, count: 1, at_move, detail }),
        }
        let legal = legal_of(game);
        match policy {
            Policy::RandomMove if !legal.is_empty() => {
                let mut rng = SmallRng::seed_from_u64(self.seed ^ (at_move as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                Ruling::Substitute(legal[rng.random_range(0..legal.len())])
            }
            _ => Ruling::Forfeit(seat),
        }
    }

    /// The outcome of a match that ended: the game's own, or the forfeit.
    pub fn outcome(game: &dyn AnyGame, forfeited_by: Option<usize>) -> MatchOutcome {
        match (forfeited_by, game.outcome()) {
            (None, Some(o)) => MatchOutcome::played(o),
            (Some(seat), _) => MatchOutcome::forfeit(game.seats(), seat),
            (None, None) => MatchOutcome::cancelled(game.seats()),
        }
    }
}

// ----- agents in this process ------------------------------------------------------------------

thread_local! {
    /// The message of the last panic on this thread (see [`QuietPanics`]).
    static PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

type PanicHook = Box<dyn Fn(&std::panic::PanicHookInfo<'_>) + Sync + Send + 'static>;

/// While alive, a panic is kept (for the crash verdict) instead of printed.
pub struct QuietPanics(Option<PanicHook>);

impl QuietPanics {
    pub fn install() -> QuietPanics {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(|info| {
            let msg = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
            PANIC.with(|p| *p.borrow_mut() = Some(format!("panicked: {msg}{at}")));
        }));
        QuietPanics(Some(previous))
    }
}

impl Drop for QuietPanics {
    fn drop(&mut self) {
        if let Some(previous) = self.0.take() {
            std::panic::set_hook(previous);
        }
    }
}

/// The fault an agent's error stands for.
pub fn no_answer(e: AgentError) -> NoAnswer {
    match e {
        AgentError::Failed(m) => (Fault::Crash, m),
        AgentError::Disconnected(m) => (Fault::Disconnected, m),
        AgentError::TimedOut(m) => (Fault::Timeout, m),
        AgentError::Idle(m) => (Fault::Idle, m),
        AgentError::Resigned(m) => (Fault::Resigned, m),
        AgentError::MemoryLimit(m) => (Fault::MemoryLimit, m),
        AgentError::ProcessCount(m) => (Fault::ProcessCount, m),
        AgentError::CpuTime(m) => (Fault::CpuTime, m),
        AgentError::WallTime(m) => (Fault::WallTime, m),
    }
}

/// How long past the limit a watchdog waits before it cuts an agent off (the hand-over).
pub fn grace(limit: Duration) -> Duration {
    (limit / 4).clamp(Duration::from_millis(20), Duration::from_secs(1))
}

/// Ask `agent` for its action, a panic or an error becoming its fault.
pub fn ask(agent: &mut dyn Agent, game: &dyn AnyGame, seat: Seat, budget: Budget) -> Result<ActionId, NoAnswer> {
    let legal = legal_of(game);
    let view = SeatView::local(game, seat, &legal, budget);
    match catch_unwind(AssertUnwindSafe(|| agent.act(&view))) {
        Ok(Ok(a)) => Ok(a),
        Ok(Err(e)) => Err(no_answer(e)),
        Err(_) => {
            let msg = PANIC.with(|p| p.borrow_mut().take()).unwrap_or_else(|| "panicked".into());
            Err((Fault::Crash, msg))
        }
    }
}

type Question = (Box<dyn AnyGame>, Seat, Budget);

/// An agent of this process at one seat: asked on the caller's thread when there is no
/// per-move limit or it answers in time by itself (the built-in agents: searches check their
/// deadline), else on a thread of its own that a watchdog waits for up to the limit (and a
/// grace for the hand-over): one that does not answer by then is left behind, its seat ruled
/// out of time, and the game goes on without waiting for it.
pub enum SeatAgent {
    Inline(Box<dyn Agent>),
    Watched {
        questions: Option<mpsc::Sender<Question>>,
        answers: mpsc::Receiver<Result<ActionId, NoAnswer>>,
        /// The agent comes back when its thread ends (to hear the game's end).
        thread: Option<std::thread::JoinHandle<Box<dyn Agent>>>,
        /// It did not answer in time once: never asked again.
        left_behind: bool,
    },
}

impl SeatAgent {
    pub fn new(agent: Box<dyn Agent>, control: TimeControl) -> SeatAgent {
        if !control.is_limited() || agent.answers_in_time() {
            return SeatAgent::Inline(agent);
        }
        let (questions, asked) = mpsc::channel::<Question>();
        let (answer, answers) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name(format!("agent {}", agent.name()))
            .spawn(move || {
                let mut agent = agent;
                for (game, seat, budget) in asked {
                    if answer.send(ask(agent.as_mut(), game.as_ref(), seat, budget)).is_err() {
                        break;
                    }
                }
                agent
            })
            .expect("a thread for an agent");
        SeatAgent::Watched { questions: Some(questions), answers, thread: Some(thread), left_behind: false }
    }

    /// The agent's answer for `seat` in `game` within `budget`.
    pub fn act(&mut self, game: &dyn AnyGame, seat: Seat, budget: Budget) -> Result<ActionId, NoAnswer> {
        match self {
            SeatAgent::Inline(agent) => ask(agent.as_mut(), game, seat, budget),
            SeatAgent::Watched { questions, answers, left_behind, .. } => {
                let limit = budget.per_move.unwrap_or(Duration::MAX);
                // The referee words the limit: only what else happened is said here.
                let gone = || (Fault::Timeout, "left behind after an earlier timeout".to_string());
                if *left_behind {
                    return Err(gone());
                }
                let Some(q) = questions.as_ref() else { return Err(gone()) };
                if q.send((game.clone_box(), seat, budget)).is_err() {
                    return Err((Fault::Crash, "the agent's thread ended".into()));
                }
                match answers.recv_timeout(limit.saturating_add(grace(limit))) {
                    Ok(answer) => answer,
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        *left_behind = true;
                        *questions = None;
                        Err((Fault::Timeout, "cut off and left behind".to_string()))
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => Err((Fault::Crash, "the agent's thread ended".into())),
                }
            }
        }
    }

    /// Tell the agent the game is over, and how it ended (an agent left behind is not waited
    /// for).
    pub fn game_over(self, seat: Seat, ending: &Ending) {
        let outcome = &ending.outcome.result;
        match self {
            SeatAgent::Inline(mut agent) => agent.ended(seat, outcome, ending),
            SeatAgent::Watched { questions, thread, left_behind, .. } => {
                drop(questions);
                if !left_behind && let Some(Ok(mut agent)) = thread.map(|t| t.join()) {
                    agent.ended(seat, outcome, ending);
                }
            }
        }
    }
}

/// How a game ended, as every agent that sat in it is told (see [`Agent::ended`]): the outcome
/// (with the seat whose verdict ended it) and the referee's verdicts. Never the game itself.
#[derive(Clone, Debug, PartialEq)]
pub struct Ending {
    pub outcome: MatchOutcome,
    pub verdicts: Vec<Verdict>,
}

/// A game played out by agents of this process under a referee.
pub struct Played {
    pub game: Box<dyn AnyGame>,
    pub actions: Vec<ActionId>,
    /// The time each decision took, in milliseconds.
    pub move_ms: Vec<f32>,
    pub outcome: MatchOutcome,
    pub verdicts: Vec<Verdict>,
}

/// Play `game` to its end with one agent per seat, every answer judged by `referee`; `watch`
/// sees each state before its move, the mover and the action played.
pub fn play_game(
    mut game: Box<dyn AnyGame>,
    agents: Vec<SeatAgent>,
    mut referee: Referee,
    mut watch: impl FnMut(&dyn AnyGame, Seat, ActionId),
) -> Played {
    let mut agents = agents;
    let (mut actions, mut move_ms) = (Vec::new(), Vec::new());
    let mut forfeited_by = None;
    while let Some(seat) = game.to_move() {
        let budget = referee.budget(seat.index());
        let t = Instant::now();
        let answer = agents[seat.index()].act(game.as_ref(), seat, budget);
        let took = t.elapsed();
        move_ms.push(took.as_secs_f32() * 1e3);
        let action = match referee.judge(game.as_ref(), seat.index(), actions.len(), answer, took) {
            Ruling::Play(a) | Ruling::Substitute(a) => a,
            Ruling::Forfeit(s) => {
                forfeited_by = Some(s);
                break;
            }
        };
        watch(game.as_ref(), seat, action);
        game.apply(action).expect("the referee plays only legal actions");
        actions.push(action);
    }
    let ending = Ending { outcome: Referee::outcome(game.as_ref(), forfeited_by), verdicts: referee.verdicts };
    for (s, agent) in agents.into_iter().enumerate() {
        agent.game_over(Seat(s as u8), &ending);
    }
    Played { game, actions, move_ms, outcome: ending.outcome, verdicts: ending.verdicts }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::find_game;

    fn game() -> Box<dyn AnyGame> {
        let spec = (find_game("expedition").unwrap().spec)(None, &[], &|_| Err("no files".into())).unwrap();
        spec.new_game(3)
    }

    #[test]
    fn one_verdict_per_seat_and_kind_with_a_count() {
        let g = game();
        let mut r = Referee::new(Some(Duration::from_millis(10)), Policy::RandomMove, 1);
        for k in 0..5 {
            let ruling = r.judge(g.as_ref(), 0, k, Ok(0), Duration::from_millis(50));
            assert!(matches!(ruling, Ruling::Substitute(_)), "{ruling:?}");
        }
        r.judge(g.as_ref(), 0, 6, Ok(u32::MAX), Duration::ZERO);
        assert_eq!(r.verdicts().len(), 2);
        assert_eq!((r.verdicts()[0].kind, r.verdicts()[0].count, r.verdicts()[0].at_move), (Fault::Timeout, 5, 0));
        assert_eq!((r.verdicts()[1].kind, r.verdicts()[1].count), (Fault::Illegal, 1));
        // Resigning forfeits whatever the policy.
        assert_eq!(r.fault(g.as_ref(), 1, 7, Fault::Resigned, "gave up".into()), Ruling::Forfeit(1));
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        let mut r = Referee::new(None, Policy::Forfeit, 1);
        assert_eq!(r.judge(g.as_ref(), 0, 0, Ok(legal[0]), Duration::from_secs(99)), Ruling::Play(legal[0]));
        assert_eq!(r.judge(g.as_ref(), 0, 0, Err((Fault::Crash, "x".into())), Duration::ZERO), Ruling::Forfeit(0));
    }

    #[test]
    fn a_game_clock_runs_down_and_gains_its_increment() {
        let g = game();
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        let clock = Clock { base: Duration::from_millis(100), increment: Duration::from_millis(10) };
        let controls = vec![
            TimeControl { per_move: Some(Duration::from_millis(80)), clock: Some(clock), bank: None },
            TimeControl::default(),
        ];
        let mut r = Referee::with_controls(controls, Policy::Forfeit, 1);
        assert_eq!(r.allowed(0), Some(Duration::from_millis(80)), "the per-move limit is the smaller");
        assert_eq!(r.allowed(1), None);
        assert_eq!(r.judge(g.as_ref(), 0, 0, Ok(legal[0]), Duration::from_millis(60)), Ruling::Play(legal[0]));
        assert_eq!(r.allowed(0), Some(Duration::from_millis(50)), "100 - 60 + 10 left");
        let ruling = r.judge(g.as_ref(), 0, 1, Ok(legal[0]), Duration::from_millis(55));
        assert_eq!(ruling, Ruling::Forfeit(0));
        assert_eq!(r.verdicts()[0].detail, "answered after 55 ms, past the 50 ms left on its clock");
        // A timeout noticed elsewhere is worded here, the limit that applied named.
        let mut r = Referee::new(Some(Duration::from_millis(500)), Policy::RandomMove, 1);
        r.judge(g.as_ref(), 1, 0, Err((Fault::Timeout, String::new())), Duration::ZERO);
        assert_eq!(r.verdicts()[0].detail, "no action within the 500 ms per-move limit");
        assert_eq!(Limit::Idle(Duration::from_secs(300)).missed(), "no seat acted within the 300000 ms idle limit");
    }

    #[test]
    fn an_overage_bank_pays_for_time_past_the_per_move_limit_and_gains_its_increment() {
        let g = game();
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        let ms = Duration::from_millis;
        let bank = Clock { base: ms(100), increment: ms(5) };
        let controls = vec![TimeControl { per_move: Some(ms(50)), clock: None, bank: Some(bank) }];
        let mut r = Referee::with_controls(controls, Policy::Forfeit, 1);
        // The move may take its 50 ms and the bank's 100; the agent is told which is which.
        assert_eq!(r.limit(0), Some(Limit::Bank { per_move: ms(50), left: ms(100) }));
        assert_eq!(r.budget(0), Budget { per_move: Some(ms(150)), bank: Some(ms(100)) });
        // Within the per-move limit: the bank only gains its increment.
        assert_eq!(r.judge(g.as_ref(), 0, 0, Ok(legal[0]), ms(30)), Ruling::Play(legal[0]));
        assert_eq!(r.bank_left(0), Some(ms(105)));
        // 80 ms: 30 past the limit, drawn from the bank (105 - 30 + 5).
        assert_eq!(r.judge(g.as_ref(), 0, 1, Ok(legal[0]), ms(80)), Ruling::Play(legal[0]));
        assert_eq!(r.bank_left(0), Some(ms(80)));
        assert_eq!(r.allowed(0), Some(ms(130)));
        // Past the limit and the bank: a timeout, worded with both.
        assert_eq!(r.judge(g.as_ref(), 0, 2, Ok(legal[0]), ms(131)), Ruling::Forfeit(0));
        assert_eq!(
            r.verdicts()[0].detail,
            "answered after 131 ms, past the 50 ms per-move limit and the 80 ms left in its bank"
        );
        // A game clock with less left than the limit and the bank decides instead.
        let clock = Clock { base: ms(120), increment: Duration::ZERO };
        let r = Referee::with_controls(
            vec![TimeControl { per_move: Some(ms(50)), clock: Some(clock), bank: Some(bank) }],
            Policy::Forfeit,
            1,
        );
        assert_eq!(r.limit(0), Some(Limit::Clock(ms(120))));
        assert_eq!(r.budget(0), Budget { per_move: Some(ms(120)), bank: None });
    }

    #[test]
    fn the_forfeit_outcome_puts_the_seat_last() {
        let o = MatchOutcome::forfeit(3, 1);
        assert_eq!(
            (o.result.ranks.clone(), o.result.scores.clone(), o.forfeited_by),
            (vec![0, 2, 0], vec![0; 3], Some(1))
        );
        assert!(MatchOutcome::cancelled(2).cancelled);
    }
}
