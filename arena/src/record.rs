//! One record of a match, wherever it was played (`arena play --records`, a tournament's
//! `games.jsonl`, `arena serve --records`): the engine's [`Record`] — game, rules version,
//! every parameter, seed, scenario, actions — so it replays exactly, plus who sat where, how
//! it ended and the verdicts. Files hold one JSON record per line.

use crate::referee::{MatchOutcome, Verdict};
use engine::core::{AnyGame, Record, ReplayError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Where in a tournament a game was played.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TournamentGame {
    /// The game's id in the schedule.
    pub job: u64,
    /// The game entry of the tournament file, and its label.
    pub group: usize,
    pub label: String,
    /// The deal, counted within the game entry.
    pub deal: u32,
    /// The participant at each seat (its place in the file).
    pub seats: Vec<usize>,
    /// Time spent playing (agents and engine), in milliseconds.
    pub play_ms: f64,
}

/// A finished match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchRecord {
    /// The game as played: it replays from this alone.
    #[serde(flatten)]
    pub game: Record,
    /// Who sat at each seat: a participant's or an agent's name, `token`, a Play client's name.
    pub players: Vec<String>,
    pub outcome: MatchOutcome,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verdicts: Vec<Verdict>,
    /// The game's own figures (e.g. `arrived`), when it was played out.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metrics: BTreeMap<String, f64>,
    /// The time each decision took, in milliseconds (agents of the arena's own process).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub move_ms: Vec<f32>,
    /// The server's match id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_id: Option<String>,
    /// Its place in a tournament.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<TournamentGame>,
}

impl MatchRecord {
    /// The record with every timing zeroed (timings differ from run to run).
    pub fn without_timings(&self) -> MatchRecord {
        let mut r = self.clone();
        r.move_ms.iter_mut().for_each(|t| *t = 0.0);
        if let Some(t) = &mut r.tournament {
            t.play_ms = 0.0;
        }
        r
    }

    /// Who sat at `seat`, as a page names it: the record's name, but a server match's token
    /// seat (the record's `token`, no name of anyone's) is "a person", as the match page and
    /// the web face's new match call it.
    pub fn player_name(&self, seat: usize) -> &str {
        match self.players.get(seat).map(String::as_str) {
            Some("token") if self.tournament.is_none() => "a person",
            Some(name) => name,
            None => "?",
        }
    }

    /// Its tournament place (a record of a tournament's log always has one).
    pub fn place(&self) -> &TournamentGame {
        self.tournament.as_ref().expect("a tournament's record")
    }

    /// One JSON line.
    pub fn to_line(&self) -> Result<String, String> {
        let mut line = serde_json::to_string(self).map_err(|e| e.to_string())?;
        line.push('\n');
        Ok(line)
    }

    /// Replay it; `visit` sees the state before every action and the final state. The
    /// replay must end as the record says (the same outcome when it was played out).
    pub fn replay(
        &self,
        load: &dyn Fn(&str) -> Result<String, String>,
        visit: impl FnMut(&dyn AnyGame),
    ) -> Result<Box<dyn AnyGame>, String> {
        let g = self.game.replay(load, visit).map_err(|e| match e {
            ReplayError::Action { .. } => format!("{e} (the record does not replay)"),
            e => e.to_string(),
        })?;
        if self.outcome.forfeited_by.is_none() && !self.outcome.cancelled {
            let replayed = g.outcome().ok_or("the actions stop before the end, and no verdict ended the game")?;
            if replayed != self.outcome.result {
                return Err(format!(
                    "the replay ends with scores {:?} and ranks {:?}, the record says {:?} and {:?}",
                    replayed.scores, replayed.ranks, self.outcome.result.scores, self.outcome.result.ranks
                ));
            }
        }
        Ok(g)
    }
}

/// Records read from a file, and whether its last line was cut short (a writer killed
/// mid-line).
pub struct Records {
    pub records: Vec<MatchRecord>,
    pub truncated: bool,
    /// When `truncated`: the line left out and why it is not a record (`line 3: not JSON …`).
    pub left_out: Option<String>,
}

/// Read a records file, one JSON record per line. A last line that does not parse was cut
/// short (dropped); any other line that does not parse is an error naming it and what it
/// lacks. A file that does not exist holds no records (a log not begun).
pub fn read(path: &Path) -> Result<Records, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Records { records: vec![], truncated: false, left_out: None });
        }
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    parse(&path.display().to_string(), &text)
}

