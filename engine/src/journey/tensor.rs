//! A traveller's observation as numbers (see `docs/rules/journey.md`, "Observation tensor").
//! Seats are relative to the observer: slot 0 is the observer, slot k the k-th traveller after
//! it; card fields have one entry per card (the 52 cards and the Joker, in card order).

use super::observation::JourneyObservation;
use super::params::{AdversaryScale, Destination};
use super::{CARD_COUNT, Card, DueKind, JourneyParams, Phase, Status, StopStep, Suit, Then};
use crate::core::{TensorField, TensorWriter};
use std::cell::RefCell;

/// The fields of one card each place: its name and what it holds.
const CARD_FIELDS: [(&str, &str); 24] = [
    ("satchel_0", "the observer's satchel"),
    ("satchel_1", "the satchel of the next traveller (relative seat 1)"),
    ("satchel_2", "the satchel of relative seat 2"),
    ("satchel_3", "the satchel of relative seat 3"),
    ("journey_deck", "the cards of the Journey deck (its order is hidden)"),
    ("journey_top", "the Journey deck's top card, when shown"),
    ("journey_bottom", "the Journey deck's bottom card, when known (dunwich A♥)"),
    ("supply_unknown", "the Supply above its known bottom"),
    ("supply_bottom", "the known bottom of the Supply"),
    ("discard", "the Discard"),
    ("wreckage", "the Wreckage (defeated adversaries)"),
    ("passed", "refuges passed"),
    ("cached", "cards cached at refuges"),
    ("boxed", "cards out of the game"),
    ("set_aside", "the Supply set aside on the martian way home"),
    ("way_stops", "stops still ahead on the way home"),
    ("way_hidden", "the other cards shuffled among them"),
    ("ruins", "Ruins (or Shadows) of the way home"),
    ("refuge", "the refuge being visited"),
    ("adversary", "the adversary being fought"),
    ("stop", "the stop being visited on the way home"),
    ("companion", "the companion"),
    ("destination", "the destination"),
    ("offer", "the Ruin or Shadow offered"),
];

const PHASES: usize = 13;

/// How many fields a layout has: one per place a card may be, and 28 more.
const FIELDS: usize = CARD_FIELDS.len() + 28;

/// The fields, in order, for the parameters `p`.
pub fn layout(p: &JourneyParams) -> Vec<TensorField> {
    fields(p).to_vec()
}

