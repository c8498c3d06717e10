//! The rules pages' texts: every `docs/rules/GAME.md`, embedded as `(GAME, text)` in
//! `OUT_DIR/rules.rs` (so that no code of the arena names a game: the files do).

use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/rules");
    println!("cargo::rerun-if-changed={}", dir.display());
    let mut rules: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let path = e.path();
            let game = path.file_name()?.to_str()?.strip_suffix(".md")?.to_string();
            let path = std::fs::canonicalize(&path).ok()?;
            println!("cargo::rerun-if-changed={}", path.display());
            Some((game, path.to_str()?.to_string()))
        })
        .collect();
    rules.sort();
    let entries: String =
        rules.iter().map(|(game, path)| format!("    ({game:?}, include_str!({path:?})),\n")).collect();
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("rules.rs");
    std::fs::write(&out, format!("&[\n{entries}]\n")).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}
