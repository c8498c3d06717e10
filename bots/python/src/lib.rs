//! `tabletop_arena._native`: the engine in process, for Python. A [`Game`] is a game with its
//! parameters resolved (the engine's `AnySpec`); a [`State`] is one position (an `AnyGame`).
//! Every rule is the engine's: this module only converts between Rust and Python values.

use engine::core::{ActionError, ActionId, AnyGame, AnySpec, ParamSource, Seat, SmallRng};
use numpy::IntoPyArray;
use prost::Message;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyDict;
use rand::SeedableRng;
use std::sync::Arc;

mod batch;
mod crew;

/// The contract's text (`proto/.../arena.proto`), from which the Python stubs are generated.
const CONTRACT: &str = include_str!("../../../proto/proto/tabletop/arena/v1/arena.proto");

fn value_error(e: impl ToString) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A Python function, imported once.
fn cached<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyAny>>,
    module: &str,
    name: &str,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(cell.get_or_try_init(py, || py.import(module)?.getattr(name).map(Bound::unbind))?.bind(py).clone())
}

/// JSON text as Python values.
fn from_json<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    static LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    cached(py, &LOADS, "json", "loads")?.call1((text,))
}

/// Python values as JSON.
fn to_json(value: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    static DUMPS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let text: String = cached(value.py(), &DUMPS, "json", "dumps")?.call1((value,))?.extract()?;
    serde_json::from_str(&text).map_err(value_error)
}

fn rng(seed: u64) -> SmallRng {
    SmallRng::seed_from_u64(seed)
}

/// A game with its parameters resolved: it deals new states, rebuilds states from a seat's
/// observation, and knows the tensor's layout and the action-id range.
#[pyclass(frozen, module = "tabletop_arena")]
struct Game {
    spec: Arc<dyn AnySpec>,
}

impl Game {
    fn state(&self, game: Box<dyn AnyGame>) -> State {
        State { game, spec: self.spec.clone() }
    }
}

#[pymethods]
impl Game {
    /// The game's name (`journey`, `expedition`).
    #[getter]
    fn name(&self) -> &'static str {
        self.spec.game()
    }

    /// The number of seats.
    #[getter]
    fn seats(&self) -> usize {
        self.spec.seats()
    }

    /// What the rules call one seat (`traveller`, `player`): the parameter that sets their
    /// number, in the singular.
    #[getter]
    fn seat_word(&self) -> PyResult<&'static str> {
        let param = engine::find_game(self.spec.game()).map_err(value_error)?.seats_param;
        Ok(param.strip_suffix('s').unwrap_or(param))
    }

    /// All seats play as one team (every seat gets the same score and rank).
    #[getter]
    fn cooperative(&self) -> PyResult<bool> {
        Ok(engine::find_game(self.spec.game()).map_err(value_error)?.cooperative)
    }

    /// The version of the rules as implemented.
    #[getter]
    fn rules_version(&self) -> u32 {
        self.spec.rules_version()
    }

    /// Every parameter, as YAML (what records and the wire carry).
    #[getter]
    fn params_yaml(&self) -> PyResult<String> {
        engine::core::params_to_yaml(&self.spec.params_yaml()).map_err(value_error)
    }

    /// The shape of an observation tensor: `(length,)`.
    #[getter]
    fn tensor_shape(&self) -> (usize,) {
        (engine::core::tensor_size(&self.spec.tensor_layout()),)
    }

    /// The tensor's fields in order: `(name, length, meaning)`.
    #[getter]
    fn tensor_fields(&self) -> Vec<(&'static str, usize, &'static str)> {
        self.spec.tensor_layout().into_iter().map(|f| (f.name, f.size, f.doc)).collect()
    }

    /// The range of every number of the tensor: `(low, high)`, two numpy `float32` vectors of
    /// `Game.tensor_shape`, each field's range (as the game's layout declares it) over its
    /// numbers. Every tensor of a game dealt with these parameters lies within them.
    #[getter]
    fn tensor_bounds<'py>(&self, py: Python<'py>) -> (Bound<'py, PyAny>, Bound<'py, PyAny>) {
        let (low, high) = engine::core::tensor_bounds(&self.spec.tensor_layout());
        (low.into_pyarray(py).into_any(), high.into_pyarray(py).into_any())
    }

    /// Action ids run from 0 to this (exclusive); not every id names an action.
    #[getter]
    fn action_count(&self) -> u32 {
        self.spec.action_count()
    }

    /// What the action an id names is, in any state (`None`: the id names no action).
    fn action_name(&self, id: i64) -> Option<String> {
        ActionId::try_from(id).ok().and_then(|id| self.spec.action_name(id))
    }

    /// A new game with every random fact drawn from `seed`.
    #[pyo3(signature = (seed=0))]
    fn new_game(&self, seed: u64) -> State {
        self.state(self.spec.new_game(seed))
    }

    /// A game set up from a YAML scenario (a position; `seed` draws what it leaves out).
    fn scenario(&self, seed: u64, yaml: &str) -> PyResult<State> {
        Ok(self.state(self.spec.scenario(seed, yaml).map_err(value_error)?))
    }

    /// A full state consistent with `seat`'s observation (a dict, as `State.observation`
    /// gives it), built from the observation alone, every fact hidden from the seat (and the
    /// generator of future chance) drawn from `seed`: the honest forward model for search.
    /// `seat` (default: the observation's own) must be the seat whose observation it is:
    /// another seat's is refused (`ValueError`).
    #[pyo3(name = "from_observation", signature = (observation, seat=None, seed=0))]
    fn rebuild(&self, observation: &Bound<'_, PyAny>, seat: Option<usize>, seed: u64) -> PyResult<State> {
        let json = to_json(observation)?;
        let whose = json.get("seat").and_then(|s| s.as_u64()).map(|s| s as usize);
        let seat = match (seat, whose) {
            (Some(asked), Some(whose)) if asked != whose => {
                return Err(value_error(format!(
                    "seat {asked}: this is seat {whose}'s observation (a state for seat {asked} is built from seat {asked}'s)"
                )));
            }
            (Some(s), _) | (None, Some(s)) => s,
            (None, None) => return Err(value_error("the observation names no seat: pass `seat`")),
        };
        let base = self.spec.state_from_observation(&json).map_err(value_error)?;
        let seat = seat_of(base.seats(), seat)?;
        Ok(self.state(base.redraw_hidden(seat, &mut rng(seed))))
    }

    /// Random play of `games` games from seeds `first_seed..` inside the engine (no Python
    /// per move): the number of actions applied. A yardstick for benchmarks.
    fn random_playouts(&self, py: Python<'_>, first_seed: u64, games: u64) -> u64 {
        py.detach(|| self.spec.random_playouts(first_seed, games))
    }

    fn __repr__(&self) -> String {
        format!("<tabletop_arena.Game {} with {} seats>", self.spec.game(), self.spec.seats())
    }
}

