//! Companions (optional): one at a time, a ♥ face joins after its refuge. Q the Partner:
//! +1 satchel limit; K the Witness: the top Journey card is shown to all; J the Burden: −1
//! limit, and the group cannot flee (nor, in martian and dunwich, hide). The Burden leaves
//! through an adversary (a costly flee) or when 10♣ the Deliverance is discarded. A Q/K may
//! be spent as a 10; a companion who leaves is removed from the game with what was cached
//! at its refuge.

use super::params::Riddance;
use super::{Action, Card, Due, DueKind, Journey, Suit};

pub const DELIVERANCE: Card = Card::new(Suit::Clubs, 10);

/// A ♥ face joins after its refuge if there is no companion. Returns whether it joined.
pub(super) fn join(g: &mut Journey, refuge: Card) -> bool {
    if g.p.companions && refuge.is_face() && g.companion.is_none() {
        g.companion = Some(refuge);
        return true;
    }
    false
}

pub(super) fn rank(g: &Journey) -> Option<u8> {
    g.companion.map(Card::rank)
}

pub fn burden(g: &Journey) -> bool {
    rank(g) == Some(11)
}

/// The Witness shows the top Journey card.
pub fn witness(g: &Journey) -> bool {
    rank(g) == Some(13)
}

/// A Q or K companion can be spent as a 10.
pub fn spendable(g: &Journey) -> bool {
    matches!(rank(g), Some(12 | 13))
}

pub(super) fn limit_change(g: &Journey) -> i64 {
    match rank(g) {
        Some(12) => 1,
        Some(11) => -1,
        _ => 0,
    }
}

/// The companion leaves the game, with any card cached at its refuge.
pub(super) fn leave(g: &mut Journey) {
    if let Some(c) = g.companion.take() {
        g.boxed.push(c);
        while let Some(i) = g.caches.iter().position(|s| s.refuge == c) {
            let spot = g.caches.remove(i);
            g.boxed.push(spot.card);
        }
    }
}

/// Free actions open at any of a traveller's decisions: the Deliverance.
pub(super) fn legal_free(g: &Journey, actor: u8, emit: &mut impl FnMut(Action)) {
    if burden(g) && g.satchels[actor as usize].contains(DELIVERANCE) {
        emit(Action::Deliverance);
    }
}

pub(super) fn deliverance(g: &mut Journey, actor: u8) {
    g.satchels[actor as usize].remove_item(DELIVERANCE);
    g.discard.push(DELIVERANCE);
    leave(g);
}

/// Can `actor` be rid of the Burden through this adversary (never the Nemesis)?
pub(super) fn can_rid(g: &Journey, actor: u8, adversary: Card) -> bool {
    if !burden(g) || g.is_nemesis(adversary) {
        return false;
    }
    let own = g.satchels[actor as usize].len();
    match g.p.burden_riddance {
        Riddance::FleePlusOne => own >= 2,
        Riddance::EveryonePlusOne => {
            own >= 2
                && (0..g.travellers() as u8)
                    .filter(|&s| s != actor && g.journeying(s))
                    .all(|s| !g.satchels[s as usize].is_empty())
        }
    }
}

/// Be rid of the Burden: the adversary goes back into the Journey deck, the Burden leaves,
/// and the cards owed are discarded (chosen by their holders).
pub(super) fn rid(g: &mut Journey, actor: u8) {
    let due = |seat, owed| Due { seat, kind: DueKind::Discard, owed, card: Card::default() };
    g.dues.push(due(actor, 2));
    if g.p.burden_riddance == Riddance::EveryonePlusOne {
        for s in 0..g.travellers() as u8 {
            if s != actor && g.journeying(s) {
                g.dues.push(due(s, 1));
            }
        }
    }
    leave(g);
}
