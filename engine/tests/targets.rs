//! Every legal action's target (`action_target`: what a drawing offers it on) names a thing the
//! mover's own observation holds: the card in its satchel, the Discard or the Wreckage; the
//! column, face-up card or held tile it takes or completes; the tool it returns. So a page
//! drawing only that observation can put every action on the thing it acts on.

mod common;

use engine::core::Seat;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde_json::Value;

fn holds(list: &Value, card: &str) -> bool {
    list.as_array().is_some_and(|l| l.iter().any(|c| c == card))
}

/// Does the mover's observation `o` hold what `target` names?
fn located(game: &str, o: &Value, target: &str) -> bool {
    let (kind, which) = target.split_once(':').unwrap_or((target, ""));
    let me = o["seat"].as_u64().unwrap() as usize;
    match (game, kind) {
        ("journey", "satchel") => {
            o["travellers"].as_array().unwrap().iter().any(|t| t["seat"] == me as u64 && holds(&t["satchel"], which))
        }
        ("journey", "discard") => holds(&o["discard"], which),
        ("journey", "wreckage") => holds(&o["wreckage"], which),
        ("journey", "companion") => !o["companion"].is_null(),
        ("journey", "adversary") => !o["adversary"].is_null(),
        ("journey", "offer") => !o["offer"].is_null(),
        ("journey", "supply" | "pass" | "end-refuge" | "reckoning" | "deliverance") => true,
        ("expedition", "column") => which.parse::<usize>().is_ok_and(|c| c < o["hq"].as_array().unwrap().len()),
        ("expedition", "face-up") => {
            which.parse::<usize>().is_ok_and(|i| o["face_up"].as_array().unwrap().get(i).is_some_and(|c| !c.is_null()))
        }
        ("expedition", "tile") => o["seats"][me]["tiles"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["id"].as_u64().is_some_and(|i| i.to_string() == which)),
        ("expedition", "tool") => o["seats"][me]["tools"][which].as_u64().is_some_and(|n| n > 0),
        ("expedition", "die" | "deck" | "dice-card" | "end-turn") => true,
        _ => false,
    }
}

#[test]
fn every_legal_actions_target_is_in_the_movers_observation() {
    let mut checked = 0;
    for common::Case { game, name, spec } in common::every_case(4) {
        for seed in 0..4 {
            let mut g = spec.new_game(seed);
            let mut rng = SmallRng::seed_from_u64(seed);
            let mut legal = Vec::new();
            while let Some(mover) = g.to_move() {
                legal.clear();
                g.legal_actions(&mut legal);
                let o = g.observation_json(Seat(mover.0));
                for &a in &legal {
                    let target = g.action_target(a).unwrap();
                    assert!(
                        located(game, &o, &target),
                        "{name}, seed {seed}: `{}` targets `{target}`, which the mover's observation does not hold",
                        g.action_label(a)
                    );
                    checked += 1;
                }
                g.apply(legal[rng.random_range(0..legal.len())]).unwrap();
            }
        }
    }
    eprintln!("{checked} targets located");
}
