//! The journey's observation: cards as their text, the phase as the `JourneyPhase` oneof.

use super::{enum_value, num, nums, opt_num};
use crate::v1;
use engine::journey::{self as j, Card};

/// A card's text; the empty string for none.
fn opt_card_text(c: Option<Card>) -> String {
    c.map(|c| c.to_string()).unwrap_or_default()
}

fn card_texts(cards: &[Card]) -> Vec<String> {
    cards.iter().map(Card::to_string).collect()
}

/// A card, which must be there.
fn card(s: &str, field: &str) -> Result<Card, String> {
    if s.is_empty() {
        return Err(format!("{field}: missing (a card is required)"));
    }
    s.parse().map_err(|e| format!("{field}: {e}"))
}

/// A card, or none for the empty string.
fn opt_card(s: &str, field: &str) -> Result<Option<Card>, String> {
    if s.is_empty() { Ok(None) } else { s.parse().map(Some).map_err(|e| format!("{field}: {e}")) }
}

/// A list of cards (an error names the list and the bad card).
fn cards(v: &[String], field: &str) -> Result<Vec<Card>, String> {
    v.iter().map(|s| s.parse().map_err(|e| format!("{field}: {e}"))).collect()
}

fn status_to_proto(s: j::Status) -> v1::TravellerStatus {
    match s {
        j::Status::Journeying => v1::TravellerStatus::Journeying,
        j::Status::Fallen => v1::TravellerStatus::Fallen,
        j::Status::Stopped => v1::TravellerStatus::Stopped,
        j::Status::Arrived => v1::TravellerStatus::Arrived,
    }
}

fn status_from_proto(v: i32, field: &str) -> Result<j::Status, String> {
    enum_value(v, field, "traveller status", |s| match s {
        v1::TravellerStatus::Unspecified => None,
        v1::TravellerStatus::Journeying => Some(j::Status::Journeying),
        v1::TravellerStatus::Fallen => Some(j::Status::Fallen),
        v1::TravellerStatus::Stopped => Some(j::Status::Stopped),
        v1::TravellerStatus::Arrived => Some(j::Status::Arrived),
    })
}

fn due_kind_to_proto(k: j::DueKind) -> v1::DueKind {
    match k {
        j::DueKind::Cover => v1::DueKind::Cover,
        j::DueKind::Toll => v1::DueKind::Toll,
        j::DueKind::Price => v1::DueKind::Price,
        j::DueKind::Discard => v1::DueKind::Discard,
        j::DueKind::DiscardAny => v1::DueKind::DiscardAny,
    }
}

fn due_kind_from_proto(v: i32, field: &str) -> Result<j::DueKind, String> {
    enum_value(v, field, "due kind", |k| match k {
        v1::DueKind::Unspecified => None,
        v1::DueKind::Cover => Some(j::DueKind::Cover),
        v1::DueKind::Toll => Some(j::DueKind::Toll),
        v1::DueKind::Price => Some(j::DueKind::Price),
        v1::DueKind::Discard => Some(j::DueKind::Discard),
        v1::DueKind::DiscardAny => Some(j::DueKind::DiscardAny),
    })
}

fn stop_step_to_proto(s: j::StopStep) -> v1::StopStep {
    match s {
        j::StopStep::DigUp => v1::StopStep::DigUp,
        j::StopStep::Joker => v1::StopStep::Joker,
        j::StopStep::Ruin => v1::StopStep::Ruin,
        j::StopStep::Tolls => v1::StopStep::Tolls,
        j::StopStep::Done => v1::StopStep::Done,
    }
}

fn stop_step_from_proto(v: i32, field: &str) -> Result<j::StopStep, String> {
    enum_value(v, field, "stop step", |s| match s {
        v1::StopStep::Unspecified => None,
        v1::StopStep::DigUp => Some(j::StopStep::DigUp),
        v1::StopStep::Joker => Some(j::StopStep::Joker),
        v1::StopStep::Ruin => Some(j::StopStep::Ruin),
        v1::StopStep::Tolls => Some(j::StopStep::Tolls),
        v1::StopStep::Done => Some(j::StopStep::Done),
    })
}

/// A suit as the engine's serde names it: `"diamonds"`, …; `""` for none.
fn suit_text(s: Option<j::Suit>) -> &'static str {
    match s {
        None => "",
        Some(j::Suit::Spades) => "spades",
        Some(j::Suit::Hearts) => "hearts",
        Some(j::Suit::Diamonds) => "diamonds",
        Some(j::Suit::Clubs) => "clubs",
    }
}

