//! What each seat may know, as data and as text, and redrawing what it may not.
//!
//! Public: the Headquarters, boards, backpacks, torches, completed tiles, scores, face-up
//! cards, the bag by count, the deck's and the pile's sizes, and whether the pile's top tile
//! is a Place (its back shows). Private: the Expedition cards a player holds (the others see
//! how many), until everyone reveals them at the end. Hidden from all: deck and pile order.

use super::content::{CardKind, Content, TileKind, WILD_TEXT};
use super::{DiscoveryRule, Expedition, ExpeditionParams, Face, NONE, ScoreBreakdown, Step, Tool};
use crate::core::{DrawPile, Pile, Seat, SmallRng, fresh_chance, redraw_shuffle};
use rand::RngExt;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCounts {
    pub compass: u8,
    pub rope: u8,
    pub map: u8,
    pub shovel: u8,
}

impl ToolCounts {
    pub fn from_array(a: [u8; 4]) -> ToolCounts {
        ToolCounts { compass: a[0], rope: a[1], map: a[2], shovel: a[3] }
    }
    pub fn to_array(self) -> [u8; 4] {
        [self.compass, self.rope, self.map, self.shovel]
    }
    pub fn total(self) -> u8 {
        self.to_array().iter().sum()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileView {
    /// The tile's id in the content set (its place in the list of tiles).
    pub id: u8,
    pub name: String,
    pub kind: TileKind,
    pub tools: Vec<Tool>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColumnView {
    pub tile: Option<TileView>,
    pub tools: Vec<Tool>,
}

/// The three kinds of Expedition card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CardClass {
    Mission,
    Discovery,
    Dice,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardView {
    /// The card's id in the content set (its place in the list of cards).
    pub id: u8,
    pub name: String,
    pub kind: CardClass,
    /// Mission: the three tiles; Discovery card: the tile it counts as (`discovery_cards:
    /// named`), or none when it counts as any one tile (`wild`, the default).
    pub tiles: Vec<String>,
    /// Mission: the coins printed on it.
    pub coins: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatView {
    pub seat: u8,
    /// 0 for the first player, and so on clockwise.
    pub turn_position: u8,
    /// The character's id in the content set, and its name.
    pub character_id: u8,
    pub character: String,
    pub favourite: Tool,
    pub torch_lit: bool,
    pub tools: ToolCounts,
    /// Tiles taken, not yet completed.
    pub tiles: Vec<TileView>,
    /// Completed tiles, in order.
    pub discoveries: Vec<TileView>,
    /// Lost Coins now visible on the board (printed and Place backs).
    pub coins_visible: u8,
    pub score: i32,
    pub cards_held: u8,
    /// The cards themselves: only in the seat's own observation (and for all at the end).
    pub cards: Option<Vec<CardView>>,
    /// The held cards everyone saw this player take from the face-up row.
    pub cards_seen_taken: Vec<CardView>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinalScore {
    pub seat: u8,
    pub rank: u8,
    pub breakdown: ScoreBreakdown,
    pub missions_done: Vec<String>,
}

/// What the player to move must put back before anything else.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Returning {
    /// More than three tiles held: one goes under the pile.
    Tile,
    /// More than six tools: one goes back to the bag.
    Tool,
}

/// Exactly what one seat may know: every public fact, and the seat's own cards (a full state
/// can be rebuilt from it with `Game::from_observation`, the hidden facts drawn afresh).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    /// Whose observation this is (0 in a watcher's).
    pub seat: u8,
    /// A watcher's observation ([`crate::core::Game::public_observation`]): no seat's, no
    /// held card in it until the game is over.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub watcher: bool,
    pub players: u8,
    pub dice_game: bool,
    pub first_player: u8,
    pub to_move: Option<u8>,
    pub step: Step,
    /// Must the player to move first put back a tile / tools over the limit?
    pub returning: Option<Returning>,
    pub round: u16,
    /// The game stops at the end of this round at the latest (parameter `max_rounds`).
    pub max_rounds: u16,
    pub last_round: bool,
    /// The face the die shows (at step `rolled`: not acted yet).
    pub die: Option<Face>,
    pub coin_bonus: u8,
    pub completed_this_turn: u8,
    pub hq: Vec<ColumnView>,
    pub pile_count: u8,
    pub pile_top_is_place: Option<bool>,
    /// The bottom of the pile, bottom first: tiles everyone saw put back there.
    pub pile_bottom: Vec<TileView>,
    pub bag: ToolCounts,
    pub deck_count: u8,
    pub face_up: Vec<Option<CardView>>,
    pub seats: Vec<SeatView>,
    /// Tiles and cards a scenario left out of play, face down (how many), and tools.
    pub out_of_play_tiles: u8,
    pub out_of_play_cards: u8,
    pub out_of_play_tools: ToolCounts,
    pub final_scores: Option<Vec<FinalScore>>,
}

fn tile_view(c: &Content, t: u8) -> TileView {
    let tile = &c.tiles[t as usize];
    TileView { id: t, name: tile.name.clone(), kind: tile.kind, tools: tile.tools.clone() }
}

/// The id a card shows by: its own, or for a Dice card that of the first Dice card of the
/// content (they are identical: none can be told from another).
pub(crate) fn shown_card(c: &Content, k: u8) -> u8 {
    if c.is_dice(k) { c.dice_cards.trailing_zeros() as u8 } else { k }
}

/// A set of cards as a seat sees it: [`shown_card`] of each.
pub(crate) fn shown_cards(c: &Content, cards: u64) -> u64 {
    let dice = cards & c.dice_cards;
    if dice == 0 { cards } else { (cards & !dice) | 1 << c.dice_cards.trailing_zeros() }
}

/// A card as a seat sees it. Dice cards are identical, so one shows by its kind alone: its id
/// is that of the first Dice card of the content, whichever it is.
fn card_view(c: &Content, k: u8, discovery: DiscoveryRule) -> CardView {
    let card = &c.cards[k as usize];
    let k = shown_card(c, k);
    let name = |t: u8| c.tiles[t as usize].name.clone();
    match card.kind {
        CardKind::Mission { tiles, coins } => CardView {
            id: k,
            name: card.name.clone(),
            kind: CardClass::Mission,
            tiles: tiles.iter().map(|&t| name(t)).collect(),
            coins,
        },
        CardKind::Discovery { tile } => {
            let tiles = match discovery {
                DiscoveryRule::Named => vec![name(tile)],
                DiscoveryRule::Wild => vec![],
            };
            CardView { id: k, name: card.name.clone(), kind: CardClass::Discovery, tiles, coins: 0 }
        }
        CardKind::Dice => CardView { id: k, name: card.name.clone(), kind: CardClass::Dice, tiles: vec![], coins: 0 },
    }
}

fn card_line(v: &CardView) -> String {
    match v.kind {
        CardClass::Mission => format!("Mission \"{}\": {} ({} coins)", v.name, v.tiles.join(", "), v.coins),
        CardClass::Discovery if v.tiles.is_empty() => format!("Discovery \"{}\" ({WILD_TEXT})", v.name),
        CardClass::Discovery => format!("Discovery \"{}\" (counts as {})", v.name, v.tiles.join(", ")),
        CardClass::Dice => v.name.clone(),
    }
}

/// The set bits of a mask, lowest first (as many as it has set: a vector of them is
/// allocated once).
pub(crate) fn bits(m: u64) -> Bits {
    Bits(m)
}

pub(crate) struct Bits(u64);

impl Iterator for Bits {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        if self.0 == 0 {
            return None;
        }
        let b = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(b)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bits {}

impl Expedition {
    /// Does `viewer` see the cards `seat` holds? Its own, and everyone's once the game is over
    /// (a watcher, `None`: only then).
    pub(crate) fn shows_cards(&self, viewer: Option<Seat>, seat: usize) -> bool {
        self.step == Step::Over || viewer.is_some_and(|v| seat == v.index())
    }

    /// Lost Coins visible on `seat`'s board: the printed ones not covered, and Place backs.
    pub(crate) fn coins_visible(&self, seat: usize) -> u8 {
        let (c, p) = (&*self.shared.content, &self.players[seat]);
        let places = p.done.iter().filter(|&&t| c.is_place(t)).count();
        super::scoring::coins_showing(p.done.len(), places) as u8
    }

    /// What the player to move must put back first, if anything.
    pub(crate) fn returning(&self) -> Option<Returning> {
        let cur = &self.players[self.current as usize];
        if self.step == Step::Over {
            None
        } else if cur.tiles.len() > super::TILE_LIMIT {
            Some(Returning::Tile)
        } else if cur.tool_count() > super::TOOL_LIMIT {
            Some(Returning::Tool)
        } else {
            None
        }
    }

    /// What `viewer` may know: a seat's observation, or with `None` a watcher's.
    pub(crate) fn observe(&self, viewer: Option<Seat>) -> Observation {
        let c = &*self.shared.content;
        let rule = self.shared.params.discovery_cards;
        let view = |k: u8| card_view(c, k, rule);
        let tile_view = |t: u8| tile_view(c, t);
        let over = self.step == Step::Over;
        let n = self.n as usize;
        let outcome = over.then(|| self.final_outcome());
        let seats = (0..n)
            .map(|s| {
                let p = &self.players[s];
                let ch = &c.characters[p.character as usize];
                SeatView {
                    seat: s as u8,
                    turn_position: self.turn_position(s) as u8,
                    character_id: p.character,
                    character: ch.name.clone(),
                    favourite: ch.favourite,
                    torch_lit: p.torch_lit,
                    tools: ToolCounts::from_array(p.tools),
                    tiles: p.tiles.iter().map(|&t| tile_view(t)).collect(),
                    discoveries: p.done.iter().map(|&t| tile_view(t)).collect(),
                    coins_visible: self.coins_visible(s),
                    score: p.score,
                    cards_held: p.cards.count_ones() as u8,
                    cards: self.shows_cards(viewer, s).then(|| bits(p.cards).map(view).collect()),
                    cards_seen_taken: bits(p.known).map(view).collect(),
                }
            })
            .collect();
        Observation {
            seat: viewer.map_or(0, |v| v.0),
            watcher: viewer.is_none(),
            players: self.n,
            dice_game: self.shared.params.dice,
            first_player: self.first,
            to_move: (!over).then_some(self.current),
            step: self.step,
            returning: self.returning(),
            round: self.round,
            max_rounds: self.shared.params.max_rounds(),
            last_round: self.last_round,
            die: self.die,
            coin_bonus: self.coin_bonus,
            completed_this_turn: self.completed,
            hq: (0..super::HQ_COLUMNS)
                .map(|col| ColumnView {
                    tile: (self.hq_tile[col] != NONE).then(|| tile_view(self.hq_tile[col])),
                    tools: self.hq_tools[col]
                        .iter()
                        .filter(|&&t| t != NONE)
                        .map(|&t| Tool::from_index(t as usize))
                        .collect(),
                })
                .collect(),
            pile_count: self.pile.len() as u8,
            pile_top_is_place: self.pile.top().map(|t| c.is_place(t)),
            pile_bottom: self.pile.known_bottom().iter().map(|&t| tile_view(t)).collect(),
            bag: ToolCounts::from_array(self.bag),
            deck_count: self.deck.len() as u8,
            face_up: self.face_up.iter().map(|&k| (k != NONE).then(|| view(k))).collect(),
            seats,
            out_of_play_tiles: self.boxed_tiles.count_ones() as u8,
            out_of_play_cards: self.boxed_cards.count_ones() as u8,
            out_of_play_tools: ToolCounts::from_array(self.boxed_tools),
            final_scores: outcome.map(|o| {
                (0..n)
                    .map(|s| {
                        let b = self.breakdown(s);
                        FinalScore {
                            seat: s as u8,
                            rank: o.ranks[s],
                            missions_done: b.missions_done.iter().map(|&k| c.cards[k as usize].name.clone()).collect(),
                            breakdown: b,
                        }
                    })
                    .collect()
            }),
        }
    }

    /// A state `seat` cannot tell from this one: the other players' hidden cards (from the
    /// cards `seat` has not seen), deck order, pile order (its top keeps its kind), and the
    /// generator of future draws and rolls are redrawn.
    pub(crate) fn redraw(&self, seat: Seat, rng: &mut SmallRng) -> Expedition {
        let mut g = self.clone();
        let n = g.n as usize;
        let over = g.step == Step::Over;
        // Cards unseen by `seat`: the deck, those out of play, and (until the reveal) the
        // other hands but for the cards seen taken.
        let mut pool: Pile<u8, { super::content::MAX_CARDS }> = g.deck;
        bits(g.boxed_cards).for_each(|k| pool.push(k));
        let mut counts = [0u32; super::MAX_PLAYERS];
        if !over {
            for (s, p) in g.players[..n].iter_mut().enumerate() {
                if s != seat.index() {
                    let hidden = p.cards & !p.known;
                    counts[s] = hidden.count_ones();
                    bits(hidden).for_each(|k| pool.push(k));
                    p.cards = p.known;
                }
            }
        }
        redraw_shuffle(pool.as_mut_slice(), rng);
        for (p, &count) in g.players[..n].iter_mut().zip(&counts) {
            for _ in 0..count {
                if let Some(k) = pool.pop() {
                    p.cards |= 1 << k;
                }
            }
        }
        let boxed = g.boxed_cards.count_ones();
        g.boxed_cards = 0;
        for _ in 0..boxed {
            if let Some(k) = pool.pop() {
                g.boxed_cards |= 1 << k;
            }
        }
        g.deck = pool;
        // Tiles unseen by all: the pile above its known bottom, and those out of play. The
        // pile's top keeps the kind everyone sees on its back: a top drawn from the unseen
        // tiles of that kind, the rest shuffled, the pile's share laid under the top.
        if let Some(pile_top) = g.pile.unknown().last().copied() {
            let c = &*g.shared.content;
            let top_place = c.is_place(pile_top);
            let mut unseen: Pile<u8, { super::content::MAX_TILES }> = Pile::new();
            g.pile.unknown().iter().for_each(|&t| unseen.push(t));
            bits(g.boxed_tiles).for_each(|t| unseen.push(t));
            let tops = unseen.iter().filter(|&&t| c.is_place(t) == top_place).count();
            let nth = rng.random_range(0..tops);
            let at = (0..unseen.len()).filter(|&i| c.is_place(unseen.as_slice()[i]) == top_place).nth(nth);
            let top = unseen.remove(at.expect("the top's kind is among the unseen tiles"));
            redraw_shuffle(unseen.as_mut_slice(), rng);
            let slice = g.pile.unknown_mut();
            let under = slice.len() - 1;
            slice[..under].copy_from_slice(&unseen.as_slice()[..under]);
            slice[under] = top;
            g.boxed_tiles = unseen.as_slice()[under..].iter().fold(0, |m, &t| m | 1 << t);
        }
        g.rng = fresh_chance(rng);
        g
    }
}

/// A full state with exactly the facts `o` shows: the public ones and the seat's own cards.
/// What it hides is laid out in a fixed arrangement — the other players' face-down cards and
/// the deck from the cards placed nowhere else, the pile's unknown part from the tiles placed
/// nowhere else (a tile of the kind its back shows on top) — and the generator is seeded from
/// nothing: `redraw_hidden` then draws them. An observation that does not describe a position
/// (an id out of range, a tile or card placed twice, counts that do not add up) is an error.
pub(crate) fn from_observation(params: &ExpeditionParams, o: &Observation) -> Result<Expedition, String> {
    let n = params.players();
    if o.players as usize != n || o.seats.len() != n {
        return Err(format!("the observation shows {} players; the parameters say {n}", o.seats.len()));
    }
    if o.dice_game != params.dice {
        return Err(format!("the observation is of the {}", if o.dice_game { "dice game" } else { "no-dice variant" }));
    }
    let mut g = super::setup::empty_table(params, 0);
    let content = g.shared.content.clone();
    let (tiles, cards) = (content.tiles.len(), content.cards.len());
    let mut tiles_seen = 0u64;
    let mut place_tile = |t: u8, at: &str| -> Result<u8, String> {
        if t as usize >= tiles || tiles_seen >> t & 1 == 1 {
            return Err(format!("{at}: tile {t} is out of range or placed twice"));
        }
        tiles_seen |= 1 << t;
        Ok(t)
    };
    let mut cards_seen = 0u64;
    let dice = content.dice_cards;
    // A Dice card is shown by its kind alone (they are identical): any one not yet placed.
    let mut place_card = |v: &CardView, at: &str| -> Result<u8, String> {
        let k = match v.kind {
            CardClass::Dice => (dice & !cards_seen).trailing_zeros() as u8,
            _ => v.id,
        };
        if k as usize >= cards || cards_seen >> k & 1 == 1 || content.is_dice(k) != (v.kind == CardClass::Dice) {
            return Err(format!("{at}: card {} is out of range, placed twice or not a {:?} card", v.id, v.kind));
        }
        cards_seen |= 1 << k;
        Ok(k)
    };
    g.first = o.first_player % n as u8;
    g.current = o.to_move.unwrap_or((g.first + n as u8 - 1) % n as u8);
    g.step = o.step;
    g.round = o.round;
    g.last_round = o.last_round;
    g.die = o.die;
    g.coin_bonus = o.coin_bonus;
    g.completed = o.completed_this_turn;
    g.bag = o.bag.to_array();
    for (col, v) in o.hq.iter().enumerate().take(super::HQ_COLUMNS) {
        g.hq_tile[col] = match &v.tile {
            Some(t) => place_tile(t.id, "hq")?,
            None => NONE,
        };
        for (k, t) in v.tools.iter().take(2).enumerate() {
            g.hq_tools[col][k] = t.index() as u8;
        }
    }
    for (i, v) in o.face_up.iter().enumerate().take(super::FACE_UP) {
        g.face_up[i] = match v {
            Some(c) => place_card(c, "face_up")?,
            None => NONE,
        };
    }
    g.boxed_tools = o.out_of_play_tools.to_array();
    // The players: all that shows, and for now only the cards this seat has seen.
    let mut face_down = [0u32; super::MAX_PLAYERS];
    for (s, v) in o.seats.iter().enumerate() {
        let p = &mut g.players[s];
        if v.character_id as usize >= content.characters.len() {
            return Err(format!("seat {s}: character {} is out of range", v.character_id));
        }
        p.character = v.character_id;
        p.torch_lit = v.torch_lit;
        p.tools = v.tools.to_array();
        for t in &v.tiles {
            p.tiles.push(place_tile(t.id, "tiles")?);
        }
        for t in &v.discoveries {
            p.done.push(place_tile(t.id, "discoveries")?);
        }
        p.score = v.score;
        match &v.cards {
            Some(held) => {
                for c in held {
                    p.cards |= 1 << place_card(c, "cards")?;
                }
                // The cards seen taken are among those held (a Dice card: any held one).
                for c in &v.cards_seen_taken {
                    let k = match c.kind {
                        CardClass::Dice => (p.cards & dice & !p.known).trailing_zeros() as u8,
                        _ => c.id,
                    };
                    if k >= 64 || p.cards >> k & 1 == 0 || p.known >> k & 1 == 1 {
                        return Err(format!("seat {s}: a card seen taken ({}) is not among the cards held", c.name));
                    }
                    p.known |= 1 << k;
                }
            }
            None => {
                for c in &v.cards_seen_taken {
                    let k = place_card(c, "cards seen taken")?;
                    p.cards |= 1 << k;
                    p.known |= 1 << k;
                }
                face_down[s] = u32::from(v.cards_held).checked_sub(p.cards.count_ones()).ok_or(format!(
                    "seat {s}: holds {} cards, fewer than the {} seen taken",
                    v.cards_held,
                    p.cards.count_ones()
                ))?;
            }
        }
    }
    // The pile: its known bottom, then the tiles placed nowhere, one whose back shows the
    // kind of the top on top.
    let bottom: Vec<u8> = o.pile_bottom.iter().map(|t| place_tile(t.id, "pile bottom")).collect::<Result<_, _>>()?;
    let mut rest: Vec<u8> = (0..tiles as u8).filter(|&t| tiles_seen >> t & 1 == 0).collect();
    if bottom.len() + rest.len() != o.pile_count as usize + o.out_of_play_tiles as usize {
        return Err(format!(
            "the pile and the box hold {} tiles, but {} are placed nowhere",
            o.pile_count as usize + o.out_of_play_tiles as usize,
            bottom.len() + rest.len()
        ));
    }
    // Tiles out of play (face down): some of those placed nowhere.
    for t in rest.drain(..o.out_of_play_tiles as usize) {
        g.boxed_tiles |= 1 << t;
    }
    if let (Some(place), false) = (o.pile_top_is_place, rest.is_empty()) {
        let top =
            rest.iter().position(|&t| content.is_place(t) == place).ok_or("no tile of the pile's top kind is left")?;
        let t = rest.remove(top);
        rest.push(t);
    }
    g.pile = DrawPile::with_known_bottom(&bottom, &rest);
    // The cards placed nowhere: the others' face-down cards, those out of play, the deck.
    let mut unseen = (0..cards as u8).filter(|&k| cards_seen >> k & 1 == 0);
    for (s, &count) in face_down.iter().enumerate().take(n) {
        for _ in 0..count {
            let k = unseen.next().ok_or(format!("seat {s}: more cards held than there are"))?;
            g.players[s].cards |= 1 << k;
        }
    }
    for _ in 0..o.out_of_play_cards {
        g.boxed_cards |= 1 << unseen.next().ok_or("more cards out of play than there are")?;
    }
    unseen.for_each(|k| g.deck.push(k));
    if g.deck.len() != o.deck_count as usize {
        return Err(format!("the deck holds {} cards, but {} are placed nowhere", o.deck_count, g.deck.len()));
    }
    Ok(g)
}

/// The observation as text a person can follow.
pub(crate) fn render(o: &Observation) -> String {
    let mut s = String::new();
    let variant = if o.dice_game { "dice game" } else { "no-dice variant" };
    if o.watcher {
        let _ = writeln!(s, "Expedition, {} players, {variant}. You are watching.", o.players);
    } else {
        let _ = writeln!(s, "Expedition, {} players, {variant}. You are seat {}.", o.players, o.seat);
    }
    // The same words whatever the player to move holds: the text must not tell a Dice card.
    let step = match o.step {
        Step::Roll => "roll the die",
        Step::Rolled => "keep the roll (a Dice card's holder may discard one to change the face)",
        Step::Action => "prepare an expedition (take a column) or go on an expedition (take a card)",
        Step::Complete => "on an expedition: complete tiles or end the turn",
        Step::Finish if o.dice_game => "finish the turn",
        Step::Finish => "end the turn (a Dice card's holder may use one first)",
        Step::Over => "the game is over",
    };
    match o.to_move {
        Some(p) => {
            let who = if p == o.seat && !o.watcher { "you".to_string() } else { format!("seat {p}") };
            let _ = write!(
                s,
                "Round {} of at most {}{}: {who} to move, {step}",
                o.round,
                o.max_rounds,
                if o.last_round { " (last round)" } else { "" }
            );
            match o.returning {
                Some(Returning::Tile) => s.push_str(" (first put a tile back: more than 3 held)"),
                Some(_) => s.push_str(" (first put tools back: more than 6 held)"),
                None => {}
            }
            s.push_str(".\n");
        }
        None if o.last_round => {
            let _ = writeln!(s, "The game is over after {} rounds.", o.round);
        }
        None => {
            let _ = writeln!(
                s,
                "The game is over after {} rounds: the round limit, before anyone's sixth discovery.",
                o.round
            );
        }
    }
    match o.die {
        Some(d) if o.step == Step::Rolled => {
            let _ = writeln!(s, "Die: {d} (not acted yet).");
        }
        Some(d) => {
            let _ = writeln!(s, "Die: {d}.");
        }
        None => {}
    }
    if o.coin_bonus > 0 || o.completed_this_turn > 0 {
        let _ = writeln!(s, "This turn: {} tile(s) completed, +{} per tile.", o.completed_this_turn, o.coin_bonus);
    }
    s.push_str("Headquarters:\n");
    for (i, col) in o.hq.iter().enumerate() {
        let tile = match &col.tile {
            Some(t) => tile_text(t),
            None => "(no tile)".into(),
        };
        let tools: Vec<&str> = col.tools.iter().map(|t| t.name()).collect();
        let _ = writeln!(
            s,
            "  column {}: {tile}; tools: {}",
            i + 1,
            if tools.is_empty() { "none".into() } else { tools.join(", ") }
        );
    }
    let top = match o.pile_top_is_place {
        Some(true) => ", top is a Place",
        Some(false) => ", top is an Artifact",
        None => "",
    };
    let bottom = if o.pile_bottom.is_empty() {
        String::new()
    } else {
        format!(", put back under it (bottom first): {}", names(&o.pile_bottom))
    };
    let _ = writeln!(
        s,
        "Pile: {} tiles{top}{bottom}. Deck: {} cards. Bag: {}.",
        o.pile_count,
        o.deck_count,
        counts_text(o.bag)
    );
    s.push_str("Face-up cards:\n");
    for (i, c) in o.face_up.iter().enumerate() {
        let _ = writeln!(s, "  {}: {}", i + 1, c.as_ref().map(card_line).unwrap_or_else(|| "(empty)".into()));
    }
    for p in &o.seats {
        let you = if p.seat == o.seat && !o.watcher { " (you)" } else { "" };
        let first = if p.turn_position == 0 { ", first player" } else { "" };
        let _ = writeln!(
            s,
            "Seat {}{you}{first}: {} (favourite {}), torch {}, score {}.",
            p.seat,
            p.character,
            p.favourite,
            if p.torch_lit { "lit" } else { "out" },
            p.score
        );
        let _ = writeln!(s, "  backpack ({}/6): {}", p.tools.total(), counts_text(p.tools));
        let tiles: Vec<String> = p.tiles.iter().map(tile_text).collect();
        let _ = writeln!(
            s,
            "  tiles ({}/3): {}",
            tiles.len(),
            if tiles.is_empty() { "none".into() } else { tiles.join("; ") }
        );
        let done = p.discoveries.len();
        let count = if done <= super::BOARD_SPACES {
            format!("{done}/{}", super::BOARD_SPACES)
        } else {
            format!("{done} discoveries, {} on the board", super::BOARD_SPACES)
        };
        let _ = writeln!(
            s,
            "  discoveries ({count}, {} coins visible): {}",
            p.coins_visible,
            if p.discoveries.is_empty() { "none".into() } else { names(&p.discoveries) }
        );
        match &p.cards {
            Some(cards) if !cards.is_empty() => {
                let _ = writeln!(s, "  cards ({}):", cards.len());
                for c in cards {
                    let _ = writeln!(s, "    {}", card_line(c));
                }
            }
            Some(_) => s.push_str("  cards: none\n"),
            None => {
                let _ = writeln!(s, "  cards: {} (hidden)", p.cards_held);
                for c in &p.cards_seen_taken {
                    let _ = writeln!(s, "    seen taken: {}", card_line(c));
                }
            }
        }
    }
    if o.out_of_play_tiles > 0 || o.out_of_play_cards > 0 || o.out_of_play_tools.total() > 0 {
        let _ = writeln!(
            s,
            "Out of play: {} tiles, {} cards, tools {}.",
            o.out_of_play_tiles,
            o.out_of_play_cards,
            counts_text(o.out_of_play_tools)
        );
    }
    if let Some(fs) = &o.final_scores {
        s.push_str("Final scores:\n");
        for f in fs {
            let b = &f.breakdown;
            let _ = writeln!(
                s,
                "  #{} seat {}: {} = {} from discoveries + {} from missions{} + {} from Dice cards",
                f.rank + 1,
                f.seat,
                b.total,
                b.completions,
                b.missions,
                if f.missions_done.is_empty() { String::new() } else { format!(" ({})", f.missions_done.join(", ")) },
                b.dice_cards
            );
        }
    }
    s
}

fn names(tiles: &[TileView]) -> String {
    tiles.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ")
}

fn tile_text(t: &TileView) -> String {
    let kind = match t.kind {
        TileKind::Place => "Place",
        TileKind::Artifact => "Artifact",
    };
    let tools: Vec<&str> = t.tools.iter().map(|x| x.name()).collect();
    format!("{} ({kind}: {})", t.name, tools.join("+"))
}

fn counts_text(c: ToolCounts) -> String {
    format!("compass {}, rope {}, map {}, shovel {}", c.compass, c.rope, c.map, c.shovel)
}
