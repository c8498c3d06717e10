//! The tournament file: which games, which participants, how many games, which seed.
//!
//! ```yaml
//! name: my-tournament
//! seed: 1                   # the master seed: the whole schedule follows from it
//! games_per_pairing: 40     # deals per pairing (each played once per seat rotation)
//! concurrency: 0            # workers (0: one per CPU, or per `--cpus N` granted)
//! move_time_ms: 5000        # the per-move limit (0: none)
//! idle_ms: 300000           # an external participant silent this long, with no other limit, loses
//! anchor: random            # optional: this participant is rated 0 (default: the mean is 0)
//! bootstrap: 1000           # resamples for the rating intervals
//! gauntlet: strong          # optional: only the pairings of this participant (or a list)
//! seats: rotations          # 3-4 player tables: `rotations` of each set, or `all` orders
//! clock: { base_ms: 60000, increment_ms: 500 }   # optional: a game clock per seat
//! bank: { base_ms: 10000, increment_ms: 100 }    # optional: an overage bank beside move_time_ms
//! sprt: "elo0=0,elo1=10"    # with a gauntlet: each pairing stops once this test decides
//! until_error_elo: 20       # optional: games to the widest intervals, until all are ±20 Elo
//! listen: 127.0.0.1:50051  # where external participants connect (default: any free port)
//! isolation: bwrap          # launched participants in a sandbox (default), or `none`
//! limits: { cpus: 1, memory: 1GiB, pids: 64 }  # each launched participant's cgroup, or `none`
//! participants:
//!   - { name: random, bot: random }
//!   - { name: strong, bot: "mcts:iterations=2000,c=0.7", move_time_ms: 2000 }
//!   - { name: mine, connect: true }        # a Play client that says Hello as `mine`
//!   - { name: py, command: "python3 examples/python/random_bot.py" }  # launched by the arena
//!   - { name: logs, command: "./my_bot --log logs/", writable: [logs] }  # may write in logs/
//!   - { name: np, command: "python3 np_bot.py", env: { OMP_NUM_THREADS: "1" } }  # its variables
//! games:
//!   - { game: journey, preset: classic, params: { travellers: 1 } }
//!   - { game: expedition, preset: no-dice, params: { players: 2 } }
//!   - { game: journey, deals: my-deals.yaml }  # these deals (seeds or positions), no others
//! ```
//!
//! A `deals:` path is read from the folder of the file that names it (one given by `--set`,
//! from the working directory).
//!
//! A bad file is an error naming the file, the line and the field, and nothing is played:
//! ``t.yaml line 8: field `participants[2].bot`: unknown agent `mtcs`; …``. A mistake an
//! override of the command line makes names the override instead:
//! ``--set games_per_pairng=3: unknown field `games_per_pairng`, expected one of …``.

use engine::core::yaml::{YamlBudget, YamlLimits, YamlRefusal, check_file};
use engine::core::{AnySpec, ParamSource};
use engine::find_game;
use serde::{Deserialize, Serialize};
use std::path::Path;

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
    /// server's address: `unix:/run/arena/play.sock` in its sandbox, which has no network;
    /// `http://HOST:PORT` unconfined) and `ARENA_NAME` (the name to say Hello with) set, and no
    /// secret of the arena's in its environment; under the tournament's `isolation` (by
    /// default a sandbox that cannot see the run's directory, nor the arena's process, with a
    /// fresh environment: `PATH`, the locale, its `env`).
    #[serde(default)]
    pub command: Option<String>,
    /// A command the `command` runs under, words split as a shell would: `sudo -u agent`,
    /// `systemd-run --user --pipe …`. It is given the sandbox's command (`bwrap … sh -c
    /// COMMAND`, or `sh -c COMMAND` with `isolation: none`) after its own words.
    #[serde(default)]
    pub sandbox: Option<String>,
    /// Folders the launched `command` may write in (relative ones from the working directory,
    /// as the command's own paths): in its sandbox everything else is read-only.
    #[serde(default)]
    pub writable: Vec<String>,
    /// Variables set in the launched `command`'s environment (in its sandbox, its environment
    /// is only `PATH`, the locale's, `HOME`, `TMPDIR`, `ARENA_SERVER`, `ARENA_NAME` and these).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub env: std::collections::BTreeMap<String, String>,
    /// Its own per-move limit in milliseconds, instead of the tournament's.
    #[serde(default)]
    pub move_time_ms: Option<u64>,
    /// Its own game clock, instead of the tournament's.
    #[serde(default)]
    pub clock: Option<ClockSpec>,
    /// Its own overage bank, instead of the tournament's.
    #[serde(default)]
    pub bank: Option<ClockSpec>,
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

/// How the participants the arena launches (`command:`) are confined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Isolation {
    /// In a sandbox made by bubblewrap (`crate::sandbox`): the system read-only, the run's
    /// directory hidden, its own processes only; it cannot learn the deal secret.
    #[default]
    #[serde(rename = "bwrap")]
    Bwrap,
    /// Unconfined, as the operator's user: it can read whatever the operator can, the run's
    /// directory and its deal secret among it (for hosts without bubblewrap, and participants
    /// the operator confines with `sandbox:` themselves).
    #[serde(rename = "none")]
    Unconfined,
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
    struct Names;
    impl<'de> serde::de::Visitor<'de> for Names {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a participant's name or a list of names")
        }
        fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Vec<String>, E> {
            Ok(vec![name.to_string()])
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
            let mut names = Vec::new();
            while let Some(name) = seq.next_element()? {
                names.push(name);
            }
            Ok(names)
        }
    }
    d.deserialize_any(Names)
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

