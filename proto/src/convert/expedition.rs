//! The expedition's observation: tiles, cards and seats as messages, tools and faces as enums.

use super::{enum_value, num, nums, opt_num, required};
use crate::v1;
use engine::expedition as x;

fn tool_to_proto(t: x::Tool) -> i32 {
    match t {
        x::Tool::Compass => v1::Tool::Compass,
        x::Tool::Rope => v1::Tool::Rope,
        x::Tool::Map => v1::Tool::Map,
        x::Tool::Shovel => v1::Tool::Shovel,
    }
    .into()
}

fn tool_from_proto(v: i32, field: &str) -> Result<x::Tool, String> {
    enum_value(v, field, "tool", |t| match t {
        v1::Tool::Unspecified => None,
        v1::Tool::Compass => Some(x::Tool::Compass),
        v1::Tool::Rope => Some(x::Tool::Rope),
        v1::Tool::Map => Some(x::Tool::Map),
        v1::Tool::Shovel => Some(x::Tool::Shovel),
    })
}

fn tools_from_proto(v: &[i32], field: &str) -> Result<Vec<x::Tool>, String> {
    v.iter().enumerate().map(|(i, &t)| tool_from_proto(t, &format!("{field}[{i}]"))).collect()
}

fn tool_counts_to_proto(c: &x::ToolCounts) -> v1::ToolCounts {
    v1::ToolCounts { compass: c.compass.into(), rope: c.rope.into(), map: c.map.into(), shovel: c.shovel.into() }
}

fn tool_counts_from_proto(c: &Option<v1::ToolCounts>, field: &str) -> Result<x::ToolCounts, String> {
    let c = required(c, field)?;
    Ok(x::ToolCounts {
        compass: num(c.compass, &format!("{field}.compass"))?,
        rope: num(c.rope, &format!("{field}.rope"))?,
        map: num(c.map, &format!("{field}.map"))?,
        shovel: num(c.shovel, &format!("{field}.shovel"))?,
    })
}

fn tile_to_proto(t: &x::TileView) -> v1::TileView {
    v1::TileView {
        id: t.id.into(),
        name: t.name.clone(),
        kind: match t.kind {
            x::TileKind::Artifact => v1::TileKind::Artifact,
            x::TileKind::Place => v1::TileKind::Place,
        }
        .into(),
        tools: t.tools.iter().map(|&t| tool_to_proto(t)).collect(),
    }
}

fn tile_from_proto(t: &v1::TileView, field: &str) -> Result<x::TileView, String> {
    Ok(x::TileView {
        id: num(t.id, &format!("{field}.id"))?,
        name: t.name.clone(),
        kind: enum_value(t.kind, &format!("{field}.kind"), "tile kind", |k| match k {
            v1::TileKind::Unspecified => None,
            v1::TileKind::Artifact => Some(x::TileKind::Artifact),
            v1::TileKind::Place => Some(x::TileKind::Place),
        })?,
        tools: tools_from_proto(&t.tools, &format!("{field}.tools"))?,
    })
}

fn tiles_from_proto(v: &[v1::TileView], field: &str) -> Result<Vec<x::TileView>, String> {
    v.iter().enumerate().map(|(i, t)| tile_from_proto(t, &format!("{field}[{i}]"))).collect()
}

fn card_to_proto(c: &x::CardView) -> v1::CardView {
    v1::CardView {
        id: c.id.into(),
        name: c.name.clone(),
        kind: match c.kind {
            x::CardClass::Mission => v1::CardClass::Mission,
            x::CardClass::Discovery => v1::CardClass::Discovery,
            x::CardClass::Dice => v1::CardClass::Dice,
        }
        .into(),
        tiles: c.tiles.clone(),
        coins: c.coins.into(),
    }
}

