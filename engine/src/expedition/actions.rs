//! Actions and their stable ids. An id means the same action in every state (a column, a
//! face-up space, a tile of the content, a tool kind); the label reads it in the current state.

use super::content::{Content, MAX_TILES, Tool};
use super::{Expedition, FACE_UP, Face, HQ_COLUMNS};
use crate::core::{ActionId, ActionTable};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Roll the die (the dice game's first phase).
    Roll,
    /// Forgotten-roll rule: do not roll; a lit Torch goes out.
    SkipRoll,
    /// Keep the face rolled (asked of every roller, dice game).
    KeepRoll,
    /// Dice game: a holder discards a Dice card right after the roll to set the die to this face.
    SetFace(Face),
    /// Prepare an Expedition: take column `0..4` of the Headquarters.
    TakeColumn(u8),
    /// Go on an Expedition: take face-up card `0..4` (of identical cards, only the first is
    /// offered).
    TakeFaceUp(u8),
    /// Go on an Expedition: take the top card of the deck.
    TakeTop,
    /// Go on an Expedition when no Expedition card is left anywhere.
    GoWithoutCard,
    /// Put one tool token back in the bag (backpack over six).
    ReturnTool(Tool),
    /// Finish the turn.
    EndTurn,
    /// No-dice variant: discard a Dice card to draw two tools.
    DiceDraw,
    /// No-dice variant: discard a Dice card to relight the own Torch.
    DiceRelight,
    /// No-dice variant: discard a Dice card for +1 per tile completed this turn.
    DiceCoin,
    /// Put a held tile (over three) at the bottom of the pile.
    ReturnTile(u8),
    /// Complete a held tile, paying its tools with tokens; `torch` names the tool the lit
    /// Torch stands in for, if any.
    Complete { tile: u8, torch: Option<Tool> },
}

const ROLL: u32 = 0;
const SKIP_ROLL: u32 = 1;
const KEEP_ROLL: u32 = 2;
const SET_FACE: u32 = 3; // ..6
const TAKE_COLUMN: u32 = 6; // ..10
const TAKE_FACE_UP: u32 = 10; // ..14
const TAKE_TOP: u32 = 14;
const GO_WITHOUT_CARD: u32 = 15;
const RETURN_TOOL: u32 = 16; // ..20
const END_TURN: u32 = 20;
const DICE_DRAW: u32 = 21;
const DICE_RELIGHT: u32 = 22;
const DICE_COIN: u32 = 23;
const RETURN_TILE: u32 = 32; // ..32 + MAX_TILES
const COMPLETE: u32 = RETURN_TILE + MAX_TILES as u32; // 5 ids per tile
/// One past the largest action id.
pub const NUM_ACTIONS: u32 = COMPLETE + 5 * MAX_TILES as u32;

