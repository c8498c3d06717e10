//! What several of the engine's test files share.

use engine::core::{AnySpec, ParamSource};
use engine::games;

/// One registered game in one preset at one seat count it accepts.
pub struct Case {
    /// The game's name.
    pub game: &'static str,
    /// "GAME PRESET with N seats", for messages.
    pub name: String,
    pub spec: Box<dyn AnySpec>,
}

/// Every registered game, in every preset, at every seat count from 1 to `max_seats` its
/// parameters accept (a count they refuse is left out).
pub fn every_case(max_seats: usize) -> Vec<Case> {
    let mut cases = Vec::new();
    for entry in games() {
        for preset in entry.presets {
            for seats in 1..=max_seats {
                let sources = [ParamSource::KeyValue { key: entry.seats_param.into(), value: seats.to_string() }];
                if let Ok(spec) = (entry.spec)(Some(preset), &sources, &|_| Err("no files".into())) {
                    cases.push(Case {
                        game: entry.name,
                        name: format!("{} {preset} with {seats} seats", entry.name),
                        spec,
                    });
                }
            }
        }
    }
    cases
}
