//! The ladder's memory: one SQLite database (`DATA/ladder.db`) in WAL mode, its schema set by
//! numbered migrations (`PRAGMA user_version`). Every finished game is committed, with its
//! rated results, in one transaction before the standings hear of it, so a kill at any moment
//! loses no finished game, and a restart reads the rated results alone (small rows), never the
//! records, to refit the same standings.
//!
//! `synchronous = NORMAL` in WAL mode survives the process being killed (kill -9, a crash);
//! only a power cut may lose the last commits.

use crate::record::MatchRecord;
use crate::standings::HistoryPoint;
use reports::ratings::RatedGame;
use rusqlite::{Connection, OptionalExtension, params};
use std::path::Path;

/// The schema, one step per migration; a database at version `k` runs steps `k..`.
const MIGRATIONS: &[&str] = &[
    // 1: agents, game entries, pairings (one deal), games with their seats, rated results,
    //    and each agent's rating over time.
    "CREATE TABLE agents (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        anchor INTEGER NOT NULL,
        first_seen_ms INTEGER NOT NULL
    );
    CREATE TABLE entries (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        label TEXT NOT NULL
    );
    CREATE TABLE pairings (
        id INTEGER PRIMARY KEY,
        entry INTEGER NOT NULL REFERENCES entries(id),
        started_ms INTEGER NOT NULL
    );
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        pairing INTEGER NOT NULL REFERENCES pairings(id),
        entry INTEGER NOT NULL REFERENCES entries(id),
        finished_ms INTEGER NOT NULL,
        record TEXT NOT NULL
    );
    CREATE TABLE game_seats (
        game INTEGER NOT NULL REFERENCES games(id),
        seat INTEGER NOT NULL,
        agent INTEGER NOT NULL REFERENCES agents(id),
        PRIMARY KEY (game, seat)
    );
    CREATE INDEX game_seats_by_agent ON game_seats(agent, game);
    CREATE TABLE rated (
        id INTEGER PRIMARY KEY,
        game INTEGER NOT NULL REFERENCES games(id),
        rated TEXT NOT NULL
    );
    CREATE TABLE history (
        agent INTEGER NOT NULL REFERENCES agents(id),
        rated_games INTEGER NOT NULL,
        rating REAL NOT NULL,
        lower REAL NOT NULL,
        upper REAL NOT NULL
    );
    CREATE INDEX history_by_agent ON history(agent, rated_games);",
    // 2: each agent's owner: the client that added it (`ClientId::stored`), none for anchors
    //    and for agents added before owners were kept (their next client owns them).
    "ALTER TABLE agents ADD COLUMN owner TEXT;",
    // 3: the last refit's standings (one row, replaced at each refit), served at once when the
    //    ladder restarts while it refits in the background.
    "CREATE TABLE fit (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        rated_games INTEGER NOT NULL,
        made_ms INTEGER NOT NULL,
        standings TEXT NOT NULL
    );",
    // 4: submissions: agents uploaded as archives (their files in `DATA/submissions/ID/`),
    //    each the agent `NAME@VERSION` it plays as, its state and the verdict that set it; the
    //    end of its stderr in each game it played (`game` NULL: its validation game).
    "CREATE TABLE submissions (
        id INTEGER PRIMARY KEY,
        agent INTEGER NOT NULL UNIQUE REFERENCES agents(id),
        command TEXT NOT NULL,
        bytes INTEGER NOT NULL,
        state TEXT NOT NULL,
        verdict TEXT NOT NULL,
        submitted_ms INTEGER NOT NULL
    );
    CREATE TABLE submission_logs (
        id INTEGER PRIMARY KEY,
        submission INTEGER NOT NULL REFERENCES submissions(id),
        game INTEGER,
        stderr BLOB NOT NULL
    );
    CREATE INDEX submission_logs_by_game ON submission_logs(submission, game);",
    // 5: leases: a game given to a worker (`workers:`), its deal and seats, until it is stored
    //    (`done`, with the game's id) or given up (`void`). A report is stored against its lease
    //    once: the lease's state changes in the game's own transaction.
    "CREATE TABLE leases (
        id TEXT PRIMARY KEY,
        worker TEXT NOT NULL,
        pairing INTEGER NOT NULL REFERENCES pairings(id),
        entry INTEGER NOT NULL REFERENCES entries(id),
        seats TEXT NOT NULL,
        seed INTEGER NOT NULL,
        issued_ms INTEGER NOT NULL,
        state TEXT NOT NULL,
        game INTEGER
    );
    CREATE INDEX leases_open ON leases(state) WHERE state = 'open';",
    // 6: people: agents who are persons playing on the web face (a challenge), not programs.
    "ALTER TABLE agents ADD COLUMN person INTEGER NOT NULL DEFAULT 0;",
];

