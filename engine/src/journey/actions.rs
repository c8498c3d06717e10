//! Every decision a traveller can take, and its stable integer id: `kind << 8 | argument`.

use super::cards::{Card, Suit};
use crate::core::{ActionId, ActionTable};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Refuge (or the Hide bonus): draw the top Supply card into your satchel.
    Forage,
    /// Refuge: slide this Discard card under the Supply.
    Recover(Card),
    /// Refuge: hide this satchel card here until the way home; the refuge ends at once.
    Cache(Card),
    /// Refuge: end it now; the remaining actions are lost.
    EndRefuge,
    /// Fight: strike with this card (♦ double its value, ♣ its value).
    Strike(Card),
    /// Fight, allies: a King rallies as rank 2..=9 of its suit (as 10 it is `Strike`).
    StrikeAs(Card, u8),
    /// Fight (or the Hide bonus): play this ♣ to the Discard, then take another Discard card.
    Regroup(Card),
    /// Take this Discard card into your satchel (after Regroup, or a Jack ally's retrieve).
    Take(Card),
    /// Fight: discard this card and flee; the adversary goes back into the Journey deck.
    Flee(Card),
    /// Fight, reveal-chain Hide: reveal the top Supply card.
    Hide,
    /// Fight, classic Hide: nominate this satchel card and reveal the top Supply card.
    HideWith(Card),
    /// Free: A♣ the Reckoning halves the adversary's remaining health.
    Reckoning,
    /// Free: discard 10♣ the Deliverance; the Burden leaves.
    Deliverance,
    /// Fight: be rid of the Burden through this adversary (a flee that costs more cards).
    RidBurden,
    /// Nothing to do: decline a bonus, or wait when no other action is possible.
    Pass,
    /// Pay a due with this satchel card (cover, toll, price, or a discard owed).
    Spend(Card),
    /// Cover with this banked Wreckage card.
    SpendWreckage(Card),
    /// Spend the Q/K companion as a 10; it leaves.
    SpendCompanion,
    /// Way home: pay half the offered Ruin's or Shadow's worth to bank it.
    Strip,
    /// Shed this face card to be rid of the Joker.
    ShedForJoker(Card),
    /// Shed the companion to be rid of the Joker.
    ShedCompanionForJoker,
}

const KINDS: usize = 21;
/// Ids run below this: 21 kinds of 256 arguments (most ids name no action).
pub const ACTION_COUNT: u32 = (KINDS as u32) << 8;

