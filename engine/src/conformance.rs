//! What every game must do, checked by playing it: the one conformance suite (as OpenSpiel's
//! basic tests). `engine/tests/conformance.rs` runs it over every registered game, preset and
//! seat count; a game's own tests run it on more variants (modules, late positions) with their
//! own invariants as an [`Extra`]; the proto crate's sends every observation over the wire and
//! back.
//!
//! Along a random game from a seed, at every state:
//! - the legal ids are distinct, named by the spec, labelled and given a target (what a drawing
//!   offers them on); empty exactly when the game is over, as `to_move` is none and the
//!   outcome is there;
//! - an id that is not legal (or not an id at all) is refused and changes nothing;
//! - a clone is independent: acting on it leaves the original as it was;
//! - no two legal actions have the same effect, unless they differ in a state the mover cannot
//!   tell from this one (where the hidden cards lie otherwise);
//! - every few states, for every seat: its observation crosses JSON unchanged and rebuilds a
//!   state that shows it the same; a determinisation keeps its observation, tensor and (for the
//!   mover) legal set, and plays on to a legal end; redrawing what it cannot see keeps its
//!   tensor.
//!
//! At the end: the outcome has a score and a rank per seat, acting is refused, the same seed
//! deals the same game, and the game's record crosses JSON and replays to the same state; the
//! play's key (its rank among plays of its deal) reads only figures the game reports, and is
//! the same from the figures as a record keeps them.

use crate::core::{ActionError, ActionId, AnyGame, AnySpec, Figures, Metric, Outcome, Record, Seat, SmallRng};
use rand::{RngExt, SeedableRng};
use std::cell::RefCell;
use std::collections::BTreeMap;

/// What a caller checks beyond the suite: a game's own invariants at every state (every card
/// in one place), or more of every view the suite checks (the proto crate: the wire round
/// trip). Both do nothing unless given.
pub trait Extra {
    /// At every state, before the suite's checks of it.
    fn state(&mut self, _game: &dyn AnyGame) -> Result<(), String> {
        Ok(())
    }
    /// With every view the suite checks: the state, the seat, its observation as JSON.
    fn view(&mut self, _game: &dyn AnyGame, _seat: Seat, _observation: &serde_json::Value) -> Result<(), String> {
        Ok(())
    }
}

/// Nothing beyond the suite.
pub struct Nothing;

impl Extra for Nothing {}

/// How thoroughly to check.
#[derive(Clone, Copy, Debug)]
pub struct Depth {
    /// Check every seat's view every this many states (1: at every state).
    pub views_every: usize,
    /// Determinisations tried before two actions of the same effect are called twins.
    pub twin_tries: usize,
    /// A game longer than this is a game that does not end.
    pub max_actions: usize,
}

impl Default for Depth {
    fn default() -> Self {
        Depth { views_every: 5, twin_tries: 256, max_actions: 20_000 }
    }
}

macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err(format!($($msg)+));
        }
    };
}

/// Play one random game of `spec` from `seed` (from `start`'s state if given: a scenario),
/// checking everything above. Returns the actions played.
pub fn check_game(
    spec: &dyn AnySpec,
    seed: u64,
    start: Option<&str>,
    depth: Depth,
    extra: &mut dyn Extra,
) -> Result<Vec<ActionId>, String> {
    let fresh = || match start {
        Some(yaml) => spec.scenario(seed, yaml),
        None => Ok(spec.new_game(seed)),
    };
    let mut g = fresh()?;
    ensure!(g.same_state(fresh()?.as_ref()), "{}: seed {seed} dealt two different games", spec.game());
    let mut rng = SmallRng::seed_from_u64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x00C0_FFEE);
    let mut actions = Vec::new();
    let mut legal = Vec::new();
    for step in 0.. {
        ensure!(step <= depth.max_actions, "{}: seed {seed}: no end after {step} actions", spec.game());
        let at = |what: String| format!("{}: seed {seed}, step {step}: {what}", spec.game());
        legal.clear();
        g.legal_actions(&mut legal);
        extra.state(g.as_ref()).map_err(at)?;
        check_state(spec, g.as_ref(), &legal).map_err(at)?;
        check_refusals(spec, g.as_mut(), &legal, &mut rng).map_err(at)?;
        check_effects(g.as_ref(), &legal, depth, &mut rng).map_err(at)?;
        if step % depth.views_every.max(1) == 0 {
            check_views(spec, g.as_ref(), &legal, &mut rng, extra).map_err(at)?;
        }
        if legal.is_empty() {
            break;
        }
        let a = legal[rng.random_range(0..legal.len())];
        g.apply(a).map_err(|e| at(format!("legal action {a} refused: {e}")))?;
        actions.push(a);
    }
    check_end(spec, g.as_ref(), seed, start, &actions)?;
    Ok(actions)
}

