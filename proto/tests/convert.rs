//! The conversions between the engine's observations and the typed messages are lossless:
//! checked on every seat's observation of thousands of random states of both games, and on
//! every variant of the enums and of the journey's phase. Decoding errors name the field.

use engine::core::{AnyGame, Dyn, Game, ParamSource, Seat, SmallRng, resolve_params};
use engine::expedition::{self as x, Expedition, ExpeditionParams};
use engine::journey::{self as j, Card, Journey, JourneyParams, Suit};
use prost::Message;
use proto::convert::{
    expedition_from_proto, expedition_to_proto, journey_from_proto, journey_to_proto, observation_from_proto,
    observation_to_proto,
};
use proto::v1;
use rand::{RngExt, SeedableRng};
use std::collections::BTreeSet;

// ----- setting games up ------------------------------------------------------------------------

fn sources(overrides: &[(&str, &str)]) -> Vec<ParamSource> {
    overrides.iter().map(|(k, v)| ParamSource::KeyValue { key: k.to_string(), value: v.to_string() }).collect()
}

/// Every journey preset, plain and with every optional module on (martian also with the way
/// home of Ruins; dunwich has the way home of Shadows already).
fn journey_variants() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    let mut v = Vec::new();
    for preset in ["classic", "martian", "dunwich"] {
        v.push((preset, vec![]));
        let mut all = vec![("allies", "true"), ("companions", "true")];
        if preset == "martian" {
            all.push(("return_journey", "ruins"));
        }
        v.push((preset, all));
    }
    v
}

fn journey_params(preset: &str, overrides: &[(&str, &str)], travellers: u8) -> JourneyParams {
    let mut s = sources(overrides);
    s.push(ParamSource::KeyValue { key: "travellers".into(), value: travellers.to_string() });
    resolve_params(Some(preset), &s).unwrap()
}

/// A position near the end, so that random play reaches arrival and the way home (as in the
/// engine's property tests).
fn late(p: &JourneyParams, seed: u64) -> Journey {
    let last = if p.destination == j::params::Destination::LastRefuge { ", A♥" } else { "" };
    let yaml = format!(
        "journey: [5♥, 2♠, 4♥{last}]\npassed: [3♥, 7♥, 2♥]\nwreckage: [9♠, 5♠, K♠]\ncaches: [{{refuge: 7♥, card: 8♦}}]\ndiscard: [4♣, 5♣, J♦]"
    );
    Journey::from_scenario(p, seed, serde_yaml::from_str(&yaml).unwrap()).unwrap()
}

fn expedition_params(preset: &str, players: u8, seed: u64) -> ExpeditionParams {
    let players = players.to_string();
    let mut overrides = vec![("players", players.as_str())];
    if seed % 2 == 1 {
        overrides.push(("discovery_cards", "named"));
    }
    resolve_params(Some(preset), &sources(&overrides)).unwrap()
}

// ----- the round trips -------------------------------------------------------------------------

/// What the random states reached, so that the test shows it saw what it claims to check.
#[derive(Default)]
struct Seen {
    states: usize,
    observations: usize,
    journey_phases: BTreeSet<String>,
    journey_facts: BTreeSet<&'static str>,
    expedition_steps: BTreeSet<String>,
    expedition_facts: BTreeSet<&'static str>,
}

/// A message survives prost's encoding unchanged.
fn wire<M: Message + Default + PartialEq + std::fmt::Debug>(m: &M) {
    let back = M::decode(m.encode_to_vec().as_slice()).expect("decodes");
    assert_eq!(&back, m, "changed by encoding and decoding");
}

/// The any-game path: JSON and text to the typed observation and back.
fn any_game(g: &dyn AnyGame, seat: Seat) -> v1::Observation {
    let (json, text) = (g.observation_json(seat), g.observation_text(seat));
    let typed = observation_to_proto(g.name(), &json, &text).unwrap();
    wire(&typed);
    let (game, json_back, text_back) = observation_from_proto(&typed).unwrap();
    assert_eq!(game, g.name());
    assert_eq!(json_back, json, "the JSON changed");
    assert_eq!(text_back, text);
    typed
}

