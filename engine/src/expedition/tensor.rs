//! A player's observation as numbers (see `docs/rules/expedition.md`, "Observation tensor").
//! Seats are relative to the observer (slot 0 is the observer, slot k the k-th player after
//! it clockwise); tile fields have one entry per tile of the content set (T), card fields one
//! per card (K: Missions, Discovery cards, then Dice cards — all Dice cards show as the first).
//!
//! A tensor is written from the facts of [`Facts`], gathered either from a seat's observation
//! or straight from the state for that seat (a learner's hot path: no observation is built).
//! The conformance suite checks, in every position it meets, that both give one tensor, and
//! that redrawing what the seat cannot see changes neither.

use super::observe::{Observation, shown_cards};
use super::{Expedition, ExpeditionParams, FACE_UP, Face, HQ_COLUMNS, NONE, Returning, Step};
use crate::core::{Seat, TensorField, TensorWriter};

const SEATS: usize = 4;

/// `x / d` for every count `x` a byte holds, computed at compile time: a tensor has some
/// seventy such numbers, and a division each cost a third of its writing.
const fn fractions(d: f32) -> [f32; 256] {
    let mut out = [0.0; 256];
    let mut x = 0;
    while x < 256 {
        out[x] = x as f32 / d;
        x += 1;
    }
    out
}

static THIRDS: [f32; 256] = fractions(3.0);
static SIXTHS: [f32; 256] = fractions(6.0);
static TENTHS: [f32; 256] = fractions(10.0);
static TWENTIETHS: [f32; 256] = fractions(20.0);

/// `x / d` by the table of `d`: the same number as the division.
fn part(table: &[f32; 256], x: u8) -> f32 {
    table[usize::from(x)]
}

/// The fields, in order, for the content set of `p`.
pub fn layout(p: &ExpeditionParams) -> Vec<TensorField> {
    let c = p.content.get();
    fields(c.tiles.len(), c.cards.len()).to_vec()
}

