//! Games stepped in batches for learners (`tabletop_arena.vector`, `tabletop_arena.gym`): n
//! games of one game, each step one action of the learner in every game, the other seats played
//! by a built-in agent (or by the learner: self-play) inside Rust, across threads, games that
//! end dealt again at once (Gymnasium's "same step" autoreset). And the built-in agents on
//! their own ([`Bot`]), to play a seat of a `State` from Python.
//!
//! Every deal and every agent's seed flows from the batch's seed: game `i`'s `k`-th deal is
//! [`deal_seed`]`(seed, i, k)`, and a seat's agent in it is seeded by [`agent_seed`], so any
//! game of a batch can be played again move for move from `State`s and [`Bot`]s.

use super::crew::Crew;
use super::{State, seat_of, value_error};
use bots::{Agent, BotSpec, Budget, SeatView};
use engine::core::{ActionId, AnyGame, AnySpec, Outcome, Seat};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::{Arc, Mutex, MutexGuard, mpsc};

/// SplitMix64's finaliser: a well-mixed 64-bit value of `x`.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The seed of game `index`'s `episode`-th deal in a batch seeded `seed`.
pub fn deal_seed(seed: u64, index: u64, episode: u64) -> u64 {
    mix(mix(mix(seed) ^ index) ^ episode)
}

/// The seed of the built-in agent at `seat` of the deal `deal`.
pub fn agent_seed(deal: u64, seat: u8) -> u64 {
    mix(deal ^ (0xA6E7 + seat as u64))
}

/// A learner's reward from an outcome: in a competitive game the seats ranked below minus the
/// seats ranked above, over the seats less one (1 for a lone winner of two, -1 for its loser,
/// 0 for a tie); in a cooperative game the team's score (as the PettingZoo environment).
fn reward(outcome: &Outcome, seat: Seat, cooperative: bool) -> f32 {
    let s = seat.0 as usize;
    if cooperative {
        return outcome.scores[s] as f32;
    }
    let me = outcome.ranks[s];
    let below = outcome.ranks.iter().filter(|&&r| r > me).count() as f32;
    let above = outcome.ranks.iter().filter(|&&r| r < me).count() as f32;
    (below - above) / (outcome.ranks.len().max(2) - 1) as f32
}

/// The reward of a learner that played an illegal action: it loses (as a tournament's verdict
/// has it): -1 in a competitive game, 0 in a cooperative one.
fn forfeit(cooperative: bool) -> f32 {
    if cooperative { 0.0 } else { -1.0 }
}

/// Who plays the seats the learner does not.
#[derive(Clone)]
enum Others {
    /// A built-in agent at each of them.
    Agent(BotSpec),
    /// The learner plays every seat: each step is for the seat to move.
    SelfPlay,
}

/// One game of a batch.
struct Slot {
    game: Box<dyn AnyGame>,
    /// The built-in agents, by seat (`None` at the learner's seats).
    agents: Vec<Option<Box<dyn Agent>>>,
    /// The learner's seat in this deal (`None`: self-play, every seat).
    learner: Option<Seat>,
    /// The seed its deals flow from (the batch's, or its own given to `reset`).
    seed: u64,
    index: u64,
    episode: u64,
    deal: u64,
    legal: Vec<ActionId>,
}

/// What one game's step gives back.
#[derive(Default)]
struct Stepped {
    reward: f32,
    terminated: bool,
    illegal: bool,
    /// At the end: the learner's seat and the deal that ended, the learner's last tensor,
    /// every seat's reward, and what each seat achieved as the outcome says (`arrived`, ...;
    /// empty after an illegal action).
    ended: Option<Ended>,
}

/// A game that ended in a step.
struct Ended {
    seat: Seat,
    deal: u64,
    obs: Vec<f32>,
    rewards: Vec<f32>,
    achieved: Vec<String>,
    /// The game as it ended.
    game: Box<dyn AnyGame>,
}

/// The batch's fixed settings, shared by its games.
#[derive(Clone)]
struct Setup {
    spec: Arc<dyn AnySpec>,
    cooperative: bool,
    others: Others,
    seat: Option<Seat>,
}

impl Setup {
    /// Deal game `index`'s `episode`-th game from `seed` and play the others' seats up to the
    /// learner's first decision (dealing again, rarely, if a game ends before the learner is
    /// asked).
    fn deal(&self, seed: u64, index: u64, mut episode: u64) -> Result<Slot, String> {
        loop {
            let deal = deal_seed(seed, index, episode);
            let game = self.spec.new_game(deal);
            let seats = game.seats();
            let learner = match self.others {
                Others::SelfPlay => None,
                Others::Agent(_) => Some(self.seat.unwrap_or(Seat(((index + episode) % seats as u64) as u8))),
            };
            let agents = (0..seats as u8)
                .map(|s| match &self.others {
                    Others::Agent(spec) if learner != Some(Seat(s)) => {
                        bots::make_agent(spec, self.spec.as_ref(), agent_seed(deal, s)).map(Some)
                    }
                    _ => Ok(None),
                })
                .collect::<Result<Vec<_>, _>>()?;
            let mut slot = Slot { game, agents, learner, seed, index, episode, deal, legal: Vec::new() };
            slot.play_others()?;
            if !slot.game.is_terminal() {
                return Ok(slot);
            }
            episode += 1;
        }
    }
}

