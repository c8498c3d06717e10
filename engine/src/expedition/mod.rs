//! `expedition`: a competitive board game for 2-4 players. Players take columns of Discovery
//! tiles and Tool tokens from the Headquarters, go on Expeditions to complete the tiles for
//! Lost Coins, and collect Expedition cards (Missions, Discovery cards, Dice cards) that
//! score at the end. Rules: `docs/rules/expedition.md`.
//!
//! The state is flat and `Clone` is a `memcpy` plus one `Arc` count: tiles and cards are
//! `u8` ids into the shared [`content::Content`], tools are counts, hands are bit sets.

pub mod actions;
mod board;
pub mod content;
mod observe;
pub mod params;
mod scoring;
mod setup;
pub mod tensor;
mod turn;

use crate::core::{ActionId, DrawPile, Game, Metric, Outcome, Pile, Seat, SmallRng, TensorField, fresh_chance};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

pub use actions::Action;
pub use content::{Card, CardKind, Character, Content, DiscoveryRule, Tile, TileKind, Tool};
pub use observe::{
    CardClass, CardView, ColumnView, FinalScore, Observation, Returning, SeatView, TileView, ToolCounts,
};
pub use params::{CharacterDeal, ContentRef, ExpeditionParams};
pub use scoring::ScoreBreakdown;
pub use setup::{ColumnSpec, PlayerSpec, Scenario};

/// Columns of the Headquarters (a tile and two tool spaces each).
pub const HQ_COLUMNS: usize = 4;
/// Face-up Expedition cards beside the Headquarters.
pub const FACE_UP: usize = 4;
pub const MAX_PLAYERS: usize = 4;
/// Discovery tiles a player may keep on the board, not yet completed.
pub const TILE_LIMIT: usize = 3;
/// Tool tokens a player may keep (the backpack).
pub const TOOL_LIMIT: u8 = 6;
/// Tokens of each tool kind in the game (36 in all).
pub const TOOLS_PER_KIND: u8 = 9;
/// Completion spaces on a board; filling the last covers a printed coin.
pub const BOARD_SPACES: usize = 6;
/// The most completed tiles a player can reach (five before the last round, three in it).
pub const MAX_DISCOVERIES: usize = 8;
/// Lost Coins printed on a board.
pub const PRINTED_COINS: i32 = 4;
/// Tiles a player may complete in one Expedition.
pub const COMPLETIONS_PER_TURN: u8 = 3;
/// An empty space (HQ tile or tool, face-up card).
pub const NONE: u8 = u8::MAX;

/// The die's three faces, equally likely.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Face {
    /// Draw a tool token into the backpack.
    Tool,
    /// Flip every player's Torch.
    Torch,
    /// +1 per tile completed this turn.
    Coin,
}

impl Face {
    pub const ALL: [Face; 3] = [Face::Tool, Face::Torch, Face::Coin];
    pub const fn from_index(i: usize) -> Face {
        match i {
            0 => Face::Tool,
            1 => Face::Torch,
            _ => Face::Coin,
        }
    }
}

impl fmt::Display for Face {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Face::Tool => "tool",
            Face::Torch => "torch",
            Face::Coin => "coin",
        })
    }
}

/// Where the player to move is in the turn. Pending returns (a fourth tile, a seventh tool)
/// come before everything else and are read from the player's board, not from the step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// The die is to be rolled (dice game).
    Roll,
    /// The die was rolled and has not acted yet: the roller keeps it, or a Dice card's holder
    /// discards one to change it (dice game). Every roll stops here, Dice card or not.
    Rolled,
    /// Choose the action: take a column or take an Expedition card.
    Action,
    /// On an Expedition: complete up to three tiles, then end the turn.
    Complete,
    /// After preparing an Expedition (pieces over a limit are put back here). The dice game
    /// ends the turn at once; the no-dice variant waits for `end turn` (a Dice card's holder
    /// may use it first).
    Finish,
    /// The game is over.
    Over,
}

/// One player's board, backpack, torch, cards and score.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Player {
    pub character: u8,
    pub torch_lit: bool,
    /// Tool tokens by kind.
    pub tools: [u8; 4],
    /// Tiles taken, not yet completed (one over the limit only while a return is pending).
    pub tiles: Pile<u8, 4>,
    /// Completed tiles, face down, in order.
    pub done: Pile<u8, MAX_DISCOVERIES>,
    /// Expedition cards held, as a bit set of card ids.
    pub cards: u64,
    /// The held cards everyone saw this player take (from the face-up row).
    pub known: u64,
    /// Points scored by completions (and no-dice Dice-card bonuses) so far.
    pub score: i32,
}

