//! Lossless conversions between the engine's observations and the typed messages of the
//! contract, both ways: `from_proto(to_proto(o)) == o` for every observation of either game.
//!
//! The mapping:
//! - a card is its text, `7♦`, `10♣`, `Joker` (what [`Card`]'s `Display` writes; it reads back
//!   with `FromStr`), and an absent card (`Option<Card>` = `None`) the empty string;
//! - `Option` numbers and flags are proto3 `optional` fields; the Ruin or Shadow on offer,
//!   `Option<(Card, i16)>`, is `offer_card` (empty: none) with `offer_price`;
//! - Rust enums are proto enums, whose `*_UNSPECIFIED` value is refused when decoding — but for
//!   the expedition's `die` and `returning`, where `FACE_UNSPECIFIED` and
//!   `RETURNING_UNSPECIFIED` stand for `None` (no face shown, nothing to put back);
//! - the journey's [`Phase`](engine::journey::Phase) is the `JourneyPhase` oneof (a Take's suit
//!   as `"diamonds"`, `"clubs"`, … or `""` for none, what follows it as `"after_action"` or
//!   `"decide"`);
//! - an expedition seat's `cards: Option<Vec<_>>` is `cards_shown` with `cards`, a face-up space
//!   an optional card, and `final_scores: Option<Vec<_>>` is `over` with `final_scores`.
//!
//! Every message field the encoder always sets (the phase, tool counts, a score breakdown) is
//! required when decoding. Every decoding error names the field (a message in a list by its index)
//! and the value it refuses: ``journey.travellers[1].satchel: `X♦` is not a card …``.

use crate::v1;
use engine::core::Game;
use engine::expedition as x;
use engine::journey::{self as j, Card};
use serde::Deserialize;
use std::fmt::Display;

/// The name [`observation_to_proto`] and [`observation_from_proto`] know the journey by.
const JOURNEY: &str = <j::Journey as Game>::NAME;
/// The name they know the expedition by.
const EXPEDITION: &str = <x::Expedition as Game>::NAME;

// ----- shared helpers ------------------------------------------------------------------------

/// A number narrowed to the engine's type, or an error naming the field and the value.
fn num<T: TryFrom<S>, S: Copy + Display>(v: S, field: &str) -> Result<T, String> {
    T::try_from(v).map_err(|_| format!("{field}: {v} does not fit in a {}", std::any::type_name::<T>()))
}

/// An optional number narrowed to the engine's type.
fn opt_num<T: TryFrom<S>, S: Copy + Display>(v: Option<S>, field: &str) -> Result<Option<T>, String> {
    v.map(|v| num(v, field)).transpose()
}

/// Numbers narrowed to the engine's type, element by element.
fn nums<T: TryFrom<S>, S: Copy + Display>(v: &[S], field: &str) -> Result<Vec<T>, String> {
    v.iter().enumerate().map(|(i, &v)| num(v, &format!("{field}[{i}]"))).collect()
}

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

/// A message field the encoder always sets.
fn required<'a, T>(m: &'a Option<T>, field: &str) -> Result<&'a T, String> {
    m.as_ref().ok_or_else(|| format!("{field}: missing"))
}

/// A proto enum value: known, and (unless `map` accepts it) not UNSPECIFIED.
fn enum_value<E: TryFrom<i32>, R>(v: i32, field: &str, what: &str, map: impl Fn(E) -> Option<R>) -> Result<R, String> {
    let e = E::try_from(v).map_err(|_| format!("{field}: {v} names no {what}"))?;
    map(e).ok_or_else(|| format!("{field}: {v} (unspecified) names no {what}"))
}

// ----- journey -------------------------------------------------------------------------------

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
                card: d.card.to_string(),
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
                Ok(j::Due {
                    seat: num(d.seat, &format!("{at}.seat"))?,
                    kind: due_kind_from_proto(d.kind, &format!("{at}.kind"))?,
                    owed: num(d.owed, &format!("{at}.owed"))?,
                    card: card(&d.card, &format!("{at}.card"))?,
                })
            })
            .collect::<Result<_, String>>()?,
    })
}

// ----- expedition ----------------------------------------------------------------------------

fn tool_to_proto(t: x::Tool) -> i32 {
    match t {
        x::Tool::Compass => v1::Tool::Compass,
        x::Tool::Rope => v1::Tool::Rope,
        x::Tool::Map => v1::Tool::Map,
        x::Tool::Shovel => v1::Tool::Shovel,
    }
    .into()
}

