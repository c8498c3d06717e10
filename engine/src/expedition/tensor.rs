//! A player's observation as numbers (see `docs/rules/expedition.md`, "Observation tensor").
//! Seats are relative to the observer (slot 0 is the observer, slot k the k-th player after
//! it clockwise); tile fields have one entry per tile of the content set (T), card fields one
//! per card (K: Missions, Discovery cards, then Dice cards — all Dice cards show as the first).
//!
//! A tensor is written from the facts of [`Facts`], gathered either from a seat's observation
//! or straight from the state for that seat (a learner's hot path: no observation is built).
//! The conformance suite checks, in every position it meets, that both give one tensor, and
//! that redrawing what the seat cannot see changes neither. Each number goes straight to its
//! place, by the offsets of the layout's fields ([`Offsets`], found once per parameter set),
//! a learner's tensor being written at every step.

use super::observe::{Observation, shown_cards};
use super::scoring::coins_showing;
use super::{
    COMPLETIONS_PER_TURN, Content, Expedition, ExpeditionParams, FACE_UP, Face, HQ_COLUMNS, MAX_DISCOVERIES, NONE,
    Returning, Step, TOOL_LIMIT, TOOLS_PER_KIND,
};
use crate::core::{Seat, TensorField};

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

/// The fields, in order, for the parameters `p` and their content set.
pub fn layout(p: &ExpeditionParams) -> Vec<TensorField> {
    fields(p, &p.content.get()).to_vec()
}

/// How many fields a layout has.
pub(super) const FIELDS: usize = 33;

/// The fields, in order, for the parameters `p` and their content set `c` (T tiles, K cards),
/// each with the range of its numbers in every position the rules reach from a deal (a
/// scenario may place what no deal leads to: a score or a coin bonus past these). Marks and
/// flags are 0 or 1; a count `x / d` runs from 0 to the most the rules allow `x`, given with
/// its field.
pub(super) fn fields(p: &ExpeditionParams, c: &Content) -> [TensorField; FIELDS] {
    let (t, k) = (c.tiles.len(), c.cards.len());
    let f = |name, size, doc, high| TensorField { name, size, doc, low: 0.0, high };
    let mark = |name, size, doc| f(name, size, doc, 1.0);
    let seat_counts = [
        part(&TWENTIETHS, most_coins_showing(c)),
        most_points(p, c) as f32 / 100.0,
        // Cards are never limited: one player may come to hold the whole deck.
        part(&TENTHS, k as u8),
    ];
    [
        mark("players", 3, "2, 3 or 4 players (one-hot)"),
        mark("dice_game", 1, "1 in the dice game, 0 in the no-dice variant"),
        mark("to_move", SEATS + 1, "the relative seat to move, or none (last)"),
        mark("first_player", SEATS, "the first player, by relative seat"),
        mark("step", 6, "roll, rolled, action, complete, finish, over"),
        mark("returning", 2, "the player to move must first put back a tile, a tool"),
        mark("die", 3, "the die's face: tool, torch, coin (none: all 0)"),
        // A round past max rounds is never started.
        f("round", 1, "the round / max rounds", 1.0),
        mark("last_round", 1, "this round is the last"),
        f("coin_bonus", 1, "coin bonuses this turn / 10", part(&TENTHS, most_coin_bonus(p, c))),
        f("completed_this_turn", 1, "tiles completed this turn / 6", part(&SIXTHS, COMPLETIONS_PER_TURN)),
        f("pile_size", 1, "tiles in the Discovery pile / T", 1.0),
        // Four face-up spaces are filled before the deck holds a card.
        f("deck_size", 1, "cards in the Expedition deck / K", k.saturating_sub(FACE_UP) as f32 / k.max(1) as f32),
        f("max_rounds", 1, "max rounds / 200", f32::from(p.max_rounds()) / 200.0),
        mark("pile_top_place", 2, "the pile's top is a Place, an Artifact (its back shows; none: empty)"),
        mark("pile_bottom", t, "tiles at the bottom of the pile, seen put back"),
        mark("hq_tiles", HQ_COLUMNS * t, "each Headquarters column's tile (column-major one-hot)"),
        // A column holds two tools.
        f("hq_tools", HQ_COLUMNS * 4, "each column's tools: compass, rope, map, shovel counts / 3", part(&THIRDS, 2)),
        f("bag", 4, "tools in the bag: compass, rope, map, shovel / 20", part(&TWENTIETHS, TOOLS_PER_KIND)),
        mark("face_up", FACE_UP * k, "each face-up space's card (space-major one-hot)"),
        f("out_of_play_tiles", 1, "tiles out of play / T", 1.0),
        f("out_of_play_cards", 1, "cards out of play / K", 1.0),
        f(
            "out_of_play_tools",
            4,
            "tools out of play: compass, rope, map, shovel / 20",
            part(&TWENTIETHS, TOOLS_PER_KIND),
        ),
        mark("seat_present", SEATS, "players at the table, by relative seat"),
        mark("seat_position", SEATS * SEATS, "each relative seat's turn position (one-hot)"),
        mark("seat_favourite", SEATS * 4, "each relative seat's favourite tool (one-hot)"),
        mark("seat_torch", SEATS, "each relative seat's torch is lit"),
        f(
            "seat_tools",
            SEATS * 4,
            "each relative seat's backpack: compass, rope, map, shovel / 6",
            part(&SIXTHS, MOST_OF_ONE_TOOL),
        ),
        mark("seat_tiles", SEATS * t, "tiles each relative seat holds, not yet completed"),
        mark("seat_discoveries", SEATS * t, "tiles each relative seat completed"),
        f(
            "seat_counts",
            SEATS * 3,
            "each relative seat's coins visible / 20, score / 100, cards held / 10",
            seat_counts.into_iter().fold(0.0, f32::max),
        ),
        mark("seat_cards", SEATS * k, "the cards each relative seat holds, where shown (own; everyone's at the end)"),
        mark("seat_cards_seen", SEATS * k, "cards everyone saw each relative seat take face up"),
    ]
}