/// A game leased to a worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaseRow {
    pub id: String,
    pub worker: String,
    pub pairing: u64,
    /// The game entry (by index) and the agent (by index) at each seat.
    pub entry: usize,
    pub seats: Vec<usize>,
    pub seed: u64,
    /// `open`, `done` or `void`.
    pub state: String,
    /// The stored game, once `done`.
    pub game: Option<u64>,
}

/// A lease's row as SQLite gives it.
type LeaseColumns = (String, String, i64, i64, String, i64, String, Option<i64>);

/// What committing a leased game did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leased {
    Stored,
    /// Its lease had been stored already, as this game.
    Already(u64),
    /// Its lease is void (or unknown): nothing stored.
    Void,
}

/// The games whose stderr is kept for each submission (its validation's aside): the newest.
pub const LOGS_KEPT: usize = 500;

/// The database's file in a ladder's data directory.
pub const FILE: &str = "ladder.db";

pub struct Store {
    conn: Connection,
}

/// One stored game, as the Ladder service lists it.
#[derive(Clone, Debug)]
pub struct StoredGame {
    pub id: u64,
    pub entry: usize,
    pub finished_ms: u64,
    pub record: MatchRecord,
}

/// One stored submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredSubmission {
    pub id: u64,
    /// The agent it plays as (by index).
    pub agent: usize,
    pub command: String,
    /// Its archive's size, as sent.
    pub bytes: u64,
    /// `validating`, `active`, `refused` or `retired`.
    pub state: String,
    /// Why it is in that state (a refusal's verdict; who retired it).
    pub verdict: String,
    pub submitted_ms: u64,
}

/// One stored agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredAgent {
    pub name: String,
    pub anchor: bool,
    /// The client that added it (`ClientId::stored`), if known.
    pub owner: Option<String>,
    /// When it was added (ms since the Unix epoch).
    pub added_ms: u64,
    /// A person (who plays on the web face).
    pub person: bool,
}

fn err(what: &str) -> impl Fn(rusqlite::Error) -> String + '_ {
    move |e| format!("the ladder's database: {what}: {e}")
}

/// One game and its rated results, inside a transaction.
fn insert(tx: &rusqlite::Transaction<'_>, record: &MatchRecord, rated: &[RatedGame]) -> Result<(), String> {
    let place = record.tournament.as_ref().ok_or("a ladder game's record has its place")?;
    let line = serde_json::to_string(record).map_err(|e| format!("cannot encode a record: {e}"))?;
    tx.execute(
        "INSERT INTO games (id, pairing, entry, finished_ms, record) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![place.job as i64, i64::from(place.deal), place.group as i64 + 1, now_ms() as i64, line],
    )
    .map_err(err("commit"))?;
    for (seat, agent) in place.seats.iter().enumerate() {
        tx.execute(
            "INSERT INTO game_seats (game, seat, agent) VALUES (?1, ?2, ?3)",
            params![place.job as i64, seat as i64, *agent as i64 + 1],
        )
        .map_err(err("commit"))?;
    }
    for r in rated {
        let text = serde_json::to_string(r).map_err(|e| format!("cannot encode results: {e}"))?;
        tx.execute("INSERT INTO rated (game, rated) VALUES (?1, ?2)", params![place.job as i64, text])
            .map_err(err("commit"))?;
    }
    Ok(())
}

pub fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

impl Store {
    /// The ladder data directory `path` names (the directory, or its `ladder.db`), if it is one.
    pub fn in_dir(path: &Path) -> Option<std::path::PathBuf> {
        if path.is_dir() && path.join(FILE).is_file() {
            return Some(path.to_path_buf());
        }
        if path.file_name().is_some_and(|f| f == FILE) && path.is_file() {
            return Some(path.parent().map_or_else(|| Path::new(".").to_path_buf(), Path::to_path_buf));
        }
        None
    }

