//! What an agent is given at one of its decisions: its seat's view, and nothing more.
//!
//! A [`SeatView`] never hands out the game state. In process it holds the state privately and
//! answers only with what the seat may know (its observation, the legal actions and their
//! labels); across a wire it holds only what the server sent. The one way to reason about
//! hidden facts is a [`Sampler`], built from the observation alone, which yields full states
//! consistent with it — forward models the agent may play out. So an in-process agent and the
//! same agent across the wire see the same things, sample the same states and choose the same
//! actions, and a leak has nowhere to hide.

use engine::core::{ActionId, AnyGame, Dyn, Game, Seat, SmallRng};
use std::time::Duration;

/// How long an agent may think.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Budget {
    /// Time allowed for this decision in all (its per-move limit, and what is left in an
    /// overage bank), if any.
    pub per_move: Option<Duration>,
    /// How much of `per_move` is the seat's overage bank: a reserve for the moves that need
    /// more than their share, drawn on by the time past the per-move limit, and not given back.
    pub bank: Option<Duration>,
}

impl Budget {
    /// A per-move limit alone (or none).
    pub fn per_move(limit: Option<Duration>) -> Budget {
        Budget { per_move: limit, bank: None }
    }

    /// This decision's own share: the time allowed, less the bank (what an agent that keeps
    /// its bank for the moves that need it plans to spend).
    pub fn share(&self) -> Option<Duration> {
        self.per_move.map(|p| p.saturating_sub(self.bank.unwrap_or_default()))
    }
}

/// What the server sent for one decision: the observation (JSON), its text, and the labels of
/// the legal actions (same order as the ids).
#[derive(Clone, Debug, PartialEq)]
pub struct WireView {
    pub observation: serde_json::Value,
    pub text: String,
    pub labels: Vec<String>,
    /// The observation tensor, when the server sent it.
    pub tensor: Vec<f32>,
}

enum Source<'a> {
    /// In process: the state, reachable only through the seat's own view.
    Local(&'a dyn AnyGame),
    /// Across a wire: what the server sent.
    Wire(&'a WireView),
}

/// One seat's view at one of its decisions.
pub struct SeatView<'a> {
    seat: Seat,
    legal: &'a [ActionId],
    budget: Budget,
    source: Source<'a>,
}

impl<'a> SeatView<'a> {
    /// The view of `seat` in an in-process game (`legal` as the game lists them).
    pub fn local(game: &'a dyn AnyGame, seat: Seat, legal: &'a [ActionId], budget: Budget) -> Self {
        SeatView { seat, legal, budget, source: Source::Local(game) }
    }

    /// The view of `seat` from what a server sent.
    pub fn wire(view: &'a WireView, seat: Seat, legal: &'a [ActionId], budget: Budget) -> Self {
        SeatView { seat, legal, budget, source: Source::Wire(view) }
    }

    pub fn seat(&self) -> Seat {
        self.seat
    }

    /// The legal actions, never empty.
    pub fn legal(&self) -> &[ActionId] {
        self.legal
    }

    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// A readable label of a legal action.
    pub fn label(&self, action: ActionId) -> String {
        match self.source {
            Source::Local(g) => g.action_label(action),
            Source::Wire(w) => match self.legal.iter().position(|&a| a == action) {
                Some(i) => w.labels.get(i).cloned().unwrap_or_else(|| format!("action {action}")),
                None => format!("action {action}"),
            },
        }
    }