/// The most tools of one kind a backpack holds: six, and the two a column (or a no-dice Dice
/// card's draw) brings, before the ones over six are put back.
const MOST_OF_ONE_TOOL: u8 = TOOL_LIMIT + 2;

/// The most coin bonuses a turn holds: the die's Coin in the dice game; in the no-dice
/// variant one per Dice card discarded for it — every Dice card held at the turn's start, and
/// one more taken (back) during it.
fn most_coin_bonus(p: &ExpeditionParams, c: &Content) -> u8 {
    if p.dice { 1 } else { c.dice_cards.count_ones() as u8 + 1 }
}

/// The most Lost Coins showing on a board: its printed coins and a Place for every tile
/// completed (as far as the content has Places), over every count of completed tiles.
fn most_coins_showing(c: &Content) -> u8 {
    let places = c.places.count_ones() as usize;
    let most = (0..=MAX_DISCOVERIES.min(c.tiles.len())).map(|laid| coins_showing(laid, laid.min(places))).max();
    most.unwrap_or(0) as u8
}

/// The most points a player's completions can score in a game (the score the tensor shows:
/// Missions and Dice cards count only at the end). Each of the (at most eight) completions
/// scores the coins then showing, a point per favourite tool spent (no tile needs more of one
/// kind than the content's greediest tile), and a point per coin bonus of its turn (no-dice
/// Dice cards discarded later in the turn included).
fn most_points(p: &ExpeditionParams, c: &Content) -> i32 {
    let places = c.places.count_ones() as usize;
    let favourite = c.tiles.iter().flat_map(|tile| tile.need).max().unwrap_or(0);
    let each_completion = i32::from(favourite) + i32::from(most_coin_bonus(p, c));
    (1..=MAX_DISCOVERIES.min(c.tiles.len())).map(|laid| coins_showing(laid, laid.min(places)) + each_completion).sum()
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
                cards: if g.shows_cards(Some(seat), s) { shown_cards(c, p.cards) } else { 0 },
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
    write(&Offsets::of(&fields(p, &c)), &Facts::of_observation(o), out);
}

