//! The turn: the die, the choice of action (Prepare an Expedition or Go on an Expedition),
//! completing tiles, the Dice card, the limits of the board, and passing the turn on.

use super::{
    Action, BOARD_SPACES, COMPLETIONS_PER_TURN, Expedition, FACE_UP, Face, HQ_COLUMNS, MAX_DISCOVERIES, NONE, Step,
    TILE_LIMIT, TOOL_LIMIT, Tool,
};
use crate::core::ActionId;
use rand::RngExt;

/// The legal actions of one state, without heap allocation (at most 3 tiles x 5 payments
/// + 4 more in the richest step).
pub(crate) struct Legal {
    ids: [ActionId; 32],
    len: usize,
}

impl Legal {
    pub(crate) fn new() -> Legal {
        Legal { ids: [0; 32], len: 0 }
    }
    #[inline]
    fn push(&mut self, a: Action) {
        if self.len < self.ids.len() {
            self.ids[self.len] = a.id();
            self.len += 1;
        }
    }
    pub(crate) fn as_slice(&self) -> &[ActionId] {
        &self.ids[..self.len]
    }
}

impl Expedition {
    /// Must the player to move put a tile or a token back before anything else?
    #[inline]
    fn over_limit(&self) -> bool {
        let p = &self.players[self.current as usize];
        p.tiles.len() > TILE_LIMIT || p.tool_count() > TOOL_LIMIT
    }

    /// Can the current player pay for `tile` now, the Torch standing in for `torch`?
    #[inline]
    pub(crate) fn can_pay(&self, tile: u8, torch: Option<Tool>) -> bool {
        let p = &self.players[self.current as usize];
        let mut need = self.shared.content.tiles[tile as usize].need;
        if let Some(t) = torch {
            if !p.torch_lit || need[t.index()] == 0 {
                return false;
            }
            need[t.index()] -= 1;
        }
        (0..4).all(|k| p.tools[k] >= need[k])
    }

    fn may_complete(&self) -> bool {
        let p = &self.players[self.current as usize];
        self.completed < COMPLETIONS_PER_TURN && p.done.len() < MAX_DISCOVERIES
    }

    fn push_completions(&self, out: &mut Legal) {
        if !self.may_complete() {
            return;
        }
        let p = &self.players[self.current as usize];
        for &tile in p.tiles.iter() {
            if self.can_pay(tile, None) {
                out.push(Action::Complete { tile, torch: None });
            }
            if p.torch_lit {
                let need = self.shared.content.tiles[tile as usize].need;
                for t in Tool::ALL {
                    if need[t.index()] > 0 && self.can_pay(tile, Some(t)) {
                        out.push(Action::Complete { tile, torch: Some(t) });
                    }
                }
            }
        }
    }

    /// No-dice variant: the Dice card may be discarded at any moment of its holder's turn.
    fn push_dice_effects(&self, out: &mut Legal) {
        let seat = self.current as usize;
        if self.shared.params.dice || !self.holds_dice_card(seat) {
            return;
        }
        if self.bag_total() > 0 {
            out.push(Action::DiceDraw);
        }
        if !self.players[seat].torch_lit {
            out.push(Action::DiceRelight);
        }
        out.push(Action::DiceCoin);
    }

    pub(crate) fn legal_into(&self, out: &mut Legal) {
        if self.step == Step::Over {
            return;
        }
        let p = &self.players[self.current as usize];
        if p.tiles.len() > TILE_LIMIT {
            for &t in p.tiles.iter() {
                out.push(Action::ReturnTile(t));
            }
            return;
        }
        if p.tool_count() > TOOL_LIMIT {
            for t in Tool::ALL {
                if p.tools[t.index()] > 0 {
                    out.push(Action::ReturnTool(t));
                }
            }
            return;
        }
        match self.step {
            Step::Roll => {
                out.push(Action::Roll);
                if self.shared.params.forgotten_roll {
                    out.push(Action::SkipRoll);
                }
            }
            Step::Rolled => {
                // Every roller is asked; only a Dice card's holder may change the face.
                out.push(Action::KeepRoll);
                if self.holds_dice_card(self.current as usize) {
                    for f in Face::ALL {
                        if Some(f) != self.die {
                            out.push(Action::SetFace(f));
                        }
                    }
                }
            }
            Step::Action => {
                for c in 0..HQ_COLUMNS {
                    if self.column_has_anything(c) {
                        out.push(Action::TakeColumn(c as u8));
                    }
                }
                let mut any_card = false;
                // Identical cards (Dice cards; wild Discovery cards) are offered once, at the
                // first space that shows one.
                let mut offered = 0u8;
                for i in 0..FACE_UP {
                    let k = self.face_up[i];
                    if k != NONE {
                        any_card = true;
                        let class = self.shared.identical_class(k);
                        if offered & class == 0 {
                            offered |= class;
                            out.push(Action::TakeFaceUp(i as u8));
                        }
                    }
                }
                if !self.deck.is_empty() {
                    out.push(Action::TakeTop);
                    any_card = true;
                }
                if !any_card {
                    out.push(Action::GoWithoutCard);
                }
                self.push_dice_effects(out);
            }
            Step::Complete => {
                out.push(Action::EndTurn);
                self.push_dice_effects(out);
                self.push_completions(out);
            }
            Step::Finish => {
                out.push(Action::EndTurn);
                self.push_dice_effects(out);
            }
            Step::Over => {}
        }
    }

