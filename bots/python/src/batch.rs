//! Games stepped in batches for learners (`tabletop_arena.vector`, `tabletop_arena.gym`): n
//! games of one game, each step one action of the learner in every game, the other seats played
//! by a built-in agent (or by the learner: self-play) inside Rust, across threads, games that
//! end dealt again at once (Gymnasium's "same step" autoreset). And the built-in agents on
//! their own ([`Bot`]), to play a seat of a `State` from Python.
//!
//! Every deal and every agent's seed flows from the batch's seed: game `i`'s `k`-th deal is
//! [`deal_seed`]`(seed, i, k)`, and a seat's agent in it is seeded by [`agent_seed`], so any
//! game of a batch can be played again move for move from `State`s and [`Bot`]s.

use super::{State, seat_of, value_error};
use bots::{Agent, BotSpec, Budget, SeatView};
use engine::core::{ActionId, AnyGame, AnySpec, Outcome, Seat};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;
use std::sync::{Arc, Mutex, MutexGuard};

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
    /// At the end: every seat's reward (the learner's last observation is in the pass's row).
    final_rewards: Vec<f32>,
    /// At the end: what each seat achieved, as the outcome says (`arrived`, ...; empty after
    /// an illegal action).
    achieved: Vec<String>,
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

    /// One learner action; the others' seats played; at the end, the learner's last tensor
    /// written into `last` (a row of zeros, left as it is if the game goes on) and the next deal.
    fn step(&mut self, setup: &Setup, action: ActionId, last: &mut [f32]) -> Result<Stepped, String> {
        let mover = self.seat();
        let mut out = Stepped::default();
        if self.legal.contains(&action) {
            self.game.apply(action).map_err(|e| e.to_string())?;
            self.play_others()?;
            if let Some(outcome) = self.game.outcome() {
                out.terminated = true;
                out.reward = reward(&outcome, mover, setup.cooperative);
                out.final_rewards =
                    (0..self.game.seats() as u8).map(|s| reward(&outcome, Seat(s), setup.cooperative)).collect();
                out.achieved = outcome.achieved.clone();
                for (s, agent) in self.agents.iter_mut().enumerate() {
                    if let Some(agent) = agent {
                        agent.game_over(Seat(s as u8), &outcome);
                    }
                }
            }
        } else {
            out.terminated = true;
            out.illegal = true;
            out.reward = forfeit(setup.cooperative);
            out.final_rewards = vec![0.0; self.game.seats()];
            out.final_rewards[mover.0 as usize] = out.reward;
            out.achieved = vec![String::new(); self.game.seats()];
        }
        if out.terminated {
            self.game.write_observation_tensor(mover, last);
            *self = setup.deal(self.seed, self.index, self.episode + 1)?;
        }
        Ok(out)
    }
}

/// What a step gives Python: the observations, the rewards, the terminations and the info.
type Steps<'py> = (Bound<'py, PyAny>, Bound<'py, PyAny>, Bound<'py, PyAny>, Bound<'py, PyDict>);

/// Observation buffers whose arrays Python has let go of, ready for another step: a batch's
/// observations are large (256 games of expedition: 900 KB), and a fresh buffer each step costs
/// more in the kernel's page faults and in zeroing than the games' steps themselves.
type Spares = Arc<Mutex<Pools>>;

/// The spare buffers, by what they hold.
#[derive(Default)]
struct Pools {
    /// Any numbers: for the observations, whose every number a pass writes again (the
    /// conformance suite checks a tensor written over a buffer of NaNs).
    written: Vec<Vec<f32>>,
    /// Only zeros: for the last observations, of which a pass writes only the rows of the
    /// games that ended (most steps, none).
    zeroed: Vec<Vec<f32>>,
}

/// At most this many spare buffers of each kind are kept (a learner that holds on to every
/// step's observations gets fresh ones).
const SPARES: usize = 4;

/// A step's observations, owned by the numpy array that shows them (its base object): when
/// Python drops the array, the buffer goes back to the batch's spares.
#[pyclass(module = "tabletop_arena", frozen)]
struct Observations {
    rows: Mutex<Option<Array2<f32>>>,
    /// For last observations: the rows written (the games that ended). They are zeroed again
    /// when the buffer comes back, the other rows being zeros still: Python's array of them is
    /// read-only.
    ended: Option<Vec<usize>>,
    spares: Spares,
}

impl Drop for Observations {
    fn drop(&mut self) {
        let rows = self.rows.get_mut().unwrap_or_else(|p| p.into_inner()).take();
        let Some(rows) = rows else { return };
        let size = rows.ncols();
        let (mut buffer, _) = rows.into_raw_vec_and_offset();
        if let Some(ended) = &self.ended {
            for &i in ended {
                buffer[i * size..(i + 1) * size].fill(0.0);
            }
        }
        give_back(&self.spares, buffer, self.ended.is_some());
    }
}