/// `seat`'s tensor written straight from the state: the same numbers as [`encode`] of its
/// observation, with no observation built (and the offsets the game's states share).
pub(crate) fn write_for(g: &Expedition, seat: Seat, out: &mut [f32]) {
    write(&g.shared.tensor_offsets, &Facts::of_state(g, seat), out);
}

/// The fields, by their place in [`fields`]: what the writer names a field by.
#[derive(Clone, Copy)]
enum F {
    Players,
    DiceGame,
    ToMove,
    FirstPlayer,
    Step,
    Returning,
    Die,
    Round,
    LastRound,
    CoinBonus,
    CompletedThisTurn,
    PileSize,
    DeckSize,
    MaxRounds,
    PileTopPlace,
    PileBottom,
    HqTiles,
    HqTools,
    Bag,
    FaceUp,
    OutOfPlayTiles,
    OutOfPlayCards,
    OutOfPlayTools,
    SeatPresent,
    SeatPosition,
    SeatFavourite,
    SeatTorch,
    SeatTools,
    SeatTiles,
    SeatDiscoveries,
    SeatCounts,
    SeatCards,
    SeatCardsSeen,
}

impl F {
    /// Every field, in the layout's order.
    const ALL: [F; FIELDS] = [
        F::Players,
        F::DiceGame,
        F::ToMove,
        F::FirstPlayer,
        F::Step,
        F::Returning,
        F::Die,
        F::Round,
        F::LastRound,
        F::CoinBonus,
        F::CompletedThisTurn,
        F::PileSize,
        F::DeckSize,
        F::MaxRounds,
        F::PileTopPlace,
        F::PileBottom,
        F::HqTiles,
        F::HqTools,
        F::Bag,
        F::FaceUp,
        F::OutOfPlayTiles,
        F::OutOfPlayCards,
        F::OutOfPlayTools,
        F::SeatPresent,
        F::SeatPosition,
        F::SeatFavourite,
        F::SeatTorch,
        F::SeatTools,
        F::SeatTiles,
        F::SeatDiscoveries,
        F::SeatCounts,
        F::SeatCards,
        F::SeatCardsSeen,
    ];

    /// The field's name in the layout.
    fn name(self) -> &'static str {
        match self {
            F::Players => "players",
            F::DiceGame => "dice_game",
            F::ToMove => "to_move",
            F::FirstPlayer => "first_player",
            F::Step => "step",
            F::Returning => "returning",
            F::Die => "die",
            F::Round => "round",
            F::LastRound => "last_round",
            F::CoinBonus => "coin_bonus",
            F::CompletedThisTurn => "completed_this_turn",
            F::PileSize => "pile_size",
            F::DeckSize => "deck_size",
            F::MaxRounds => "max_rounds",
            F::PileTopPlace => "pile_top_place",
            F::PileBottom => "pile_bottom",
            F::HqTiles => "hq_tiles",
            F::HqTools => "hq_tools",
            F::Bag => "bag",
            F::FaceUp => "face_up",
            F::OutOfPlayTiles => "out_of_play_tiles",
            F::OutOfPlayCards => "out_of_play_cards",
            F::OutOfPlayTools => "out_of_play_tools",
            F::SeatPresent => "seat_present",
            F::SeatPosition => "seat_position",
            F::SeatFavourite => "seat_favourite",
            F::SeatTorch => "seat_torch",
            F::SeatTools => "seat_tools",
            F::SeatTiles => "seat_tiles",
            F::SeatDiscoveries => "seat_discoveries",
            F::SeatCounts => "seat_counts",
            F::SeatCards => "seat_cards",
            F::SeatCardsSeen => "seat_cards_seen",
        }
    }
}

