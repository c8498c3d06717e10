//! A due names a card only where a card is owed — a toll's stop, the Ruin or Shadow a price
//! banks — and that card is face up: no seat's observation, as JSON, ever names through a due
//! a card that lies hidden (in the Journey deck, the Supply, the Ruins, the set-aside Supply or
//! face down on the way home). A cover (a counter-strike or a failed Hide's Ambush) and the
//! discards owed for the Burden are for no card, and name none.

use engine::core::{Game, ParamSource, Seat, SmallRng, resolve_params};
use engine::journey::params::Destination;
use engine::journey::{Action, Card, Due, DueKind, Journey, JourneyParams, Phase};
use rand::{RngExt, SeedableRng};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Every preset, bare and with every module on (martian also with the ruins way home).
fn variants() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    let modules = [("allies", "true"), ("companions", "true")];
    let mut v = Vec::new();
    for preset in ["classic", "martian", "dunwich"] {
        v.push((preset, vec![]));
        v.push((preset, modules.to_vec()));
    }
    v.push(("martian", vec![("allies", "true"), ("companions", "true"), ("return_journey", "ruins")]));
    v
}

fn params(preset: &str, overrides: &[(&str, &str)], travellers: u8) -> JourneyParams {
    let mut sources: Vec<ParamSource> =
        overrides.iter().map(|(k, v)| ParamSource::KeyValue { key: k.to_string(), value: v.to_string() }).collect();
    sources.push(ParamSource::KeyValue { key: "travellers".into(), value: travellers.to_string() });
    resolve_params(Some(preset), &sources).unwrap()
}

/// A position near the end of the way out, so that random play reaches the way home (its
/// tolls, and the Ruins or Shadows offered there).
fn late(p: &JourneyParams, seed: u64) -> Journey {
    let last = if p.destination == Destination::LastRefuge { ", A♥" } else { "" };
    let yaml = format!(
        "journey: [5♥, 2♠, 4♥{last}]\npassed: [3♥, 7♥, 2♥, 9♥, 6♥]\nwreckage: [9♠, 5♠, K♠, Q♠]\ndiscard: [4♣, 5♣, J♦]"
    );
    Journey::from_scenario(p, seed, serde_yaml::from_str(&yaml).unwrap()).unwrap()
}

/// What the dues seen (as each seat's JSON) and the dues made (by the action just applied)
/// came to, by kind and by where they came from.
#[derive(Default)]
struct Seen {
    /// Dues in observations, by kind, with a card and without.
    in_json: BTreeMap<(String, bool), usize>,
    /// Dues made by an action, by the rule that made them.
    made: BTreeMap<&'static str, usize>,
    decisions: usize,
}

/// The cards whose place `seat` cannot see: the Journey deck and the Supply (the truth, not
/// the observation's account of them), the Ruins, the set-aside Supply and the way home's
/// face-down cards.
fn hidden(g: &Journey, seat: u8) -> BTreeSet<Card> {
    let o = g.observation(Seat(seat));
    let mut h: BTreeSet<Card> = g.journey_deck().iter().chain(g.supply()).copied().collect();
    h.extend(o.ruins.iter().chain(&o.set_aside).chain(&o.way_hidden));
    h.extend(g.way_home().0.iter().copied().filter(|c| !o.way_stops.contains(c)));
    h
}