/// The legal list and the end agree; every legal id is named and labelled.
fn check_state(spec: &dyn AnySpec, g: &dyn AnyGame, legal: &[ActionId]) -> Result<(), String> {
    let over = g.is_terminal();
    ensure!(legal.is_empty() == over, "legal actions {legal:?} while is_terminal is {over}");
    ensure!(g.to_move().is_none() == over, "to_move {:?} while is_terminal is {over}", g.to_move());
    ensure!(g.outcome().is_some() == over, "an outcome {:?} while is_terminal is {over}", g.outcome());
    if let Some(seat) = g.to_move() {
        ensure!(seat.index() < g.seats(), "seat {seat:?} to move of {} seats", g.seats());
    }
    let mut sorted = legal.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    ensure!(sorted.len() == legal.len(), "duplicate legal ids in {legal:?}");
    for &id in legal {
        ensure!(id < spec.action_count(), "legal id {id} is not below action_count {}", spec.action_count());
        ensure!(spec.action_name(id).is_some(), "legal id {id} has no name in the spec");
        ensure!(!g.action_label(id).trim().is_empty(), "legal id {id} has an empty label");
        // Every action can be offered on the thing a drawing shows it acting on.
        let target = g.action_target(id).unwrap_or_default();
        let (kind, which) = target.split_once(':').unwrap_or((&target, "x"));
        ensure!(
            !kind.is_empty() && kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'-') && !which.is_empty(),
            "legal id {id} ({}) has no target a drawing names (`{target}`)",
            g.action_label(id)
        );
    }
    Ok(())
}

/// Ids that are not legal are refused and change nothing; a clone is independent.
fn check_refusals(
    spec: &dyn AnySpec,
    g: &mut dyn AnyGame,
    legal: &[ActionId],
    rng: &mut SmallRng,
) -> Result<(), String> {
    let before = g.clone_box();
    let mut tried = vec![u32::MAX, spec.action_count()];
    tried.extend((0..6).map(|_| rng.random_range(0..spec.action_count().max(1))));
    for id in tried.into_iter().filter(|id| !legal.contains(id)) {
        match g.apply(id) {
            Ok(()) => return Err(format!("id {id} is not legal yet was applied")),
            Err(ActionError::GameOver) => ensure!(g.is_terminal(), "id {id}: `game over` before the end"),
            Err(_) => ensure!(!g.is_terminal(), "id {id}: refused after the end, but not as `game over`"),
        }
        ensure!(g.same_state(before.as_ref()), "refusing id {id} changed the state");
    }
    if let Some(&a) = legal.first() {
        let mut c = g.clone_box();
        c.apply(a).map_err(|e| format!("a clone refused legal action {a}: {e}"))?;
        ensure!(g.same_state(before.as_ref()), "acting on a clone changed the original");
        ensure!(!c.same_state(g), "legal action {a} changed nothing");
    }
    Ok(())
}

