//! The tournament file: which games, which participants, how many games, which seed.
//!
//! ```yaml
//! name: my-tournament
//! seed: 1                   # the master seed: the whole schedule follows from it
//! games_per_pairing: 40     # deals per pairing (each played once per seat rotation)
//! concurrency: 0            # workers (0: one per CPU, or per `--cpus N` granted)
//! move_time_ms: 5000        # the per-move limit (0: none)
//! anchor: random            # optional: this participant is rated 0 (default: the mean is 0)
//! bootstrap: 1000           # resamples for the rating intervals
//! gauntlet: strong          # optional: only the pairings of this participant (or a list)
//! seats: rotations          # 3-4 player tables: `rotations` of each set, or `all` orders
//! clock: { base_ms: 60000, increment_ms: 500 }   # optional: a game clock per seat
//! sprt: "elo0=0,elo1=10"    # with a gauntlet: each pairing stops once this test decides
//! until_error_elo: 20       # optional: games to the widest intervals, until all are ±20 Elo
//! listen: 127.0.0.1:50051  # where external participants connect (default: any free port)
//! participants:
//!   - { name: random, bot: random }
//!   - { name: strong, bot: "mcts:iterations=2000,c=0.7", move_time_ms: 2000 }
//!   - { name: mine, connect: true }        # a Play client that says Hello as `mine`
//!   - { name: py, command: "python3 examples/python/random_bot.py" }  # launched by the arena
//! games:
//!   - { game: journey, preset: classic, params: { travellers: 1 } }
//!   - { game: expedition, preset: no-dice, params: { players: 2 } }
//!   - { game: journey, deals: my-deals.yaml }  # these deals (seeds or positions), no others
//! ```
//!
//! A bad file is an error naming the line and the field, and nothing is played.

use engine::core::yaml::check_file;
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
    /// server's `http://` address) and `ARENA_NAME` (the name to say Hello with) set, and no
    /// secret of the arena's in its environment. It runs as the operator's user: it can read
    /// whatever the operator can (the run's directory with its deal secret among them) unless
    /// `sandbox` runs it as someone else.
    #[serde(default)]
    pub command: Option<String>,
    /// A command the `command` runs under, words split as a shell would: `sudo -u agent`,
    /// `bwrap --ro-bind / / --tmpfs /home …`, `systemd-run --user --pipe …`. It is given the
    /// command as `sh -c COMMAND` after its own words.
    #[serde(default)]
    pub sandbox: Option<String>,
    /// Its own per-move limit in milliseconds, instead of the tournament's.
    #[serde(default)]
    pub move_time_ms: Option<u64>,
    /// Its own game clock, instead of the tournament's.
    #[serde(default)]
    pub clock: Option<ClockSpec>,
}

/// A game clock: each seat has `base_ms` for the whole game, and gains `increment_ms` after
/// each of its moves (Fischer); running out is a timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockSpec {
    pub base_ms: u64,
    #[serde(default)]
    pub increment_ms: u64,
}

/// Which seat orders a table of 3–4 plays each deal in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SeatOrders {
    /// The rotations of each set of participants (n orders for n seats).
    #[default]
    Rotations,
    /// Every order (n! for n seats).
    All,
}

/// One name or a list of them.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
    })
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
    /// A file of deals every pairing plays, instead of `games_per_pairing` drawn ones: a YAML
    /// list whose items are seeds (`17`), positions (a scenario mapping), or both
    /// (`{ seed: 17, scenario: { ... } }`).
    #[serde(default)]
    pub deals: Option<String>,
}

/// One deal of a deals file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Deal {
    /// The seed; absent: drawn from the tournament's seed as usual.
    pub seed: Option<u64>,
    /// The position it starts from (YAML), if not a fresh deal.
    pub scenario: Option<String>,
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
    /// Only the pairings of these participants are played (a gauntlet).
    #[serde(default, deserialize_with = "one_or_many")]
    pub gauntlet: Vec<String>,
    /// Seat orders of 3–4 player tables.
    #[serde(default)]
    pub seats: SeatOrders,
    /// A game clock for every seat (besides any per-move limit).
    #[serde(default)]
    pub clock: Option<ClockSpec>,
    /// With a gauntlet: each of its pairings stops once this sequential test decides
    /// (`elo0=0,elo1=10,alpha=0.05,beta=0.05`).
    #[serde(default)]
    pub sprt: Option<String>,
    /// Send games to the participants whose overall 95% intervals are wider than ± this many
    /// Elo, and stop once none is (see `stopping`).
    #[serde(default)]
    pub until_error_elo: Option<f64>,
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

