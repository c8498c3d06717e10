//! The house's plan, checked against the house: ARCHITECTURE.md's dependency table against
//! every crate's `Cargo.toml`, and no cycle among the modules of any crate, read from their
//! imports. Both read files only (nothing is built or run), so they hold for every crate of the
//! workspace whatever this crate depends on.
//!
//! The table: its last column (`may depend on`) names each crate's `[dependencies]` as code
//! spans (`` `serde` ``); words around them are free prose. A workspace dependency
//! (`engine.workspace = true`) counts by its name.
//!
//! The modules: each file module of a crate's `src/` (from `lib.rs` or `main.rs`, following
//! `mod name;`) is a node; `use` declarations and paths written from `crate::`, `super::` or
//! `self::` are its edges, to the deepest module they name, through re-exports (`pub use`) to
//! where an item is defined. A module and the modules inside it are one namespace: the parent
//! declares its children and re-exports them, the children read what it holds for all of them,
//! so edges between a module and its own ancestor are not counted. Test modules
//! (`#[cfg(test)]`) are left out. A cycle is a ring of edges among the rest. The same is
//! checked one level up: each top-level module (a subsystem: `tournament`, `ladder`) standing
//! for every module inside it, no two of them may import each other, however deep the imports.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

/// The workspace's root directory.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("arena/ is inside the workspace").to_path_buf()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

// ----- the dependency table ------------------------------------------------------------------

/// The workspace's members, as written in the root `Cargo.toml` (`engine`, `bots/python`).
fn members(root_toml: &str) -> Vec<String> {
    let start = root_toml.find("members").expect("the root Cargo.toml lists its members");
    let open = start + root_toml[start..].find('[').expect("members = [");
    let close = open + root_toml[open..].find(']').expect("members = [...]");
    root_toml[open + 1..close]
        .split(',')
        .map(|m| m.trim().trim_matches('"').to_string())
        .filter(|m| !m.is_empty())
        .collect()
}

/// The names of a `Cargo.toml`'s dependencies (`[dependencies]`, `[dependencies.NAME]`, and
/// the same under `[target.'…'.dependencies]`): each entry's key, so a workspace dependency by
/// its name. Build and dev dependencies are not a crate's dependencies.
fn dependencies(toml: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut in_dependencies = false;
    for line in toml.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if let Some(header) = line.strip_prefix('[') {
            let header = header.trim_end_matches(']').trim();
            let section = header.strip_prefix("target.").map_or(header, |t| {
                // `target.'cfg(unix)'.dependencies`: what follows the quoted condition.
                t.rsplit_once('.').map_or(t, |(_, last)| last)
            });
            in_dependencies = section == "dependencies";
            if let Some(name) = section.strip_prefix("dependencies.") {
                names.insert(name.trim_matches('"').to_string());
            }
            continue;
        }
        if in_dependencies && !line.is_empty() {
            let key: String = line.chars().take_while(|c| !matches!(c, '=' | '.' | ' ' | '\t')).collect();
            names.insert(key.trim_matches('"').to_string());
        }
    }
    names
}

/// ARCHITECTURE.md's crate table: each crate's directory (`engine`, `bots/python`) and the
/// names its last column gives as code spans.
fn table(md: &str) -> Result<BTreeMap<String, BTreeSet<String>>, String> {
    let cells = |line: &str| -> Vec<String> {
        line.trim().trim_start_matches('|').trim_end_matches('|').split('|').map(|c| c.trim().to_string()).collect()
    };
    let mut lines = md.lines().skip_while(|l| !l.trim_start().starts_with("| crate |"));
    let header = lines.next().ok_or("ARCHITECTURE.md has no table whose first column is `crate`")?;
    if cells(header).last().map(String::as_str) != Some("may depend on") {
        return Err(format!("the crate table's last column should be `may depend on`: {header}"));
    }
    let mut rows = BTreeMap::new();
    for line in lines.skip(1).take_while(|l| l.trim_start().starts_with('|')) {
        let row = cells(line);
        let name = row[0].trim_matches('`').trim_end_matches('/').to_string();
        let names = row
            .last()
            .expect("a row has cells")
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .map(str::to_string)
            .collect();
        if rows.insert(name.clone(), names).is_some() {
            return Err(format!("the crate table has two rows for `{name}/`"));
        }
    }
    Ok(rows)
}

