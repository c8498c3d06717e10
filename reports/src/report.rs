//! The report directory of a tournament: rating lists as JSON and Markdown, charts as PNG and
//! SVG, and one self-contained HTML page holding all of it.

use crate::charts::{self, ChartFiles};
use crate::html;
use crate::ratings::{Bound, Progression, RatedGame, RatingList, RatingOptions, progression, rate};
use serde::{Deserialize, Serialize};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Checkpoints of the progression chart.
const CHECKPOINTS: usize = 16;

/// What a report is made of.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReportInput {
    /// The report's title (page title and chart titles).
    pub title: String,
    /// Participant names; [`crate::Pairwise`] indices point into it.
    pub participants: Vec<String>,
    /// Group labels, e.g. "journey classic, 1 traveller", "expedition dice, 2 players".
    pub groups: Vec<String>,
    /// Every rated game, in the order played (the progression chart follows this order).
    pub games: Vec<RatedGame>,
    /// Anchor, bootstrap resamples and seed, for every list.
    pub options: RatingOptions,
    /// Pairs of groups to chart side by side: (left group, right group, caption).
    pub side_by_side: Vec<(usize, usize, String)>,
    /// Lines to print under the standings (verdicts, missing games...).
    pub notes: Vec<String>,
    /// Lines that differ from run to run of the same games (time per decision): printed with
    /// the notes, kept out of `ratings.json` (which a resumed or sharded run reproduces).
    pub run_notes: Vec<String>,
    /// Games to step through, linked from the page, by pairing.
    pub to_watch: Vec<Watch>,
    /// What each side-by-side pair's variants change (same order as `side_by_side`).
    pub variants: Vec<crate::variants::VariantComparison>,
}

/// The games of one pairing linked from the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Watch {
    /// The game entry and who met.
    pub heading: String,
    /// (what it is, the page relative to the report).
    pub links: Vec<(String, String)>,
}

/// What [`write_report`] wrote.
#[derive(Clone, Debug)]
pub struct ReportOutput {
    /// Every file written, in the order written.
    pub files: Vec<PathBuf>,
    /// The list over all games.
    pub overall: RatingList,
    /// One list per group (index = group), each over that group's games only.
    pub groups: Vec<RatingList>,
    /// The charts (their PNG and SVG files and sizes).
    pub charts: Vec<ChartFiles>,
}

/// One side-by-side pair, as `ratings.json` records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SideBySide {
    /// Group of the left list.
    pub left: usize,
    /// Group of the right list.
    pub right: usize,
    /// The caption given.
    pub caption: String,
}

/// The content of `ratings.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingsJson {
    /// The report's title.
    pub title: String,
    /// Participant names, by index.
    pub participants: Vec<String>,
    /// Group labels, by index.
    pub groups: Vec<String>,
    /// The options every list was computed with.
    pub options: RatingOptions,
    /// How the numbers were computed, in words.
    pub method: String,
    /// The list over all games.
    pub overall: RatingList,
    /// One list per group, by group index.
    pub by_group: Vec<RatingList>,
    /// The side-by-side pairs charted.
    pub side_by_side: Vec<SideBySide>,
    /// The overall ratings re-fitted as games accumulated.
    pub progression: Progression,
    /// The notes given, then the report's own.
    pub notes: Vec<String>,
}

/// How the numbers are computed, for the reader.
fn method(o: &RatingOptions, overall: &RatingList) -> String {
    let zero = match &overall.anchor {
        Some(a) => format!("{a} is fixed at 0"),
        None => "the mean rating of the rated participants is 0".into(),
    };
    format!(
        "Ratings are Bradley–Terry maximum-likelihood estimates on the Elo scale: participant a scores against b \
         with probability 1/(1+10^((Rb−Ra)/400)), a draw counting half a win (as Ordo and BayesElo do); {zero}. \
         To keep perfect scores finite, one virtual draw is added between every pair of participants that met (a \
         BayesElo-style prior that moves a pair's score towards 50% by one game's worth); ratings marked ≥ or ≤ are \
         bounds (lower or upper) because the real results alone would put them infinitely far above or below the \
         main body of the pool, and ? marks a participant whose distance to it only the prior sets. Intervals are 95% bootstrap \
         percentile intervals: {b} resamples (seed {seed}) draw the bootstrap units with replacement, all games of a \
         drawn unit together, and re-fit the ratings. LOS (likelihood of superiority) is the share of those re-fits \
         in which a participant is rated above the next one down the list. A game is one game played (each play of a \
         cooperative deal is one); results count pairwise results (a game of \
         k seats gives k(k−1)/2); score is the share of points in them.",
        b = o.bootstrap,
        seed = o.seed,
    )
}

