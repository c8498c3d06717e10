//! Each game's rules as implemented (`docs/rules/GAME.md`, embedded in the binary), served as a
//! page of the face (`/rules/GAME`): the table links to it. The Markdown is rendered once, by
//! pulldown-cmark; every heading gets an id (its words, lowercased, joined by hyphens, as
//! GitHub names them) so that a link can name a section (`/rules/journey#6-fighting`). The
//! text is the project's own, yet rendered as text all the same: raw HTML in it shows as
//! written, and a link leaves the page only for one of its own sections.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};
use std::collections::HashMap;
use std::sync::LazyLock;

/// The rules of each game, by the game's name: every `docs/rules/GAME.md` (see `build.rs`).
const RULES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/rules.rs"));

/// The pages, rendered at their first request.
static PAGES: LazyLock<HashMap<&'static str, String>> =
    LazyLock::new(|| RULES.iter().map(|&(game, text)| (game, page(game, text))).collect());

/// The rules page of `game`, if the face has one.
pub fn find(game: &str) -> Option<&'static str> {
    PAGES.get(game).map(String::as_str)
}

/// The games whose rules the face serves, in the registry's order.
pub fn games() -> impl Iterator<Item = &'static str> {
    engine::games().iter().map(|g| g.name).filter(|&g| RULES.iter().any(|&(name, _)| name == g))
}

/// A heading's id: its words in lowercase, joined by hyphens (letters and digits kept, other
/// marks dropped), made unique in the page by a `-N` suffix.
fn slug(text: &str, seen: &mut HashMap<String, usize>) -> String {
    let mut slug = String::new();
    for c in text.trim().chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() || c == '_' || c == '-' {
            slug.push(c);
        } else if c.is_whitespace() {
            slug.push('-');
        }
    }
    let n = seen.entry(slug.clone()).or_insert(0);
    *n += 1;
    if *n > 1 { format!("{slug}-{}", *n - 1) } else { slug }
}

/// The whole page of `game`'s rules `text`.
fn page(game: &str, text: &str) -> String {
    let body = render(text);
    let others: Vec<String> =
        games().filter(|&g| g != game).map(|g| format!("<a href=\"/rules/{g}\">{g}'s rules</a>")).collect();
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{game}: the rules as implemented — Tabletop Arena</title>\n\
         <link rel=\"stylesheet\" href=\"/static/arena.css\">\n\
         <link rel=\"icon\" href=\"/static/icon.svg\" type=\"image/svg+xml\">\n</head>\n<body>\n\
         <header><a href=\"/\" class=\"home\">Tabletop Arena</a> <a href=\"/play\">Sit at a table</a> {}</header>\n\
         <main class=\"rules\">\n{body}</main>\n</body>\n</html>\n",
        others.join(" ")
    )
}