/// What differs between the table and the `Cargo.toml`s (crate directory → its dependencies),
/// one line each; empty when they agree.
fn table_differences(
    table: &BTreeMap<String, BTreeSet<String>>,
    cargo: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<String> {
    let list = |names: Vec<&String>| names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
    let mut out = Vec::new();
    for (krate, deps) in cargo {
        let Some(listed) = table.get(krate) else {
            out.push(format!("`{krate}/` is a member of the workspace but has no row"));
            continue;
        };
        let missing: Vec<&String> = deps.difference(listed).collect();
        if !missing.is_empty() {
            out.push(format!("`{krate}/`: its Cargo.toml depends on {}, which the table does not list", list(missing)));
        }
        let extra: Vec<&String> = listed.difference(deps).collect();
        if !extra.is_empty() {
            out.push(format!("`{krate}/`: the table lists {}, which its Cargo.toml does not depend on", list(extra)));
        }
    }
    for krate in table.keys().filter(|k| !cargo.contains_key(*k)) {
        out.push(format!("`{krate}/` has a row but is no member of the workspace"));
    }
    out
}

#[test]
fn the_dependency_table_is_the_cargo_tomls() {
    let root = workspace();
    let table = table(&read(&root.join("ARCHITECTURE.md"))).unwrap_or_else(|e| panic!("{e}"));
    let cargo: BTreeMap<String, BTreeSet<String>> = members(&read(&root.join("Cargo.toml")))
        .into_iter()
        .map(|m| {
            let deps = dependencies(&read(&root.join(&m).join("Cargo.toml")));
            (m, deps)
        })
        .collect();
    assert!(cargo.len() >= 6 && cargo["engine"].contains("rand"), "the Cargo.tomls read: {cargo:?}");
    let differences = table_differences(&table, &cargo);
    assert!(
        differences.is_empty(),
        "ARCHITECTURE.md's dependency table (its `may depend on` column, as code spans) disagrees with the \
         Cargo.tomls:\n  {}",
        differences.join("\n  ")
    );
}

#[test]
fn the_table_check_names_the_crate_and_what_differs() {
    let md = "# A\n\n| crate | what it is | may depend on |\n|---|---|---|\n| `core/` | rules | `rand`, `serde` \
              (for `files`, see `x/y.rs`) |\n| `app/` | the binary | `core`, `clap` |\n| `gone/` | old | `rand` |\n";
    let rows = table(md).unwrap();
    assert_eq!(rows["core"], ["rand", "serde", "files"].map(String::from).into());
    let toml = "[package]\nname = \"core\"\n\n[dependencies]\nrand.workspace = true\nserde = { version = \"1\" }\n\
                # a comment\n\n[dependencies.itoa]\nversion = \"1\"\n\n[dev-dependencies]\nproptest = \"1\"\n";
    assert_eq!(dependencies(toml), ["itoa", "rand", "serde"].map(String::from).into());
    let cargo: BTreeMap<String, BTreeSet<String>> = [
        ("core".to_string(), dependencies(toml)),
        ("app".to_string(), ["core", "clap"].map(String::from).into()),
        ("new".to_string(), BTreeSet::new()),
    ]
    .into();
    assert_eq!(
        table_differences(&rows, &cargo),
        vec![
            "`core/`: its Cargo.toml depends on `itoa`, which the table does not list",
            "`core/`: the table lists `files`, which its Cargo.toml does not depend on",
            "`new/` is a member of the workspace but has no row",
            "`gone/` has a row but is no member of the workspace",
        ]
    );
    let e = table("| crate | what it is |\n|---|---|\n| `a/` | x |\n").unwrap_err();
    assert!(e.contains("last column should be `may depend on`"), "{e}");
}

// ----- the command list ----------------------------------------------------------------------

/// The subcommands of `enum Command` in `arena/src/main.rs`, as clap names them (each variant
/// in kebab case: `BenchWire` is `bench-wire`).
fn subcommands(main_rs: &str) -> Vec<String> {
    let code = strip(main_rs);
    let start = code.find("enum Command").expect("arena/src/main.rs has `enum Command`");
    let open = start + code[start..].find('{').expect("enum Command {");
    let close = open + code[open..].find('}').expect("enum Command { ... }");
    let mut names = Vec::new();
    for line in code[open + 1..close].lines() {
        let line = line.trim();
        if line.starts_with("#[") || line.is_empty() {
            assert!(!line.contains("name"), "a renamed subcommand is not read here: {line}");
            continue;
        }
        let variant: String = line.chars().take_while(|c| c.is_alphanumeric()).collect();
        let mut kebab = String::new();
        for (i, ch) in variant.chars().enumerate() {
            if ch.is_uppercase() && i > 0 {
                kebab.push('-');
            }
            kebab.extend(ch.to_lowercase());
        }
        names.push(kebab);
    }
    names
}

/// The commands ARCHITECTURE.md's crate table gives the `arena` binary: the code spans in the
/// parentheses after "the `arena` binary" in the row of `arena/`.
fn listed_commands(md: &str) -> Result<BTreeSet<String>, String> {
    let row = md.lines().find(|l| l.trim_start().starts_with("| `arena/` |")).ok_or("no row for `arena/`")?;
    let after =
        row.split_once("the `arena` binary (").ok_or("the `arena/` row does not say \"the `arena` binary (…)\"")?.1;
    let list = after.split_once(')').ok_or("the `arena` binary's list is not closed")?.0;
    Ok(list.split('`').skip(1).step_by(2).map(str::to_string).collect())
}

#[test]
fn every_subcommand_is_in_the_architecture() {
    let root = workspace();
    let commands: BTreeSet<String> = subcommands(&read(&root.join("arena/src/main.rs"))).into_iter().collect();
    assert!(commands.contains("tournament") && commands.contains("bench-wire"), "the commands read: {commands:?}");
    let listed =
        listed_commands(&read(&root.join("ARCHITECTURE.md"))).unwrap_or_else(|e| panic!("ARCHITECTURE.md: {e}"));
    let missing: Vec<&String> = commands.difference(&listed).collect();
    let extra: Vec<&String> = listed.difference(&commands).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "ARCHITECTURE.md's row for `arena/` (\"the `arena` binary (…)\") should list every subcommand of \
         arena/src/main.rs: missing {missing:?}, not a subcommand {extra:?}"
    );
}

