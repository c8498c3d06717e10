//! The table: the bag of tools, the Discovery pile, the Headquarters columns, the Expedition
//! deck and its four face-up spaces.

use super::{Expedition, NONE, Tool};
use rand::RngExt;

impl Expedition {
    /// Draw one token at random from the bag; `None` if it is empty.
    pub(crate) fn draw_tool(&mut self) -> Option<u8> {
        let total: u32 = self.bag.iter().map(|&x| x as u32).sum();
        if total == 0 {
            return None;
        }
        let mut r = self.rng.random_range(0..total);
        for (k, &c) in self.bag.iter().enumerate() {
            if r < c as u32 {
                self.bag[k] -= 1;
                return Some(k as u8);
            }
            r -= c as u32;
        }
        None
    }

    /// Draw up to `n` tokens into the current player's backpack (over-limit returns follow).
    pub(crate) fn draw_into_backpack(&mut self, n: usize) {
        for _ in 0..n {
            if let Some(t) = self.draw_tool() {
                self.players[self.current as usize].tools[t as usize] += 1;
            }
        }
    }

    pub(crate) fn return_tool(&mut self, seat: usize, tool: Tool) {
        self.players[seat].tools[tool.index()] -= 1;
        self.bag[tool.index()] += 1;
    }

    /// Fill column `c`: the top tile of the pile in an empty tile space, a drawn token in each
    /// empty tool space (as far as pile and bag allow).
    pub(crate) fn restock_column(&mut self, c: usize) {
        if self.hq_tile[c] == NONE {
            self.hq_tile[c] = self.pile.draw(&mut self.rng).unwrap_or(NONE);
        }
        for k in 0..2 {
            if self.hq_tools[c][k] == NONE {
                self.hq_tools[c][k] = self.draw_tool().unwrap_or(NONE);
            }
        }
    }

    /// Is there anything in column `c` to take?
    pub(crate) fn column_has_anything(&self, c: usize) -> bool {
        self.hq_tile[c] != NONE || self.hq_tools[c][0] != NONE || self.hq_tools[c][1] != NONE
    }

    /// Turn deck cards face up into empty face-up spaces, left to right.
    pub(crate) fn refill_face_up(&mut self) {
        for i in 0..self.face_up.len() {
            if self.face_up[i] == NONE {
                match self.deck.pop() {
                    Some(k) => self.face_up[i] = k,
                    None => return,
                }
            }
        }
    }

    /// A discarded Expedition card is shuffled back into the deck (then empty face-up spaces
    /// are refilled, if the deck had run out).
    pub(crate) fn shuffle_into_deck(&mut self, card: u8) {
        self.deck.push(card);
        self.deck.shuffle(&mut self.rng);
        self.refill_face_up();
    }

    /// Discard one Dice card held by the current player. They are identical, so one everyone
    /// saw taken face up goes first: a card drawn face down stays as hidden as it was.
    /// Returns false if the player holds none.
    pub(crate) fn discard_dice_card(&mut self) -> bool {
        let seat = self.current as usize;
        let held = self.players[seat].cards & self.shared.content.dice_cards;
        if held == 0 {
            return false;
        }
        let seen = held & self.players[seat].known;
        let card = if seen != 0 { seen } else { held }.trailing_zeros() as u8;
        self.players[seat].cards &= !(1u64 << card);
        self.players[seat].known &= !(1u64 << card);
        self.shuffle_into_deck(card);
        true
    }

    pub(crate) fn holds_dice_card(&self, seat: usize) -> bool {
        self.players[seat].cards & self.shared.content.dice_cards != 0
    }

    pub(crate) fn bag_total(&self) -> u32 {
        self.bag.iter().map(|&x| x as u32).sum()
    }
}