    /// Open (or create) `dir/ladder.db`, in WAL mode, migrated to the current schema.
    pub fn open(dir: &Path) -> Result<Store, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create the ladder's directory {}: {e}", dir.display()))?;
        let path = dir.join(FILE);
        let conn = Connection::open(&path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        conn.pragma_update(None, "journal_mode", "WAL").map_err(err("WAL mode"))?;
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(err("synchronous"))?;
        conn.pragma_update(None, "foreign_keys", "ON").map_err(err("foreign keys"))?;
        conn.busy_timeout(std::time::Duration::from_secs(5)).map_err(err("busy timeout"))?;
        let mut store = Store { conn };
        store.migrate()?;
        Ok(store)
    }

    /// Run the migrations the database has not had, each in its own transaction.
    fn migrate(&mut self) -> Result<(), String> {
        let version: usize =
            self.conn.pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0)).map_err(err("version"))?
                as usize;
        if version > MIGRATIONS.len() {
            return Err(format!(
                "the ladder's database is at schema version {version}, newer than this arena's {}: use a newer arena",
                MIGRATIONS.len()
            ));
        }
        for (k, step) in MIGRATIONS.iter().enumerate().skip(version) {
            let tx = self.conn.transaction().map_err(err("migration"))?;
            tx.execute_batch(step).map_err(err("migration"))?;
            tx.pragma_update(None, "user_version", (k + 1) as i64).map_err(err("migration"))?;
            tx.commit().map_err(err("migration"))?;
        }
        Ok(())
    }

    /// The index (0 first, in order of first appearance) of the agent `name`, added if new
    /// (owned by `owner`, if given).
    pub fn agent(&mut self, name: &str, anchor: bool) -> Result<usize, String> {
        self.agent_of(name, anchor, None)
    }

    /// [`Store::agent`], a new agent owned by `owner`.
    pub fn agent_of(&mut self, name: &str, anchor: bool, owner: Option<&str>) -> Result<usize, String> {
        let found: Option<i64> = self
            .conn
            .query_row("SELECT id FROM agents WHERE name = ?1", [name], |r| r.get(0))
            .optional()
            .map_err(err("agents"))?;
        let id = match found {
            Some(id) => {
                if anchor {
                    self.conn.execute("UPDATE agents SET anchor = 1 WHERE id = ?1", [id]).map_err(err("agents"))?;
                }
                id
            }
            None => {
                self.conn
                    .execute(
                        "INSERT INTO agents (name, anchor, first_seen_ms, owner) VALUES (?1, ?2, ?3, ?4)",
                        params![name, anchor, now_ms() as i64, owner],
                    )
                    .map_err(err("agents"))?;
                self.conn.last_insert_rowid()
            }
        };
        Ok(id as usize - 1)
    }

    /// Every agent ever seen, by index: its name and whether it is one of the anchors.
    pub fn agents(&self) -> Result<Vec<(String, bool)>, String> {
        Ok(self.stored_agents()?.into_iter().map(|a| (a.name, a.anchor)).collect())
    }

    /// Every agent ever seen, by index, all that is kept of it.
    pub fn stored_agents(&self) -> Result<Vec<StoredAgent>, String> {
        let mut q = self
            .conn
            .prepare("SELECT name, anchor, owner, first_seen_ms, person FROM agents ORDER BY id")
            .map_err(err("agents"))?;
        let rows = q
            .query_map([], |r| {
                Ok(StoredAgent {
                    name: r.get(0)?,
                    anchor: r.get(1)?,
                    owner: r.get(2)?,
                    added_ms: r.get::<_, i64>(3)? as u64,
                    person: r.get(4)?,
                })
            })
            .map_err(err("agents"))?;
        rows.collect::<Result<_, _>>().map_err(err("agents"))
    }

    /// Agent `agent` (by index) is a person.
    pub fn set_person(&mut self, agent: usize) -> Result<(), String> {
        self.conn
            .execute("UPDATE agents SET person = 1 WHERE id = ?1", params![agent as i64 + 1])
            .map(|_| ())
            .map_err(err("agents"))
    }

    /// Agent `agent` (by index) is owned by `owner` from now on.
    pub fn set_owner(&mut self, agent: usize, owner: &str) -> Result<(), String> {
        self.conn
            .execute("UPDATE agents SET owner = ?1 WHERE id = ?2", params![owner, agent as i64 + 1])
            .map(|_| ())
            .map_err(err("agents"))
    }

    /// A new submission, playing as agent `agent` (validating).
    /// Its id, and when it was submitted.
    pub fn add_submission(&mut self, agent: usize, command: &str, bytes: u64) -> Result<(u64, u64), String> {
        let now = now_ms();
        self.conn
            .execute(
                "INSERT INTO submissions (agent, command, bytes, state, verdict, submitted_ms)
                 VALUES (?1, ?2, ?3, 'validating', '', ?4)",
                params![agent as i64 + 1, command, bytes as i64, now as i64],
            )
            .map_err(err("submissions"))?;
        Ok((self.conn.last_insert_rowid() as u64, now))
    }

    /// Submission `id` is now in `state`, for `verdict`.
    pub fn set_submission(&mut self, id: u64, state: &str, verdict: &str) -> Result<(), String> {
        self.conn
            .execute(
                "UPDATE submissions SET state = ?1, verdict = ?2 WHERE id = ?3",
                params![state, verdict, id as i64],
            )
            .map(|_| ())
            .map_err(err("submissions"))
    }

    /// Submission `id`, if stored.
    pub fn submission(&self, id: u64) -> Result<Option<StoredSubmission>, String> {
        Ok(self.submissions_where("WHERE id = ?1", id)?.pop())
    }

    /// Every submission, oldest first.
    pub fn submissions(&self) -> Result<Vec<StoredSubmission>, String> {
        self.submissions_where("WHERE ?1 = ?1", 0)
    }

    fn submissions_where(&self, filter: &str, id: u64) -> Result<Vec<StoredSubmission>, String> {
        let mut q = self
            .conn
            .prepare(&format!(
                "SELECT id, agent, command, bytes, state, verdict, submitted_ms FROM submissions {filter} ORDER BY id"
            ))
            .map_err(err("submissions"))?;
        let rows = q
            .query_map([id as i64], |r| {
                Ok(StoredSubmission {
                    id: r.get::<_, i64>(0)? as u64,
                    agent: r.get::<_, i64>(1)? as usize - 1,
                    command: r.get(2)?,
                    bytes: r.get::<_, i64>(3)? as u64,
                    state: r.get(4)?,
                    verdict: r.get(5)?,
                    submitted_ms: r.get::<_, i64>(6)? as u64,
                })
            })
            .map_err(err("submissions"))?;
        rows.collect::<Result<_, _>>().map_err(err("submissions"))
    }

    /// Keep the end of submission `id`'s stderr in game `game` (None: its validation game);
    /// only its [`LOGS_KEPT`] newest games' are kept.
    pub fn keep_log(&mut self, id: u64, game: Option<u64>, stderr: &[u8]) -> Result<(), String> {
        let tx = self.conn.transaction().map_err(err("logs"))?;
        tx.execute(
            "INSERT INTO submission_logs (submission, game, stderr) VALUES (?1, ?2, ?3)",
            params![id as i64, game.map(|g| g as i64), stderr],
        )
        .map_err(err("logs"))?;
        tx.execute(
            "DELETE FROM submission_logs WHERE submission = ?1 AND game IS NOT NULL AND id NOT IN
             (SELECT id FROM submission_logs WHERE submission = ?1 AND game IS NOT NULL ORDER BY id DESC LIMIT ?2)",
            params![id as i64, LOGS_KEPT as i64],
        )
        .map_err(err("logs"))?;
        tx.commit().map_err(err("logs"))
    }

    /// The end of submission `id`'s stderr in game `game` (None: its validation game), if kept.
    pub fn log(&self, id: u64, game: Option<u64>) -> Result<Option<Vec<u8>>, String> {
        self.conn
            .query_row(
                "SELECT stderr FROM submission_logs WHERE submission = ?1 AND game IS ?2 ORDER BY id DESC LIMIT 1",
                params![id as i64, game.map(|g| g as i64)],
                |r| r.get(0),
            )
            .optional()
            .map_err(err("logs"))
    }

    /// The games whose stderr is kept for submission `id`, newest first (its validation's
    /// aside).
    pub fn logged_games(&self, id: u64) -> Result<Vec<u64>, String> {
        let mut q = self
            .conn
            .prepare("SELECT game FROM submission_logs WHERE submission = ?1 AND game IS NOT NULL ORDER BY id DESC")
            .map_err(err("logs"))?;
        let rows = q.query_map([id as i64], |r| r.get::<_, i64>(0).map(|g| g as u64)).map_err(err("logs"))?;
        rows.collect::<Result<_, _>>().map_err(err("logs"))
    }

    /// The index of the game entry `key` (its game and every parameter), added if new.
    pub fn entry(&mut self, key: &str, label: &str) -> Result<usize, String> {
        let found: Option<i64> = self
            .conn
            .query_row("SELECT id FROM entries WHERE key = ?1", [key], |r| r.get(0))
            .optional()
            .map_err(err("entries"))?;
        let id = match found {
            Some(id) => id,
            None => {
                self.conn
                    .execute("INSERT INTO entries (key, label) VALUES (?1, ?2)", params![key, label])
                    .map_err(err("entries"))?;
                self.conn.last_insert_rowid()
            }
        };
        Ok(id as usize - 1)
    }

    /// Every game entry ever played, by index: its key and label.
    pub fn entries(&self) -> Result<Vec<(String, String)>, String> {
        let mut q = self.conn.prepare("SELECT key, label FROM entries ORDER BY id").map_err(err("entries"))?;
        let rows = q.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).map_err(err("entries"))?;
        rows.collect::<Result<_, _>>().map_err(err("entries"))
    }

    /// A new pairing (one deal, played in every seat order) of game entry `entry`.
    pub fn pairing(&mut self, entry: usize) -> Result<u64, String> {
        self.conn
            .execute(
                "INSERT INTO pairings (entry, started_ms) VALUES (?1, ?2)",
                params![entry as i64 + 1, now_ms() as i64],
            )
            .map_err(err("pairings"))?;
        Ok(self.conn.last_insert_rowid() as u64)
    }

    /// Pairings each agent has played (at least one game of) in each entry: (agent, entry) →
    /// count, both by index.
    pub fn pairings_played(&self) -> Result<std::collections::HashMap<(usize, usize), u64>, String> {
        let mut q = self
            .conn
            .prepare(
                "SELECT s.agent, g.entry, COUNT(DISTINCT g.pairing) FROM games g JOIN game_seats s ON s.game = g.id
                 GROUP BY s.agent, g.entry",
            )
            .map_err(err("pairings"))?;
        let rows = q
            .query_map([], |r| {
                Ok(((r.get::<_, i64>(0)? as usize - 1, r.get::<_, i64>(1)? as usize - 1), r.get::<_, i64>(2)? as u64))
            })
            .map_err(err("pairings"))?;
        rows.collect::<Result<_, _>>().map_err(err("pairings"))
    }

    /// The id the next committed game will have.
    pub fn next_game(&self) -> Result<u64, String> {
        self.conn
            .query_row("SELECT COALESCE(MAX(id), 0) + 1 FROM games", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
            .map_err(err("games"))
    }

    /// Commit a finished game (its record's `tournament` place names its id, entry, pairing
    /// and seats) and the rated results it completes, in one transaction.
    pub fn commit(&mut self, record: &MatchRecord, rated: &[RatedGame]) -> Result<(), String> {
        let tx = self.conn.transaction().map_err(err("commit"))?;
        insert(&tx, record, rated)?;
        tx.commit().map_err(err("commit"))
    }

    /// A game leased to a worker, open.
    pub fn add_lease(&mut self, lease: &LeaseRow) -> Result<(), String> {
        let seats = serde_json::to_string(&lease.seats).map_err(|e| e.to_string())?;
        self.conn
            .execute(
                "INSERT INTO leases (id, worker, pairing, entry, seats, seed, issued_ms, state)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'open')",
                params![
                    lease.id,
                    lease.worker,
                    lease.pairing as i64,
                    lease.entry as i64 + 1,
                    seats,
                    lease.seed as i64,
                    now_ms() as i64
                ],
            )
            .map(|_| ())
            .map_err(err("leases"))
    }

    fn lease_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<LeaseColumns> {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?))
    }

    fn lease_of((id, worker, pairing, entry, seats, seed, state, game): LeaseColumns) -> Result<LeaseRow, String> {
        let seats = serde_json::from_str(&seats).map_err(|e| format!("the ladder's database: lease {id}: {e}"))?;
        Ok(LeaseRow {
            id,
            worker,
            pairing: pairing as u64,
            entry: entry as usize - 1,
            seats,
            seed: seed as u64,
            state,
            game: game.map(|g| g as u64),
        })
    }

    const LEASE_COLUMNS: &str = "id, worker, pairing, entry, seats, seed, state, game";

    /// Lease `id`, if there is one.
    pub fn lease(&self, id: &str) -> Result<Option<LeaseRow>, String> {
        let row = self
            .conn
            .query_row(&format!("SELECT {} FROM leases WHERE id = ?1", Self::LEASE_COLUMNS), [id], Self::lease_row)
            .optional()
            .map_err(err("leases"))?;
        row.map(Self::lease_of).transpose()
    }

    /// The leases still open (a ladder that stopped with games in its workers' hands).
    pub fn open_leases(&self) -> Result<Vec<LeaseRow>, String> {
        let mut q = self
            .conn
            .prepare(&format!("SELECT {} FROM leases WHERE state = 'open' ORDER BY rowid", Self::LEASE_COLUMNS))
            .map_err(err("leases"))?;
        let rows = q.query_map([], Self::lease_row).map_err(err("leases"))?;
        rows.map(|r| r.map_err(err("leases")).and_then(Self::lease_of)).collect()
    }

    /// Give lease `id` up, if it is open: nothing will be stored against it. Was it open?
    pub fn void_lease(&mut self, id: &str) -> Result<bool, String> {
        self.conn
            .execute("UPDATE leases SET state = 'void' WHERE id = ?1 AND state = 'open'", [id])
            .map(|n| n == 1)
            .map_err(err("leases"))
    }

    /// Leases in each state: (open, done, void).
    pub fn lease_counts(&self) -> Result<(u64, u64, u64), String> {
        let count = |state: &str| {
            self.conn
                .query_row("SELECT COUNT(*) FROM leases WHERE state = ?1", [state], |r| r.get::<_, i64>(0))
                .map(|n| n as u64)
                .map_err(err("leases"))
        };
        Ok((count("open")?, count("done")?, count("void")?))
    }

    /// Commit a game played under lease `lease` ([`Store::commit`]), if the lease is open: the
    /// lease is `done` in the same transaction, so a game is stored once however often it is
    /// reported.
    pub fn commit_leased(&mut self, record: &MatchRecord, rated: &[RatedGame], lease: &str) -> Result<Leased, String> {
        let tx = self.conn.transaction().map_err(err("commit"))?;
        let row: Option<(String, Option<i64>)> = tx
            .query_row("SELECT state, game FROM leases WHERE id = ?1", [lease], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()
            .map_err(err("leases"))?;
        match row {
            Some((state, _)) if state == "open" => {}
            Some((state, Some(game))) if state == "done" => return Ok(Leased::Already(game as u64)),
            _ => return Ok(Leased::Void),
        }
        insert(&tx, record, rated)?;
        let game = record.place().job as i64;
        tx.execute("UPDATE leases SET state = 'done', game = ?1 WHERE id = ?2", params![game, lease])
            .map_err(err("leases"))?;
        tx.commit().map_err(err("commit"))?;
        Ok(Leased::Stored)
    }

    /// Commit many games in one transaction (a bulk load: benchmarks, imports).
    pub fn commit_all(&mut self, games: &[(MatchRecord, Vec<RatedGame>)]) -> Result<(), String> {
        let tx = self.conn.transaction().map_err(err("commit"))?;
        for (record, rated) in games {
            insert(&tx, record, rated)?;
        }
        tx.commit().map_err(err("commit"))
    }

    /// Every rated result, in the order committed.
    pub fn rated(&self) -> Result<Vec<RatedGame>, String> {
        let mut q = self.conn.prepare("SELECT rated FROM rated ORDER BY id").map_err(err("rated"))?;
        let rows = q.query_map([], |r| r.get::<_, String>(0)).map_err(err("rated"))?;
        let mut out = Vec::new();
        for text in rows {
            let text = text.map_err(err("rated"))?;
            out.push(serde_json::from_str(&text).map_err(|e| format!("the ladder's database: a rated result: {e}"))?);
        }
        Ok(out)
    }

    /// Finished games stored.
    pub fn games(&self) -> Result<u64, String> {
        self.conn
            .query_row("SELECT COUNT(*) FROM games", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
            .map_err(err("games"))
    }

    fn stored(row: &rusqlite::Row<'_>) -> rusqlite::Result<(i64, i64, i64, String)> {
        Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
    }

    fn parse((id, entry, finished, text): (i64, i64, i64, String)) -> Result<StoredGame, String> {
        let record = serde_json::from_str(&text).map_err(|e| format!("the ladder's database: game {id}: {e}"))?;
        Ok(StoredGame { id: id as u64, entry: entry as usize - 1, finished_ms: finished as u64, record })
    }

    /// One game, if stored.
    pub fn game(&self, id: u64) -> Result<Option<StoredGame>, String> {
        let row = self
            .conn
            .query_row("SELECT id, entry, finished_ms, record FROM games WHERE id = ?1", [id as i64], Self::stored)
            .optional()
            .map_err(err("games"))?;
        row.map(Self::parse).transpose()
    }

    /// Every game, in the order finished (for reports and replays).
    pub fn all_games(&self) -> Result<Vec<StoredGame>, String> {
        let mut q =
            self.conn.prepare("SELECT id, entry, finished_ms, record FROM games ORDER BY id").map_err(err("games"))?;
        let rows = q.query_map([], Self::stored).map_err(err("games"))?;
        rows.map(|r| r.map_err(err("games")).and_then(Self::parse)).collect()
    }

    /// The agent's latest games, newest first, of the pairings `shown` lets through (by
    /// pairing id): at most `limit` of those, the limit counted after the filter.
    pub fn recent(&self, agent: usize, limit: usize, shown: impl Fn(u64) -> bool) -> Result<Vec<StoredGame>, String> {
        let mut q = self
            .conn
            .prepare(
                "SELECT g.id, g.entry, g.finished_ms, g.record, g.pairing FROM games g
                 WHERE g.id IN (SELECT game FROM game_seats WHERE agent = ?1)
                 ORDER BY g.id DESC",
            )
            .map_err(err("games"))?;
        let mut rows = q.query(params![agent as i64 + 1]).map_err(err("games"))?;
        let mut out = Vec::new();
        while out.len() < limit {
            let Some(row) = rows.next().map_err(err("games"))? else { break };
            let pairing: i64 = row.get(4).map_err(err("games"))?;
            if shown(pairing as u64) {
                out.push(Self::stored(row).map_err(err("games")).and_then(Self::parse)?);
            }
        }
        Ok(out)
    }

    /// Keep `standings` (JSON), the refit over `rated_games` results, in place of the last.
    pub fn save_fit(&mut self, rated_games: u64, standings: &str) -> Result<(), String> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO fit (id, rated_games, made_ms, standings) VALUES (1, ?1, ?2, ?3)",
                params![rated_games as i64, now_ms() as i64, standings],
            )
            .map(|_| ())
            .map_err(err("fit"))
    }

    /// The last refit kept: the results it is over, and its standings (JSON).
    pub fn last_fit(&self) -> Result<Option<(u64, String)>, String> {
        self.conn
            .query_row("SELECT rated_games, standings FROM fit WHERE id = 1", [], |r| {
                Ok((r.get::<_, i64>(0)? as u64, r.get::<_, String>(1)?))
            })
            .optional()
            .map_err(err("fit"))
    }

    /// Note every rated agent's overall rating at a refit over `rated_games` results.
    pub fn note_history(&mut self, rated_games: u64, points: &[(usize, f64, f64, f64)]) -> Result<(), String> {
        let tx = self.conn.transaction().map_err(err("history"))?;
        for (agent, rating, lower, upper) in points {
            tx.execute(
                "INSERT INTO history (agent, rated_games, rating, lower, upper) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![*agent as i64 + 1, rated_games as i64, rating, lower, upper],
            )
            .map_err(err("history"))?;
        }
        tx.commit().map_err(err("history"))
    }

    /// The rated results at the last point of any history (0: none yet).
    pub fn last_history(&self) -> Result<u64, String> {
        self.conn
            .query_row("SELECT COALESCE(MAX(rated_games), 0) FROM history", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
            .map_err(err("history"))
    }

    /// An agent's rating over time, oldest first.
    pub fn history(&self, agent: usize) -> Result<Vec<HistoryPoint>, String> {
        let mut q = self
            .conn
            .prepare("SELECT rated_games, rating, lower, upper FROM history WHERE agent = ?1 ORDER BY rowid")
            .map_err(err("history"))?;
        let rows = q
            .query_map([agent as i64 + 1], |r| {
                Ok(HistoryPoint {
                    rated_games: r.get::<_, i64>(0)? as u64,
                    rating: r.get(1)?,
                    lower: r.get(2)?,
                    upper: r.get(3)?,
                })
            })
            .map_err(err("history"))?;
        rows.collect::<Result<_, _>>().map_err(err("history"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::TournamentGame;
    use crate::referee::MatchOutcome;
    use reports::ratings::Pairwise;

    fn record(job: u64, pairing: u32, seats: Vec<usize>) -> MatchRecord {
        MatchRecord {
            game: engine::core::Record {
                game: "expedition".into(),
                rules_version: 1,
                params: serde_yaml::Value::Null,
                seed: 7,
                scenario: None,
                actions: vec![1, 2, 3],
            },
            players: seats.iter().map(|s| format!("p{s}")).collect(),
            outcome: MatchOutcome::played(engine::core::Outcome {
                scores: vec![1, 0],
                ranks: vec![0, 1],
                achieved: vec![],
            }),
            verdicts: vec![],
            metrics: Default::default(),
            move_ms: vec![],
            match_id: None,
            tournament: Some(TournamentGame { job, group: 0, label: "e".into(), deal: pairing, seats, play_ms: 0.0 }),
        }
    }

    #[test]
    fn what_is_committed_is_there_after_reopening_and_migrations_run_once() {
        let dir = std::env::temp_dir().join(format!("ladder-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        {
            let mut s = Store::open(&dir).unwrap();
            assert_eq!(
                (s.agent("a", true).unwrap(), s.agent("b", false).unwrap(), s.agent("a", false).unwrap()),
                (0, 1, 0)
            );
            assert_eq!(s.entry("expedition\n{}", "e").unwrap(), 0);
            let p = s.pairing(0).unwrap() as u32;
            let id = s.next_game().unwrap();
            let rated = RatedGame { group: 0, unit: 1, results: vec![Pairwise { a: 0, b: 1, score: 1.0 }], plays: 1 };
            s.commit(&record(id, p, vec![0, 1]), std::slice::from_ref(&rated)).unwrap();
            s.note_history(1, &[(0, 10.0, -5.0, 25.0)]).unwrap();
            // A game whose id is taken already is refused, and leaves nothing behind.
            assert!(s.commit(&record(id, p, vec![1, 0]), std::slice::from_ref(&rated)).is_err());
            assert_eq!(s.rated().unwrap().len(), 1);
        }
        let s = Store::open(&dir).unwrap();
        assert_eq!(s.agents().unwrap(), vec![("a".to_string(), true), ("b".to_string(), false)]);
        assert_eq!(s.games().unwrap(), 1);
        assert_eq!(s.rated().unwrap()[0].results[0].score, 1.0);
        assert_eq!(s.recent(1, 5, |_| true).unwrap()[0].record.players, vec!["p0", "p1"]);
        assert!(s.game(2).unwrap().is_none());
        assert_eq!(s.history(0).unwrap()[0].rating, 10.0);
        let journal: String = s.conn.pragma_query_value(None, "journal_mode", |r| r.get(0)).unwrap();
        assert_eq!(journal, "wal");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn recent_games_count_their_limit_after_the_pairings_held_back() {
        let dir = std::env::temp_dir().join(format!("ladder-store-recent-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut s = Store::open(&dir).unwrap();
        s.agent("a", false).unwrap();
        s.agent("b", false).unwrap();
        s.entry("expedition\n{}", "e").unwrap();
        // Four pairings of two games each; the newest two are in play (held back).
        let mut pairings = Vec::new();
        for _ in 0..4 {
            let p = s.pairing(0).unwrap();
            pairings.push(p);
            for seats in [vec![0, 1], vec![1, 0]] {
                let id = s.next_game().unwrap();
                s.commit(&record(id, p as u32, seats), &[]).unwrap();
            }
        }
        let open = [pairings[2], pairings[3]];
        let shown = |p: u64| !open.contains(&p);
        for limit in [1, 2, 3, 4, 5, 8, 10] {
            let games = s.recent(0, limit, shown).unwrap();
            assert_eq!(games.len(), limit.min(4), "limit {limit}");
            assert!(games.iter().all(|g| shown(u64::from(g.record.place().deal))));
            assert!(games.windows(2).all(|w| w[0].id > w[1].id), "newest first");
        }
        assert_eq!(s.recent(0, 10, |_| true).unwrap().len(), 8);
        drop(s);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
