//! What crosses the wire for a seat: its typed observation and text, the legal actions with
//! their labels and as a mask, the decision request, an outcome. Built from the game only
//! through the seat's own view ([`SeatView`]).

use crate::record::MatchRecord;
use crate::referee::{MatchOutcome, Verdict, as_ms};
use bots::SeatView;
use engine::core::{ActionId, AnyGame, Dyn, Game};
use proto::convert::{self, ObservationSource};
use proto::v1;

/// A seat's view, read by the contract's conversion as its game's own observation (typed, in
/// process: no JSON in between).
struct FromView<'v, 'a>(&'v SeatView<'a>);

impl ObservationSource for FromView<'_, '_> {
    fn read<G: Game>(&self) -> Result<G::Observation, String> {
        self.0.observation::<G>()
    }
}

/// The seat's observation in game `game`, typed and as text.
pub fn observation(game: &str, view: &SeatView) -> Result<v1::Observation, String> {
    convert::observation_to_proto(game, &FromView(view), &view.observation_text())
}

/// A game's public observation (what anyone watching sees), read by the contract's conversion
/// as its game's own (typed: no JSON in between).
struct Public<'g>(&'g dyn AnyGame);

impl ObservationSource for Public<'_> {
    fn read<G: Game>(&self) -> Result<G::Observation, String> {
        match self.0.as_any().downcast_ref::<Dyn<G>>() {
            Some(d) => Ok(d.0.public_observation()),
            None => Err(format!("this game is {}, not {}", self.0.name(), G::NAME)),
        }
    }
}

/// The public observation of `game` (named `name`), typed and as text.
pub fn public_observation(name: &str, game: &dyn AnyGame) -> Result<v1::Observation, String> {
    convert::observation_to_proto(name, &Public(game), &game.public_observation_text())
}

/// The seat's observation in game `game`, typed only (its text empty).
fn typed_observation(game: &str, view: &SeatView) -> Result<v1::Observation, String> {
    convert::observation_to_proto(game, &FromView(view), "")
}

/// The view's legal actions with their labels.
pub fn legal(view: &SeatView) -> Vec<v1::LegalAction> {
    let action = |id| v1::LegalAction {
        id,
        label: view.label(id),
        rules_section: view.section(id).unwrap_or_default().to_string(),
        target: view.target(id).unwrap_or_default(),
    };
    view.legal().iter().map(|&id| action(id)).collect()
}

/// The legal actions as a bit mask over the action-id range `0..action_count`: bit `id % 8`
/// of byte `id / 8`.
pub fn legal_mask(action_count: u32, legal: &[ActionId]) -> Vec<u8> {
    let mut mask = vec![0u8; (action_count as usize).div_ceil(8)];
    for &a in legal {
        if let Some(byte) = mask.get_mut(a as usize / 8) {
            *byte |= 1 << (a % 8);
        }
    }
    mask
}

/// What a decision request carries besides the seat's view.
pub struct Asking<'a> {
    pub request_id: u64,
    pub match_id: &'a str,
    pub game: &'a str,
    /// Every parameter of the game, as YAML.
    pub params_yaml: &'a str,
    /// The match's version (server matches) or the agent's count of decisions (a tournament's
    /// seats).
    pub version: u64,
    /// The game's action-id range, when the client asked for tensors: the observation tensor
    /// and the legal mask go with the request.
    pub tensors: Option<u32>,
    /// How much of the observation goes with the request.
    pub observation: Shown,
}

/// How much of a seat's observation a client asked its requests to carry (`Hello.omit_text`,
/// `Hello.omit_observation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// Typed, and as text.
    WithText,
    /// Typed only.
    Typed,
    /// None: the legal actions (and the tensor, if asked for) alone.
    Nothing,
}

impl Shown {
    /// What a Hello asked for.
    pub fn asked(hello: &v1::Hello) -> Shown {
        match (hello.omit_observation, hello.omit_text) {
            (true, _) => Shown::Nothing,
            (false, true) => Shown::Typed,
            (false, false) => Shown::WithText,
        }
    }
}

/// The request for one decision of the seat whose view this is: its observation (typed and as
/// text, as much of it as the client asked for), the legal actions with their labels, its
/// per-move limit as the time left, and the tensor and legal mask when asked for.
pub fn decision_request(view: &SeatView, asking: Asking) -> Result<v1::DecisionRequest, String> {
    let (tensor, legal_mask) = match asking.tensors {
        Some(action_count) => (view.observation_tensor(), legal_mask(action_count, view.legal())),
        None => (Vec::new(), Vec::new()),
    };
    Ok(v1::DecisionRequest {
        request_id: asking.request_id,
        match_id: asking.match_id.to_string(),
        seat: u32::from(view.seat().0),
        game: asking.game.to_string(),
        params_yaml: asking.params_yaml.to_string(),
        observation: match asking.observation {
            Shown::WithText => Some(observation(asking.game, view)?),
            Shown::Typed => Some(typed_observation(asking.game, view)?),
            Shown::Nothing => None,
        },
        legal: legal(view),
        time_left_ms: as_ms(view.budget().per_move) as u32,
        bank_left_ms: as_ms(view.budget().bank) as u32,
        version: asking.version,
        tensor,
        legal_mask,
    })
}

/// A match's outcome as it crosses the wire, with the referee's verdicts; a cooperative
/// game's also carries the team's score.
pub fn outcome(o: &MatchOutcome, verdicts: &[Verdict], cooperative: bool) -> v1::MatchOutcome {
    v1::MatchOutcome {
        scores: o.result.scores.clone(),
        ranks: o.result.ranks.iter().map(|&r| u32::from(r)).collect(),
        verdicts: verdicts.iter().map(verdict).collect(),
        cancelled: o.cancelled,
        aborted: o.aborted,
        team_score: if cooperative { o.result.scores.first().copied() } else { None },
        achieved: o.result.achieved.clone(),
        forfeited_by: o.forfeited_by.map(|s| s as u32),
    }
}

pub fn verdict(v: &Verdict) -> v1::Verdict {
    v1::Verdict {
        seat: v.seat as u32,
        kind: v.kind.name().into(),
        detail: v.detail.clone(),
        policy: v.policy.name().into(),
        count: v.count,
        at_move: v.at_move as u32,
    }
}

/// A record as GetRecord and CancelMatch return it.
pub fn record(r: &MatchRecord, cooperative: bool) -> Result<v1::MatchRecord, String> {
    Ok(v1::MatchRecord {
        game: r.game.game.clone(),
        rules_version: r.game.rules_version,
        players: r.players.clone(),
        params_yaml: engine::core::params_to_yaml(&r.game.params).map_err(|e| e.to_string())?,
        seed: r.game.seed,
        actions: r.game.actions.clone(),
        outcome: Some(outcome(&r.outcome, &r.verdicts, cooperative)),
        scenario: r.game.scenario.clone().unwrap_or_default(),
    })
}
