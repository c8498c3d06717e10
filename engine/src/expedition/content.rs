//! The content of the game as data: Discovery tiles, characters and the Expedition deck,
//! read from YAML and checked. The default set is `content.yaml`, embedded in the engine.

use crate::param_enum;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// The most Discovery tiles a content set may hold (tile ids are `u8`, tile sets are `u64`).
pub const MAX_TILES: usize = 48;
/// The most Expedition cards a content set may hold (a hand is a `u64` bit set).
pub const MAX_CARDS: usize = 64;
/// The most characters a content set may hold.
pub const MAX_CHARACTERS: usize = 16;
/// The most tools a tile may require (the four kinds, repeats allowed).
pub const MAX_TILE_TOOLS: usize = 4;
/// The name every Dice card goes by (they are identical).
pub const DICE_CARD_NAME: &str = "Dice card";
/// What a wild Discovery card counts as, in every text that shows one.
pub const WILD_TEXT: &str = "counts as any one tile, for Missions";

param_enum! {
    /// Which tile a Discovery card stands for, for Missions.
    pub enum DiscoveryRule {
        Named = "named",
        Wild = "wild",
    }
}

/// The four kinds of Tool token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tool {
    Compass,
    Rope,
    Map,
    Shovel,
}

impl Tool {
    pub const ALL: [Tool; 4] = [Tool::Compass, Tool::Rope, Tool::Map, Tool::Shovel];

    pub const fn index(self) -> usize {
        self as usize
    }

