//! Setting up: a new game from the seed, or a position from a YAML scenario.

use super::content::{Content, DICE_CARD_NAME};
use super::{
    CharacterDeal, Expedition, ExpeditionParams, FACE_UP, Face, HQ_COLUMNS, MAX_DISCOVERIES, MAX_PLAYERS, NONE, Player,
    Shared, Step, TILE_LIMIT, TOOL_LIMIT, TOOLS_PER_KIND, Tool,
};
use crate::core::{DrawPile, Pile, SmallRng};
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A table with nothing dealt yet.
pub(crate) fn empty_table(params: &ExpeditionParams, seed: u64) -> Expedition {
    let content = params.content.get();
    let n = params.players() as u8;
    Expedition {
        shared: Arc::new(Shared::new(params, content)),
        rng: SmallRng::seed_from_u64(seed),
        pile: DrawPile::new(),
        hq_tile: [NONE; HQ_COLUMNS],
        hq_tools: [[NONE; 2]; HQ_COLUMNS],
        bag: [0; 4],
        deck: Pile::new(),
        face_up: [NONE; FACE_UP],
        players: [Player { torch_lit: true, ..Player::default() }; MAX_PLAYERS],
        boxed_tiles: 0,
        boxed_cards: 0,
        boxed_tools: [0; 4],
        n,
        first: 0,
        current: 0,
        step: if params.dice { Step::Roll } else { Step::Action },
        die: None,
        coin_bonus: 0,
        completed: 0,
        last_round: false,
        round: 1,
    }
}

/// The characters in dealing order: shuffled from the seed, or in content order.
fn character_order(g: &mut Expedition) -> Vec<u8> {
    let mut order: Vec<u8> = (0..g.shared.content.characters.len() as u8).collect();
    if g.shared.params.characters == CharacterDeal::Random {
        order.shuffle(&mut g.rng);
    }
    order
}

pub(crate) fn new_game(params: &ExpeditionParams, seed: u64) -> Expedition {
    let mut g = empty_table(params, seed);
    let order = character_order(&mut g);
    for s in 0..g.n as usize {
        g.players[s].character = order[s % order.len()];
    }
    g.first = g.rng.random_range(0..g.n);
    g.current = g.first;
    let content = g.shared.content.clone();
    for t in 0..content.tiles.len() as u8 {
        g.pile.push(t);
    }
    g.pile.shuffle(&mut g.rng);
    g.bag = [TOOLS_PER_KIND; 4];
    // Four tiles into the Headquarters, then two tokens under each, left to right.
    for c in 0..HQ_COLUMNS {
        g.hq_tile[c] = g.pile.draw(&mut g.rng).unwrap_or(NONE);
    }
    for c in 0..HQ_COLUMNS {
        g.restock_column(c);
    }
    for k in 0..content.cards.len() as u8 {
        g.deck.push(k);
    }
    g.deck.shuffle(&mut g.rng);
    g.refill_face_up();
    g
}

// ---- scenarios -------------------------------------------------------------------------------

/// A position to start from. Everything is optional: what a scenario names is placed as
/// named, and the seed deals the rest as in a new game. Tiles and cards are named as in the
/// content (a Dice card is `Dice card`); piles and decks are listed top first.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The seat holding the First Player tile (default: drawn from the seed).
    pub first_player: Option<u8>,
    /// Whose turn it is (default: the first player).
    pub to_move: Option<u8>,
    /// roll, rolled, action, complete or finish (default: the start of a turn).
    pub step: Option<Step>,
    /// The face the die shows. With `step: rolled` it has just been rolled and acts once the
    /// roller keeps it (or a Dice card's holder changes it).
    pub die: Option<Face>,
    /// Bonuses of +1 per tile this turn (default: 1 if the die shows Coin past the roll).
    pub coin_bonus: Option<u8>,
    /// Tiles completed this turn so far.
    #[serde(default)]
    pub completed_this_turn: u8,
    /// The round number (default 1).
    pub round: Option<u16>,
    /// Is this the last round? (default: whether someone has six discoveries)
    pub last_round: Option<bool>,
    /// One entry per player, by seat.
    pub players: Option<Vec<PlayerSpec>>,
    /// The four columns of the Headquarters, left to right.
    pub hq: Option<Vec<ColumnSpec>>,
    /// The Discovery pile, top first. When given, tiles named nowhere are out of play.
    pub pile: Option<Vec<String>>,
    /// Tool tokens in the bag. When given, tokens placed nowhere are out of play.
    pub bag: Option<BTreeMap<Tool, u8>>,
    /// The four face-up Expedition cards (`~` for an empty space).
    pub face_up: Option<Vec<Option<String>>>,
    /// The Expedition deck, top first. When given, cards named nowhere are out of play.
    pub deck: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerSpec {
    /// Character name (default: dealt).
    pub character: Option<String>,
    /// Is the Torch lit? (default: yes)
    pub torch: Option<bool>,
    /// Tool tokens in the backpack.
    #[serde(default)]
    pub tools: BTreeMap<Tool, u8>,
    /// Tiles taken, not yet completed.
    #[serde(default)]
    pub tiles: Vec<String>,
    /// Completed tiles, in order.
    #[serde(default)]
    pub discoveries: Vec<String>,
    /// Expedition cards held.
    #[serde(default)]
    pub cards: Vec<String>,
    /// Points scored so far.
    #[serde(default)]
    pub score: i32,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnSpec {
    pub tile: Option<String>,
    #[serde(default)]
    pub tools: Vec<Tool>,
}

/// Hands out tiles and cards by name, each at most once.
struct Names<'a> {
    content: &'a Content,
    tiles_used: u64,
    cards_used: u64,
}

