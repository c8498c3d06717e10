//! The conformance suite ([`engine::conformance`]) over every registered game, in every preset
//! and every seat count it accepts: what a new game gets checked for free.

mod common;

use engine::conformance::{Depth, Extra, Nothing, check_game};
use engine::core::{AnyGame, Seat};
use engine::games;

#[test]
fn every_game_preset_and_seat_count_passes_the_conformance_suite() {
    let specs = common::every_case(8);
    for entry in games() {
        assert!(specs.iter().any(|c| c.game == entry.name), "{} has no playable spec", entry.name);
    }
    let mut actions = 0;
    for common::Case { name, spec, .. } in &specs {
        for seed in 0..6 {
            let played = check_game(spec.as_ref(), seed * 7919 + 1, None, Depth::default(), &mut Nothing)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            actions += played.len();
        }
    }
    eprintln!("{} specs, {actions} actions checked", specs.len());
}

#[test]
fn the_suite_catches_a_game_that_breaks_its_contract() {
    // A hook stands for a broken observation: the suite must report it, naming where.
    let entry = &games()[0];
    let spec = (entry.spec)(None, &[], &|_| Err("no files".into())).unwrap();
    struct LosesACard(usize);
    impl Extra for LosesACard {
        fn view(&mut self, _: &dyn AnyGame, _: Seat, _: &serde_json::Value) -> Result<(), String> {
            self.0 += 1;
            if self.0 > 1 { Err("the wire lost a card".into()) } else { Ok(()) }
        }
    }
    let err = check_game(spec.as_ref(), 3, None, Depth::default(), &mut LosesACard(0)).unwrap_err();
    assert!(err.contains("the wire lost a card") && err.contains("seed 3") && err.contains("step"), "{err}");
}