/// A buffer no array shows any more, back to the spares (if they have room): to those of
/// zeros if `zeroed`.
fn give_back(spares: &Spares, buffer: Vec<f32>, zeroed: bool) {
    let mut pools = spares.lock().unwrap_or_else(|p| p.into_inner());
    let pool = if zeroed { &mut pools.zeroed } else { &mut pools.written };
    if pool.len() < SPARES {
        pool.push(buffer);
    }
}

/// n games of one game, stepped together: see the module's documentation.
#[pyclass(module = "tabletop_arena")]
pub struct Batch {
    setup: Arc<Setup>,
    /// A Python class must be shareable between threads: the games are behind a lock (held
    /// by one call at a time; a step runs outside the GIL).
    slots: Mutex<Vec<Slot>>,
    pool: Option<&'static rayon::ThreadPool>,
    spares: Spares,
    /// A learner's tensor's length, and the number of action ids.
    size: usize,
    actions: usize,
}

/// A game in a pass: its index, and its rows of the observations, of the masks and of the
/// last observations.
type Row<'a> = (usize, (((&'a mut Slot, &'a mut [f32]), &'a mut [bool]), &'a mut [f32]));

/// What a pass over the games leaves for Python: each game's learner's observation and legal
/// actions, and the last observation of a game that ended (zeros for the others), written in
/// place in the rows of one buffer each.
struct Observed {
    obs: Vec<f32>,
    mask: Vec<bool>,
    last: Vec<f32>,
}

impl Batch {
    /// Run `f` on every game, then write its learner's tensor and legal mask into the game's
    /// rows, in the same pass: across the batch's threads (if it has them) and outside the GIL.
    fn pass<T: Send>(
        &self,
        py: Python<'_>,
        f: impl Fn(&Setup, usize, &mut Slot, &mut [f32]) -> Result<T, String> + Sync,
    ) -> PyResult<(Vec<T>, Observed)> {
        let setup = self.setup.clone();
        let mut slots = self.slots();
        let slots = &mut *slots;
        let n = slots.len();
        let (rows, masks) = (self.size, self.actions);
        let run = |(i, (((slot, obs), mask), last)): Row<'_>| {
            let out = f(&setup, i, slot, last)?;
            slot.game.write_observation_tensor(slot.seat(), obs);
            for &a in &slot.legal {
                if let Some(m) = mask.get_mut(a as usize) {
                    *m = true;
                }
            }
            Ok(out)
        };
        let pool = self.pool;
        let mut seen =
            Observed { obs: self.buffer(n * rows), mask: vec![false; n * masks], last: self.zeros(n * rows) };
        let (out, seen) = py.detach(|| match pool {
            Some(pool) => pool.install(|| {
                let out = slots
                    .par_iter_mut()
                    .zip(seen.obs.par_chunks_mut(rows))
                    .zip(seen.mask.par_chunks_mut(masks))
                    .zip(seen.last.par_chunks_mut(rows))
                    .enumerate()
                    .with_min_len(4)
                    .map(run)
                    .collect::<Result<Vec<T>, String>>();
                (out, seen)
            }),
            None => {
                let out = slots
                    .iter_mut()
                    .zip(seen.obs.chunks_mut(rows))
                    .zip(seen.mask.chunks_mut(masks))
                    .zip(seen.last.chunks_mut(rows))
                    .enumerate()
                    .map(run)
                    .collect();
                (out, seen)
            }
        });
        Ok((out.map_err(PyRuntimeError::new_err)?, seen))
    }

    /// A buffer of `n` numbers (a tensor per game) to be written whole: a spare one, or a new
    /// one.
    fn buffer(&self, n: usize) -> Vec<f32> {
        let mut pools = self.spares.lock().unwrap_or_else(|p| p.into_inner());
        let spare = pools.written.pop().or_else(|| pools.zeroed.pop());
        spare.filter(|b| b.len() == n).unwrap_or_else(|| vec![0.0; n])
    }

    /// A buffer of `n` zeros: a spare one, or a new one.
    fn zeros(&self, n: usize) -> Vec<f32> {
        let spare = self.spares.lock().unwrap_or_else(|p| p.into_inner()).zeroed.pop();
        spare.filter(|b| b.len() == n).unwrap_or_else(|| vec![0.0; n])
    }

    /// A buffer of a tensor per game as an `n x tensor` numpy array, which owns it: the
    /// buffer comes back to the spares when Python drops the array. With `ended` (the rows
    /// written in a buffer of zeros), the array is read-only, and those rows are zeroed again
    /// when it comes back.
    fn rows<'py>(&self, py: Python<'py>, buffer: Vec<f32>, ended: Option<Vec<usize>>) -> PyResult<Bound<'py, PyAny>> {
        let read_only = ended.is_some();
        let rows = Array2::from_shape_vec((buffer.len() / self.size, self.size), buffer).map_err(value_error)?;
        let owner = Bound::new(py, Observations { rows: Mutex::new(Some(rows)), ended, spares: self.spares.clone() })?;
        let guard = owner.get().rows.lock().unwrap_or_else(|p| p.into_inner());
        let rows = guard.as_ref().ok_or_else(|| PyRuntimeError::new_err("observations already given back"))?;
        // SAFETY: the array shows the memory of `rows`, owned by `owner`, its base object, which
        // lives as long as the array; `rows` is never reallocated nor moved out until `owner` is
        // dropped (the buffer then goes to the spares, the array being gone).
        let array = unsafe { PyArray2::borrow_from_array(rows, owner.clone().into_any()) }.into_any();
        if read_only {
            let flags = PyDict::new(py);
            flags.set_item("write", false)?;
            array.call_method("setflags", (), Some(&flags))?;
        }
        Ok(array)
    }

    /// A buffer not handed to Python, back to the spares: to those of zeros if `zeroed`.
    fn spare(&self, buffer: Vec<f32>, zeroed: bool) {
        give_back(&self.spares, buffer, zeroed);
    }

    fn slots(&self) -> MutexGuard<'_, Vec<Slot>> {
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The learners' observations (n × tensor, float32) and the batch's info: the legal masks
    /// (n × actions, bool), the seats, the deals. The tensors are built across the batch's
    /// threads.
    fn observe<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
        let (_, mut seen) = self.pass(py, |_, _, _, _| Ok(()))?;
        self.spare(std::mem::take(&mut seen.last), true);
        self.assemble(py, seen)
    }

    /// The observations and the info as numpy arrays (the buffers themselves: no copy; the
    /// observations' buffer comes back to the spares when Python drops its array).
    fn assemble<'py>(&self, py: Python<'py>, seen: Observed) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
        let slots = self.slots();
        let n = slots.len();
        let info = PyDict::new(py);
        info.set_item("action_mask", seen.mask.into_pyarray(py).reshape([n, self.actions])?)?;
        info.set_item("seat", slots.iter().map(|s| i64::from(s.seat().0)).collect::<Vec<_>>().into_pyarray(py))?;
        info.set_item("deal", slots.iter().map(|s| s.deal).collect::<Vec<_>>().into_pyarray(py))?;
        Ok((self.rows(py, seen.obs, None)?, info))
    }
}

