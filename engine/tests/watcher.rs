//! A watcher's view (`public_observation`, what a spectator is shown) is every seat's own view
//! with what only that seat sees taken out: in expedition, a seat's view less its held cards
//! (until the game is over, when everyone's are shown); in journey, where every traveller sees
//! the same, any traveller's view. Checked at every position of random games of every preset
//! and seat count.

mod common;

use engine::core::Seat;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};

/// Seat `s`'s view as a watcher would have it: no seat named, the seat's held cards hidden
/// unless the game is over.
fn as_watched(game: &str, mut o: Value) -> Value {
    let s = o["seat"].as_u64().unwrap() as usize;
    o["seat"] = json!(0);
    o["watcher"] = json!(true);
    if game == "expedition" && o["step"] != "over" {
        o["seats"][s]["cards"] = Value::Null;
    }
    o
}

#[test]
fn a_watchers_view_is_every_seats_view_less_what_only_it_sees() {
    let (mut positions, mut hidden_hands) = (0, 0);
    for common::Case { game, name, spec } in common::every_case(4) {
        for seed in 0..3 {
            let mut g = spec.new_game(seed);
            let mut rng = SmallRng::seed_from_u64(seed);
            let mut legal = Vec::new();
            loop {
                let public = g.public_observation_json();
                for s in 0..g.seats() {
                    let own = g.observation_json(Seat(s as u8));
                    assert_eq!(as_watched(game, own), public, "{name}, seed {seed}: seat {s}");
                }
                if game == "expedition" && !g.is_terminal() {
                    for p in public["seats"].as_array().unwrap() {
                        assert!(p["cards"].is_null(), "a held card shown to a watcher: {p}");
                        hidden_hands += 1;
                    }
                }
                let text = g.public_observation_text();
                assert!(!text.contains("(you)") && !text.contains("You are seat"), "{text}");
                positions += 1;
                if g.to_move().is_none() {
                    break;
                }
                legal.clear();
                g.legal_actions(&mut legal);
                g.apply(legal[rng.random_range(0..legal.len())]).unwrap();
            }
        }
    }
    assert!(positions > 1000 && hidden_hands > 1000, "{positions} positions, {hidden_hands} hands");
}