impl GameSpec {
    /// The preset its parameters start from: the one it names, or its game's default.
    pub fn preset_or_default(&self) -> Result<String, String> {
        match &self.preset {
            Some(p) => Ok(p.clone()),
            None => Ok(engine::find_game(&self.game)?.default_preset.to_string()),
        }
    }

    /// The games of `specs` as `Hello.games` and `Welcome.games` name them (`GAME:PRESET`, a
    /// game written without a preset at its default one), each once, in order.
    pub fn hello_names(specs: &[GameSpec]) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for g in specs {
            let named = format!("{}:{}", g.game, g.preset_or_default().unwrap_or_default());
            if !names.contains(&named) {
                names.push(named);
            }
        }
        names
    }
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
    /// How the participants the arena launches are confined: `bwrap` (the default) or `none`.
    #[serde(default)]
    pub isolation: Isolation,
    /// What each launched participant may use (CPU, memory, processes), in a cgroup of its
    /// own (`crate::limits`); `None` (`limits: none`) launches them unlimited.
    #[serde(default = "default_limits", with = "crate::limits::setting")]
    pub limits: Option<crate::limits::Limits>,
    /// How long to wait for every external participant to connect, in seconds.
    #[serde(default = "default_connect_timeout")]
    pub connect_timeout_s: u64,
    /// The idle limit in milliseconds (0: none), as a server's (`ServerLimits.idle_ms`): an
    /// external participant that sends nothing this long for a decision that no per-move
    /// limit or clock bounds loses the game (verdict `idle`), and the run goes on. Built-in
    /// agents are the arena's own, and not held to it.
    #[serde(default = "default_idle_ms")]
    pub idle_ms: u64,
    /// Only the pairings of these participants are played (a gauntlet).
    #[serde(default, deserialize_with = "one_or_many")]
    pub gauntlet: Vec<String>,
    /// Seat orders of 3–4 player tables.
    #[serde(default)]
    pub seats: SeatOrders,
    /// A game clock for every seat (besides any per-move limit).
    #[serde(default)]
    pub clock: Option<ClockSpec>,
    /// An overage bank for every seat, with the per-move limit (Kaggle's
    /// `remainingOverageTime`): a move may take its limit and what is left in the bank, the
    /// time past the limit drawn from the bank, `increment_ms` added after each move.
    #[serde(default)]
    pub bank: Option<ClockSpec>,
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
    /// Where the fields were read from (errors are placed with it).
    #[serde(skip)]
    origin: Origin,
}

fn default_name() -> String {
    "tournament".into()
}

fn default_limits() -> Option<crate::limits::Limits> {
    Some(crate::limits::Limits::default())
}

fn default_listen() -> String {
    "127.0.0.1:0".into()
}

fn default_connect_timeout() -> u64 {
    120
}

/// The server's own default (`arena serve --idle-secs 300`).
fn default_idle_ms() -> u64 {
    300_000
}

/// A game entry resolved: its spec, a label, whether it is cooperative, its deals if a file
/// gives them.
pub struct ResolvedGame {
    pub spec: std::sync::Arc<dyn AnySpec>,
    pub label: String,
    pub cooperative: bool,
    pub seats: usize,
    pub deals: Option<Vec<Deal>>,
}

impl TournamentConfig {
    /// Read a tournament file; `source` names it in errors, and is the path its relative
    /// `deals:` files are read beside.
    pub fn parse(source: &str, text: &str) -> Result<TournamentConfig, String> {
        Self::read(source, text, &[])
    }

    /// [`TournamentConfig::parse`] with the command line's `KEY=VALUE` overrides of the
    /// file's fields (see [`apply_overrides`]). A mistake is placed where it was made: at a
    /// line of the file, or in the override that made it.
    pub fn read(source: &str, text: &str, overrides: &[String]) -> Result<TournamentConfig, String> {
        let origin = Origin { source: source.to_string(), text: text.to_string(), overrides: overrides.to_vec() };
        // Weighed, and read as YAML at all (the parser's own words, placed), before any field.
        YamlBudget::new(YamlLimits::FILES).check(text).map_err(|e| origin.refused(&e))?;
        let effective = apply_overrides(source, text, overrides)?;
        match Self::from_text(&effective) {
            Ok(mut config) => {
                config.origin = origin;
                Ok(config)
            }
            // A mistake the file makes without any override is the file's.
            Err(m) if !overrides.is_empty() && Self::from_text(text).err().as_ref() == Some(&m) => {
                Err(origin.in_file(&m))
            }
            Err(m) => Err(origin.describe(&m)),
        }
    }

    /// The fields of a text, checked; a mistake names its field.
    fn from_text(text: &str) -> Result<TournamentConfig, Mistake> {
        let config: TournamentConfig = fields(text)?;
        config.check()?;
        Ok(config)
    }