/// Where each field starts in a layout's tensor (and, last, where the tensor ends), by
/// [`F`]; and the tiles and cards of its content set. A learner writes a tensor every step:
/// the writer puts each number at its place, with no walk over the layout.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Offsets {
    at: [usize; FIELDS + 1],
    tiles: usize,
    cards: usize,
}

impl Offsets {
    /// The offsets of `layout`, as [`fields`] makes it ([`F`] names its fields in the same
    /// order: checked here, by name, wherever a layout's offsets are made).
    pub(crate) fn of(layout: &[TensorField; FIELDS]) -> Offsets {
        let mut at = [0; FIELDS + 1];
        for (i, (field, f)) in layout.iter().zip(F::ALL).enumerate() {
            assert_eq!(field.name, f.name(), "the tensor writer's field {i} is not the layout's");
            at[i + 1] = at[i] + field.size;
        }
        let size = |f: F| layout[f as usize].size;
        Offsets { at, tiles: size(F::PileBottom), cards: size(F::FaceUp) / FACE_UP }
    }
}

/// A tensor being written: zeroed first, then each number put in its field, at an index
/// checked to lie inside the field.
struct Out<'a> {
    at: &'a [usize; FIELDS + 1],
    out: &'a mut [f32],
}

impl Out<'_> {
    #[inline(always)]
    fn field(&mut self, f: F) -> &mut [f32] {
        let i = f as usize;
        &mut self.out[self.at[i]..self.at[i + 1]]
    }

    /// A 1 at `i` of the field.
    #[inline(always)]
    fn mark(&mut self, f: F, i: usize) {
        self.field(f)[i] = 1.0;
    }

    /// A 1 at `i` of the field, if there is one.
    #[inline(always)]
    fn mark_some(&mut self, f: F, i: Option<usize>) {
        if let Some(i) = i {
            self.mark(f, i);
        }
    }

    /// The field's numbers, as many as its size.
    #[inline(always)]
    fn values(&mut self, f: F, values: &[f32]) {
        self.field(f).copy_from_slice(values);
    }

    /// A 1 in block `block` (of `stride` numbers) at each id of the bit set `ids`.
    #[inline(always)]
    fn bits(&mut self, f: F, block: usize, stride: usize, mut ids: u64) {
        let field = self.field(f);
        while ids != 0 {
            field[block * stride + ids.trailing_zeros() as usize] = 1.0;
            ids &= ids - 1;
        }
    }
}

