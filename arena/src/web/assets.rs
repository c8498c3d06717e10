//! The pages, scripts and style of the web face, embedded in the binary: nothing is built or
//! fetched at run time, and a request names an asset by a fixed name, never a path.

/// An embedded file: its name in `/static/NAME` (pages have their own addresses), its type, its
/// bytes.
pub struct Asset {
    pub name: &'static str,
    pub content_type: &'static str,
    pub body: &'static str,
}

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const SVG: &str = "image/svg+xml";

/// The front page (`/`): standings, matches in play, a table to sit at.
pub const FRONT: Asset = Asset { name: "index.html", content_type: HTML, body: include_str!("page/index.html") };
/// One match, live (`/match?id=ID`): the public view, and its seat's view to a seat's holder.
pub const MATCH: Asset = Asset { name: "match.html", content_type: HTML, body: include_str!("page/match.html") };
/// One agent of a ladder (`/agent?name=NAME`): its rating over time, head-to-head, games.
pub const AGENT: Asset = Asset { name: "agent.html", content_type: HTML, body: include_str!("page/agent.html") };
/// A new match with a person at a seat (`/play`).
pub const PLAY: Asset = Asset { name: "play.html", content_type: HTML, body: include_str!("page/play.html") };

/// The client key this browser shows (`/key`, and what a page needing one answers without).
pub const KEY: Asset = Asset { name: "key.html", content_type: HTML, body: include_str!("page/key.html") };

/// What `/static/NAME` serves.
pub const STATIC: [Asset; 12] = [
    Asset { name: "arena.css", content_type: CSS, body: include_str!("page/arena.css") },
    Asset { name: "arena.js", content_type: JS, body: include_str!("page/arena.js") },
    Asset { name: "front.js", content_type: JS, body: include_str!("page/front.js") },
    Asset { name: "match.js", content_type: JS, body: include_str!("page/match.js") },
    // The tables drawn (the match page's, and the step-through viewer's).
    Asset { name: "draw.js", content_type: JS, body: reports::viewer::DRAW },
    Asset { name: "draw.css", content_type: CSS, body: reports::viewer::DRAW_CSS },
    Asset { name: "play.js", content_type: JS, body: include_str!("page/play.js") },
    Asset { name: "agent.js", content_type: JS, body: include_str!("page/agent.js") },
    Asset { name: "key.js", content_type: JS, body: include_str!("page/key.js") },
    Asset { name: "icon.svg", content_type: SVG, body: include_str!("page/icon.svg") },
    // The report's step-through viewer, for finished games (`/game`).
    Asset { name: "viewer.css", content_type: CSS, body: reports::viewer::CSS },
    Asset { name: "viewer.js", content_type: JS, body: reports::viewer::SCRIPT },
];

/// The static asset of this name, if there is one.
pub fn find(name: &str) -> Option<&'static Asset> {
    STATIC.iter().find(|a| a.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The content security policy forbids inline script and style: no page may hold any.
    #[test]
    fn no_page_holds_an_inline_script_or_style() {
        for page in [FRONT, MATCH, PLAY, KEY, AGENT] {
            let body = page.body;
            for (at, _) in body.match_indices("<script") {
                let tag = &body[at..at + body[at..].find('>').unwrap()];
                assert!(tag.contains("src=\"/static/"), "{}: an inline script: {tag}", page.name);
            }
            assert!(!body.contains("<style"), "{}: an inline style", page.name);
            assert!(!body.contains(" style=\""), "{}: a style attribute", page.name);
            for (at, _) in body.match_indices(" on") {
                let attr: String = body[at + 1..].chars().take_while(|c| c.is_ascii_alphabetic()).collect();
                assert!(!body[at + 1 + attr.len()..].starts_with('='), "{}: an inline handler {attr}", page.name);
            }
            for (at, _) in body.match_indices("/static/") {
                let name = body[at + 8..].split('"').next().unwrap();
                assert!(find(name).is_some(), "{}: links /static/{name}, which is not embedded", page.name);
            }
            assert!(!body.contains("http://") && !body.contains("https://"), "{}: another origin", page.name);
        }
    }

    /// What a script puts in a page from the server (names, labels, views: anyone's text) goes
    /// in as text: no script of the face writes markup.
    #[test]
    fn no_script_writes_markup() {
        for script in STATIC.iter().filter(|a| a.content_type == JS) {
            for markup in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "createContextualFragment"]
            {
                assert!(!script.body.contains(markup), "{} writes markup: {markup}", script.name);
            }
        }
    }
}
