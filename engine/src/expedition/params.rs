//! The rule parameters of `expedition`, and the content set they name.

pub use super::content::DiscoveryRule;

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

/// The content set: `default` (embedded), a name the caller's loader reads (a file path on the
/// command line; a set of the operator's content directory on a server), or a set written
/// inline (a YAML mapping: `tiles:`, `characters:`, ...). Once loaded, any set but the default
/// serialises inline, so parameters that travel (records, the wire) never name a file to open
/// and replay anywhere. The loaded set rides along in an `Arc` (filled by
/// [`GameParams::load_assets`]).
#[derive(Clone)]
pub struct ContentRef {
    /// `default`, the name it was loaded by, or `inline`.
    name: String,
    /// The set as written, once read (what it serialises as).
    source: Option<Arc<serde_yaml::Value>>,
    loaded: Option<Arc<Content>>,
}

impl ContentRef {
    pub const DEFAULT: &'static str = "default";
    /// The name of a set written inline.
    pub const INLINE: &'static str = "inline";

    /// The embedded default set.
    pub fn default_set() -> ContentRef {
        ContentRef { name: Self::DEFAULT.to_string(), source: None, loaded: Some(Content::default_set()) }
    }

    /// A name for the loader, not yet loaded.
    pub fn named(name: &str) -> ContentRef {
        if name == Self::DEFAULT {
            return Self::default_set();
        }
        ContentRef { name: name.to_string(), source: None, loaded: None }
    }

    /// A set written inline, read and checked at once (no loader is involved).
    pub fn inline(source: serde_yaml::Value) -> Result<ContentRef, String> {
        let content = Content::from_value(source.clone())?;
        Ok(ContentRef {
            name: Self::INLINE.to_string(),
            source: Some(Arc::new(source)),
            loaded: Some(Arc::new(content)),
        })
    }

    /// `default`, the name the set was loaded by, or `inline`.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn is_loaded(&self) -> bool {
        self.loaded.is_some()
    }

    /// The content: the loaded set, or the default set when a name was never loaded (the
    /// registry always loads it; see [`GameParams::load_assets`]).
    pub fn get(&self) -> Arc<Content> {
        self.loaded.clone().unwrap_or_else(Content::default_set)
    }

    /// Read the named set through `load` (a no-op for the default set and inline sets).
    fn load(&mut self, load: &dyn Fn(&str) -> Result<String, String>) -> Result<(), String> {
        if self.loaded.is_some() {
            return Ok(());
        }
        let shown = match self.name.char_indices().nth(64) {
            Some((i, _)) => format!("{}…", &self.name[..i]),
            None => self.name.clone(),
        };
        let text = load(&self.name).map_err(|e| format!("content `{shown}`: {e}"))?;
        let content = Content::from_yaml(&self.name, &text)?;
        let source: serde_yaml::Value =
            serde_yaml::from_str(&text).map_err(|e| format!("content `{}`: {e}", self.name))?;
        self.source = Some(Arc::new(source));
        self.loaded = Some(Arc::new(content));
        Ok(())
    }
}

impl fmt::Debug for ContentRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ContentRef({:?}, loaded: {})", self.name, self.loaded.is_some())
    }
}

impl fmt::Display for ContentRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl PartialEq for ContentRef {
    fn eq(&self, other: &Self) -> bool {
        match (&self.source, &other.source) {
            (Some(a), Some(b)) => a == b,
            (None, None) => self.name == other.name,
            _ => false,
        }
    }
}

impl Serialize for ContentRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.source {
            Some(source) if self.name != Self::DEFAULT => source.serialize(s),
            _ => s.serialize_str(&self.name),
        }
    }
}

impl<'de> Deserialize<'de> for ContentRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_yaml::Value::deserialize(d)? {
            serde_yaml::Value::String(name) if name.trim().is_empty() => Err(serde::de::Error::custom(
                "an empty content name: use `default`, a name, or a content set written inline",
            )),
            serde_yaml::Value::String(name) => Ok(ContentRef::named(&name)),
            source @ serde_yaml::Value::Mapping(_) => ContentRef::inline(source).map_err(serde::de::Error::custom),
            _ => Err(serde::de::Error::custom(
                "expected `default`, a name, or a content set written inline (a mapping of tiles, characters, ...)",
            )),
        }
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
        /// The content set: default (embedded), a YAML file (on a server: a set the operator offers by name), or a set written inline as YAML.
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
            content.check_for_players(self.players()).map_err(|e| format!("content {}: {e}", self.content.name))?;
        }
        Ok(())
    }

    fn load_assets(&mut self, load: &dyn Fn(&str) -> Result<String, String>) -> Result<(), ParamError> {
        self.content.load(load).map_err(ParamError)?;
        self.validate().map_err(ParamError)
    }
}