/// The fields, in order, for the parameters `p`, each with the range of its numbers in every
/// position the rules reach from a deal. Marks and flags are 0 or 1; a count `x / d` runs from
/// 0 to the most the rules allow `x` (see the constants and functions below), given with its
/// field. A count these parameters hold at 0 (no toll is paid without a way home) keeps the
/// range the rules give it, so that no range is empty.
fn fields(p: &JourneyParams) -> [TensorField; FIELDS] {
    let f = |name, size, doc, high: f32| TensorField { name, size, doc, low: 0.0, high };
    let mark = |name, size, doc| f(name, size, doc, 1.0);
    let count = |x: i64, scale: f32| x as f32 / scale;
    let travellers = p.travellers() as i64;
    let attack = most_attack(p);
    let rest = [
        mark("present", 4, "travellers at the table, by relative seat"),
        mark("status", 16, "per relative seat: journeying, fallen, stopped, arrived (one-hot)"),
        mark("to_move", 5, "the relative seat to move, or none (last)"),
        mark("front", 4, "the front, by relative seat"),
        mark(
            "phase",
            PHASES,
            "reveal, refuge, fight, take, hide bonus, after action, round end, end turn, arrive, way, stop, offer, over",
        ),
        mark("take", 6, "a Take: its suit (♠ ♥ ♦ ♣), then after action / decide"),
        mark("stop_step", 5, "at a stop: dig up, Joker, Ruin, tolls, done"),
        f("turns", 1, "turns / 100", count(MOST_TURNS, 100.0)),
        // A Q companion (the Partner) adds one.
        f("satchel_limit", 1, "satchel limit / 10", count(p.satchel_limit.get() + i64::from(p.companions), 10.0)),
        // A J, Q or K refuge has 10 actions, an A♥ last refuge 11.
        f("refuge_actions_left", 1, "refuge actions left / 11", count(most_refuge_actions(p), 11.0)),
        // At most every other traveller passes an action on in a row.
        f("refuge_passes", 1, "refuge passes / 4", count(3, 4.0)),
        f("adversary_health", 1, "adversary health / 30", count(most_health(p), 30.0)),
        f("adversary_attack", 1, "adversary attack / 15", count(attack, 15.0)),
        // Each actor strikes once a round: a Queen takes 5 off the counter, the Revelation 10.
        f("counter_reduction", 1, "counter reduction / 15", count(10 * travellers, 15.0)),
        f("hide_bar", 1, "hide bar / 14", count(14, 14.0)),
        // The ♥ and ♠ cards, A♥ at the bottom (dunwich) included.
        f("journey_deck_size", 1, "Journey deck size / 53", count(26, 53.0)),
        // The ♦ and ♣ cards (the martian Joker passes through it unseen, at the stock-up).
        f("supply_size", 1, "Supply size / 53", count(26, 53.0)),
        f("score", 1, "score / 100", count(most_score(p), 100.0)),
        f("points", 1, "points banked by tolls / 100", count(most_toll_points(p), 100.0)),
        // Every ♥ refuge but the destination, at most, is a stop.
        f("stops_paid", 1, "stops paid / 20", count(12, 20.0)),
        // Half a ♠'s worth, rounded up.
        f("offer_price", 1, "offer price / 20", count((attack + 1) / 2, 20.0)),
        // Only ♦, ♣ and ♠ cards are ever discarded.
        f("discard_size", 1, "cards in the Discard / 53", count(39, 53.0)),
        mark(
            "flags",
            6,
            "Hide failed, Hide open, a companion has joined, destination reached, Joker active, in a fight round",
        ),
        mark("spared", 4, "travellers this round's counter spares, by relative seat"),
        mark("round", 5, "this round's actors by relative seat, and the share that acted"),
        mark("due_kind", 5, "the first due: cover, toll, price, discard, discard any (one-hot)"),
        // A strike or an Ambush owes at most the attack; a toll a stop's rank, 13 at most; a
        // price half a worth; a discard two cards.
        f("due_owed", 1, "what the first due still owes / 30", count(attack.max(13), 30.0)),
        mark("due_seat", 4, "the relative seat that pays the first due"),
    ];
    std::array::from_fn(|i| match CARD_FIELDS.get(i) {
        Some(&(name, doc)) => mark(name, CARD_COUNT, doc),
        None => rest[i - CARD_FIELDS.len()],
    })
}

/// The most turns a game lasts. A turn deals with one Journey card: each of the 12 ♥ refuges
/// once (the A♥ ends the journey in no turn), each of the 13 ♠ adversaries beaten at most
/// once; every other turn is a flight, which costs a satchel card. Satchels gain a card for
/// good only from the Supply, which holds the 26 ♦ and ♣ cards and gains one per Recover, a
/// refuge action: 95 actions in all, the values of the 13 ♥.
const MOST_TURNS: i64 = 12 + 13 + 26 + 95;

/// The most actions a refuge has: 10 (J, Q, K), or 11 where the A♥ is the last refuge.
fn most_refuge_actions(p: &JourneyParams) -> i64 {
    if p.destination == Destination::LastRefuge { 11 } else { 10 }
}

/// The sizes of the ♠ adversaries 2 to K, as `Journey::adversary_stats` reads them: their
/// ranks (J, Q, K 11, 12, 13) or their values (J, Q, K 10).
fn adversary_sizes(p: &JourneyParams) -> impl Iterator<Item = i64> {
    let rank_scale = p.adversary_scale == AdversaryScale::Rank;
    (2..=13).map(move |rank| if rank_scale { rank } else { rank.min(10) })
}

/// The most attack an adversary has: the Nemesis's, or the biggest other's (its size).
fn most_attack(p: &JourneyParams) -> i64 {
    adversary_sizes(p).max().unwrap_or(0).max(p.nemesis_attack.get())
}

