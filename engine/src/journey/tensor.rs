//! A traveller's observation as numbers (see `docs/rules/journey.md`, "Observation tensor").
//! Seats are relative to the observer: slot 0 is the observer, slot k the k-th traveller after
//! it; card fields have one entry per card (the 52 cards and the Joker, in card order).

use super::observation::JourneyObservation;
use super::{CARD_COUNT, Card, DueKind, JourneyParams, Phase, Status, StopStep, Suit, Then};
use crate::core::{TensorField, TensorWriter};
use std::sync::LazyLock;

const CARD_FIELDS: &[(&str, &str)] = &[
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
const COUNTS: &[&str] = &[
    "turns / 100",
    "satchel limit / 10",
    "refuge actions left / 11",
    "refuge passes / 4",
    "adversary health / 30",
    "adversary attack / 15",
    "counter reduction / 15",
    "hide bar / 14",
    "Journey deck size / 53",
    "Supply size / 53",
    "score / 100",
    "points banked by tolls / 100",
    "stops paid / 20",
    "offer price / 20",
    "cards in the Discard / 53",
];

/// The fields, in order; the same for every parameter set.
pub fn layout(_: &JourneyParams) -> Vec<TensorField> {
    LAYOUT.clone()
}

/// The fields, built once: a tensor is written for every step of a learner.
static LAYOUT: LazyLock<Vec<TensorField>> = LazyLock::new(|| {
    let mut l: Vec<TensorField> =
        CARD_FIELDS.iter().map(|&(name, doc)| TensorField { name, size: CARD_COUNT, doc }).collect();
    l.extend([
        TensorField { name: "present", size: 4, doc: "travellers at the table, by relative seat" },
        TensorField {
            name: "status",
            size: 16,
            doc: "per relative seat: journeying, fallen, stopped, arrived (one-hot)",
        },
        TensorField { name: "to_move", size: 5, doc: "the relative seat to move, or none (last)" },
        TensorField { name: "front", size: 4, doc: "the front, by relative seat" },
        TensorField {
            name: "phase",
            size: PHASES,
            doc: "reveal, refuge, fight, take, hide bonus, after action, round end, end turn, arrive, way, stop, offer, over",
        },
        TensorField { name: "take", size: 6, doc: "a Take: its suit (♠ ♥ ♦ ♣), then after action / decide" },
        TensorField { name: "stop_step", size: 5, doc: "at a stop: dig up, Joker, Ruin, tolls, done" },
        TensorField { name: "counts", size: COUNTS.len(), doc: "turns, limits and sizes, scaled (see the list)" },
        TensorField {
            name: "flags",
            size: 6,
            doc: "Hide failed, Hide open, a companion has joined, destination reached, Joker active, in a fight round",
        },
        TensorField { name: "spared", size: 4, doc: "travellers this round's counter spares, by relative seat" },
        TensorField { name: "round", size: 5, doc: "this round's actors by relative seat, and the share that acted" },
        TensorField {
            name: "due",
            size: 10,
            doc: "the first due: cover, toll, price, discard, discard any; owed / 30; its relative seat",
        },
    ]);
    l
});

/// The counts' meanings, for the documentation.
pub fn count_names() -> &'static [&'static str] {
    COUNTS
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
    let n = p.travellers().max(1);
    let rel = |seat: u8| (usize::from(seat) + n - usize::from(o.seat) % n) % n;
    let one = |c: Option<Card>| c.map(|c| c.index());
    let mut w = TensorWriter::new(&LAYOUT, out);
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
    let f = |x: Option<i64>, scale: f32| x.map_or(0.0, |x| x as f32 / scale);
    w.values(
        "counts",
        [
            f(Some(o.turns.into()), 100.0),
            f(Some(o.satchel_limit as i64), 10.0),
            f(o.refuge_actions_left.map(i64::from), 11.0),
            f(o.refuge_passes.map(i64::from), 4.0),
            f(o.adversary_health.map(i64::from), 30.0),
            f(o.adversary_attack.map(i64::from), 15.0),
            f(o.counter_reduction.map(i64::from), 15.0),
            f(o.hide_bar.map(i64::from), 14.0),
            f(Some(o.journey_count as i64), 53.0),
            f(Some(o.supply_count as i64), 53.0),
            f(Some(o.score.into()), 100.0),
            f(Some(o.points.into()), 100.0),
            f(Some(o.stops_paid.into()), 20.0),
            f(o.offer.map(|(_, price)| price.into()), 20.0),
            f(Some(o.discard.len() as i64), 53.0),
        ],
    );
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
    let mut due = [0.0f32; 10];
    if let Some(d) = o.dues.first() {
        due[match d.kind {
            DueKind::Cover => 0,
            DueKind::Toll => 1,
            DueKind::Price => 2,
            DueKind::Discard => 3,
            DueKind::DiscardAny => 4,
        }] = 1.0;
        due[5] = f32::from(d.owed) / 30.0;
        due[6 + rel(d.seat).min(3)] = 1.0;
    }
    w.values("due", due);
    w.finish();
}
