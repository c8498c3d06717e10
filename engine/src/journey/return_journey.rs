//! Arrival and the Return Journey (martian when on; dunwich always).
//!
//! The stops are the passed ♥ refuges in reverse, home last (no toll). At each stop a card
//! cached there is dug up, the Joker (if met) takes a purse card unless bought off with a
//! face card or the companion, a Ruin is offered (martian), then every journeying traveller
//! pays a toll equal to the stop's rank from the shared purse — a traveller whose toll cannot
//! be paid ends the journey there — and each paid toll banks its rank in points.
//! Banked Wreckage becomes face-down Ruins (martian, one offered per stop) or Shadows
//! (dunwich, shuffled into the way home with the Joker): pay half its worth, rounded up, to
//! bank it again, or pass it by.

use super::params::{Aces, ReturnJourney};
use super::{Action, Card, Due, Journey, Phase, Status, StopStep, Suit, fight, regroup};
use rand::RngExt;

/// The destination is reached.
pub(super) fn arrive(g: &mut Journey) {
    g.reached = true;
    if g.p.return_journey == ReturnJourney::Off {
        for s in 0..g.travellers() {
            if g.status[s] == Status::Journeying {
                g.status[s] = Status::Arrived;
            }
        }
        g.phase = Phase::Over;
        return;
    }
    // The way home: the passed refuges, the most recent first.
    g.way = super::Pile::from_slice(g.passed.as_slice());
    g.passed.clear();
    match g.p.return_journey {
        ReturnJourney::Ruins => stock_up(g),
        ReturnJourney::Shadows => {
            let joker = g.boxed.remove_item(Card::JOKER).then_some(Card::JOKER);
            for c in g.wreckage.as_slice().to_vec().into_iter().chain(joker) {
                let at = g.rng.random_range(0..=g.way.len());
                g.way.insert(at, c);
            }
            g.wreckage.clear();
        }
        ReturnJourney::Off => unreachable!(),
    }
    g.phase = Phase::Way;
}

/// martian: remove the two spendable Aces, shuffle the Discard and the Joker into the Supply,
/// forage until every satchel is full, set the Supply aside; Wreckage becomes Ruins.
fn stock_up(g: &mut Journey) {
    if g.p.aces == Aces::Powers {
        for ace in [Card::ACE_OF_CLUBS, Card::ACE_OF_DIAMONDS] {
            let cached = g.caches.iter().position(|spot| spot.card == ace);
            let found = g.supply.remove_item(ace)
                || g.discard.remove_item(ace)
                || g.find_in_satchels(ace).is_some_and(|s| g.satchels[s as usize].remove_item(ace))
                || cached.map(|i| g.caches.remove(i)).is_some();
            if found {
                g.boxed.push(ace);
            }
        }
    }
    for c in g.discard.as_slice().to_vec() {
        if regroup::takeable(c) {
            g.discard.remove_item(c);
            g.supply.push(c);
        }
    }
    // The Joker joins unless a scenario already put it in play.
    if g.boxed.remove_item(Card::JOKER) {
        g.supply.push(Card::JOKER);
    }
    g.supply.shuffle(&mut g.rng);
    // Round by round, each journeying traveller draws while there is room.
    loop {
        let mut drew = false;
        for s in 0..g.travellers() as u8 {
            if g.journeying(s)
                && g.has_room(s)
                && let Some(c) = g.supply.draw(&mut g.rng)
            {
                g.satchels[s as usize].push(c);
                drew = true;
            }
        }
        if !drew {
            break;
        }
    }
    while let Some(c) = g.supply.draw(&mut g.rng) {
        g.set_aside.push(c);
    }
    g.joker_active = g.find_in_satchels(Card::JOKER).is_some();
    g.ruins = g.wreckage;
    g.ruins.shuffle(&mut g.rng);
    g.wreckage.clear();
}

/// The next card of the way home; home when none is left.
pub(super) fn next_on_way(g: &mut Journey) {
    let Some(c) = g.way.pop() else {
        for s in 0..g.travellers() {
            if g.status[s] == Status::Journeying {
                g.status[s] = Status::Arrived;
            }
        }
        g.phase = Phase::Over;
        return;
    };
    g.phase = if c.is_joker() {
        g.joker_active = true;
        g.boxed.push(c);
        Phase::Way
    } else if c.is(Suit::Spades) {
        Phase::Offer { card: c, stop: None }
    } else {
        Phase::Stop { stop: c, step: StopStep::DigUp }
    };
}

