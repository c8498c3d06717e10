//! Games behind object-safe traits, for callers that choose the game at run time (the CLI,
//! the server): a [`GameEntry`] names a game and resolves its parameters into an [`AnySpec`];
//! the list of entries is above the games (`engine::games`). Hot loops use the concrete
//! [`Game`] types instead.

use super::{
    ActionError, ActionId, Game, GameParams, Outcome, ParamError, ParamFields, ParamInfo, ParamSource, Record, Seat,
    SmallRng, resolve_params, tensor_size,
};
use rand::{RngExt, SeedableRng};
use serde::Deserialize;
use std::marker::PhantomData;

/// A named figure of a finished game, for summaries.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Metric {
    pub name: &'static str,
    pub value: f64,
    /// What the figure is: a yes/no per game (summarised as a rate) or a quantity.
    pub kind: MetricKind,
}

/// How a figure is summarised over games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MetricKind {
    /// 0 or 1 per game: summarised as a rate with a Wilson interval.
    Rate,
    /// A count or quantity: summarised as a mean with its interval.
    Count,
}

impl Metric {
    /// A yes/no figure of one game (e.g. `arrived`).
    pub fn rate(name: &'static str, yes: bool) -> Metric {
        Metric { name, value: f64::from(u8::from(yes)), kind: MetricKind::Rate }
    }
    /// A quantity of one game (e.g. `turns`).
    pub fn count(name: &'static str, value: impl Into<f64>) -> Metric {
        Metric { name, value: value.into(), kind: MetricKind::Count }
    }
}

/// A finished play's figures ([`Game::metrics`]) by name: as the game reports them, or as a
/// record keeps them (name and value), so that what is read from them — a cooperative play's
/// rank, [`Game::play_key`] — is the same for a play just finished and one logged long ago.
pub trait Figures {
    /// The figure `name`, if the play has it.
    fn figure(&self, name: &str) -> Option<f64>;
}

impl Figures for [Metric] {
    fn figure(&self, name: &str) -> Option<f64> {
        self.iter().find(|m| m.name == name).map(|m| m.value)
    }
}

impl Figures for Vec<Metric> {
    fn figure(&self, name: &str) -> Option<f64> {
        self.as_slice().figure(name)
    }
}

impl Figures for std::collections::BTreeMap<String, f64> {
    fn figure(&self, name: &str) -> Option<f64> {
        self.get(name).copied()
    }
}

/// A game state behind a trait object.
pub trait AnyGame: Send + Sync {
    fn name(&self) -> &'static str;
    fn seats(&self) -> usize;
    fn to_move(&self) -> Option<Seat>;
    fn legal_actions(&self, out: &mut Vec<ActionId>);
    fn apply(&mut self, action: ActionId) -> Result<(), ActionError>;
    fn is_terminal(&self) -> bool;
    fn outcome(&self) -> Option<Outcome>;
    fn action_label(&self, action: ActionId) -> String;
    fn action_section(&self, action: ActionId) -> Option<&'static str>;
    fn action_target(&self, action: ActionId) -> Option<String>;
    fn observation_json(&self, seat: Seat) -> serde_json::Value;
    fn observation_text(&self, seat: Seat) -> String;
    /// [`Game::public_observation`] as JSON, and as text.
    fn public_observation_json(&self) -> serde_json::Value;
    fn public_observation_text(&self) -> String;
    fn determinize(&self, seat: Seat, rng: &mut SmallRng) -> Box<dyn AnyGame>;
    /// A state `seat` cannot tell from this one (see [`Game::redraw_hidden`]).
    fn redraw_hidden(&self, seat: Seat, rng: &mut SmallRng) -> Box<dyn AnyGame>;
    fn clone_box(&self) -> Box<dyn AnyGame>;
    fn metrics(&self) -> Vec<Metric>;
    /// The seat's observation as numbers (see [`Game::observation_tensor`]).
    fn observation_tensor(&self, seat: Seat) -> Vec<f32>;
    /// The same numbers written into `out`, whose length is the layout's size (a batch's row).
    fn write_observation_tensor(&self, seat: Seat, out: &mut [f32]);
    /// The tensor written from the seat's whole observation ([`Game::observation`]), as one
    /// rebuilt from the wire's: the same numbers as [`AnyGame::observation_tensor`], which a
    /// game may write from a lighter view or from the state ([`Game::write_tensor`]).
    fn observation_tensor_from_view(&self, seat: Seat) -> Vec<f32>;
    /// The concrete game (a [`Dyn<G>`]), for callers that work with the typed API.
    fn as_any(&self) -> &dyn std::any::Any;
    /// Is `other` the same game in the same state, hidden facts and random generator
    /// included (so that both play on alike)?
    fn same_state(&self, other: &dyn AnyGame) -> bool;
}