    /// The section of the game's rules that says what `action` does (its heading's id in
    /// `docs/rules/GAME.md`), in process; across a wire, what the server sent.
    pub fn section(&self, action: ActionId) -> Option<&'static str> {
        match self.source {
            Source::Local(g) => g.action_section(action),
            Source::Wire(_) => None,
        }
    }

    /// What `action` acts on, as a drawing of the observation names it (`column:2`,
    /// `satchel:7♦`), in process; across a wire, what the server sent.
    pub fn target(&self, action: ActionId) -> Option<String> {
        match self.source {
            Source::Local(g) => g.action_target(action),
            Source::Wire(_) => None,
        }
    }

    /// The seat's observation as JSON.
    pub fn observation_json(&self) -> serde_json::Value {
        match self.source {
            Source::Local(g) => g.observation_json(self.seat),
            Source::Wire(w) => w.observation.clone(),
        }
    }

    /// The seat's observation as numbers (see `Game::observation_tensor`; across a wire, what
    /// the server sent, empty unless asked for).
    pub fn observation_tensor(&self) -> Vec<f32> {
        match self.source {
            Source::Local(g) => g.observation_tensor(self.seat),
            Source::Wire(w) => w.tensor.clone(),
        }
    }

    /// The seat's observation as text a person can read.
    pub fn observation_text(&self) -> String {
        match self.source {
            Source::Local(g) => g.observation_text(self.seat),
            Source::Wire(w) => w.text.clone(),
        }
    }

    /// The seat's observation, typed. In process it is taken from the game directly; from a
    /// wire it is read from the JSON (the same value: observations cross a wire unchanged).
    pub fn observation<G: Game>(&self) -> Result<G::Observation, String> {
        match self.source {
            Source::Local(g) => match g.as_any().downcast_ref::<Dyn<G>>() {
                Some(d) => Ok(d.0.observation(self.seat)),
                None => Err(format!("this view is of {}, not {}", g.name(), G::NAME)),
            },
            Source::Wire(w) => serde_json::from_value(w.observation.clone())
                .map_err(|e| format!("the observation is not one of {}: {e}", G::NAME)),
        }
    }

    /// A sampler of full states consistent with this view's observation.
    pub fn sampler<G: Game>(&self, params: &G::Params) -> Result<Sampler<G>, String> {
        Sampler::new(params, &self.observation::<G>()?, self.seat)
    }
}

/// Full states consistent with one seat's observation, each with every hidden fact (and the
/// generator of future chance) drawn afresh. Built from the observation alone.
pub struct Sampler<G: Game> {
    base: G,
    seat: Seat,
    sight: Sight,
}

/// What a sampler's states keep of the state it was built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sight {
    /// The seat's observation alone: every hidden fact and future chance drawn afresh (every
    /// agent's sampler).
    Honest,
    /// Every fact, hidden ones included; future chance drawn afresh.
    Cards,
    /// Every fact and the future chance as it stands: the state itself.
    Future,
}

impl<G: Game> Sampler<G> {
    pub fn new(params: &G::Params, observation: &G::Observation, seat: Seat) -> Result<Self, String> {
        Ok(Sampler { base: G::from_observation(params, observation)?, seat, sight: Sight::Honest })
    }

    /// A sampler that sees more than `seat` may, built from a full `state`: to measure what
    /// information is worth to a search (the `ceiling` example). No agent can build one, since
    /// a [`SeatView`] never gives out the state.
    pub fn seeing(state: G, seat: Seat, sight: Sight) -> Self {
        Sampler { base: state, seat, sight }
    }

    /// One state the seat cannot tell from the real one.
    pub fn sample(&self, rng: &mut SmallRng) -> G {
        match self.sight {
            Sight::Honest => self.base.redraw_hidden(self.seat, rng),
            Sight::Cards => self.base.redraw_chance(rng),
            Sight::Future => self.base.clone(),
        }
    }

    /// One such state to be played once (a search iteration): the same distribution of play
    /// as [`Sampler::sample`], its face-down cards drawn only as play reaches them
    /// (`Game::redraw_to_play`), so that it costs what it plays.
    pub fn sample_to_play(&self, rng: &mut SmallRng) -> G {
        match self.sight {
            Sight::Honest => self.base.redraw_to_play(self.seat, rng),
            _ => self.sample(rng),
        }
    }

    pub fn seat(&self) -> Seat {
        self.seat
    }

    /// The state the samples are drawn from: for an honest sampler, rebuilt from the seat's
    /// observation, its hidden facts in an order of no meaning (what the seat knows, no more).
    pub fn state(&self) -> &G {
        &self.base
    }

    /// The number of seats at the table.
    pub fn seats(&self) -> usize {
        self.base.seats()
    }
}