fn tool_from_proto(v: i32, field: &str) -> Result<x::Tool, String> {
    enum_value(v, field, "tool", |t| match t {
        v1::Tool::Unspecified => None,
        v1::Tool::Compass => Some(x::Tool::Compass),
        v1::Tool::Rope => Some(x::Tool::Rope),
        v1::Tool::Map => Some(x::Tool::Map),
        v1::Tool::Shovel => Some(x::Tool::Shovel),
    })
}

fn tools_from_proto(v: &[i32], field: &str) -> Result<Vec<x::Tool>, String> {
    v.iter().enumerate().map(|(i, &t)| tool_from_proto(t, &format!("{field}[{i}]"))).collect()
}

fn tool_counts_to_proto(c: &x::ToolCounts) -> v1::ToolCounts {
    v1::ToolCounts { compass: c.compass.into(), rope: c.rope.into(), map: c.map.into(), shovel: c.shovel.into() }
}

fn tool_counts_from_proto(c: &Option<v1::ToolCounts>, field: &str) -> Result<x::ToolCounts, String> {
    let c = required(c, field)?;
    Ok(x::ToolCounts {
        compass: num(c.compass, &format!("{field}.compass"))?,
        rope: num(c.rope, &format!("{field}.rope"))?,
        map: num(c.map, &format!("{field}.map"))?,
        shovel: num(c.shovel, &format!("{field}.shovel"))?,
    })
}

fn tile_to_proto(t: &x::TileView) -> v1::TileView {
    v1::TileView {
        id: t.id.into(),
        name: t.name.clone(),
        kind: match t.kind {
            x::TileKind::Artifact => v1::TileKind::Artifact,
            x::TileKind::Place => v1::TileKind::Place,
        }
        .into(),
        tools: t.tools.iter().map(|&t| tool_to_proto(t)).collect(),
    }
}

fn tile_from_proto(t: &v1::TileView, field: &str) -> Result<x::TileView, String> {
    Ok(x::TileView {
        id: num(t.id, &format!("{field}.id"))?,
        name: t.name.clone(),
        kind: enum_value(t.kind, &format!("{field}.kind"), "tile kind", |k| match k {
            v1::TileKind::Unspecified => None,
            v1::TileKind::Artifact => Some(x::TileKind::Artifact),
            v1::TileKind::Place => Some(x::TileKind::Place),
        })?,
        tools: tools_from_proto(&t.tools, &format!("{field}.tools"))?,
    })
}

fn tiles_from_proto(v: &[v1::TileView], field: &str) -> Result<Vec<x::TileView>, String> {
    v.iter().enumerate().map(|(i, t)| tile_from_proto(t, &format!("{field}[{i}]"))).collect()
}

fn card_to_proto(c: &x::CardView) -> v1::CardView {
    v1::CardView {
        id: c.id.into(),
        name: c.name.clone(),
        kind: match c.kind {
            x::CardClass::Mission => v1::CardClass::Mission,
            x::CardClass::Discovery => v1::CardClass::Discovery,
            x::CardClass::Dice => v1::CardClass::Dice,
        }
        .into(),
        tiles: c.tiles.clone(),
        coins: c.coins.into(),
    }
}

fn card_from_proto(c: &v1::CardView, field: &str) -> Result<x::CardView, String> {
    Ok(x::CardView {
        id: num(c.id, &format!("{field}.id"))?,
        name: c.name.clone(),
        kind: enum_value(c.kind, &format!("{field}.kind"), "card class", |k| match k {
            v1::CardClass::Unspecified => None,
            v1::CardClass::Mission => Some(x::CardClass::Mission),
            v1::CardClass::Discovery => Some(x::CardClass::Discovery),
            v1::CardClass::Dice => Some(x::CardClass::Dice),
        })?,
        tiles: c.tiles.clone(),
        coins: num(c.coins, &format!("{field}.coins"))?,
    })
}

fn cards_from_proto(v: &[v1::CardView], field: &str) -> Result<Vec<x::CardView>, String> {
    v.iter().enumerate().map(|(i, c)| card_from_proto(c, &format!("{field}[{i}]"))).collect()
}