fn check_journey(g: &Dyn<Journey>, seen: &mut Seen) {
    seen.states += 1;
    for s in 0..g.0.seats() as u8 {
        let o = g.0.observation(Seat(s));
        let p = journey_to_proto(&o);
        assert_eq!(journey_from_proto(&p).as_ref(), Ok(&o), "seat {s}: {p:?}");
        wire(&p);
        let typed = any_game(g, Seat(s));
        assert_eq!(typed.game, Some(v1::observation::Game::Journey(p.clone())));
        seen.observations += 1;
        let phase = format!("{:?}", p.phase.as_ref().and_then(|p| p.phase.as_ref()).unwrap());
        seen.journey_phases.insert(phase.split(['(', ' ']).next().unwrap().to_string());
        let facts = [
            ("offer", o.offer.is_some()),
            ("dues", !o.dues.is_empty()),
            ("fight round", o.round.is_some()),
            ("hide bar", o.hide_bar.is_some()),
            ("hide open", o.hide_open.is_some()),
            ("companion", o.companion.is_some()),
            ("journey top", o.journey_top.is_some()),
            ("journey bottom", o.journey_bottom.is_some()),
            ("way home", !o.way_stops.is_empty()),
            ("ruins", !o.ruins.is_empty()),
            ("stop", o.stop.is_some()),
            ("arrived", o.travellers.iter().any(|t| t.status == j::Status::Arrived)),
            ("fallen", o.travellers.iter().any(|t| t.status == j::Status::Fallen)),
            ("stopped", o.travellers.iter().any(|t| t.status == j::Status::Stopped)),
        ];
        seen.journey_facts.extend(facts.iter().filter(|f| f.1).map(|f| f.0));
    }
}

fn check_expedition(g: &Dyn<Expedition>, seen: &mut Seen) {
    seen.states += 1;
    for s in 0..g.0.seats() as u8 {
        let o = g.0.observation(Seat(s));
        let p = expedition_to_proto(&o);
        assert_eq!(expedition_from_proto(&p).as_ref(), Ok(&o), "seat {s}: {p:?}");
        wire(&p);
        let typed = any_game(g, Seat(s));
        assert_eq!(typed.game, Some(v1::observation::Game::Expedition(p)));
        seen.observations += 1;
        seen.expedition_steps.insert(format!("{:?}", o.step));
        let facts = [
            ("over", o.final_scores.is_some()),
            ("die", o.die.is_some()),
            ("no die", o.die.is_none()),
            ("returning tile", o.returning == Some(x::Returning::Tile)),
            ("returning tool", o.returning == Some(x::Returning::Tool)),
            ("empty face-up space", o.face_up.iter().any(Option::is_none)),
            ("empty hq tile", o.hq.iter().any(|c| c.tile.is_none())),
            ("pile bottom", !o.pile_bottom.is_empty()),
            ("cards hidden", o.seats.iter().any(|v| v.cards.is_none())),
            ("cards seen taken", o.seats.iter().any(|v| !v.cards_seen_taken.is_empty())),
            ("named discovery", o.seats.iter().flat_map(|v| v.cards.iter().flatten()).any(|c| !c.tiles.is_empty())),
        ];
        seen.expedition_facts.extend(facts.iter().filter(|f| f.1).map(|f| f.0));
    }
}

/// Play uniformly random legal actions from `g` to the end, checking every state.
fn play<G: Game>(mut g: Dyn<G>, seed: u64, seen: &mut Seen, check: fn(&Dyn<G>, &mut Seen)) {
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x5eed);
    let mut legal = Vec::new();
    loop {
        check(&g, seen);
        legal.clear();
        AnyGame::legal_actions(&g, &mut legal);
        if legal.is_empty() {
            return;
        }
        AnyGame::apply(&mut g, legal[rng.random_range(0..legal.len())]).unwrap();
    }
}

#[test]
fn journey_observations_round_trip_in_random_games() {
    let mut seen = Seen::default();
    for (preset, overrides) in journey_variants() {
        for travellers in 1..=4 {
            let p = journey_params(preset, &overrides, travellers);
            for seed in 0..3 {
                let seed = seed * 100 + travellers as u64;
                play(Dyn(Journey::new(&p, seed)), seed, &mut seen, check_journey);
                play(Dyn(late(&p, seed)), seed, &mut seen, check_journey);
            }
        }
    }
    eprintln!(
        "journey: {} states, {} observations; phases {:?}; facts {:?}",
        seen.states, seen.observations, seen.journey_phases, seen.journey_facts
    );
    assert!(seen.states >= 1000, "only {} states", seen.states);
    for phase in ["Refuge", "Fight", "Take", "HideBonus", "Stop", "Offer", "Over"] {
        assert!(seen.journey_phases.contains(phase), "no state at phase {phase}");
    }
    for fact in ["offer", "dues", "fight round", "companion", "way home", "ruins", "stop", "arrived", "fallen"] {
        assert!(seen.journey_facts.contains(fact), "no state with {fact}");
    }
}

