//! What crosses the wire for a seat: its typed observation and text, the legal actions with
//! their labels, an outcome. Built from the game only through the seat's own view.

use crate::record::MatchRecord;
use crate::referee::{MatchOutcome, Verdict};
use engine::core::{ActionId, AnyGame, AnySpec, Dyn, Seat};
use engine::expedition::Expedition;
use engine::journey::Journey;
use proto::convert;
use proto::v1;

/// The seat's observation, typed and as text.
pub fn observation(game: &dyn AnyGame, seat: Seat) -> Result<v1::Observation, String> {
    let text = game.observation_text(seat);
    let any = game.as_any();
    let typed = if let Some(g) = any.downcast_ref::<Dyn<Journey>>() {
        v1::observation::Game::Journey(convert::journey_to_proto(&engine::core::Game::observation(&g.0, seat)))
    } else if let Some(g) = any.downcast_ref::<Dyn<Expedition>>() {
        v1::observation::Game::Expedition(convert::expedition_to_proto(&engine::core::Game::observation(&g.0, seat)))
    } else {
        return convert::observation_to_proto(game.name(), &game.observation_json(seat), &text);
    };
    Ok(v1::Observation { text, game: Some(typed) })
}

/// The seat's observation tensor and the legal actions as a bit mask over the action-id range.
pub fn tensors(game: &dyn AnyGame, spec: &dyn AnySpec, seat: Seat, legal: &[ActionId]) -> (Vec<f32>, Vec<u8>) {
    let mut mask = vec![0u8; (spec.action_count() as usize).div_ceil(8)];
    for &a in legal {
        if let Some(byte) = mask.get_mut(a as usize / 8) {
            *byte |= 1 << (a % 8);
        }
    }
    (game.observation_tensor(seat), mask)
}

/// The legal actions with their labels.
pub fn legal(game: &dyn AnyGame) -> (Vec<ActionId>, Vec<v1::LegalAction>) {
    let mut ids = Vec::new();
    game.legal_actions(&mut ids);
    let labelled = ids.iter().map(|&id| v1::LegalAction { id, label: game.action_label(id) }).collect();
    (ids, labelled)
}

/// A match's outcome as it crosses the wire, with the referee's verdicts; a cooperative
/// game's also carries the team's score.
pub fn outcome(o: &MatchOutcome, verdicts: &[Verdict], cooperative: bool) -> v1::MatchOutcome {
    v1::MatchOutcome {
        scores: o.result.scores.clone(),
        ranks: o.result.ranks.iter().map(|&r| u32::from(r)).collect(),
        verdicts: verdicts.iter().map(verdict).collect(),
        cancelled: o.cancelled,
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
        params_yaml: serde_yaml::to_string(&r.game.params).map_err(|e| e.to_string())?,
        seed: r.game.seed,
        actions: r.game.actions.clone(),
        outcome: Some(outcome(&r.outcome, &r.verdicts, cooperative)),
        scenario: r.game.scenario.clone().unwrap_or_default(),
    })
}