impl Slot {
    /// The seat the learner decides for now.
    fn seat(&self) -> Seat {
        self.learner.or(self.game.to_move()).unwrap_or(Seat(0))
    }

    /// Play the built-in agents' seats until the learner is to move or the game is over; the
    /// legal actions then listed.
    fn play_others(&mut self) -> Result<(), String> {
        loop {
            // Listed once per position: the agent's choices, or the learner's.
            self.legal.clear();
            self.game.legal_actions(&mut self.legal);
            let Some(seat) = self.game.to_move() else { return Ok(()) };
            let Some(agent) = self.agents[seat.0 as usize].as_mut() else { return Ok(()) };
            let view = SeatView::local(self.game.as_ref(), seat, &self.legal, Budget::default());
            let action = agent.act(&view).map_err(|e| format!("the agent at seat {}: {e}", seat.0))?;
            self.game.apply(action).map_err(|e| format!("the agent at seat {}: {e}", seat.0))?;
        }
    }

    /// One learner action; the others' seats played; at the end, what ended (the learner's
    /// last tensor, `size` numbers, among it) and the next deal.
    fn step(&mut self, setup: &Setup, action: ActionId, size: usize) -> Result<Stepped, String> {
        let mover = self.seat();
        let seats = self.game.seats();
        let (reward, illegal, rewards, achieved) = if self.legal.contains(&action) {
            self.game.apply(action).map_err(|e| e.to_string())?;
            self.play_others()?;
            let Some(outcome) = self.game.outcome() else {
                return Ok(Stepped::default());
            };
            for (s, agent) in self.agents.iter_mut().enumerate() {
                if let Some(agent) = agent {
                    agent.game_over(Seat(s as u8), &outcome);
                }
            }
            let rewards: Vec<f32> = (0..seats as u8).map(|s| reward(&outcome, Seat(s), setup.cooperative)).collect();
            (rewards[mover.0 as usize], false, rewards, outcome.achieved)
        } else {
            let lost = forfeit(setup.cooperative);
            let mut rewards = vec![0.0; seats];
            rewards[mover.0 as usize] = lost;
            (lost, true, rewards, vec![String::new(); seats])
        };
        let mut obs = vec![0.0; size];
        self.game.write_observation_tensor(mover, &mut obs);
        let deal = self.deal;
        let next = setup.deal(self.seed, self.index, self.episode + 1)?;
        let game = std::mem::replace(self, next).game;
        let ended = Ended { seat: mover, deal, obs, rewards, achieved, game };
        Ok(Stepped { reward, terminated: true, illegal, ended: Some(ended) })
    }
}

/// A step as Gymnasium's vector API gives it: `(observations, rewards, terminations,
/// truncations, info)`.
type Steps<'py> = (Bound<'py, PyAny>, Bound<'py, PyAny>, Bound<'py, PyAny>, Bound<'py, PyAny>, Bound<'py, PyDict>);

/// Observation buffers whose arrays Python has let go of, ready for another pass: a batch's
/// observations are large (256 games of expedition: 900 KB), and a fresh buffer each step costs
/// more in the kernel's page faults and in zeroing than the games' steps themselves.
type Spares = Arc<Mutex<Vec<Vec<f32>>>>;

/// At most this many spare buffers are kept (a learner that holds on to every step's
/// observations gets fresh ones).
const SPARES: usize = 4;

/// A pass's observations, owned by the numpy array that shows them (its base object): when
/// Python drops the array, the buffer goes back to the batch's spares.
#[pyclass(module = "tabletop_arena", frozen)]
struct Observations {
    rows: Mutex<Option<Array2<f32>>>,
    spares: Spares,
}

impl Drop for Observations {
    fn drop(&mut self) {
        let rows = self.rows.get_mut().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(rows) = rows {
            give_back(&self.spares, rows.into_raw_vec_and_offset().0);
        }
    }
}

/// A buffer no array shows any more, back to the spares (if they have room).
fn give_back(spares: &Spares, buffer: Vec<f32>) {
    let mut spares = spares.lock().unwrap_or_else(|p| p.into_inner());
    if spares.len() < SPARES {
        spares.push(buffer);
    }
}

/// How a batch tells the legal actions.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Legal {
    /// `action_mask`: a bool per action id, per game.
    Mask,
    /// `legal_ids`: the legal ids themselves, per game (a few, where a mask would be
    /// thousands wide: journey has 5,376 ids and some 6 to 9 legal actions).
    Ids,
}

