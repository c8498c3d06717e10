//! Observation tensors and the action space: every seat's tensor has its layout's length, is
//! built from the observation alone (a state that redraws the seat's hidden facts gives the
//! same tensor), keeps to its fields' ranges, every field is documented in the rules, and every
//! legal id lies in the action range and has a name.

use engine::core::{AnyGame, AnySpec, ParamSource, Seat, SmallRng, tensor_bounds, tensor_size};
use engine::{find_game, games};
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

/// Parameter sets beyond the presets, as YAML over a preset: journey's optional modules in
/// each edition, its numbers at their far ends, and expedition's rules and content at theirs
/// (a small set of few tiles and no Dice card, tiles that need four of one tool).
const VARIANTS: &[(&str, &str, &str)] = &[
    ("journey", "classic", "companions: true\nallies: true"),
    ("journey", "martian", "companions: true\nallies: true\nreturn_journey: ruins"),
    ("journey", "dunwich", "companions: true\nallies: true\ncompanion_joins: first_only"),
    (
        "journey",
        "martian",
        "return_journey: ruins\nsatchel_limit: 20\nadversary_health_factor: 5\nnemesis_health: 200\n\
         nemesis_health_per_extra_traveller: 50\nnemesis_attack: 50\naces: ordinary\nace_rank: high",
    ),
    ("journey", "dunwich", "satchel_limit: 1\nadversary_scale: rank\nhide: nominate\nburden_riddance: flee_plus_one"),
    ("expedition", "dice", "forgotten_roll: true\nmax_rounds: 3\ndiscovery_cards: named\ncharacters: in-order"),
    ("expedition", "no-dice", "max_rounds: 1"),
    (
        "expedition",
        "no-dice",
        "max_rounds: 40\ncontent:\n  tiles:\n\
         \x20   - { name: Idol, kind: artifact, tools: [compass, compass, compass, compass] }\n\
         \x20   - { name: Temple, kind: place, tools: [rope, map, shovel] }\n\
         \x20   - { name: Falls, kind: place, tools: [map] }\n\
         \x20   - { name: Mask, kind: artifact, tools: [shovel, shovel] }\n\
         \x20   - { name: Caves, kind: place, tools: [compass, rope] }\n\
         \x20 characters:\n\
         \x20   - { name: Ada, favourite: compass }\n\
         \x20   - { name: Bruno, favourite: rope }\n\
         \x20   - { name: Chiara, favourite: map }\n\
         \x20   - { name: Dario, favourite: shovel }\n\
         \x20 missions:\n\
         \x20   - { name: One, discoveries: [Idol, Temple, Falls], coins: 3 }\n\
         \x20   - { name: Two, discoveries: [Temple, Falls, Mask], coins: 4 }\n\
         \x20   - { name: Three, discoveries: [Falls, Mask, Caves], coins: 5 }\n\
         \x20   - { name: Four, discoveries: [Idol, Mask, Caves], coins: 6 }\n\
         \x20 discovery_cards:\n\
         \x20   - { name: Map Fragment, tile: Idol }\n\
         \x20   - { name: Old Journal, tile: Caves }\n\
         \x20   - { name: Rubbing, tile: Temple }\n\
         \x20   - { name: Sketch, tile: Falls }\n",
    ),
];

/// Every game in every preset and every variant above, at every seat count it accepts, named
/// `game preset [variant] seats`.
fn every_parameter_set() -> Vec<(String, Box<dyn AnySpec>)> {
    let mut out = Vec::new();
    for entry in games() {
        let presets = entry.presets.iter().map(|&p| (p, ""));
        let variants = VARIANTS.iter().filter(|v| v.0 == entry.name).map(|&(_, p, yaml)| (p, yaml));
        for (preset, yaml) in presets.chain(variants) {
            for seats in 1..=4 {
                let mut sources =
                    vec![ParamSource::KeyValue { key: entry.seats_param.into(), value: seats.to_string() }];
                if !yaml.is_empty() {
                    sources.insert(0, ParamSource::Yaml { name: "variant.yaml".into(), text: yaml.into() });
                }
                // A seat count the game does not accept is refused by its parameters.
                if let Ok(spec) = (entry.spec)(Some(preset), &sources, &|_| Err("no files".into())) {
                    out.push((format!("{} {preset} [{}] {seats}", entry.name, yaml.replace('\n', " ")), spec));
                }
            }
        }
    }
    out
}

/// A journey at the end of its outbound journey: every refuge passed, every adversary banked
/// (the A♥ still to come where it is the last refuge), so that the way home, which random
/// play seldom reaches, is played with the most it can bank.
fn at_the_destination(spec: &dyn AnySpec, seed: u64) -> Box<dyn AnyGame> {
    let last_refuge = spec.params_yaml()["destination"].as_str() == Some("last_refuge");
    let journey = if last_refuge { "[AH]" } else { "[]" };
    let yaml = format!(
        "journey: {journey}\npassed: [2H, 3H, 4H, 5H, 6H, 7H, 8H, 9H, 10H, JH, QH, KH]\n\
         wreckage: [2S, 3S, 4S, 5S, 6S, 7S, 8S, 9S, 10S, JS, QS, KS, AS]\n"
    );
    spec.scenario(seed, &yaml).unwrap()
}

/// Every number of every seat's tensor, at every position of random games from many seeds
/// (in journey, also from its destination), lies in its field's range, in every parameter set
/// above; and no range is empty.
#[test]
fn tensors_keep_to_their_fields_ranges() {
    let sets = every_parameter_set();
    // journey: 3 presets and 5 variants, 1 to 4 travellers; expedition: 2 and 3, 2 to 4 players.
    assert_eq!(sets.len(), (3 + 5) * 4 + (2 + 3) * 3, "every parameter set is valid");
    let mut tensors = 0;
    for (name, spec) in &sets {
        let layout = spec.tensor_layout();
        let (low, high) = tensor_bounds(&layout);
        // The field of each number, for the messages.
        let field: Vec<&str> = layout.iter().flat_map(|f| std::iter::repeat_n(f.name, f.size)).collect();
        for f in &layout {
            assert!(f.low < f.high, "{name}: field `{}` has the empty range [{}, {}]", f.name, f.low, f.high);
        }
        let mut rng = SmallRng::seed_from_u64(5);
        let mut legal = Vec::new();
        let from_the_destination = spec.game() == "journey";
        let starts =
            (0..16).map(|seed| (seed, false)).chain((0..16).filter(|_| from_the_destination).map(|s| (s, true)));
        for (seed, at_destination) in starts {
            let mut g = if at_destination { at_the_destination(spec.as_ref(), seed) } else { spec.new_game(seed) };
            loop {
                for s in 0..g.seats() {
                    let t = g.observation_tensor(Seat(s as u8));
                    for (i, &x) in t.iter().enumerate() {
                        assert!(
                            low[i] <= x && x <= high[i],
                            "{name}, seed {seed} (from the destination: {at_destination}), seat {s}: field `{}` \
                             holds {x}, outside [{}, {}]",
                            field[i],
                            low[i],
                            high[i]
                        );
                    }
                    tensors += 1;
                }
                legal.clear();
                g.legal_actions(&mut legal);
                if legal.is_empty() {
                    break;
                }
                g.apply(legal[rng.random_range(0..legal.len())]).unwrap();
            }
        }
    }
    eprintln!("{} parameter sets, {tensors} tensors checked", sets.len());
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
