//! Regroup and taking a card back from the Discard. Regroup plays a ♣ from the satchel to the
//! Discard, then takes any other ♦ or ♣ from it: a fight round's action, or the classic Hide
//! bonus. A Jack ally's retrieve takes a card the same way.

use super::{Action, Card, Journey, Phase, Suit, Then};

/// A Discard card that can come back (Regroup, Recover, a Jack's retrieve): ♦ and ♣ only;
/// spent Wreckage and defeated adversaries in the Discard stay there.
pub(super) fn takeable(c: Card) -> bool {
    c.is(Suit::Diamonds) || c.is(Suit::Clubs)
}

pub(super) fn can_regroup(g: &Journey, club: Card) -> bool {
    club.is(Suit::Clubs) && !g.is_power_ace(club) && g.discard.iter().any(|&c| takeable(c))
}

/// Play a ♣ to the Discard, then take another Discard card.
pub(super) fn regroup(g: &mut Journey, actor: u8, club: Card, then: Then) {
    g.satchels[actor as usize].remove_item(club);
    g.discard.push(club);
    g.phase = Phase::Take { seat: actor, suit: None, not: club, then };
}

pub(super) fn take(g: &mut Journey, seat: u8, a: Action, then: Then) {
    let Action::Take(c) = a else { unreachable!("not a take: {a:?}") };
    g.discard.remove_item(c);
    g.satchels[seat as usize].push(c);
    g.phase = match then {
        Then::AfterAction => Phase::AfterAction { actor: seat },
        Then::Decide => Phase::Fight { actor: seat },
    };
}
