//! What each seat may know, as data and as text, and redrawing what it may not.
//!
//! Public: the Headquarters, boards, backpacks, torches, completed tiles, scores, face-up
//! cards, the bag by count, the deck's and the pile's sizes, and whether the pile's top tile
//! is a Place (its back shows). Private: the Expedition cards a player holds (the others see
//! how many), until everyone reveals them at the end. Hidden from all: deck and pile order.

use super::content::{CardKind, Content, TileKind, WILD_TEXT};
use super::{DiscoveryRule, Expedition, Face, NONE, ScoreBreakdown, Step, Tool};
use crate::core::{Pile, Seat, SmallRng};
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use serde::Serialize;
use std::fmt::Write;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
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

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TileView {
    pub name: String,
    pub kind: TileKind,
    pub tools: Vec<Tool>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ColumnView {
    pub tile: Option<TileView>,
    pub tools: Vec<Tool>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CardView {
    pub name: String,
    /// mission, discovery or dice.
    pub kind: &'static str,
    /// Mission: the three tiles; Discovery card: the tile it counts as (`discovery_cards:
    /// named`), or none when it counts as any one tile (`wild`, the default).
    pub tiles: Vec<String>,
    /// Mission: the coins printed on it.
    pub coins: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SeatView {
    pub seat: u8,
    /// 0 for the first player, and so on clockwise.
    pub turn_position: u8,
    pub character: String,
    pub favourite: Tool,
    pub torch_lit: bool,
    pub tools: ToolCounts,
    /// Tiles taken, not yet completed.
    pub tiles: Vec<TileView>,
    /// Completed tiles, in order.
    pub discoveries: Vec<String>,
    /// Lost Coins now visible on the board (printed and Place backs).
    pub coins_visible: u8,
    pub score: i32,
    pub cards_held: u8,
    /// The cards themselves: only in the seat's own observation (and for all at the end).
    pub cards: Option<Vec<CardView>>,
    /// The held cards everyone saw this player take from the face-up row.
    pub cards_seen_taken: Vec<CardView>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FinalScore {
    pub seat: u8,
    pub rank: u8,
    pub breakdown: ScoreBreakdown,
    pub missions_done: Vec<String>,
}

/// Exactly what one seat may know.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Observation {
    pub seat: u8,
    pub players: u8,
    pub dice_game: bool,
    pub first_player: u8,
    pub to_move: Option<u8>,
    pub step: Step,
    /// Must the player to move first put back a tile / tools over the limit?
    pub returning: Option<&'static str>,
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
    pub pile_bottom: Vec<String>,
    pub bag: ToolCounts,
    pub deck_count: u8,
    pub face_up: Vec<Option<CardView>>,
    pub seats: Vec<SeatView>,
    pub out_of_play_tiles: u8,
    pub out_of_play_cards: u8,
    pub out_of_play_tools: ToolCounts,
    pub final_scores: Option<Vec<FinalScore>>,
}

fn tile_view(c: &Content, t: u8) -> TileView {
    let tile = &c.tiles[t as usize];
    TileView { name: tile.name.clone(), kind: tile.kind, tools: tile.tools.clone() }
}

fn card_view(c: &Content, k: u8, discovery: DiscoveryRule) -> CardView {
    let card = &c.cards[k as usize];
    let name = |t: u8| c.tiles[t as usize].name.clone();
    match card.kind {
        CardKind::Mission { tiles, coins } => CardView {
            name: card.name.clone(),
            kind: "mission",
            tiles: tiles.iter().map(|&t| name(t)).collect(),
            coins,
        },
        CardKind::Discovery { tile } => {
            let tiles = match discovery {
                DiscoveryRule::Named => vec![name(tile)],
                DiscoveryRule::Wild => vec![],
            };
            CardView { name: card.name.clone(), kind: "discovery", tiles, coins: 0 }
        }
        CardKind::Dice => CardView { name: card.name.clone(), kind: "dice", tiles: vec![], coins: 0 },
    }
}

fn card_line(v: &CardView) -> String {
    match v.kind {
        "mission" => format!("Mission \"{}\": {} ({} coins)", v.name, v.tiles.join(", "), v.coins),
        "discovery" if v.tiles.is_empty() => format!("Discovery \"{}\" ({WILD_TEXT})", v.name),
        "discovery" => format!("Discovery \"{}\" (counts as {})", v.name, v.tiles.join(", ")),
        _ => v.name.clone(),
    }
}

fn bits(mut m: u64) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let b = m.trailing_zeros() as u8;
            m &= m - 1;
            Some(b)
        }
    })
}

