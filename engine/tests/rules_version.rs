//! Each game's rules version is pinned to a fingerprint of play: the legal actions at every
//! decision, the action taken and the outcome, over seeded random games in every preset, seat
//! count and module. A change to any rule changes the fingerprint, and this test then asks
//! for the version to be raised (so records made under the old rules are refused by name
//! rather than replayed into another game).

use engine::core::{AnySpec, ParamSource, SmallRng};
use engine::find_game;
use rand::{RngExt, SeedableRng};

/// Each game's rules version and the fingerprint of play under it.
const PINNED: &[(&str, u32, &str)] = &[("journey", 1, "c2da33fa4dcd16c2"), ("expedition", 1, "49d4bc450e0fdea0")];

/// The configurations played: every preset with every seat count, and the modules on. A game
/// the registry knows and this list does not is an error (see `every_game_is_pinned`), never
/// played as another.
fn configurations(game: &str) -> Vec<(&'static str, Vec<(&'static str, String)>)> {
    let mut out = Vec::new();
    match game {
        "journey" => {
            for preset in ["classic", "martian", "dunwich"] {
                for t in 1..=4 {
                    out.push((preset, vec![("travellers", t.to_string())]));
                }
                out.push((preset, vec![("allies", "true".into()), ("companions", "true".into())]));
            }
            // dunwich's way home is the shadows one; martian's ruins is a module.
            out.push(("martian", vec![("return_journey", "ruins".into()), ("travellers", "2".into())]));
        }
        "expedition" => {
            for preset in ["dice", "no-dice"] {
                for p in 2..=4 {
                    out.push((preset, vec![("players", p.to_string())]));
                }
                out.push((preset, vec![("characters", "in-order".into()), ("discovery_cards", "named".into())]));
            }
            out.push(("dice", vec![("forgotten_roll", "true".into()), ("players", "3".into())]));
        }
        other => panic!("no configurations to fingerprint {other} with: add its presets, seat counts and modules here"),
    }
    out
}

/// FNV-1a over a stream of words.
struct Fnv(u64);

impl Fnv {
    fn feed(&mut self, word: u64) {
        for b in word.to_le_bytes() {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

fn play(spec: &dyn AnySpec, seed: u64, h: &mut Fnv) {
    let mut g = spec.new_game(seed);
    let mut rng = SmallRng::seed_from_u64(seed ^ 0xf1f1);
    let mut legal = Vec::new();
    loop {
        legal.clear();
        g.legal_actions(&mut legal);
        if legal.is_empty() {
            break;
        }
        h.feed(legal.len() as u64);
        legal.iter().for_each(|&a| h.feed(u64::from(a)));
        let a = legal[rng.random_range(0..legal.len())];
        g.apply(a).unwrap();
    }
    let o = g.outcome().unwrap();
    o.scores.iter().for_each(|&s| h.feed(s as u64));
    o.ranks.iter().for_each(|&r| h.feed(u64::from(r)));
}

fn fingerprint(game: &str) -> String {
    let entry = find_game(game).unwrap();
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    for (preset, params) in configurations(game) {
        let sources: Vec<ParamSource> =
            params.iter().map(|(k, v)| ParamSource::KeyValue { key: k.to_string(), value: v.clone() }).collect();
        let spec = (entry.spec)(Some(preset), &sources, &|_| Err("no files".into())).unwrap();
        for seed in 0..40 {
            play(spec.as_ref(), seed, &mut h);
        }
    }
    format!("{:016x}", h.0)
}

#[test]
fn each_rules_version_is_pinned_to_its_fingerprint_of_play() {
    let mut wrong = Vec::new();
    for entry in engine::games() {
        let game = entry.name;
        let Some(&(_, pinned_version, pinned)) = PINNED.iter().find(|(name, _, _)| *name == game) else {
            wrong.push(format!("{game} has no pinned rules version: pin (\"{game}\", VERSION, FINGERPRINT) here"));
            continue;
        };
        let spec = (entry.spec)(None, &[], &|_| Err("no files".into())).unwrap();
        let version = spec.rules_version();
        let now = fingerprint(game);
        if version == pinned_version && now != pinned {
            wrong.push(format!(
                "the rules of {game} changed (fingerprint {now}, pinned {pinned} for version {version}): raise \
                 {game}'s RULES_VERSION to {} and pin (\"{game}\", {}, \"{now}\") here",
                version + 1,
                version + 1
            ));
        } else if version != pinned_version {
            wrong.push(format!("{game} plays rules version {version}: pin (\"{game}\", {version}, \"{now}\") here"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_game_is_pinned() {
    for g in engine::games() {
        assert!(PINNED.iter().any(|(name, _, _)| *name == g.name), "{} has no pinned rules version", g.name);
        // Every preset the game has is played.
        let played: Vec<&str> = configurations(g.name).iter().map(|(preset, _)| *preset).collect();
        for preset in g.presets {
            assert!(played.contains(preset), "{}: the preset {preset} is not fingerprinted", g.name);
        }
    }
    for (name, _, _) in PINNED {
        assert!(find_game(name).is_ok(), "{name} is pinned but no game of the registry");
    }
}

#[test]
#[should_panic(expected = "no configurations to fingerprint chess")]
fn a_game_without_configurations_is_an_error_not_another_game() {
    configurations("chess");
}