fn suit_from_text(s: &str, field: &str) -> Result<Option<j::Suit>, String> {
    Ok(Some(match s {
        "" => return Ok(None),
        "spades" => j::Suit::Spades,
        "hearts" => j::Suit::Hearts,
        "diamonds" => j::Suit::Diamonds,
        "clubs" => j::Suit::Clubs,
        _ => return Err(format!("{field}: `{s}` is not a suit (spades, hearts, diamonds, clubs, or empty)")),
    }))
}

fn then_text(t: j::Then) -> &'static str {
    match t {
        j::Then::AfterAction => "after_action",
        j::Then::Decide => "decide",
    }
}

fn then_from_text(s: &str, field: &str) -> Result<j::Then, String> {
    match s {
        "after_action" => Ok(j::Then::AfterAction),
        "decide" => Ok(j::Then::Decide),
        _ => Err(format!("{field}: `{s}` is not what follows a Take (after_action or decide)")),
    }
}

/// The step of play as the `JourneyPhase` oneof.
pub fn phase_to_proto(p: &j::Phase) -> v1::JourneyPhase {
    use v1::journey_phase as jp;
    let empty = jp::Empty {};
    let phase = match *p {
        j::Phase::Reveal => jp::Phase::Reveal(empty),
        j::Phase::Refuge { refuge, left, actor, passes } => jp::Phase::Refuge(jp::Refuge {
            refuge: refuge.to_string(),
            left: left.into(),
            actor: actor.into(),
            passes: passes.into(),
        }),
        j::Phase::Fight { actor } => jp::Phase::Fight(jp::Fight { actor: actor.into() }),
        j::Phase::Take { seat, suit, not, then } => jp::Phase::Take(jp::Take {
            seat: seat.into(),
            suit: suit_text(suit).into(),
            not: not.to_string(),
            then: then_text(then).into(),
        }),
        j::Phase::HideBonus { seat } => jp::Phase::HideBonus(jp::HideBonus { seat: seat.into() }),
        j::Phase::AfterAction { actor } => jp::Phase::AfterAction(jp::AfterAction { actor: actor.into() }),
        j::Phase::RoundEnd => jp::Phase::RoundEnd(empty),
        j::Phase::EndTurn => jp::Phase::EndTurn(empty),
        j::Phase::Arrive => jp::Phase::Arrive(empty),
        j::Phase::Way => jp::Phase::Way(empty),
        j::Phase::Stop { stop, step } => {
            jp::Phase::Stop(jp::Stop { stop: stop.to_string(), step: stop_step_to_proto(step).into() })
        }
        j::Phase::Offer { card, stop } => {
            jp::Phase::Offer(jp::Offer { card: card.to_string(), stop: opt_card_text(stop) })
        }
        j::Phase::Over => jp::Phase::Over(empty),
    };
    v1::JourneyPhase { phase: Some(phase) }
}

/// The step of play from the `JourneyPhase` oneof; `field` names it in errors.
pub fn phase_from_proto(p: Option<&v1::JourneyPhase>, field: &str) -> Result<j::Phase, String> {
    use v1::journey_phase as jp;
    let phase = p.and_then(|p| p.phase.as_ref()).ok_or_else(|| format!("{field}: missing"))?;
    Ok(match phase {
        jp::Phase::Reveal(_) => j::Phase::Reveal,
        jp::Phase::Refuge(r) => j::Phase::Refuge {
            refuge: card(&r.refuge, &format!("{field}.refuge.refuge"))?,
            left: num(r.left, &format!("{field}.refuge.left"))?,
            actor: num(r.actor, &format!("{field}.refuge.actor"))?,
            passes: num(r.passes, &format!("{field}.refuge.passes"))?,
        },
        jp::Phase::Fight(f) => j::Phase::Fight { actor: num(f.actor, &format!("{field}.fight.actor"))? },
        jp::Phase::Take(t) => j::Phase::Take {
            seat: num(t.seat, &format!("{field}.take.seat"))?,
            suit: suit_from_text(&t.suit, &format!("{field}.take.suit"))?,
            not: card(&t.not, &format!("{field}.take.not"))?,
            then: then_from_text(&t.then, &format!("{field}.take.then"))?,
        },
        jp::Phase::HideBonus(h) => j::Phase::HideBonus { seat: num(h.seat, &format!("{field}.hide_bonus.seat"))? },
        jp::Phase::AfterAction(a) => {
            j::Phase::AfterAction { actor: num(a.actor, &format!("{field}.after_action.actor"))? }
        }
        jp::Phase::RoundEnd(_) => j::Phase::RoundEnd,
        jp::Phase::EndTurn(_) => j::Phase::EndTurn,
        jp::Phase::Arrive(_) => j::Phase::Arrive,
        jp::Phase::Way(_) => j::Phase::Way,
        jp::Phase::Stop(s) => j::Phase::Stop {
            stop: card(&s.stop, &format!("{field}.stop.stop"))?,
            step: stop_step_from_proto(s.step, &format!("{field}.stop.step"))?,
        },
        jp::Phase::Offer(o) => j::Phase::Offer {
            card: card(&o.card, &format!("{field}.offer.card"))?,
            stop: opt_card(&o.stop, &format!("{field}.offer.stop"))?,
        },
        jp::Phase::Over(_) => j::Phase::Over,
    })
}