#[test]
fn expedition_observations_round_trip_in_random_games() {
    let mut seen = Seen::default();
    for preset in ["dice", "no-dice"] {
        for players in 2..=4 {
            for seed in 0..2 {
                let p = expedition_params(preset, players, seed);
                let seed = seed * 100 + players as u64;
                play(Dyn(Expedition::new(&p, seed)), seed, &mut seen, check_expedition);
            }
        }
    }
    eprintln!(
        "expedition: {} states, {} observations; steps {:?}; facts {:?}",
        seen.states, seen.observations, seen.expedition_steps, seen.expedition_facts
    );
    assert!(seen.states >= 1000, "only {} states", seen.states);
    for step in ["Roll", "Rolled", "Action", "Complete", "Finish", "Over"] {
        assert!(seen.expedition_steps.contains(step), "no state at step {step}");
    }
    for fact in ["over", "die", "no die", "returning tile", "returning tool", "cards hidden", "cards seen taken"] {
        assert!(seen.expedition_facts.contains(fact), "no state with {fact}");
    }
}

// ----- every variant, whether random play reaches it or not -------------------------------------

fn some_journey_observation() -> j::JourneyObservation {
    let p = journey_params("martian", &[("return_journey", "ruins"), ("companions", "true")], 3);
    late(&p, 7).observation(Seat(1))
}

#[test]
fn every_journey_phase_status_and_due_round_trips() {
    let (h5, s9, d7) = (Card::new(Suit::Hearts, 5), Card::new(Suit::Spades, 9), Card::new(Suit::Diamonds, 7));
    let mut phases = vec![
        j::Phase::Reveal,
        j::Phase::Refuge { refuge: h5, left: 2, actor: 1, passes: 1 },
        j::Phase::Fight { actor: 2 },
        j::Phase::HideBonus { seat: 1 },
        j::Phase::AfterAction { actor: 0 },
        j::Phase::RoundEnd,
        j::Phase::EndTurn,
        j::Phase::Arrive,
        j::Phase::Way,
        j::Phase::Offer { card: s9, stop: None },
        j::Phase::Offer { card: Card::JOKER, stop: Some(h5) },
        j::Phase::Over,
    ];
    for suit in [None, Some(Suit::Spades), Some(Suit::Hearts), Some(Suit::Diamonds), Some(Suit::Clubs)] {
        for then in [j::Then::AfterAction, j::Then::Decide] {
            phases.push(j::Phase::Take { seat: 2, suit, not: d7, then });
        }
    }
    for step in [j::StopStep::DigUp, j::StopStep::Joker, j::StopStep::Ruin, j::StopStep::Tolls, j::StopStep::Done] {
        phases.push(j::Phase::Stop { stop: h5, step });
    }
    let statuses = [j::Status::Journeying, j::Status::Fallen, j::Status::Stopped, j::Status::Arrived];
    let kinds = [j::DueKind::Cover, j::DueKind::Toll, j::DueKind::Price, j::DueKind::Discard, j::DueKind::DiscardAny];
    let base = some_journey_observation();
    for (i, &phase) in phases.iter().enumerate() {
        let mut o = base.clone();
        o.phase = phase;
        o.travellers[i % 3].status = statuses[i % 4];
        let kind = kinds[i % 5];
        o.dues = vec![j::Due { seat: 1, kind, owed: -3, card: kind.names_card().then_some(Card::JOKER) }];
        o.offer = Some((s9, i as i16 - 5));
        o.adversary_health = Some(-2);
        o.hide_failed = Some(i % 2 == 0);
        o.round = Some(j::RoundView { actors: vec![2, 0, 1], acted: 1 });
        let p = journey_to_proto(&o);
        assert_eq!(journey_from_proto(&p), Ok(o), "{phase:?}");
        wire(&p);
    }
}