impl Action {
    /// The section of `docs/rules/expedition.md` (its heading's id) that says what this does.
    pub fn section(self) -> &'static str {
        use Action::*;
        match self {
            Roll | SkipRoll | KeepRoll | SetFace(_) => "the-turn-first-phase-the-die",
            TakeColumn(_) | ReturnTool(_) | ReturnTile(_) => "prepare-an-expedition",
            TakeFaceUp(_) | TakeTop | GoWithoutCard => "go-on-an-expedition",
            EndTurn => "the-turn-second-phase-one-action-of-two",
            DiceDraw | DiceRelight | DiceCoin => "the-no-dice-variant-dice-false",
            Complete { .. } => "completing-a-tile-and-scoring",
        }
    }

    /// What it acts on, as a drawing of the mover's observation names it
    /// ([`crate::core::Game::action_target`]): the die, a column of the Headquarters, a
    /// face-up card, the deck, a tool of the backpack, a held tile (by its id), a Dice card,
    /// the end of the turn.
    pub fn target(self) -> String {
        match self {
            Action::Roll | Action::SkipRoll | Action::KeepRoll | Action::SetFace(_) => "die".into(),
            Action::TakeColumn(c) => format!("column:{c}"),
            Action::TakeFaceUp(i) => format!("face-up:{i}"),
            Action::TakeTop | Action::GoWithoutCard => "deck".into(),
            Action::ReturnTool(t) => format!("tool:{t}"),
            Action::EndTurn => "end-turn".into(),
            Action::DiceDraw | Action::DiceRelight | Action::DiceCoin => "dice-card".into(),
            Action::ReturnTile(t) | Action::Complete { tile: t, .. } => format!("tile:{t}"),
        }
    }

    pub const fn id(self) -> ActionId {
        match self {
            Action::Roll => ROLL,
            Action::SkipRoll => SKIP_ROLL,
            Action::KeepRoll => KEEP_ROLL,
            Action::SetFace(f) => SET_FACE + f as u32,
            Action::TakeColumn(c) => TAKE_COLUMN + c as u32,
            Action::TakeFaceUp(i) => TAKE_FACE_UP + i as u32,
            Action::TakeTop => TAKE_TOP,
            Action::GoWithoutCard => GO_WITHOUT_CARD,
            Action::ReturnTool(t) => RETURN_TOOL + t as u32,
            Action::EndTurn => END_TURN,
            Action::DiceDraw => DICE_DRAW,
            Action::DiceRelight => DICE_RELIGHT,
            Action::DiceCoin => DICE_COIN,
            Action::ReturnTile(t) => RETURN_TILE + t as u32,
            Action::Complete { tile, torch } => {
                COMPLETE
                    + 5 * tile as u32
                    + match torch {
                        None => 0,
                        Some(t) => 1 + t as u32,
                    }
            }
        }
    }

    /// The action an id names, for a content set of `tiles` tiles: one look in a table of every
    /// id (read once by [`Action::read_id`], for the most tiles a content set may have), after
    /// the id's tile is checked against this set's (on the id: cheaper than on the action).
    #[inline]
    pub fn from_id(id: ActionId, tiles: usize) -> Option<Action> {
        static DECODED: ActionTable<Action> = ActionTable::new(NUM_ACTIONS, |id| Action::read_id(id, MAX_TILES));
        let beyond = match id {
            RETURN_TILE..COMPLETE => (id - RETURN_TILE) as usize >= tiles,
            COMPLETE.. => ((id - COMPLETE) / 5) as usize >= tiles,
            _ => false,
        };
        if beyond { None } else { DECODED.get(id) }
    }

    /// What [`Action::from_id`] looks up: the action an id names, for a content set of `tiles`
    /// tiles, read from the id's range.
    fn read_id(id: ActionId, tiles: usize) -> Option<Action> {
        Some(match id {
            ROLL => Action::Roll,
            SKIP_ROLL => Action::SkipRoll,
            KEEP_ROLL => Action::KeepRoll,
            SET_FACE..TAKE_COLUMN => Action::SetFace(Face::from_index((id - SET_FACE) as usize)),
            TAKE_COLUMN..TAKE_FACE_UP => Action::TakeColumn((id - TAKE_COLUMN) as u8),
            TAKE_FACE_UP..TAKE_TOP => Action::TakeFaceUp((id - TAKE_FACE_UP) as u8),
            TAKE_TOP => Action::TakeTop,
            GO_WITHOUT_CARD => Action::GoWithoutCard,
            RETURN_TOOL..END_TURN => Action::ReturnTool(Tool::from_index((id - RETURN_TOOL) as usize)),
            END_TURN => Action::EndTurn,
            DICE_DRAW => Action::DiceDraw,
            DICE_RELIGHT => Action::DiceRelight,
            DICE_COIN => Action::DiceCoin,
            RETURN_TILE..COMPLETE if ((id - RETURN_TILE) as usize) < tiles => {
                Action::ReturnTile((id - RETURN_TILE) as u8)
            }
            COMPLETE..NUM_ACTIONS if (((id - COMPLETE) / 5) as usize) < tiles => {
                let k = id - COMPLETE;
                let torch = match k % 5 {
                    0 => None,
                    v => Some(Tool::from_index(v as usize - 1)),
                };
                Action::Complete { tile: (k / 5) as u8, torch }
            }
            _ => return None,
        })
    }
}