/// A traveller's observation of the journey as the typed message.
pub fn journey_to_proto(o: &j::JourneyObservation) -> v1::JourneyObservation {
    v1::JourneyObservation {
        seat: o.seat.into(),
        watcher: o.watcher,
        to_move: o.to_move.map(u32::from),
        front: o.front.into(),
        turns: o.turns.into(),
        phase: Some(phase_to_proto(&o.phase)),
        doing: o.doing.clone(),
        travellers: o
            .travellers
            .iter()
            .map(|t| v1::TravellerView {
                seat: t.seat.into(),
                status: status_to_proto(t.status).into(),
                satchel: card_texts(&t.satchel),
            })
            .collect(),
        // usize to u32: a satchel limit is a handful of cards.
        satchel_limit: o.satchel_limit as u32,
        refuge: opt_card_text(o.refuge),
        refuge_actions_left: o.refuge_actions_left.map(u32::from),
        refuge_passes: o.refuge_passes.map(u32::from),
        adversary: opt_card_text(o.adversary),
        adversary_health: o.adversary_health.map(i32::from),
        adversary_attack: o.adversary_attack.map(i32::from),
        counter_reduction: o.counter_reduction.map(i32::from),
        hide_bar: o.hide_bar.map(u32::from),
        hide_failed: o.hide_failed,
        hide_open: o.hide_open,
        spared: o.spared.iter().map(|&s| s.into()).collect(),
        round: o
            .round
            .as_ref()
            .map(|r| v1::RoundView { actors: r.actors.iter().map(|&s| s.into()).collect(), acted: r.acted.into() }),
        stop: opt_card_text(o.stop),
        // Card counts: at most the 53 cards of the game.
        journey_count: o.journey_count as u32,
        journey_cards: card_texts(&o.journey_cards),
        journey_top: opt_card_text(o.journey_top),
        journey_bottom: opt_card_text(o.journey_bottom),
        supply_count: o.supply_count as u32,
        supply_unknown: card_texts(&o.supply_unknown),
        supply_bottom: card_texts(&o.supply_bottom),
        discard: card_texts(&o.discard),
        wreckage: card_texts(&o.wreckage),
        score: o.score,
        points: o.points,
        passed: card_texts(&o.passed),
        caches: o
            .caches
            .iter()
            .map(|c| v1::CacheSpot { refuge: c.refuge.to_string(), card: c.card.to_string(), seat: c.seat.into() })
            .collect(),
        companion: opt_card_text(o.companion),
        companion_joined: o.companion_joined,
        destination: opt_card_text(o.destination),
        reached_destination: o.reached_destination,
        stops_paid: o.stops_paid.into(),
        boxed: card_texts(&o.boxed),
        set_aside: card_texts(&o.set_aside),
        way_stops: card_texts(&o.way_stops),
        way_hidden: card_texts(&o.way_hidden),
        ruins: card_texts(&o.ruins),
        offer_card: opt_card_text(o.offer.map(|(c, _)| c)),
        offer_price: o.offer.map(|(_, p)| p.into()),
        joker_active: o.joker_active,
        dues: o
            .dues
            .iter()
            .map(|d| v1::Due {
                seat: d.seat.into(),
                kind: due_kind_to_proto(d.kind).into(),
                owed: d.owed.into(),
                card: d.card.map(|c| c.to_string()),
            })
            .collect(),
    }
}

