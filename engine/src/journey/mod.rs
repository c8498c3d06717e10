//! `journey`: a cooperative card game for 1–4 travellers, in three editions.
//! The rules as implemented are in `docs/rules/journey.md`; each file here is one part of
//! them: [`setup`], [`refuge`], [`fight`], [`hide`], [`regroup`], [`companions`],
//! [`return_journey`].
//!
//! The flow: the state always rests at a decision (or at the end). Applying an action
//! changes the state, then [`Journey::advance`] runs every step that needs no decision
//! (revealing cards, counters, falls, the stops of the way home) until the next one.

pub mod actions;
pub mod cards;
mod companions;
mod fight;
mod hide;
mod observation;
pub mod params;
mod refuge;
mod regroup;
mod return_journey;
mod setup;
pub mod tensor;

pub use actions::Action;
pub use cards::{CARD_COUNT, Card, Suit};
pub use observation::{JourneyObservation, RoundView, TravellerView};
pub use params::JourneyParams;
pub use setup::JourneyScenario;

use crate::core::{
    ActionId, Detail, DrawPile, Figures, Game, Metric, Outcome, Pile, Seat, SmallRng, TensorField, fresh_chance,
};
use params::{AceRank, Aces, AdversaryScale, Destination};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;

/// A pile big enough for every card of the game.
pub type Cards = Pile<Card, 54>;

/// Where a traveller stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    #[default]
    Journeying,
    /// Could not cover a strike: out of the game.
    Fallen,
    /// Could not pay a toll on the way home: the journey ended there.
    Stopped,
    /// Arrived (at the destination, or home when there is a way home).
    Arrived,
}

/// A card hidden at a refuge by a traveller.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CacheSpot {
    pub refuge: Card,
    pub card: Card,
    pub seat: u8,
}

/// What a due is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DueKind {
    /// Cover an adversary's strike with satchel cards, Wreckage or a Q/K companion.
    #[default]
    Cover,
    /// A toll on the way home, from the shared purse; its card is the stop.
    Toll,
    /// The price of a Ruin or Shadow, from the shared purse; its card is what it banks.
    Price,
    /// Cards owed to the Discard (being rid of the Burden); `owed` counts cards.
    Discard,
    /// One card owed to the Discard from any one traveller, chosen by `seat`.
    DiscardAny,
}

impl DueKind {
    /// Whether a due of this kind is for a card: a toll for its stop, a price for the Ruin or
    /// Shadow it banks. A cover or a discard is for no card.
    pub fn names_card(self) -> bool {
        matches!(self, DueKind::Toll | DueKind::Price)
    }
}

/// Something a traveller must pay before play goes on. Build one with [`Due::cover`],
/// [`Due::toll`], [`Due::price`], [`Due::discard`] or [`Due::discard_any`]: `card` is there
/// exactly when the kind [names a card](DueKind::names_card).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Due {
    pub seat: u8,
    pub kind: DueKind,
    pub owed: i16,
    /// The card the due is for, face up: the stop of a toll, the Ruin or Shadow a price banks.
    /// `None` for a cover or a discard, which are for no card.
    pub card: Option<Card>,
}

impl Due {
    /// Cover a strike of `owed`.
    pub fn cover(seat: u8, owed: i16) -> Due {
        Due { seat, kind: DueKind::Cover, owed, card: None }
    }

    /// The toll of the stop `stop`.
    pub fn toll(seat: u8, owed: i16, stop: Card) -> Due {
        Due { seat, kind: DueKind::Toll, owed, card: Some(stop) }
    }

    /// The price of banking `card` (a Ruin or Shadow), paid by `seat` from the purse.
    pub fn price(seat: u8, owed: i16, card: Card) -> Due {
        Due { seat, kind: DueKind::Price, owed, card: Some(card) }
    }

    /// `owed` cards from `seat`'s satchel to the Discard.
    pub fn discard(seat: u8, owed: i16) -> Due {
        Due { seat, kind: DueKind::Discard, owed, card: None }
    }

    /// `owed` cards from any traveller to the Discard, chosen by `seat`.
    pub fn discard_any(seat: u8, owed: i16) -> Due {
        Due { seat, kind: DueKind::DiscardAny, owed, card: None }
    }