/// Every due of every seat's observation, read from its JSON: a cover or a discard names no
/// card; a toll names the stop being visited; a price names a card that is nowhere hidden
/// (it was offered face up and is only in the due now); none names a hidden card.
fn check_observations(g: &Journey, seen: &mut Seen, at: &str) {
    for seat in 0..g.seats() as u8 {
        let o = g.observation(Seat(seat));
        let json = serde_json::to_value(&o).unwrap();
        let dues = json["dues"].as_array().expect("dues is a list");
        assert_eq!(dues.len(), g.dues().len(), "{at}");
        let hidden = hidden(g, seat);
        for (i, d) in dues.iter().enumerate() {
            let kind = d["kind"].as_str().expect("a kind").to_string();
            let card = match &d["card"] {
                Value::Null => None,
                Value::String(s) => Some(s.parse::<Card>().unwrap_or_else(|e| panic!("{at}: dues[{i}]: {e}"))),
                other => panic!("{at}: dues[{i}].card is {other}"),
            };
            *seen.in_json.entry((kind.clone(), card.is_some())).or_default() += 1;
            match kind.as_str() {
                "cover" | "discard" | "discard_any" => {
                    assert_eq!(card, None, "{at}, seat {seat}: a {kind} due names a card: {d}")
                }
                "toll" => {
                    let c = card.unwrap_or_else(|| panic!("{at}: a toll names no stop: {d}"));
                    assert_eq!(Some(c), o.stop, "{at}, seat {seat}: a toll names {c}, not the stop visited");
                    assert!(matches!(o.phase, Phase::Stop { stop, .. } if stop == c), "{at}: {:?}", o.phase);
                }
                "price" => {
                    card.unwrap_or_else(|| panic!("{at}: a price names no card: {d}"));
                }
                _ => panic!("{at}: unknown due kind {kind}"),
            }
            if let Some(c) = card {
                assert!(!hidden.contains(&c), "{at}, seat {seat}: dues[{i}] names {c}, a hidden card: {d}");
            }
        }
    }
}

/// The dues `action` made: dues are paid first first and made at the back, so those still owed
/// from before it are the longest run of `before`'s last ones that begins `after` (the first
/// perhaps paid down), and the rest are new.
fn made<'a>(before: &[Due], after: &'a [Due]) -> &'a [Due] {
    let same = |a: &Due, b: &Due| (a.seat, a.kind, a.card) == (b.seat, b.kind, b.card) && b.owed <= a.owed;
    let kept = (0..=before.len().min(after.len()))
        .rev()
        .find(|&k| before[before.len() - k..].iter().zip(&after[..k]).all(|(a, b)| same(a, b)))
        .unwrap_or(0);
    &after[kept..]
}

/// The dues `action` made: none but a toll or a price names a card, and a price names the card
/// that was offered.
fn check_made(before: &[Due], g: &Journey, action: Action, offered: Option<Card>, seen: &mut Seen, at: &str) {
    for d in made(before, g.dues()) {
        let origin = match (d.kind, action) {
            (DueKind::Cover, Action::Hide | Action::HideWith(_)) => "hide (an Ambush)",
            (DueKind::Cover, _) => "fight (a counter-strike)",
            (DueKind::Discard | DueKind::DiscardAny, Action::RidBurden) => "companions (rid of the Burden)",
            (DueKind::Toll, _) => "way home (a toll)",
            (DueKind::Price, Action::Strip) => "way home (a price)",
            _ => panic!("{at}: {action:?} made an unexpected due {d:?}"),
        };
        *seen.made.entry(origin).or_default() += 1;
        match d.kind {
            DueKind::Cover | DueKind::Discard | DueKind::DiscardAny => {
                assert_eq!(d.card, None, "{at}: {origin} made a due naming a card: {d:?}")
            }
            DueKind::Toll => assert!(d.card.is_some(), "{at}: a toll without its stop: {d:?}"),
            DueKind::Price => assert_eq!(d.card, offered, "{at}: a price for another card than offered: {d:?}"),
        }
    }
}

fn play(p: &JourneyParams, seed: u64, mut g: Journey, seen: &mut Seen, label: &str) {
    let mut rng = SmallRng::seed_from_u64(seed ^ 0xd0e5);
    let mut legal = Vec::new();
    for step in 0..20_000 {
        let at = format!("{label}, seed {seed}, step {step}");
        check_observations(&g, seen, &at);
        legal.clear();
        g.legal_actions(&mut legal);
        if legal.is_empty() {
            return;
        }
        seen.decisions += 1;
        let id = legal[rng.random_range(0..legal.len())];
        let action = Action::from_id(id).expect("a legal id names an action");
        let offered = match g.phase() {
            Phase::Offer { card, .. } => Some(card),
            _ => None,
        };
        let before = g.dues().to_vec();
        g.apply(id).unwrap();
        check_made(&before, &g, action, offered, seen, &at);
    }
    panic!("{label}, seed {seed}: the game did not end ({p:?})");
}