/// A batch's games and what stepping them needs, shared with its sender's thread.
struct Games {
    setup: Setup,
    /// A Python class must be shareable between threads: the games are behind a lock (held
    /// by one pass at a time; a pass runs outside the GIL).
    slots: Mutex<Vec<Slot>>,
    crew: Option<Arc<Crew>>,
    spares: Spares,
    /// A learner's tensor's length, and the number of action ids.
    size: usize,
    actions: usize,
    legal: Legal,
}

/// A game in a pass: the game, its rows of the observations and of the masks (empty if the
/// batch gives legal ids), and what its step gave.
struct Row<'a, T> {
    slot: &'a mut Slot,
    obs: &'a mut [f32],
    mask: &'a mut [bool],
    out: Option<Result<T, String>>,
}

/// What a pass over the games leaves: each game's learner's observation and legal actions,
/// written in place in the rows of one buffer each, and the games' seats and deals then.
struct Observed {
    obs: Vec<f32>,
    /// `n x actions` (empty if the batch gives legal ids).
    mask: Vec<bool>,
    /// The legal ids of each game, one after another, and where each game's end (if the batch
    /// gives legal ids).
    ids: Vec<i64>,
    ends: Vec<usize>,
    seats: Vec<i64>,
    deals: Vec<u64>,
}

impl Games {
    /// Run `f` on every game, then write its learner's tensor and legal actions into the
    /// game's rows, in the same pass: across the batch's crew (if it has one). Python's lock
    /// is not needed (nor held, by callers).
    fn pass<T: Send>(
        &self,
        f: impl Fn(&Setup, usize, &mut Slot) -> Result<T, String> + Sync,
    ) -> Result<(Vec<T>, Observed), String> {
        let mut slots = self.slots();
        let slots = &mut *slots;
        let n = slots.len();
        let (size, masks) = (self.size, if self.legal == Legal::Mask { self.actions } else { 0 });
        let mut obs = self.buffer(n * size);
        let mut mask = vec![false; n * masks];
        let mut games: Vec<Row<'_, T>> = slots
            .iter_mut()
            .zip(obs.chunks_mut(size))
            .zip(mask.chunks_mut(masks.max(1)).chain(std::iter::repeat_with(|| &mut [][..])))
            .map(|((slot, obs), mask)| Row { slot, obs, mask, out: None })
            .collect();
        let run = |i: usize, row: &mut Row<'_, T>| {
            row.out = Some(f(&self.setup, i, row.slot).inspect(|_| {
                row.slot.game.write_observation_tensor(row.slot.seat(), row.obs);
                mark(row.mask, &row.slot.legal);
            }));
        };
        match &self.crew {
            Some(crew) => crew.for_each(&mut games, 4, run),
            None => games.iter_mut().enumerate().for_each(|(i, row)| run(i, row)),
        }
        let out = games.into_iter().map(|row| row.out.expect("every game stepped")).collect::<Result<Vec<T>, _>>()?;
        let (mut ids, mut ends) = (Vec::new(), Vec::new());
        if self.legal == Legal::Ids {
            for slot in slots.iter() {
                let start = ids.len();
                ids.extend(slot.legal.iter().map(|&a| i64::from(a)));
                // In increasing order, as a mask's `flatnonzero` lists them.
                ids[start..].sort_unstable();
                ends.push(ids.len());
            }
        }
        let seats = slots.iter().map(|s| i64::from(s.seat().0)).collect();
        let deals = slots.iter().map(|s| s.deal).collect();
        Ok((out, Observed { obs, mask, ids, ends, seats, deals }))
    }

    /// Game `i` dealt again from `seeds[i]` (a seed per game), as its `episode`-th deal: every
    /// game, or those `mask` marks (the others go on where they are).
    fn deal(&self, seeds: &[u64], episode: u64, mask: Option<&[bool]>) -> Result<Observed, String> {
        let (_, seen) = self.pass(|setup, i, slot| {
            if mask.is_none_or(|m| m[i]) {
                *slot = setup.deal(seeds[i], i as u64, episode)?;
            }
            Ok(())
        })?;
        Ok(seen)
    }

    /// One action per game (`ActionId::MAX`: an action that is none) stepped.
    fn step(&self, actions: &[ActionId]) -> Result<(Vec<Stepped>, Observed), String> {
        self.pass(|setup, i, slot| slot.step(setup, actions[i], self.size))
    }

    /// A buffer of `n` numbers (a tensor per game) to be written whole: a spare one, or a new
    /// one.
    fn buffer(&self, n: usize) -> Vec<f32> {
        let spare = self.spares.lock().unwrap_or_else(|p| p.into_inner()).pop();
        spare.filter(|b| b.len() == n).unwrap_or_else(|| vec![0.0; n])
    }

    fn slots(&self) -> MutexGuard<'_, Vec<Slot>> {
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A step sent to the batch's sender thread, and what it gives back.
type Sent = Result<(Vec<Stepped>, Observed), String>;