/// No two legal actions have the same effect in every state the mover cannot tell apart.
fn check_effects(g: &dyn AnyGame, legal: &[ActionId], depth: Depth, rng: &mut SmallRng) -> Result<(), String> {
    let Some(mover) = g.to_move() else { return Ok(()) };
    let next: Vec<Box<dyn AnyGame>> = legal
        .iter()
        .map(|&a| {
            let mut n = g.clone_box();
            n.apply(a).map(|()| n).map_err(|e| format!("legal action {a} refused on a clone: {e}"))
        })
        .collect::<Result<_, _>>()?;
    for i in 0..next.len() {
        for j in i + 1..next.len() {
            if !next[i].same_state(next[j].as_ref()) {
                continue;
            }
            let differ = (0..depth.twin_tries).any(|_| {
                let d = g.determinize(mover, rng);
                let (mut x, mut y) = (d.clone_box(), d);
                x.apply(legal[i]).is_ok() && y.apply(legal[j]).is_ok() && !x.same_state(y.as_ref())
            });
            ensure!(
                differ,
                "`{}` and `{}` have the same effect: {}",
                g.action_label(legal[i]),
                g.action_label(legal[j]),
                g.observation_text(mover)
            );
        }
    }
    Ok(())
}

/// Every seat's view: it crosses JSON, rebuilds a state, survives determinisation and redraws.
fn check_views(
    spec: &dyn AnySpec,
    g: &dyn AnyGame,
    legal: &[ActionId],
    rng: &mut SmallRng,
    extra: &mut dyn Extra,
) -> Result<(), String> {
    check_public_view(spec, g, rng)?;
    let width = crate::core::tensor_size(&spec.tensor_layout());
    for s in 0..g.seats() {
        let seat = Seat(s as u8);
        let seen = |what: &str| format!("seat {s}: {what}");
        let o = g.observation_json(seat);
        let wire: serde_json::Value = serde_json::from_str(&o.to_string()).map_err(|e| seen(&e.to_string()))?;
        ensure!(wire == o, "{}", seen("the observation changed crossing JSON"));
        let rebuilt = spec.state_from_observation(&o).map_err(|e| seen(&format!("no state from its view: {e}")))?;
        ensure!(rebuilt.observation_json(seat) == o, "{}", seen("a state rebuilt from its view shows it otherwise"));
        let tensor = g.observation_tensor(seat);
        ensure!(
            tensor.len() == width,
            "{}",
            seen(&format!("a tensor of {} numbers, the layout says {width}", tensor.len()))
        );
        ensure!(tensor.iter().all(|x| x.is_finite()), "{}", seen("a tensor with a number that is not finite"));
        ensure!(
            g.observation_tensor_from_view(seat) == tensor,
            "{}",
            seen("the tensor written from its whole observation differs from the game's own")
        );
        // A reused buffer (a learner's batch row) is written whole: nothing of what it held stays.
        let mut reused = vec![f32::NAN; width];
        g.write_observation_tensor(seat, &mut reused);
        ensure!(reused == tensor, "{}", seen("a tensor written over a used buffer keeps some of its numbers"));
        let mut d = g.determinize(seat, rng);
        ensure!(d.observation_json(seat) == o, "{}", seen("a determinisation changed its observation"));
        ensure!(d.observation_tensor(seat) == tensor, "{}", seen("a determinisation changed its tensor"));
        if g.to_move() == Some(seat) {
            let mut dl = Vec::new();
            d.legal_actions(&mut dl);
            ensure!(dl == legal, "{}", seen("a determinisation changed the mover's legal actions"));
        }
        let redrawn = g.redraw_hidden(seat, rng);
        ensure!(redrawn.observation_json(seat) == o, "{}", seen("redrawing what it cannot see changed its view"));
        ensure!(
            redrawn.observation_tensor(seat) == tensor,
            "{}",
            seen("redrawing what it cannot see changed its tensor")
        );
        // The determinised state plays on to a legal end.
        let mut buf = Vec::new();
        for _ in 0..20_000 {
            buf.clear();
            d.legal_actions(&mut buf);
            if buf.is_empty() {
                break;
            }
            let a = buf[rng.random_range(0..buf.len())];
            d.apply(a).map_err(|e| seen(&format!("a determinisation refused legal action {a}: {e}")))?;
        }
        ensure!(d.is_terminal() && d.outcome().is_some(), "{}", seen("a determinisation played on to no end"));
        extra.view(g, seat, &o).map_err(|e| seen(&e))?;
    }
    Ok(())
}

