//! What the pages read of the contract's messages, as JSON: field for field what a gRPC client
//! would have, nothing more (a seat's state is built by the server from that seat's view alone).

use proto::v1;
use serde_json::{Value, json};

pub fn outcome(o: &v1::MatchOutcome) -> Value {
    json!({
        "scores": o.scores,
        "ranks": o.ranks,
        "cancelled": o.cancelled,
        "aborted": o.aborted,
        "team_score": o.team_score,
        "achieved": o.achieved,
        "forfeited_by": o.forfeited_by,
        "verdicts": o.verdicts.iter().map(|v| json!({
            "seat": v.seat, "kind": v.kind, "detail": v.detail, "policy": v.policy, "at_move": v.at_move,
        })).collect::<Vec<_>>(),
    })
}

/// A seat's state: its view as text and as the game's observation (what the page draws: the
/// seat's own view, read back from the typed message a gRPC client gets), the legal actions
/// with their labels and targets when it is to move, the time it has left, the outcome once
/// over.
pub fn seat_state(s: &v1::SeatState) -> Value {
    let observation = s
        .observation
        .as_ref()
        .and_then(|o| proto::convert::observation_from_proto(o).ok())
        .map(|(game, json, _)| json!({"game": game, "view": json}));
    json!({
        "observation": observation,
        "match_id": s.match_id,
        "seat": s.seat,
        "version": s.version,
        "to_move": s.to_move,
        "text": s.observation.as_ref().map(|o| o.text.as_str()).unwrap_or_default(),
        "legal": s.legal.iter().map(|l| json!({
            "id": l.id, "label": l.label, "section": l.rules_section, "target": l.target,
        })).collect::<Vec<_>>(),
        "time_left_ms": s.time_left_ms,
        "outcome": s.outcome.as_ref().map(outcome),
    })
}

/// A public event of a match (what Spectate streams).
pub fn event(e: &v1::MatchEvent) -> Value {
    use v1::match_event::Event;
    match &e.event {
        Some(Event::Started(s)) => json!({
            "kind": "started", "version": e.version, "game": s.game, "params_yaml": s.params_yaml, "seats": s.seats,
        }),
        Some(Event::Moved(m)) => json!({
            "kind": "moved", "version": e.version, "seat": m.seat, "action": m.action, "label": m.label,
            "to_move": m.to_move, "target": m.target,
        }),
        Some(Event::Ended(x)) => json!({
            "kind": "ended", "version": e.version, "outcome": x.outcome.as_ref().map(outcome),
        }),
        Some(Event::Table(t)) => {
            let observation = t.observation.as_ref();
            json!({
                "kind": "table", "version": e.version, "to_move": t.to_move,
                "observation": observation
                    .and_then(|o| proto::convert::observation_from_proto(o).ok())
                    .map(|(game, json, _)| json!({"game": game, "view": json})),
                "text": observation.map(|o| o.text.as_str()).unwrap_or_default(),
            })
        }
        None => json!({"kind": "unknown", "version": e.version}),
    }
}

/// A ladder's standings: every list with its rows and intervals.
pub fn standings(s: &v1::LadderStandings) -> Value {
    json!({
        "name": s.ladder,
        "games": s.games,
        "rated_games": s.rated_games,
        "in_play": s.in_play,
        "scheduled": s.scheduled,
        "provisional_games": s.provisional_games,
        "lists": s.lists.iter().map(|t| json!({
            "label": t.label,
            "rows": t.rows.iter().map(rating_row).collect::<Vec<_>>(),
            "total": t.total,
            "offset": t.offset,
            "provisional": t.provisional.iter().map(rating_row).collect::<Vec<_>>(),
            "provisional_total": t.provisional_total,
            "unrated": t.unrated.iter().map(|u| json!({
                "agent": u.agent, "reason": u.reason, "anchor": u.anchor, "connected": u.connected,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

fn rating_row(r: &v1::RatingRow) -> Value {
    json!({
        "rank": r.rank, "agent": r.agent, "rating": r.rating, "lower": r.lower, "upper": r.upper,
        "results": r.results, "score": r.score, "anchor": r.anchor, "connected": r.connected,
        "bound": r.bound, "qualifying": r.qualifying, "rested": r.rested, "person": r.person,
        // A rating that is only a bound is shown as the report shows it: "≥ +455.7".
        "bound_sign": reports::ratings::Bound::from_label(&r.bound).map(|b| b.sign()),
    })
}

/// The games a person may sit down to, with their presets and seat counts.
pub fn games(list: &v1::ListGamesResponse) -> Value {
    json!({
        "games": list.games.iter().map(|g| {
            let seats = g.params.iter().find(|p| p.name == g.seats_param);
            json!({
                "name": g.name,
                "summary": g.summary,
                "presets": g.presets,
                "default_preset": g.default_preset,
                "seats_param": g.seats_param,
                "seats_default": seats.map(|p| p.default_value.as_str()),
                "seats_by_preset": seats.map(|p| p.preset_values.clone()),
                "cooperative": g.cooperative,
            })
        }).collect::<Vec<_>>(),
        "move_time_ms": list.limits.as_ref().map(|l| l.default_move_time_ms),
        "max_move_time_ms": list.limits.as_ref().map(|l| l.max_move_time_ms),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rating_that_is_only_a_bound_carries_the_sign_the_report_puts_before_it() {
        let row = |bound: &str| rating_row(&v1::RatingRow { rating: 455.7, bound: bound.into(), ..Default::default() });
        assert_eq!(row("no losses")["bound_sign"], "≥");
        assert_eq!(row("no wins")["bound_sign"], "≤");
        assert_eq!(row("apart")["bound_sign"], "?");
        assert!(row("")["bound_sign"].is_null());
        assert_eq!(row("no wins")["bound"], "no wins");
    }
}