/// The thread a batch's `send`s step on (started at the first), and the step it has in hand.
struct Sender {
    steps: mpsc::Sender<Vec<ActionId>>,
    /// Behind a lock only to be waited on outside Python's lock (which asks for `Sync`).
    done: Mutex<mpsc::Receiver<Sent>>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// A step sent and not yet received.
    pending: bool,
}

impl Drop for Sender {
    fn drop(&mut self) {
        // The thread ends when its channel closes (after the step it may be on).
        let (closed, _) = mpsc::channel();
        self.steps = closed;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// n games of one game, stepped together: see the module's documentation.
#[pyclass(module = "tabletop_arena")]
pub struct Batch {
    games: Arc<Games>,
    /// The mask of every game (all true, read-only): Gymnasium's `_key` of a key every game
    /// has.
    all: Py<PyAny>,
    sender: Mutex<Option<Sender>>,
    /// The last game `step_one` saw end (a single-agent environment shows it until `reset`).
    ended: Mutex<Option<Box<dyn AnyGame>>>,
}

impl Batch {
    fn n(&self) -> usize {
        self.games.slots().len()
    }

    /// A pass's observations as an `n x tensor` numpy array, which owns the buffer: it comes
    /// back to the spares when Python drops the array.
    fn rows<'py>(&self, py: Python<'py>, buffer: Vec<f32>) -> PyResult<Bound<'py, PyAny>> {
        let size = self.games.size;
        let rows = Array2::from_shape_vec((buffer.len() / size, size), buffer).map_err(value_error)?;
        let owner = Bound::new(py, Observations { rows: Mutex::new(Some(rows)), spares: self.games.spares.clone() })?;
        let guard = owner.get().rows.lock().unwrap_or_else(|p| p.into_inner());
        let rows = guard.as_ref().ok_or_else(|| PyRuntimeError::new_err("observations already given back"))?;
        // SAFETY: the array shows the memory of `rows`, owned by `owner`, its base object, which
        // lives as long as the array; `rows` is never reallocated nor moved out until `owner` is
        // dropped (the buffer then goes to the spares, the array being gone).
        Ok(unsafe { PyArray2::borrow_from_array(rows, owner.clone().into_any()) }.into_any())
    }