    /// Checks across fields: names unique, agents valid, counts positive.
    fn check(&self) -> Result<(), Mistake> {
        if self.games_per_pairing == 0 {
            return Err(mistake("games_per_pairing", "must be at least 1"));
        }
        if self.participants.len() < 2 {
            return Err(mistake("participants", "needs at least two participants"));
        }
        if self.games.is_empty() {
            return Err(mistake("games", "names no game"));
        }
        for (i, p) in self.participants.iter().enumerate() {
            let at = |field: &str| format!("participants[{i}]{field}");
            if p.name.trim().is_empty() {
                return Err(mistake(at(".name"), "is empty"));
            }
            if self.participants[..i].iter().any(|q| q.name == p.name) {
                return Err(mistake(at(".name"), format!("`{}` is named twice", p.name)));
            }
            let kinds = usize::from(p.bot.is_some()) + usize::from(p.connect) + usize::from(p.command.is_some());
            if kinds != 1 {
                return Err(mistake(
                    at(""),
                    format!("`{}`: give exactly one of `bot`, `connect: true`, `command`", p.name),
                ));
            }
            if let Some(bot) = &p.bot {
                bots::BotSpec::parse(bot).map_err(|e| mistake(at(".bot"), e))?;
            }
            if let Some(sandbox) = &p.sandbox {
                if p.command.is_none() {
                    return Err(mistake(at(".sandbox"), "only a `command` runs in a sandbox"));
                }
                if shlex::split(sandbox).is_none_or(|w| w.is_empty()) {
                    return Err(mistake(at(".sandbox"), "not a command (its quotes do not close, or it is empty)"));
                }
            }
            if !p.writable.is_empty() && p.command.is_none() {
                return Err(mistake(at(".writable"), "only a `command` is launched: the others write what they like"));
            }
            if let Some(k) = p.writable.iter().position(|w| w.trim().is_empty()) {
                return Err(mistake(at(&format!(".writable[{k}]")), "is empty: name a folder"));
            }
            if !p.env.is_empty() && p.command.is_none() {
                return Err(mistake(at(".env"), "only a `command` is launched: the others have their own environment"));
            }
            for (name, value) in &p.env {
                let word = !name.is_empty()
                    && !name.starts_with(|c: char| c.is_ascii_digit())
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !word {
                    return Err(mistake(
                        at(&format!(".env.{name}")),
                        "is not a variable's name (letters, digits, `_`)",
                    ));
                }
                if name == "ARENA_SERVER" || name == "ARENA_NAME" {
                    return Err(mistake(at(&format!(".env.{name}")), "is set by the arena"));
                }
                if value.contains('\0') {
                    return Err(mistake(at(&format!(".env.{name}")), "holds a NUL byte"));
                }
            }
            if p.command.is_some() || p.connect {
                crate::server::names::check(&p.name)
                    .map_err(|e| mistake(at(".name"), format!("an external participant's Play name: {e}")))?;
            }
            if p.clock.is_some_and(|c| c.base_ms == 0) {
                return Err(mistake(at(".clock.base_ms"), "must be above 0"));
            }
            if p.bank.or(self.bank).is_some() && p.move_time_ms.unwrap_or(self.move_time_ms) == 0 {
                let field = if p.bank.is_some() { at(".bank") } else { "bank".to_string() };
                return Err(mistake(
                    field,
                    format!("is drawn on past a per-move limit, and `{}` has none: set `move_time_ms`", p.name),
                ));
            }
        }
        let names = || self.participants.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ");
        if let Some(a) = &self.anchor
            && !self.participants.iter().any(|p| &p.name == a)
        {
            return Err(mistake("anchor", format!("`{a}` is not a participant (they are: {})", names())));
        }
        for (k, g) in self.gauntlet.iter().enumerate() {
            if !self.participants.iter().any(|p| &p.name == g) {
                return Err(mistake(
                    format!("gauntlet[{k}]"),
                    format!("`{g}` is not a participant (they are: {})", names()),
                ));
            }
        }
        if !self.gauntlet.is_empty() && self.gauntlet.len() == self.participants.len() {
            return Err(mistake("gauntlet", "names every participant: leave it out for a round robin"));
        }
        if let Some(sprt) = &self.sprt {
            if self.gauntlet.is_empty() {
                return Err(mistake("sprt", "tests a gauntlet's pairings: name the `gauntlet` too"));
            }
            reports::sprt::SprtSpec::parse(sprt).map_err(|e| mistake("sprt", e))?;
        }
        if self.until_error_elo.is_some_and(|x| x.is_nan() || x <= 0.0) {
            return Err(mistake("until_error_elo", "is a positive number of Elo"));
        }
        if self.clock.is_some_and(|c| c.base_ms == 0) {
            return Err(mistake("clock.base_ms", "must be above 0"));
        }
        self.listen.parse::<std::net::SocketAddr>().map_err(|e| mistake("listen", e.to_string()))?;
        if let Some(limits) = &self.limits {
            limits.check().map_err(|(field, what)| mistake(format!("limits.{field}"), what))?;
        }
        Ok(())
    }

    /// The file a game entry's `deals:` names: a relative path is read from the folder of
    /// the tournament file (of the working directory, when an override of the command line
    /// gave it).
    pub fn deals_path(&self, game: usize) -> Option<String> {
        let path = self.games.get(game)?.deals.as_deref()?;
        let folder = Path::new(&self.origin.source).parent().unwrap_or(Path::new(""));
        let set_here = self.origin.blamed(&steps(&format!("games[{game}].deals")).unwrap_or_default()).is_some();
        Some(if set_here || Path::new(path).is_absolute() {
            path.to_string()
        } else {
            folder.join(path).display().to_string()
        })
    }

    /// Resolve every game entry (parameters checked, content loaded). An error names the
    /// file's line and field, as [`TournamentConfig::read`]'s do.
    pub fn resolve_games(&self, load: &dyn Fn(&str) -> Result<String, String>) -> Result<Vec<ResolvedGame>, String> {
        self.resolve(load).map_err(|m| self.origin.describe(&m))
    }