/// A game entry resolved: its spec, a label, whether it is cooperative, its deals if a file
/// gives them.
pub struct ResolvedGame {
    pub spec: Box<dyn AnySpec>,
    pub label: String,
    pub cooperative: bool,
    pub seats: usize,
    pub deals: Option<Vec<Deal>>,
}

impl TournamentConfig {
    /// Read a tournament file; `source` names it in errors.
    pub fn parse(source: &str, text: &str) -> Result<TournamentConfig, String> {
        check_file(text).map_err(|e| format!("{source}: {e}"))?;
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
            if let Some(sandbox) = &p.sandbox {
                if p.command.is_none() {
                    return Err(format!(
                        "{source}: field `participants[{i}].sandbox`: only a `command` runs in a sandbox"
                    ));
                }
                if shlex::split(sandbox).is_none_or(|w| w.is_empty()) {
                    return Err(format!(
                        "{source}: field `participants[{i}].sandbox`: not a command (its quotes do not close, or it \
                         is empty)"
                    ));
                }
            }
            if p.command.is_some() || p.connect {
                crate::server::names::check(&p.name).map_err(|e| {
                    format!("{source}: field `participants[{i}].name`: an external participant's Play name: {e}")
                })?;
            }
        }
        if let Some(a) = &self.anchor
            && !self.participants.iter().any(|p| &p.name == a)
        {
            return Err(format!("{source}: field `anchor`: `{a}` is not a participant"));
        }
        for g in &self.gauntlet {
            if !self.participants.iter().any(|p| &p.name == g) {
                return Err(format!("{source}: field `gauntlet`: `{g}` is not a participant"));
            }
        }
        if !self.gauntlet.is_empty() && self.gauntlet.len() == self.participants.len() {
            return Err(format!("{source}: field `gauntlet` names every participant: leave it out for a round robin"));
        }
        if let Some(sprt) = &self.sprt {
            if self.gauntlet.is_empty() {
                return Err(format!("{source}: field `sprt` tests a gauntlet's pairings: name the `gauntlet` too"));
            }
            reports::sprt::SprtSpec::parse(sprt).map_err(|e| format!("{source}: field `sprt`: {e}"))?;
        }
        if self.until_error_elo.is_some_and(|x| x.is_nan() || x <= 0.0) {
            return Err(format!("{source}: field `until_error_elo` is a positive number of Elo"));
        }
        let clocks = self.participants.iter().filter_map(|p| p.clock.as_ref()).chain(self.clock.as_ref());
        for c in clocks {
            if c.base_ms == 0 {
                return Err(format!("{source}: a `clock` needs a `base_ms` above 0"));
            }
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
            let deals = match &g.deals {
                Some(path) => {
                    let text = load(path).map_err(|e| format!("{at}.deals: {e}"))?;
                    let deals = read_deals(path, &text)?;
                    for (k, d) in deals.iter().enumerate() {
                        if let Some(yaml) = &d.scenario {
                            spec.scenario(d.seed.unwrap_or(0), yaml)
                                .map_err(|e| format!("{at}.deals: {path}: deal {k}: {e}"))?;
                        }
                    }
                    Some(deals)
                }
                None => None,
            };
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
            out.push(ResolvedGame { spec, label, cooperative: entry.cooperative, seats, deals });
        }
        Ok(out)
    }

    /// Each participant's time control: its own limit and clock, else the tournament's.
    pub fn time_controls(&self) -> Vec<crate::referee::TimeControl> {
        let clock = |c: &ClockSpec| crate::referee::Clock {
            base: std::time::Duration::from_millis(c.base_ms),
            increment: std::time::Duration::from_millis(c.increment_ms),
        };
        self.participants
            .iter()
            .map(|p| crate::referee::TimeControl {
                per_move: crate::referee::limit_ms(p.move_time_ms.unwrap_or(self.move_time_ms)),
                clock: p.clock.as_ref().or(self.clock.as_ref()).map(clock),
            })
            .collect()
    }

    /// The index of every gauntlet participant.
    pub fn gauntlet_indices(&self) -> Vec<usize> {
        self.gauntlet.iter().filter_map(|g| self.participants.iter().position(|p| &p.name == g)).collect()
    }

    /// The worker count: the file's `concurrency`, else `cpus` (the CPUs a scheduler granted),
    /// else one per core this process may run on.
    pub fn workers(&self, cpus: Option<usize>) -> usize {
        if self.concurrency > 0 {
            self.concurrency
        } else {
            cpus.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        }
    }
}