/// A watcher's view: marked as one, it crosses JSON, rebuilds a state that shows it alike,
/// and no seat's redraw of what that seat cannot see changes it (so it holds only what every
/// seat sees).
fn check_public_view(spec: &dyn AnySpec, g: &dyn AnyGame, rng: &mut SmallRng) -> Result<(), String> {
    let o = g.public_observation_json();
    ensure!(o.get("watcher") == Some(&serde_json::Value::Bool(true)), "a watcher's view not marked as one: {o}");
    let wire: serde_json::Value = serde_json::from_str(&o.to_string()).map_err(|e| e.to_string())?;
    ensure!(wire == o, "a watcher's view changed crossing JSON");
    let rebuilt = spec.state_from_observation(&o).map_err(|e| format!("no state from a watcher's view: {e}"))?;
    ensure!(rebuilt.public_observation_json() == o, "a state rebuilt from a watcher's view shows it otherwise");
    ensure!(!g.public_observation_text().is_empty(), "a watcher's view has no text");
    for s in 0..g.seats() {
        let redrawn = g.redraw_hidden(Seat(s as u8), rng);
        ensure!(
            redrawn.public_observation_json() == o,
            "redrawing what seat {s} cannot see changed a watcher's view: it shows what not every seat sees"
        );
    }
    Ok(())
}

/// The end: the outcome's shape, refusal, and the record's replay.
fn check_end(
    spec: &dyn AnySpec,
    g: &dyn AnyGame,
    seed: u64,
    start: Option<&str>,
    actions: &[ActionId],
) -> Result<(), String> {
    let at = |what: String| format!("{}: seed {seed}, the end: {what}", spec.game());
    let o = g.outcome().ok_or_else(|| at("no outcome".into()))?;
    ensure!(
        o.scores.len() == g.seats() && o.ranks.len() == g.seats(),
        "{}",
        at(format!("{o:?} for {} seats", g.seats()))
    );
    ensure!(o.ranks.iter().all(|&r| usize::from(r) < g.seats()), "{}", at(format!("ranks {:?}", o.ranks)));
    ensure!(o.ranks.contains(&0), "{}", at(format!("nobody ranked first: {:?}", o.ranks)));
    let mut record: Record = spec.record(seed, start);
    record.actions = actions.to_vec();
    let text = serde_json::to_string(&record).map_err(|e| at(e.to_string()))?;
    let read: Record = serde_json::from_str(&text).map_err(|e| at(format!("the record does not read back: {e}")))?;
    ensure!(read == record, "{}", at("the record changed crossing JSON".into()));
    let replayed = read.replay(&|_| Err("no files".into()), |_| ()).map_err(|e| at(format!("replay: {e}")))?;
    ensure!(replayed.same_state(g), "{}", at("the record replays to another state".into()));
    check_play_key(spec, g, &o).map_err(at)
}

/// The figures of a play, noting every name asked for.
struct Asked<'a> {
    figures: &'a [Metric],
    names: RefCell<Vec<String>>,
}

impl Figures for Asked<'_> {
    fn figure(&self, name: &str) -> Option<f64> {
        self.names.borrow_mut().push(name.to_string());
        self.figures.figure(name)
    }
}

/// The play's key reads figures the game reports, and no others; the figures as a record keeps
/// them (by name, through JSON) give the same key.
fn check_play_key(spec: &dyn AnySpec, g: &dyn AnyGame, outcome: &Outcome) -> Result<(), String> {
    let metrics = g.metrics();
    let asked = Asked { figures: &metrics, names: RefCell::new(Vec::new()) };
    let key = spec.play_key(outcome, &asked);
    ensure!(!key.is_empty(), "the play's key is empty");
    let reported: Vec<&str> = metrics.iter().map(|m| m.name).collect();
    for name in asked.names.into_inner() {
        ensure!(
            reported.contains(&name.as_str()),
            "the play's key reads the figure `{name}`, which the game does not report (it reports {reported:?})"
        );
    }
    let kept: BTreeMap<String, f64> = metrics.iter().map(|m| (m.name.to_string(), m.value)).collect();
    let kept: BTreeMap<String, f64> =
        serde_json::from_str(&serde_json::to_string(&kept).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    let from_record = spec.play_key(outcome, &kept);
    ensure!(from_record == key, "the play's key is {key:?}, but {from_record:?} from the figures a record keeps");
    Ok(())
}