#[test]
fn no_observation_json_holds_a_due_card_the_seat_cannot_see() {
    let mut seen = Seen::default();
    for (preset, overrides) in variants() {
        for travellers in 1..=4 {
            let p = params(preset, &overrides, travellers);
            let label = format!("{preset} {overrides:?}, {travellers} travellers");
            for seed in 0..30 {
                play(&p, seed, Journey::new(&p, seed), &mut seen, &label);
                play(&p, seed, late(&p, seed), &mut seen, &format!("{label} (late)"));
            }
        }
    }
    eprintln!("{} decisions; dues in observations {:?}; made {:?}", seen.decisions, seen.in_json, seen.made);
    // Every kind of due was seen, so the checks above were not vacuous.
    for (kind, card) in [("cover", false), ("discard", false), ("discard_any", false), ("toll", true), ("price", true)]
    {
        assert!(seen.in_json.get(&(kind.to_string(), card)).is_some_and(|&n| n > 0), "no {kind} due seen");
    }
    assert_eq!(seen.in_json.len(), 5, "a kind seen both with and without a card: {:?}", seen.in_json);
    for origin in [
        "hide (an Ambush)",
        "fight (a counter-strike)",
        "companions (rid of the Burden)",
        "way home (a toll)",
        "way home (a price)",
    ] {
        assert!(seen.made.get(origin).is_some_and(|&n| n > 0), "no due made by {origin}");
    }
}

#[test]
fn an_observation_whose_due_card_disagrees_with_its_kind_is_refused() {
    // A toll at a stop of the way home, from random play.
    let p = params("dunwich", &[], 2);
    let mut found = None;
    'seeds: for seed in 0..200 {
        let mut g = late(&p, seed);
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut legal = Vec::new();
        loop {
            if g.dues().first().is_some_and(|d| d.kind == DueKind::Toll) {
                found = Some(g);
                break 'seeds;
            }
            legal.clear();
            g.legal_actions(&mut legal);
            if legal.is_empty() {
                break;
            }
            g.apply(legal[rng.random_range(0..legal.len())]).unwrap();
        }
    }
    let g = found.expect("a toll owed in 200 deals");
    let o = g.observation(Seat(0));
    let stop = o.stop.expect("a toll is paid at a stop");
    assert_eq!(o.dues[0], Due::toll(o.dues[0].seat, o.dues[0].owed, stop));
    assert!(Journey::from_observation(&p, &o).is_ok());

    let mut no_card = o.clone();
    no_card.dues[0].card = None;
    assert_eq!(
        Journey::from_observation(&p, &no_card).unwrap_err(),
        "dues[0]: a toll due is for a card, and names none"
    );

    let mut cover = o.clone();
    cover.dues.push(Due { card: Some(stop), ..Due::cover(1, 4) });
    let e = Journey::from_observation(&p, &cover).unwrap_err();
    assert_eq!(e, format!("dues[{}]: a cover due is for no card, and names {stop}", o.dues.len()));

    // The old placeholder, through JSON: a cover naming 2♠ is refused, and one naming nothing
    // is read back as it was.
    let mut json = serde_json::to_value(&o).unwrap();
    json["dues"].as_array_mut().unwrap().push(serde_json::json!({"seat": 1, "kind": "cover", "owed": 4, "card": "2♠"}));
    let read: engine::journey::JourneyObservation = serde_json::from_value(json.clone()).unwrap();
    assert!(Journey::from_observation(&p, &read).unwrap_err().ends_with("a cover due is for no card, and names 2♠"));
    json["dues"].as_array_mut().unwrap().last_mut().unwrap()["card"] = Value::Null;
    let read: engine::journey::JourneyObservation = serde_json::from_value(json).unwrap();
    assert_eq!(read.dues.last(), Some(&Due::cover(1, 4)));
    assert_eq!(Journey::from_observation(&p, &read).unwrap().observation(Seat(0)), read);
}
