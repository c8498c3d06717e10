//! The file rule: which files a game's parameters may open, for every caller. The engine does
//! no I/O; whoever resolves parameters passes it one of these loaders.
//!
//! - [`load_file`]: what the person running a command names (a tournament file, `--params`,
//!   `--content`) is read as they name it.
//! - [`refuse_files`]: parameters that came from elsewhere — a record replayed, a server's
//!   parameters on the client side, a request to the server — open no file at all. They are
//!   self-contained (a content set travels inline), so a name in them is refused.
//!
//! The server's one exception, the operator's content sets by bare name, is
//! `server::content::ContentDir`.

/// Read a file a parameter or a tournament names.
pub fn load_file(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
}

/// The loader for parameters from a record or a wire: a name in them is refused and no file
/// is ever opened.
pub fn refuse_files(name: &str) -> Result<String, String> {
    Err(format!("parameters from the wire name no files: `{}` is refused (a content set travels inline)", shown(name)))
}

/// A value from a record or a wire, shortened for an error message.
pub fn shown(value: &str) -> String {
    const MAX: usize = 64;
    match value.char_indices().nth(MAX) {
        None => value.to_string(),
        Some((i, _)) => format!("{}…", &value[..i]),
    }
}

/// `NAME=KEY` pairs: from the command line (`flag`), then the file's lines.
pub fn key_lines(
    flag: &str,
    inline: &[String],
    file: Option<&std::path::PathBuf>,
) -> Result<std::collections::HashMap<String, String>, String> {
    let mut lines: Vec<(String, String)> = inline.iter().map(|l| (flag.to_string(), l.clone())).collect();
    if let Some(path) = file {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{flag}s {}: {e}", path.display()))?;
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if !line.is_empty() && !line.starts_with('#') {
                lines.push((format!("{} line {}", path.display(), i + 1), line.to_string()));
            }
        }
    }
    let mut keys = std::collections::HashMap::new();
    for (source, line) in lines {
        let (name, key) = line.split_once('=').ok_or_else(|| format!("{source}: expected NAME=KEY"))?;
        if keys.insert(name.trim().to_string(), key.trim().to_string()).is_some() {
            return Err(format!("{source}: `{}` has a key already", name.trim()));
        }
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_from_elsewhere_open_no_file() {
        let e = refuse_files("/etc/passwd").unwrap_err();
        assert!(e.contains("`/etc/passwd` is refused") && e.contains("inline"), "{e}");
        let e = refuse_files(&"../".repeat(100)).unwrap_err();
        let quoted = e.split('`').nth(1).unwrap_or_default();
        assert!(quoted.ends_with('…') && quoted.chars().count() == 65, "the name is shortened to 64 characters: {e}");
        assert_eq!(shown("short"), "short");
        assert!(shown(&"é".repeat(100)).chars().count() == 65);
    }

    #[test]
    fn a_command_reads_what_it_is_given() {
        let e = load_file("/no/such/file.yaml").unwrap_err();
        assert!(e.starts_with("cannot read /no/such/file.yaml: "), "{e}");
    }
}