    /// The card of a toll or a price (the stop, or the card to bank).
    fn owed_card(&self) -> Card {
        self.card.unwrap_or_else(|| unreachable!("a {:?} due names its card", self.kind))
    }

    /// `Err` unless the card is there exactly when the kind names one (for due `i` of an
    /// observation being rebuilt).
    pub fn check(&self, i: usize) -> Result<(), String> {
        let kind = format!("{:?}", self.kind).to_lowercase();
        match (self.kind.names_card(), self.card) {
            (true, None) => Err(format!("dues[{i}]: a {kind} due is for a card, and names none")),
            (false, Some(c)) => Err(format!("dues[{i}]: a {kind} due is for no card, and names {c}")),
            _ => Ok(()),
        }
    }
}

/// An adversary being fought.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FightState {
    pub adversary: Card,
    pub health: i16,
    pub attack: i16,
    /// This round's counter reduction (Queens, the Revelation).
    pub reduction: i16,
    /// Travellers who hid successfully this round: the counter spares them.
    pub spared: [bool; 4],
    /// Reveal-chain Hide: the next reveal must rank below this.
    pub hide_bar: u8,
    /// A Hide failed in this encounter: no more hiding.
    pub hide_failed: bool,
    /// Classic Hide is still open (the front's first decision).
    pub nominate_open: bool,
    /// This round's actors, front first, and how many have acted.
    pub order: [u8; 4],
    pub order_len: u8,
    pub pos: u8,
}

/// What follows a Take decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Then {
    /// The traveller's round action is over.
    AfterAction,
    /// Back to the traveller's round decision (after the classic Hide bonus).
    Decide,
}

/// Where the way home stands at a stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopStep {
    DigUp,
    Joker,
    Ruin,
    Tolls,
    Done,
}

/// The step of play. Every phase is public: it names whose decision it is and what it is
/// about, and the observation carries it whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Reveal the next Journey card (no decision).
    Reveal,
    /// A refuge with `left` actions; `actor` decides. `passes` counts the travellers who
    /// passed this action on in a row (none may pass once all others have).
    Refuge {
        refuge: Card,
        left: u8,
        actor: u8,
        passes: u8,
    },
    /// `actor`'s action in this fight round.
    Fight {
        actor: u8,
    },
    /// `seat` takes a Discard card (of `suit`, if set; never `not`).
    Take {
        seat: u8,
        suit: Option<Suit>,
        not: Card,
        then: Then,
    },
    /// Classic Hide succeeded: one bonus Forage or Regroup, or pass.
    HideBonus {
        seat: u8,
    },
    /// `actor` has acted: the next actor, or the counter (no decision).
    AfterAction {
        actor: u8,
    },
    /// The counter has been paid: the next round (no decision).
    RoundEnd,
    /// The encounter is over: the next traveller is the front (no decision).
    EndTurn,
    /// The destination is reached (no decision).
    Arrive,
    /// The next card of the way home (no decision).
    Way,
    /// A stop on the way home.
    Stop {
        stop: Card,
        step: StopStep,
    },
    /// A Ruin or Shadow offered: pay half its worth to bank it, or pass it by.
    Offer {
        card: Card,
        stop: Option<Card>,
    },
    Over,
}

/// A complete position, its random generator included: equal states play on identically.
#[derive(Clone, Debug, PartialEq)]
pub struct Journey {
    pub(crate) p: JourneyParams,
    pub(crate) rng: SmallRng,
    pub(crate) journey: Pile<Card, 28>,
    /// The Supply: the cards slid under it are known to all.
    pub(crate) supply: DrawPile<Card, 54>,
    pub(crate) discard: Cards,
    /// Out of the game: the Joker before the way home, spent Aces, companions who left,
    /// stolen cards, Ruins and Shadows passed by.
    pub(crate) boxed: Cards,
    /// martian way home: the Supply set aside after the stock-up.
    pub(crate) set_aside: Cards,
    /// A♥ while it is set aside or turned.
    pub(crate) destination: Option<Card>,
    pub(crate) satchels: [Pile<Card, 40>; 4],
    pub(crate) status: [Status; 4],
    pub(crate) wreckage: Pile<Card, 16>,
    /// Refuges passed, in order (on the way home: the stops visited).
    pub(crate) passed: Pile<Card, 16>,
    pub(crate) caches: Pile<CacheSpot, 16>,
    pub(crate) companion: Option<Card>,
    /// A companion has joined at some time (classic: only the first ever joins).
    pub(crate) companion_joined: bool,
    /// The destination was reached (the way home, if any, began).
    pub(crate) reached: bool,
    /// Stops on the way home whose tolls were paid.
    pub(crate) stops_paid: u8,
    pub(crate) front: u8,
    pub(crate) turns: u16,
    pub(crate) phase: Phase,
    pub(crate) fight: Option<FightState>,
    pub(crate) dues: Pile<Due, 8>,
    /// Points banked on the way home (tolls).
    pub(crate) points: i32,
    /// The way home, next card on top.
    pub(crate) way: Pile<Card, 32>,
    pub(crate) ruins: Pile<Card, 16>,
    pub(crate) joker_active: bool,
}