pub(super) fn stop_step(g: &mut Journey, stop: Card, step: StopStep) {
    g.phase = match step {
        StopStep::DigUp => {
            while let Some(i) = g.caches.iter().position(|s| s.refuge == stop) {
                let spot = g.caches.remove(i);
                let to = g.journeying_from(spot.seat).expect("someone is journeying");
                g.satchels[to as usize].push(spot.card);
            }
            Phase::Stop { stop, step: StopStep::Joker }
        }
        // (With the Joker active this is a decision, and `advance` stops before it.)
        StopStep::Joker => Phase::Stop { stop, step: StopStep::Ruin },
        StopStep::Ruin => match g.ruins.pop() {
            Some(ruin) => Phase::Offer { card: ruin, stop: Some(stop) },
            None => Phase::Stop { stop, step: StopStep::Tolls },
        },
        StopStep::Tolls => {
            let toll = g.rank(stop) as i16;
            for s in 0..g.travellers() as u8 {
                if g.journeying(s) {
                    g.dues.push(Due::toll(s, toll, stop));
                }
            }
            Phase::Stop { stop, step: StopStep::Done }
        }
        StopStep::Done => {
            // Whoever still journeys paid this stop's toll (the others stopped here).
            g.stops_paid += 1;
            g.passed.push(stop);
            Phase::Way
        }
    };
}

/// Who faces the Joker: in martian its holder (a Joker in a satchel), in dunwich the leader
/// (the Joker met on the way takes from the whole purse). `None` when no one journeying does.
pub(super) fn joker_decider(g: &Journey) -> Option<u8> {
    match g.p.return_journey {
        ReturnJourney::Ruins => g.find_in_satchels(Card::JOKER).filter(|&s| g.journeying(s)),
        _ => g.leader(),
    }
}

/// The cards the Joker can take, and those that can buy him off.
fn joker_reach(g: &Journey) -> Vec<Card> {
    match (g.p.return_journey, joker_decider(g)) {
        (ReturnJourney::Ruins, Some(holder)) => g.satchels[holder as usize].as_slice().to_vec(),
        _ => fight::purse_cards(g).collect(),
    }
}

pub(super) fn legal_joker(g: &Journey, emit: &mut impl FnMut(Action)) {
    for c in joker_reach(g) {
        if c.is_face() {
            emit(Action::ShedForJoker(c));
        }
    }
    // dunwich: "buy him off with a face card or with your companion".
    if g.p.return_journey == ReturnJourney::Shadows && g.companion.is_some() {
        emit(Action::ShedCompanionForJoker);
    }
    emit(Action::Pass);
}

pub(super) fn apply_joker(g: &mut Journey, stop: Card, a: Action) {
    match a {
        Action::ShedForJoker(c) => {
            let s = g.find_in_satchels(c).expect("listed from the purse");
            g.satchels[s as usize].remove_item(c);
            g.discard.push(c);
            rid_joker(g);
        }
        Action::ShedCompanionForJoker => {
            super::companions::leave(g);
            rid_joker(g);
        }
        Action::Pass => {
            // The Joker takes a random card within his reach (never himself).
            let cards: Vec<Card> = joker_reach(g).into_iter().filter(|c| !c.is_joker()).collect();
            if !cards.is_empty() {
                let c = cards[g.rng.random_range(0..cards.len())];
                let s = g.find_in_satchels(c).expect("from the purse");
                g.satchels[s as usize].remove_item(c);
                g.boxed.push(c);
            }
        }
        _ => unreachable!("not a Joker decision: {a:?}"),
    }
    g.phase = Phase::Stop { stop, step: StopStep::Ruin };
}

fn rid_joker(g: &mut Journey) {
    g.joker_active = false;
    if let Some(s) = g.find_in_satchels(Card::JOKER) {
        g.satchels[s as usize].remove_item(Card::JOKER);
        g.boxed.push(Card::JOKER);
    }
}

/// Half the worth, rounded up.
pub fn price(g: &Journey, card: Card) -> i16 {
    (g.worth(card) + 1) / 2
}

pub(super) fn legal_offer(g: &Journey, card: Card, emit: &mut impl FnMut(Action)) {
    if fight::purse(g) >= price(g, card) {
        emit(Action::Strip);
    }
    emit(Action::Pass);
}

pub(super) fn apply_offer(g: &mut Journey, card: Card, stop: Option<Card>, a: Action) {
    match a {
        Action::Strip => {
            let seat = g.leader().expect("someone is journeying");
            g.dues.push(Due::price(seat, price(g, card), card));
        }
        Action::Pass => g.boxed.push(card),
        _ => unreachable!("not an offer decision: {a:?}"),
    }
    g.phase = match stop {
        Some(stop) => Phase::Stop { stop, step: StopStep::Tolls },
        None => Phase::Way,
    };
}