impl Player {
    #[inline]
    pub fn tool_count(&self) -> u8 {
        self.tools.iter().sum()
    }
}

/// What all states of one game share: the parameters and the content.
#[derive(Debug, PartialEq)]
pub(crate) struct Shared {
    pub params: ExpeditionParams,
    pub content: Arc<Content>,
    /// The Discovery cards when they are wild (all the same card in effect), as a bit set.
    pub wild_discovery: u64,
    /// Where each field of a seat's tensor starts (found once: a learner writes a tensor
    /// every step).
    pub tensor_offsets: tensor::Offsets,
}

impl Shared {
    pub fn new(params: &ExpeditionParams, content: Arc<Content>) -> Shared {
        let wild_discovery = match params.discovery_cards {
            DiscoveryRule::Wild => content
                .cards
                .iter()
                .enumerate()
                .filter(|(_, c)| matches!(c.kind, CardKind::Discovery { .. }))
                .fold(0u64, |m, (k, _)| m | 1 << k),
            DiscoveryRule::Named => 0,
        };
        let tensor_offsets = tensor::Offsets::of(&tensor::fields(params, &content));
        Shared { params: params.clone(), content, wild_discovery, tensor_offsets }
    }

    /// Cards that are the same card in effect share a class: 1 for Dice cards, 2 for wild
    /// Discovery cards; 0 for a card like no other.
    #[inline]
    pub fn identical_class(&self, card: u8) -> u8 {
        (self.content.dice_cards >> card & 1) as u8 | ((self.wild_discovery >> card & 1) as u8) << 1
    }
}

/// A complete position of `expedition`.
#[derive(Clone, Debug, PartialEq)]
pub struct Expedition {
    pub(crate) shared: Arc<Shared>,
    pub(crate) rng: SmallRng,
    /// The Discovery pile, top last; tiles put back under it are known to all.
    pub(crate) pile: DrawPile<u8, { content::MAX_TILES }>,
    pub(crate) hq_tile: [u8; HQ_COLUMNS],
    pub(crate) hq_tools: [[u8; 2]; HQ_COLUMNS],
    /// Tool tokens in the bag, by kind.
    pub(crate) bag: [u8; 4],
    /// The Expedition deck, top last.
    pub(crate) deck: Pile<u8, { content::MAX_CARDS }>,
    pub(crate) face_up: [u8; FACE_UP],
    pub(crate) players: [Player; MAX_PLAYERS],
    /// Tiles, cards and tools a scenario left out of play (always empty in a new game).
    pub(crate) boxed_tiles: u64,
    pub(crate) boxed_cards: u64,
    pub(crate) boxed_tools: [u8; 4],
    pub(crate) n: u8,
    pub(crate) first: u8,
    pub(crate) current: u8,
    pub(crate) step: Step,
    /// The face the die shows this turn.
    pub(crate) die: Option<Face>,
    /// +1 per tile completed this turn, for each bonus (die Coin, no-dice Dice card).
    pub(crate) coin_bonus: u8,
    /// Tiles completed this turn.
    pub(crate) completed: u8,
    /// Someone has completed a sixth tile: this round is the last.
    pub(crate) last_round: bool,
    /// Rounds started (1 in the first round); the game stops after `max_rounds`.
    pub(crate) round: u16,
}

impl Expedition {
    pub fn content(&self) -> &Content {
        &self.shared.content
    }

    pub fn player(&self, seat: usize) -> &Player {
        &self.players[seat]
    }

    pub fn step(&self) -> Step {
        self.step
    }

    pub fn die(&self) -> Option<Face> {
        self.die
    }

    pub fn first_player(&self) -> usize {
        self.first as usize
    }

    pub fn current(&self) -> usize {
        self.current as usize
    }

    pub fn round(&self) -> u16 {
        self.round
    }

    pub fn is_last_round(&self) -> bool {
        self.last_round
    }

    pub fn bag(&self) -> [u8; 4] {
        self.bag
    }

    /// The Discovery pile, bottom first (top last).
    pub fn pile(&self) -> &[u8] {
        self.pile.as_slice()
    }

    /// The Expedition deck, bottom first (top last).
    pub fn deck(&self) -> &[u8] {
        self.deck.as_slice()
    }

    pub fn face_up(&self) -> [Option<u8>; FACE_UP] {
        self.face_up.map(|c| (c != NONE).then_some(c))
    }