fn signed(x: f64) -> String {
    crate::stats::signed(x, 1)
}

fn rating_text(rating: f64, bound: Option<Bound>) -> String {
    match bound {
        Some(b) => format!("{} {}", b.sign(), signed(rating)),
        None => signed(rating),
    }
}

fn interval_text(i: Option<(f64, f64)>) -> String {
    i.map_or_else(|| "—".into(), |(a, b)| format!("[{}, {}]", signed(a), signed(b)))
}

fn percent(x: Option<f64>) -> String {
    x.map_or_else(|| "—".into(), |x| format!("{:.1}%", 100.0 * x))
}

/// The cells of a list's standings table (shared by Markdown and HTML).
fn rows(list: &RatingList) -> Vec<[String; 8]> {
    list.entries
        .iter()
        .map(|e| {
            [
                e.rank.to_string(),
                e.name.clone(),
                rating_text(e.rating, e.bound),
                interval_text(e.interval),
                e.games.to_string(),
                percent(Some(e.score)),
                signed(e.opponents),
                percent(e.los_next),
            ]
        })
        .collect()
}

const HEADER: [&str; 8] =
    ["rank", "participant", "rating", "95% interval", "results", "score", "opponents", "LOS next"];

fn summary_line(list: &RatingList) -> String {
    format!(
        "{} games, {} pairwise results, {} bootstrap units, {} rated participants.",
        list.games,
        list.results,
        list.units,
        list.entries.len()
    )
}

fn unrated_line(list: &RatingList) -> Option<String> {
    (!list.unrated.is_empty()).then(|| {
        format!(
            "Not rated: {}.",
            list.unrated.iter().map(|u| format!("{} ({})", u.name, u.reason)).collect::<Vec<_>>().join("; ")
        )
    })
}

fn md_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | '|' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '#') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The head-to-head matrix of a list: row labels, then per row the cells.
fn h2h_cells(list: &RatingList) -> Vec<(String, Vec<String>)> {
    list.entries
        .iter()
        .map(|e| {
            let cells = list
                .entries
                .iter()
                .map(|o| {
                    if o.participant == e.participant {
                        "—".to_string()
                    } else {
                        list.head_to_head(e.participant, o.participant)
                            .map_or_else(String::new, |h| format!("{:.1}% ({})", 100.0 * h.score, h.games))
                    }
                })
                .collect();
            (format!("{}. {}", e.rank, e.name), cells)
        })
        .collect()
}

const H2H_LEGEND: &str =
    "Each cell: the score share of the row participant against the column participant (games between them).";

