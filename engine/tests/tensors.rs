//! Observation tensors and the action space: every seat's tensor has its layout's length, is
//! built from the observation alone (a state that redraws the seat's hidden facts gives the
//! same tensor), every field is documented in the rules, and every legal id lies in the action
//! range and has a name.

use engine::core::{AnySpec, ParamSource, Seat, SmallRng, tensor_size};
use engine::find_game;
use rand::{RngExt, SeedableRng};

fn specs() -> Vec<Box<dyn AnySpec>> {
    let mut out = Vec::new();
    for (game, presets, seats) in [
        ("journey", vec!["classic", "martian", "dunwich"], "travellers"),
        ("expedition", vec!["dice", "no-dice"], "players"),
    ] {
        let entry = find_game(game).unwrap();
        let range = if game == "journey" { 1..=4 } else { 2..=4 };
        for preset in presets {
            for n in range.clone() {
                let src = [ParamSource::KeyValue { key: seats.into(), value: n.to_string() }];
                out.push((entry.spec)(Some(preset), &src, &|_| Err("no files".into())).unwrap());
            }
        }
    }
    out
}

#[test]
fn tensors_follow_the_layout_and_ignore_hidden_facts() {
    for spec in specs() {
        let layout = spec.tensor_layout();
        let size = tensor_size(&layout);
        let count = spec.action_count();
        let mut rng = SmallRng::seed_from_u64(7);
        for seed in 0..12 {
            let mut g = spec.new_game(seed);
            let mut legal = Vec::new();
            let mut step = 0;
            loop {
                for s in 0..g.seats() {
                    let seat = Seat(s as u8);
                    let t = g.observation_tensor(seat);
                    assert_eq!(t.len(), size, "{}: the layout's size", spec.game());
                    assert!(t.iter().all(|x| x.is_finite()), "{}: finite", spec.game());
                    if step % 5 == 0 {
                        let d = g.determinize(seat, &mut rng);
                        assert_eq!(d.observation_tensor(seat), t, "{}: hidden facts redrawn", spec.game());
                    }
                }
                legal.clear();
                g.legal_actions(&mut legal);
                if legal.is_empty() {
                    break;
                }
                for &a in &legal {
                    assert!(a < count, "{}: id {a} within the range {count}", spec.game());
                    assert!(spec.action_name(a).is_some(), "{}: id {a} has a name", spec.game());
                }
                g.apply(legal[rng.random_range(0..legal.len())]).unwrap();
                step += 1;
            }
        }
        assert!(spec.action_name(count).is_none(), "past the range, no action");
    }
}

#[test]
fn every_tensor_field_is_documented_with_the_rules() {
    for spec in specs() {
        let doc = std::fs::read_to_string(format!("{}/../docs/rules/{}.md", env!("CARGO_MANIFEST_DIR"), spec.game()))
            .unwrap();
        let section = doc.split("## Observation tensor").nth(1).expect("an Observation tensor section");
        for f in spec.tensor_layout() {
            assert!(section.contains(&format!("`{}`", f.name)), "{}: field `{}` is documented", spec.game(), f.name);
        }
    }
}

/// The object-safe rebuild (for callers outside Rust): a state rebuilt from a seat's
/// observation as JSON, its hidden facts redrawn, shows that seat the same observation and
/// legal actions; JSON of another game is refused by name.
#[test]
fn states_rebuilt_from_observation_json_look_the_same_to_the_seat() {
    for spec in specs() {
        let mut rng = SmallRng::seed_from_u64(11);
        let (mut legal, mut again) = (Vec::new(), Vec::new());
        for seed in 0..6 {
            let mut g = spec.new_game(seed);
            loop {
                legal.clear();
                g.legal_actions(&mut legal);
                for s in 0..g.seats() {
                    let seat = Seat(s as u8);
                    let seen = g.observation_json(seat);
                    let rebuilt = spec.state_from_observation(&seen).unwrap().redraw_hidden(seat, &mut rng);
                    assert_eq!(rebuilt.observation_json(seat), seen, "{}: the seat's observation", spec.game());
                    if g.to_move() == Some(seat) {
                        again.clear();
                        rebuilt.legal_actions(&mut again);
                        assert_eq!(again, legal, "{}: the legal actions", spec.game());
                    }
                }
                if legal.is_empty() {
                    break;
                }
                g.apply(legal[rng.random_range(0..legal.len())]).unwrap();
            }
        }
        let err = spec.state_from_observation(&serde_json::json!({ "nothing": 1 })).err().unwrap();
        assert!(err.contains(spec.game()), "{err}");
    }
}
