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
