//! The tournament file: which games, which participants, how many games, which seed.
//!
//! ```yaml
//! name: my-tournament
//! seed: 1                   # the master seed: the whole schedule follows from it
//! games_per_pairing: 40     # deals per pairing (each played once per seat rotation)
//! concurrency: 0            # workers (0: one per core)
//! move_time_ms: 5000        # the per-move limit (0: none)
//! anchor: random            # optional: this participant is rated 0 (default: the mean is 0)
//! bootstrap: 1000           # resamples for the rating intervals
//! listen: 127.0.0.1:50051  # where external participants connect (default: any free port)
//! participants:
//!   - { name: random, bot: random }
//!   - { name: strong, bot: "mcts:iterations=2000,c=0.7" }
//!   - { name: mine, connect: true }        # a Play client that says Hello as `mine`
//!   - { name: py, command: "python3 examples/python/random_bot.py" }  # launched by the arena
//! games:
//!   - { game: journey, preset: classic, params: { travellers: 1 } }
//!   - { game: expedition, preset: no-dice, params: { players: 2 } }
//! ```
//!
//! A bad file is an error naming the line and the field, and nothing is played.

use engine::core::{AnySpec, ParamSource, describe_yaml_error};
use engine::find_game;
use serde::{Deserialize, Serialize};

/// The embedded default tournament (`arena tournament` with no file).
pub const DEFAULT: &str = include_str!("default.yaml");

/// A participant: a built-in agent, or an external one that plays over the Play stream —
/// connecting by itself, or launched by the arena. Exactly one of `bot`, `connect`, `command`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Participant {
    /// The name in the standings (unique); an external participant says Hello with it.
    pub name: String,
    /// A built-in agent: `random`, `rules`, `greedy`, `mcts:iterations=2000,c=0.7`.
    #[serde(default)]
    pub bot: Option<String>,
    /// An external agent that connects to the tournament's server by itself.
    #[serde(default)]
    pub connect: bool,
    /// An external agent the arena launches (`sh -c COMMAND`), with `ARENA_SERVER` (the
    /// server's `http://` address) and `ARENA_NAME` (the name to say Hello with) set.
    #[serde(default)]
    pub command: Option<String>,
}

