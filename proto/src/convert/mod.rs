//! Lossless conversions between the engine's observations and the typed messages of the
//! contract, both ways: `from_proto(to_proto(o)) == o` for every observation of either game.
//! One module per game; the helpers both use and the dispatch on the game are here.
//!
//! The mapping:
//! - a card is its text, `7♦`, `10♣`, `Joker` (what [`Card`](j::Card)'s `Display` writes; it reads back
//!   with `FromStr`), and an absent card (`Option<Card>` = `None`) the empty string;
//! - `Option` numbers and flags are proto3 `optional` fields; the Ruin or Shadow on offer,
//!   `Option<(Card, i16)>`, is `offer_card` (empty: none) with `offer_price`;
//! - Rust enums are proto enums, whose `*_UNSPECIFIED` value is refused when decoding — but for
//!   the expedition's `die` and `returning`, where `FACE_UNSPECIFIED` and
//!   `RETURNING_UNSPECIFIED` stand for `None` (no face shown, nothing to put back);
//! - the journey's [`Phase`](engine::journey::Phase) is the `JourneyPhase` oneof (a Take's suit
//!   as `"diamonds"`, `"clubs"`, … or `""` for none, what follows it as `"after_action"` or
//!   `"decide"`);
//! - an expedition seat's `cards: Option<Vec<_>>` is `cards_shown` with `cards`, a face-up space
//!   an optional card, and `final_scores: Option<Vec<_>>` is `over` with `final_scores`.
//!
//! Every message field the encoder always sets (the phase, tool counts, a score breakdown) is
//! required when decoding. Every decoding error names the field (a message in a list by its index)
//! and the value it refuses: ``journey.travellers[1].satchel: `X♦` is not a card …``.

mod expedition;
mod journey;

pub use expedition::{expedition_from_proto, expedition_to_proto};
pub use journey::{journey_from_proto, journey_to_proto, phase_from_proto, phase_to_proto};

use crate::v1;
use engine::core::Game;
use engine::expedition as x;
use engine::journey as j;
use serde::Deserialize;
use std::fmt::Display;

/// The name [`observation_to_proto`] and [`observation_from_proto`] know the journey by.
const JOURNEY: &str = <j::Journey as Game>::NAME;
/// The name they know the expedition by.
const EXPEDITION: &str = <x::Expedition as Game>::NAME;

// ----- shared helpers ------------------------------------------------------------------------

/// A number narrowed to the engine's type, or an error naming the field and the value.
fn num<T: TryFrom<S>, S: Copy + Display>(v: S, field: &str) -> Result<T, String> {
    T::try_from(v).map_err(|_| format!("{field}: {v} does not fit in a {}", std::any::type_name::<T>()))
}

/// An optional number narrowed to the engine's type.
fn opt_num<T: TryFrom<S>, S: Copy + Display>(v: Option<S>, field: &str) -> Result<Option<T>, String> {
    v.map(|v| num(v, field)).transpose()
}

/// Numbers narrowed to the engine's type, element by element.
fn nums<T: TryFrom<S>, S: Copy + Display>(v: &[S], field: &str) -> Result<Vec<T>, String> {
    v.iter().enumerate().map(|(i, &v)| num(v, &format!("{field}[{i}]"))).collect()
}

/// A message field the encoder always sets.
fn required<'a, T>(m: &'a Option<T>, field: &str) -> Result<&'a T, String> {
    m.as_ref().ok_or_else(|| format!("{field}: missing"))
}

/// A proto enum value: known, and (unless `map` accepts it) not UNSPECIFIED.
fn enum_value<E: TryFrom<i32>, R>(v: i32, field: &str, what: &str, map: impl Fn(E) -> Option<R>) -> Result<R, String> {
    let e = E::try_from(v).map_err(|_| format!("{field}: {v} names no {what}"))?;
    map(e).ok_or_else(|| format!("{field}: {v} (unspecified) names no {what}"))
}

// ----- any game ------------------------------------------------------------------------------

/// A seat's observation, for [`observation_to_proto`] to read as its game's own type: the
/// engine's JSON form of it (a `serde_json::Value`, as `AnyGame::observation_json(seat)`
/// writes it), or a caller's typed source (a seat's view of a game in process, read with no
/// JSON in between).
pub trait ObservationSource {
    /// The observation as game `G`'s, or why it is not one.
    fn read<G: Game>(&self) -> Result<G::Observation, String>;
}

impl ObservationSource for serde_json::Value {
    fn read<G: Game>(&self) -> Result<G::Observation, String> {
        G::Observation::deserialize(self).map_err(|e| e.to_string())
    }
}

/// The typed observation of any game — the one dispatch on the game for this direction —
/// with `text` the observation text: `game` is `"journey"` or `"expedition"`. The
/// observation is read as that game's own type, then converted; an error names the game and
/// what does not fit.
pub fn observation_to_proto(
    game: &str,
    observation: &impl ObservationSource,
    text: &str,
) -> Result<v1::Observation, String> {
    use v1::observation::Game as G;
    let typed = match game {
        JOURNEY => G::Journey(journey_to_proto(
            &observation.read::<j::Journey>().map_err(|e| format!("journey observation: {e}"))?,
        )),
        EXPEDITION => G::Expedition(expedition_to_proto(
            &observation.read::<x::Expedition>().map_err(|e| format!("expedition observation: {e}"))?,
        )),
        _ => return Err(format!("unknown game `{game}`: the typed observations are of {JOURNEY} and {EXPEDITION}")),
    };
    Ok(v1::Observation { text: text.to_string(), game: Some(typed) })
}

/// The engine's JSON form of a typed observation (to rebuild states from it on the bot's
/// side): the inverse of [`observation_to_proto`]; returns (game name, JSON, text).
pub fn observation_from_proto(o: &v1::Observation) -> Result<(&'static str, serde_json::Value, String), String> {
    use v1::observation::Game as G;
    let (game, json) = match &o.game {
        Some(G::Journey(j)) => (JOURNEY, serde_json::to_value(journey_from_proto(j)?)),
        Some(G::Expedition(x)) => (EXPEDITION, serde_json::to_value(expedition_from_proto(x)?)),
        None => return Err("observation.game: missing (journey or expedition)".into()),
    };
    Ok((game, json.map_err(|e| format!("{game} observation: {e}"))?, o.text.clone()))
}