impl Journey {
    // ----- values and ranks -------------------------------------------------------------

    /// A card's value when it strikes, covers or pays: pips, J/Q/K 10, Aces per edition.
    pub fn value(&self, c: Card) -> i16 {
        match c.rank() {
            0 => 0,
            2..=10 => c.rank() as i16,
            11..=13 => 10,
            _ => match self.p.aces {
                Aces::Ordinary => 11,
                Aces::Powers => match c.suit() {
                    Some(Suit::Clubs | Suit::Diamonds) => self.p.spent_ace_value.get() as i16,
                    _ => 11,
                },
            },
        }
    }

    /// A card's rank in comparisons and tolls: 2..=10, J 11, Q 12, K 13, Ace 1 or 14.
    pub fn rank(&self, c: Card) -> u8 {
        if c.is_ace() && self.p.ace_rank == AceRank::Low { 1 } else { c.rank() }
    }

    /// An A♣ or A♦ that carries a power (and takes no satchel room).
    pub fn is_power_ace(&self, c: Card) -> bool {
        self.p.aces == Aces::Powers && (c == Card::ACE_OF_CLUBS || c == Card::ACE_OF_DIAMONDS)
    }

    pub fn is_nemesis(&self, c: Card) -> bool {
        c == Card::ACE_OF_SPADES
    }

    /// An adversary's (health, attack).
    pub fn adversary_stats(&self, c: Card) -> (i16, i16) {
        if self.is_nemesis(c) {
            let extra = self.p.travellers() as i16 - 1;
            let hp =
                self.p.nemesis_health.get() as i16 + extra * self.p.nemesis_health_per_extra_traveller.get() as i16;
            return (hp, self.p.nemesis_attack.get() as i16);
        }
        let size = match self.p.adversary_scale {
            AdversaryScale::Rank => c.rank() as i16,
            AdversaryScale::Value => self.value(c),
        };
        (size * self.p.adversary_health_factor.get() as i16, size)
    }

    /// A banked Wreckage card's worth: the adversary's attack.
    pub fn worth(&self, c: Card) -> i16 {
        self.adversary_stats(c).1
    }

    // ----- travellers -------------------------------------------------------------------

    pub fn travellers(&self) -> usize {
        self.p.travellers()
    }

    pub(crate) fn journeying(&self, seat: u8) -> bool {
        self.status[seat as usize] == Status::Journeying
    }

    /// The next journeying traveller after `seat`, in seat order, wrapping (may be `seat`).
    pub(crate) fn next_journeying(&self, seat: u8) -> Option<u8> {
        let n = self.travellers() as u8;
        (1..=n).map(|k| (seat + k) % n).find(|&s| self.journeying(s))
    }

    /// The first journeying traveller from `seat` on (`seat` itself if journeying).
    pub(crate) fn journeying_from(&self, seat: u8) -> Option<u8> {
        let n = self.travellers() as u8;
        (0..n).map(|k| (seat + k) % n).find(|&s| self.journeying(s))
    }

    /// Satchel room in use: power Aces take none.
    pub fn satchel_load(&self, seat: u8) -> usize {
        self.satchels[seat as usize].iter().filter(|&&c| !self.is_power_ace(c)).count()
    }

    pub fn satchel_limit(&self) -> usize {
        let base = self.p.satchel_limit.get();
        (base + companions::limit_change(self)).max(0) as usize
    }