/// An observation's tensor, in a vector of its layout's size.
fn tensor_of<G: Game>(params: &G::Params, observation: &G::Observation) -> Vec<f32> {
    let mut out = vec![0.0; tensor_size(&G::tensor_layout(params))];
    G::observation_tensor(params, observation, &mut out);
    out
}

/// A concrete game behind [`AnyGame`] (a wrapper, so the two traits' methods never clash).
#[derive(Clone)]
pub struct Dyn<G: Game>(pub G);

impl<G: Game> AnyGame for Dyn<G> {
    fn name(&self) -> &'static str {
        G::NAME
    }
    fn seats(&self) -> usize {
        self.0.seats()
    }
    fn to_move(&self) -> Option<Seat> {
        self.0.to_move()
    }
    fn legal_actions(&self, out: &mut Vec<ActionId>) {
        self.0.legal_actions(out)
    }
    fn apply(&mut self, action: ActionId) -> Result<(), ActionError> {
        self.0.apply(action)
    }
    fn is_terminal(&self) -> bool {
        self.0.is_terminal()
    }
    fn outcome(&self) -> Option<Outcome> {
        self.0.outcome()
    }
    fn action_label(&self, action: ActionId) -> String {
        self.0.action_label(action)
    }
    fn action_section(&self, action: ActionId) -> Option<&'static str> {
        self.0.action_section(action)
    }
    fn action_target(&self, action: ActionId) -> Option<String> {
        self.0.action_target(action)
    }
    fn observation_json(&self, seat: Seat) -> serde_json::Value {
        serde_json::to_value(self.0.observation(seat)).unwrap_or(serde_json::Value::Null)
    }
    fn observation_text(&self, seat: Seat) -> String {
        self.0.observation_text(seat)
    }
    fn public_observation_json(&self) -> serde_json::Value {
        serde_json::to_value(self.0.public_observation()).unwrap_or(serde_json::Value::Null)
    }
    fn public_observation_text(&self) -> String {
        self.0.public_observation_text()
    }
    fn determinize(&self, seat: Seat, rng: &mut SmallRng) -> Box<dyn AnyGame> {
        Box::new(Dyn(self.0.determinize(seat, rng)))
    }
    fn redraw_hidden(&self, seat: Seat, rng: &mut SmallRng) -> Box<dyn AnyGame> {
        Box::new(Dyn(self.0.redraw_hidden(seat, rng)))
    }
    fn clone_box(&self) -> Box<dyn AnyGame> {
        Box::new(self.clone())
    }
    fn metrics(&self) -> Vec<Metric> {
        self.0.metrics()
    }
    fn observation_tensor(&self, seat: Seat) -> Vec<f32> {
        let mut out = vec![0.0; tensor_size(&G::tensor_layout(self.0.params()))];
        self.0.write_tensor(seat, &mut out);
        out
    }
    fn write_observation_tensor(&self, seat: Seat, out: &mut [f32]) {
        self.0.write_tensor(seat, out)
    }
    fn observation_tensor_from_view(&self, seat: Seat) -> Vec<f32> {
        tensor_of::<G>(self.0.params(), &self.0.observation(seat))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn same_state(&self, other: &dyn AnyGame) -> bool {
        other.as_any().downcast_ref::<Dyn<G>>().is_some_and(|o| o.0 == self.0)
    }
}