const _: () = assert!(HQ_COLUMNS == 4 && FACE_UP == 4);

impl Action {
    /// What the action is, in any state (the label a state gives adds what it takes: the
    /// column's contents, the face-up card, the die's face).
    pub fn name(self, c: &Content) -> String {
        match self {
            Action::Roll => "roll".into(),
            Action::SkipRoll => "skip the roll (a lit torch goes out)".into(),
            Action::KeepRoll => "keep the roll".into(),
            Action::SetFace(f) => format!("discard a Dice card: set the die to {f}"),
            Action::TakeColumn(col) => format!("take column {}", col + 1),
            Action::TakeFaceUp(i) => format!("take face-up card {}", i + 1),
            Action::TakeTop => "take the top card of the deck".into(),
            Action::GoWithoutCard => "go on an expedition (no card left to take)".into(),
            Action::ReturnTool(t) => format!("return {t} to the bag"),
            Action::EndTurn => "end turn".into(),
            Action::DiceDraw => "discard a Dice card: draw two tools".into(),
            Action::DiceRelight => "discard a Dice card: relight own torch".into(),
            Action::DiceCoin => "discard a Dice card: +1 per tile completed this turn".into(),
            Action::ReturnTile(t) => format!("return {} to the bottom of the pile", c.tiles[t as usize].name),
            Action::Complete { tile, torch } => {
                let t = &c.tiles[tile as usize];
                let mut used_torch = false;
                let paid: Vec<&str> = t
                    .tools
                    .iter()
                    .map(|&x| {
                        if !used_torch && torch == Some(x) {
                            used_torch = true;
                            "torch"
                        } else {
                            x.name()
                        }
                    })
                    .collect();
                format!("complete {} with {}", t.name, paid.join("+"))
            }
        }
    }
}

impl Expedition {
    /// A readable label of `action` in this state.
    pub(crate) fn label(&self, action: Action) -> String {
        let c = &self.shared.content;
        match action {
            Action::KeepRoll => match self.die {
                Some(f) => format!("keep the roll ({f})"),
                None => "keep the roll".into(),
            },
            Action::TakeColumn(col) => {
                let col_i = col as usize;
                let mut parts = Vec::new();
                if let Some(&t) = self.hq_tile.get(col_i).filter(|&&t| t != super::NONE) {
                    parts.push(c.tiles[t as usize].name.clone());
                }
                let tools: Vec<&str> = self
                    .hq_tools
                    .get(col_i)
                    .map(|ts| {
                        ts.iter().filter(|&&x| x != super::NONE).map(|&x| Tool::from_index(x as usize).name()).collect()
                    })
                    .unwrap_or_default();
                if !tools.is_empty() {
                    parts.push(tools.join("+"));
                }
                if parts.is_empty() {
                    format!("take column {}", col + 1)
                } else {
                    format!("take column {} ({})", col + 1, parts.join(", "))
                }
            }
            Action::TakeFaceUp(i) => match self.face_up.get(i as usize).filter(|&&k| k != super::NONE) {
                Some(&k) => {
                    format!("take face-up card {}: {}", i + 1, c.card_text(k, self.shared.params.discovery_cards))
                }
                None => format!("take face-up card {}", i + 1),
            },
            a => a.name(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_decoding_table_is_the_reading_of_every_id_for_every_content_size() {
        for tiles in 0..=MAX_TILES {
            for id in (0..NUM_ACTIONS + 50).chain([u32::MAX]) {
                assert_eq!(Action::from_id(id, tiles), Action::read_id(id, tiles), "id {id}, {tiles} tiles");
                if let Some(a) = Action::from_id(id, tiles) {
                    assert_eq!(a.id(), id);
                }
            }
        }
    }
}