fn card_from_proto(c: &v1::CardView, field: &str) -> Result<x::CardView, String> {
    Ok(x::CardView {
        id: num(c.id, &format!("{field}.id"))?,
        name: c.name.clone(),
        kind: enum_value(c.kind, &format!("{field}.kind"), "card class", |k| match k {
            v1::CardClass::Unspecified => None,
            v1::CardClass::Mission => Some(x::CardClass::Mission),
            v1::CardClass::Discovery => Some(x::CardClass::Discovery),
            v1::CardClass::Dice => Some(x::CardClass::Dice),
        })?,
        tiles: c.tiles.clone(),
        coins: num(c.coins, &format!("{field}.coins"))?,
    })
}

fn cards_from_proto(v: &[v1::CardView], field: &str) -> Result<Vec<x::CardView>, String> {
    v.iter().enumerate().map(|(i, c)| card_from_proto(c, &format!("{field}[{i}]"))).collect()
}

fn step_to_proto(s: x::Step) -> v1::ExpeditionStep {
    match s {
        x::Step::Roll => v1::ExpeditionStep::Roll,
        x::Step::Rolled => v1::ExpeditionStep::Rolled,
        x::Step::Action => v1::ExpeditionStep::Action,
        x::Step::Complete => v1::ExpeditionStep::Complete,
        x::Step::Finish => v1::ExpeditionStep::Finish,
        x::Step::Over => v1::ExpeditionStep::Over,
    }
}

fn step_from_proto(v: i32, field: &str) -> Result<x::Step, String> {
    enum_value(v, field, "expedition step", |s| match s {
        v1::ExpeditionStep::Unspecified => None,
        v1::ExpeditionStep::Roll => Some(x::Step::Roll),
        v1::ExpeditionStep::Rolled => Some(x::Step::Rolled),
        v1::ExpeditionStep::Action => Some(x::Step::Action),
        v1::ExpeditionStep::Complete => Some(x::Step::Complete),
        v1::ExpeditionStep::Finish => Some(x::Step::Finish),
        v1::ExpeditionStep::Over => Some(x::Step::Over),
    })
}

/// The die's face; `FACE_UNSPECIFIED` for none shown.
fn face_to_proto(f: Option<x::Face>) -> v1::Face {
    match f {
        None => v1::Face::Unspecified,
        Some(x::Face::Tool) => v1::Face::Tool,
        Some(x::Face::Torch) => v1::Face::Torch,
        Some(x::Face::Coin) => v1::Face::Coin,
    }
}

/// The die's face: `FACE_UNSPECIFIED` is none (not an error).
fn face_from_proto(v: i32, field: &str) -> Result<Option<x::Face>, String> {
    enum_value(v, field, "die face", |f| {
        Some(match f {
            v1::Face::Unspecified => None,
            v1::Face::Tool => Some(x::Face::Tool),
            v1::Face::Torch => Some(x::Face::Torch),
            v1::Face::Coin => Some(x::Face::Coin),
        })
    })
}

/// What must be put back; `RETURNING_UNSPECIFIED` for nothing.
fn returning_to_proto(r: Option<x::Returning>) -> v1::Returning {
    match r {
        None => v1::Returning::Unspecified,
        Some(x::Returning::Tile) => v1::Returning::Tile,
        Some(x::Returning::Tool) => v1::Returning::Tool,
    }
}

/// What must be put back: `RETURNING_UNSPECIFIED` is nothing (not an error).
fn returning_from_proto(v: i32, field: &str) -> Result<Option<x::Returning>, String> {
    enum_value(v, field, "returning", |r| {
        Some(match r {
            v1::Returning::Unspecified => None,
            v1::Returning::Tile => Some(x::Returning::Tile),
            v1::Returning::Tool => Some(x::Returning::Tool),
        })
    })
}

fn breakdown_to_proto(b: &x::ScoreBreakdown) -> v1::ScoreBreakdown {
    v1::ScoreBreakdown {
        completions: b.completions,
        missions: b.missions,
        dice_cards: b.dice_cards,
        total: b.total,
        missions_done: b.missions_done.iter().map(|&k| k.into()).collect(),
        discovery_tiles: b.discovery_tiles.iter().map(|&t| t.into()).collect(),
    }
}

