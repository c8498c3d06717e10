//! What crosses the wire for a seat: its typed observation and text, the legal actions with
//! their labels, an outcome. Built from the game only through the seat's own view.

use engine::core::{ActionId, AnyGame, Dyn, Outcome, Seat};
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

/// The legal actions with their labels.
pub fn legal(game: &dyn AnyGame) -> (Vec<ActionId>, Vec<v1::LegalAction>) {
    let mut ids = Vec::new();
    game.legal_actions(&mut ids);
    let labelled = ids.iter().map(|&id| v1::LegalAction { id, label: game.action_label(id) }).collect();
    (ids, labelled)
}

pub fn outcome(o: &Outcome, verdicts: &[v1::Verdict]) -> v1::Outcome {
    v1::Outcome {
        scores: o.scores.clone(),
        ranks: o.ranks.iter().map(|&r| u32::from(r)).collect(),
        verdicts: verdicts.to_vec(),
        cancelled: false,
    }
}
