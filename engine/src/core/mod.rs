//! The common core every game stands on: seats, action ids, outcomes, the [`Game`]
//! trait, parameters, fixed-capacity piles, game records and the registry's object-safe
//! traits.

mod params;
mod pile;
mod record;
mod registry;
mod tensor;
pub mod yaml;

use std::fmt;

pub use params::{
    Bounded, GameParams, ParamError, ParamFields, ParamInfo, ParamSource, describe_yaml_error, params_to_yaml,
    resolve_params, yaml11_bool_word,
};
pub use pile::{DrawPile, Pile, redraw_shuffle};
pub use rand::rngs::SmallRng;
pub use record::{Record, ReplayError};
pub use registry::{AnyGame, AnySpec, Dyn, Figures, GameEntry, Metric, MetricKind, Spec, random_playout};
pub use tensor::{Detail, TensorField, TensorWriter, tensor_bounds, tensor_size};

/// A seat at the table: 0 is the first player (or the first traveller).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub struct Seat(pub u8);

impl Seat {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {}", self.0)
    }
}

/// A stable integer naming one action of a game: the same id means the same action in
/// every state of that game (like OpenSpiel's distinct action ids).
pub type ActionId = u32;

/// Every action id's decoding, read once (at the first look) and then looked up: agents decode
/// every legal action they weigh, and a match over a game's id ranges is an indirect jump the
/// processor mispredicts as the actions vary. Ids `0..count`, each as `read` reads it; past
/// them, none.
pub struct ActionTable<A: 'static> {
    count: u32,
    read: fn(ActionId) -> Option<A>,
    table: std::sync::OnceLock<Box<[Option<A>]>>,
}

impl<A: Copy + Send + Sync> ActionTable<A> {
    pub const fn new(count: u32, read: fn(ActionId) -> Option<A>) -> Self {
        ActionTable { count, read, table: std::sync::OnceLock::new() }
    }

    /// The action `id` names: `read(id)`, looked up.
    #[inline]
    pub fn get(&self, id: ActionId) -> Option<A> {
        self.table.get_or_init(|| (0..self.count).map(self.read).collect()).get(id as usize).copied().flatten()
    }
}

/// Why an action was refused. The state is unchanged when this is returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActionError {
    /// The game is over: nothing can be applied.
    GameOver,
    /// The id names no action of this game.
    Unknown(ActionId),
    /// The id names an action that is not legal now.
    Illegal { id: ActionId, label: String },
}

impl fmt::Display for ActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ActionError::GameOver => write!(f, "the game is over: no action can be applied"),
            ActionError::Unknown(id) => write!(f, "action id {id} names no action of this game"),
            ActionError::Illegal { id, label } => write!(f, "action {id} ({label}) is not legal now"),
        }
    }
}

impl std::error::Error for ActionError {}

/// The result of a finished game: a score and a rank per seat (rank 0 is first; equal
/// ranks are ties), and what each seat achieved in the game's own words (a cooperative game's
/// seats share the team's score and rank, and differ only there: `arrived`, `fallen`, ...).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    pub scores: Vec<i32>,
    pub ranks: Vec<u8>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub achieved: Vec<String>,
}

impl Outcome {
    /// Ranks from scores and a tie-break key (higher is better for both).
    pub fn ranked(scores: Vec<i32>, tie_break: impl Fn(usize) -> i32) -> Outcome {
        let ranks = (0..scores.len())
            .map(|i| (0..scores.len()).filter(|&j| (scores[j], tie_break(j)) > (scores[i], tie_break(i))).count() as u8)
            .collect();
        Outcome { scores, ranks, achieved: Vec::new() }
    }
}