#[test]
fn the_command_check_reads_variants_and_the_row() {
    let main_rs =
        "enum Command {\n    /// Games.\n    Games(a::A),\n    /// The web's { bench }.\n    BenchWeb(w::B),\n}\n";
    assert_eq!(subcommands(main_rs), ["games", "bench-web"]);
    let md = "| crate |\n| `arena/` | the `arena` binary (`games`, `bench-web`) and (`pool.rs`) | `x` |\n";
    assert_eq!(listed_commands(md).unwrap(), ["games", "bench-web"].map(String::from).into());
}

// ----- reading Rust source -------------------------------------------------------------------

/// The source with every comment and every string and character literal blanked (newlines
/// kept, so lines still count), leaving code alone.
fn strip(src: &str) -> String {
    strip_keeping(src, false)
}

/// The source with every comment blanked, and its string literals too unless `strings`: one
/// character out for each character in, so that positions agree with the source's.
fn strip_keeping(src: &str, strings: bool) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let peek = |k: usize| c.get(k).copied().unwrap_or('\0');
    let blank = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    let literal = |out: &mut String, ch: char| if strings { out.push(ch) } else { blank(out, ch) };
    let mut i = 0;
    while i < c.len() {
        let ident_before = i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_');
        if c[i] == '/' && peek(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
                out.push(' ');
            }
        } else if c[i] == '/' && peek(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && peek(i + 1) == '*' {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && peek(i + 1) == '/' {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
        } else if !ident_before && (c[i] == 'r' || (c[i] == 'b' && peek(i + 1) == 'r')) && {
            // A raw string: r"…", r#"…"#, br#"…"#.
            let mut k = if c[i] == 'b' { 2 } else { 1 };
            while peek(i + k) == '#' {
                k += 1;
            }
            peek(i + k) == '"'
        } {
            let start = i;
            i += if c[i] == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while c[i] == '#' {
                hashes += 1;
                i += 1;
            }
            i += 1;
            loop {
                if i >= c.len() {
                    break;
                }
                if c[i] == '"' && (1..=hashes).all(|h| c.get(i + h) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
            for &ch in &c[start..i.min(c.len())] {
                literal(&mut out, ch);
            }
        } else if c[i] == '"' || (c[i] == 'b' && peek(i + 1) == '"' && !ident_before) {
            if c[i] == 'b' {
                out.push(' ');
                i += 1;
            }
            out.push(' ');
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    literal(&mut out, c[i]);
                    i += 1;
                }
                if i < c.len() {
                    literal(&mut out, c[i]);
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c[i] == '\'' && (peek(i + 1) == '\\' || peek(i + 2) == '\'') {
            // A character literal ('a', '\n', '\u{1F}'); a lifetime ('a) is code.
            out.push(' ');
            i += 1;
            if c[i] == '\\' {
                // The escape and the character it escapes (`'\''` among them).
                out.push_str("  ");
                i += 2;
            }
            while i < c.len() && c[i] != '\'' {
                blank(&mut out, c[i]);
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
}

/// The tokens of stripped source, each with its line.
fn tokens(code: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch.is_alphanumeric() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            out.push((Tok::Ident(word.trim_start_matches("r#").to_string()), line));
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push((Tok::Sep, line));
            i += 2;
        } else {
            out.push((Tok::Punct(ch), line));
            i += 1;
        }
    }
    out
}

/// One import of a module: a path as written, made absolute from the crate's root (once read).
#[derive(Clone, Debug)]
struct Import {
    path: Vec<String>,
    line: usize,
    /// A `pub use` (a re-export).
    public: bool,
    /// `use path::*`.
    glob: bool,
    /// The name it is known by here (`as` name, or its last segment).
    name: Option<String>,
}

/// One file module as read.
#[derive(Debug, Default)]
struct FileModule {
    /// `mod name;` outside tests.
    children: Vec<String>,
    imports: Vec<Import>,
    /// Items defined at the top of the file (functions, types, traits, constants, macros).
    items: BTreeSet<String>,
}

/// The absolute path of `written` (as in `use` or code) from module `here`; `None` for a path
/// into another crate. In a `use` a first segment that is not `crate`, `super` or `self` is a
/// name of the module itself (a child) when `children` has it.
fn absolute(here: &[String], written: &[String], children: &[String]) -> Option<Vec<String>> {
    let first = written.first()?;
    let (mut base, rest): (Vec<String>, &[String]) = match first.as_str() {
        "crate" => (Vec::new(), &written[1..]),
        "self" => (here.to_vec(), &written[1..]),
        "super" => {
            let mut base = here.to_vec();
            let mut k = 0;
            while written.get(k).map(String::as_str) == Some("super") {
                base.pop()?;
                k += 1;
            }
            (base, &written[k..])
        }
        name if children.iter().any(|c| c == name) => (here.to_vec(), written),
        _ => return None,
    };
    base.extend(rest.iter().filter(|s| *s != "self").cloned());
    Some(base)
}

/// Read a `use` tree at `toks[*i]` (after `use`), adding each path it imports to `out`.
fn use_tree(
    toks: &[(Tok, usize)],
    i: &mut usize,
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, bool, Option<String>)>,
) {
    let mut path = prefix;
    loop {
        match toks.get(*i).map(|t| &t.0) {
            Some(Tok::Punct('{')) => {
                *i += 1;
                loop {
                    match toks.get(*i).map(|t| &t.0) {
                        Some(Tok::Punct('}')) => {
                            *i += 1;
                            return;
                        }
                        Some(Tok::Punct(',')) => *i += 1,
                        None => return,
                        _ => use_tree(toks, i, path.clone(), out),
                    }
                }
            }
            Some(Tok::Punct('*')) => {
                *i += 1;
                out.push((path, true, None));
                return;
            }
            Some(Tok::Sep) => *i += 1,
            Some(Tok::Ident(name)) => {
                path.push(name.clone());
                *i += 1;
                if toks.get(*i).map(|t| &t.0) == Some(&Tok::Sep) {
                    *i += 1;
                    continue;
                }
                let mut alias =
                    Some(name.clone()).filter(|n| n != "self").or_else(|| path.iter().rev().nth(1).cloned());
                if toks.get(*i).map(|t| &t.0) == Some(&Tok::Ident("as".into())) {
                    if let Some((Tok::Ident(a), _)) = toks.get(*i + 1) {
                        alias = Some(a.clone()).filter(|a| a != "_");
                    }
                    *i += 2;
                }
                out.push((path, false, alias));
                return;
            }
            _ => return,
        }
    }
}

/// The index just past the group that opens at `toks[i]` (`{`, `(` or `[`).
fn past_group(toks: &[(Tok, usize)], i: usize) -> usize {
    let (open, close) = match toks[i].0 {
        Tok::Punct('(') => ('(', ')'),
        Tok::Punct('[') => ('[', ']'),
        _ => ('{', '}'),
    };
    let mut depth = 0;
    for (k, (t, _)) in toks.iter().enumerate().skip(i) {
        if *t == Tok::Punct(open) {
            depth += 1;
        } else if *t == Tok::Punct(close) {
            depth -= 1;
            if depth == 0 {
                return k + 1;
            }
        }
    }
    toks.len()
}

/// Read one file module at `here` (its path in the crate): its children, its imports (made
/// absolute; those into other crates dropped) and its items. `#[cfg(test)]` items are left out.
fn read_module(src: &str, here: &[String]) -> FileModule {
    let toks = tokens(&strip(src));
    let ident = |k: usize| match toks.get(k) {
        Some((Tok::Ident(s), _)) => Some(s.as_str()),
        _ => None,
    };
    // The children first: a relative `use child::…` needs them.
    let mut m = FileModule::default();
    // Imports as written (made absolute below, once the children are known), each with the
    // module it is written in (an inline module's path inside this file's).
    let mut written: Vec<(Import, Vec<String>)> = Vec::new();
    // Inline modules open at this brace depth: (name, depth).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let (mut test_only, mut public) = (false, false);
    let mut i = 0;
    while i < toks.len() {
        let line = toks[i].1;
        match &toks[i].0 {
            Tok::Punct('#') if toks.get(i + 1).map(|t| &t.0) == Some(&Tok::Punct('[')) => {
                let end = past_group(&toks, i + 1);
                let words: Vec<&str> = (i + 2..end).filter_map(ident).collect();
                if words.first() == Some(&"cfg") && words.contains(&"test") && !words.contains(&"not") {
                    test_only = true;
                }
                i = end;
                continue;
            }
            Tok::Ident(w) if w == "pub" => {
                public = true;
                i += 1;
                if toks.get(i).map(|t| &t.0) == Some(&Tok::Punct('(')) {
                    i = past_group(&toks, i);
                }
                continue;
            }
            Tok::Ident(w) if w == "use" => {
                let mut paths = Vec::new();
                i += 1;
                use_tree(&toks, &mut i, Vec::new(), &mut paths);
                if !test_only {
                    let at: Vec<String> = here.iter().cloned().chain(inline.iter().map(|(n, _)| n.clone())).collect();
                    for (p, glob, name) in paths {
                        written.push((Import { path: p, line, public, glob, name }, at.clone()));
                    }
                }
            }
            Tok::Ident(w) if w == "mod" => {
                if let Some(name) = ident(i + 1) {
                    match toks.get(i + 2).map(|t| &t.0) {
                        Some(Tok::Punct(';')) => {
                            if !test_only && inline.is_empty() {
                                m.children.push(name.to_string());
                            }
                            i += 3;
                        }
                        Some(Tok::Punct('{')) if test_only => i = past_group(&toks, i + 2),
                        Some(Tok::Punct('{')) => {
                            inline.push((name.to_string(), depth));
                            depth += 1;
                            i += 3;
                        }
                        _ => i += 2,
                    }
                    test_only = false;
                    public = false;
                    continue;
                }
            }
            Tok::Ident(w)
                if matches!(w.as_str(), "crate" | "super" | "self")
                    && toks.get(i + 1).map(|t| &t.0) == Some(&Tok::Sep)
                    && (i == 0 || toks[i - 1].0 != Tok::Sep) =>
            {
                // A path written in code: `crate::a::b`, `super::x`.
                let mut p = vec![w.clone()];
                let mut k = i + 1;
                while toks.get(k).map(|t| &t.0) == Some(&Tok::Sep) {
                    match ident(k + 1) {
                        Some(s) => p.push(s.to_string()),
                        None => break,
                    }
                    k += 2;
                }
                if !test_only {
                    let at: Vec<String> = here.iter().cloned().chain(inline.iter().map(|(n, _)| n.clone())).collect();
                    written.push((Import { path: p, line, public: false, glob: false, name: None }, at));
                }
                i = k;
                continue;
            }
            Tok::Ident(w)
                if depth == inline.len()
                    && matches!(
                        w.as_str(),
                        "fn" | "struct" | "enum" | "trait" | "type" | "const" | "static" | "union"
                    ) =>
            {
                if let Some(name) = ident(i + 1).filter(|n| !matches!(*n, "fn" | "mut" | "_")) {
                    m.items.insert(name.to_string());
                }
            }
            Tok::Ident(w) if w == "macro_rules" => {
                if let Some(name) = ident(i + 2) {
                    m.items.insert(name.to_string());
                }
            }
            Tok::Punct('{') => {
                depth += 1;
            }
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
            }
            _ => {}
        }
        // Any other item (or the end of one) takes the attributes and visibility read before it.
        if !matches!(&toks[i].0, Tok::Punct('#')) {
            test_only = false;
            public = false;
        }
        i += 1;
    }
    for (import, at) in written {
        let children = if at.len() == here.len() { m.children.clone() } else { Vec::new() };
        if let Some(path) = absolute(&at, &import.path, &children) {
            m.imports.push(Import { path, ..import });
        }
    }
    m
}

// ----- the module graph ----------------------------------------------------------------------

/// A crate's modules (by path, `[]` the root), each with its file and what it holds.
struct Crate {
    modules: BTreeMap<Vec<String>, (String, FileModule)>,
}

impl Crate {
    /// Every file module reached from `root` (`src/lib.rs`, `src/main.rs`) through `mod name;`,
    /// its files read by `read` (relative to the crate's `src/`).
    fn load(root: &str, read: &dyn Fn(&str) -> Option<String>) -> Result<Crate, String> {
        let mut modules = BTreeMap::new();
        let mut todo = vec![(Vec::<String>::new(), root.to_string())];
        while let Some((path, file)) = todo.pop() {
            let src = read(&file).ok_or_else(|| format!("cannot read {file}"))?;
            let m = read_module(&src, &path);
            // A child's file: beside `lib.rs`, `main.rs` and `mod.rs`, inside a folder named
            // after any other file.
            let dir = match file.rsplit_once('/') {
                Some((dir, "lib.rs" | "main.rs" | "mod.rs")) => format!("{dir}/"),
                None if matches!(file.as_str(), "lib.rs" | "main.rs" | "mod.rs") => String::new(),
                _ => format!("{}/", file.trim_end_matches(".rs")),
            };
            for child in &m.children {
                let flat = format!("{dir}{child}.rs");
                let folder = format!("{dir}{child}/mod.rs");
                let found = [flat.clone(), folder.clone()].into_iter().find(|f| read(f).is_some());
                let found =
                    found.ok_or_else(|| format!("{file} declares `mod {child};`: neither {flat} nor {folder}"))?;
                let mut p = path.clone();
                p.push(child.clone());
                todo.push((p, found));
            }
            modules.insert(path, (file, m));
        }
        Ok(Crate { modules })
    }

    /// The deepest module an absolute path names, as written (re-exports not followed).
    fn deepest(&self, path: &[String]) -> Vec<String> {
        let mut at = Vec::new();
        for segment in path {
            at.push(segment.clone());
            if !self.modules.contains_key(&at) {
                at.pop();
                break;
            }
        }
        at
    }

    /// The module an absolute path leads to: the deepest module it names, and from there
    /// through re-exports to where the item it names is defined.
    fn resolve(&self, path: &[String], hops: usize) -> Vec<String> {
        let at = self.deepest(path);
        let k = at.len();
        let Some(item) = path.get(k) else { return at };
        if hops > 8 {
            return at;
        }
        let m = &self.modules[&at].1;
        if m.items.contains(item) {
            return at;
        }
        for import in m.imports.iter().filter(|i| i.public) {
            if !import.glob && import.name.as_deref() == Some(item.as_str()) {
                let mut through = import.path.clone();
                through.extend(path[k + 1..].iter().cloned());
                return self.resolve(&through, hops + 1);
            }
        }
        for import in m.imports.iter().filter(|i| i.public && i.glob) {
            let mut through = import.path.clone();
            through.extend(path[k..].iter().cloned());
            let there = self.resolve(&through, hops + 1);
            if there != import.path || self.modules.get(&there).is_some_and(|(_, g)| g.items.contains(item)) {
                return there;
            }
        }
        at
    }

    /// The edges between modules neither of which holds the other: (from, to) → where the
    /// import is written (`file:line`, the path).
    fn edges(&self) -> BTreeMap<(Vec<String>, Vec<String>), String> {
        let mut edges = BTreeMap::new();
        for (from, (file, m)) in &self.modules {
            for import in &m.imports {
                let to = self.resolve(&import.path, 0);
                if to.starts_with(from) || from.starts_with(&to) {
                    continue;
                }
                let written = format!("{file}:{} `crate::{}`", import.line, import.path.join("::"));
                let through = self.deepest(&import.path) != to;
                let at = if through { format!("{written} (defined in {})", to.join("::")) } else { written };
                edges.entry((from.clone(), to)).or_insert(at);
            }
        }
        edges
    }

    /// Every cycle among the modules (one ring for each set of modules that reach one another),
    /// each named with the import that makes each step.
    fn cycles(&self) -> Vec<String> {
        rings(&self.edges())
    }

    /// The edges between the crate's top-level modules (its subsystems: `tournament`,
    /// `ladder`), each module standing for all the modules inside it: (from, to) → the first
    /// import that makes it.
    fn subsystem_edges(&self) -> BTreeMap<(Vec<String>, Vec<String>), String> {
        let mut out = BTreeMap::new();
        for ((from, to), at) in self.edges() {
            if let (Some(f), Some(t)) = (from.first(), to.first())
                && f != t
            {
                out.entry((vec![f.clone()], vec![t.clone()])).or_insert(at);
            }
        }
        out
    }

    /// Every cycle among the top-level modules: two subsystems that import each other, however
    /// deep inside them, share something that belongs below both.
    fn subsystem_cycles(&self) -> Vec<String> {
        rings(&self.subsystem_edges())
    }
}

/// Every ring in `edges` (one for each set of nodes that reach one another), each named with
/// the import that makes each step.
fn rings(edges: &BTreeMap<(Vec<String>, Vec<String>), String>) -> Vec<String> {
    let nodes: BTreeSet<&Vec<String>> = edges.keys().flat_map(|(f, t)| [f, t]).collect();
    let mut next: BTreeMap<&Vec<String>, Vec<&Vec<String>>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        next.entry(from).or_default().push(to);
    }
    let reach = |start: &Vec<String>| -> BTreeSet<Vec<String>> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![start.clone()];
        while let Some(m) = todo.pop() {
            for n in next.get(&m).into_iter().flatten() {
                if seen.insert((*n).clone()) {
                    todo.push((*n).clone());
                }
            }
        }
        seen
    };
    let name = |m: &Vec<String>| if m.is_empty() { "crate".to_string() } else { m.join("::") };
    let mut done: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut out = Vec::new();
    for &start in &nodes {
        if done.contains(start) || !reach(start).contains(start) {
            continue;
        }
        // The modules on a ring with `start`, and the shortest ring through it.
        let ring: BTreeSet<Vec<String>> = reach(start).into_iter().filter(|m| reach(m).contains(start)).collect();
        done.extend(ring.iter().cloned());
        let mut back: BTreeMap<&Vec<String>, &Vec<String>> = BTreeMap::new();
        let mut queue = VecDeque::from([start]);
        'search: while let Some(m) = queue.pop_front() {
            for n in next.get(m).into_iter().flatten() {
                if *n == start {
                    back.insert(start, m);
                    break 'search;
                }
                if ring.contains(*n) && !back.contains_key(*n) {
                    back.insert(*n, m);
                    queue.push_back(*n);
                }
            }
        }
        let mut steps = vec![start];
        let mut m = back[start];
        while m != start {
            steps.push(m);
            m = back[m];
        }
        steps.push(start);
        steps.reverse();
        let names: Vec<String> = steps.iter().map(|m| name(m)).collect();
        let because: Vec<String> =
            steps.windows(2).map(|w| format!("    {}", edges[&((*w[0]).clone(), (*w[1]).clone())])).collect();
        let mut found = format!("{}, by\n{}", names.join(" → "), because.join("\n"));
        if ring.len() > steps.len() - 1 {
            let all: Vec<String> = ring.iter().map(name).collect();
            let shown: BTreeSet<(&Vec<String>, &Vec<String>)> = steps.windows(2).map(|w| (w[0], w[1])).collect();
            let rest: Vec<String> = edges
                .iter()
                .filter(|((f, t), _)| ring.contains(f) && ring.contains(t) && !shown.contains(&(f, t)))
                .map(|(_, at)| format!("    {at}"))
                .collect();
            found += &format!(
                "\n  and these modules all reach one another: {}; the other imports among them:\n{}",
                all.join(", "),
                rest.join("\n")
            );
        }
        out.push(found);
    }
    out
}