    /// The Supply cards that may be its top, as far as the table knows: the cards above the
    /// known bottom, or, when every card was seen slid under, the top one.
    pub(crate) fn could_be_on_supply_top(&self) -> &[Card] {
        let (cards, unknown) = (self.supply.as_slice(), self.supply.unknown());
        if unknown.is_empty() { &cards[cards.len().saturating_sub(1)..] } else { unknown }
    }

    pub(crate) fn has_room(&self, seat: u8) -> bool {
        self.satchel_load(seat) < self.satchel_limit()
    }

    pub(crate) fn find_in_satchels(&self, c: Card) -> Option<u8> {
        (0..self.travellers() as u8).find(|&s| self.satchels[s as usize].contains(c))
    }

    // ----- piles ------------------------------------------------------------------------

    /// A `last_refuge` A♥ lies at the bottom of the Journey deck (it stays there whatever is
    /// shuffled in, and everyone knows it).
    pub(crate) fn destination_at_bottom(&self) -> bool {
        self.p.destination == Destination::LastRefuge && self.journey.as_slice().first() == Some(&Card::ACE_OF_HEARTS)
    }

    /// Shuffle an adversary back into the Journey deck at a random place (above a
    /// `last_refuge` A♥ at the bottom).
    pub(crate) fn shuffle_into_journey(&mut self, c: Card) {
        use rand::RngExt;
        let lowest = usize::from(self.destination_at_bottom());
        let at = self.rng.random_range(lowest..=self.journey.len());
        self.journey.insert(at, c);
    }

    // ----- turn order -------------------------------------------------------------------

    pub(crate) fn end_turn(&mut self) {
        self.turns += 1;
        match self.next_journeying(self.front) {
            Some(s) => {
                self.front = s;
                self.phase = Phase::Reveal;
            }
            None => self.phase = Phase::Over,
        }
    }

    fn everyone_out(&self) -> bool {
        (0..self.travellers() as u8).all(|s| !self.journeying(s))
    }

    /// Run every step that needs no decision, until a decision or the end.
    pub(crate) fn advance(&mut self) {
        loop {
            if !self.dues.is_empty() {
                if fight::settle_due(self) {
                    continue;
                }
                return;
            }
            if self.everyone_out() && !matches!(self.phase, Phase::Over) {
                self.finish();
            }
            match self.phase {
                Phase::Reveal => refuge::reveal(self),
                Phase::AfterAction { actor } => fight::after_action(self, actor),
                Phase::RoundEnd => fight::next_round(self),
                Phase::EndTurn => self.end_turn(),
                Phase::Arrive => return_journey::arrive(self),
                Phase::Way => return_journey::next_on_way(self),
                // The Joker's decision.
                Phase::Stop { step: StopStep::Joker, .. }
                    if self.joker_active && return_journey::joker_decider(self).is_some() =>
                {
                    return;
                }
                Phase::Stop { stop, step } => return_journey::stop_step(self, stop, step),
                Phase::Fight { actor } if !self.journeying(actor) => self.phase = Phase::AfterAction { actor },
                Phase::Refuge { .. }
                | Phase::Fight { .. }
                | Phase::Take { .. }
                | Phase::HideBonus { .. }
                | Phase::Offer { .. }
                | Phase::Over => return,
            }
        }
    }

    /// No one journeys on: the game ends, and a card the phase held is laid down.
    fn finish(&mut self) {
        match self.phase {
            Phase::Refuge { refuge, .. } => self.passed.push(refuge),
            Phase::Stop { stop, .. } => self.passed.push(stop),
            Phase::Offer { card, stop } => {
                self.boxed.push(card);
                stop.into_iter().for_each(|s| self.passed.push(s));
            }
            _ => {}
        }
        self.phase = Phase::Over;
    }

    /// The leader on the way home: the first journeying traveller in seat order.
    pub(crate) fn leader(&self) -> Option<u8> {
        self.journeying_from(0)
    }

    // ----- the one place that lists legal actions ----------------------------------------

    pub(crate) fn legal(&self, mut emit: impl FnMut(Action)) {
        if let Some(due) = self.dues.first() {
            fight::legal_payments(self, due, &mut emit);
        } else {
            self.legal_in_phase(&mut emit);
        }
        // Free actions, open at any of the decider's decisions.
        if let Some(seat) = self.decider().filter(|&s| self.journeying(s)) {
            if fight::can_reckon(self, seat) {
                emit(Action::Reckoning);
            }
            if companions::can_deliver(self, seat) {
                emit(Action::Deliverance);
            }
        }
    }

