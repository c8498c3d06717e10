//! The options every command that builds a game shares, and building the game from them.

use clap::Args;
use engine::core::{AnySpec, GameEntry, ParamSource};
use engine::find_game;
use std::path::PathBuf;

#[derive(Args, Debug, Clone)]
pub struct GameArgs {
    /// The game: `arena games` lists them.
    pub game: String,
    /// Start from this preset (default: the game's default preset).
    #[arg(long)]
    pub preset: Option<String>,
    /// Set one parameter, e.g. `--param travellers=2` (repeatable; later wins).
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub param: Vec<String>,
    /// Read parameters from a YAML file (repeatable; applied before --param).
    #[arg(long = "params", value_name = "FILE")]
    pub params_files: Vec<PathBuf>,
    /// Number of seats (the game's `players` or `travellers` parameter).
    #[arg(long)]
    pub players: Option<u8>,
    /// A content file (the game's `content` parameter).
    #[arg(long, value_name = "FILE")]
    pub content: Option<PathBuf>,
}

pub use arena::files::load_file;

impl GameArgs {
    pub fn entry(&self) -> Result<&'static GameEntry, String> {
        find_game(&self.game)
    }

    pub fn sources(&self, entry: &GameEntry) -> Result<Vec<ParamSource>, String> {
        let mut sources = Vec::new();
        for f in &self.params_files {
            let name = f.display().to_string();
            let text = load_file(&name)?;
            sources.push(ParamSource::Yaml { name, text });
        }
        for kv in &self.param {
            let (key, value) = kv.split_once('=').ok_or_else(|| format!("--param expects KEY=VALUE, got `{kv}`"))?;
            sources.push(ParamSource::KeyValue { key: key.trim().into(), value: value.trim().into() });
        }
        if let Some(n) = self.players {
            sources.push(ParamSource::KeyValue { key: entry.seats_param.into(), value: n.to_string() });
        }
        if let Some(c) = &self.content {
            sources.push(ParamSource::KeyValue { key: "content".into(), value: c.display().to_string() });
        }
        Ok(sources)
    }

    /// The game with every parameter resolved and loaded.
    pub fn spec(&self) -> Result<Box<dyn AnySpec>, String> {
        let entry = self.entry()?;
        let sources = self.sources(entry)?;
        (entry.spec)(self.preset.as_deref(), &sources, &load_file).map_err(|e| e.to_string())
    }
}