fn step_to_proto(s: x::Step) -> v1::ExpeditionStep {
    match s {
        x::Step::Roll => v1::ExpeditionStep::Roll,
        x::Step::Rolled => v1::ExpeditionStep::Rolled,
        x::Step::Action => v1::ExpeditionStep::Action,
        x::Step::Complete => v1::ExpeditionStep::Complete,
        x::Step::Finish => v1::ExpeditionStep::Finish,
        x::Step::Over => v1::ExpeditionStep::Over,
    }
}

fn step_from_proto(v: i32, field: &str) -> Result<x::Step, String> {
    enum_value(v, field, "expedition step", |s| match s {
        v1::ExpeditionStep::Unspecified => None,
        v1::ExpeditionStep::Roll => Some(x::Step::Roll),
        v1::ExpeditionStep::Rolled => Some(x::Step::Rolled),
        v1::ExpeditionStep::Action => Some(x::Step::Action),
        v1::ExpeditionStep::Complete => Some(x::Step::Complete),
        v1::ExpeditionStep::Finish => Some(x::Step::Finish),
        v1::ExpeditionStep::Over => Some(x::Step::Over),
    })
}

/// The die's face; `FACE_UNSPECIFIED` for none shown.
fn face_to_proto(f: Option<x::Face>) -> v1::Face {
    match f {
        None => v1::Face::Unspecified,
        Some(x::Face::Tool) => v1::Face::Tool,
        Some(x::Face::Torch) => v1::Face::Torch,
        Some(x::Face::Coin) => v1::Face::Coin,
    }
}

/// The die's face: `FACE_UNSPECIFIED` is none (not an error).
fn face_from_proto(v: i32, field: &str) -> Result<Option<x::Face>, String> {
    enum_value(v, field, "die face", |f| {
        Some(match f {
            v1::Face::Unspecified => None,
            v1::Face::Tool => Some(x::Face::Tool),
            v1::Face::Torch => Some(x::Face::Torch),
            v1::Face::Coin => Some(x::Face::Coin),
        })
    })
}

/// What must be put back; `RETURNING_UNSPECIFIED` for nothing.
fn returning_to_proto(r: Option<x::Returning>) -> v1::Returning {
    match r {
        None => v1::Returning::Unspecified,
        Some(x::Returning::Tile) => v1::Returning::Tile,
        Some(x::Returning::Tool) => v1::Returning::Tool,
    }
}

/// What must be put back: `RETURNING_UNSPECIFIED` is nothing (not an error).
fn returning_from_proto(v: i32, field: &str) -> Result<Option<x::Returning>, String> {
    enum_value(v, field, "returning", |r| {
        Some(match r {
            v1::Returning::Unspecified => None,
            v1::Returning::Tile => Some(x::Returning::Tile),
            v1::Returning::Tool => Some(x::Returning::Tool),
        })
    })
}

fn breakdown_to_proto(b: &x::ScoreBreakdown) -> v1::ScoreBreakdown {
    v1::ScoreBreakdown {
        completions: b.completions,
        missions: b.missions,
        dice_cards: b.dice_cards,
        total: b.total,
        missions_done: b.missions_done.iter().map(|&k| k.into()).collect(),
        discovery_tiles: b.discovery_tiles.iter().map(|&t| t.into()).collect(),
    }
}

fn breakdown_from_proto(b: &Option<v1::ScoreBreakdown>, field: &str) -> Result<x::ScoreBreakdown, String> {
    let b = required(b, field)?;
    Ok(x::ScoreBreakdown {
        completions: b.completions,
        missions: b.missions,
        dice_cards: b.dice_cards,
        total: b.total,
        missions_done: nums(&b.missions_done, &format!("{field}.missions_done"))?,
        discovery_tiles: nums(&b.discovery_tiles, &format!("{field}.discovery_tiles"))?,
    })
}

fn seat_to_proto(s: &x::SeatView) -> v1::SeatView {
    v1::SeatView {
        seat: s.seat.into(),
        turn_position: s.turn_position.into(),
        character_id: s.character_id.into(),
        character: s.character.clone(),
        favourite: tool_to_proto(s.favourite),
        torch_lit: s.torch_lit,
        tools: Some(tool_counts_to_proto(&s.tools)),
        tiles: s.tiles.iter().map(tile_to_proto).collect(),
        discoveries: s.discoveries.iter().map(tile_to_proto).collect(),
        coins_visible: s.coins_visible.into(),
        score: s.score,
        cards_held: s.cards_held.into(),
        cards_shown: s.cards.is_some(),
        cards: s.cards.iter().flatten().map(card_to_proto).collect(),
        cards_seen_taken: s.cards_seen_taken.iter().map(card_to_proto).collect(),
    }
}