    fn legal_in_phase(&self, mut emit: impl FnMut(Action)) {
        match self.phase {
            Phase::Refuge { refuge, left, actor, passes } => {
                refuge::legal(self, refuge, left, actor, passes, &mut emit)
            }
            Phase::Fight { actor } => fight::legal(self, actor, &mut emit),
            Phase::Take { seat: _, suit, not, .. } => {
                for &c in self.discard.iter() {
                    if regroup::takeable(c) && c != not && suit.is_none_or(|s| c.is(s)) {
                        emit(Action::Take(c));
                    }
                }
            }
            Phase::HideBonus { seat } => hide::legal_bonus(self, seat, &mut emit),
            Phase::Stop { step: StopStep::Joker, .. } => return_journey::legal_joker(self, &mut emit),
            Phase::Offer { card, .. } => return_journey::legal_offer(self, card, &mut emit),
            _ => {}
        }
    }

    /// The seat whose decision it is.
    fn decider(&self) -> Option<u8> {
        if let Some(d) = self.dues.first() {
            return Some(d.seat);
        }
        match self.phase {
            Phase::Refuge { actor, .. } | Phase::Fight { actor } => Some(actor),
            Phase::Take { seat, .. } | Phase::HideBonus { seat } => Some(seat),
            Phase::Stop { step: StopStep::Joker, .. } => return_journey::joker_decider(self),
            Phase::Offer { .. } => self.leader(),
            _ => None,
        }
    }

    // ----- the one place that applies them ---------------------------------------------

    fn execute(&mut self, a: Action) {
        let seat = self.decider().expect("a decision has a decider");
        if a == Action::Reckoning {
            fight::reckoning(self, seat);
        } else if a == Action::Deliverance {
            companions::deliverance(self, seat);
        } else if !self.dues.is_empty() {
            fight::pay(self, a);
        } else {
            match self.phase {
                Phase::Refuge { refuge, left, actor, passes } => refuge::apply(self, refuge, left, actor, passes, a),
                Phase::Fight { actor } => fight::apply(self, actor, a),
                Phase::Take { seat, then, .. } => regroup::take(self, seat, a, then),
                Phase::HideBonus { seat } => hide::apply_bonus(self, seat, a),
                Phase::Stop { stop, step: StopStep::Joker } => return_journey::apply_joker(self, stop, a),
                Phase::Offer { card, stop } => return_journey::apply_offer(self, card, stop, a),
                _ => unreachable!("no decision in phase {:?}", self.phase),
            }
        }
        self.advance();
    }