fn some_expedition_observation(over: bool) -> x::Observation {
    let p = expedition_params("no-dice", 3, 1);
    let mut g = Expedition::new(&p, 3);
    let mut rng = SmallRng::seed_from_u64(3);
    let mut legal = Vec::new();
    for _ in 0..if over { usize::MAX } else { 40 } {
        legal.clear();
        g.legal_actions(&mut legal);
        if legal.is_empty() {
            break;
        }
        g.apply(legal[rng.random_range(0..legal.len())]).unwrap();
    }
    g.observation(Seat(2))
}

#[test]
fn every_expedition_step_face_and_return_round_trips() {
    let steps = [x::Step::Roll, x::Step::Rolled, x::Step::Action, x::Step::Complete, x::Step::Finish, x::Step::Over];
    let faces = [None, Some(x::Face::Tool), Some(x::Face::Torch), Some(x::Face::Coin)];
    let returns = [None, Some(x::Returning::Tile), Some(x::Returning::Tool)];
    for base in [some_expedition_observation(false), some_expedition_observation(true)] {
        for (i, &step) in steps.iter().enumerate() {
            let mut o = base.clone();
            o.step = step;
            o.die = faces[i % 4];
            o.returning = returns[i % 3];
            o.pile_top_is_place = [None, Some(true), Some(false)][i % 3];
            let (f, h, s) = (i % o.face_up.len(), i % o.hq.len(), i % o.seats.len());
            o.face_up[f] = None;
            o.hq[h].tile = None;
            o.seats[s].cards = Some(vec![]);
            let p = expedition_to_proto(&o);
            assert_eq!(expedition_from_proto(&p), Ok(o), "{step:?}");
            wire(&p);
        }
    }
}

// ----- decoding errors name the field ----------------------------------------------------------

fn error_of<T: std::fmt::Debug>(r: Result<T, String>) -> String {
    r.expect_err("an error")
}

#[test]
fn a_bad_card_is_refused_naming_the_field() {
    let mut p = journey_to_proto(&some_journey_observation());
    p.travellers[1].satchel.push("X♦".into());
    let e = error_of(journey_from_proto(&p));
    assert!(e.starts_with("journey.travellers[1].satchel: `X♦` is not a card"), "{e}");

    let mut p = journey_to_proto(&some_journey_observation());
    p.phase = Some(v1::JourneyPhase {
        phase: Some(v1::journey_phase::Phase::Take(v1::journey_phase::Take {
            seat: 0,
            suit: "clubs".into(),
            not: "".into(),
            then: "decide".into(),
        })),
    });
    let e = error_of(journey_from_proto(&p));
    assert!(e.starts_with("journey.phase.take.not: missing"), "{e}");

    let mut p = journey_to_proto(&some_journey_observation());
    p.discard = vec!["7♦".into(), "11♣".into()];
    let e = error_of(journey_from_proto(&p));
    assert!(e.starts_with("journey.discard: `11♣` is not a card"), "{e}");
}

#[test]
fn an_unspecified_or_unknown_enum_is_refused_naming_the_field() {
    let mut p = journey_to_proto(&some_journey_observation());
    p.travellers[2].status = v1::TravellerStatus::Unspecified.into();
    let e = error_of(journey_from_proto(&p));
    assert_eq!(e, "journey.travellers[2].status: 0 (unspecified) names no traveller status");
    p.travellers[2].status = 17;
    let e = error_of(journey_from_proto(&p));
    assert_eq!(e, "journey.travellers[2].status: 17 names no traveller status");

    let mut p = expedition_to_proto(&some_expedition_observation(false));
    p.step = v1::ExpeditionStep::Unspecified.into();
    assert_eq!(error_of(expedition_from_proto(&p)), "expedition.step: 0 (unspecified) names no expedition step");

    let mut p = expedition_to_proto(&some_expedition_observation(false));
    p.seats[1].favourite = v1::Tool::Unspecified.into();
    assert_eq!(error_of(expedition_from_proto(&p)), "expedition.seats[1].favourite: 0 (unspecified) names no tool");

    // FACE_UNSPECIFIED and RETURNING_UNSPECIFIED mean none: not errors.
    let mut p = expedition_to_proto(&some_expedition_observation(false));
    p.die = v1::Face::Unspecified.into();
    p.returning = v1::Returning::Unspecified.into();
    let o = expedition_from_proto(&p).unwrap();
    assert_eq!((o.die, o.returning), (None, None));
    p.die = 9;
    assert_eq!(error_of(expedition_from_proto(&p)), "expedition.die: 9 names no die face");
}

