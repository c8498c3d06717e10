//! Setup: the Journey deck (♥ and ♠) and the Supply (♦ and ♣) shuffled from the seed, A♥
//! set aside or laid at the bottom, then each traveller, front first, forages until the
//! satchel is full. A scenario fixes any of these piles instead.

use super::params::Destination;
use super::{CARD_COUNT, CacheSpot, Card, Cards, Journey, Phase, Status, Suit};
use crate::core::{DrawPile, Pile, SmallRng};
use rand::SeedableRng;
use serde::Deserialize;

/// A position to start from. Lists are top card first. Piles left out are dealt as in a
/// normal setup from the cards no listed pile holds; the Journey deck and Supply, when
/// listed, are exactly as listed (cards of their suits placed nowhere go to the box).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JourneyScenario {
    pub journey: Option<Vec<Card>>,
    pub supply: Option<Vec<Card>>,
    /// One list per traveller; when left out, satchels are filled by foraging.
    pub satchels: Option<Vec<Vec<Card>>>,
    #[serde(default)]
    pub discard: Vec<Card>,
    #[serde(default)]
    pub wreckage: Vec<Card>,
    /// Refuges already passed, in the order they were passed.
    #[serde(default)]
    pub passed: Vec<Card>,
    #[serde(default)]
    pub caches: Vec<ScenarioCache>,
    pub companion: Option<Card>,
    #[serde(default)]
    pub front: u8,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioCache {
    pub refuge: Card,
    pub card: Card,
    #[serde(default)]
    pub seat: u8,
}

pub(super) fn empty(p: &super::JourneyParams, seed: u64) -> Journey {
    Journey {
        p: p.clone(),
        rng: SmallRng::seed_from_u64(seed),
        journey: Pile::new(),
        supply: DrawPile::new(),
        discard: Cards::new(),
        boxed: Cards::new(),
        set_aside: Cards::new(),
        destination: None,
        satchels: [Pile::new(); 4],
        status: [Status::Journeying; 4],
        wreckage: Pile::new(),
        passed: Pile::new(),
        caches: Pile::new(),
        companion: None,
        companion_joined: false,
        reached: false,
        stops_paid: 0,
        front: 0,
        turns: 0,
        phase: Phase::Reveal,
        fight: None,
        dues: Pile::new(),
        points: 0,
        way: Pile::new(),
        ruins: Pile::new(),
        joker_active: false,
    }
}

/// Lay the Journey deck from `cards` (shuffled): A♥ set aside or at the bottom.
fn lay_journey(g: &mut Journey, cards: impl Iterator<Item = Card>) {
    for c in cards {
        if c == Card::ACE_OF_HEARTS {
            match g.p.destination {
                Destination::SetAside => g.destination = Some(c),
                Destination::LastRefuge => {}
            }
        } else {
            g.journey.push(c);
        }
    }
    g.journey.shuffle(&mut g.rng);
    if g.p.destination == Destination::LastRefuge && g.destination.is_none() {
        g.journey.put_under(Card::ACE_OF_HEARTS);
    }
}

/// Each traveller, front first, forages until the satchel is full.
fn fill_satchels(g: &mut Journey) {
    for k in 0..g.travellers() as u8 {
        let s = (g.front + k) % g.travellers() as u8;
        while g.has_room(s) {
            match g.supply.draw(&mut g.rng) {
                Some(c) => g.satchels[s as usize].push(c),
                None => break,
            }
        }
    }
}

pub fn new_game(p: &super::JourneyParams, seed: u64) -> Journey {
    let mut g = empty(p, seed);
    lay_journey(&mut g, Card::of_suits(&[Suit::Hearts, Suit::Spades]));
    Card::of_suits(&[Suit::Diamonds, Suit::Clubs]).for_each(|c| g.supply.push(c));
    g.supply.shuffle(&mut g.rng);
    g.boxed.push(Card::JOKER);
    fill_satchels(&mut g);
    g.advance();
    g
}

pub fn from_scenario(p: &super::JourneyParams, seed: u64, sc: JourneyScenario) -> Result<Journey, String> {
    let mut g = empty(p, seed);
    let n = g.travellers();
    if sc.front as usize >= n {
        return Err(format!("front: {} is not a traveller (there are {n})", sc.front));
    }
    g.front = sc.front;
    let mut placed = [false; CARD_COUNT];
    let mut place = |c: Card, at: &str| -> Result<Card, String> {
        if std::mem::replace(&mut placed[c.index()], true) {
            return Err(format!("{at}: {c} is placed twice"));
        }
        Ok(c)
    };
    // Listed piles, top card first in YAML, top card last in a Pile.
    if let Some(j) = &sc.journey {
        for &c in j.iter().rev() {
            g.journey.push(place(c, "journey")?);
        }
    }
    if let Some(s) = &sc.supply {
        for &c in s.iter().rev() {
            g.supply.push(place(c, "supply")?);
        }
    }
    if let Some(sat) = &sc.satchels {
        if sat.len() != n {
            return Err(format!("satchels: {} listed for {n} travellers", sat.len()));
        }
        for (i, cards) in sat.iter().enumerate() {
            for &c in cards {
                g.satchels[i].push(place(c, &format!("satchels[{i}]"))?);
            }
        }
    }
    for &c in &sc.discard {
        g.discard.push(place(c, "discard")?);
    }
    for &c in &sc.wreckage {
        if !c.is(Suit::Spades) {
            return Err(format!("wreckage: {c} is not an adversary (♠)"));
        }
        g.wreckage.push(place(c, "wreckage")?);
    }
    for &c in &sc.passed {
        if !c.is(Suit::Hearts) {
            return Err(format!("passed: {c} is not a refuge (♥)"));
        }
        g.passed.push(place(c, "passed")?);
    }
    for spot in &sc.caches {
        if spot.seat as usize >= n {
            return Err(format!("caches: seat {} is not a traveller", spot.seat));
        }
        g.caches.push(CacheSpot { refuge: spot.refuge, card: place(spot.card, "caches")?, seat: spot.seat });
    }
    if let Some(c) = sc.companion {
        if !(c.is(Suit::Hearts) && c.is_face()) {
            return Err(format!("companion: {c} is not a ♥ face"));
        }
        g.companion = Some(place(c, "companion")?);
        g.companion_joined = true;
    }
    // The rest: dealt as in a normal setup, or boxed where the pile was listed.
    let rest = |suits: &[Suit]| -> Vec<Card> { Card::of_suits(suits).filter(|c| !placed[c.index()]).collect() };
    let journey_rest = rest(&[Suit::Hearts, Suit::Spades]);
    let supply_rest = rest(&[Suit::Diamonds, Suit::Clubs]);
    if sc.journey.is_some() {
        for c in journey_rest {
            if c == Card::ACE_OF_HEARTS && g.p.destination == Destination::SetAside {
                g.destination = Some(c);
            } else {
                g.boxed.push(c);
            }
        }
    } else {
        lay_journey(&mut g, journey_rest.into_iter());
    }
    if sc.supply.is_some() {
        supply_rest.into_iter().for_each(|c| g.boxed.push(c));
    } else {
        supply_rest.into_iter().for_each(|c| g.supply.push(c));
        g.supply.shuffle(&mut g.rng);
    }
    if !placed[Card::JOKER.index()] {
        g.boxed.push(Card::JOKER);
    }
    if sc.satchels.is_none() {
        fill_satchels(&mut g);
    }
    g.advance();
    Ok(g)
}
