//! The rule parameters of `expedition`, and the content set they name.

use super::content::Content;
use crate::core::{Bounded, GameParams, ParamError};
use crate::{game_params, param_enum};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::sync::Arc;

param_enum! {
    /// How the character boards are handed out.
    pub enum CharacterDeal {
        Random = "random",
        InOrder = "in-order",
    }
}

param_enum! {
    /// Which tile a Discovery card stands for, for Missions.
    pub enum DiscoveryRule {
        Named = "named",
        Wild = "wild",
    }
}

/// The content set: `default` (embedded) or a file path. Serialises, prints and compares as
/// the path; the loaded set rides along in an `Arc` (filled by [`GameParams::load_assets`]).
#[derive(Clone)]
pub struct ContentRef {
    path: String,
    loaded: Option<Arc<Content>>,
}

impl ContentRef {
    pub const DEFAULT: &'static str = "default";

    /// The embedded default set.
    pub fn default_set() -> ContentRef {
        ContentRef { path: Self::DEFAULT.to_string(), loaded: Some(Content::default_set()) }
    }

    /// A content set already loaded (e.g. in tests), known by `path`.
    pub fn with_content(path: &str, content: Content) -> ContentRef {
        ContentRef { path: path.to_string(), loaded: Some(Arc::new(content)) }
    }

    /// A path, not yet loaded.
    pub fn path_only(path: &str) -> ContentRef {
        if path == Self::DEFAULT {
            return Self::default_set();
        }
        ContentRef { path: path.to_string(), loaded: None }
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    pub fn is_loaded(&self) -> bool {
        self.loaded.is_some()
    }

    /// The content: the loaded set, or the default set when a path was never loaded (the
    /// registry always loads it; see [`GameParams::load_assets`]).
    pub fn get(&self) -> Arc<Content> {
        self.loaded.clone().unwrap_or_else(Content::default_set)
    }
}

impl fmt::Debug for ContentRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ContentRef({:?}, loaded: {})", self.path, self.loaded.is_some())
    }
}

impl fmt::Display for ContentRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.path)
    }
}

impl PartialEq for ContentRef {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
    }
}

impl Serialize for ContentRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.path)
    }
}

impl<'de> Deserialize<'de> for ContentRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let path = String::deserialize(d)?;
        if path.trim().is_empty() {
            return Err(serde::de::Error::custom("an empty content path: use `default` or a file path"));
        }
        Ok(ContentRef::path_only(&path))
    }
}

game_params! {
    /// The rule parameters of `expedition`.
    pub struct ExpeditionParams, patch ExpeditionPatch {
        /// Number of players, 2 to 4.
        pub players: Bounded<2, 4>,
        /// true: the dice game; false: the no-dice variant (no roll; the Dice card draws two tools, relights the own torch or gives +1 per tile this turn).
        pub dice: bool,
        /// The forgotten-roll rule: a player may skip the roll, and a lit Torch of theirs goes out.
        pub forgotten_roll: bool,
        /// How characters are handed out: random (dealt from the seed) or in-order (seat i gets character i).
        pub characters: CharacterDeal,
        /// What a Discovery card counts as for Missions: wild (any one tile, the best at the end) or named (the tile printed on it).
        pub discovery_cards: DiscoveryRule,
        /// The game stops at the end of this round even if nobody has six discoveries (a position where nobody can complete anything would never end), and is scored as usual.
        pub max_rounds: Bounded<1, 10000>,
        /// The content set: default (embedded) or the path of a YAML file.
        pub content: ContentRef,
    }
}

impl ExpeditionParams {
    /// The dice game for `players` players with the default content.
    pub fn dice_game() -> Self {
        ExpeditionParams {
            players: Bounded::new(2),
            dice: true,
            forgotten_roll: false,
            characters: CharacterDeal::Random,
            discovery_cards: DiscoveryRule::Wild,
            max_rounds: Bounded::new(200),
            content: ContentRef::default_set(),
        }
    }

    /// The no-dice variant with the default content.
    pub fn no_dice() -> Self {
        ExpeditionParams { dice: false, ..Self::dice_game() }
    }

    pub fn with_players(mut self, players: usize) -> Self {
        self.players = Bounded::try_new(players as i64).unwrap_or(Bounded::new(2));
        self
    }

    pub fn players(&self) -> usize {
        self.players.get() as usize
    }

    /// The last round that may be played.
    pub fn max_rounds(&self) -> u16 {
        self.max_rounds.get() as u16
    }
}

impl GameParams for ExpeditionParams {
    const PRESETS: &'static [&'static str] = &["dice", "no-dice"];
    const DEFAULT_PRESET: &'static str = "dice";

    fn preset(name: &str) -> Option<Self> {
        match name {
            "dice" => Some(Self::dice_game()),
            "no-dice" => Some(Self::no_dice()),
            _ => None,
        }
    }

    fn validate(&self) -> Result<(), String> {
        if self.forgotten_roll && !self.dice {
            return Err(
                "forgotten_roll=true needs dice=true: the no-dice variant (dice=false) has no roll to forget".into()
            );
        }
        if let Some(content) = &self.content.loaded {
            content.check_for_players(self.players()).map_err(|e| format!("content {}: {e}", self.content.path))?;
        }
        Ok(())
    }

    fn load_assets(&mut self, load: &dyn Fn(&str) -> Result<String, String>) -> Result<(), ParamError> {
        if self.content.path != ContentRef::DEFAULT {
            let text = load(&self.content.path)
                .map_err(|e| ParamError(format!("content {}: cannot read it: {e}", self.content.path)))?;
            let content = Content::from_yaml(&self.content.path, &text).map_err(ParamError)?;
            self.content.loaded = Some(Arc::new(content));
        } else if self.content.loaded.is_none() {
            self.content.loaded = Some(Content::default_set());
        }
        self.validate().map_err(ParamError)
    }
}
