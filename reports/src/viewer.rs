//! A game as a page a person can step through: every position with each seat's view as text,
//! the mover and the label of the move made from it, the result at the end; previous and
//! next (buttons, arrow keys), the position in the address (`#step=K`). One self-contained
//! HTML file: no server, nothing fetched.

use crate::html::{self, json_in_script};
use serde::Serialize;
use std::fmt::Write;

/// One position of a game.
#[derive(Clone, Debug, Serialize)]
pub struct Step {
    /// The seat to move (none at the end).
    pub mover: Option<usize>,
    /// The move made from here (empty at the end).
    pub label: String,
    /// What that move acts on, as the drawing names it (`column:2`): marked at the next step.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub target: String,
    /// Each seat's view of the position, as text.
    pub views: Vec<String>,
    /// …and as the game's observation (JSON), drawn by [`DRAW`] when the game is one it draws.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub observations: Vec<serde_json::Value>,
}

/// A whole game, for the viewer.
#[derive(Clone, Debug, Serialize)]
pub struct GameView {
    /// The game's name (what [`DRAW`] draws it by).
    pub game: String,
    pub title: String,
    /// A line under the title (game, parameters, seed).
    pub subtitle: String,
    /// Who sat at each seat.
    pub players: Vec<String>,
    pub steps: Vec<Step>,
    /// How it ended, in words.
    pub result: String,
}

/// The viewer's style.
pub const CSS: &str = "body{font-family:system-ui,sans-serif;margin:0;color:#222;background:#fafafa}\
main{max-width:1400px;margin:0 auto;padding:1em}h1{font-size:1.3em;margin:.2em 0}.sub{color:#555}\
nav{position:sticky;top:0;background:#fafafa;padding:.5em 0;border-bottom:1px solid #ddd;display:flex;gap:.5em;\
align-items:center;flex-wrap:wrap}button{font-size:1em;padding:.3em .8em}#where{font-variant-numeric:tabular-nums}\
#move{font-weight:600}.seats{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:1em;margin-top:1em}\
.seat{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.5em}.seat.mover{border-color:#2a6df4;\
box-shadow:0 0 0 2px #2a6df433}.seat h2{font-size:1em;margin:.2em 0}pre{white-space:pre-wrap;font-size:.85em;margin:0}\
#result{margin-top:1em;font-weight:600}";

/// The drawing of a seat's view (SVG made by the page's script from the seat's observation),
/// shared by the web face's tables and the step-through pages.
pub const DRAW: &str = include_str!("viewer_assets/draw.js");

/// The drawings' style.
pub const DRAW_CSS: &str = include_str!("viewer_assets/draw.css");

/// The viewer's script: it reads the game from the page's `game` JSON element.
pub const SCRIPT: &str = r#"
const game = JSON.parse(document.getElementById('game').textContent);
let at = 0;
function show(k) {
  at = Math.max(0, Math.min(game.steps.length - 1, k));
  const s = game.steps[at];
  document.getElementById('where').textContent = 'position ' + at + ' of ' + (game.steps.length - 1);
  const who = s.mover === null ? 'the game is over' :
    'seat ' + s.mover + ' (' + game.players[s.mover] + ') plays: ';
  document.getElementById('who').textContent = who;
  document.getElementById('move').textContent = s.label;
  const seats = document.getElementById('seats');
  seats.replaceChildren();
  s.views.forEach((v, i) => {
    const d = document.createElement('section');
    d.className = 'seat' + (s.mover === i ? ' mover' : '');
    const h = document.createElement('h2');
    h.textContent = 'seat ' + i + ' (' + game.players[i] + ') sees';
    const p = document.createElement('pre');
    p.textContent = v;
    d.append(h);
    // Drawn, where the game is one the drawing knows (the text beneath, for every reader).
    const o = (s.observations || [])[i];
    const drawn = o && typeof draw !== 'undefined' ? draw.table(game.game, o, [], () => {}, () => {}, window.innerWidth < 600) : null;
    // The thing the last move acted on, marked.
    if (drawn && at > 0 && game.steps[at - 1].target) draw.mark(drawn, game.steps[at - 1].target);
    if (drawn) d.append(drawn);
    d.append(p);
    seats.append(d);
  });
  document.getElementById('result').hidden = at !== game.steps.length - 1;
  document.getElementById('prev').disabled = at === 0;
  document.getElementById('next').disabled = at === game.steps.length - 1;
  history.replaceState(null, '', '#step=' + at);
}
document.getElementById('first').onclick = () => show(0);
document.getElementById('prev').onclick = () => show(at - 1);
document.getElementById('next').onclick = () => show(at + 1);
document.getElementById('last').onclick = () => show(game.steps.length - 1);
document.addEventListener('keydown', e => {
  if (e.key === 'ArrowLeft') show(at - 1);
  if (e.key === 'ArrowRight') show(at + 1);
});
const start = /step=(\d+)/.exec(location.hash);
show(start ? Number(start[1]) : 0);
// `?next=N` presses `next` N times once loaded (a tour for tests and demos).
const presses = /next=(\d+)/.exec(location.search);
for (let i = 0; presses && i < Number(presses[1]); i++) document.getElementById('next').click();
"#;

