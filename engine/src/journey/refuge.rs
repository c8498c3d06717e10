//! The turn and the Refuge: the front reveals the top Journey card; a ♥ is a Refuge of as
//! many actions as its value (J/Q/K 10, A 11), taken in turn by the journeying travellers,
//! front first: Forage, Recover, Cache (martian, dunwich). A traveller who cannot or will
//! not use an action passes it to the next (unless every other traveller has just passed
//! it on); any of them may end the refuge early, losing the actions left.

use super::params::Destination;
use super::{Action, CacheSpot, Card, Journey, Phase, Suit, companions, fight, regroup};

/// Reveal the top Journey card, or arrive when the deck is empty.
pub(super) fn reveal(g: &mut Journey) {
    let Some(card) = g.journey.draw_from(&mut g.rng) else {
        g.phase = Phase::Arrive;
        return;
    };
    if card.is(Suit::Hearts) {
        let left = g.value(card) as u8;
        g.phase = Phase::Refuge { refuge: card, left, actor: g.front, passes: 0 };
    } else {
        fight::start(g, card);
    }
}

pub(super) fn legal(g: &Journey, refuge: Card, left: u8, actor: u8, passes: u8, emit: &mut impl FnMut(Action)) {
    let a = actor as usize;
    // The martian stock-up follows this action: it removes the powered Aces wherever they are
    // and shuffles the takeable Discard into the Supply. Foraging a powered Ace everyone knows
    // is on top, or recovering any card, would then only end the refuge: a twin of `end refuge`
    // (a recovered card is shuffled into the Supply either way).
    let stock_up_next = stock_up_next(g, refuge, left);
    let boxed_on_top = stock_up_next && g.could_be_on_supply_top().iter().all(|&c| g.is_power_ace(c));
    if g.has_room(actor) && !g.supply.is_empty() && !boxed_on_top {
        emit(Action::Forage);
    }
    if !stock_up_next {
        for &c in g.discard.iter().filter(|&&c| regroup::takeable(c)) {
            emit(Action::Recover(c));
        }
    }
    if can_cache_at(g, refuge) {
        // A power Ace is never cached: it takes no room, and it is removed before the way
        // home (where caches are dug up), so caching it would only end the refuge and lose it.
        for &c in g.satchels[a].iter().filter(|&&c| !g.is_power_ace(c)) {
            emit(Action::Cache(c));
        }
    }
    if can_pass(g, passes) {
        emit(Action::Pass);
    }
    emit(Action::EndRefuge);
}

/// The martian stock-up (section 12) comes right after this action: it is the refuge's last,
/// no Journey card is left to reveal before arrival (nor an A♥ destination refuge to come),
/// and the way home is the ruins one.
fn stock_up_next(g: &Journey, refuge: Card, left: u8) -> bool {
    left <= 1
        && g.journey.is_empty()
        && !(refuge.is_ace() && g.p.destination == Destination::LastRefuge)
        && g.p.return_journey == super::params::ReturnJourney::Ruins
}

/// The action may be passed on while some other journeying traveller has not just passed
/// it (so passing never goes round in a circle, and solo there is nobody to pass to).
fn can_pass(g: &Journey, passes: u8) -> bool {
    let journeying = (0..g.travellers() as u8).filter(|&s| g.journeying(s)).count();
    usize::from(passes) + 1 < journeying
}

/// Only one card per location; the destination is not a stop on the way home.
fn can_cache_at(g: &Journey, refuge: Card) -> bool {
    g.p.cache && !refuge.is_ace() && !g.caches.iter().any(|s| s.refuge == refuge)
}

pub(super) fn apply(g: &mut Journey, refuge: Card, left: u8, actor: u8, passes: u8, a: Action) {
    let seat = actor as usize;
    match a {
        Action::Forage => {
            let c = g.supply.draw(&mut g.rng).expect("forage is listed only with a Supply");
            g.satchels[seat].push(c);
        }
        Action::Recover(c) => {
            g.discard.remove_item(c);
            g.supply.put_under(c);
        }
        Action::Cache(c) => {
            g.satchels[seat].remove_item(c);
            g.caches.push(CacheSpot { refuge, card: c, seat: actor });
            return end(g, refuge);
        }
        Action::EndRefuge => return end(g, refuge),
        Action::Pass => {
            // The same action goes to the next journeying traveller.
            let next = g.next_journeying(actor).expect("passing needs another traveller");
            g.phase = Phase::Refuge { refuge, left, actor: next, passes: passes + 1 };
            return;
        }
        _ => unreachable!("not a refuge action: {a:?}"),
    }
    // One action spent: the next journeying traveller takes the next one.
    match (left.saturating_sub(1), g.next_journeying(actor)) {
        (0, _) | (_, None) => end(g, refuge),
        (left, Some(next)) => g.phase = Phase::Refuge { refuge, left, actor: next, passes: 0 },
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