fn seat_from_proto(s: &v1::SeatView, field: &str) -> Result<x::SeatView, String> {
    let cards = cards_from_proto(&s.cards, &format!("{field}.cards"))?;
    if !s.cards_shown && !cards.is_empty() {
        return Err(format!("{field}.cards: {} cards, but cards_shown is false", cards.len()));
    }
    Ok(x::SeatView {
        seat: num(s.seat, &format!("{field}.seat"))?,
        turn_position: num(s.turn_position, &format!("{field}.turn_position"))?,
        character_id: num(s.character_id, &format!("{field}.character_id"))?,
        character: s.character.clone(),
        favourite: tool_from_proto(s.favourite, &format!("{field}.favourite"))?,
        torch_lit: s.torch_lit,
        tools: tool_counts_from_proto(&s.tools, &format!("{field}.tools"))?,
        tiles: tiles_from_proto(&s.tiles, &format!("{field}.tiles"))?,
        discoveries: tiles_from_proto(&s.discoveries, &format!("{field}.discoveries"))?,
        coins_visible: num(s.coins_visible, &format!("{field}.coins_visible"))?,
        score: s.score,
        cards_held: num(s.cards_held, &format!("{field}.cards_held"))?,
        cards: s.cards_shown.then_some(cards),
        cards_seen_taken: cards_from_proto(&s.cards_seen_taken, &format!("{field}.cards_seen_taken"))?,
    })
}

/// A player's observation of the expedition as the typed message.
pub fn expedition_to_proto(o: &x::Observation) -> v1::ExpeditionObservation {
    v1::ExpeditionObservation {
        seat: o.seat.into(),
        players: o.players.into(),
        dice_game: o.dice_game,
        first_player: o.first_player.into(),
        to_move: o.to_move.map(u32::from),
        step: step_to_proto(o.step).into(),
        returning: returning_to_proto(o.returning).into(),
        round: o.round.into(),
        max_rounds: o.max_rounds.into(),
        last_round: o.last_round,
        die: face_to_proto(o.die).into(),
        coin_bonus: o.coin_bonus.into(),
        completed_this_turn: o.completed_this_turn.into(),
        hq: o
            .hq
            .iter()
            .map(|c| v1::ColumnView {
                tile: c.tile.as_ref().map(tile_to_proto),
                tools: c.tools.iter().map(|&t| tool_to_proto(t)).collect(),
            })
            .collect(),
        pile_count: o.pile_count.into(),
        pile_top_is_place: o.pile_top_is_place,
        pile_bottom: o.pile_bottom.iter().map(tile_to_proto).collect(),
        bag: Some(tool_counts_to_proto(&o.bag)),
        deck_count: o.deck_count.into(),
        face_up: o.face_up.iter().map(|c| v1::FaceUpSpace { card: c.as_ref().map(card_to_proto) }).collect(),
        seats: o.seats.iter().map(seat_to_proto).collect(),
        out_of_play_tiles: o.out_of_play_tiles.into(),
        out_of_play_cards: o.out_of_play_cards.into(),
        out_of_play_tools: Some(tool_counts_to_proto(&o.out_of_play_tools)),
        over: o.final_scores.is_some(),
        final_scores: o
            .final_scores
            .iter()
            .flatten()
            .map(|f| v1::FinalScore {
                seat: f.seat.into(),
                rank: f.rank.into(),
                breakdown: Some(breakdown_to_proto(&f.breakdown)),
                missions_done: f.missions_done.clone(),
            })
            .collect(),
    }
}