#[pymethods]
impl Batch {
    /// `n` games of `game` (a `Game`); the others' seats played by the built-in agent `others`
    /// (a spec as on the command line: `random`, `greedy`, `mcts:iterations=200`) or, with
    /// `"self"`, by the learner; the learner at `seat` (`None`: each deal at a seat in turn);
    /// `threads` (0: one per core; 1: none besides the caller's).
    #[new]
    #[pyo3(signature = (game, n, others="random", seat=None, seed=0, threads=0))]
    fn new(
        game: &super::Game,
        n: usize,
        others: &str,
        seat: Option<usize>,
        seed: u64,
        threads: usize,
    ) -> PyResult<Batch> {
        if n == 0 {
            return Err(value_error("n: a batch holds at least one game"));
        }
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
        let pool = pool(threads).map_err(value_error)?;
        let size = engine::core::tensor_size(&spec.tensor_layout());
        let actions = spec.action_count() as usize;
        if size == 0 || actions == 0 {
            return Err(value_error(format!("{}: no tensor or no actions to learn from", spec.game())));
        }
        let setup = Setup { spec, cooperative, others, seat };
        let slots = (0..n as u64).map(|i| setup.deal(seed, i, 0)).collect::<Result<_, _>>();
        let slots = Mutex::new(slots.map_err(PyRuntimeError::new_err)?);
        Ok(Batch { setup: Arc::new(setup), slots, pool, spares: Spares::default(), size, actions })
    }

    /// The number of games.
    #[getter]
    fn n(&self) -> usize {
        self.slots().len()
    }