/// The seat numbered `seat`, if a game of `seats` seats has it.
fn seat_of(seats: usize, seat: usize) -> PyResult<Seat> {
    if seat < seats {
        Ok(Seat(seat as u8))
    } else {
        Err(value_error(format!("seat {seat}: this game has seats 0 to {}", seats - 1)))
    }
}

/// One position of a game, with the generator of its chance events: cloning it and applying
/// the same actions gives the same game.
#[pyclass(module = "tabletop_arena")]
struct State {
    game: Box<dyn AnyGame>,
    spec: Arc<dyn AnySpec>,
}

#[pymethods]
impl State {
    /// The number of seats.
    #[getter]
    fn seats(&self) -> usize {
        self.game.seats()
    }

    /// The seat to move; `None` once the game is over.
    fn to_move(&self) -> Option<u8> {
        self.game.to_move().map(|s| s.0)
    }

    fn is_over(&self) -> bool {
        self.game.is_terminal()
    }

    /// The legal action ids, in a stable order; empty once the game is over.
    fn legal_actions(&self) -> Vec<ActionId> {
        let mut out = Vec::new();
        self.game.legal_actions(&mut out);
        out
    }

    /// The legal actions as a numpy `int8` mask over the action-id range.
    fn legal_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut mask = vec![0i8; self.spec.action_count() as usize];
        for a in self.legal_actions() {
            mask[a as usize] = 1;
        }
        Ok(mask.into_pyarray(py).into_any())
    }

    /// A readable label for an action id, e.g. `strike 7♦`; `ValueError` for an id that names
    /// no action of the game.
    fn action_label(&self, id: i64) -> PyResult<String> {
        match ActionId::try_from(id).ok().filter(|&a| self.spec.action_name(a).is_some()) {
            Some(id) => Ok(self.game.action_label(id)),
            None => Err(value_error(format!(
                "action id {id} names no action of {} (ids run from 0 to {})",
                self.spec.game(),
                self.spec.action_count() - 1
            ))),
        }
    }

    /// Apply one action; an illegal or unknown id raises `ValueError` and changes nothing.
    fn apply(&mut self, id: i64) -> PyResult<()> {
        let id =
            ActionId::try_from(id).map_err(|_| value_error(format!("action id {id} names no action of this game")))?;
        self.game.apply(id).map_err(|e: ActionError| value_error(e))
    }

    /// An independent copy (a state's clone is a memcpy in the engine).
    fn clone(&self) -> State {
        State { game: self.game.clone_box(), spec: self.spec.clone() }
    }

    fn __copy__(&self) -> State {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> State {
        self.clone()
    }

    /// Once over: `{"scores": [...], "ranks": [...], "achieved": [...]}` (rank 0 is first;
    /// equal ranks tie); `None` before.
    fn outcome<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(o) = self.game.outcome() else { return Ok(None) };
        let d = PyDict::new(py);
        d.set_item("scores", o.scores)?;
        d.set_item("ranks", o.ranks.into_iter().map(u32::from).collect::<Vec<_>>())?;
        d.set_item("achieved", o.achieved)?;
        Ok(Some(d))
    }

    /// Game-specific figures (e.g. journey's `arrived`), by name.
    fn metrics(&self) -> Vec<(&'static str, f64)> {
        self.game.metrics().into_iter().map(|m| (m.name, m.value)).collect()
    }

    /// Exactly what `seat` may know now, as a dict (the engine's observation).
    fn observation<'py>(&self, py: Python<'py>, seat: usize) -> PyResult<Bound<'py, PyAny>> {
        let seat = seat_of(self.game.seats(), seat)?;
        from_json(py, &self.game.observation_json(seat).to_string())
    }

    /// The observation as text a person can read.
    fn observation_text(&self, seat: usize) -> PyResult<String> {
        Ok(self.game.observation_text(seat_of(self.game.seats(), seat)?))
    }

    /// What anyone watching may know, holding no seat (a spectator's view: what every seat
    /// sees, `watcher` set), as a dict.
    fn public_observation<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        from_json(py, &self.game.public_observation_json().to_string())
    }

    /// The public observation as text.
    fn public_observation_text(&self) -> String {
        self.game.public_observation_text()
    }

    /// The observation as a numpy `float32` vector of `Game.tensor_shape` (fields as in
    /// `Game.tensor_fields`), built from the observation alone.
    fn observation_tensor<'py>(&self, py: Python<'py>, seat: usize) -> PyResult<Bound<'py, PyAny>> {
        let seat = seat_of(self.game.seats(), seat)?;
        Ok(self.game.observation_tensor(seat).into_pyarray(py).into_any())
    }

    /// A state `seat` cannot tell from this one: every fact hidden from the seat, and the
    /// generator of future chance, drawn from `seed`.
    fn redraw_hidden(&self, seat: usize, seed: u64) -> PyResult<State> {
        let seat = seat_of(self.game.seats(), seat)?;
        Ok(State { game: self.game.redraw_hidden(seat, &mut rng(seed)), spec: self.spec.clone() })
    }

    fn __repr__(&self) -> String {
        match self.game.to_move() {
            Some(s) => format!("<tabletop_arena.State of {}: seat {} to move>", self.game.name(), s.0),
            None => format!("<tabletop_arena.State of {}: over>", self.game.name()),
        }
    }
}