    /// Carry out a legal action, then settle what follows by itself.
    pub(crate) fn execute(&mut self, a: Action) {
        let seat = self.current as usize;
        match a {
            Action::Roll => {
                // The roller decides before the face acts, Dice card or not, so the pause
                // shows nothing of the hand.
                self.die = Some(Face::from_index(self.rng.random_range(0..3usize)));
                self.step = Step::Rolled;
            }
            Action::SkipRoll => {
                self.players[seat].torch_lit = false;
                self.die = None;
                self.step = Step::Action;
            }
            Action::KeepRoll => {
                if let Some(f) = self.die {
                    self.apply_face(f);
                }
                self.step = Step::Action;
            }
            Action::SetFace(f) => {
                self.discard_dice_card();
                self.die = Some(f);
                self.apply_face(f);
                self.step = Step::Action;
            }
            Action::TakeColumn(c) => {
                let c = c as usize;
                let tile = std::mem::replace(&mut self.hq_tile[c], NONE);
                if tile != NONE {
                    self.players[seat].tiles.push(tile);
                }
                for k in 0..2 {
                    let t = std::mem::replace(&mut self.hq_tools[c][k], NONE);
                    if t != NONE {
                        self.players[seat].tools[t as usize] += 1;
                    }
                }
                self.restock_column(c);
                self.step = Step::Finish;
            }
            Action::TakeFaceUp(i) => {
                let card = self.face_up[i as usize];
                self.players[seat].cards |= 1u64 << card;
                self.players[seat].known |= 1u64 << card;
                self.face_up[i as usize] = self.deck.pop().unwrap_or(NONE);
                self.step = Step::Complete;
            }
            Action::TakeTop => {
                if let Some(card) = self.deck.pop() {
                    self.players[seat].cards |= 1u64 << card;
                }
                self.step = Step::Complete;
            }
            Action::GoWithoutCard => self.step = Step::Complete,
            Action::ReturnTool(t) => self.return_tool(seat, t),
            Action::ReturnTile(t) => {
                self.players[seat].tiles.remove_item(t);
                self.pile.put_under(t);
            }
            Action::EndTurn => self.end_turn(),
            Action::DiceDraw => {
                self.discard_dice_card();
                self.draw_into_backpack(2);
            }
            Action::DiceRelight => {
                self.discard_dice_card();
                self.players[seat].torch_lit = true;
            }
            Action::DiceCoin => {
                self.discard_dice_card();
                self.coin_bonus += 1;
                // +1 for every tile completed this turn, those already laid included.
                self.players[seat].score += self.completed as i32;
            }
            Action::Complete { tile, torch } => self.complete(tile, torch),
        }
        self.settle();
    }

    fn apply_face(&mut self, face: Face) {
        match face {
            Face::Tool => self.draw_into_backpack(1),
            Face::Torch => {
                for p in &mut self.players[..self.n as usize] {
                    p.torch_lit = !p.torch_lit;
                }
            }
            Face::Coin => self.coin_bonus += 1,
        }
    }

    /// Pay for a tile (tokens to the bag, or the Torch out), lay it face down, score it.
    fn complete(&mut self, tile: u8, torch: Option<Tool>) {
        let seat = self.current as usize;
        let mut need = self.shared.content.tiles[tile as usize].need;
        if let Some(t) = torch {
            need[t.index()] -= 1;
            self.players[seat].torch_lit = false;
        }
        for (k, &n) in need.iter().enumerate() {
            self.players[seat].tools[k] -= n;
            self.bag[k] += n;
        }
        let fav = self.shared.content.characters[self.players[seat].character as usize].favourite;
        let p = &mut self.players[seat];
        p.tiles.remove_item(tile);
        p.done.push(tile);
        let points = self.completion_points(seat, need[fav.index()]);
        self.players[seat].score += points;
        self.completed += 1;
        if self.players[seat].done.len() >= BOARD_SPACES {
            self.last_round = true;
        }
    }

    /// After an action, the dice game ends the turn by itself when nothing is left to decide
    /// in it. The no-dice variant never does: a Dice card may be used at any moment of the
    /// turn, so its steps after the action always wait for `end turn`, whatever the hand, and
    /// the pause tells nobody who holds one.
    pub(crate) fn settle(&mut self) {
        if !self.shared.params.dice || self.step == Step::Over || self.over_limit() {
            return;
        }
        match self.step {
            Step::Complete if !self.can_complete_any() => self.end_turn(),
            Step::Finish => self.end_turn(),
            _ => {}
        }
    }

    /// Can the current player complete a tile now (with tokens, or the Torch standing in)?
    fn can_complete_any(&self) -> bool {
        if !self.may_complete() {
            return false;
        }
        let p = &self.players[self.current as usize];
        p.tiles.iter().any(|&tile| {
            self.can_pay(tile, None) || (p.torch_lit && Tool::ALL.into_iter().any(|t| self.can_pay(tile, Some(t))))
        })
    }

    /// Pass the turn clockwise; after the last player in turn order, a new round starts, or
    /// the game ends if someone has completed a sixth tile.
    pub(crate) fn end_turn(&mut self) {
        if self.players[self.current as usize].done.len() >= BOARD_SPACES {
            self.last_round = true;
        }
        self.die = None;
        self.coin_bonus = 0;
        self.completed = 0;
        let next = (self.current + 1) % self.n;
        if next == self.first {
            // The end of a round: the last one, or the last one allowed.
            if self.last_round || self.round >= self.shared.params.max_rounds() {
                self.step = Step::Over;
                return;
            }
            self.round += 1;
        }
        self.current = next;
        self.step = if self.shared.params.dice { Step::Roll } else { Step::Action };
    }
}