/// Where a page's style and script come from.
#[derive(Clone, Copy, Debug)]
pub enum Assets<'a> {
    /// In the page itself (a file that opens from disk, with nothing beside it).
    Inline,
    /// From these addresses (a server whose content security policy forbids inline script):
    /// the style, the drawings' style, the drawing's script and the viewer's.
    Linked { style: &'a str, draw_style: &'a str, draw: &'a str, script: &'a str },
}

/// The page of one game, self-contained.
pub fn viewer_html(g: &GameView) -> String {
    viewer_page(g, Assets::Inline)
}

/// The page of one game, its style and script as `assets` says.
pub fn viewer_page(g: &GameView, assets: Assets) -> String {
    // Names, labels and views are anyone's text: the JSON holds no `<`, `>` or `&` that the
    // page's parser could read (`</script>`, `<!--<script>`), and no line terminator.
    let data = json_in_script(g).unwrap_or_else(|_| "{}".into());
    let mut out = String::new();
    let title = html::text(&g.title);
    let (style, script) = match assets {
        Assets::Inline => {
            (format!("<style>{CSS}{DRAW_CSS}</style>"), format!("<script>{DRAW}</script>\n<script>{SCRIPT}</script>"))
        }
        Assets::Linked { style, draw_style, draw, script } => (
            format!(
                "<link rel=\"stylesheet\" href=\"{}\">\n<link rel=\"stylesheet\" href=\"{}\">",
                html::text(style),
                html::text(draw_style)
            ),
            format!("<script src=\"{}\"></script>\n<script src=\"{}\"></script>", html::text(draw), html::text(script)),
        ),
    };
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{title}</title>\n\
         {style}\n</head>\n<body>\n<main>\n<h1>{title}</h1>\n<p class=\"sub\">{}</p>\n\
         <nav><button id=\"first\">« first</button><button id=\"prev\">◀ previous</button>\
         <button id=\"next\">next ▶</button><button id=\"last\">last »</button>\
         <span id=\"where\"></span> — <span id=\"who\"></span><span id=\"move\"></span></nav>\n\
         <div id=\"seats\" class=\"seats\"></div>\n<p id=\"result\" hidden>{}</p>\n\
         <script type=\"application/json\" id=\"game\">{data}</script>\n{script}\n\
         </main>\n</body>\n</html>\n",
        html::text(&g.subtitle),
        html::text(&g.result)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_holds_the_game_and_no_name_can_end_or_swallow_its_script() {
        let hostile = "c<!--<script> </script> <img src=x onerror=alert(1)> \"q\" 'q' &amp; ]]> \u{2028}\u{2029}";
        let g = GameView {
            game: format!("g{hostile}"),
            title: format!("a <game> {hostile}"),
            subtitle: format!("seed 1, {hostile}"),
            players: vec![hostile.into()],
            steps: vec![
                Step {
                    mover: Some(0),
                    target: format!("t{hostile}"),
                    label: format!("play {hostile}"),
                    views: vec![format!("view {hostile}")],
                    observations: vec![serde_json::json!({ "seat": 0, "name": hostile })],
                },
                Step {
                    mover: None,
                    label: String::new(),
                    target: String::new(),
                    views: vec!["view 1".into()],
                    observations: Vec::new(),
                },
            ],
            result: format!("won by {hostile}"),
        };
        let linked = Assets::Linked {
            style: "/v.css",
            draw_style: "/d.css",
            draw: "/static/draw.js",
            script: "/static/viewer.js",
        };
        for assets in [Assets::Inline, linked] {
            let html = viewer_page(&g, assets);
            assert!(html.contains("a &lt;game&gt; c&lt;!--&lt;script&gt;"), "{html}");
            // Three script elements: the game's data, the drawing and the viewer.
            assert_eq!(html.matches("</script>").count(), 3, "only the script elements end");
            assert_eq!(html.matches("<script").count(), 3, "no script but the page's");
            assert!(!html.contains("<!--") && !html.contains("<img"), "{html}");
            // The data element holds the game, and no character the parser reads.
            let start = html.find("id=\"game\">").unwrap() + "id=\"game\">".len();
            let data = &html[start..start + html[start..].find("</script>").unwrap()];
            assert!(!data.contains(['<', '>', '&', '\u{2028}', '\u{2029}']), "{data}");
            let read: serde_json::Value = serde_json::from_str(data).unwrap();
            assert_eq!(read, serde_json::to_value(&g).unwrap());
        }
    }
}