/// The fields, in order, for a content set of `t` tiles and `k` cards (on the stack: a tensor
/// written from a state allocates nothing).
fn fields(t: usize, k: usize) -> [TensorField; 25] {
    let f = |name, size, doc| TensorField { name, size, doc };
    [
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

/// What one seat's tensor reads, in fixed-size form: sets of tiles and cards as bit sets of
/// their ids (cards as shown: every Dice card as the first), empty spaces as [`NONE`].
struct Facts {
    seat: u8,
    players: u8,
    dice_game: bool,
    to_move: Option<u8>,
    first_player: u8,
    step: Step,
    returning: Option<Returning>,
    die: Option<Face>,
    round: u16,
    max_rounds: u16,
    last_round: bool,
    coin_bonus: u8,
    completed_this_turn: u8,
    pile_count: u8,
    deck_count: u8,
    pile_top_is_place: Option<bool>,
    pile_bottom: u64,
    hq_tiles: [u8; HQ_COLUMNS],
    /// Each column's tools, counted by kind.
    hq_tools: [[u8; 4]; HQ_COLUMNS],
    bag: [u8; 4],
    face_up: [u8; FACE_UP],
    out_of_play_tiles: u8,
    out_of_play_cards: u8,
    out_of_play_tools: [u8; 4],
    /// By seat (absolute), the first `players` of them.
    seats: [SeatFacts; SEATS],
}

#[derive(Clone, Copy, Default)]
struct SeatFacts {
    turn_position: u8,
    favourite: usize,
    torch_lit: bool,
    tools: [u8; 4],
    tiles: u64,
    discoveries: u64,
    coins_visible: u8,
    score: i32,
    cards_held: u8,
    /// The cards held, where the seat sees them (else none).
    cards: u64,
    cards_seen_taken: u64,
}

/// A bit set of ids (an id past 63 is in none: the writer then finds it out of its field).
fn set(ids: impl IntoIterator<Item = u8>) -> u64 {
    ids.into_iter().fold(0, |m, id| m | 1u64.checked_shl(u32::from(id)).unwrap_or(0))
}

impl Facts {
    fn of_observation(o: &Observation) -> Facts {
        let mut seats = [SeatFacts::default(); SEATS];
        for v in &o.seats {
            if let Some(s) = seats.get_mut(usize::from(v.seat)) {
                *s = SeatFacts {
                    turn_position: v.turn_position,
                    favourite: v.favourite.index(),
                    torch_lit: v.torch_lit,
                    tools: v.tools.to_array(),
                    tiles: set(v.tiles.iter().map(|t| t.id)),
                    discoveries: set(v.discoveries.iter().map(|t| t.id)),
                    coins_visible: v.coins_visible,
                    score: v.score,
                    cards_held: v.cards_held,
                    cards: set(v.cards.iter().flatten().map(|k| k.id)),
                    cards_seen_taken: set(v.cards_seen_taken.iter().map(|k| k.id)),
                };
            }
        }
        let mut hq_tiles = [NONE; HQ_COLUMNS];
        let mut hq_tools = [[0; 4]; HQ_COLUMNS];
        for (col, v) in o.hq.iter().enumerate().take(HQ_COLUMNS) {
            hq_tiles[col] = v.tile.as_ref().map_or(NONE, |t| t.id);
            for tool in &v.tools {
                hq_tools[col][tool.index()] += 1;
            }
        }
        let mut face_up = [NONE; FACE_UP];
        for (space, v) in face_up.iter_mut().zip(&o.face_up) {
            *space = v.as_ref().map_or(NONE, |k| k.id);
        }
        Facts {
            seat: o.seat,
            players: o.players,
            dice_game: o.dice_game,
            to_move: o.to_move,
            first_player: o.first_player,
            step: o.step,
            returning: o.returning,
            die: o.die,
            round: o.round,
            max_rounds: o.max_rounds,
            last_round: o.last_round,
            coin_bonus: o.coin_bonus,
            completed_this_turn: o.completed_this_turn,
            pile_count: o.pile_count,
            deck_count: o.deck_count,
            pile_top_is_place: o.pile_top_is_place,
            pile_bottom: set(o.pile_bottom.iter().map(|t| t.id)),
            hq_tiles,
            hq_tools,
            bag: o.bag.to_array(),
            face_up,
            out_of_play_tiles: o.out_of_play_tiles,
            out_of_play_cards: o.out_of_play_cards,
            out_of_play_tools: o.out_of_play_tools.to_array(),
            seats,
        }
    }

    /// The facts `seat`'s observation shows, read from the state: what it may see is decided
    /// by the methods its observation is built with ([`Expedition::shows_cards`], ...).
    fn of_state(g: &Expedition, seat: Seat) -> Facts {
        let c = &*g.shared.content;
        let over = g.step == Step::Over;
        let mut seats = [SeatFacts::default(); SEATS];
        for (s, (v, p)) in seats.iter_mut().zip(&g.players).enumerate().take(usize::from(g.n)) {
            *v = SeatFacts {
                turn_position: g.turn_position(s) as u8,
                favourite: c.characters[usize::from(p.character)].favourite.index(),
                torch_lit: p.torch_lit,
                tools: p.tools,
                tiles: set(p.tiles.iter().copied()),
                discoveries: set(p.done.iter().copied()),
                coins_visible: g.coins_visible(s),
                score: p.score,
                cards_held: p.cards.count_ones() as u8,
                cards: if g.shows_cards(seat, s) { shown_cards(c, p.cards) } else { 0 },
                cards_seen_taken: shown_cards(c, p.known),
            };
        }
        let mut hq_tools = [[0; 4]; HQ_COLUMNS];
        for (counts, tools) in hq_tools.iter_mut().zip(&g.hq_tools) {
            for &t in tools.iter().filter(|&&t| t != NONE) {
                counts[usize::from(t)] += 1;
            }
        }
        Facts {
            seat: seat.0,
            players: g.n,
            dice_game: g.shared.params.dice,
            to_move: (!over).then_some(g.current),
            first_player: g.first,
            step: g.step,
            returning: g.returning(),
            die: g.die,
            round: g.round,
            max_rounds: g.shared.params.max_rounds(),
            last_round: g.last_round,
            coin_bonus: g.coin_bonus,
            completed_this_turn: g.completed,
            pile_count: g.pile.len() as u8,
            deck_count: g.deck.len() as u8,
            pile_top_is_place: g.pile.top().map(|t| c.is_place(t)),
            pile_bottom: set(g.pile.known_bottom().iter().copied()),
            hq_tiles: g.hq_tile,
            hq_tools,
            bag: g.bag,
            face_up: g.face_up.map(|k| if k == NONE { NONE } else { super::observe::shown_card(c, k) }),
            out_of_play_tiles: g.boxed_tiles.count_ones() as u8,
            out_of_play_cards: g.boxed_cards.count_ones() as u8,
            out_of_play_tools: g.boxed_tools,
            seats,
        }
    }
}

/// The observation as numbers.
pub fn encode(p: &ExpeditionParams, o: &Observation, out: &mut [f32]) {
    let c = p.content.get();
    write(&fields(c.tiles.len(), c.cards.len()), c.tiles.len(), c.cards.len(), &Facts::of_observation(o), out);
}

/// `seat`'s tensor written straight from the state: the same numbers as [`encode`] of its
/// observation, with no observation built.
pub(crate) fn write_for(g: &Expedition, seat: Seat, out: &mut [f32]) {
    let (t, k) = (g.shared.content.tiles.len(), g.shared.content.cards.len());
    write(&fields(t, k), t, k, &Facts::of_state(g, seat), out);
}

fn write(layout: &[TensorField], t: usize, k: usize, o: &Facts, out: &mut [f32]) {
    let n = usize::from(o.players).clamp(1, SEATS);
    let me = usize::from(o.seat) % n;
    // (seat - me) mod n, without a division (this is a learner's hot path).
    let rel = |seat: u8| {
        let mut r = usize::from(seat) + n - me;
        while r >= n {
            r -= n;
        }
        r
    };
    let relative: [usize; SEATS] = std::array::from_fn(|s| rel(s as u8));
    let mut w = TensorWriter::new(layout, out);
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
            part(&TENTHS, o.coin_bonus),
            part(&SIXTHS, o.completed_this_turn),
            f32::from(o.pile_count) / t.max(1) as f32,
            f32::from(o.deck_count) / k.max(1) as f32,
            f32::from(o.max_rounds) / 200.0,
        ],
    );
    w.marks("pile_top_place", o.pile_top_is_place.map(|place| if place { 0 } else { 1 }));
    w.bit_sets("pile_bottom", t, [(0, o.pile_bottom)]);
    w.marks(
        "hq_tiles",
        o.hq_tiles.iter().enumerate().filter(|&(_, &id)| id != NONE).map(|(col, &id)| col * t + usize::from(id)),
    );
    w.values("hq_tools", o.hq_tools.as_flattened().iter().map(|&x| part(&THIRDS, x)));
    w.values("bag", o.bag.map(|x| part(&TWENTIETHS, x)));
    w.marks(
        "face_up",
        o.face_up.iter().enumerate().filter(|&(_, &id)| id != NONE).map(|(i, &id)| i * k + usize::from(id)),
    );
    let out = o.out_of_play_tools;
    w.values(
        "out_of_play",
        [
            f32::from(o.out_of_play_tiles) / t.max(1) as f32,
            f32::from(o.out_of_play_cards) / k.max(1) as f32,
            part(&TWENTIETHS, out[0]),
            part(&TWENTIETHS, out[1]),
            part(&TWENTIETHS, out[2]),
            part(&TWENTIETHS, out[3]),
        ],
    );
    let seats = || relative.iter().copied().zip(&o.seats).take(n);
    w.marks("seat_present", 0..n);
    w.marks("seat_position", seats().map(|(r, s)| r * SEATS + usize::from(s.turn_position).min(3)));
    w.marks("seat_favourite", seats().map(|(r, s)| r * 4 + s.favourite));
    w.marks("seat_torch", seats().filter(|(_, s)| s.torch_lit).map(|(r, _)| r));
    let mut tools = [0.0f32; SEATS * 4];
    for (r, s) in seats() {
        for (i, x) in s.tools.iter().enumerate() {
            tools[r * 4 + i] = part(&SIXTHS, *x);
        }
    }
    w.values("seat_tools", tools);
    w.bit_sets("seat_tiles", t, seats().map(|(r, s)| (r, s.tiles)));
    w.bit_sets("seat_discoveries", t, seats().map(|(r, s)| (r, s.discoveries)));
    let mut counts = [0.0f32; SEATS * 3];
    for (r, s) in seats() {
        counts[r * 3] = part(&TWENTIETHS, s.coins_visible);
        counts[r * 3 + 1] = s.score as f32 / 100.0;
        counts[r * 3 + 2] = part(&TENTHS, s.cards_held);
    }
    w.values("seat_counts", counts);
    w.bit_sets("seat_cards", k, seats().map(|(r, s)| (r, s.cards)));
    w.bit_sets("seat_cards_seen", k, seats().map(|(r, s)| (r, s.cards_seen_taken)));
    w.finish();
}
