//! The games the registry knows, found by name, and the replay of a record (which names its
//! game). `core` defines what a game entry is; the list of them lives here, above the games.

use crate::core::{AnyGame, GameEntry, Record, ReplayError};
use crate::{expedition, journey};

/// Every game, in listing order.
static GAMES: &[GameEntry] = &[
    GameEntry::of::<journey::Journey>("cooperative card game for 1-4 travellers (classic, martian, dunwich)"),
    GameEntry::of::<expedition::Expedition>("competitive board game for 2-4 players, dice game and no-dice variant"),
];

/// Every game, in the order `arena games` lists them.
pub fn games() -> &'static [GameEntry] {
    GAMES
}

/// The game called `name`, or an error listing the valid names.
pub fn find_game(name: &str) -> Result<&'static GameEntry, String> {
    games().iter().find(|g| g.name == name).ok_or_else(|| {
        let names: Vec<_> = games().iter().map(|g| g.name).collect();
        format!("unknown game `{name}`; the games are: {}", names.join(", "))
    })
}

impl Record {
    /// Play the record from the start. `visit` sees the state before every action and the
    /// final state.
    pub fn replay(
        &self,
        load: &dyn Fn(&str) -> Result<String, String>,
        mut visit: impl FnMut(&dyn AnyGame),
    ) -> Result<Box<dyn AnyGame>, ReplayError> {
        let entry = find_game(&self.game).map_err(ReplayError::Setup)?;
        let spec = (entry.spec)(None, &[self.param_source()], load).map_err(|e| ReplayError::Setup(e.to_string()))?;
        if self.rules_version != spec.rules_version() {
            return Err(ReplayError::RulesVersion {
                game: self.game.clone(),
                recorded: self.rules_version,
                current: spec.rules_version(),
            });
        }
        let mut game = match &self.scenario {
            Some(yaml) => spec.scenario(self.seed, yaml).map_err(ReplayError::Setup)?,
            None => spec.new_game(self.seed),
        };
        for (index, &a) in self.actions.iter().enumerate() {
            visit(game.as_ref());
            game.apply(a).map_err(|error| ReplayError::Action { index, error })?;
        }
        visit(game.as_ref());
        Ok(game)
    }
}