    pub const fn from_index(i: usize) -> Tool {
        match i & 3 {
            0 => Tool::Compass,
            1 => Tool::Rope,
            2 => Tool::Map,
            _ => Tool::Shovel,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Tool::Compass => "compass",
            Tool::Rope => "rope",
            Tool::Map => "map",
            Tool::Shovel => "shovel",
        }
    }
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A Discovery tile is an Artifact or a Place (a Place has a Lost Coin on its back).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TileKind {
    Artifact,
    Place,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tile {
    pub name: String,
    pub kind: TileKind,
    /// The tools as printed, in order (for labels).
    pub tools: Vec<Tool>,
    /// How many of each tool kind it needs, by [`Tool::index`].
    pub need: [u8; 4],
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Character {
    pub name: String,
    pub favourite: Tool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardKind {
    /// Three tiles (ids) to have discovered, and the coins printed on the card.
    Mission {
        tiles: [u8; 3],
        coins: u8,
    },
    /// Counts, for Missions, as the tile (id) printed on it (`discovery_cards: named`) or as
    /// any one tile (`wild`, the default).
    Discovery {
        tile: u8,
    },
    Dice,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Card {
    pub name: String,
    pub kind: CardKind,
}

/// A checked content set. Card ids run: Missions, then Discovery cards, then Dice cards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Content {
    pub tiles: Vec<Tile>,
    pub characters: Vec<Character>,
    pub cards: Vec<Card>,
    /// Tiles that are Places, as a bit set of tile ids.
    pub places: u64,
    /// Dice cards, as a bit set of card ids.
    pub dice_cards: u64,
}

// ---- the YAML form -------------------------------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawContent {
    tiles: Vec<RawTile>,
    characters: Vec<RawCharacter>,
    #[serde(default)]
    missions: Vec<RawMission>,
    #[serde(default)]
    discovery_cards: Vec<RawDiscovery>,
    #[serde(default)]
    dice_cards: u8,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTile {
    name: String,
    kind: TileKind,
    #[serde(default)]
    tools: Vec<Tool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCharacter {
    name: String,
    favourite: Tool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMission {
    name: String,
    discoveries: Vec<String>,
    coins: u8,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDiscovery {
    name: String,
    tile: String,
}

fn check_name(kind: &str, name: &str, seen: &mut HashMap<String, ()>) -> Result<(), String> {
    if name.trim().is_empty() {
        return Err(format!("a {kind} has an empty name"));
    }
    if seen.insert(name.to_string(), ()).is_some() {
        return Err(format!("duplicate {kind} name \"{name}\""));
    }
    Ok(())
}

/// A reading error, with the field it happened at (if any).
fn field_error(what: &str, e: serde_path_to_error::Error<serde_yaml::Error>) -> String {
    let path = e.path().to_string();
    let inner = e.into_inner();
    if path == "." || path.is_empty() { format!("{what}: {inner}") } else { format!("{what}: field `{path}`: {inner}") }
}

impl Content {
    /// Read and check a content set; `source` (a file name) is quoted in every error.
    pub fn from_yaml(source: &str, text: &str) -> Result<Content, String> {
        crate::core::yaml::check_file(text).map_err(|e| format!("content {source}: {e}"))?;
        let de = serde_yaml::Deserializer::from_str(text);
        let raw: RawContent =
            serde_path_to_error::deserialize(de).map_err(|e| field_error(&format!("content {source}"), e))?;
        Content::build(raw).map_err(|e| format!("content {source}: {e}"))
    }

    /// Read and check a content set written inline (a YAML mapping already parsed); errors name
    /// the field.
    pub fn from_value(value: serde_yaml::Value) -> Result<Content, String> {
        let raw: RawContent = serde_path_to_error::deserialize(value).map_err(|e| field_error("inline content", e))?;
        Content::build(raw).map_err(|e| format!("inline content: {e}"))
    }

    fn build(raw: RawContent) -> Result<Content, String> {
        if raw.tiles.len() < 4 || raw.tiles.len() > MAX_TILES {
            return Err(format!(
                "{} tiles: the Headquarters needs 4 and at most {MAX_TILES} are supported",
                raw.tiles.len()
            ));
        }
        let mut seen = HashMap::new();
        let mut tiles = Vec::with_capacity(raw.tiles.len());
        let mut places = 0u64;
        let mut ids = HashMap::new();
        for (i, t) in raw.tiles.into_iter().enumerate() {
            check_name("tile", &t.name, &mut seen)?;
            if t.tools.is_empty() {
                return Err(format!("tile \"{}\" needs no tools: every tile needs at least one", t.name));
            }
            if t.tools.len() > MAX_TILE_TOOLS {
                return Err(format!(
                    "tile \"{}\" needs {} tools: at most {MAX_TILE_TOOLS} are supported",
                    t.name,
                    t.tools.len()
                ));
            }
            let mut need = [0u8; 4];
            for tool in &t.tools {
                need[tool.index()] += 1;
            }
            if t.kind == TileKind::Place {
                places |= 1 << i;
            }
            ids.insert(t.name.clone(), i as u8);
            tiles.push(Tile { name: t.name, kind: t.kind, tools: t.tools, need });
        }

        if raw.characters.len() < 2 || raw.characters.len() > MAX_CHARACTERS {
            return Err(format!("{} characters: expected from 2 to {MAX_CHARACTERS}", raw.characters.len()));
        }
        let mut seen = HashMap::new();
        let mut characters = Vec::new();
        for c in raw.characters {
            check_name("character", &c.name, &mut seen)?;
            characters.push(Character { name: c.name, favourite: c.favourite });
        }

        let total = raw.missions.len() + raw.discovery_cards.len() + raw.dice_cards as usize;
        if total > MAX_CARDS {
            return Err(format!("{total} Expedition cards: at most {MAX_CARDS} are supported"));
        }
        let mut seen = HashMap::new();
        seen.insert(DICE_CARD_NAME.to_string(), ());
        let mut cards = Vec::with_capacity(total);
        let tile_id = |card: &str, what: &str, name: &str| -> Result<u8, String> {
            ids.get(name).copied().ok_or_else(|| format!("{what} \"{card}\" names unknown tile \"{name}\""))
        };
        for m in raw.missions {
            check_name("card", &m.name, &mut seen)?;
            if m.discoveries.len() != 3 {
                return Err(format!(
                    "mission \"{}\" names {} discoveries: a Mission names exactly 3",
                    m.name,
                    m.discoveries.len()
                ));
            }
            let mut t = [0u8; 3];
            for (k, d) in m.discoveries.iter().enumerate() {
                t[k] = tile_id(&m.name, "mission", d)?;
                if t[..k].contains(&t[k]) {
                    return Err(format!("mission \"{}\" names tile \"{d}\" twice", m.name));
                }
            }
            cards.push(Card { name: m.name, kind: CardKind::Mission { tiles: t, coins: m.coins } });
        }
        for d in raw.discovery_cards {
            check_name("card", &d.name, &mut seen)?;
            let tile = tile_id(&d.name, "discovery card", &d.tile)?;
            cards.push(Card { name: d.name, kind: CardKind::Discovery { tile } });
        }
        let mut dice_cards = 0u64;
        for _ in 0..raw.dice_cards {
            dice_cards |= 1 << cards.len();
            cards.push(Card { name: DICE_CARD_NAME.to_string(), kind: CardKind::Dice });
        }
        Ok(Content { tiles, characters, cards, places, dice_cards })
    }

    /// Checks that depend on the number of players.
    pub fn check_for_players(&self, players: usize) -> Result<(), String> {
        let need = crate::expedition::FACE_UP + players;
        if self.cards.len() < need {
            return Err(format!(
                "the Expedition deck holds {} cards, too few for {players} players: it needs at least {need} \
                 (four face up and one for each player's first Expedition)",
                self.cards.len()
            ));
        }
        if self.characters.len() < players {
            return Err(format!(
                "{} characters, too few for {players} players: each player needs one",
                self.characters.len()
            ));
        }
        Ok(())
    }

    /// The default content, embedded in the engine (checked by the tests).
    pub fn default_set() -> Arc<Content> {
        static DEFAULT: OnceLock<Arc<Content>> = OnceLock::new();
        DEFAULT
            .get_or_init(|| {
                Arc::new(
                    Content::from_yaml("default", include_str!("content.yaml"))
                        .expect("the embedded default content is valid"),
                )
            })
            .clone()
    }

    pub fn tile_id(&self, name: &str) -> Option<u8> {
        self.tiles.iter().position(|t| t.name == name).map(|i| i as u8)
    }

    pub fn character_id(&self, name: &str) -> Option<u8> {
        self.characters.iter().position(|c| c.name == name).map(|i| i as u8)
    }

    #[inline]
    pub fn is_place(&self, tile: u8) -> bool {
        self.places >> tile & 1 == 1
    }

    #[inline]
    pub fn is_dice(&self, card: u8) -> bool {
        self.dice_cards >> card & 1 == 1
    }

    /// A card as a person reads it, under the Discovery-card rule in force.
    pub fn card_text(&self, card: u8, discovery: DiscoveryRule) -> String {
        let c = &self.cards[card as usize];
        match c.kind {
            CardKind::Mission { tiles, coins } => format!(
                "Mission \"{}\" ({}, {}, {}: {coins} coins)",
                c.name,
                self.tiles[tiles[0] as usize].name,
                self.tiles[tiles[1] as usize].name,
                self.tiles[tiles[2] as usize].name
            ),
            CardKind::Discovery { tile } => match discovery {
                DiscoveryRule::Named => {
                    format!("Discovery \"{}\" (counts as {})", c.name, self.tiles[tile as usize].name)
                }
                DiscoveryRule::Wild => format!("Discovery \"{}\" ({WILD_TEXT})", c.name),
            },
            CardKind::Dice => DICE_CARD_NAME.to_string(),
        }
    }
}