    /// The observations and the info of a pass, as Gymnasium's vector API has them: each
    /// key with its mask `_key` (here every game's).
    fn observed<'py>(&self, py: Python<'py>, seen: Observed) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
        let n = seen.seats.len();
        let info = PyDict::new(py);
        let all = self.all.bind(py);
        match self.games.legal {
            Legal::Mask => {
                info.set_item("action_mask", seen.mask.into_pyarray(py).reshape([n, self.games.actions])?)?;
                info.set_item("_action_mask", all)?;
            }
            Legal::Ids => {
                let (ids, counts) = padded(&seen.ids, &seen.ends);
                let width = counts.iter().copied().max().unwrap_or(0) as usize;
                info.set_item("legal_ids", ids.into_pyarray(py).reshape([n, width])?)?;
                info.set_item("_legal_ids", all)?;
                info.set_item("legal_count", counts.into_pyarray(py))?;
                info.set_item("_legal_count", all)?;
            }
        }
        info.set_item("seat", seen.seats.into_pyarray(py))?;
        info.set_item("_seat", all)?;
        info.set_item("deal", seen.deals.into_pyarray(py))?;
        info.set_item("_deal", all)?;
        Ok((self.rows(py, seen.obs)?, info))
    }

    /// A step's results as Gymnasium's vector API has them (see `step`).
    fn stepped<'py>(&self, py: Python<'py>, stepped: Vec<Stepped>, seen: Observed) -> PyResult<Steps<'py>> {
        let n = stepped.len();
        let seats = self.games.setup.spec.seats();
        let (obs, info) = self.observed(py, seen)?;
        let terminated: Vec<bool> = stepped.iter().map(|s| s.terminated).collect();
        let reward: Vec<f32> = stepped.iter().map(|s| s.reward).collect();
        let mut rewards = vec![0f32; n * seats];
        for (i, ended) in stepped.iter().enumerate().filter_map(|(i, s)| Some((i, s.ended.as_ref()?))) {
            rewards[i * seats..(i + 1) * seats].copy_from_slice(&ended.rewards);
        }
        let rewards = rewards.into_pyarray(py).reshape([n, seats])?;
        info.set_item("rewards", &rewards)?;
        info.set_item("_rewards", self.all.bind(py))?;
        if terminated.iter().any(|&t| t) {
            let ended_mask = terminated.clone().into_pyarray(py);
            let mut final_obs = Vec::with_capacity(n);
            let mut achieved = Vec::with_capacity(n);
            let (mut seat, mut deal, mut illegal) = (vec![0i64; n], vec![0u64; n], vec![false; n]);
            for (i, s) in stepped.into_iter().enumerate() {
                match s.ended {
                    Some(e) => {
                        final_obs.push(e.obs.into_pyarray(py).into_any().unbind());
                        achieved.push(e.achieved.into_pyobject(py)?.into_any().unbind());
                        (seat[i], deal[i], illegal[i]) = (i64::from(e.seat.0), e.deal, s.illegal);
                    }
                    None => {
                        final_obs.push(py.None());
                        achieved.push(py.None());
                    }
                }
            }
            let final_info = PyDict::new(py);
            final_info.set_item("seat", seat.into_pyarray(py))?;
            final_info.set_item("deal", deal.into_pyarray(py))?;
            final_info.set_item("illegal", illegal.into_pyarray(py))?;
            final_info.set_item("final_rewards", &rewards)?;
            final_info.set_item("achieved", PyArray1::from_vec(py, achieved))?;
            for key in ["seat", "deal", "illegal", "final_rewards", "achieved"] {
                final_info.set_item(format!("_{key}"), &ended_mask)?;
            }
            info.set_item("final_obs", PyArray1::from_vec(py, final_obs))?;
            info.set_item("_final_obs", &ended_mask)?;
            info.set_item("final_info", final_info)?;
            info.set_item("_final_info", &ended_mask)?;
        }
        let truncated = vec![false; n];
        Ok((
            obs,
            reward.into_pyarray(py).into_any(),
            terminated.into_pyarray(py).into_any(),
            truncated.into_pyarray(py).into_any(),
            info,
        ))
    }

    /// The actions of a step, one per game, checked: an id out of range is an action that is
    /// none (it loses the game), unless `strict`, where an action not legal now is refused,
    /// naming the game and the action.
    fn actions(&self, actions: &Bound<'_, PyAny>, strict: bool) -> PyResult<Vec<ActionId>> {
        let actions: Vec<i64> = match actions.cast::<PyArray1<i64>>() {
            Ok(array) => array.readonly().as_slice()?.to_vec(),
            Err(_) => actions.extract()?,
        };
        self.checked(&actions, strict)
    }

    /// [`actions`](Self::actions) of ints.
    fn checked(&self, actions: &[i64], strict: bool) -> PyResult<Vec<ActionId>> {
        let slots = self.games.slots();
        if actions.len() != slots.len() {
            return Err(value_error(format!("{} actions for {} games", actions.len(), slots.len())));
        }
        let mut ids = Vec::with_capacity(slots.len());
        for (i, (&a, slot)) in actions.iter().zip(slots.iter()).enumerate() {
            let id = ActionId::try_from(a).ok().filter(|id| !strict || slot.legal.contains(id));
            match id {
                Some(id) => ids.push(id),
                None if strict => {
                    return Err(value_error(format!(
                        "game {i}: action {a} is not legal now (the legal ones: {:?}); nothing was played",
                        slot.legal
                    )));
                }
                None => ids.push(ActionId::MAX),
            }
        }
        Ok(ids)
    }

    /// The first game's observation and info after a pass, as one game's.
    fn one<'py>(&self, py: Python<'py>, seen: Observed) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
        let size = self.games.size;
        let info = PyDict::new(py);
        match self.games.legal {
            Legal::Mask => info.set_item("action_mask", seen.mask[..self.games.actions].to_vec().into_pyarray(py))?,
            Legal::Ids => info.set_item("legal_ids", seen.ids[..seen.ends[0]].to_vec().into_pyarray(py))?,
        }
        info.set_item("seat", seen.seats[0])?;
        info.set_item("deal", deal_scalar(py, seen.deals[0])?)?;
        let mut obs = seen.obs;
        obs.truncate(size);
        Ok((obs.into_pyarray(py).into_any(), info))
    }

    fn sender(&self) -> MutexGuard<'_, Option<Sender>> {
        self.sender.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Refused while a sent step is not received: the games are the sender's.
    fn idle(&self, what: &str) -> PyResult<()> {
        if self.sender().as_ref().is_some_and(|s| s.pending) {
            return Err(PyRuntimeError::new_err(format!("{what}: a step was sent and not received (call recv first)")));
        }
        Ok(())
    }
}

/// A mask's row: true at each legal id (in a row of zeros; an id past it is none).
fn mark(row: &mut [bool], legal: &[ActionId]) {
    for &a in legal {
        if let Some(m) = row.get_mut(a as usize) {
            *m = true;
        }
    }
}