    fn resolve(&self, load: &dyn Fn(&str) -> Result<String, String>) -> Result<Vec<ResolvedGame>, Mistake> {
        let mut out = Vec::new();
        for (i, g) in self.games.iter().enumerate() {
            let at = |field: &str| format!("games[{i}]{field}");
            let (spec, label, cooperative) = resolve_entry(i, g, load)?;
            let deals = match self.deals_path(i) {
                Some(path) => {
                    let text = load(&path).map_err(|e| mistake(at(".deals"), e))?;
                    let deals = read_deals(&path, &text).map_err(|e| mistake(at(".deals"), e))?;
                    for (k, d) in deals.iter().enumerate() {
                        if let Some(yaml) = &d.scenario {
                            spec.scenario(d.seed.unwrap_or(0), yaml)
                                .map_err(|e| mistake(at(".deals"), format!("deals file {path}: deal {k}: {e}")))?;
                        }
                    }
                    Some(deals)
                }
                None => None,
            };
            let seats = spec.seats();
            if !cooperative && seats > self.participants.len() {
                return Err(mistake(
                    at(""),
                    format!(
                        "{} for {seats} players needs at least {seats} participants (there are {})",
                        g.game,
                        self.participants.len()
                    ),
                ));
            }
            for (k, p) in self.participants.iter().enumerate() {
                if let Some(bot) = &p.bot {
                    bots::agent(bot, spec.as_ref(), 0).map_err(|e| {
                        mistake(format!("participants[{k}].bot"), format!("for games[{i}] ({label}): {e}"))
                    })?;
                }
            }
            out.push(ResolvedGame { spec: spec.into(), label, cooperative, seats, deals });
        }
        Ok(out)
    }

    /// Each participant's time control: its own limit, clock and bank, else the tournament's.
    pub fn time_controls(&self) -> Vec<crate::referee::TimeControl> {
        let clock = |c: &ClockSpec| crate::referee::Clock::from_ms(c.base_ms, c.increment_ms);
        self.participants
            .iter()
            .map(|p| crate::referee::TimeControl {
                per_move: crate::referee::limit_ms(p.move_time_ms.unwrap_or(self.move_time_ms)),
                clock: p.clock.as_ref().or(self.clock.as_ref()).map(clock),
                bank: p.bank.as_ref().or(self.bank.as_ref()).map(clock),
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

/// The fields of a YAML text read as `T`; a mistake names its field (its place is the text's).
fn fields<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, Mistake> {
    let de = serde_yaml::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let field = e.path().to_string();
        let inner = e.into_inner();
        let mut what = inner.to_string();
        // The place is given as the file's line (serde_yaml's is of the text it read,
        // which overrides rewrote), and the field once (serde_yaml names the mapping).
        if let Some(at) = inner.location() {
            let suffix = format!(" at line {} column {}", at.line(), at.column());
            what.truncate(what.strip_suffix(&suffix).map_or(what.len(), str::len));
        }
        let at = steps(&field).unwrap_or_default();
        if let Some(rest) = (1..=at.len()).rev().find_map(|n| what.strip_prefix(&format!("{}: ", path(&at[..n])))) {
            what = rest.to_string();
        }
        mistake(field, what)
    })
}

/// A YAML file of fields other than a tournament's (a ladder's), read as `T` as a tournament
/// file is: weighed first, then field by field, and `check` run over the result. A mistake
/// names `source`, the line and the field: `check` names a field as a path (`anchors[1].bot`).
pub fn read_fields<T: serde::de::DeserializeOwned>(
    source: &str,
    text: &str,
    check: impl Fn(&T) -> Result<(), (String, String)>,
) -> Result<T, String> {
    let origin = Origin { source: source.to_string(), text: text.to_string(), overrides: Vec::new() };
    YamlBudget::new(YamlLimits::FILES).check(text).map_err(|e| origin.refused(&e))?;
    let value: T = fields(text).map_err(|m| origin.describe(&m))?;
    check(&value).map_err(|(field, what)| origin.describe(&mistake(field, what)))?;
    Ok(value)
}

/// Resolve game entries of a file other than a tournament's (`games:` of a ladder): each as a
/// tournament's is, its built-in agents (`agents`, by their path in the file, e.g.
/// `anchors[0].bot`) checked against it. A mistake names the file's line and field.
pub fn resolve_entries(
    source: &str,
    text: &str,
    games: &[GameSpec],
    agents: &[(String, String)],
    load: &dyn Fn(&str) -> Result<String, String>,
) -> Result<Vec<ResolvedGame>, String> {
    let origin = Origin { source: source.to_string(), text: text.to_string(), overrides: Vec::new() };
    let mut out = Vec::new();
    for (i, g) in games.iter().enumerate() {
        if g.deals.is_some() {
            return Err(origin.describe(&mistake(format!("games[{i}].deals"), "a ladder draws its own deals")));
        }
        let (spec, label, cooperative) = resolve_entry(i, g, load).map_err(|m| origin.describe(&m))?;
        for (field, bot) in agents {
            bots::agent(bot, spec.as_ref(), 0)
                .map_err(|e| origin.describe(&mistake(field.clone(), format!("for games[{i}] ({label}): {e}"))))?;
        }
        let seats = spec.seats();
        out.push(ResolvedGame { spec: spec.into(), label, cooperative, seats, deals: None });
    }
    Ok(out)
}

/// One game entry: its parameters checked and content loaded, its label, and whether it is
/// cooperative.
fn resolve_entry(
    i: usize,
    g: &GameSpec,
    load: &dyn Fn(&str) -> Result<String, String>,
) -> Result<(Box<dyn AnySpec>, String, bool), Mistake> {
    let entry = find_game(&g.game).map_err(|e| mistake(format!("games[{i}].game"), e))?;
    let mut sources = Vec::new();
    if !g.params.is_empty() {
        let text =
            serde_yaml::to_string(&g.params).map_err(|e| mistake(format!("games[{i}].params"), e.to_string()))?;
        sources.push(ParamSource::Yaml { name: format!("games[{i}].params"), text });
    }
    let spec = (entry.spec)(g.preset.as_deref(), &sources, load).map_err(|e| param_mistake(i, g, &e.to_string()))?;
    let seats = spec.seats();
    let preset = g.preset.clone().unwrap_or_else(|| entry.default_preset.to_string());
    let who = if entry.cooperative { "traveller" } else { "player" };
    let label = format!("{} {preset}, {seats} {who}{}", g.game, if seats == 1 { "" } else { "s" });
    Ok((spec, label, entry.cooperative))
}

/// A mistake in a tournament's fields: the field, as a path the file writes
/// (`participants[2].bot`; `.` for the whole file), and what is wrong with it.
#[derive(Clone, Debug, PartialEq)]
struct Mistake {
    field: String,
    what: String,
}

fn mistake(field: impl Into<String>, what: impl Into<String>) -> Mistake {
    let (mut field, what) = (field.into(), what.into());
    // An unknown field is a mistake of the mapping it stands in (serde names the field).
    if let Some(unknown) = what.strip_prefix("unknown field `").and_then(|r| r.split_once('`')).map(|(k, _)| k)
        && let Some(mut at) = steps(&field)
        && at.last() == Some(&Step::Key(unknown.to_string()))
    {
        at.pop();
        field = if at.is_empty() { ".".to_string() } else { path(&at) };
    }
    Mistake { field, what }
}

impl Mistake {
    /// The node the mistake is at, and which of its key's occurrences: a field named but
    /// unknown, or named twice (the second time), is a key of its own.
    fn place(&self) -> (Vec<Step>, usize) {
        let mut at = steps(&self.field).unwrap_or_default();
        let named = |prefix: &str| self.what.strip_prefix(prefix).and_then(|r| r.split_once('`')).map(|(k, _)| k);
        if let Some(key) = named("unknown field `") {
            at.push(Step::Key(key.to_string()));
        } else if let Some(key) = named("duplicate field `") {
            at.push(Step::Key(key.to_string()));
            return (at, 1);
        }
        (at, 0)
    }

    /// `field `F`: what` (a mistake of the whole file: what alone).
    fn text(&self, field: &str) -> String {
        match steps(field) {
            Some(s) if !s.is_empty() => format!("field `{field}`: {}", self.what),
            _ => self.what.clone(),
        }
    }
}

/// A mistake the engine found in a game entry's preset or parameters, named by its field.
fn param_mistake(i: usize, g: &GameSpec, e: &str) -> Mistake {
    let params = format!("games[{i}].params");
    if let Some(rest) = e.strip_prefix(&format!("{params}: ")) {
        // The engine read the parameters from their own text: its line is not the file's.
        let rest = without_place(rest);
        if let Some((field, what)) = rest.strip_prefix("field `").and_then(|r| r.split_once("`: ")) {
            return mistake(format!("{params}.{field}"), what);
        }
        return mistake(params, rest);
    }
    if g.preset.is_some() && e.starts_with("unknown preset") {
        return mistake(format!("games[{i}].preset"), e);
    }
    mistake(format!("games[{i}]"), e)
}

/// A message without its trailing ` at line L` or ` at line L column C`.
fn without_place(message: &str) -> &str {
    match message.rsplit_once(" at line ") {
        Some((head, place))
            if place.split(" column ").all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())) =>
        {
            head
        }
        _ => message,
    }
}