#[test]
fn a_missing_phase_or_message_is_refused_naming_the_field() {
    let mut p = journey_to_proto(&some_journey_observation());
    p.phase = None;
    assert_eq!(error_of(journey_from_proto(&p)), "journey.phase: missing");
    p.phase = Some(v1::JourneyPhase { phase: None });
    assert_eq!(error_of(journey_from_proto(&p)), "journey.phase: missing");

    let mut p = expedition_to_proto(&some_expedition_observation(false));
    p.seats[0].tools = None;
    assert_eq!(error_of(expedition_from_proto(&p)), "expedition.seats[0].tools: missing");

    let mut p = expedition_to_proto(&some_expedition_observation(true));
    p.final_scores[1].breakdown = None;
    assert_eq!(error_of(expedition_from_proto(&p)), "expedition.final_scores[1].breakdown: missing");

    let e = error_of(observation_from_proto(&v1::Observation { text: "t".into(), game: None }));
    assert!(e.starts_with("observation.game: missing"), "{e}");
}

#[test]
fn inconsistent_or_out_of_range_values_are_refused_naming_the_field() {
    let mut p = journey_to_proto(&some_journey_observation());
    p.seat = 300;
    assert_eq!(error_of(journey_from_proto(&p)), "journey.seat: 300 does not fit in a u8");

    let mut p = journey_to_proto(&some_journey_observation());
    p.offer_card = "9♠".into();
    p.offer_price = None;
    assert!(error_of(journey_from_proto(&p)).starts_with("journey.offer_card: `9♠` without an offer_price"));
    p.offer_card = "".into();
    p.offer_price = Some(4);
    assert!(error_of(journey_from_proto(&p)).starts_with("journey.offer_price: 4 without an offer_card"));

    let mut p = journey_to_proto(&some_journey_observation());
    p.phase = Some(v1::JourneyPhase {
        phase: Some(v1::journey_phase::Phase::Take(v1::journey_phase::Take {
            seat: 0,
            suit: "stars".into(),
            not: "7♦".into(),
            then: "decide".into(),
        })),
    });
    assert!(error_of(journey_from_proto(&p)).starts_with("journey.phase.take.suit: `stars` is not a suit"));

    // A due's card is there exactly for a toll and a price.
    let due = |kind: v1::DueKind, card: Option<&str>| v1::Due {
        seat: 0,
        kind: kind.into(),
        owed: 3,
        card: card.map(Into::into),
    };
    let mut p = journey_to_proto(&some_journey_observation());
    p.dues = vec![due(v1::DueKind::Toll, Some("5♥")), due(v1::DueKind::Cover, Some("2♠"))];
    assert_eq!(error_of(journey_from_proto(&p)), "journey.dues[1]: a cover due is for no card, and names 2♠");
    p.dues = vec![due(v1::DueKind::Price, None)];
    assert_eq!(error_of(journey_from_proto(&p)), "journey.dues[0]: a price due is for a card, and names none");
    p.dues = vec![due(v1::DueKind::Discard, Some(""))];
    assert!(error_of(journey_from_proto(&p)).starts_with("journey.dues[0].card: missing"));
    p.dues = vec![due(v1::DueKind::Cover, None), due(v1::DueKind::Toll, Some("5♥"))];
    let o = journey_from_proto(&p).unwrap();
    assert_eq!(o.dues, vec![j::Due::cover(0, 3), j::Due::toll(0, 3, "5♥".parse().unwrap())]);

    let mut p = expedition_to_proto(&some_expedition_observation(false));
    p.seats[2].cards_shown = false;
    p.seats[2].cards.push(p.face_up.iter().find_map(|s| s.card.clone()).unwrap());
    let e = error_of(expedition_from_proto(&p));
    assert!(e.starts_with("expedition.seats[2].cards: ") && e.ends_with("but cards_shown is false"), "{e}");

    let mut p = expedition_to_proto(&some_expedition_observation(true));
    p.over = false;
    assert!(error_of(expedition_from_proto(&p)).starts_with("expedition.final_scores: "));

    let e = error_of(observation_to_proto("chess", &serde_json::json!({}), ""));
    assert!(e.starts_with("unknown game `chess`"), "{e}");
    let e = error_of(observation_to_proto("journey", &serde_json::json!({"seat": 0}), ""));
    assert!(e.starts_with("journey observation: "), "{e}");
}