/// A deal's seed as numpy's `uint64` (a Python int past 2**63 would not go into the int64
/// arrays Gymnasium's vector wrappers gather single environments' infos in).
fn deal_scalar(py: Python<'_>, deal: u64) -> PyResult<Bound<'_, PyAny>> {
    vec![deal].into_pyarray(py).get_item(0)
}

/// Legal ids as rows of the longest's width, padded with -1, and each row's count.
fn padded(ids: &[i64], ends: &[usize]) -> (Vec<i64>, Vec<i64>) {
    let mut start = 0;
    let counts: Vec<i64> =
        ends.iter().map(|&end| std::mem::replace(&mut start, end)).zip(ends).map(|(s, &e)| (e - s) as i64).collect();
    let width = counts.iter().copied().max().unwrap_or(0) as usize;
    let mut rows = vec![-1i64; ends.len() * width];
    let mut start = 0;
    for (row, &end) in rows.chunks_mut(width.max(1)).zip(ends) {
        row[..end - start].copy_from_slice(&ids[start..end]);
        start = end;
    }
    (rows, counts)
}

#[pymethods]
impl Batch {
    /// `n` games of `game` (a `Game`); the others' seats played by the built-in agent `others`
    /// (a spec as on the command line: `random`, `greedy`, `mcts:iterations=200`) or, with
    /// `"self"`, by the learner; the learner at `seat` (`None`: each deal at a seat in turn);
    /// `threads` (0: one per core; 1: none besides the caller's); the legal actions told as
    /// `legal="mask"` (`action_mask`) or `"ids"` (`legal_ids`, `legal_count`).
    #[new]
    #[pyo3(signature = (game, n, others="random", seat=None, seed=0, threads=0, legal="mask"))]
    fn new(
        game: PyRef<'_, super::Game>,
        n: usize,
        others: &str,
        seat: Option<usize>,
        seed: u64,
        threads: usize,
        legal: &str,
    ) -> PyResult<Batch> {
        if n == 0 {
            return Err(value_error("n: a batch holds at least one game"));
        }
        let legal = match legal {
            "mask" => Legal::Mask,
            "ids" => Legal::Ids,
            other => return Err(value_error(format!("legal: `{other}`: \"mask\" or \"ids\""))),
        };
        let spec = game.spec.clone();
        let others = match others {
            "self" => Others::SelfPlay,
            text => Others::Agent(BotSpec::parse(text).map_err(|e| value_error(format!("others: `{text}`: {e}")))?),
        };
        let seats = spec.seats();
        let seat = seat.map(|s| seat_of(seats, s)).transpose()?;
        if seat.is_some() && matches!(others, Others::SelfPlay) {
            return Err(value_error("seat: in self-play the learner plays every seat"));
        }
        let cooperative = engine::find_game(spec.game()).map_err(value_error)?.cooperative;
        let crew = crew(threads).map_err(value_error)?;
        let size = engine::core::tensor_size(&spec.tensor_layout());
        let actions = spec.action_count() as usize;
        if size == 0 || actions == 0 {
            return Err(value_error(format!("{}: no tensor or no actions to learn from", spec.game())));
        }
        let setup = Setup { spec, cooperative, others, seat };
        let slots = (0..n as u64).map(|i| setup.deal(seed, i, 0)).collect::<Result<_, _>>();
        let slots = Mutex::new(slots.map_err(PyRuntimeError::new_err)?);
        let py = game.py();
        let all = vec![true; n].into_pyarray(py);
        let flags = PyDict::new(py);
        flags.set_item("write", false)?;
        all.call_method("setflags", (), Some(&flags))?;
        let games = Games { setup, slots, crew, spares: Spares::default(), size, actions, legal };
        Ok(Batch {
            games: Arc::new(games),
            all: all.into_any().unbind(),
            sender: Mutex::new(None),
            ended: Mutex::new(None),
        })
    }

    /// The number of games.
    #[getter(n)]
    fn count(&self) -> usize {
        self.n()
    }

    /// Deal every game again from `seed` (an int), or game `i` from `seed[i]` (a list of one
    /// seed per game: the same seed `n` times is that seed), game `i` its `episode`-th deal (so
    /// the learner's seat, unless fixed, is `(i + episode) % seats`): `(observations, info)`.
    /// With `mask` (a bool per game), only the games it marks are dealt again; the others go
    /// on where they are (their observations and info as they stand).
    #[pyo3(signature = (seed, episode=0, mask=None))]
    fn reset<'py>(
        &self,
        py: Python<'py>,
        seed: &Bound<'py, PyAny>,
        episode: u64,
        mask: Option<Vec<bool>>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
        self.idle("reset")?;
        let n = self.n();
        let seeds: Vec<u64> = match seed.extract::<u64>() {
            Ok(seed) => vec![seed; n],
            Err(_) => seed.extract().map_err(|_| value_error("seed: an int of 0 to 2**64 - 1, or a list of them"))?,
        };
        if seeds.len() != n {
            return Err(value_error(format!("seed: {} seeds for {n} games", seeds.len())));
        }
        if let Some(m) = &mask
            && m.len() != n
        {
            return Err(value_error(format!("reset_mask: {} values for {n} games", m.len())));
        }
        let games = &self.games;
        let seen = py.detach(|| games.deal(&seeds, episode, mask.as_deref())).map_err(PyRuntimeError::new_err)?;
        self.observed(py, seen)
    }

    /// The observations and info now.
    fn current<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
        self.idle("current")?;
        let games = &self.games;
        let (_, seen) = py.detach(|| games.pass(|_, _, _| Ok(()))).map_err(PyRuntimeError::new_err)?;
        self.observed(py, seen)
    }

    /// The legal actions of every game now, as a mask (`n x actions`, bool), whichever way
    /// the batch tells them: no tensor is written.
    fn legal_masks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.idle("legal_masks")?;
        let slots = self.games.slots();
        let actions = self.games.actions;
        let mut mask = vec![false; slots.len() * actions];
        for (row, slot) in mask.chunks_mut(actions).zip(slots.iter()) {
            mark(row, &slot.legal);
        }
        Ok(mask.into_pyarray(py).reshape([slots.len(), actions])?.into_any())
    }

    /// One action per game (a sequence of ints): `(observations, rewards, terminations,
    /// truncations, info)` as Gymnasium's vector API has them (see `tabletop_arena.vector`).
    /// A game that ends is dealt again in the same step: its last observation is
    /// `info["final_obs"][i]`, its last info `info["final_info"]`. An action that is not
    /// legal loses the game for the learner (`final_info["illegal"]`), unless `strict`: then
    /// nothing is played and `ValueError` names the game and the action.
    #[pyo3(signature = (actions, strict=false))]
    fn step<'py>(&self, py: Python<'py>, actions: &Bound<'py, PyAny>, strict: bool) -> PyResult<Steps<'py>> {
        self.idle("step")?;
        let ids = self.actions(actions, strict)?;
        let games = &self.games;
        let (stepped, seen) = py.detach(|| games.step(&ids)).map_err(PyRuntimeError::new_err)?;
        self.stepped(py, stepped, seen)
    }

    /// `step`'s first half, as EnvPool's `send`: the actions are checked (as `step` does) and
    /// the games step on a thread of the batch's own while the caller goes on (to choose the
    /// actions of another batch, say); `recv` gives the step's results. One step at a time.
    #[pyo3(signature = (actions, strict=false))]
    fn send(&self, actions: &Bound<'_, PyAny>, strict: bool) -> PyResult<()> {
        self.idle("send")?;
        let ids = self.actions(actions, strict)?;
        let mut sender = self.sender();
        if sender.is_none() {
            let (steps, jobs) = mpsc::channel::<Vec<ActionId>>();
            let (results, done) = mpsc::channel();
            let games = self.games.clone();
            let thread = std::thread::Builder::new()
                .name("batch-sender".into())
                .spawn(move || {
                    for ids in jobs {
                        if results.send(games.step(&ids)).is_err() {
                            return;
                        }
                    }
                })
                .map_err(|e| PyRuntimeError::new_err(format!("the batch's sender thread: {e}")))?;
            *sender = Some(Sender { steps, done: Mutex::new(done), thread: Some(thread), pending: false });
        }
        let sender = sender.as_mut().expect("started above");
        sender.steps.send(ids).map_err(|_| PyRuntimeError::new_err("the batch's sender thread has stopped"))?;
        sender.pending = true;
        Ok(())
    }

    /// `step`'s second half, as EnvPool's `recv`: waits for the step `send` sent and gives
    /// its results as `step` does.
    fn recv<'py>(&self, py: Python<'py>) -> PyResult<Steps<'py>> {
        let mut sender = self.sender();
        let Some(sender) = sender.as_mut().filter(|s| s.pending) else {
            return Err(PyRuntimeError::new_err("recv: no step was sent (call send first)"));
        };
        let done = &sender.done;
        let result = py.detach(|| done.lock().unwrap_or_else(|p| p.into_inner()).recv());
        sender.pending = false;
        let (stepped, seen) = result
            .map_err(|_| PyRuntimeError::new_err("the batch's sender thread has stopped"))?
            .map_err(PyRuntimeError::new_err)?;
        self.stepped(py, stepped, seen)
    }

    /// For a batch of one game (the single-agent environment, `tabletop_arena.gym`): its
    /// `(observation, info)` after `reset(seed, episode)`, as one game's.
    fn reset_one<'py>(
        &self,
        py: Python<'py>,
        seed: u64,
        episode: u64,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
        self.idle("reset")?;
        let games = &self.games;
        let seeds = vec![seed; self.n()];
        let seen = py.detach(|| games.deal(&seeds, episode, None)).map_err(PyRuntimeError::new_err)?;
        self.one(py, seen)
    }

    /// For a batch of one game: one action, `(observation, reward, terminated, info)` as one
    /// game's: at the end, the last observation and info, and the game is dealt again (for
    /// `reset_one` to deal it as it likes).
    #[pyo3(signature = (action, strict=false))]
    fn step_one<'py>(
        &self,
        py: Python<'py>,
        action: i64,
        strict: bool,
    ) -> PyResult<(Bound<'py, PyAny>, f32, bool, Bound<'py, PyDict>)> {
        self.idle("step")?;
        let ids = self.checked(&[action], strict)?;
        let games = &self.games;
        let (mut stepped, seen) = py.detach(|| games.step(&ids)).map_err(PyRuntimeError::new_err)?;
        let stepped = stepped.pop().ok_or_else(|| value_error("step_one: the batch has no game"))?;
        let Some(ended) = stepped.ended else {
            let (obs, info) = self.one(py, seen)?;
            return Ok((obs, stepped.reward, false, info));
        };
        let info = PyDict::new(py);
        info.set_item("seat", i64::from(ended.seat.0))?;
        info.set_item("deal", deal_scalar(py, ended.deal)?)?;
        info.set_item("final_rewards", ended.rewards.into_pyarray(py))?;
        info.set_item("achieved", ended.achieved)?;
        info.set_item("illegal", stepped.illegal)?;
        *self.ended.lock().unwrap_or_else(|p| p.into_inner()) = Some(ended.game);
        match self.games.legal {
            Legal::Mask => info.set_item("action_mask", vec![false; self.games.actions].into_pyarray(py))?,
            Legal::Ids => info.set_item("legal_ids", Vec::<i64>::new().into_pyarray(py))?,
        }
        Ok((ended.obs.into_pyarray(py).into_any(), stepped.reward, true, info))
    }

    /// The last game `step_one` saw end, as it ended (a `State`; `None` before any).
    fn ended(&self) -> Option<State> {
        let ended = self.ended.lock().unwrap_or_else(|p| p.into_inner());
        ended.as_ref().map(|game| State { game: game.clone_box(), spec: self.games.setup.spec.clone() })
    }

    /// Game `index` as a `State` (a copy).
    fn state(&self, index: usize) -> PyResult<State> {
        self.idle("state")?;
        let slots = self.games.slots();
        let slot =
            slots.get(index).ok_or_else(|| value_error(format!("game {index}: the batch has {}", slots.len())))?;
        Ok(State { game: slot.game.clone_box(), spec: self.games.setup.spec.clone() })
    }
}