/// The most health an adversary starts with (health only goes down): the Nemesis's with
/// these travellers, or the biggest other's (its size times the health factor).
fn most_health(p: &JourneyParams) -> i64 {
    let nemesis = p.nemesis_health.get() + (p.travellers() as i64 - 1) * p.nemesis_health_per_extra_traveller.get();
    let other = adversary_sizes(p).max().unwrap_or(0) * p.adversary_health_factor.get();
    nemesis.max(other)
}

/// The most points tolls bank: each traveller pays each stop's rank, and the stops are ♥ 2
/// to K at most (ranks 2 to 13).
fn most_toll_points(p: &JourneyParams) -> i64 {
    p.travellers() as i64 * (2..=13).sum::<i64>()
}

/// The most score a game shows: the worth (attack) of every ♠ banked as Wreckage, and the
/// toll points where there is a way home.
fn most_score(p: &JourneyParams) -> i64 {
    let wreckage = adversary_sizes(p).sum::<i64>() + p.nemesis_attack.get();
    let tolls = if p.return_journey.is_on() { most_toll_points(p) } else { 0 };
    wreckage + tolls
}

fn phase_index(p: &Phase) -> usize {
    match p {
        Phase::Reveal => 0,
        Phase::Refuge { .. } => 1,
        Phase::Fight { .. } => 2,
        Phase::Take { .. } => 3,
        Phase::HideBonus { .. } => 4,
        Phase::AfterAction { .. } => 5,
        Phase::RoundEnd => 6,
        Phase::EndTurn => 7,
        Phase::Arrive => 8,
        Phase::Way => 9,
        Phase::Stop { .. } => 10,
        Phase::Offer { .. } => 11,
        Phase::Over => 12,
    }
}

/// The cards' indices.
fn ids(cards: &[Card]) -> impl Iterator<Item = usize> + '_ {
    cards.iter().map(|c| c.index())
}

/// The observation as numbers.
pub fn encode(p: &JourneyParams, o: &JourneyObservation, out: &mut [f32]) {
    LAYOUT.with_borrow_mut(|last| {
        if !matches!(last, Some((q, _)) if q == p) {
            *last = Some((p.clone(), fields(p)));
        }
        let (_, layout) = last.as_ref().expect("the layout was just built");
        write(layout, p, o, out)
    })
}

thread_local! {
    /// The parameters this thread last wrote a tensor for, and their layout: a learner writes
    /// thousands of tensors with one set, and building a layout takes nearly half as long as
    /// writing a tensor.
    static LAYOUT: RefCell<Option<(JourneyParams, [TensorField; FIELDS])>> = const { RefCell::new(None) };
}