/// A game with its parameters resolved: a factory of games.
pub trait AnySpec: Send + Sync {
    fn game(&self) -> &'static str;
    /// The version of the game's rules (see [`Game::RULES_VERSION`]).
    fn rules_version(&self) -> u32;
    fn seats(&self) -> usize;
    /// Every parameter, explicitly.
    fn params_yaml(&self) -> serde_yaml::Value;
    fn describe(&self) -> Vec<ParamInfo>;
    /// The fields of an observation tensor (see [`Game::tensor_layout`]).
    fn tensor_layout(&self) -> Vec<super::TensorField>;
    /// How a finished play ranks among plays of the same deal, from its outcome and its
    /// figures (see [`Game::play_key`]): compare two plays' keys, higher is better.
    fn play_key(&self, outcome: &Outcome, figures: &dyn Figures) -> Vec<f64>;
    /// What [`AnySpec::play_key`] compares, in words (see [`Game::PLAY_ORDER`]).
    fn play_order(&self) -> &'static str;
    /// Action ids run from 0 to this (exclusive).
    fn action_count(&self) -> u32;
    /// The action an id names, in any state.
    fn action_name(&self, id: ActionId) -> Option<String>;
    fn new_game(&self, seed: u64) -> Box<dyn AnyGame>;
    /// A game set up from a YAML scenario.
    fn scenario(&self, seed: u64, yaml: &str) -> Result<Box<dyn AnyGame>, String>;
    /// A full state rebuilt from one seat's observation alone, given as JSON (as
    /// [`AnyGame::observation_json`] writes it), the hidden facts in a fixed arrangement:
    /// follow with [`AnyGame::redraw_hidden`] (see [`Game::from_observation`]). For callers
    /// outside Rust, which hold observations as data.
    fn state_from_observation(&self, observation: &serde_json::Value) -> Result<Box<dyn AnyGame>, String>;
    /// An empty record for a game of this spec, dealt from `seed` (and from `scenario`, a
    /// YAML position, if given).
    fn record(&self, seed: u64, scenario: Option<&str>) -> Record {
        Record {
            game: self.game().to_string(),
            rules_version: self.rules_version(),
            params: self.params_yaml(),
            seed,
            scenario: scenario.map(str::to_string),
            actions: Vec::new(),
        }
    }
    /// Random play of `games` games from seeds `first_seed..`, with static dispatch:
    /// returns the number of actions applied. The hot loop of the benchmark.
    fn random_playouts(&self, first_seed: u64, games: u64) -> u64;
    /// Clone one mid-game state `n` times (a benchmark of state cloning); returns a
    /// checksum so the work cannot be optimised away.
    fn clone_many(&self, seed: u64, n: u64) -> u64;
    /// The concrete spec (a [`Spec<G>`]), for callers that work with the typed API.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// The parameters of game `G`, resolved and loaded: the concrete [`AnySpec`].
pub struct Spec<G: Game> {
    params: G::Params,
    _game: PhantomData<fn() -> G>,
}

impl<G: Game> Spec<G> {
    pub fn new(params: G::Params) -> Self {
        Spec { params, _game: PhantomData }
    }
    pub fn params(&self) -> &G::Params {
        &self.params
    }
}

/// Play one game with uniformly random actions drawn from `rng`; returns the actions taken.
pub fn random_playout<G: Game>(game: &mut G, rng: &mut SmallRng, buf: &mut Vec<ActionId>) -> u64 {
    let mut n = 0;
    loop {
        buf.clear();
        game.legal_actions(buf);
        if buf.is_empty() {
            return n;
        }
        let a = buf[rng.random_range(0..buf.len())];
        game.apply(a).expect("a listed action is legal");
        n += 1;
    }
}

impl<G: Game> AnySpec for Spec<G> {
    fn game(&self) -> &'static str {
        G::NAME
    }
    fn rules_version(&self) -> u32 {
        G::RULES_VERSION
    }
    fn seats(&self) -> usize {
        Game::seats(&G::new(&self.params, 0))
    }
    fn params_yaml(&self) -> serde_yaml::Value {
        serde_yaml::to_value(&self.params).expect("parameters serialise")
    }
    fn describe(&self) -> Vec<ParamInfo> {
        self.params.describe()
    }
    fn tensor_layout(&self) -> Vec<super::TensorField> {
        G::tensor_layout(&self.params)
    }
    fn play_key(&self, outcome: &Outcome, figures: &dyn Figures) -> Vec<f64> {
        G::play_key(outcome, figures)
    }
    fn play_order(&self) -> &'static str {
        G::PLAY_ORDER
    }
    fn action_count(&self) -> u32 {
        G::action_count(&self.params)
    }
    fn action_name(&self, id: ActionId) -> Option<String> {
        G::action_name(&self.params, id)
    }
    fn new_game(&self, seed: u64) -> Box<dyn AnyGame> {
        Box::new(Dyn(G::new(&self.params, seed)))
    }
    fn scenario(&self, seed: u64, yaml: &str) -> Result<Box<dyn AnyGame>, String> {
        super::yaml::check_file(yaml).map_err(|e| format!("scenario: {e}"))?;
        let de = serde_yaml::Deserializer::from_str(yaml);
        let scenario: G::Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            format!("scenario: {}", super::describe_yaml_error(yaml, &path, &e.into_inner().to_string()))
        })?;
        Ok(Box::new(Dyn(G::from_scenario(&self.params, seed, scenario)?)))
    }
    fn state_from_observation(&self, observation: &serde_json::Value) -> Result<Box<dyn AnyGame>, String> {
        let observation = G::Observation::deserialize(observation)
            .map_err(|e| format!("this is not an observation of {}: {e}", G::NAME))?;
        Ok(Box::new(Dyn(G::from_observation(&self.params, &observation)?)))
    }
    fn random_playouts(&self, first_seed: u64, games: u64) -> u64 {
        let mut rng = SmallRng::seed_from_u64(first_seed ^ 0x5eed_5eed);
        let mut buf = Vec::with_capacity(64);
        let mut actions = 0;
        for s in first_seed..first_seed + games {
            let mut g = G::new(&self.params, s);
            actions += random_playout(&mut g, &mut rng, &mut buf);
        }
        actions
    }
    fn clone_many(&self, seed: u64, n: u64) -> u64 {
        let mut g = G::new(&self.params, seed);
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut buf = Vec::new();
        // Walk a few moves in, so the state is a mid-game one.
        for _ in 0..10 {
            buf.clear();
            g.legal_actions(&mut buf);
            if buf.is_empty() {
                break;
            }
            let a = buf[rng.random_range(0..buf.len())];
            g.apply(a).expect("a listed action is legal");
        }
        let mut sum = 0u64;
        for _ in 0..n {
            let c = std::hint::black_box(&g).clone();
            sum = sum.wrapping_add(std::hint::black_box(&c).is_terminal() as u64 + 1);
        }
        sum
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Build a spec for game type `G`.
pub fn spec_of<G: Game>(
    preset: Option<&str>,
    sources: &[ParamSource],
    load: &dyn Fn(&str) -> Result<String, String>,
) -> Result<Box<dyn AnySpec>, ParamError> {
    let mut params: G::Params = resolve_params(preset, sources)?;
    params.load_assets(load)?;
    Ok(Box::new(Spec::<G>::new(params)))
}

/// Resolve parameters (a preset, then sources in order), loading what they name through the
/// given reader of files.
pub type SpecFn =
    fn(Option<&str>, &[ParamSource], &dyn Fn(&str) -> Result<String, String>) -> Result<Box<dyn AnySpec>, ParamError>;

/// A game the registry knows.
pub struct GameEntry {
    pub name: &'static str,
    pub summary: &'static str,
    pub presets: &'static [&'static str],
    pub default_preset: &'static str,
    /// The parameter that sets the number of seats.
    pub seats_param: &'static str,
    /// All seats play as one team (see [`Game::COOPERATIVE`]).
    pub cooperative: bool,
    /// Resolve parameters (preset, then sources in order) and load what they name.
    pub spec: SpecFn,
}

impl GameEntry {
    pub const fn of<G: Game>(summary: &'static str) -> GameEntry {
        GameEntry {
            name: G::NAME,
            summary,
            presets: <G::Params as GameParams>::PRESETS,
            default_preset: <G::Params as GameParams>::DEFAULT_PRESET,
            seats_param: G::SEATS_PARAM,
            cooperative: G::COOPERATIVE,
            spec: spec_of::<G>,
        }
    }
}
