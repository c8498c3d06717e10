//! Observation tensors and the action space: every seat's tensor has its layout's length, is
//! built from the observation alone (a state that redraws the seat's hidden facts gives the
//! same tensor), every field is documented in the rules, and every legal id lies in the action
//! range and has a name.

use engine::core::{AnySpec, ParamSource, Seat, SmallRng, tensor_size};
use engine::find_game;
use rand::{RngExt, SeedableRng};

fn specs() -> Vec<Box<dyn AnySpec>> {
    configurations().into_iter().map(|(_, spec)| spec).collect()
}

/// Every game, preset and seat count, named `game preset seats`.
fn configurations() -> Vec<(String, Box<dyn AnySpec>)> {
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
                let spec = (entry.spec)(Some(preset), &src, &|_| Err("no files".into())).unwrap();
                out.push((format!("{game} {preset} {n}"), spec));
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

/// The numbers themselves, pinned (as OpenSpiel's playthroughs pin them): every seat's tensor at
/// every position of random games of each configuration, hashed. A model trained on these
/// tensors reads them again: a change to how a tensor is written (to speed it, say) must leave
/// every number as it was, and a change meant to move them updates these hashes, the rules'
/// documentation and the rules version together.
#[test]
fn tensors_are_the_numbers_they_were() {
    let mut seen = Vec::new();
    for (name, spec) in configurations() {
        let mut rng = SmallRng::seed_from_u64(3);
        // FNV-1a over every number's bits.
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let mut legal = Vec::new();
        for seed in 0..4 {
            let mut g = spec.new_game(seed);
            loop {
                for s in 0..g.seats() {
                    for x in g.observation_tensor(Seat(s as u8)) {
                        for b in x.to_bits().to_le_bytes() {
                            hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
                        }
                    }
                }
                legal.clear();
                g.legal_actions(&mut legal);
                if legal.is_empty() {
                    break;
                }
                g.apply(legal[rng.random_range(0..legal.len())]).unwrap();
            }
        }
        seen.push(format!("{name} {hash:016x}"));
    }
    let pinned = [
        "journey classic 1 75515e2a285672b0",
        "journey classic 2 ffba216901142a49",
        "journey classic 3 e9286729c1436e24",
        "journey classic 4 d39a3a3ef210477d",
        "journey martian 1 fced8a4df6ed2c9e",
        "journey martian 2 3b4d283d80597079",
        "journey martian 3 0617745e62d9d795",
        "journey martian 4 0eaa877b7ed0858d",
        "journey dunwich 1 67c05c5151ee58c3",
        "journey dunwich 2 72a49cc9209a7b5d",
        "journey dunwich 3 2a890d0b4bf878a0",
        "journey dunwich 4 721721674e54964d",
        "expedition dice 2 2cdde40dc7d5f52d",
        "expedition dice 3 53c17f1bc4a30e06",
        "expedition dice 4 c483c91a04b9d5a0",
        "expedition no-dice 2 31699da0e613dc38",
        "expedition no-dice 3 04ce47ae8130484c",
        "expedition no-dice 4 c5dd5ddff0e260e1",
    ];
    assert_eq!(seen, pinned, "the tensors changed (the new hashes are on the left)");
}