/// The cycles among the modules of the crate in `dir` (each of its roots: the library, the
/// binary), at both levels (its file modules, its top-level modules), or why it could not be
/// read.
fn cycles_of(dir: &str) -> Vec<String> {
    let src = workspace().join(dir).join("src");
    let read = |f: &str| std::fs::read_to_string(src.join(f)).ok();
    let mut out = Vec::new();
    let mut roots = 0;
    for root in ["lib.rs", "main.rs"] {
        if read(root).is_none() {
            continue;
        }
        roots += 1;
        let krate = Crate::load(root, &read).unwrap_or_else(|e| panic!("{dir}/src: {e}"));
        assert!(!krate.modules.is_empty());
        out.extend(krate.cycles().into_iter().map(|c| format!("{dir}/src/{root}: {c}")));
        out.extend(krate.subsystem_cycles().into_iter().map(|c| format!("{dir}/src/{root}, top-level modules: {c}")));
    }
    assert!(roots > 0, "{dir}/src has neither lib.rs nor main.rs");
    out
}

fn assert_no_module_cycle(dir: &str) {
    let cycles = cycles_of(dir);
    assert!(
        cycles.is_empty(),
        "the modules of `{dir}` import one another in a ring (move what both need below both, or \
         merge them):\n{}",
        cycles.join("\n")
    );
}

