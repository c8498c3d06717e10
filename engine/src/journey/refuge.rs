//! The turn and the Refuge: the front reveals the top Journey card; a ♥ is a Refuge of as
//! many actions as its value (J/Q/K 10, A 11), taken in turn by the journeying travellers,
//! front first: Forage, Recover, Cache (martian, dunwich); any of them may end it early.

use super::params::Destination;
use super::{Action, CacheSpot, Card, Journey, Phase, Suit, companions, fight};

/// Reveal the top Journey card, or arrive when the deck is empty.
pub(super) fn reveal(g: &mut Journey) {
    let Some(card) = g.journey.pop() else {
        g.phase = Phase::Arrive;
        return;
    };
    if card.is(Suit::Hearts) {
        let left = g.value(card) as u8;
        g.phase = Phase::Refuge { refuge: card, left, actor: g.front };
    } else {
        fight::start(g, card);
    }
}

pub(super) fn legal(g: &Journey, refuge: Card, actor: u8, emit: &mut impl FnMut(Action)) {
    let a = actor as usize;
    if g.has_room(actor) && !g.supply.is_empty() {
        emit(Action::Forage);
    }
    for &c in g.discard.iter() {
        if fight::takeable(c) {
            emit(Action::Recover(c));
        }
    }
    if can_cache_at(g, refuge) {
        for &c in g.satchels[a].iter() {
            emit(Action::Cache(c));
        }
    }
    emit(Action::EndRefuge);
}

/// Only one card per location; the destination is not a stop on the way home.
fn can_cache_at(g: &Journey, refuge: Card) -> bool {
    g.p.cache && !refuge.is_ace() && !g.caches.iter().any(|s| s.refuge == refuge)
}

pub(super) fn apply(g: &mut Journey, refuge: Card, left: u8, actor: u8, a: Action) {
    let seat = actor as usize;
    match a {
        Action::Forage => {
            let c = g.draw_supply().expect("forage is listed only with a Supply");
            g.satchels[seat].push(c);
        }
        Action::Recover(c) => {
            g.discard.remove_item(c);
            g.slide_under_supply(c);
        }
        Action::Cache(c) => {
            g.satchels[seat].remove_item(c);
            g.caches.push(CacheSpot { refuge, card: c, seat: actor });
            return end(g, refuge);
        }
        Action::EndRefuge => return end(g, refuge),
        _ => unreachable!("not a refuge action: {a:?}"),
    }
    // One action spent: the next journeying traveller takes the next one.
    match (left.saturating_sub(1), g.next_journeying(actor)) {
        (0, _) | (_, None) => end(g, refuge),
        (left, Some(next)) => g.phase = Phase::Refuge { refuge, left, actor: next },
    }
}

/// The refuge ends: its ♥ face may join as a companion; the last-refuge A♥ means arrival;
/// any other refuge is passed (a stop on the way home).
fn end(g: &mut Journey, refuge: Card) {
    if refuge.is_ace() && g.p.destination == Destination::LastRefuge {
        g.destination = Some(refuge);
        g.phase = Phase::Arrive;
        return;
    }
    if !companions::join(g, refuge) {
        g.passed.push(refuge);
    }
    g.end_turn();
}