/// The rules' Markdown as HTML: headings with ids, raw HTML as text, links only within the
/// page.
fn render(text: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_HEADING_ATTRIBUTES;
    let events: Vec<Event<'_>> = Parser::new_ext(text, options).collect();
    let mut seen = HashMap::new();
    let mut out = Vec::with_capacity(events.len());
    let mut at = 0;
    while at < events.len() {
        match &events[at] {
            Event::Start(Tag::Heading { level, id, classes, attrs }) => {
                // The heading's text, up to its end, names it.
                let words: String = events[at + 1..]
                    .iter()
                    .take_while(|e| !matches!(e, Event::End(TagEnd::Heading(_))))
                    .filter_map(|e| match e {
                        Event::Text(t) | Event::Code(t) => Some(t.as_ref()),
                        _ => None,
                    })
                    .collect();
                let id = id.clone().unwrap_or_else(|| CowStr::from(slug(&words, &mut seen)));
                out.push(Event::Start(Tag::Heading {
                    level: *level,
                    id: Some(id),
                    classes: classes.clone(),
                    attrs: attrs.clone(),
                }));
            }
            Event::Html(t) | Event::InlineHtml(t) => out.push(Event::Text(t.clone())),
            Event::Start(Tag::Link { dest_url, .. }) if !dest_url.starts_with('#') => {
                // A link out of the page (the repository's other files, say): its text alone.
                let mut depth = 1;
                at += 1;
                while at < events.len() && depth > 0 {
                    match &events[at] {
                        Event::Start(Tag::Link { .. }) => depth += 1,
                        Event::End(TagEnd::Link) => depth -= 1,
                        e => out.push(e.clone()),
                    }
                    at += 1;
                }
                continue;
            }
            Event::Start(Tag::Image { .. }) | Event::End(TagEnd::Image) => {}
            e => out.push(e.clone()),
        }
        at += 1;
    }
    let mut html = String::with_capacity(text.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, out.into_iter());
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_has_its_rules_page() {
        // A page for every game of the registry, and none for a game it does not have.
        let engine: Vec<&str> = engine::games().iter().map(|g| g.name).collect();
        assert_eq!(games().collect::<Vec<_>>(), engine);
        assert_eq!(RULES.len(), engine.len());
        for game in games() {
            let page = find(game).unwrap();
            assert!(page.contains("<h1 id=") && page.contains("</main>"), "{game}");
            assert!(!page.contains("<script"), "{game}: a script");
        }
        assert!(find("chess").is_none() && find("../journey").is_none());
    }

    /// Every action met in random games of every preset names a section of its game's rules
    /// that the page has (the table links each action's button to it).
    #[test]
    fn every_action_names_a_section_of_its_rules() {
        use rand::{RngExt, SeedableRng};
        let no_files = |name: &str| -> Result<String, String> { Err(format!("{name}: no files here")) };
        for entry in engine::games() {
            let page = find(entry.name).unwrap();
            let mut named = std::collections::BTreeSet::new();
            for preset in entry.presets {
                let spec = (entry.spec)(Some(preset), &[], &no_files).unwrap();
                for seed in 0..30 {
                    let mut game = spec.new_game(seed);
                    let mut rng = engine::core::SmallRng::seed_from_u64(seed);
                    let mut legal = Vec::new();
                    while !game.is_terminal() {
                        legal.clear();
                        game.legal_actions(&mut legal);
                        for &a in &legal {
                            let section =
                                game.action_section(a).unwrap_or_else(|| panic!("{}: action {a}", entry.name));
                            named.insert(section);
                        }
                        game.apply(legal[rng.random_range(0..legal.len())]).unwrap();
                    }
                }
            }
            // And every id the game names, whether random games met it or not (modules off).
            let spec = (entry.spec)(None, &[], &no_files).unwrap();
            let game = spec.new_game(0);
            for id in 0..spec.action_count() {
                if spec.action_name(id).is_some() {
                    let section = game.action_section(id).unwrap_or_else(|| panic!("{}: action {id}", entry.name));
                    named.insert(section);
                }
            }
            for section in &named {
                assert!(page.contains(&format!(" id=\"{section}\"")), "{}: no section `{section}`", entry.name);
            }
            assert!(named.len() >= 5, "{}: {named:?}", entry.name);
        }
    }

    #[test]
    fn headings_are_named_and_markup_in_the_text_is_text() {
        let html = render(
            "# Journey: the rules\n## 6. Fighting\n### Strike\n## 6. Fighting\n\
             `strike <card>` and <b onclick=\"x()\">bold</b>\n\n[elsewhere](../other.md) [here](#strike)\n",
        );
        assert!(html.contains("<h1 id=\"journey-the-rules\">"), "{html}");
        assert!(html.contains("<h2 id=\"6-fighting\">") && html.contains("<h2 id=\"6-fighting-1\">"), "{html}");
        assert!(html.contains("<h3 id=\"strike\">"), "{html}");
        assert!(html.contains("<code>strike &lt;card&gt;</code>"), "{html}");
        assert!(html.contains("&lt;b onclick=\"x()\"&gt;bold&lt;/b&gt;"), "{html}");
        assert!(!html.contains("other.md") && html.contains("elsewhere"), "{html}");
        assert!(html.contains("<a href=\"#strike\">here</a>"), "{html}");
    }
}