/// The observation as numbers, laid out by `layout`, the layout of `p`.
fn write(layout: &[TensorField], p: &JourneyParams, o: &JourneyObservation, out: &mut [f32]) {
    let n = p.travellers().max(1);
    let rel = |seat: u8| (usize::from(seat) + n - usize::from(o.seat) % n) % n;
    let one = |c: Option<Card>| c.map(|c| c.index());
    let mut w = TensorWriter::new(layout, out);
    let mut satchels: [&[Card]; 4] = [&[]; 4];
    for t in &o.travellers {
        satchels[rel(t.seat)] = &t.satchel;
    }
    for (k, s) in satchels.iter().enumerate() {
        w.marks(CARD_FIELDS[k].0, ids(s));
    }
    w.marks("journey_deck", ids(&o.journey_cards));
    w.marks("journey_top", one(o.journey_top));
    w.marks("journey_bottom", one(o.journey_bottom));
    w.marks("supply_unknown", ids(&o.supply_unknown));
    w.marks("supply_bottom", ids(&o.supply_bottom));
    w.marks("discard", ids(&o.discard));
    w.marks("wreckage", ids(&o.wreckage));
    w.marks("passed", ids(&o.passed));
    w.marks("cached", o.caches.iter().map(|s| s.card.index()));
    w.marks("boxed", ids(&o.boxed));
    w.marks("set_aside", ids(&o.set_aside));
    w.marks("way_stops", ids(&o.way_stops));
    w.marks("way_hidden", ids(&o.way_hidden));
    w.marks("ruins", ids(&o.ruins));
    w.marks("refuge", one(o.refuge));
    w.marks("adversary", one(o.adversary));
    w.marks("stop", one(o.stop));
    w.marks("companion", one(o.companion));
    w.marks("destination", one(o.destination));
    w.marks("offer", one(o.offer.map(|(c, _)| c)));

    w.marks("present", 0..n);
    w.marks(
        "status",
        o.travellers.iter().map(|t| {
            let s = match t.status {
                Status::Journeying => 0,
                Status::Fallen => 1,
                Status::Stopped => 2,
                Status::Arrived => 3,
            };
            4 * rel(t.seat) + s
        }),
    );
    w.marks("to_move", [o.to_move.map_or(4, rel)]);
    w.marks("front", [rel(o.front)]);
    w.marks("phase", [phase_index(&o.phase)]);
    let take = match o.phase {
        Phase::Take { suit, then, .. } => {
            let s = suit.map(|s| match s {
                Suit::Spades => 0,
                Suit::Hearts => 1,
                Suit::Diamonds => 2,
                Suit::Clubs => 3,
            });
            [s, Some(if then == Then::AfterAction { 4 } else { 5 })]
        }
        _ => [None, None],
    };
    w.marks("take", take.into_iter().flatten());
    let step = match o.phase {
        Phase::Stop { step, .. } => Some(match step {
            StopStep::DigUp => 0,
            StopStep::Joker => 1,
            StopStep::Ruin => 2,
            StopStep::Tolls => 3,
            StopStep::Done => 4,
        }),
        _ => None,
    };
    w.marks("stop_step", step);
    let count = |x: Option<i64>, scale: f32| [x.map_or(0.0, |x| x as f32 / scale)];
    w.values("turns", count(Some(o.turns.into()), 100.0));
    w.values("satchel_limit", count(Some(o.satchel_limit as i64), 10.0));
    w.values("refuge_actions_left", count(o.refuge_actions_left.map(i64::from), 11.0));
    w.values("refuge_passes", count(o.refuge_passes.map(i64::from), 4.0));
    w.values("adversary_health", count(o.adversary_health.map(i64::from), 30.0));
    w.values("adversary_attack", count(o.adversary_attack.map(i64::from), 15.0));
    w.values("counter_reduction", count(o.counter_reduction.map(i64::from), 15.0));
    w.values("hide_bar", count(o.hide_bar.map(i64::from), 14.0));
    w.values("journey_deck_size", count(Some(o.journey_count as i64), 53.0));
    w.values("supply_size", count(Some(o.supply_count as i64), 53.0));
    w.values("score", count(Some(o.score.into()), 100.0));
    w.values("points", count(Some(o.points.into()), 100.0));
    w.values("stops_paid", count(Some(o.stops_paid.into()), 20.0));
    w.values("offer_price", count(o.offer.map(|(_, price)| price.into()), 20.0));
    w.values("discard_size", count(Some(o.discard.len() as i64), 53.0));
    let flags = [
        o.hide_failed == Some(true),
        o.hide_open == Some(true),
        o.companion_joined,
        o.reached_destination,
        o.joker_active,
        o.round.is_some(),
    ];
    w.marks("flags", flags.iter().enumerate().filter(|(_, b)| **b).map(|(i, _)| i));
    w.marks("spared", o.spared.iter().map(|&s| rel(s)));
    let mut round = [0.0f32; 5];
    if let Some(r) = &o.round {
        for &s in &r.actors {
            round[rel(s)] = 1.0;
        }
        round[4] = f32::from(r.acted) / 4.0;
    }
    w.values("round", round);
    let due = o.dues.first();
    w.marks(
        "due_kind",
        due.map(|d| match d.kind {
            DueKind::Cover => 0,
            DueKind::Toll => 1,
            DueKind::Price => 2,
            DueKind::Discard => 3,
            DueKind::DiscardAny => 4,
        }),
    );
    w.values("due_owed", [due.map_or(0.0, |d| f32::from(d.owed) / 30.0)]);
    w.marks("due_seat", due.map(|d| rel(d.seat).min(3)));
    w.finish();
}