#[test]
fn no_module_cycle_in_engine() {
    assert_no_module_cycle("engine");
}

#[test]
fn no_module_cycle_in_proto() {
    assert_no_module_cycle("proto");
}

#[test]
fn no_module_cycle_in_reports() {
    assert_no_module_cycle("reports");
}

#[test]
fn no_module_cycle_in_arena() {
    assert_no_module_cycle("arena");
}

#[test]
fn no_module_cycle_in_bots() {
    assert_no_module_cycle("bots");
}

#[test]
fn no_module_cycle_in_the_python_extension() {
    assert_no_module_cycle("bots/python");
}

/// Every member of the workspace is checked above.
#[test]
fn every_crate_is_checked_for_cycles() {
    let checked = ["engine", "proto", "reports", "arena", "bots", "bots/python"];
    let members = members(&read(&workspace().join("Cargo.toml")));
    for m in &members {
        assert!(checked.contains(&m.as_str()), "`{m}` is a member of the workspace: add a `no_module_cycle_in_…` test");
    }
}

#[test]
fn the_cycle_check_finds_a_ring_and_names_its_imports() {
    let files: BTreeMap<&str, &str> = [
        ("lib.rs", "mod a;\nmod b;\npub mod c;\npub use c::Shared;\n"),
        // A ring a → b → a, one step written as a use, one as a path in code.
        ("a.rs", "use crate::b::{self, Thing};\n// use crate::c::Nothing; a comment\nfn f() { let s = \"crate::c::X\"; }\n"),
        ("b.rs", "pub struct Thing;\nfn g() { super::a::h(); }\n"),
        // A parent and its child read one another: one namespace, no ring. And a re-export
        // (`crate::Shared`) is followed to where it is defined.
        ("c/mod.rs", "mod inner;\npub use inner::Shared;\nuse inner::helper;\n"),
        ("c/inner.rs", "use super::Common;\npub struct Shared;\npub fn helper() {}\n#[cfg(test)]\nmod tests {\n    use crate::a::*;\n}\n"),
    ]
    .into();
    let read = |f: &str| files.get(f).map(|s| s.to_string());
    let krate = Crate::load("lib.rs", &read).unwrap();
    assert_eq!(krate.modules.len(), 5, "{:?}", krate.modules.keys());
    let path = |p: &str| p.split("::").map(String::from).collect::<Vec<_>>();
    assert_eq!(krate.resolve(&path("Shared"), 0), path("c::inner"), "through the re-exports");
    let cycles = krate.cycles();
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert!(cycles[0].starts_with("a → b → a, by"), "{}", cycles[0]);
    assert!(cycles[0].contains("a.rs:1 `crate::b`"), "{}", cycles[0]);
    assert!(cycles[0].contains("b.rs:2 `crate::a::h`"), "{}", cycles[0]);
    // Nothing else: not the comment, the string, the test module, nor the parent and child.
    let edges: Vec<_> = krate.edges().into_keys().collect();
    assert_eq!(edges, vec![(path("a"), path("b")), (path("b"), path("a"))]);
}

