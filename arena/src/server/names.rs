//! Play names: what a name may be, and when two names are the same name.
//!
//! One grammar for names and versions: a name is 1 to 64 characters, a letter or digit first,
//! then letters, digits and [`NAME_PUNCTUATION`] (`. _ - + : = ,`, enough for a built-in
//! agent's spec, `mcts:iterations=2000,c=0.7`); a version is 1 to 32 letters, digits, `.`, `_`
//! and `-`. An agent that gives a version holds `NAME@VERSION`: the one `@` is the separator,
//! never part of a name, so a name's key covers exactly its versions. Nothing invisible,
//! nothing written right to left, no letter of another script, no character a page or a shell
//! reads as markup. Two names are the same name when they look alike: compared without case
//! and after Unicode's confusable folding (UTS #39's skeleton), so `Alice`, `alice`, `AL1CE`
//! and `aIice` are one name, and `rn` is `m`.

use unicode_security::confusable_detection::skeleton;

pub const MAX_NAME: usize = 64;

/// What a name may hold besides letters and digits (never first).
pub const NAME_PUNCTUATION: &str = "._-+:=,";

/// Why `name` is not a name, if it is not.
pub fn check(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("the name is empty".into());
    }
    if name.len() > MAX_NAME {
        return Err(format!("over {MAX_NAME} characters"));
    }
    if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Err("a name begins with a letter or a digit".into());
    }
    if let Some(c) = name.chars().find(|&c| !(c.is_ascii_alphanumeric() || NAME_PUNCTUATION.contains(c))) {
        let what = match c {
            '@' => "`@` is not allowed: it separates a name from its version (Hello.version)".to_string(),
            c if c.is_ascii_graphic() => format!("`{c}` is not allowed"),
            c if c.is_ascii() => format!("character {:#04x} is not allowed", c as u32),
            c => format!("U+{:04X} is not allowed", c as u32),
        };
        return Err(format!("{what}: a name is letters, digits and `{NAME_PUNCTUATION}`"));
    }
    Ok(())
}

/// The longest version a name may carry (`mine@VERSION`).
pub const MAX_VERSION: usize = 32;

/// Why `version` is not a version: 1 to 32 of `A-Z a-z 0-9 . _ -`.
pub fn check_version(version: &str) -> Result<(), String> {
    if version.is_empty() || version.len() > MAX_VERSION {
        return Err(format!("a version is 1 to {MAX_VERSION} characters"));
    }
    match version.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))) {
        Some(c) => {
            Err(format!("`{}` is not allowed in a version: letters, digits, `.`, `_` and `-`", c.escape_default()))
        }
        None => Ok(()),
    }
}

/// The name a Hello holds: `name`, or `name@version` when it gives a version (`name` checked
/// already).
pub fn versioned(name: &str, version: &str) -> Result<String, String> {
    if version.is_empty() {
        return Ok(name.to_string());
    }
    check_version(version)?;
    Ok(format!("{name}@{version}"))
}

/// The agent a name is a version of: `mine` for `mine@2`, else the name itself. A name's key
/// covers all its versions.
pub fn base(name: &str) -> &str {
    name.split_once('@').map_or(name, |(base, _)| base)
}

/// The form two names are compared in: the same for names that look alike. Skeletons are
/// taken in capitals (where `I`, `1` and `l` meet) and again in small letters (where `rn` is
/// `m`), so that case and confusables fold together.
pub fn fold(name: &str) -> String {
    let capitals: String = skeleton(&name.to_uppercase()).collect::<String>().to_lowercase();
    skeleton(&capitals).collect::<String>().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_look_alike_are_one_name() {
        for alike in ["Alice", "ALICE", "a1ice", "aIice", "al1ce", "AL1CE"] {
            assert_eq!(fold(alike), fold("alice"), "{alike}");
        }
        assert_eq!(fold("rn-bot"), fold("m-bot"));
        assert_eq!(fold("b0t"), fold("bot"));
        assert_ne!(fold("alice"), fold("alicia"));
        assert_ne!(fold("bot-1"), fold("bot-2"));
        assert_eq!(fold("bot-1"), fold("bot-I"));
        assert_eq!(fold("bot-1"), fold("BOT-l"));
    }

    #[test]
    fn versions_are_names_of_one_agent() {
        assert_eq!(versioned("mine", "2").as_deref(), Ok("mine@2"));
        assert_eq!(versioned("mine", "").as_deref(), Ok("mine"));
        assert!(versioned("mine", "2 beta").unwrap_err().contains("not allowed in a version"));
        assert!(versioned("mine", &"9".repeat(33)).is_err());
        assert_eq!(base("mine@2"), "mine");
        assert_eq!(base("mine@v1.2-rc"), "mine");
        assert_eq!(base("mine"), "mine");
        // Whatever follows the first `@`, the agent is what precedes it: `alice@1@2` and
        // `alice@x!` (which no Hello can make) would be alice's.
        assert_eq!(base("alice@1@2"), "alice");
        assert_eq!(base("alice@x!"), "alice");
    }

    #[test]
    fn one_grammar_for_names() {
        for ok in ["alice", "mcts:iterations=2000,c=0.7", "py-eager", "0x", "a.b_c-d+e", &"x".repeat(64)] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            "-x",
            " alice",
            "al ice",
            "ali\u{200b}ce",
            "аlice",
            "alice\u{202e}",
            &"x".repeat(65),
            "mine@2",
            "alice@1@2",
            "alice!",
            "c<!--<script>",
            "a\"b",
            "a'b",
            "a&b",
            "a/b",
        ] {
            assert!(check(bad).is_err(), "{bad:?}");
        }
        assert!(check("alic\u{435}").unwrap_err().contains("U+0435"), "{:?}", check("alic\u{435}"));
        assert!(check("mine@2").unwrap_err().contains("separates a name from its version"));
        assert!(check("c<x").unwrap_err().contains("`<` is not allowed: a name is letters, digits and `._-+:=,`"));
    }
}
