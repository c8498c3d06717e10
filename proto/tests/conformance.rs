//! The conformance suite ([`engine::conformance`]) over every registered game, preset and seat
//! count, with the contract's part added: every seat's observation at every state becomes the
//! typed message, crosses prost's encoding, and comes back as the same JSON and text.

use engine::conformance::{Depth, Extra, check_game};
use engine::core::{AnyGame, ParamSource, Seat};
use engine::games;
use prost::Message;
use proto::convert::{observation_from_proto, observation_to_proto};
use proto::v1;

struct OverTheWire {
    observations: usize,
}

impl Extra for OverTheWire {
    fn state(&mut self, g: &dyn AnyGame) -> Result<(), String> {
        for s in 0..g.seats() {
            let seat = Seat(s as u8);
            let (json, text) = (g.observation_json(seat), g.observation_text(seat));
            let typed = observation_to_proto(g.name(), &json, &text).map_err(|e| format!("seat {s}: to proto: {e}"))?;
            let decoded = v1::Observation::decode(typed.encode_to_vec().as_slice()).map_err(|e| e.to_string())?;
            if decoded != typed {
                return Err(format!("seat {s}: the message changed crossing the wire"));
            }
            let (game, json_back, text_back) =
                observation_from_proto(&decoded).map_err(|e| format!("seat {s}: {e}"))?;
            if game != g.name() || json_back != json || text_back != text {
                return Err(format!("seat {s}: the observation came back otherwise"));
            }
            self.observations += 1;
        }
        Ok(())
    }
}

#[test]
fn every_game_passes_the_conformance_suite_over_the_wire() {
    let mut wire = OverTheWire { observations: 0 };
    for entry in games() {
        let mut specs = 0;
        for preset in entry.presets {
            for seats in 1..=8 {
                let sources = [ParamSource::KeyValue { key: entry.seats_param.into(), value: seats.to_string() }];
                let Ok(spec) = (entry.spec)(Some(preset), &sources, &|_| Err("no files".into())) else { continue };
                specs += 1;
                for seed in 0..2 {
                    let depth = Depth { views_every: 25, ..Depth::default() };
                    check_game(spec.as_ref(), seed + 11, None, depth, &mut wire)
                        .unwrap_or_else(|e| panic!("{} {preset}, {seats} seats: {e}", entry.name));
                }
            }
        }
        assert!(specs > 0, "{} has no playable spec", entry.name);
    }
    assert!(wire.observations > 1000, "only {} observations", wire.observations);
}