/// Two top-level modules that import each other only through different modules inside
/// them make no ring of file modules, but one of subsystems: the shared piece belongs below
/// both.
#[test]
fn the_subsystem_check_finds_two_top_level_modules_importing_each_other() {
    let files: BTreeMap<&str, &str> = [
        ("lib.rs", "mod tournament;\nmod ladder;\nmod shared;\n"),
        ("tournament/mod.rs", "mod live;\nmod config;\n"),
        ("tournament/live.rs", "use crate::ladder::service::table;\n"),
        ("tournament/config.rs", "pub fn read() {}\n"),
        ("ladder/mod.rs", "mod service;\nuse crate::tournament::config::read;\n"),
        ("ladder/service.rs", "pub fn table() {}\nuse crate::shared::Thing;\n"),
        ("shared.rs", "pub struct Thing;\n"),
    ]
    .into();
    let read = |f: &str| files.get(f).map(|s| s.to_string());
    let krate = Crate::load("lib.rs", &read).unwrap();
    assert!(krate.cycles().is_empty(), "no ring of file modules: {:?}", krate.cycles());
    let rings = krate.subsystem_cycles();
    assert_eq!(rings.len(), 1, "{rings:?}");
    assert!(rings[0].starts_with("ladder → tournament → ladder, by"), "{}", rings[0]);
    assert!(rings[0].contains("tournament/live.rs:1 `crate::ladder::service::table`"), "{}", rings[0]);
    // A module below both (`shared`) is no ring.
    assert!(!rings[0].contains("shared"), "{}", rings[0]);
}