impl Names<'_> {
    fn tile(&mut self, name: &str, place: &str) -> Result<u8, String> {
        let t = self.content.tile_id(name).ok_or_else(|| format!("{place}: unknown tile \"{name}\""))?;
        if self.tiles_used >> t & 1 == 1 {
            return Err(format!("{place}: tile \"{name}\" is placed twice"));
        }
        self.tiles_used |= 1 << t;
        Ok(t)
    }

    fn card(&mut self, name: &str, place: &str) -> Result<u8, String> {
        let cards = &self.content.cards;
        let mut found = false;
        for (k, c) in cards.iter().enumerate() {
            if c.name == name {
                found = true;
                if self.cards_used >> k & 1 == 0 {
                    self.cards_used |= 1 << k;
                    return Ok(k as u8);
                }
            }
        }
        if found {
            Err(format!("{place}: card \"{name}\" is placed more times than the deck holds it"))
        } else {
            Err(format!("{place}: unknown card \"{name}\" (a Dice card is named \"{DICE_CARD_NAME}\")"))
        }
    }
}

fn take_tools(tools: &BTreeMap<Tool, u8>, left: &mut [u8; 4], place: &str) -> Result<[u8; 4], String> {
    let mut out = [0u8; 4];
    for (&t, &n) in tools {
        if left[t.index()] < n {
            return Err(format!("{place}: more {t} tokens than the game has left ({TOOLS_PER_KIND} in all)"));
        }
        left[t.index()] -= n;
        out[t.index()] = n;
    }
    Ok(out)
}

