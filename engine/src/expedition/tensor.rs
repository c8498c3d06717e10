//! A player's observation as numbers (see `docs/rules/expedition.md`, "Observation tensor").
//! Seats are relative to the observer (slot 0 is the observer, slot k the k-th player after
//! it clockwise); tile fields have one entry per tile of the content set (T), card fields one
//! per card (K: Missions, Discovery cards, then Dice cards — all Dice cards show as the first).

use super::observe::Observation;
use super::{ExpeditionParams, Face, HQ_COLUMNS, Returning, Step};
use crate::core::{TensorField, TensorWriter};

const SEATS: usize = 4;

/// The fields, in order, for the content set of `p`.
pub fn layout(p: &ExpeditionParams) -> Vec<TensorField> {
    let c = p.content.get();
    let (t, k) = (c.tiles.len(), c.cards.len());
    let f = |name, size, doc| TensorField { name, size, doc };
    vec![
        f("players", 3, "2, 3 or 4 players (one-hot)"),
        f("dice_game", 1, "1 in the dice game, 0 in the no-dice variant"),
        f("to_move", SEATS + 1, "the relative seat to move, or none (last)"),
        f("first_player", SEATS, "the first player, by relative seat"),
        f("step", 6, "roll, rolled, action, complete, finish, over"),
        f("returning", 2, "the player to move must first put back a tile, a tool"),
        f("die", 3, "the die's face: tool, torch, coin (none: all 0)"),
        f(
            "counts",
            7,
            "round / max rounds, last round, coin bonus / 10, completed this turn / 6, pile / T, deck / K, max rounds / 200",
        ),
        f("pile_top_place", 2, "the pile's top is a Place, an Artifact (its back shows; none: empty)"),
        f("pile_bottom", t, "tiles at the bottom of the pile, seen put back"),
        f("hq_tiles", HQ_COLUMNS * t, "each Headquarters column's tile (column-major one-hot)"),
        f("hq_tools", HQ_COLUMNS * 4, "each column's tools: compass, rope, map, shovel counts / 3"),
        f("bag", 4, "tools in the bag: compass, rope, map, shovel / 20"),
        f("face_up", 4 * k, "each face-up space's card (space-major one-hot)"),
        f("out_of_play", 6, "out of play: tiles / T, cards / K, compass, rope, map, shovel / 20"),
        f("seat_present", SEATS, "players at the table, by relative seat"),
        f("seat_position", SEATS * SEATS, "each relative seat's turn position (one-hot)"),
        f("seat_favourite", SEATS * 4, "each relative seat's favourite tool (one-hot)"),
        f("seat_torch", SEATS, "each relative seat's torch is lit"),
        f("seat_tools", SEATS * 4, "each relative seat's backpack: compass, rope, map, shovel / 6"),
        f("seat_tiles", SEATS * t, "tiles each relative seat holds, not yet completed"),
        f("seat_discoveries", SEATS * t, "tiles each relative seat completed"),
        f("seat_counts", SEATS * 3, "each relative seat's coins visible / 20, score / 100, cards held / 10"),
        f("seat_cards", SEATS * k, "the cards each relative seat holds, where shown (own; everyone's at the end)"),
        f("seat_cards_seen", SEATS * k, "cards everyone saw each relative seat take face up"),
    ]
}