fn breakdown_from_proto(b: &Option<v1::ScoreBreakdown>, field: &str) -> Result<x::ScoreBreakdown, String> {
    let b = required(b, field)?;
    Ok(x::ScoreBreakdown {
        completions: b.completions,
        missions: b.missions,
        dice_cards: b.dice_cards,
        total: b.total,
        missions_done: nums(&b.missions_done, &format!("{field}.missions_done"))?,
        discovery_tiles: nums(&b.discovery_tiles, &format!("{field}.discovery_tiles"))?,
    })
}

fn seat_to_proto(s: &x::SeatView) -> v1::ExpeditionSeat {
    v1::ExpeditionSeat {
        seat: s.seat.into(),
        turn_position: s.turn_position.into(),
        character_id: s.character_id.into(),
        character: s.character.clone(),
        favourite: tool_to_proto(s.favourite),
        torch_lit: s.torch_lit,
        tools: Some(tool_counts_to_proto(&s.tools)),
        tiles: s.tiles.iter().map(tile_to_proto).collect(),
        discoveries: s.discoveries.iter().map(tile_to_proto).collect(),
        coins_visible: s.coins_visible.into(),
        score: s.score,
        cards_held: s.cards_held.into(),
        cards_shown: s.cards.is_some(),
        cards: s.cards.iter().flatten().map(card_to_proto).collect(),
        cards_seen_taken: s.cards_seen_taken.iter().map(card_to_proto).collect(),
    }
}

fn seat_from_proto(s: &v1::ExpeditionSeat, field: &str) -> Result<x::SeatView, String> {
    let cards = cards_from_proto(&s.cards, &format!("{field}.cards"))?;
    if !s.cards_shown && !cards.is_empty() {
        return Err(format!("{field}.cards: {} cards, but cards_shown is false", cards.len()));
    }
    Ok(x::SeatView {
        seat: num(s.seat, &format!("{field}.seat"))?,
        turn_position: num(s.turn_position, &format!("{field}.turn_position"))?,
        character_id: num(s.character_id, &format!("{field}.character_id"))?,
        character: s.character.clone(),
        favourite: tool_from_proto(s.favourite, &format!("{field}.favourite"))?,
        torch_lit: s.torch_lit,
        tools: tool_counts_from_proto(&s.tools, &format!("{field}.tools"))?,
        tiles: tiles_from_proto(&s.tiles, &format!("{field}.tiles"))?,
        discoveries: tiles_from_proto(&s.discoveries, &format!("{field}.discoveries"))?,
        coins_visible: num(s.coins_visible, &format!("{field}.coins_visible"))?,
        score: s.score,
        cards_held: num(s.cards_held, &format!("{field}.cards_held"))?,
        cards: s.cards_shown.then_some(cards),
        cards_seen_taken: cards_from_proto(&s.cards_seen_taken, &format!("{field}.cards_seen_taken"))?,
    })
}

/// A player's observation of the expedition as the typed message.
pub fn expedition_to_proto(o: &x::Observation) -> v1::ExpeditionObservation {
    v1::ExpeditionObservation {
        seat: o.seat.into(),
        watcher: o.watcher,
        players: o.players.into(),
        dice_game: o.dice_game,
        first_player: o.first_player.into(),
        to_move: o.to_move.map(u32::from),
        step: step_to_proto(o.step).into(),
        returning: returning_to_proto(o.returning).into(),
        round: o.round.into(),
        max_rounds: o.max_rounds.into(),
        last_round: o.last_round,
        die: face_to_proto(o.die).into(),
        coin_bonus: o.coin_bonus.into(),
        completed_this_turn: o.completed_this_turn.into(),
        hq: o
            .hq
            .iter()
            .map(|c| v1::ColumnView {
                tile: c.tile.as_ref().map(tile_to_proto),
                tools: c.tools.iter().map(|&t| tool_to_proto(t)).collect(),
            })
            .collect(),
        pile_count: o.pile_count.into(),
        pile_top_is_place: o.pile_top_is_place,
        pile_bottom: o.pile_bottom.iter().map(tile_to_proto).collect(),
        bag: Some(tool_counts_to_proto(&o.bag)),
        deck_count: o.deck_count.into(),
        face_up: o.face_up.iter().map(|c| v1::FaceUpSpace { card: c.as_ref().map(card_to_proto) }).collect(),
        seats: o.seats.iter().map(seat_to_proto).collect(),
        out_of_play_tiles: o.out_of_play_tiles.into(),
        out_of_play_cards: o.out_of_play_cards.into(),
        out_of_play_tools: Some(tool_counts_to_proto(&o.out_of_play_tools)),
        over: o.final_scores.is_some(),
        final_scores: o
            .final_scores
            .iter()
            .flatten()
            .map(|f| v1::FinalScore {
                seat: f.seat.into(),
                rank: f.rank.into(),
                breakdown: Some(breakdown_to_proto(&f.breakdown)),
                missions_done: f.missions_done.clone(),
            })
            .collect(),
    }
}