/// The game `name` with its parameters: a preset, then a YAML mapping, then `KEY=VALUE` pairs
/// (values read as YAML scalars). A file a parameter names (expedition's `content`) is read
/// from disk.
#[pyfunction]
#[pyo3(signature = (name, preset=None, yaml=None, params=Vec::new()))]
fn load(name: &str, preset: Option<&str>, yaml: Option<String>, params: Vec<(String, String)>) -> PyResult<Game> {
    let entry = engine::find_game(name).map_err(value_error)?;
    let mut sources = Vec::new();
    if let Some(text) = yaml {
        sources.push(ParamSource::Yaml { name: "parameters".into(), text });
    }
    sources.extend(params.into_iter().map(|(key, value)| ParamSource::KeyValue { key, value }));
    let read = |path: &str| std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"));
    let spec = (entry.spec)(preset, &sources, &read).map_err(value_error)?;
    Ok(Game { spec: Arc::from(spec) })
}

/// Every game: `(name, summary, presets, default preset, cooperative)`.
#[pyfunction]
fn games() -> Vec<(&'static str, &'static str, Vec<&'static str>, &'static str, bool)> {
    engine::games().iter().map(|g| (g.name, g.summary, g.presets.to_vec(), g.default_preset, g.cooperative)).collect()
}

/// A typed observation from the wire (a serialised `tabletop.arena.v1.Observation`) as the
/// engine's: `(game, observation as JSON text)`.
#[pyfunction]
fn observation_from_wire(message: &[u8]) -> PyResult<(&'static str, String)> {
    let typed = proto::v1::Observation::decode(message).map_err(value_error)?;
    let (game, json, _) = proto::convert::observation_from_proto(&typed).map_err(value_error)?;
    Ok((game, json.to_string()))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Game>()?;
    m.add_class::<State>()?;
    m.add_class::<batch::Batch>()?;
    m.add_class::<batch::Bot>()?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(games, m)?)?;
    m.add_function(wrap_pyfunction!(batch::batch_seeds, m)?)?;
    m.add_function(wrap_pyfunction!(observation_from_wire, m)?)?;
    m.add("CONTRACT", CONTRACT)?;
    Ok(())
}
