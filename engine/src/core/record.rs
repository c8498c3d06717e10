//! A compact record of a game: which game, its full parameters, its seed, the scenario it
//! started from (if any) and the actions taken. Replaying a record gives the same game,
//! state for state (`Record::replay` lives with the list of games, in `games.rs`: it looks the
//! game up there).

use super::{ActionError, ActionId, ParamSource};
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub game: String,
    /// The version of the game's rules it was played under (0: a record made before rules
    /// had versions); it replays only under the same.
    #[serde(default)]
    pub rules_version: u32,
    /// Every parameter, explicitly (no preset), so the record does not depend on presets.
    pub params: serde_yaml::Value,
    pub seed: u64,
    /// The scenario (YAML) the game started from, when it did not start from a fresh deal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    pub actions: Vec<ActionId>,
}

#[derive(Debug)]
pub enum ReplayError {
    /// The game or its parameters could not be built.
    Setup(String),
    /// The record was made under other rules than these.
    RulesVersion { game: String, recorded: u32, current: u32 },
    /// Action number `index` (from 0) was refused.
    Action { index: usize, error: ActionError },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Setup(e) => write!(f, "cannot set the game up: {e}"),
            ReplayError::RulesVersion { game, recorded, current } if *recorded == 0 => write!(
                f,
                "the record carries no rules version (made before {game} rules had versions); this arena plays \
                 {game} rules version {current}: it cannot be replayed"
            ),
            ReplayError::RulesVersion { game, recorded, current } => write!(
                f,
                "the record was made under {game} rules version {recorded}; this arena plays {game} rules version \
                 {current}: it cannot be replayed"
            ),
            ReplayError::Action { index, error } => write!(f, "action #{index}: {error}"),
        }
    }
}

impl std::error::Error for ReplayError {}

impl Record {
    /// The parameters as a YAML source, ready for [`super::resolve_params`].
    pub fn param_source(&self) -> ParamSource {
        ParamSource::Yaml {
            name: format!("record of {}", self.game),
            text: super::params_to_yaml(&self.params).unwrap_or_default(),
        }
    }
}