/// Where a tournament's fields were read from: the file (its name and text) and the
/// command line's overrides over it. Mistakes are placed with it.
#[derive(Clone, Debug, Default, PartialEq)]
struct Origin {
    source: String,
    text: String,
    overrides: Vec<String>,
}

impl Origin {
    /// The override that set the node `at`, something inside it, or something it lies in
    /// (the last such, as the last wins).
    fn blamed(&self, at: &[Step]) -> Option<&str> {
        if at.is_empty() {
            return None;
        }
        let key = |o: &str| steps(o.split_once('=').map_or(o, |(k, _)| k).trim());
        let related = |o: &&String| key(o).is_some_and(|k| k.starts_with(at) || at.starts_with(&k));
        self.overrides.iter().rev().find(related).map(String::as_str)
    }

    /// The mistake, named by the override that made it or by the file's line.
    fn describe(&self, m: &Mistake) -> String {
        match self.blamed(&m.place().0) {
            Some(o) => format!("--set {o}: {}", m.text(&m.field)),
            None => self.in_file(m),
        }
    }

    /// `FILE line N: field `F`: what`: the line of the field, or of the nearest field
    /// around it that the file writes (none: a mistake of the whole file).
    fn in_file(&self, m: &Mistake) -> String {
        let (at, nth) = m.place();
        let field = steps(&m.field).unwrap_or_default();
        let found = (1..=at.len())
            .rev()
            .find_map(|n| line_of(&self.text, &at[..n], if n == at.len() { nth } else { 0 }).map(|line| (n, line)));
        let Some((n, line)) = found else {
            return format!("{}: {}", self.source, m.text(&m.field));
        };
        // A list's index where the file writes one item without a list (`gauntlet: x`).
        let shown = if n < field.len() && field[n..].iter().all(|s| matches!(s, Step::Index(_))) {
            path(&field[..n])
        } else {
            m.field.clone()
        };
        format!("{} line {line}: {}", self.source, m.text(&shown))
    }