impl Participant {
    /// Plays over the Play stream (connects, or is launched).
    pub fn is_external(&self) -> bool {
        self.bot.is_none()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameSpec {
    pub game: String,
    pub preset: Option<String>,
    /// Parameters over the preset (a mapping, as in a parameter file).
    #[serde(default)]
    pub params: serde_yaml::Mapping,
}

fn default_bootstrap() -> u32 {
    1000
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TournamentConfig {
    #[serde(default = "default_name")]
    pub name: String,
    #[serde(default)]
    pub seed: u64,
    pub games_per_pairing: u32,
    /// Worker threads; 0 means one per core.
    #[serde(default)]
    pub concurrency: usize,
    /// The per-move limit in milliseconds; 0 means none.
    #[serde(default)]
    pub move_time_ms: u64,
    /// A participant rated 0 (otherwise the mean rating is 0).
    #[serde(default)]
    pub anchor: Option<String>,
    #[serde(default = "default_bootstrap")]
    pub bootstrap: u32,
    /// Where the tournament's server listens for external participants (port 0: any).
    #[serde(default = "default_listen")]
    pub listen: String,
    /// How long to wait for every external participant to connect, in seconds.
    #[serde(default = "default_connect_timeout")]
    pub connect_timeout_s: u64,
    pub participants: Vec<Participant>,
    pub games: Vec<GameSpec>,
}

fn default_name() -> String {
    "tournament".into()
}

fn default_listen() -> String {
    "127.0.0.1:0".into()
}

fn default_connect_timeout() -> u64 {
    120
}

/// A game entry resolved: its spec, a label, whether it is cooperative.
pub struct ResolvedGame {
    pub spec: Box<dyn AnySpec>,
    pub label: String,
    pub cooperative: bool,
    pub seats: usize,
}

impl TournamentConfig {
    /// Read a tournament file; `source` names it in errors.
    pub fn parse(source: &str, text: &str) -> Result<TournamentConfig, String> {
        let de = serde_yaml::Deserializer::from_str(text);
        let config: TournamentConfig = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            format!("{source}: {}", describe_yaml_error(text, &path, &e.into_inner().to_string()))
        })?;
        config.check(source)?;
        Ok(config)
    }

    /// Checks across fields: names unique, agents valid, counts positive.
    fn check(&self, source: &str) -> Result<(), String> {
        if self.games_per_pairing == 0 {
            return Err(format!("{source}: field `games_per_pairing` must be at least 1"));
        }
        if self.participants.len() < 2 {
            return Err(format!("{source}: field `participants` needs at least two participants"));
        }
        if self.games.is_empty() {
            return Err(format!("{source}: field `games` names no game"));
        }
        for (i, p) in self.participants.iter().enumerate() {
            if p.name.trim().is_empty() {
                return Err(format!("{source}: field `participants[{i}].name` is empty"));
            }
            if self.participants[..i].iter().any(|q| q.name == p.name) {
                return Err(format!("{source}: field `participants[{i}].name`: `{}` is named twice", p.name));
            }
            let kinds = usize::from(p.bot.is_some()) + usize::from(p.connect) + usize::from(p.command.is_some());
            if kinds != 1 {
                return Err(format!(
                    "{source}: field `participants[{i}]` (`{}`): give exactly one of `bot`, `connect: true`, `command`",
                    p.name
                ));
            }
            if let Some(bot) = &p.bot {
                bots::BotSpec::parse(bot).map_err(|e| format!("{source}: field `participants[{i}].bot`: {e}"))?;
            }
        }
        if let Some(a) = &self.anchor
            && !self.participants.iter().any(|p| &p.name == a)
        {
            return Err(format!("{source}: field `anchor`: `{a}` is not a participant"));
        }
        self.listen.parse::<std::net::SocketAddr>().map_err(|e| format!("{source}: field `listen`: {e}"))?;
        Ok(())
    }

    /// Resolve every game entry (parameters checked, content loaded).
    pub fn resolve_games(&self, load: &dyn Fn(&str) -> Result<String, String>) -> Result<Vec<ResolvedGame>, String> {
        let mut out = Vec::new();
        for (i, g) in self.games.iter().enumerate() {
            let at = format!("games[{i}]");
            let entry = find_game(&g.game).map_err(|e| format!("{at}.game: {e}"))?;
            let mut sources = Vec::new();
            if !g.params.is_empty() {
                let text = serde_yaml::to_string(&g.params).map_err(|e| e.to_string())?;
                sources.push(ParamSource::Yaml { name: format!("{at}.params"), text });
            }
            let spec = (entry.spec)(g.preset.as_deref(), &sources, load).map_err(|e| format!("{at}: {e}"))?;
            let seats = spec.seats();
            if !entry.cooperative && seats > self.participants.len() {
                return Err(format!(
                    "{at}: {} for {seats} players needs at least {seats} participants (there are {})",
                    g.game,
                    self.participants.len()
                ));
            }
            for (k, p) in self.participants.iter().enumerate() {
                if let Some(bot) = &p.bot {
                    bots::agent(bot, spec.as_ref(), 0).map_err(|e| format!("participants[{k}].bot for {at}: {e}"))?;
                }
            }
            let preset = g.preset.clone().unwrap_or_else(|| entry.default_preset.to_string());
            let who = if entry.cooperative { "traveller" } else { "player" };
            let label = format!("{} {preset}, {seats} {who}{}", g.game, if seats == 1 { "" } else { "s" });
            out.push(ResolvedGame { spec, label, cooperative: entry.cooperative, seats });
        }
        Ok(out)
    }

    pub fn workers(&self) -> usize {
        if self.concurrency > 0 {
            self.concurrency
        } else {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_parses() {
        let c = TournamentConfig::parse("default", DEFAULT).unwrap();
        assert_eq!(c.participants.len(), 3);
        assert_eq!(c.games.len(), 3);
    }

    #[test]
    fn bad_files_name_the_line_and_field() {
        let e =
            TournamentConfig::parse("t.yaml", "games_per_pairing: many\nparticipants: []\ngames: []\n").unwrap_err();
        assert!(e.contains("t.yaml") && e.contains("games_per_pairing") && e.contains("line 1"), "{e}");
        let text = "games_per_pairing: 2\nparticipants:\n  - { name: a, bot: random }\n  - { name: b, bots: random }\ngames: []\n";
        let e = TournamentConfig::parse("t.yaml", text).unwrap_err();
        assert!(e.contains("participants[1]") && e.contains("bots") && e.contains("line 4"), "{e}");
        let text = "games_per_pairing: 2\nparticipants:\n  - { name: a, bot: random }\n  - { name: a, bot: mcts:depth=x }\ngames: [{game: journey}]\n";
        let e = TournamentConfig::parse("t.yaml", text).unwrap_err();
        assert!(e.contains("`a` is named twice"), "{e}");
        let text = "games_per_pairing: 2\nparticipants:\n  - { name: a, bot: random }\n  - { name: b, bot: \"mcts:depth=x\" }\ngames: [{game: journey}]\n";
        let e = TournamentConfig::parse("t.yaml", text).unwrap_err();
        assert!(e.contains("participants[1].bot") && e.contains("`depth`"), "{e}");
        let text = "games_per_pairing: 2\nanchor: c\nparticipants:\n  - { name: a, bot: random }\n  - { name: b, bot: random }\ngames: [{game: journey}]\n";
        assert!(TournamentConfig::parse("t.yaml", text).unwrap_err().contains("`anchor`"));
        let text = "games_per_pairing: 2\nparticipants:\n  - { name: a, bot: random, connect: true }\n  - { name: b, bot: random }\ngames: [{game: journey}]\n";
        assert!(TournamentConfig::parse("t.yaml", text).unwrap_err().contains("exactly one of"));
        let text = "games_per_pairing: 2\nparticipants:\n  - { name: a }\n  - { name: b, command: ./bot }\ngames: [{game: journey}]\n";
        assert!(TournamentConfig::parse("t.yaml", text).unwrap_err().contains("participants[0]"));
    }

    #[test]
    fn bad_games_are_named() {
        let base = "games_per_pairing: 2\nparticipants:\n  - { name: a, bot: random }\n  - { name: b, bot: random }\n";
        let c = TournamentConfig::parse("t", &format!("{base}games: [{{game: chess}}]\n")).unwrap();
        assert!(c.resolve_games(&|_| Err("no".into())).err().unwrap().contains("games[0].game"));
        let c = TournamentConfig::parse("t", &format!("{base}games: [{{game: journey, params: {{travellers: 9}}}}]\n"))
            .unwrap();
        let e = c.resolve_games(&|_| Err("no".into())).err().unwrap();
        assert!(e.contains("games[0]") && e.contains("travellers"), "{e}");
        let c = TournamentConfig::parse("t", &format!("{base}games: [{{game: expedition, params: {{players: 3}}}}]\n"))
            .unwrap();
        let e = c.resolve_games(&|_| Err("no".into())).err().unwrap();
        assert!(e.contains("needs at least 3 participants"), "{e}");
    }
}