/// The engine's expedition observation from the typed message: the inverse of
/// [`expedition_to_proto`]. An error names the field (`expedition.…`) and the value refused.
pub fn expedition_from_proto(o: &v1::ExpeditionObservation) -> Result<x::Observation, String> {
    if !o.over && !o.final_scores.is_empty() {
        return Err(format!("expedition.final_scores: {} scores, but over is false", o.final_scores.len()));
    }
    let final_scores = o
        .final_scores
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let at = format!("expedition.final_scores[{i}]");
            Ok(x::FinalScore {
                seat: num(f.seat, &format!("{at}.seat"))?,
                rank: num(f.rank, &format!("{at}.rank"))?,
                breakdown: breakdown_from_proto(&f.breakdown, &format!("{at}.breakdown"))?,
                missions_done: f.missions_done.clone(),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(x::Observation {
        seat: num(o.seat, "expedition.seat")?,
        players: num(o.players, "expedition.players")?,
        dice_game: o.dice_game,
        first_player: num(o.first_player, "expedition.first_player")?,
        to_move: opt_num(o.to_move, "expedition.to_move")?,
        step: step_from_proto(o.step, "expedition.step")?,
        returning: returning_from_proto(o.returning, "expedition.returning")?,
        round: num(o.round, "expedition.round")?,
        max_rounds: num(o.max_rounds, "expedition.max_rounds")?,
        last_round: o.last_round,
        die: face_from_proto(o.die, "expedition.die")?,
        coin_bonus: num(o.coin_bonus, "expedition.coin_bonus")?,
        completed_this_turn: num(o.completed_this_turn, "expedition.completed_this_turn")?,
        hq: o
            .hq
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let at = format!("expedition.hq[{i}]");
                Ok(x::ColumnView {
                    tile: c.tile.as_ref().map(|t| tile_from_proto(t, &format!("{at}.tile"))).transpose()?,
                    tools: tools_from_proto(&c.tools, &format!("{at}.tools"))?,
                })
            })
            .collect::<Result<_, String>>()?,
        pile_count: num(o.pile_count, "expedition.pile_count")?,
        pile_top_is_place: o.pile_top_is_place,
        pile_bottom: tiles_from_proto(&o.pile_bottom, "expedition.pile_bottom")?,
        bag: tool_counts_from_proto(&o.bag, "expedition.bag")?,
        deck_count: num(o.deck_count, "expedition.deck_count")?,
        face_up: o
            .face_up
            .iter()
            .enumerate()
            .map(|(i, s)| {
                s.card.as_ref().map(|c| card_from_proto(c, &format!("expedition.face_up[{i}].card"))).transpose()
            })
            .collect::<Result<_, String>>()?,
        seats: o
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| seat_from_proto(s, &format!("expedition.seats[{i}]")))
            .collect::<Result<_, String>>()?,
        out_of_play_tiles: num(o.out_of_play_tiles, "expedition.out_of_play_tiles")?,
        out_of_play_cards: num(o.out_of_play_cards, "expedition.out_of_play_cards")?,
        out_of_play_tools: tool_counts_from_proto(&o.out_of_play_tools, "expedition.out_of_play_tools")?,
        final_scores: o.over.then_some(final_scores),
    })
}

// ----- any game ------------------------------------------------------------------------------

/// The typed observation of any game, from the engine's JSON form of it (what
/// `AnyGame::observation_json(seat)` returns), with `text` the observation text: `game` is
/// `"journey"` or `"expedition"`. The JSON is read into the game's observation type, then
/// converted; an error names the game and what does not fit.
pub fn observation_to_proto(game: &str, json: &serde_json::Value, text: &str) -> Result<v1::Observation, String> {
    use v1::observation::Game as G;
    let typed = match game {
        JOURNEY => G::Journey(journey_to_proto(
            &j::JourneyObservation::deserialize(json).map_err(|e| format!("journey observation: {e}"))?,
        )),
        EXPEDITION => G::Expedition(expedition_to_proto(
            &x::Observation::deserialize(json).map_err(|e| format!("expedition observation: {e}"))?,
        )),
        _ => return Err(format!("unknown game `{game}`: the typed observations are of {JOURNEY} and {EXPEDITION}")),
    };
    Ok(v1::Observation { text: text.to_string(), game: Some(typed) })
}

/// The engine's JSON form of a typed observation (to rebuild states from it on the bot's
/// side): the inverse of [`observation_to_proto`]; returns (game name, JSON, text).
pub fn observation_from_proto(o: &v1::Observation) -> Result<(&'static str, serde_json::Value, String), String> {
    use v1::observation::Game as G;
    let (game, json) = match &o.game {
        Some(G::Journey(j)) => (JOURNEY, serde_json::to_value(journey_from_proto(j)?)),
        Some(G::Expedition(x)) => (EXPEDITION, serde_json::to_value(expedition_from_proto(x)?)),
        None => return Err("observation.game: missing (journey or expedition)".into()),
    };
    Ok((game, json.map_err(|e| format!("{game} observation: {e}"))?, o.text.clone()))
}