/// The engine's expedition observation from the typed message: the inverse of
/// [`expedition_to_proto`]. An error names the field (`expedition.…`) and the value refused.
pub fn expedition_from_proto(o: &v1::ExpeditionObservation) -> Result<x::Observation, String> {
    if !o.over && !o.final_scores.is_empty() {
        return Err(format!("expedition.final_scores: {} scores, but over is false", o.final_scores.len()));
    }
    let final_scores = o
        .final_scores
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let at = format!("expedition.final_scores[{i}]");
            Ok(x::FinalScore {
                seat: num(f.seat, &format!("{at}.seat"))?,
                rank: num(f.rank, &format!("{at}.rank"))?,
                breakdown: breakdown_from_proto(&f.breakdown, &format!("{at}.breakdown"))?,
                missions_done: f.missions_done.clone(),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(x::Observation {
        seat: num(o.seat, "expedition.seat")?,
        watcher: o.watcher,
        players: num(o.players, "expedition.players")?,
        dice_game: o.dice_game,
        first_player: num(o.first_player, "expedition.first_player")?,
        to_move: opt_num(o.to_move, "expedition.to_move")?,
        step: step_from_proto(o.step, "expedition.step")?,
        returning: returning_from_proto(o.returning, "expedition.returning")?,
        round: num(o.round, "expedition.round")?,
        max_rounds: num(o.max_rounds, "expedition.max_rounds")?,
        last_round: o.last_round,
        die: face_from_proto(o.die, "expedition.die")?,
        coin_bonus: num(o.coin_bonus, "expedition.coin_bonus")?,
        completed_this_turn: num(o.completed_this_turn, "expedition.completed_this_turn")?,
        hq: o
            .hq
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let at = format!("expedition.hq[{i}]");
                Ok(x::ColumnView {
                    tile: c.tile.as_ref().map(|t| tile_from_proto(t, &format!("{at}.tile"))).transpose()?,
                    tools: tools_from_proto(&c.tools, &format!("{at}.tools"))?,
                })
            })
            .collect::<Result<_, String>>()?,
        pile_count: num(o.pile_count, "expedition.pile_count")?,
        pile_top_is_place: o.pile_top_is_place,
        pile_bottom: tiles_from_proto(&o.pile_bottom, "expedition.pile_bottom")?,
        bag: tool_counts_from_proto(&o.bag, "expedition.bag")?,
        deck_count: num(o.deck_count, "expedition.deck_count")?,
        face_up: o
            .face_up
            .iter()
            .enumerate()
            .map(|(i, s)| {
                s.card.as_ref().map(|c| card_from_proto(c, &format!("expedition.face_up[{i}].card"))).transpose()
            })
            .collect::<Result<_, String>>()?,
        seats: o
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| seat_from_proto(s, &format!("expedition.seats[{i}]")))
            .collect::<Result<_, String>>()?,
        out_of_play_tiles: num(o.out_of_play_tiles, "expedition.out_of_play_tiles")?,
        out_of_play_cards: num(o.out_of_play_cards, "expedition.out_of_play_cards")?,
        out_of_play_tools: tool_counts_from_proto(&o.out_of_play_tools, "expedition.out_of_play_tools")?,
        final_scores: o.over.then_some(final_scores),
    })
}