fn md_list(out: &mut String, heading: &str, list: &RatingList) {
    let _ = writeln!(out, "## {}\n", md_escape(heading));
    let _ = writeln!(out, "{}\n", summary_line(list));
    if list.entries.is_empty() {
        let _ = writeln!(out, "No rated participants.\n");
    } else {
        let _ = writeln!(out, "| {} |", HEADER.join(" | "));
        let _ = writeln!(out, "|---:|:---|---:|:---|---:|---:|---:|---:|");
        for mut r in rows(list) {
            r[1] = md_escape(&r[1]);
            let cells: Vec<String> = r.to_vec();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        out.push('\n');
    }
    if let Some(u) = unrated_line(list) {
        let _ = writeln!(out, "{}\n", md_escape(&u));
    }
    for n in &list.notes {
        let _ = writeln!(out, "- {}", md_escape(n));
    }
    if !list.notes.is_empty() {
        out.push('\n');
    }
}

fn markdown(input: &ReportInput, overall: &RatingList, groups: &[RatingList], notes: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", md_escape(&input.title));
    md_list(&mut out, "Overall (all games)", overall);
    if overall.entries.len() > 1 {
        let _ = writeln!(out, "### Head to head (all games)\n\n{H2H_LEGEND}\n");
        let _ = writeln!(
            out,
            "| | {} |",
            (1..=overall.entries.len()).map(|k| k.to_string()).collect::<Vec<_>>().join(" | ")
        );
        let _ = writeln!(out, "|:---|{}", ":---:|".repeat(overall.entries.len()));
        for (label, cells) in h2h_cells(overall) {
            let _ = writeln!(out, "| {} | {} |", md_escape(&label), cells.join(" | "));
        }
        out.push('\n');
    }
    for list in groups {
        md_list(&mut out, &list.label, list);
    }
    if !notes.is_empty() {
        let _ = writeln!(out, "## Notes\n");
        for n in notes {
            let _ = writeln!(out, "- {}", md_escape(n));
        }
        out.push('\n');
    }
    let _ = writeln!(out, "## Method\n\n{}", md_escape(&method(&input.options, overall)));
    out
}

fn html_list(out: &mut String, heading: &str, list: &RatingList) {
    let _ = writeln!(out, "<h2>{}</h2>\n<p>{}</p>", html::text(heading), html::text(&summary_line(list)));
    if list.entries.is_empty() {
        let _ = writeln!(out, "<p>No rated participants.</p>");
    } else {
        let _ = writeln!(out, "<table class=\"standings\">\n<thead><tr>");
        for h in HEADER {
            let _ = write!(out, "<th>{}</th>", html::text(h));
        }
        let _ = writeln!(out, "</tr></thead>\n<tbody>");
        for r in rows(list) {
            let _ = write!(out, "<tr>");
            for (k, c) in r.iter().enumerate() {
                let class = if k == 1 || k == 3 { "" } else { " class=\"num\"" };
                let _ = write!(out, "<td{class}>{}</td>", html::text(c));
            }
            let _ = writeln!(out, "</tr>");
        }
        let _ = writeln!(out, "</tbody>\n</table>");
    }
    if let Some(u) = unrated_line(list) {
        let _ = writeln!(out, "<p>{}</p>", html::text(&u));
    }
    if !list.notes.is_empty() {
        let _ = writeln!(out, "<ul class=\"notes\">");
        for n in &list.notes {
            let _ = writeln!(out, "<li>{}</li>", html::text(n));
        }
        let _ = writeln!(out, "</ul>");
    }
}

/// An SVG document as markup to place inside HTML (no XML declaration, no namespace URL: the
/// HTML parser puts `<svg>` in the SVG namespace by itself).
fn inline_svg(svg: &str) -> String {
    let start = svg.find("<svg").unwrap_or(0);
    svg[start..].replacen(" xmlns=\"http://www.w3.org/2000/svg\"", "", 1).replacen(
        " xmlns:xlink=\"http://www.w3.org/1999/xlink\"",
        "",
        1,
    )
}

fn html_figure(out: &mut String, chart: &ChartFiles, caption: &str) {
    let _ = writeln!(
        out,
        "<figure>\n<div class=\"chart\">{}</div>\n<figcaption>{}</figcaption>\n</figure>",
        inline_svg(&chart.svg_markup),
        html::text(caption)
    );
}

const CSS: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;color:#222;\
background:#fff;margin:0;line-height:1.45}main{max-width:1000px;margin:0 auto;padding:16px 24px 48px}\
h1{font-size:1.7em;margin:.6em 0 .3em}h2{margin-top:1.8em;border-bottom:1px solid #ddd;padding-bottom:.2em}\
table{border-collapse:collapse;margin:.6em 0;font-size:.93em}th,td{padding:4px 10px;border-bottom:1px solid #e4e4e4;\
text-align:left;white-space:nowrap}th{background:#f4f4f4}td.num{text-align:right;font-variant-numeric:tabular-nums}\
.scroll{overflow-x:auto}figure{margin:1.2em 0}.chart svg{max-width:100%;height:auto;display:block}\
figcaption{color:#555;font-size:.92em;margin-top:.3em}.method{color:#444;font-size:.95em}ul.notes li{margin:.2em 0}";

#[allow(clippy::too_many_arguments)]
fn html(
    input: &ReportInput,
    overall: &RatingList,
    groups: &[RatingList],
    notes: &[String],
    ratings: &ChartFiles,
    progress: &ChartFiles,
    heat: &ChartFiles,
    pairs: &[(ChartFiles, String)],
    variants: &[crate::variants::VariantComparison],
) -> String {
    let mut out = String::new();
    let title = html::text(&input.title);
    let _ = writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{title}</title>\n\
         <style>{CSS}</style>\n</head>\n<body>\n<main>\n<h1>{title}</h1>"
    );
    let _ = writeln!(out, "<p class=\"method\">{}</p>", html::text(&method(&input.options, overall)));
    html_list(&mut out, "Overall (all games)", overall);
    html_figure(&mut out, ratings, "Overall ratings with their 95% bootstrap intervals (ratings.png, ratings.svg).");
    html_figure(
        &mut out,
        progress,
        "Overall ratings re-fitted as the games accumulated, in the order played (progression.png, progression.svg).",
    );
    let _ = writeln!(out, "<h3>Head to head (all games)</h3>");
    html_figure(
        &mut out,
        heat,
        "Score share of the row participant against the column participant (head_to_head.png, head_to_head.svg).",
    );
    if overall.entries.len() > 1 {
        let _ = writeln!(
            out,
            "<p>{}</p>\n<div class=\"scroll\"><table class=\"h2h\">\n<thead><tr><th></th>",
            html::text(H2H_LEGEND)
        );
        for k in 1..=overall.entries.len() {
            let _ = write!(out, "<th>{k}</th>");
        }
        let _ = writeln!(out, "</tr></thead>\n<tbody>");
        for (label, cells) in h2h_cells(overall) {
            let _ = write!(out, "<tr><th>{}</th>", html::text(&label));
            for c in cells {
                let _ = write!(out, "<td class=\"num\">{}</td>", html::text(&c));
            }
            let _ = writeln!(out, "</tr>");
        }
        let _ = writeln!(out, "</tbody>\n</table></div>");
    }
    for (k, (chart, caption)) in pairs.iter().enumerate() {
        let _ = writeln!(out, "<h2>{}</h2>", html::text(caption));
        html_figure(&mut out, chart, &format!("{caption} ({}). {SIDE_BY_SIDE_LEGEND}", file_names(chart)));
        if let Some(v) = variants.get(k) {
            html_variants(&mut out, v);
        }
    }
    for list in groups {
        html_list(&mut out, &list.label, list);
    }
    if !input.to_watch.is_empty() {
        let _ = writeln!(out, "<h2>Games to watch</h2>\n<p>{}</p>\n<ul class=\"notes\">", html::text(WATCH_LEGEND));
        for Watch { heading, links } in &input.to_watch {
            let _ = write!(out, "<li>{}: ", html::text(heading));
            let shown: Vec<String> = links
                .iter()
                .map(|(label, href)| format!("<a href=\"{}\">{}</a>", html::text(href), html::text(label)))
                .collect();
            let _ = writeln!(out, "{}</li>", shown.join(", "));
        }
        let _ = writeln!(out, "</ul>");
    }
    if !notes.is_empty() {
        let _ = writeln!(out, "<h2>Notes</h2>\n<ul class=\"notes\">");
        for n in notes {
            let _ = writeln!(out, "<li>{}</li>", html::text(n));
        }
        let _ = writeln!(out, "</ul>");
    }
    let _ = writeln!(out, "</main>\n</body>\n</html>");
    out
}

const WATCH_LEGEND: &str = "For every pairing, its longest and shortest game and an upset (a win of the lower-rated \
participant), each on a page to step through move by move with every seat's view.";

const SIDE_BY_SIDE_LEGEND: &str = "Each list is rated on its own games and centred on its own mean: read the \
gaps between participants within a list, not positions across the lists (the table below gives every gap with its \
interval, and whether it differs). A hollow marker is a bound: a perfect score against part of the pool puts that \
rating infinitely far from the rest on the games alone; the prior (one virtual draw per pair that met) holds it at \
a finite place, and its interval shows only how the prior's effect moves as games are resampled.";

/// The table of what a variant changes, and the sentence.
fn html_variants(out: &mut String, v: &crate::variants::VariantComparison) {
    use crate::variants::{elo_text, number_text, share_text};
    let (l, r) = (&v.left, &v.right);
    let _ = writeln!(out, "<p><strong>{}</strong></p>", html::text(&v.summary));
    let _ = writeln!(
        out,
        "<div class=\"scroll\"><table class=\"variants\">\n<thead><tr><th></th><th>{}</th><th>{}</th><th>difference</th></tr></thead>\n<tbody>",
        html::text(&l.label),
        html::text(&r.label)
    );
    let row = |out: &mut String, name: &str, a: String, b: String, d: String| {
        let _ = writeln!(
            out,
            "<tr><th>{}</th><td>{}</td><td>{}</td><td>{}</td></tr>",
            html::text(name),
            html::text(&a),
            html::text(&b),
            html::text(&d)
        );
    };
    row(out, "two-player games", l.games.to_string(), r.games.to_string(), String::new());
    let sig = |s: bool| if s { "significant" } else { "not significant" };
    row(
        out,
        "first seat's score",
        share_text(&l.first_seat_score),
        share_text(&r.first_seat_score),
        format!("{} ({})", share_text(&v.first_seat_difference), sig(v.first_seat_significant)),
    );
    row(out, "draws", format!("{:.1}%", 100.0 * l.draws), format!("{:.1}%", 100.0 * r.draws), String::new());
    row(out, "game length (actions)", number_text(&l.length), number_text(&r.length), String::new());
    row(out, "score spread (points)", number_text(&l.score_spread), number_text(&r.score_spread), String::new());
    for g in &v.gaps {
        row(
            out,
            &format!("rating gap {} − {}", g.a, g.b),
            format!("{} ({} games)", elo_text(&g.left), g.games.0),
            format!("{} ({} games)", elo_text(&g.right), g.games.1),
            format!("{} ({})", elo_text(&g.difference), sig(g.significant)),
        );
    }
    let _ = writeln!(
        out,
        "</tbody>\n</table></div>\n<p class=\"method\">Two-player games only. Intervals are 95%, from the spread \
         between deals (a deal's games share its cards, so a deal is one unit); a rating gap is the difference of the two \
         participants' ratings in that variant's rating list below, its interval and the difference's from the same \
         bootstrap re-fits, and a difference is significant when its interval leaves out 0.</p>"
    );
}

fn file_names(c: &ChartFiles) -> String {
    let name = |p: &Path| p.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    format!("{}, {}", name(&c.png), name(&c.svg))
}

fn write_file(path: PathBuf, content: &str, files: &mut Vec<PathBuf>) -> Result<(), String> {
    std::fs::write(&path, content).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    files.push(path);
    Ok(())
}

/// Writes the report into `dir` (created if missing): `ratings.json` (every list,
/// [`RatingsJson`]), `standings.md`, the charts `ratings`, `progression`, `head_to_head` and,
/// per side-by-side pair, `variants` (then `variants_2`, ...) as `.png` and `.svg`, and
/// `index.html`, one page with every table and chart inline that needs nothing but itself.
///
/// There is one rating list over all games and one per group (over that group's games only).
/// Games whose group has no label count in the overall list only (with a note).
pub fn write_report(dir: &Path, input: &ReportInput) -> Result<ReportOutput, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create the report directory {}: {e}", dir.display()))?;
    for (l, r, caption) in &input.side_by_side {
        if *l >= input.groups.len() || *r >= input.groups.len() {
            return Err(format!(
                "side-by-side pair \"{caption}\" names group {} but there are {} groups",
                if *l >= input.groups.len() { l } else { r },
                input.groups.len()
            ));
        }
    }
    let mut notes = input.notes.clone();
    let stray = input.games.iter().filter(|g| g.group >= input.groups.len()).count();
    if stray > 0 {
        notes.push(format!("{stray} game(s) name a group without a label: they count in the overall list only."));
    }
    let mut overall = rate(&input.participants, &input.games, &input.options);
    overall.label = "Overall (all games)".into();
    let groups: Vec<RatingList> = input
        .groups
        .iter()
        .enumerate()
        .map(|(g, label)| {
            let games: Vec<RatedGame> = input.games.iter().filter(|x| x.group == g).cloned().collect();
            let mut list = rate(&input.participants, &games, &input.options);
            list.label = label.clone();
            list
        })
        .collect();
    let prog = progression(&input.participants, &input.games, input.options.anchor, CHECKPOINTS);
    // What each variant changes, its gaps read off the two variants' rating lists.
    let variants: Vec<crate::variants::VariantComparison> = input
        .variants
        .iter()
        .zip(&input.side_by_side)
        .map(|(v, (l, r, _))| {
            let mut v = v.clone();
            v.rate_gaps(&groups[*l], &groups[*r]);
            v
        })
        .collect();

    let mut files = Vec::new();
    let mut all_charts = Vec::new();
    let mut chart = |c: ChartFiles, files: &mut Vec<PathBuf>| {
        files.push(c.png.clone());
        files.push(c.svg.clone());
        all_charts.push(c.clone());
        c
    };
    let title = &input.title;
    let ratings_c = chart(charts::ratings_chart(dir, "ratings", &format!("{title}: ratings"), &overall)?, &mut files);
    let progress_c = chart(
        charts::progression_chart(
            dir,
            "progression",
            &format!("{title}: rating progression"),
            &input.participants,
            &prog,
        )?,
        &mut files,
    );
    let heat_c = chart(
        charts::head_to_head_chart(dir, "head_to_head", &format!("{title}: head to head"), &overall)?,
        &mut files,
    );
    let mut pairs = Vec::new();
    for (k, (l, r, caption)) in input.side_by_side.iter().enumerate() {
        let name = if k == 0 { "variants".to_string() } else { format!("variants_{}", k + 1) };
        let c = charts::side_by_side_chart(
            dir,
            &name,
            caption,
            (&input.groups[*l], &groups[*l]),
            (&input.groups[*r], &groups[*r]),
        )?;
        pairs.push((chart(c, &mut files), caption.clone()));
    }

    let json = RatingsJson {
        title: input.title.clone(),
        participants: input.participants.clone(),
        groups: input.groups.clone(),
        options: input.options.clone(),
        method: method(&input.options, &overall),
        overall: overall.clone(),
        by_group: groups.clone(),
        side_by_side: input
            .side_by_side
            .iter()
            .map(|(l, r, c)| SideBySide { left: *l, right: *r, caption: c.clone() })
            .collect(),
        progression: prog,
        notes: notes.clone(),
    };
    let text = serde_json::to_string_pretty(&json).map_err(|e| format!("cannot encode ratings.json: {e}"))?;
    write_file(dir.join("ratings.json"), &text, &mut files)?;
    if !variants.is_empty() {
        let text = serde_json::to_string_pretty(&variants).map_err(|e| format!("cannot encode variants.json: {e}"))?;
        write_file(dir.join("variants.json"), &text, &mut files)?;
    }
    notes.extend(input.run_notes.iter().cloned());
    write_file(dir.join("standings.md"), &markdown(input, &overall, &groups, &notes), &mut files)?;
    let page = html(input, &overall, &groups, &notes, &ratings_c, &progress_c, &heat_c, &pairs, &variants);
    write_file(dir.join("index.html"), &page, &mut files)?;
    Ok(ReportOutput { files, overall, groups, charts: all_charts })
}