pub(crate) fn from_scenario(params: &ExpeditionParams, seed: u64, sc: Scenario) -> Result<Expedition, String> {
    let mut g = empty_table(params, seed);
    let content = g.shared.content.clone();
    let n = g.n as usize;
    let mut names = Names { content: &content, tiles_used: 0, cards_used: 0 };
    let mut tools_left = [TOOLS_PER_KIND; 4];

    // Players.
    let specs = sc.players.unwrap_or_default();
    if !specs.is_empty() && specs.len() != n {
        return Err(format!("players: {} entries for a {n}-player game", specs.len()));
    }
    let mut chars_used = 0u64;
    for (s, spec) in specs.iter().enumerate() {
        let place = format!("players[{s}]");
        let p = &mut g.players[s];
        if let Some(name) = &spec.character {
            let c = content.character_id(name).ok_or_else(|| format!("{place}: unknown character \"{name}\""))?;
            if chars_used >> c & 1 == 1 {
                return Err(format!("{place}: character \"{name}\" is taken twice"));
            }
            chars_used |= 1 << c;
            p.character = c;
        }
        p.torch_lit = spec.torch.unwrap_or(true);
        p.tools = take_tools(&spec.tools, &mut tools_left, &format!("{place}.tools"))?;
        if p.tool_count() > TOOL_LIMIT {
            return Err(format!("{place}.tools: {} tokens, over the limit of {TOOL_LIMIT}", p.tool_count()));
        }
        if spec.tiles.len() > TILE_LIMIT {
            return Err(format!("{place}.tiles: {} tiles, over the limit of {TILE_LIMIT}", spec.tiles.len()));
        }
        for t in &spec.tiles {
            p.tiles.push(names.tile(t, &format!("{place}.tiles"))?);
        }
        if spec.discoveries.len() > MAX_DISCOVERIES {
            return Err(format!("{place}.discoveries: more than {MAX_DISCOVERIES}"));
        }
        for t in &spec.discoveries {
            p.done.push(names.tile(t, &format!("{place}.discoveries"))?);
        }
        for c in &spec.cards {
            p.cards |= 1 << names.card(c, &format!("{place}.cards"))?;
        }
        p.score = spec.score;
    }
    // Characters not named are dealt from the seed, skipping those named.
    let order = character_order(&mut g);
    let mut free = order.into_iter().filter(|&c| chars_used >> c & 1 == 0);
    for s in 0..n {
        if specs.get(s).is_none_or(|p| p.character.is_none()) {
            g.players[s].character = free.next().ok_or_else(|| format!("players[{s}]: no character left to deal"))?;
        }
    }

    // First player and the player to move.
    g.first = match sc.first_player {
        Some(f) if (f as usize) < n => f,
        Some(f) => return Err(format!("first_player: seat {f} in a {n}-player game")),
        None => g.rng.random_range(0..g.n),
    };
    g.current = match sc.to_move {
        Some(s) if (s as usize) < n => s,
        Some(s) => return Err(format!("to_move: seat {s} in a {n}-player game")),
        None => g.first,
    };

    // Headquarters as named.
    let hq_given = sc.hq.is_some();
    if let Some(cols) = &sc.hq {
        if cols.len() != HQ_COLUMNS {
            return Err(format!("hq: {} columns, expected {HQ_COLUMNS}", cols.len()));
        }
        for (c, col) in cols.iter().enumerate() {
            if let Some(t) = &col.tile {
                g.hq_tile[c] = names.tile(t, &format!("hq[{c}].tile"))?;
            }
            if col.tools.len() > 2 {
                return Err(format!("hq[{c}].tools: {} tokens, a column holds 2", col.tools.len()));
            }
            for (k, &t) in col.tools.iter().enumerate() {
                if tools_left[t.index()] == 0 {
                    return Err(format!("hq[{c}].tools: more {t} tokens than the game has left"));
                }
                tools_left[t.index()] -= 1;
                g.hq_tools[c][k] = t as u8;
            }
        }
    }

    // Face-up cards as named.
    let face_up_given = sc.face_up.is_some();
    if let Some(cards) = &sc.face_up {
        if cards.len() > FACE_UP {
            return Err(format!("face_up: {} cards, there are {FACE_UP} spaces", cards.len()));
        }
        for (i, c) in cards.iter().enumerate() {
            if let Some(c) = c {
                g.face_up[i] = names.card(c, &format!("face_up[{i}]"))?;
            }
        }
    }

    // The pile: as listed (the rest out of play), or every other tile shuffled.
    match &sc.pile {
        Some(list) => {
            for t in list.iter().rev() {
                let id = names.tile(t, "pile")?;
                g.pile.push(id);
            }
            let all = (1u64 << content.tiles.len()) - 1;
            g.boxed_tiles = all & !names.tiles_used;
        }
        None => {
            for t in 0..content.tiles.len() as u8 {
                if names.tiles_used >> t & 1 == 0 {
                    g.pile.push(t);
                }
            }
            g.pile.shuffle(&mut g.rng);
        }
    }

    // The deck: as listed (the rest out of play), or every other card shuffled.
    match &sc.deck {
        Some(list) => {
            for c in list.iter().rev() {
                let id = names.card(c, "deck")?;
                g.deck.push(id);
            }
            let all = if content.cards.len() == 64 { u64::MAX } else { (1u64 << content.cards.len()) - 1 };
            g.boxed_cards = all & !names.cards_used;
        }
        None => {
            for k in 0..content.cards.len() as u8 {
                if names.cards_used >> k & 1 == 0 {
                    g.deck.push(k);
                }
            }
            g.deck.shuffle(&mut g.rng);
        }
    }

    // The bag: as given (the rest out of play), or every other token.
    match &sc.bag {
        Some(bag) => {
            g.bag = take_tools(bag, &mut tools_left, "bag")?;
            g.boxed_tools = tools_left;
        }
        None => g.bag = tools_left,
    }

    if !hq_given {
        for c in 0..HQ_COLUMNS {
            g.hq_tile[c] = g.pile.draw(&mut g.rng).unwrap_or(NONE);
        }
        for c in 0..HQ_COLUMNS {
            g.restock_column(c);
        }
    }
    if !face_up_given {
        g.refill_face_up();
    }

    // Where the turn stands.
    let step = sc.step.unwrap_or(if params.dice { Step::Roll } else { Step::Action });
    match step {
        Step::Roll | Step::Rolled if !params.dice => {
            return Err("step: the no-dice variant has no roll".into());
        }
        Step::Rolled if sc.die.is_none() => return Err("step: rolled needs `die`".into()),
        Step::Roll if sc.die.is_some() => {
            return Err("die: the die is not rolled yet at step roll".into());
        }
        Step::Over => return Err("step: a scenario cannot start at the end of the game".into()),
        _ => {}
    }
    if sc.die.is_some() && !params.dice {
        return Err("die: the no-dice variant has no die".into());
    }
    g.die = sc.die;
    g.round = sc.round.unwrap_or(1).max(1);
    if g.round > params.max_rounds() {
        return Err(format!("round: {} is past the last round allowed (max_rounds {})", g.round, params.max_rounds()));
    }
    g.completed = sc.completed_this_turn;
    if g.completed > super::COMPLETIONS_PER_TURN {
        return Err(format!("completed_this_turn: at most {}", super::COMPLETIONS_PER_TURN));
    }
    g.last_round = sc.last_round.unwrap_or_else(|| g.players[..n].iter().any(|p| p.done.len() >= super::BOARD_SPACES));
    g.coin_bonus = match step {
        Step::Rolled | Step::Roll => 0,
        _ => sc.coin_bonus.unwrap_or((g.die == Some(Face::Coin)) as u8),
    };
    // At `rolled` the die has shown its face and waits for the roller's decision.
    g.step = step;
    g.settle();
    Ok(g)
}