/// One game's rules. A state is a complete position, including the random generator that
/// deals its chance events, so cloning a state and applying the same actions gives the
/// same game.
pub trait Game: Clone + PartialEq + Send + Sync + 'static {
    type Params: GameParams;
    /// What one seat may know: structured, comparable, and it crosses a wire unchanged
    /// (serialise, deserialise, compare equal). A full state can be rebuilt from it.
    type Observation: serde::Serialize + serde::de::DeserializeOwned + Clone + PartialEq + fmt::Debug + Send + Sync;
    /// A position to start from, as read from YAML.
    type Scenario: serde::de::DeserializeOwned;
    /// An action as the rules read it from its id.
    type Action: Copy;

    /// The name the registry and the CLI know the game by.
    const NAME: &'static str;
    /// The parameter that sets the number of seats (`--players` on the command line).
    const SEATS_PARAM: &'static str;
    /// All seats play as one team (every seat gets the same score and rank): plays of the
    /// same deal are compared with one another, not seats within a game.
    const COOPERATIVE: bool = false;
    /// The version of the rules as implemented: raised whenever a rule changes (what is
    /// legal, what an action does, what is dealt), so that a record made under other rules
    /// is refused by name instead of replaying into a different game. The engine's
    /// `rules_version` test pins each version to a fingerprint of play.
    const RULES_VERSION: u32;

    /// A new game with every random fact drawn from `seed`.
    fn new(params: &Self::Params, seed: u64) -> Self;
    /// A game set up from a scenario: the scenario fixes what it names, `seed` draws the rest.
    fn from_scenario(params: &Self::Params, seed: u64, scenario: Self::Scenario) -> Result<Self, String>;
    fn params(&self) -> &Self::Params;
    fn seats(&self) -> usize;
    /// Whose decision it is; `None` exactly when the game is over.
    fn to_move(&self) -> Option<Seat>;
    /// The legal actions now, in a stable order; empty exactly when the game is over.
    fn legal_actions(&self, out: &mut Vec<ActionId>);
    /// The action `id` names, or `None` when it names no action of this game.
    fn decode(&self, id: ActionId) -> Option<Self::Action>;
    /// Whether `action` (named by `id`) is among the legal actions now. Asked only before
    /// the end; each game lists in its own cheap way.
    fn is_listed(&self, id: ActionId, action: Self::Action) -> bool;
    /// Play `action`, known to be legal.
    fn perform(&mut self, action: Self::Action);
    /// Apply one action. An illegal or unknown id is an error and changes nothing.
    fn apply(&mut self, id: ActionId) -> Result<(), ActionError> {
        if self.is_terminal() {
            return Err(ActionError::GameOver);
        }
        let action = self.decode(id).ok_or(ActionError::Unknown(id))?;
        if !self.is_listed(id, action) {
            return Err(ActionError::Illegal { id, label: self.action_label(id) });
        }
        self.perform(action);
        Ok(())
    }
    fn is_terminal(&self) -> bool {
        self.to_move().is_none()
    }
    /// Scores and ranks, once the game is over.
    fn outcome(&self) -> Option<Outcome>;
    /// A readable label for an action id, e.g. `strike 7♦`.
    fn action_label(&self, action: ActionId) -> String;
    /// The section of the game's rules as implemented (`docs/rules/GAME.md`: its heading's
    /// id, as the web face's rules page names it) that says what the action does; `None` for
    /// an id that names no action.
    fn action_section(&self, action: ActionId) -> Option<&'static str>;
    /// What the action moves or acts on, as a drawing of the mover's observation names it:
    /// `KIND` or `KIND:WHICH` (`column:2`, `satchel:7♦`, `supply`, `end-turn`), so that a page
    /// can offer the action on the thing drawn. Several actions may share a target (a card
    /// struck or fled with). `None` for an id that names no action.
    fn action_target(&self, action: ActionId) -> Option<String>;
    /// Exactly what `seat` may know now.
    fn observation(&self, seat: Seat) -> Self::Observation;
    /// A seat's tensor ([`Game::observation_tensor`] of its observation) written into `out`:
    /// from [`Game::observation`] (the default), or by a game from a lighter view or straight
    /// from the state, to spare a learner's hot path the observation's copies. The conformance
    /// suite checks, in every position it meets, that it equals the tensor of the seat's whole
    /// observation and that redrawing what the seat cannot see leaves it alone.
    fn write_tensor(&self, seat: Seat, out: &mut [f32]) {
        Self::observation_tensor(self.params(), &self.observation(seat), out)
    }
    /// The observation as text a person can read.
    fn observation_text(&self, seat: Seat) -> String;
    /// What anyone watching the table may know, holding no seat: the facts every seat sees,
    /// none that only some see (the observation's `watcher` set). What a spectator is shown;
    /// the conformance suite checks that no seat's redraw of what it cannot see changes it.
    fn public_observation(&self) -> Self::Observation;
    /// [`Game::public_observation`] as text.
    fn public_observation_text(&self) -> String;
    /// A full state built from one seat's observation alone (OpenSpiel's "resample from
    /// infostate", in two steps): every fact the observation shows, as shown; what it hides,
    /// in some fixed arrangement — follow with [`Game::redraw_hidden`]. An observation that
    /// describes no position of this game is an error naming what is wrong.
    fn from_observation(params: &Self::Params, observation: &Self::Observation) -> Result<Self, String>;
    /// A state `seat` cannot tell from this one: every fact hidden from the seat, and the
    /// generator of future chance events, redrawn from `rng`.
    fn redraw_hidden(&self, seat: Seat, rng: &mut SmallRng) -> Self;
    /// [`Game::redraw_hidden`] for a state played once from here (a search's iteration): a
    /// game may leave face-down cards loose ([`Pile::loosen`]), each drawn at random only when
    /// play reaches it, so that a sample costs what it plays. Play from it follows the same
    /// distribution; the order of what still lies loose is not to be read (it is no order).
    fn redraw_to_play(&self, seat: Seat, rng: &mut SmallRng) -> Self {
        self.redraw_hidden(seat, rng)
    }
    /// This state with the generator of future chance alone redrawn from `rng`: every fact
    /// kept, hidden ones included (to measure what information is worth; no agent is ever
    /// given a full state).
    fn redraw_chance(&self, rng: &mut SmallRng) -> Self;
    /// A full state consistent with `seat`'s observation, the hidden facts drawn from `rng`:
    /// the state rebuilt from the observation alone, so nothing the observation does not
    /// show can reach it.
    fn determinize(&self, seat: Seat, rng: &mut SmallRng) -> Self {
        Self::from_observation(self.params(), &self.observation(seat))
            .expect("a game's own observation rebuilds a position")
            .redraw_hidden(seat, rng)
    }
    /// Game-specific figures of a finished game for summaries (e.g. `arrived`).
    fn metrics(&self) -> Vec<Metric> {
        Vec::new()
    }
    /// What [`Game::play_key`] compares, in words, for reports (`score`).
    const PLAY_ORDER: &'static str = "score";
    /// How a finished play ranks against other plays of the same deal — what a tournament and
    /// `arena compare` rank a cooperative game's plays by, as its seats share one outcome. A
    /// key, compared element by element as numbers: higher is better, the first difference
    /// decides, equal keys are a draw. Keys of one game have one length.
    ///
    /// It is read from what a record keeps of a play, its outcome and its figures
    /// ([`Game::metrics`], by name; a figure the play lacks reads as the game decides), so a
    /// logged play is ranked without replaying it, and whatever ranks plays is among the
    /// figures the game reports. The default: the first seat's score (the team's, in a
    /// cooperative game).
    fn play_key(outcome: &Outcome, figures: &dyn Figures) -> Vec<f64> {
        let _ = figures;
        vec![f64::from(outcome.scores.first().copied().unwrap_or(0))]
    }

    /// The fields of a seat's observation as numbers, under these parameters.
    fn tensor_layout(params: &Self::Params) -> Vec<TensorField>;
    /// A seat's observation as numbers (laid out by [`Game::tensor_layout`]), from the
    /// observation alone, written into `out` (the layout's size; every number written).
    fn observation_tensor(params: &Self::Params, observation: &Self::Observation, out: &mut [f32]);
    /// Action ids run from 0 to this (exclusive); not every id in the range names an action.
    fn action_count(params: &Self::Params) -> u32;
    /// What the action an id names is, in any state (`None`: the id names no action).
    fn action_name(params: &Self::Params, id: ActionId) -> Option<String>;
}

/// A generator of future chance drawn afresh from `rng`: what every redraw of a state
/// (`Game::redraw_hidden`, `Game::redraw_chance`) gives it.
pub fn fresh_chance(rng: &mut SmallRng) -> SmallRng {
    <SmallRng as rand::SeedableRng>::seed_from_u64(rand::Rng::next_u64(rng))
}

/// The seed of game number `index` of a series started from `base` (SplitMix64), so that
/// series with nearby bases share no games.
pub fn game_seed(base: u64, index: u64) -> u64 {
    let mut z = base ^ index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