    /// Deal every game again from `seed` (an int), or game `i` from `seed[i]` (a list of one
    /// seed per game: the same seed `n` times is that seed), game `i` its `episode`-th deal (so
    /// the learner's seat, unless fixed, is `(i + episode) % seats`): `(observations, info)`.
    /// With `mask` (a bool per game), only the games it marks are dealt again; the others go
    /// on where they are (their observations and info as they stand).
    #[pyo3(signature = (seed, episode=0, mask=None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: &Bound<'py, PyAny>,
        episode: u64,
        mask: Option<Vec<bool>>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
        let n = self.slots().len();
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
        let (_, mut seen) = self.pass(py, |setup, i, slot, _| {
            if mask.as_ref().is_none_or(|m| m[i]) {
                *slot = setup.deal(seeds[i], i as u64, episode)?;
            }
            Ok(())
        })?;
        self.spare(std::mem::take(&mut seen.last), true);
        self.assemble(py, seen)
    }

    /// The observations and info now.
    fn current<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
        self.observe(py)
    }

    /// One action per game (a sequence of ints): `(observations, rewards, terminations,
    /// info)`. A game that ends is dealt again in the same step: its last observation is
    /// `info["final_obs"]`, every seat's reward `info["final_rewards"]`. An action that is not
    /// legal loses the game for the learner (`info["illegal"]`), unless `strict`: then nothing
    /// is played and `ValueError` names the game and the action. `info["final_achieved"]`:
    /// what each seat of each game that ended achieved (an empty list for the others).
    #[pyo3(signature = (actions, strict=false))]
    fn step<'py>(&mut self, py: Python<'py>, actions: &Bound<'py, PyAny>, strict: bool) -> PyResult<Steps<'py>> {
        let actions: Vec<i64> = match actions.cast::<PyArray1<i64>>() {
            Ok(array) => array.readonly().as_slice()?.to_vec(),
            Err(_) => actions.extract()?,
        };
        let n = self.slots().len();
        if actions.len() != n {
            return Err(value_error(format!("{} actions for {n} games", actions.len())));
        }
        let mut ids = Vec::with_capacity(n);
        for (i, (&a, slot)) in actions.iter().zip(self.slots().iter()).enumerate() {
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
        // Each game steps and writes its learner's next tensor on the batch's threads.
        let (stepped, mut seen) = self.pass(py, |setup, i, slot, last| slot.step(setup, ids[i], last))?;
        let last = std::mem::take(&mut seen.last);
        let (obs, info) = self.assemble(py, seen)?;
        if stepped.iter().any(|s| s.terminated) {
            // Games that ended: their last observation and every seat's reward (zero rows for
            // the others).
            let seats = self.setup.spec.seats();
            let mut rewards = vec![0f32; n * seats];
            for (i, s) in stepped.iter().enumerate().filter(|(_, s)| s.terminated) {
                rewards[i * seats..(i + 1) * seats].copy_from_slice(&s.final_rewards);
            }
            let ended = stepped.iter().enumerate().filter(|(_, s)| s.terminated).map(|(i, _)| i).collect();
            info.set_item("final_obs", self.rows(py, last, Some(ended))?)?;
            info.set_item("final_rewards", rewards.into_pyarray(py).reshape([n, seats])?)?;
            let achieved: Vec<&[String]> = stepped.iter().map(|s| s.achieved.as_slice()).collect();
            info.set_item("final_achieved", achieved)?;
        } else {
            self.spare(last, true);
        }
        info.set_item("illegal", stepped.iter().map(|s| s.illegal).collect::<Vec<_>>().into_pyarray(py))?;
        let rewards = stepped.iter().map(|s| s.reward).collect::<Vec<_>>().into_pyarray(py).into_any();
        let terminated = stepped.iter().map(|s| s.terminated).collect::<Vec<_>>().into_pyarray(py).into_any();
        Ok((obs, rewards, terminated, info))
    }

    /// Game `index` as a `State` (a copy).
    fn state(&self, index: usize) -> PyResult<State> {
        let slots = self.slots();
        let slot =
            slots.get(index).ok_or_else(|| value_error(format!("game {index}: the batch has {}", slots.len())))?;
        Ok(State { game: slot.game.clone_box(), spec: self.setup.spec.clone() })
    }
}

/// The process's pool of `threads` threads (0: one per core), shared by every batch that asks
/// for that many (as rayon's global pool is shared: it lives as long as the process). The first
/// pool a thread builds counts that thread as one of its own, so that the thread that steps a
/// batch (Python's, usually) steps games too instead of waking a worker and waiting for it:
/// on two cores, 1.4x the steps of a pool of two workers beside a waiting caller. For one
/// thread there is no pool: the caller steps every game.
fn pool(threads: usize) -> Result<Option<&'static rayon::ThreadPool>, rayon::ThreadPoolBuildError> {
    static POOLS: Mutex<Vec<(usize, &'static rayon::ThreadPool)>> = Mutex::new(Vec::new());
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        k => k,
    };
    if threads == 1 {
        return Ok(None);
    }
    let mut pools = POOLS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(&(_, pool)) = pools.iter().find(|(k, _)| *k == threads) {
        return Ok(Some(pool));
    }
    let builder = || rayon::ThreadPoolBuilder::new().num_threads(threads).thread_name(|i| format!("batch-{i}"));
    // A thread already in a pool cannot join another: that one's threads are all workers.
    let pool = builder().use_current_thread().build().or_else(|_| builder().build())?;
    let pool: &'static rayon::ThreadPool = Box::leak(Box::new(pool));
    pools.push((threads, pool));
    Ok(Some(pool))
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