// ----- where a game is named ------------------------------------------------------------------

/// The games: the folders of `engine/src/` but `core/` (each holds a game's rules).
fn game_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(workspace().join("engine/src"))
        .expect("engine/src is read")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| n != "core")
        .collect();
    names.sort();
    names
}

/// The files besides a game's own (`engine/src/<game>/`, `bots/src/<game>/`,
/// `proto/src/convert/<game>.rs`) that may name a game: each crate's one list of its games,
/// and the benchmarks, each of which measures a workload it names. ARCHITECTURE.md lists them.
const MAY_NAME_A_GAME: &[&str] = &[
    "engine/src/lib.rs",
    "engine/src/games.rs",
    "bots/src/lib.rs",
    "bots/src/games.rs",
    "proto/src/convert/mod.rs",
    "arena/src/netbench.rs",
    "arena/src/hostbench.rs",
    "arena/src/webbench.rs",
    "arena/src/ladderbench.rs",
    "arena/src/sandboxbench.rs",
];

/// The source directories of the crates whose code is checked.
const SOURCES: &[&str] = &["engine/src", "bots/src", "proto/src", "reports/src", "arena/src", "bots/python/src"];

/// Where `src` names one of `games` in its code (an identifier or a string literal, in any
/// case: `Journey`, `"journey"`, `journey_to_proto`): each line's number and text. Comments
/// and `#[cfg(test)]` items are left out.
fn namings(src: &str, games: &[String]) -> Vec<(usize, String)> {
    let code: Vec<char> = strip(src).chars().collect();
    let mut kept: Vec<char> = strip_keeping(src, true).chars().collect();
    assert_eq!(code.len(), kept.len(), "one character out for each in");
    let text: String = code.iter().collect();
    let mut from = 0;
    while let Some(at) = text[from..].find("#[cfg(test)]").map(|k| from + k) {
        // The item the attribute is on: to its `;`, or through its braces.
        let start = text[..at].chars().count();
        let mut k = start;
        let mut depth = 0usize;
        while k < code.len() {
            match code[k] {
                ';' if depth == 0 => break,
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            k += 1;
        }
        for ch in &mut kept[start..(k + 1).min(code.len())] {
            if *ch != '\n' {
                *ch = ' ';
            }
        }
        from = at + "#[cfg(test)]".len();
    }
    let kept: String = kept.into_iter().collect();
    kept.lines()
        .enumerate()
        .filter(|(_, l)| {
            let l = l.to_lowercase();
            games.iter().any(|g| l.contains(g.as_str()))
        })
        .map(|(k, l)| (k + 1, l.trim().to_string()))
        .collect()
}

/// Every `.rs` file under `dir`, as a path from the workspace's root.
fn rust_files(dir: &str, out: &mut Vec<String>) {
    let root = workspace();
    for e in std::fs::read_dir(root.join(dir)).unwrap_or_else(|e| panic!("{dir}: {e}")).filter_map(|e| e.ok()) {
        let name = format!("{dir}/{}", e.file_name().to_string_lossy());
        if e.path().is_dir() {
            rust_files(&name, out);
        } else if name.ends_with(".rs") {
            out.push(name);
        }
    }
}

#[test]
fn no_code_outside_a_games_folders_and_the_lists_names_a_game() {
    let games = game_names();
    assert!(games.len() >= 2, "the games read: {games:?}");
    let own = |f: &str| {
        games.iter().any(|g| {
            f.starts_with(&format!("engine/src/{g}/"))
                || f.starts_with(&format!("bots/src/{g}/"))
                || f == format!("proto/src/convert/{g}.rs")
        })
    };
    let mut files = Vec::new();
    for dir in SOURCES {
        rust_files(dir, &mut files);
    }
    files.sort();
    let mut found = Vec::new();
    for f in files.iter().filter(|f| !own(f) && !MAY_NAME_A_GAME.contains(&f.as_str())) {
        for (line, text) in namings(&read(&workspace().join(f)), &games) {
            found.push(format!("{f}:{line}: {text}"));
        }
    }
    assert!(
        found.is_empty(),
        "code outside a game's folders and the lists ARCHITECTURE.md names names a game (ask the game, or \
         the registry, instead):\n  {}",
        found.join("\n  ")
    );
    // The list is ARCHITECTURE.md's, and every file on it still exists.
    let md = read(&workspace().join("ARCHITECTURE.md"));
    for f in MAY_NAME_A_GAME {
        assert!(workspace().join(f).is_file(), "{f} is no file");
        assert!(md.contains(&format!("`{f}`")), "ARCHITECTURE.md does not list `{f}` among the files that name games");
    }
}

#[test]
fn the_naming_check_reads_code_and_strings_not_comments_or_tests() {
    let games = ["journey".to_string()];
    let src = "// the journey\nuse engine::journey::Journey;\nfn f() { g(\"journey\"); }\n/* Journey */ fn h() {}\n\
               #[cfg(test)]\nmod tests {\n    fn t() { x(\"journey\"); }\n}\nconst J: &str = r#\"JOURNEY\"#;\n";
    let lines: Vec<usize> = namings(src, &games).into_iter().map(|(l, _)| l).collect();
    assert_eq!(lines, vec![2, 3, 9]);
}