    /// A text the YAML weigher refused, placed where it can be.
    fn refused(&self, e: &YamlRefusal) -> String {
        match e {
            YamlRefusal::Syntax { message, line, column } => {
                format!("{} line {line}: not YAML at column {column}: {message}", self.source)
            }
            YamlRefusal::AliasInsideItself { line } => {
                format!("{} line {line}: an alias inside the node its anchor names", self.source)
            }
            e => format!("{}: {e}", self.source),
        }
    }
}

/// One step of a field's path: a mapping's key, or a list's item.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// A path as serde and overrides write it (`participants[2].bot`; `.` or nothing: the
/// whole file), in steps; None if it names a step no file can (`?`).
fn steps(path: &str) -> Option<Vec<Step>> {
    let mut out = Vec::new();
    if path == "." || path.is_empty() {
        return Some(out);
    }
    for part in path.split('.') {
        let (key, mut rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if key.is_empty() || key == "?" {
            return None;
        }
        out.push(Step::Key(key.to_string()));
        while !rest.is_empty() {
            let (index, after) = rest.split_once(']')?;
            out.push(Step::Index(index.parse().ok()?));
            rest = after.strip_prefix('[').unwrap_or(after);
        }
    }
    Some(out)
}

/// The path of steps, written as [`steps`] reads it.
fn path(steps: &[Step]) -> String {
    let mut out = String::new();
    for s in steps {
        match s {
            Step::Key(k) if out.is_empty() => out += k,
            Step::Key(k) => out += &format!(".{k}"),
            Step::Index(i) => out += &format!("[{i}]"),
        }
    }
    out
}

/// The line (1 first) of the node at `at` in a YAML text: a field's key (its `nth`
/// occurrence, 0 first), a list item's own. It is found by the parser serde_yaml reads the
/// file with: a walk that fails on purpose at the node, and the parser places that error.
fn line_of(text: &str, at: &[Step], nth: usize) -> Option<usize> {
    use serde::de::{DeserializeSeed, Deserializer, Error, IgnoredAny, MapAccess, SeqAccess, Visitor};
    use std::fmt;

    const HERE: &str = "the node looked for";

    /// Fails at any node it is given.
    struct Here;
    impl<'de> Visitor<'de> for Here {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(HERE)
        }
    }

    /// A key: is it the one looked for? (Fails on it when `fail`.)
    struct Key<'a> {
        name: &'a str,
        fail: bool,
    }
    impl<'de> DeserializeSeed<'de> for Key<'_> {
        type Value = bool;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
            d.deserialize_any(self)
        }
    }
    impl<'de> Visitor<'de> for Key<'_> {
        type Value = bool;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a key")
        }
        fn visit_str<E: Error>(self, key: &str) -> Result<bool, E> {
            match key == self.name {
                true if self.fail => Err(E::custom(HERE)),
                hit => Ok(hit),
            }
        }
        fn visit_u64<E: Error>(self, _: u64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_i64<E: Error>(self, _: i64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_f64<E: Error>(self, _: f64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_bool<E: Error>(self, _: bool) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_unit<E: Error>(self) -> Result<bool, E> {
            Ok(false)
        }
    }

    /// Walks down the rest of the path.
    struct Find<'a> {
        rest: &'a [Step],
        nth: usize,
    }
    impl<'de> DeserializeSeed<'de> for Find<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            match self.rest.first() {
                None => d.deserialize_any(Here),
                Some(Step::Key(_)) => d.deserialize_map(self),
                Some(Step::Index(_)) => d.deserialize_seq(self),
            }
        }
    }
    impl<'de> Visitor<'de> for Find<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a mapping or a list")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let Some((Step::Key(name), rest)) = self.rest.split_first() else { return Ok(()) };
            let mut seen = 0;
            while let Some(hit) = map.next_key_seed(Key { name, fail: rest.is_empty() && seen == self.nth })? {
                if hit && rest.is_empty() {
                    seen += 1;
                    map.next_value::<IgnoredAny>()?;
                } else if hit {
                    return map.next_value_seed(Find { rest, nth: self.nth });
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            let Some((&Step::Index(index), rest)) = self.rest.split_first() else { return Ok(()) };
            for _ in 0..index {
                if seq.next_element::<IgnoredAny>()?.is_none() {
                    return Ok(());
                }
            }
            seq.next_element_seed(Find { rest, nth: self.nth }).map(|_| ())
        }
    }

    match (Find { rest: at, nth }).deserialize(serde_yaml::Deserializer::from_str(text)) {
        Err(e) if e.to_string().contains(HERE) => e.location().map(|l| l.line()),
        _ => None,
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
    fn an_overage_bank_is_the_tournament_s_or_a_participant_s_own_and_needs_a_per_move_limit() {
        use std::time::Duration;
        let ms = Duration::from_millis;
        let text = "games_per_pairing: 2\nmove_time_ms: 100\nbank: { base_ms: 1000, increment_ms: 10 }\n\
                    participants:\n  - { name: a, bot: random }\n  - { name: b, bot: random, bank: { base_ms: 50 } }\n\
                    games: [{game: journey}]\n";
        let c = TournamentConfig::parse("t.yaml", text).unwrap();
        let banks: Vec<_> = c.time_controls().into_iter().map(|t| (t.per_move, t.bank)).collect();
        let bank = |base, increment| Some(crate::referee::Clock { base: ms(base), increment: ms(increment) });
        assert_eq!(banks, [(Some(ms(100)), bank(1000, 10)), (Some(ms(100)), bank(50, 0))]);
        // A bank is drawn on past a per-move limit: none, and the file is refused naming it.
        let text = "games_per_pairing: 2\nbank: { base_ms: 1000 }\n\
                    participants:\n  - { name: a, bot: random }\n  - { name: b, bot: random }\ngames: [{game: journey}]\n";
        let e = TournamentConfig::parse("t.yaml", text).unwrap_err();
        assert!(e.contains("field `bank`") && e.contains("`a` has none: set `move_time_ms`"), "{e}");
        let text = "games_per_pairing: 2\nparticipants:\n  - { name: a, bot: random }\n  - { name: b, bot: random, \
                    bank: { base_ms: 5 } }\ngames: [{game: journey}]\n";
        let e = TournamentConfig::parse("t.yaml", text).unwrap_err();
        assert!(e.contains("participants[1].bank"), "{e}");
    }

    #[test]
    fn bad_files_name_the_line_and_field() {
        let e =
            TournamentConfig::parse("t.yaml", "games_per_pairing: many\nparticipants: []\ngames: []\n").unwrap_err();
        assert!(e.starts_with("t.yaml line 1: field `games_per_pairing`: invalid type"), "{e}");
        let text = "games_per_pairing: 2\nparticipants:\n  - { name: a, bot: random }\n  - { name: b, bots: random }\ngames: []\n";
        let e = TournamentConfig::parse("t.yaml", text).unwrap_err();
        assert!(e.starts_with("t.yaml line 4: field `participants[1]`: unknown field `bots`"), "{e}");
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
    fn mistakes_are_placed_at_their_line() {
        // Block and flow mappings, a list item, a key written twice, an anchor's alias.
        let text = "games_per_pairing: 2\nparticipants:\n  - &a { name: a, bot: random }\n  - name: b\n    bot: random\n    clock:\n      base_ms: 5\ngames:\n  - game: journey\n    deals: d.yaml\nseed: 1\nseed: 2\n";
        let line = |path: &str, nth| line_of(text, &steps(path).unwrap(), nth);
        assert_eq!(line("participants[0].bot", 0), Some(3));
        assert_eq!(line("participants[1]", 0), Some(4));
        assert_eq!(line("participants[1].bot", 0), Some(5));
        assert_eq!(line("participants[1].clock.base_ms", 0), Some(7));
        assert_eq!(line("games[0].deals", 0), Some(10));
        assert_eq!((line("seed", 0), line("seed", 1)), (Some(11), Some(12)));
        assert_eq!(line("participants[2]", 0), None);
        assert_eq!(line("games[0].params", 0), None);
        assert_eq!(line("games_per_pairing.x", 0), None);
        let e = TournamentConfig::parse("t.yaml", text).unwrap_err();
        assert_eq!(e, "t.yaml line 12: duplicate field `seed`");
        // A field the file does not write is placed at the nearest one around it.
        let text = "games_per_pairing: 2\nparticipants:\n  - { name: a, bot: random }\n  - { name: b }\ngames: [{game: journey}]\n";
        let e = TournamentConfig::parse("t.yaml", text).unwrap_err();
        assert!(e.starts_with("t.yaml line 4: field `participants[1]`: `b`: give exactly one of"), "{e}");
        // A mistake of the whole file has no line.
        let e = TournamentConfig::parse("t.yaml", "participants: []\ngames: []\n").unwrap_err();
        assert_eq!(e, "t.yaml: missing field `games_per_pairing`");
        let e = TournamentConfig::parse("t.yaml", "games_per_pairing: 2\nparticipants: [\n").unwrap_err();
        assert!(e.starts_with("t.yaml line 3: not YAML at column 1: "), "{e}");
        // An unclosed `{` on line 5 is line 5's mistake, though the parser finds it on line 6.
        let text = "seed: 1\ngames_per_pairing: 2\ngames: [{game: journey}]\nparticipants:\n  - { name: a, bot: random\n  - { name: b, bot: random }\n";
        let e = TournamentConfig::parse("t.yaml", text).unwrap_err();
        assert!(e.starts_with("t.yaml line 5: not YAML at column 5: a flow mapping opened here is not closed"), "{e}");
    }

    #[test]
    fn an_override_is_blamed_for_its_own_mistakes_only() {
        let text = "games_per_pairing: 2\nparticipants:\n  - { name: a, bot: random }\n  - { name: b, bot: random }\ngames: [{game: journey}]\n";
        let set = |o: &[&str]| {
            TournamentConfig::read("t.yaml", text, &o.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap_err()
        };
        assert_eq!(
            set(&["participants[1].clock.base_ms=0"]),
            "--set participants[1].clock.base_ms=0: field `participants[1].clock.base_ms`: must be above 0"
        );
        assert_eq!(
            set(&["seed=1", "anchor=zed"]),
            "--set anchor=zed: field `anchor`: `zed` is not a participant (they are: a, b)"
        );
        // Replacing a whole participant: its missing field is the override's.
        let e = set(&["participants[0]={name: c}"]);
        assert!(
            e.starts_with("--set participants[0]={name: c}: field `participants[0]`: `c`: give exactly one of"),
            "{e}"
        );
        // The file's mistake stays the file's, with its line.
        let bad = text.replace("name: b, bot: random", "name: b, bot: randy");
        let e = TournamentConfig::read("t.yaml", &bad, &["seed=3".into()]).unwrap_err();
        assert!(e.starts_with("t.yaml line 4: field `participants[1].bot`: unknown agent `randy`"), "{e}");
        // An override's own syntax is named as before.
        assert!(set(&["seed"]).starts_with("--set seed: expected KEY=VALUE"));
    }

    #[test]
    fn deals_are_read_beside_the_file() {
        let text = "games_per_pairing: 2\nparticipants:\n  - { name: a, bot: random }\n  - { name: b, bot: random }\ngames:\n  - { game: journey, deals: d.yaml }\n  - { game: journey, deals: /abs/d.yaml }\n  - { game: journey }\n";
        let c = TournamentConfig::parse("some/folder/t.yaml", text).unwrap();
        assert_eq!(c.deals_path(0).as_deref(), Some("some/folder/d.yaml"));
        assert_eq!(c.deals_path(1).as_deref(), Some("/abs/d.yaml"));
        assert_eq!(c.deals_path(2), None);
        let c = TournamentConfig::read("some/folder/t.yaml", text, &["games[0].deals=mine.yaml".into()]).unwrap();
        assert_eq!(c.deals_path(0).as_deref(), Some("mine.yaml"), "an override's path is the working directory's");
        assert_eq!(TournamentConfig::parse("t.yaml", text).unwrap().deals_path(0).as_deref(), Some("d.yaml"));
        let e = c.resolve_games(&|p| Err(format!("cannot read {p}"))).err().unwrap();
        assert_eq!(e, "--set games[0].deals=mine.yaml: field `games[0].deals`: cannot read mine.yaml");
        let c = TournamentConfig::parse("some/folder/t.yaml", text).unwrap();
        let e = c.resolve_games(&|p| Err(format!("cannot read {p}"))).err().unwrap();
        assert_eq!(e, "some/folder/t.yaml line 6: field `games[0].deals`: cannot read some/folder/d.yaml");
    }

    #[test]
    fn bad_games_are_named() {
        let base = "games_per_pairing: 2\nparticipants:\n  - { name: a, bot: random }\n  - { name: b, bot: random }\n";
        let c = TournamentConfig::parse("t", &format!("{base}games: [{{game: chess}}]\n")).unwrap();
        let e = c.resolve_games(&|_| Err("no".into())).err().unwrap();
        assert!(e.starts_with("t line 5: field `games[0].game`: unknown game `chess`"), "{e}");
        let c = TournamentConfig::parse("t", &format!("{base}games: [{{game: journey, params: {{travellers: 9}}}}]\n"))
            .unwrap();
        let e = c.resolve_games(&|_| Err("no".into())).err().unwrap();
        assert!(e.starts_with("t line 5: field `games[0].params.travellers`: 9 is out of range"), "{e}");
        let c = TournamentConfig::parse("t", &format!("{base}games: [{{game: expedition, params: {{players: 3}}}}]\n"))
            .unwrap();
        let e = c.resolve_games(&|_| Err("no".into())).err().unwrap();
        assert_eq!(
            e,
            "t line 5: field `games[0]`: expedition for 3 players needs at least 3 participants (there are 2)"
        );
    }

    #[test]
    fn limits_are_read_with_defaults_and_refused_by_field() {
        use crate::limits::Limits;
        let base = "games_per_pairing: 1\nparticipants:\n  - { name: a, bot: random }\n  - { name: b, command: ./bot }\ngames: [{game: journey}]\n";
        let read = |limits: &str| TournamentConfig::parse("t.yaml", &format!("{base}{limits}"));
        assert_eq!(read("").unwrap().limits, Some(Limits::default()));
        assert_eq!(read("limits: none\n").unwrap().limits, None);
        assert_eq!(
            read("limits: { cpus: 0.5, memory: 512MiB }\n").unwrap().limits,
            Some(Limits { cpus: 0.5, memory: 512 << 20, pids: 64, ..Limits::default() })
        );
        assert_eq!(
            read("limits:\n  memory: 2147483648\n  pids: 10\n  cpus: 2\n").unwrap().limits,
            Some(Limits { cpus: 2.0, memory: 2 << 30, pids: 10, ..Limits::default() })
        );
        assert_eq!(
            read("limits: { cpu_seconds: 90 }\n").unwrap().limits,
            Some(Limits { cpu_seconds: Some(90.0), ..Limits::default() })
        );
        // Written for a resumed run, read back the same.
        let c = read("limits: { cpus: 0.25, memory: 3GiB, pids: 9, cpu_seconds: 1.5, wall_seconds: 30 }\n").unwrap();
        assert_eq!(c.limits.and_then(|l| l.wall_seconds), Some(30.0));
        let again = TournamentConfig::parse("t.yaml", &serde_yaml::to_string(&c).unwrap()).unwrap();
        assert_eq!(again.limits, c.limits);
        let none = read("limits: none\n").unwrap();
        assert_eq!(TournamentConfig::parse("t.yaml", &serde_yaml::to_string(&none).unwrap()).unwrap().limits, None);
        for (limits, field, says) in [
            ("limits: { memory: 1GB }\n", "limits.memory", "`1GB` is not a size"),
            ("limits: { memory: 1000 }\n", "limits.memory", "at least 1 MiB"),
            ("limits: { cpus: 0 }\n", "limits.cpus", "at least 0.01"),
            ("limits: { cpus: many }\n", "limits.cpus", "invalid type"),
            ("limits: { pids: 0 }\n", "limits.pids", "at least 1 process"),
            ("limits: { pids: -3 }\n", "limits.pids", "invalid type"),
            ("limits: { disk: 1GiB }\n", "limits", "unknown field `disk`"),
            ("limits: { cpu_seconds: 0 }\n", "limits.cpu_seconds", "above 0"),
            ("limits: { wall_seconds: -1 }\n", "limits.wall_seconds", "above 0"),
            ("limits: off\n", "limits", "write `none`, or limits"),
        ] {
            let e = read(limits).unwrap_err();
            assert!(e.starts_with(&format!("t.yaml line 6: field `{field}`: ")) && e.contains(says), "{limits}: {e}");
        }
    }
}
