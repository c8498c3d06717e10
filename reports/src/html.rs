//! Strings from anyone, made inert in a page: every page the workspace writes (the report, the
//! step-through viewer, and through it the web face's `/game`) puts text into its markup with
//! [`text`] and data into a script element with [`script_json`], and with nothing else.
//!
//! A name, a tile's name or a tournament's name may hold any character: `</script>`,
//! `<!--<script>` (which, inside a script element, makes the parser swallow the next
//! `</script>` and with it the page's own script), `<img src=x onerror=...>`, quotes,
//! `&amp;`, U+2028.

use serde::Serialize;

/// `s` as HTML text, or as the value of an attribute in double or single quotes: `&`, `<`,
/// `>`, `"` and `'` become character references, and nothing else changes. Not for the inside
/// of a `<script>` or `<style>` element, whose text is not parsed for references.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// JSON text made safe to place inside a `<script>` element (`type="application/json"`, or
/// as a literal in code): `<`, `>`, `&`, U+2028 and U+2029 written as `\u003c`, `\u003e`,
/// `\u0026`, `\u2028` and `\u2029`. Outside its strings JSON holds none of these characters,
/// and inside a string the escape is the same character, so the JSON means exactly what it
/// meant; and with no `<` left, nothing in it can end the element, open a comment or
/// another script, and no line terminator of JavaScript is left either.
pub fn script_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// `value` as JSON to place inside a `<script>` element: [`script_json`] of its encoding.
pub fn json_in_script<T: Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    serde_json::to_string(value).map(|json| script_json(&json))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Strings known to break a page that escapes too little.
    const BREAKERS: [&str; 9] = [
        "</script>",
        "</SCRIPT >",
        "<!--<script>",
        "<script>alert(1)</script>",
        "]]>",
        "line\u{2028}and\u{2029}paragraph",
        "\"double\" 'single' `back`",
        "&amp; &lt; &#39;",
        "<img src=x onerror=alert(1)>",
    ];

    #[test]
    fn json_in_a_script_holds_no_character_that_html_or_javascript_reads() {
        for s in BREAKERS {
            let value = serde_json::json!({ "name": s, "list": [s, s], s: 1 });
            let safe = json_in_script(&value).unwrap();
            for c in ['<', '>', '&', '\u{2028}', '\u{2029}'] {
                assert!(!safe.contains(c), "{c:?} left in {safe}");
            }
            // The same JSON: it reads back to the same value.
            assert_eq!(serde_json::from_str::<serde_json::Value>(&safe).unwrap(), value, "{safe}");
        }
        assert_eq!(script_json(r#"["</script>"]"#), r#"["\u003c/script\u003e"]"#);
        assert_eq!(script_json(r#""<!--<script>""#), r#""\u003c!--\u003cscript\u003e""#);
        assert_eq!(script_json("\"a\u{2028}b\u{2029}\""), r#""a\u2028b\u2029""#);
        assert_eq!(script_json(r#""&amp;""#), r#""\u0026amp;""#);
        // A backslash before a breaker stays an escaped backslash, the breaker an escape of
        // its own.
        let tricky = "\\</script>\\u003c";
        let safe = json_in_script(tricky).unwrap();
        assert_eq!(serde_json::from_str::<String>(&safe).unwrap(), tricky);
    }

    #[test]
    fn text_escapes_what_html_reads_and_nothing_else() {
        assert_eq!(text("<!--<script>"), "&lt;!--&lt;script&gt;");
        assert_eq!(text("</script>"), "&lt;/script&gt;");
        assert_eq!(text("]]>"), "]]&gt;");
        assert_eq!(text("&amp;"), "&amp;amp;");
        assert_eq!(text("\"a\" 'b'"), "&quot;a&quot; &#39;b&#39;");
        assert_eq!(text("<img src=x onerror=alert(1)>"), "&lt;img src=x onerror=alert(1)&gt;");
        assert_eq!(text("a\u{2028}b é ♠"), "a\u{2028}b é ♠");
        for s in BREAKERS {
            let t = text(s);
            assert!(!t.contains(['<', '>', '"', '\'']), "{t}");
            // Every `&` starts one of the five references.
            for (at, _) in t.match_indices('&') {
                let rest = &t[at..];
                assert!(["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"].iter().any(|r| rest.starts_with(r)), "{t}");
            }
        }
    }
}