    /// Every card's place, for checks: each of the 53 cards must appear exactly once.
    pub fn census(&self) -> [u8; CARD_COUNT] {
        let mut n = [0u8; CARD_COUNT];
        let mut count = |c: &Card| n[c.index()] += 1;
        self.journey.iter().for_each(&mut count);
        self.supply.iter().for_each(&mut count);
        for pile in [&self.discard, &self.boxed, &self.set_aside] {
            pile.iter().for_each(&mut count);
        }
        self.satchels.iter().flat_map(|s| s.iter()).for_each(&mut count);
        self.wreckage.iter().for_each(&mut count);
        self.passed.iter().for_each(&mut count);
        self.way.iter().for_each(&mut count);
        self.ruins.iter().for_each(&mut count);
        self.caches.iter().for_each(|s| count(&s.card));
        self.destination.iter().for_each(&mut count);
        self.companion.iter().for_each(&mut count);
        self.fight.iter().for_each(|f| count(&f.adversary));
        self.dues.iter().filter(|d| d.kind == DueKind::Price).filter_map(|d| d.card).for_each(|c| count(&c));
        match self.phase {
            Phase::Refuge { refuge, .. } => count(&refuge),
            Phase::Stop { stop, .. } => count(&stop),
            Phase::Offer { card, stop } => {
                count(&card);
                stop.iter().for_each(&mut count);
            }
            _ => {}
        }
        n
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// A traveller's satchel, in order.
    pub fn satchel(&self, seat: usize) -> &[Card] {
        self.satchels[seat].as_slice()
    }

    pub fn status(&self, seat: usize) -> Status {
        self.status[seat]
    }

    /// The Journey deck, bottom first (top last).
    pub fn journey_deck(&self) -> &[Card] {
        self.journey.as_slice()
    }

    /// The Supply, bottom first (top last).
    pub fn supply(&self) -> &[Card] {
        self.supply.as_slice()
    }

    /// Banked Wreckage.
    pub fn wreckage(&self) -> &[Card] {
        self.wreckage.as_slice()
    }

    /// The Discard, in order.
    pub fn discard(&self) -> &[Card] {
        self.discard.as_slice()
    }

    /// What must be paid before play goes on, the first first.
    pub fn dues(&self) -> &[Due] {
        self.dues.as_slice()
    }

    /// The fight going on, if any.
    pub fn fight(&self) -> Option<&FightState> {
        self.fight.as_ref()
    }

    /// The way home still ahead, last card first (next card last), and the stops paid.
    pub fn way_home(&self) -> (&[Card], u8) {
        (self.way.as_slice(), self.stops_paid)
    }

    /// Refuges passed (on the way home: stops visited).
    pub fn passed(&self) -> &[Card] {
        self.passed.as_slice()
    }

    /// Journey cards dealt with so far (a new turn begins with each).
    pub fn turns(&self) -> u16 {
        self.turns
    }

    /// The destination was reached.
    pub fn reached_destination(&self) -> bool {
        self.reached
    }

    pub fn score(&self) -> i32 {
        self.wreckage.iter().map(|&c| self.worth(c) as i32).sum::<i32>() + self.points
    }

    pub fn arrived(&self) -> usize {
        self.status.iter().take(self.travellers()).filter(|&&s| s == Status::Arrived).count()
    }

    /// Journey cards dealt with for good (refuges passed, adversaries beaten): how far the
    /// outbound journey got, A♥ aside (of 25).
    pub fn journey_cleared(&self) -> usize {
        let in_play =
            self.journey.iter().filter(|&&c| c != Card::ACE_OF_HEARTS).count() + usize::from(self.fight.is_some());
        25 - in_play
    }
}

/// The figures a play is ranked by ([`Game::play_key`]), as [`Game::metrics`] reports them.
const TRAVELLERS_ARRIVED: &str = "travellers_arrived";
const JOURNEY_CLEARED: &str = "journey_cleared";

impl Game for Journey {
    type Params = JourneyParams;
    type Observation = JourneyObservation;
    type Scenario = JourneyScenario;
    type Action = Action;
    const NAME: &'static str = "journey";
    const SEATS_PARAM: &'static str = "travellers";
    const COOPERATIVE: bool = true;
    const RULES_VERSION: u32 = 1;
    const PLAY_ORDER: &'static str = "travellers arrived, then score, then Journey cards cleared";

    fn new(params: &JourneyParams, seed: u64) -> Self {
        setup::new_game(params, seed)
    }

    fn from_scenario(params: &JourneyParams, seed: u64, scenario: JourneyScenario) -> Result<Self, String> {
        setup::from_scenario(params, seed, scenario)
    }

    fn params(&self) -> &JourneyParams {
        &self.p
    }

    fn seats(&self) -> usize {
        self.travellers()
    }

    fn to_move(&self) -> Option<Seat> {
        if self.phase == Phase::Over { None } else { self.decider().map(Seat) }
    }

    fn legal_actions(&self, out: &mut Vec<ActionId>) {
        if self.phase != Phase::Over {
            self.legal(|a| out.push(a.id()));
        }
    }

    fn decode(&self, id: ActionId) -> Option<Action> {
        Action::from_id(id)
    }

    fn is_listed(&self, _: ActionId, action: Action) -> bool {
        let mut listed = false;
        self.legal(|a| listed |= a == action);
        listed
    }

    fn perform(&mut self, action: Action) {
        self.execute(action);
    }

    fn outcome(&self) -> Option<Outcome> {
        (self.phase == Phase::Over).then(|| {
            let n = self.travellers();
            let achieved = (0..n)
                .map(|s| match self.status[s] {
                    Status::Journeying => "journeying",
                    Status::Fallen => "fallen",
                    Status::Stopped => "stopped",
                    Status::Arrived => "arrived",
                })
                .map(String::from)
                .collect();
            Outcome { scores: vec![self.score(); n], ranks: vec![0; n], achieved }
        })
    }