/// The engine's journey observation from the typed message: the inverse of
/// [`journey_to_proto`]. An error names the field (`journey.…`) and the value refused.
pub fn journey_from_proto(o: &v1::JourneyObservation) -> Result<j::JourneyObservation, String> {
    let offer = match (o.offer_card.as_str(), o.offer_price) {
        ("", None) => None,
        ("", Some(price)) => return Err(format!("journey.offer_price: {price} without an offer_card")),
        (c, None) => return Err(format!("journey.offer_card: `{c}` without an offer_price")),
        (c, Some(price)) => Some((card(c, "journey.offer_card")?, num(price, "journey.offer_price")?)),
    };
    Ok(j::JourneyObservation {
        seat: num(o.seat, "journey.seat")?,
        watcher: o.watcher,
        to_move: opt_num(o.to_move, "journey.to_move")?,
        front: num(o.front, "journey.front")?,
        turns: num(o.turns, "journey.turns")?,
        phase: phase_from_proto(o.phase.as_ref(), "journey.phase")?,
        doing: o.doing.clone(),
        travellers: o
            .travellers
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let at = format!("journey.travellers[{i}]");
                Ok(j::TravellerView {
                    seat: num(t.seat, &format!("{at}.seat"))?,
                    status: status_from_proto(t.status, &format!("{at}.status"))?,
                    satchel: cards(&t.satchel, &format!("{at}.satchel"))?,
                })
            })
            .collect::<Result<_, String>>()?,
        satchel_limit: num(o.satchel_limit, "journey.satchel_limit")?,
        refuge: opt_card(&o.refuge, "journey.refuge")?,
        refuge_actions_left: opt_num(o.refuge_actions_left, "journey.refuge_actions_left")?,
        refuge_passes: opt_num(o.refuge_passes, "journey.refuge_passes")?,
        adversary: opt_card(&o.adversary, "journey.adversary")?,
        adversary_health: opt_num(o.adversary_health, "journey.adversary_health")?,
        adversary_attack: opt_num(o.adversary_attack, "journey.adversary_attack")?,
        counter_reduction: opt_num(o.counter_reduction, "journey.counter_reduction")?,
        hide_bar: opt_num(o.hide_bar, "journey.hide_bar")?,
        hide_failed: o.hide_failed,
        hide_open: o.hide_open,
        spared: nums(&o.spared, "journey.spared")?,
        round: o
            .round
            .as_ref()
            .map(|r| {
                Ok::<_, String>(j::RoundView {
                    actors: nums(&r.actors, "journey.round.actors")?,
                    acted: num(r.acted, "journey.round.acted")?,
                })
            })
            .transpose()?,
        stop: opt_card(&o.stop, "journey.stop")?,
        journey_count: num(o.journey_count, "journey.journey_count")?,
        journey_cards: cards(&o.journey_cards, "journey.journey_cards")?,
        journey_top: opt_card(&o.journey_top, "journey.journey_top")?,
        journey_bottom: opt_card(&o.journey_bottom, "journey.journey_bottom")?,
        supply_count: num(o.supply_count, "journey.supply_count")?,
        supply_unknown: cards(&o.supply_unknown, "journey.supply_unknown")?,
        supply_bottom: cards(&o.supply_bottom, "journey.supply_bottom")?,
        discard: cards(&o.discard, "journey.discard")?,
        wreckage: cards(&o.wreckage, "journey.wreckage")?,
        score: o.score,
        points: o.points,
        passed: cards(&o.passed, "journey.passed")?,
        caches: o
            .caches
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let at = format!("journey.caches[{i}]");
                Ok(j::CacheSpot {
                    refuge: card(&c.refuge, &format!("{at}.refuge"))?,
                    card: card(&c.card, &format!("{at}.card"))?,
                    seat: num(c.seat, &format!("{at}.seat"))?,
                })
            })
            .collect::<Result<_, String>>()?,
        companion: opt_card(&o.companion, "journey.companion")?,
        companion_joined: o.companion_joined,
        destination: opt_card(&o.destination, "journey.destination")?,
        reached_destination: o.reached_destination,
        stops_paid: num(o.stops_paid, "journey.stops_paid")?,
        boxed: cards(&o.boxed, "journey.boxed")?,
        set_aside: cards(&o.set_aside, "journey.set_aside")?,
        way_stops: cards(&o.way_stops, "journey.way_stops")?,
        way_hidden: cards(&o.way_hidden, "journey.way_hidden")?,
        ruins: cards(&o.ruins, "journey.ruins")?,
        offer,
        joker_active: o.joker_active,
        dues: o
            .dues
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let at = format!("journey.dues[{i}]");
                let due = j::Due {
                    seat: num(d.seat, &format!("{at}.seat"))?,
                    kind: due_kind_from_proto(d.kind, &format!("{at}.kind"))?,
                    owed: num(d.owed, &format!("{at}.owed"))?,
                    card: d.card.as_deref().map(|c| card(c, &format!("{at}.card"))).transpose()?,
                };
                due.check(i).map_err(|e| format!("journey.{e}"))?;
                Ok(due)
            })
            .collect::<Result<_, String>>()?,
    })
}
