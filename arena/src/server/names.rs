//! Play names: what a name may be, and when two names are the same name.
//!
//! A name is 1 to 64 printable ASCII characters (`!` to `~`, no space), a letter or digit
//! first: nothing invisible, nothing written right to left, no letter of another script that
//! looks like a Latin one. Two names are the same name when they look alike: compared without
//! case and after Unicode's confusable folding (UTS #39's skeleton), so `Alice`, `alice`,
//! `AL1CE` and `aIice` are one name, and `rn` is `m`.

use unicode_security::confusable_detection::skeleton;

pub const MAX_NAME: usize = 64;

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
    if let Some(c) = name.chars().find(|c| !c.is_ascii_graphic()) {
        return Err(format!(
            "{} is not allowed: a name is printable ASCII, `!` to `~`, without spaces",
            if c.is_ascii() { format!("character {:#04x}", c as u32) } else { format!("U+{:04X}", c as u32) }
        ));
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

/// The name a Hello holds: `name`, or `name@version` when it gives a version.
pub fn versioned(name: &str, version: &str) -> Result<String, String> {
    if version.is_empty() {
        return Ok(name.to_string());
    }
    check_version(version)?;
    let full = format!("{name}@{version}");
    check(&full)?;
    Ok(full)
}

/// The agent a name is a version of: `mine` for `mine@2` (a suffix after the last `@` that is
/// a version), else the name itself. A name's key covers all its versions.
pub fn base(name: &str) -> &str {
    match name.rsplit_once('@') {
        Some((base, version)) if !base.is_empty() && check_version(version).is_ok() => base,
        _ => name,
    }
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
        assert_eq!(base("a@b@3"), "a@b");
        assert_eq!(base("mine"), "mine");
        assert_eq!(base("mine@"), "mine@", "an empty version is no version");
        assert_eq!(base("mine@x y"), "mine@x y");
    }

    #[test]
    fn only_printable_ascii() {
        for ok in ["alice", "mcts:iterations=2000,c=0.7", "mine@2", "py-eager", "0x"] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
        for bad in ["", "-x", " alice", "al ice", "ali\u{200b}ce", "аlice", "alice\u{202e}", &"x".repeat(65)] {
            assert!(check(bad).is_err(), "{bad:?}");
        }
        assert!(check("alic\u{435}").unwrap_err().contains("U+0435"), "{:?}", check("alic\u{435}"));
    }
}