/// The observation as numbers.
pub fn encode(p: &ExpeditionParams, o: &Observation, out: &mut [f32]) {
    let c = p.content.get();
    let (t, k) = (c.tiles.len(), c.cards.len());
    let n = usize::from(o.players).max(1);
    let rel = |seat: u8| (usize::from(seat) + n - usize::from(o.seat) % n) % n;
    let mut w = TensorWriter::new(layout(p), out);
    w.marks("players", [usize::from(o.players).clamp(2, 4) - 2]);
    w.values("dice_game", [f32::from(u8::from(o.dice_game))]);
    w.marks("to_move", [o.to_move.map_or(SEATS, rel)]);
    w.marks("first_player", [rel(o.first_player)]);
    let step = match o.step {
        Step::Roll => 0,
        Step::Rolled => 1,
        Step::Action => 2,
        Step::Complete => 3,
        Step::Finish => 4,
        Step::Over => 5,
    };
    w.marks("step", [step]);
    w.marks(
        "returning",
        o.returning.map(|r| match r {
            Returning::Tile => 0,
            Returning::Tool => 1,
        }),
    );
    w.marks(
        "die",
        o.die.map(|f| match f {
            Face::Tool => 0,
            Face::Torch => 1,
            Face::Coin => 2,
        }),
    );
    w.values(
        "counts",
        [
            f32::from(o.round) / f32::from(o.max_rounds.max(1)),
            f32::from(u8::from(o.last_round)),
            f32::from(o.coin_bonus) / 10.0,
            f32::from(o.completed_this_turn) / 6.0,
            f32::from(o.pile_count) / t.max(1) as f32,
            f32::from(o.deck_count) / k.max(1) as f32,
            f32::from(o.max_rounds) / 200.0,
        ],
    );
    w.marks("pile_top_place", o.pile_top_is_place.map(|place| if place { 0 } else { 1 }));
    w.marks("pile_bottom", o.pile_bottom.iter().map(|v| usize::from(v.id)));
    w.marks(
        "hq_tiles",
        o.hq.iter().enumerate().filter_map(|(col, v)| v.tile.as_ref().map(|tile| col * t + usize::from(tile.id))),
    );
    let mut hq_tools = [0.0f32; HQ_COLUMNS * 4];
    for (col, v) in o.hq.iter().enumerate().take(HQ_COLUMNS) {
        for tool in &v.tools {
            hq_tools[col * 4 + tool.index()] += 1.0 / 3.0;
        }
    }
    w.values("hq_tools", hq_tools);
    w.values("bag", o.bag.to_array().map(|x| f32::from(x) / 20.0));
    w.marks(
        "face_up",
        o.face_up.iter().enumerate().filter_map(|(i, v)| v.as_ref().map(|card| i * k + usize::from(card.id))),
    );
    let out = o.out_of_play_tools.to_array();
    w.values(
        "out_of_play",
        [
            f32::from(o.out_of_play_tiles) / t.max(1) as f32,
            f32::from(o.out_of_play_cards) / k.max(1) as f32,
            f32::from(out[0]) / 20.0,
            f32::from(out[1]) / 20.0,
            f32::from(out[2]) / 20.0,
            f32::from(out[3]) / 20.0,
        ],
    );
    w.marks("seat_present", 0..n);
    w.marks("seat_position", o.seats.iter().map(|s| rel(s.seat) * SEATS + usize::from(s.turn_position).min(3)));
    w.marks("seat_favourite", o.seats.iter().map(|s| rel(s.seat) * 4 + s.favourite.index()));
    w.marks("seat_torch", o.seats.iter().filter(|s| s.torch_lit).map(|s| rel(s.seat)));
    let mut tools = [0.0f32; SEATS * 4];
    for s in &o.seats {
        for (i, x) in s.tools.to_array().iter().enumerate() {
            tools[rel(s.seat) * 4 + i] = f32::from(*x) / 6.0;
        }
    }
    w.values("seat_tools", tools);
    w.marks(
        "seat_tiles",
        o.seats.iter().flat_map(|s| s.tiles.iter().map(move |v| rel(s.seat) * t + usize::from(v.id))),
    );
    w.marks(
        "seat_discoveries",
        o.seats.iter().flat_map(|s| s.discoveries.iter().map(move |v| rel(s.seat) * t + usize::from(v.id))),
    );
    let mut counts = [0.0f32; SEATS * 3];
    for s in &o.seats {
        let r = rel(s.seat) * 3;
        counts[r] = f32::from(s.coins_visible) / 20.0;
        counts[r + 1] = s.score as f32 / 100.0;
        counts[r + 2] = f32::from(s.cards_held) / 10.0;
    }
    w.values("seat_counts", counts);
    w.marks(
        "seat_cards",
        o.seats.iter().flat_map(|s| s.cards.iter().flatten().map(move |v| rel(s.seat) * k + usize::from(v.id))),
    );
    w.marks(
        "seat_cards_seen",
        o.seats.iter().flat_map(|s| s.cards_seen_taken.iter().map(move |v| rel(s.seat) * k + usize::from(v.id))),
    );
    w.finish();
}