/// [`read`] on a text already read; `name` names it in errors.
pub fn parse(name: &str, text: &str) -> Result<Records, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut records = Vec::new();
    let mut left_out = None;
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<MatchRecord>(line) {
            Ok(r) => records.push(r),
            Err(e) if i + 1 == lines.len() && !line.ends_with('}') => {
                left_out = Some(format!("line {}: {}", i + 1, not_a_record(line, &e, records.is_empty())));
            }
            Err(e) => return Err(format!("{name} line {}: {}", i + 1, not_a_record(line, &e, records.is_empty()))),
        }
    }
    Ok(Records { records, truncated: left_out.is_some(), left_out })
}

/// Why a line is not a record, in a few words: what the JSON reader says, and how the line
/// begins (a short prefix only: a line may be long, and need not be text at all). `first`:
/// no line before it was a record.
fn not_a_record(line: &str, e: &serde_json::Error, first: bool) -> String {
    // serde_json places its error in the line it was given: the column is what tells.
    let plain = |e: &serde_json::Error| {
        let text = e.to_string();
        let place = format!(" at line {} column {}", e.line(), e.column());
        match text.strip_suffix(&place) {
            Some(what) => format!("{what} at column {}", e.column()),
            None => text,
        }
    };
    const SHOWN: usize = 40;
    let begins = match line.char_indices().nth(SHOWN) {
        Some((k, _)) => format!("{:?}…", &line[..k]),
        None => format!("{line:?}"),
    };
    match serde_json::from_str::<serde_json::Value>(line) {
        Err(json) if first => format!(
            "not a records file: each line holds one match as JSON, and this one is not JSON ({}; it begins {begins})",
            plain(&json)
        ),
        Err(json) => format!("not JSON ({}; it begins {begins})", plain(&json)),
        Ok(v) if v.get("moves").is_some() || (v.get("game").is_some() && v.get("rules_version").is_none()) => {
            "a record written before records carried a rules version: it cannot be replayed".into()
        }
        Ok(_) => format!("not a match record: {}", plain(e)),
    }
}

/// The game of a record as a page to step through: each position with every seat's view.
pub fn game_view(r: &MatchRecord, title: &str) -> Result<reports::viewer::GameView, String> {
    let mut steps = Vec::new();
    let mut next = 0;
    let g = r.replay(&crate::files::refuse_files, |g| {
        let views = (0..g.seats()).map(|s| g.observation_text(engine::core::Seat(s as u8))).collect();
        let observations = (0..g.seats()).map(|s| g.observation_json(engine::core::Seat(s as u8))).collect();
        let (label, target) = match (g.to_move(), r.game.actions.get(next)) {
            (Some(_), Some(&a)) => (g.action_label(a), g.action_target(a).unwrap_or_default()),
            _ => (String::new(), String::new()),
        };
        steps.push(reports::viewer::Step { mover: g.to_move().map(|s| s.index()), label, target, views, observations });
        next += 1;
    })?;
    if let Some(last) = steps.last_mut() {
        last.mover = g.to_move().filter(|_| r.outcome.forfeited_by.is_none()).map(|s| s.index());
    }
    let o = &r.outcome;
    let mut result = format!("scores {:?}, ranks {:?}", o.result.scores, o.result.ranks);
    if !o.result.achieved.is_empty() {
        result += &format!(" — {}", o.result.achieved.join(", "));
    }
    let players: Vec<String> = (0..r.players.len()).map(|s| r.player_name(s).to_string()).collect();
    for v in &r.verdicts {
        let who = players.get(v.seat).map(String::as_str).unwrap_or("?");
        result += &format!("; {who} (seat {}) {} ({}): {}", v.seat, v.kind.name(), v.policy.name(), v.detail);
    }
    let params = engine::core::params_to_yaml(&r.game.params).unwrap_or_default().trim().replace('\n', ", ");
    Ok(reports::viewer::GameView {
        game: r.game.game.clone(),
        title: title.to_string(),
        subtitle: format!("{} (rules version {}), seed {}: {params}", r.game.game, r.game.rules_version, r.game.seed),
        players,
        steps,
        result,
    })
}