/// A tournament file's text with fields set from the command line: each `KEY=VALUE`, where
/// KEY is a field's path (`games_per_pairing`, `participants[1].bot`, `games[0].params.players`)
/// and VALUE is read as YAML. Without overrides the text is returned as it is (so errors keep
/// their line numbers).
pub fn apply_overrides(source: &str, text: &str, overrides: &[String]) -> Result<String, String> {
    if overrides.is_empty() {
        return Ok(text.to_string());
    }
    check_file(text).map_err(|e| format!("{source}: {e}"))?;
    let mut doc: serde_yaml::Value = serde_yaml::from_str(text).map_err(|e| format!("{source}: {e}"))?;
    for o in overrides {
        let bad = |why: &str| format!("--set {o}: {why}");
        let (key, value) = o.split_once('=').ok_or_else(|| bad("expected KEY=VALUE"))?;
        let value: serde_yaml::Value = serde_yaml::from_str(value).map_err(|e| bad(&format!("the value: {e}")))?;
        let mut at = &mut doc;
        let steps: Vec<&str> = key.trim().split('.').collect();
        for (i, step) in steps.iter().enumerate() {
            let (name, index) = match step.split_once('[') {
                Some((n, rest)) => {
                    let k = rest.strip_suffix(']').and_then(|k| k.parse::<usize>().ok());
                    (n, Some(k.ok_or_else(|| bad(&format!("`{step}`: an index is written [N]")))?))
                }
                None => (*step, None),
            };
            let map = at
                .as_mapping_mut()
                .ok_or_else(|| bad(&format!("`{name}` is inside something that is not a mapping")))?;
            let last = i + 1 == steps.len() && index.is_none();
            let key = serde_yaml::Value::String(name.to_string());
            if last {
                map.insert(key, value.clone());
                break;
            }
            if !map.contains_key(&key) {
                map.insert(key.clone(), serde_yaml::Value::Mapping(Default::default()));
            }
            at = map.get_mut(&key).expect("just inserted");
            if let Some(k) = index {
                let list = at.as_sequence_mut().ok_or_else(|| bad(&format!("`{name}` is not a list")))?;
                let len = list.len();
                at = list.get_mut(k).ok_or_else(|| bad(&format!("`{name}` has {len} items, not [{k}]")))?;
                if i + 1 == steps.len() {
                    *at = value.clone();
                }
            }
        }
    }
    serde_yaml::to_string(&doc).map_err(|e| e.to_string())
}

/// Read a deals file: a YAML list of seeds, positions, or `{ seed, scenario }`.
pub fn read_deals(path: &str, text: &str) -> Result<Vec<Deal>, String> {
    check_file(text).map_err(|e| format!("deals file {path}: {e}"))?;
    let items: Vec<serde_yaml::Value> =
        serde_yaml::from_str(text).map_err(|e| format!("deals file {path}: a YAML list of deals: {e}"))?;
    if items.is_empty() {
        return Err(format!("deals file {path}: no deals"));
    }
    let scenario = |v: &serde_yaml::Value| serde_yaml::to_string(v).map_err(|e| e.to_string());
    items
        .iter()
        .enumerate()
        .map(|(k, item)| match item {
            serde_yaml::Value::Number(n) => match n.as_u64() {
                Some(seed) => Ok(Deal { seed: Some(seed), scenario: None }),
                None => Err(format!("deals file {path}: deal {k}: a seed is a whole number ≥ 0")),
            },
            serde_yaml::Value::Mapping(m)
                if m.keys().all(|k| k.as_str() == Some("seed") || k.as_str() == Some("scenario")) =>
            {
                let seed = match m.get("seed") {
                    Some(v) => Some(
                        v.as_u64().ok_or_else(|| format!("deals file {path}: deal {k}: `seed` is a whole number"))?,
                    ),
                    None => None,
                };
                let scenario = m.get("scenario").map(scenario).transpose()?;
                Ok(Deal { seed, scenario })
            }
            serde_yaml::Value::Mapping(_) => Ok(Deal { seed: None, scenario: Some(scenario(item)?) }),
            _ => Err(format!("deals file {path}: deal {k}: a seed, a position, or {{ seed, scenario }}")),
        })
        .collect()
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