    fn tensor_layout(params: &JourneyParams) -> Vec<TensorField> {
        tensor::layout(params)
    }

    fn observation_tensor(params: &JourneyParams, observation: &JourneyObservation, out: &mut [f32]) {
        tensor::encode(params, observation, out)
    }

    fn action_count(_: &JourneyParams) -> u32 {
        actions::ACTION_COUNT
    }

    fn action_name(params: &JourneyParams, id: ActionId) -> Option<String> {
        Action::from_id(id).map(|a| match a {
            Action::Reckoning => format!("play {} (A♣)", params.theme.reckoning()),
            a => a.label(),
        })
    }

    fn action_label(&self, id: ActionId) -> String {
        match Action::from_id(id) {
            Some(Action::Reckoning) => format!("play {} (A♣)", self.p.theme.reckoning()),
            Some(a) => a.label(),
            None => format!("unknown action {id}"),
        }
    }

    fn action_section(&self, id: ActionId) -> Option<&'static str> {
        Action::from_id(id).map(Action::section)
    }

    fn action_target(&self, id: ActionId) -> Option<String> {
        Action::from_id(id).map(Action::target)
    }

    fn observation(&self, seat: Seat) -> JourneyObservation {
        observation::observe(self, seat.0, Detail::Full)
    }

    fn public_observation(&self) -> JourneyObservation {
        JourneyObservation { watcher: true, ..observation::observe(self, 0, Detail::Full) }
    }

    fn public_observation_text(&self) -> String {
        observation::render(self, &self.public_observation())
    }

    fn write_tensor(&self, seat: Seat, out: &mut [f32]) {
        thread_local! {
            /// The last observation a tensor was written from on this thread, written over by
            /// the next: its lists keep their allocations (capacity only: every fact is
            /// written again).
            static SCRATCH: RefCell<JourneyObservation> = RefCell::new(observation::blank());
        }
        SCRATCH.with_borrow_mut(|o| {
            observation::observe_into(self, seat.0, Detail::Ids, o);
            Self::observation_tensor(self.params(), o, out)
        })
    }

    fn observation_text(&self, seat: Seat) -> String {
        observation::render(self, &self.observation(seat))
    }

    fn from_observation(params: &JourneyParams, observation: &JourneyObservation) -> Result<Journey, String> {
        observation::from_observation(params, observation)
    }

    fn redraw_hidden(&self, seat: Seat, rng: &mut SmallRng) -> Journey {
        observation::redraw(self, seat.0, rng, false)
    }

    fn redraw_to_play(&self, seat: Seat, rng: &mut SmallRng) -> Journey {
        observation::redraw(self, seat.0, rng, true)
    }

    fn redraw_chance(&self, rng: &mut SmallRng) -> Journey {
        Journey { rng: fresh_chance(rng), ..self.clone() }
    }

    fn metrics(&self) -> Vec<Metric> {
        let mut m = vec![
            Metric::rate("arrived", self.arrived() > 0),
            Metric::count(TRAVELLERS_ARRIVED, self.arrived() as f64),
            Metric::count("turns", self.turns),
            Metric::count(JOURNEY_CLEARED, self.journey_cleared() as f64),
        ];
        // How far the journey got, so that two plays that both fail to come home differ.
        if self.p.return_journey.is_on() {
            m.push(Metric::rate("reached_destination", self.reached));
            m.push(Metric::count("stops_paid", self.stops_paid));
        }
        m
    }

    /// More travellers arrived first, then the higher score, then more Journey cards cleared
    /// (how far the journey got, so that two plays in which nobody arrives and nothing is
    /// banked still differ); equal is a draw. A figure the play lacks counts 0.
    fn play_key(outcome: &Outcome, figures: &dyn Figures) -> Vec<f64> {
        let figure = |name| figures.figure(name).unwrap_or(0.0);
        let score = f64::from(outcome.scores.first().copied().unwrap_or(0));
        vec![figure(TRAVELLERS_ARRIVED), score, figure(JOURNEY_CLEARED)]
    }
}