impl Action {
    /// The section of `docs/rules/journey.md` (its heading's id) that says what this does.
    pub fn section(self) -> &'static str {
        use Action::*;
        match self {
            Forage | Recover(_) | Cache(_) | EndRefuge => "4-the-refuge",
            Strike(_) => "strike",
            StrikeAs(..) => "9-allies-optional-allies-off-by-default",
            Regroup(_) | Take(_) => "regroup",
            Flee(_) => "flee",
            Hide | HideWith(_) => "7-hide",
            Reckoning => "a-the-reckoning-and-a-the-revelation-aces-powers-classic-and-martian",
            Deliverance | RidBurden => "riddance-being-rid-of-the-burden",
            Pass => "pass",
            Spend(_) | SpendWreckage(_) => "covering-and-falling",
            SpendCompanion => "spending-a-qk-companion",
            Strip => "12-the-return-journey",
            ShedForJoker(_) | ShedCompanionForJoker => "a-stop",
        }
    }

    /// What it acts on, as a drawing of the mover's observation names it
    /// ([`crate::core::Game::action_target`]): a card of the mover's satchel, of the Discard
    /// or of the Wreckage, the Supply, the adversary, the companion, the way home's offer, or
    /// a choice with no card of its own (`pass`, `end-refuge`, the Reckoning, the Deliverance).
    pub fn target(self) -> String {
        use Action::*;
        match self {
            Forage | Hide => "supply".into(),
            Recover(c) | Take(c) => format!("discard:{c}"),
            Cache(c) | Strike(c) | StrikeAs(c, _) | Regroup(c) | Flee(c) | HideWith(c) | Spend(c) | ShedForJoker(c) => {
                format!("satchel:{c}")
            }
            SpendWreckage(c) => format!("wreckage:{c}"),
            EndRefuge => "end-refuge".into(),
            Reckoning => "reckoning".into(),
            Deliverance => "deliverance".into(),
            RidBurden => "adversary".into(),
            Pass => "pass".into(),
            SpendCompanion | ShedCompanionForJoker => "companion".into(),
            Strip => "offer".into(),
        }
    }

    fn kind(self) -> u32 {
        use Action::*;
        match self {
            Forage => 0,
            Recover(_) => 1,
            Cache(_) => 2,
            EndRefuge => 3,
            Strike(_) => 4,
            StrikeAs(..) => 5,
            Regroup(_) => 6,
            Take(_) => 7,
            Flee(_) => 8,
            Hide => 9,
            HideWith(_) => 10,
            Reckoning => 11,
            Deliverance => 12,
            RidBurden => 13,
            Pass => 14,
            Spend(_) => 15,
            SpendWreckage(_) => 16,
            SpendCompanion => 17,
            Strip => 18,
            ShedForJoker(_) => 19,
            ShedCompanionForJoker => 20,
        }
    }

    pub fn id(self) -> ActionId {
        use Action::*;
        let arg = match self {
            Recover(c) | Cache(c) | Strike(c) | Regroup(c) | Take(c) | Flee(c) | HideWith(c) | Spend(c)
            | SpendWreckage(c) | ShedForJoker(c) => c.index() as u32,
            StrikeAs(c, r) => (c.is(Suit::Clubs) as u32) << 4 | r as u32,
            _ => 0,
        };
        self.kind() << 8 | arg
    }

    /// The action an id names, if any (legality aside): one look in a table of every id (16 kB,
    /// read once by [`Action::read_id`]).
    #[inline]
    pub fn from_id(id: ActionId) -> Option<Action> {
        static DECODED: ActionTable<Action> = ActionTable::new(ACTION_COUNT, Action::read_id);
        DECODED.get(id)
    }

    /// What [`Action::from_id`] looks up: the action an id names, read from its kind and
    /// argument.
    fn read_id(id: ActionId) -> Option<Action> {
        use Action::*;
        let (kind, arg) = ((id >> 8) as usize, (id & 0xff) as u8);
        if kind >= KINDS {
            return None;
        }
        let card = || Card::from_index(arg);
        let none = || (arg == 0).then_some(());
        Some(match kind {
            0 => none().map(|_| Forage)?,
            1 => Recover(card()?),
            2 => Cache(card()?),
            3 => none().map(|_| EndRefuge)?,
            4 => Strike(card()?),
            5 => {
                let suit = if arg >> 4 == 1 { Suit::Clubs } else { Suit::Diamonds };
                let r = arg & 0xf;
                if arg >> 4 > 1 || !(2..=9).contains(&r) {
                    return None;
                }
                StrikeAs(Card::new(suit, 13), r)
            }
            6 => Regroup(card()?),
            7 => Take(card()?),
            8 => Flee(card()?),
            9 => none().map(|_| Hide)?,
            10 => HideWith(card()?),
            11 => none().map(|_| Reckoning)?,
            12 => none().map(|_| Deliverance)?,
            13 => none().map(|_| RidBurden)?,
            14 => none().map(|_| Pass)?,
            15 => Spend(card()?),
            16 => SpendWreckage(card()?),
            17 => none().map(|_| SpendCompanion)?,
            18 => none().map(|_| Strip)?,
            19 => ShedForJoker(card()?),
            _ => none().map(|_| ShedCompanionForJoker)?,
        })
    }

    pub fn label(self) -> String {
        use Action::*;
        match self {
            Forage => "forage".into(),
            Recover(c) => format!("recover {c}"),
            Cache(c) => format!("cache {c}"),
            EndRefuge => "end refuge".into(),
            Strike(c) => format!("strike {c}"),
            StrikeAs(c, r) => format!("strike {c} as {r}"),
            Regroup(c) => format!("regroup with {c}"),
            Take(c) => format!("take {c}"),
            Flee(c) => format!("flee, discarding {c}"),
            Hide => "hide".into(),
            HideWith(c) => format!("hide, nominating {c}"),
            Reckoning => "play the Reckoning (A♣)".into(),
            Deliverance => "play the Deliverance (10♣)".into(),
            RidBurden => "be rid of the Burden".into(),
            Pass => "pass".into(),
            Spend(c) => format!("spend {c}"),
            SpendWreckage(c) => format!("spend wreckage {c}"),
            SpendCompanion => "spend the companion as 10".into(),
            Strip => "pay to bank it".into(),
            ShedForJoker(c) => format!("shed {c} to be rid of the Joker"),
            ShedCompanionForJoker => "shed the companion to be rid of the Joker".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_decodes_to_the_action_that_encodes_it() {
        let mut count = 0;
        for id in 0..(KINDS as u32) << 8 {
            if let Some(a) = Action::from_id(id) {
                assert_eq!(a.id(), id, "{a:?}");
                count += 1;
            }
        }
        // 10 kinds without an argument, 10 with a card (53 each), 16 King rallies (2..=9 of
        // ♦ and ♣; rallying as 10 is the King's own strike, so it has no id of its own).
        assert_eq!(count, 10 + 10 * 53 + 16);
    }

    #[test]
    fn the_decoding_table_is_the_reading_of_every_id() {
        for id in (0..ACTION_COUNT + 600).chain([u32::MAX, 1 << 16]) {
            assert_eq!(Action::from_id(id), Action::read_id(id), "id {id}");
        }
        assert_eq!(std::mem::size_of::<Option<Action>>(), 3, "the table's 16 kB");
    }
}