fn write(at: &Offsets, o: &Facts, out: &mut [f32]) {
    assert_eq!(out.len(), at.at[FIELDS], "a tensor's buffer holds the layout's size");
    out.fill(0.0);
    let (t, k) = (at.tiles, at.cards);
    let mut w = Out { at: &at.at, out };
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
    w.mark(F::Players, usize::from(o.players).clamp(2, 4) - 2);
    w.values(F::DiceGame, &[f32::from(u8::from(o.dice_game))]);
    w.mark(F::ToMove, o.to_move.map_or(SEATS, rel));
    w.mark(F::FirstPlayer, rel(o.first_player));
    let step = match o.step {
        Step::Roll => 0,
        Step::Rolled => 1,
        Step::Action => 2,
        Step::Complete => 3,
        Step::Finish => 4,
        Step::Over => 5,
    };
    w.mark(F::Step, step);
    w.mark_some(
        F::Returning,
        o.returning.map(|r| match r {
            Returning::Tile => 0,
            Returning::Tool => 1,
        }),
    );
    w.mark_some(
        F::Die,
        o.die.map(|f| match f {
            Face::Tool => 0,
            Face::Torch => 1,
            Face::Coin => 2,
        }),
    );
    w.values(F::Round, &[f32::from(o.round) / f32::from(o.max_rounds.max(1))]);
    w.values(F::LastRound, &[f32::from(u8::from(o.last_round))]);
    w.values(F::CoinBonus, &[part(&TENTHS, o.coin_bonus)]);
    w.values(F::CompletedThisTurn, &[part(&SIXTHS, o.completed_this_turn)]);
    w.values(F::PileSize, &[f32::from(o.pile_count) / t.max(1) as f32]);
    w.values(F::DeckSize, &[f32::from(o.deck_count) / k.max(1) as f32]);
    w.values(F::MaxRounds, &[f32::from(o.max_rounds) / 200.0]);
    w.mark_some(F::PileTopPlace, o.pile_top_is_place.map(|place| if place { 0 } else { 1 }));
    w.bits(F::PileBottom, 0, t, o.pile_bottom);
    for (col, &id) in o.hq_tiles.iter().enumerate() {
        if id != NONE {
            w.mark(F::HqTiles, col * t + usize::from(id));
        }
    }
    let hq_tools: [[f32; 4]; HQ_COLUMNS] = o.hq_tools.map(|c| c.map(|x| part(&THIRDS, x)));
    w.values(F::HqTools, hq_tools.as_flattened());
    w.values(F::Bag, &o.bag.map(|x| part(&TWENTIETHS, x)));
    for (i, &id) in o.face_up.iter().enumerate() {
        if id != NONE {
            w.mark(F::FaceUp, i * k + usize::from(id));
        }
    }
    w.values(F::OutOfPlayTiles, &[f32::from(o.out_of_play_tiles) / t.max(1) as f32]);
    w.values(F::OutOfPlayCards, &[f32::from(o.out_of_play_cards) / k.max(1) as f32]);
    w.values(F::OutOfPlayTools, &o.out_of_play_tools.map(|x| part(&TWENTIETHS, x)));
    let (mut tools, mut counts) = ([0.0f32; SEATS * 4], [0.0f32; SEATS * 3]);
    for (s, v) in o.seats.iter().enumerate().take(n) {
        let r = rel(s as u8);
        w.mark(F::SeatPresent, s);
        w.mark(F::SeatPosition, r * SEATS + usize::from(v.turn_position).min(3));
        w.mark(F::SeatFavourite, r * 4 + v.favourite);
        if v.torch_lit {
            w.mark(F::SeatTorch, r);
        }
        for (i, &x) in v.tools.iter().enumerate() {
            tools[r * 4 + i] = part(&SIXTHS, x);
        }
        counts[r * 3] = part(&TWENTIETHS, v.coins_visible);
        counts[r * 3 + 1] = v.score as f32 / 100.0;
        counts[r * 3 + 2] = part(&TENTHS, v.cards_held);
        w.bits(F::SeatTiles, r, t, v.tiles);
        w.bits(F::SeatDiscoveries, r, t, v.discoveries);
        w.bits(F::SeatCards, r, k, v.cards);
        w.bits(F::SeatCardsSeen, r, k, v.cards_seen_taken);
    }
    w.values(F::SeatTools, &tools);
    w.values(F::SeatCounts, &counts);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The writer's names for the fields follow the layout's order, and a layout in another
    /// order is refused where its offsets are made (not written in the wrong places).
    #[test]
    fn offsets_follow_the_layout_by_name() {
        let p = ExpeditionParams::dice_game();
        let mut layout = fields(&p, &p.content.get());
        let offsets = Offsets::of(&layout);
        assert_eq!(offsets.at[FIELDS], layout.iter().map(|f| f.size).sum::<usize>());
        let (c, k) = (&p.content.get(), FACE_UP);
        assert_eq!((offsets.tiles, offsets.cards * k), (c.tiles.len(), k * c.cards.len()));
        layout.swap(F::Bag as usize, F::FaceUp as usize);
        let refused = std::panic::catch_unwind(|| Offsets::of(&layout)).expect_err("a layout out of order");
        let message = refused.downcast_ref::<String>().expect("a message");
        assert!(message.contains("the tensor writer's field 18 is not the layout's"), "{message}");
    }
}