    pub fn hq(&self) -> [(Option<u8>, [Option<Tool>; 2]); HQ_COLUMNS] {
        std::array::from_fn(|c| {
            let t = self.hq_tile[c];
            let tools = self.hq_tools[c].map(|x| (x != NONE).then(|| Tool::from_index(x as usize)));
            ((t != NONE).then_some(t), tools)
        })
    }

    /// Tiles, cards and tools out of play (only a scenario puts anything there).
    pub fn out_of_play(&self) -> (u64, u64, [u8; 4]) {
        (self.boxed_tiles, self.boxed_cards, self.boxed_tools)
    }

    /// The seat's position in turn order (0 = the first player).
    pub fn turn_position(&self, seat: usize) -> usize {
        (seat + self.n as usize - self.first as usize) % self.n as usize
    }
}

impl Game for Expedition {
    type Params = ExpeditionParams;
    type Observation = Observation;
    type Scenario = Scenario;
    type Action = Action;
    const NAME: &'static str = "expedition";
    const SEATS_PARAM: &'static str = "players";
    const RULES_VERSION: u32 = 1;

    fn new(params: &ExpeditionParams, seed: u64) -> Self {
        setup::new_game(params, seed)
    }

    fn from_scenario(params: &ExpeditionParams, seed: u64, scenario: Scenario) -> Result<Self, String> {
        setup::from_scenario(params, seed, scenario)
    }

    fn params(&self) -> &ExpeditionParams {
        &self.shared.params
    }

    fn seats(&self) -> usize {
        self.n as usize
    }

    fn to_move(&self) -> Option<Seat> {
        (self.step != Step::Over).then_some(Seat(self.current))
    }

    fn legal_actions(&self, out: &mut Vec<ActionId>) {
        let mut buf = turn::Legal::new();
        self.legal_into(&mut buf);
        out.extend_from_slice(buf.as_slice());
    }

    fn decode(&self, id: ActionId) -> Option<Action> {
        Action::from_id(id, self.shared.content.tiles.len())
    }

    fn is_listed(&self, id: ActionId, _: Action) -> bool {
        let mut buf = turn::Legal::new();
        self.legal_into(&mut buf);
        buf.as_slice().contains(&id)
    }

    fn perform(&mut self, action: Action) {
        self.execute(action);
    }

    fn outcome(&self) -> Option<Outcome> {
        (self.step == Step::Over).then(|| self.final_outcome())
    }

    fn tensor_layout(params: &ExpeditionParams) -> Vec<TensorField> {
        tensor::layout(params)
    }

    fn observation_tensor(params: &ExpeditionParams, observation: &Observation, out: &mut [f32]) {
        tensor::encode(params, observation, out)
    }

    fn action_count(_: &ExpeditionParams) -> u32 {
        actions::NUM_ACTIONS
    }

    fn action_name(params: &ExpeditionParams, id: ActionId) -> Option<String> {
        let content = params.content.get();
        Action::from_id(id, content.tiles.len()).map(|a| a.name(&content))
    }

    fn action_label(&self, action: ActionId) -> String {
        match self.decode(action) {
            Some(a) => self.label(a),
            None => format!("unknown action {action}"),
        }
    }

    fn action_section(&self, action: ActionId) -> Option<&'static str> {
        self.decode(action).map(Action::section)
    }

    fn action_target(&self, action: ActionId) -> Option<String> {
        self.decode(action).map(Action::target)
    }

    fn observation(&self, seat: Seat) -> Observation {
        self.observe(Some(seat))
    }

    fn public_observation(&self) -> Observation {
        self.observe(None)
    }

    fn public_observation_text(&self) -> String {
        observe::render(&self.observe(None))
    }

    fn write_tensor(&self, seat: Seat, out: &mut [f32]) {
        tensor::write_for(self, seat, out)
    }

    fn observation_text(&self, seat: Seat) -> String {
        observe::render(&self.observe(Some(seat)))
    }

    fn from_observation(params: &ExpeditionParams, observation: &Observation) -> Result<Self, String> {
        observe::from_observation(params, observation)
    }

    fn redraw_hidden(&self, seat: Seat, rng: &mut SmallRng) -> Self {
        self.redraw(seat, rng)
    }

    fn redraw_chance(&self, rng: &mut SmallRng) -> Self {
        Expedition { rng: fresh_chance(rng), ..self.clone() }
    }

    fn metrics(&self) -> Vec<Metric> {
        self.final_metrics()
    }
}