/// The process's crew of `threads` threads (0: one per core), shared by every batch that asks
/// for that many, the caller counting as one of them (it steps games too rather than waiting).
/// For one thread there is no crew: the caller steps every game.
fn crew(threads: usize) -> std::io::Result<Option<Arc<Crew>>> {
    static CREWS: Mutex<Vec<Arc<Crew>>> = Mutex::new(Vec::new());
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        k => k,
    };
    if threads == 1 {
        return Ok(None);
    }
    let mut crews = CREWS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(crew) = crews.iter().find(|c| c.size() == threads) {
        return Ok(Some(crew.clone()));
    }
    let crew = Arc::new(Crew::new(threads)?);
    crews.push(crew.clone());
    Ok(Some(crew))
}

/// The seeds a batch plays from: `(deal, [agent seed of each seat])` of game `index`'s
/// `episode`-th deal in a batch reset with `seed`.
#[pyfunction]
pub fn batch_seeds(seed: u64, index: u64, episode: u64, seats: u8) -> (u64, Vec<u64>) {
    let deal = deal_seed(seed, index, episode);
    (deal, (0..seats).map(|s| agent_seed(deal, s)).collect())
}

/// A built-in agent, to play seats of `State`s from Python.
#[pyclass(module = "tabletop_arena")]
pub struct Bot {
    agent: Mutex<Box<dyn Agent>>,
}

#[pymethods]
impl Bot {
    /// The agent `spec` (`random`, `greedy`, `mcts:iterations=200`, ...) for `game`, seeded.
    #[new]
    #[pyo3(signature = (spec, game, seed=0))]
    fn new(spec: &str, game: &super::Game, seed: u64) -> PyResult<Bot> {
        let agent = bots::agent(spec, game.spec.as_ref(), seed).map_err(value_error)?;
        Ok(Bot { agent: Mutex::new(agent) })
    }

    /// The agent's choice for the seat to move in `state` (from that seat's view alone).
    fn act(&self, py: Python<'_>, state: &State) -> PyResult<ActionId> {
        let seat = state.game.to_move().ok_or_else(|| value_error("the game is over: no seat is to move"))?;
        let mut legal = Vec::new();
        state.game.legal_actions(&mut legal);
        let game = state.game.as_ref();
        let mut agent = self.agent.lock().unwrap_or_else(|p| p.into_inner());
        let agent = &mut **agent;
        py.detach(|| agent.act(&SeatView::local(game, seat, &legal, Budget::default())))
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    #[getter]
    fn name(&self) -> String {
        self.agent.lock().unwrap_or_else(|p| p.into_inner()).name().to_string()
    }
}