impl Expedition {
    pub(crate) fn observe(&self, seat: Seat) -> Observation {
        let c = &*self.shared.content;
        let rule = self.shared.params.discovery_cards;
        let view = |k: u8| card_view(c, k, rule);
        let over = self.step == Step::Over;
        let n = self.n as usize;
        let outcome = over.then(|| self.final_outcome());
        let seats = (0..n)
            .map(|s| {
                let p = &self.players[s];
                let places = p.done.iter().filter(|&&t| c.is_place(t)).count() as i32;
                let printed = super::PRINTED_COINS - (p.done.len() >= super::BOARD_SPACES) as i32;
                let ch = &c.characters[p.character as usize];
                SeatView {
                    seat: s as u8,
                    turn_position: self.turn_position(s) as u8,
                    character: ch.name.clone(),
                    favourite: ch.favourite,
                    torch_lit: p.torch_lit,
                    tools: ToolCounts::from_array(p.tools),
                    tiles: p.tiles.iter().map(|&t| tile_view(c, t)).collect(),
                    discoveries: p.done.iter().map(|&t| c.tiles[t as usize].name.clone()).collect(),
                    coins_visible: (printed + places) as u8,
                    score: p.score,
                    cards_held: p.cards.count_ones() as u8,
                    cards: (over || s == seat.index()).then(|| bits(p.cards).map(view).collect()),
                    cards_seen_taken: bits(p.known).map(view).collect(),
                }
            })
            .collect();
        let cur = &self.players[self.current as usize];
        let returning = if over {
            None
        } else if cur.tiles.len() > super::TILE_LIMIT {
            Some("tile")
        } else if cur.tool_count() > super::TOOL_LIMIT {
            Some("tool")
        } else {
            None
        };
        Observation {
            seat: seat.0,
            players: self.n,
            dice_game: self.shared.params.dice,
            first_player: self.first,
            to_move: (!over).then_some(self.current),
            step: self.step,
            returning,
            round: self.round,
            max_rounds: self.shared.params.max_rounds(),
            last_round: self.last_round,
            die: self.die,
            coin_bonus: self.coin_bonus,
            completed_this_turn: self.completed,
            hq: (0..super::HQ_COLUMNS)
                .map(|col| ColumnView {
                    tile: (self.hq_tile[col] != NONE).then(|| tile_view(c, self.hq_tile[col])),
                    tools: self.hq_tools[col]
                        .iter()
                        .filter(|&&t| t != NONE)
                        .map(|&t| Tool::from_index(t as usize))
                        .collect(),
                })
                .collect(),
            pile_count: self.pile.len() as u8,
            pile_top_is_place: self.pile.top().map(|t| c.is_place(t)),
            pile_bottom: self.pile.as_slice()[..self.pile_known as usize]
                .iter()
                .map(|&t| c.tiles[t as usize].name.clone())
                .collect(),
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
    pub(crate) fn redraw_hidden(&self, seat: Seat, rng: &mut SmallRng) -> Expedition {
        let mut g = self.clone();
        let n = g.n as usize;
        let over = g.step == Step::Over;
        // Cards unseen by `seat`: the deck, and (until the reveal) the other hands.
        let mut pool: Pile<u8, { super::content::MAX_CARDS }> = g.deck;
        let mut counts = [0u32; super::MAX_PLAYERS];
        if !over {
            for (s, p) in g.players[..n].iter_mut().enumerate() {
                if s != seat.index() {
                    // Cards seen taken from the face-up row stay where everyone saw them go.
                    let hidden = p.cards & !p.known;
                    counts[s] = hidden.count_ones();
                    for k in bits(hidden) {
                        pool.push(k);
                    }
                    p.cards = p.known;
                }
            }
        }
        pool.as_mut_slice().shuffle(rng);
        for (p, &count) in g.players[..n].iter_mut().zip(&counts) {
            for _ in 0..count {
                if let Some(k) = pool.pop() {
                    p.cards |= 1 << k;
                }
            }
        }
        g.deck = pool;
        // The pile: the known bottom stays; above it, the top keeps the kind everyone sees on
        // its back.
        let (len, known) = (g.pile.len(), g.pile_known as usize);
        if len > known {
            let c = &*g.shared.content;
            let top_place = c.is_place(g.pile.as_slice()[len - 1]);
            let same: Vec<usize> = (known..len).filter(|&i| c.is_place(g.pile.as_slice()[i]) == top_place).collect();
            let pick = same[rng.random_range(0..same.len())];
            g.pile.as_mut_slice().swap(pick, len - 1);
            g.pile.as_mut_slice()[known..len - 1].shuffle(rng);
        }
        g.rng = SmallRng::seed_from_u64(rng.random());
        g
    }
}

/// The observation as text a person can follow.
pub(crate) fn render(o: &Observation) -> String {
    let mut s = String::new();
    let variant = if o.dice_game { "dice game" } else { "no-dice variant" };
    let _ = writeln!(s, "Expedition, {} players, {variant}. You are seat {}.", o.players, o.seat);
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
            let who = if p == o.seat { "you".to_string() } else { format!("seat {p}") };
            let _ = write!(
                s,
                "Round {} of at most {}{}: {who} to move, {step}",
                o.round,
                o.max_rounds,
                if o.last_round { " (last round)" } else { "" }
            );
            match o.returning {
                Some("tile") => s.push_str(" (first put a tile back: more than 3 held)"),
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
        format!(", put back under it (bottom first): {}", o.pile_bottom.join(", "))
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
        let you = if p.seat == o.seat { " (you)" } else { "" };
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
            if p.discoveries.is_empty() { "none".into() } else { p.discoveries.join(", ") }
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
