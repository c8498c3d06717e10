//! Companions (optional): a ♥ face joins after its refuge — in classic only the first ♥ face
//! ever met, in martian and dunwich one at a time (whenever none travels). Q the Partner:
//! +1 satchel limit; K the Witness: the top Journey card is shown to all; J the Burden: −1
//! limit, and the group cannot flee (nor, in martian and dunwich, hide). The Burden leaves
//! through an adversary (a costly flee) or when 10♣ the Deliverance is discarded. A Q/K may
//! be spent as a 10; a companion who leaves is removed from the game with what was cached
//! at its refuge.

use super::params::{CompanionJoin, Riddance};
use super::{Card, Due, Journey, Suit};

pub const DELIVERANCE: Card = Card::new(Suit::Clubs, 10);

/// A ♥ face joins after its refuge if there is no companion (and, with `first_only`, none
/// ever joined before). Returns whether it joined.
pub(super) fn join(g: &mut Journey, refuge: Card) -> bool {
    let first_only_spent = g.p.companion_joins == CompanionJoin::FirstOnly && g.companion_joined;
    if g.p.companions && refuge.is_face() && g.companion.is_none() && !first_only_spent {
        g.companion = Some(refuge);
        g.companion_joined = true;
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

/// The Deliverance is free at any of its holder's decisions while the Burden travels.
pub(super) fn can_deliver(g: &Journey, seat: u8) -> bool {
    burden(g) && g.satchels[seat as usize].contains(DELIVERANCE)
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
            let (mut count, mut cards) = (0, 0);
            for s in (0..g.travellers() as u8).filter(|&s| g.journeying(s)) {
                let n = g.satchels[s as usize].len();
                if n == 0 {
                    return false;
                }
                count += 1;
                cards += n;
            }
            cards > count
        }
    }
}

/// Be rid of the Burden: the adversary goes back into the Journey deck, the Burden leaves,
/// and the cards owed are discarded (chosen by their holders).
pub(super) fn rid(g: &mut Journey, actor: u8) {
    match g.p.burden_riddance {
        Riddance::FleePlusOne => g.dues.push(Due::discard(actor, 2)),
        Riddance::EveryonePlusOne => {
            let n = g.travellers() as u8;
            for s in (0..n).map(|k| (actor + k) % n) {
                if g.journeying(s) {
                    g.dues.push(Due::discard(s, 1));
                }
            }
            g.dues.push(Due::discard_any(actor, 1));
        }
    }
    leave(g);
}
