//! Charts of rating lists, drawn with plotters and written both as PNG and as SVG.
//!
//! Text is laid out with the DejaVu Sans font embedded in the binary (the `dejavu` crate),
//! registered with plotters once per process by [`register_fonts`] (every chart function calls
//! it), so no system font is needed. PNG files carry the glyphs as pixels; SVG files keep the
//! text as `<text>` in the `sans-serif` family, so names stay searchable and selectable.
//!
//! The chart functions are safe to call from several threads at once: the font table is
//! behind plotters' lock and each chart draws into its own buffer.

use crate::ratings::{Progression, RatingList};
use crate::stats::signed;
use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontStyle, register_font};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Default chart width in pixels.
pub const WIDTH: u32 = 900;
/// Default (and minimum) chart height in pixels; charts with many participants grow taller.
pub const HEIGHT: u32 = 520;

/// The font family every chart uses (DejaVu Sans once registered).
const FONT: &str = "sans-serif";

/// Colours for participants and series (Tableau 10, readable on white); beyond ten they
/// repeat darker.
const PALETTE: [RGBColor; 10] = [
    RGBColor(78, 121, 167),
    RGBColor(242, 142, 43),
    RGBColor(225, 87, 89),
    RGBColor(118, 183, 178),
    RGBColor(89, 161, 79),
    RGBColor(196, 160, 30),
    RGBColor(176, 122, 161),
    RGBColor(255, 130, 150),
    RGBColor(156, 117, 95),
    RGBColor(121, 112, 110),
];

const GRID_LIGHT: RGBColor = RGBColor(238, 238, 238);
const GRID_BOLD: RGBColor = RGBColor(205, 205, 205);
const INK: RGBColor = RGBColor(40, 40, 40);
const MUTED: RGBColor = RGBColor(110, 110, 110);

/// The `i`-th series colour.
pub fn colour(i: usize) -> RGBColor {
    let c = PALETTE[i % PALETTE.len()];
    if (i / PALETTE.len()) % 2 == 1 {
        RGBColor((f64::from(c.0) * 0.6) as u8, (f64::from(c.1) * 0.6) as u8, (f64::from(c.2) * 0.6) as u8)
    } else {
        c
    }
}

/// Registers DejaVu Sans (regular and bold) as plotters' `sans-serif` family, once per process.
/// Every chart function calls it; calling it again is free.
pub fn register_fonts() -> Result<(), String> {
    static DONE: OnceLock<Result<(), String>> = OnceLock::new();
    DONE.get_or_init(|| {
        register_font(FONT, FontStyle::Normal, dejavu::sans::regular())
            .map_err(|_| "the embedded DejaVu Sans font could not be read".to_string())?;
        register_font(FONT, FontStyle::Bold, dejavu::sans::bold())
            .map_err(|_| "the embedded DejaVu Sans Bold font could not be read".to_string())
    })
    .clone()
}

/// A chart written to disk: its PNG and SVG files, its size, and the SVG markup (for inlining).
#[derive(Clone, Debug)]
pub struct ChartFiles {
    /// The PNG file.
    pub png: PathBuf,
    /// The SVG file.
    pub svg: PathBuf,
    /// Width in pixels (both files).
    pub width: u32,
    /// Height in pixels (both files).
    pub height: u32,
    /// The SVG document, as written to `svg`.
    pub svg_markup: String,
}

/// Something drawable at a size on any plotters backend.
trait Figure {
    fn size(&self) -> (u32, u32);
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String>;
}

fn de<E: std::fmt::Display>(e: E) -> String {
    format!("drawing failed: {e}")
}

fn text(size: f64, colour: &RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    (FONT, size).into_font().color(colour).pos(Pos::new(h, v))
}

fn bold(size: f64, colour: &RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    (FONT, size).into_font().style(FontStyle::Bold).color(colour).pos(Pos::new(h, v))
}

/// Draws `fig` to `dir/name.svg` and `dir/name.png`.
fn render(dir: &Path, name: &str, fig: &impl Figure) -> Result<ChartFiles, String> {
    register_fonts()?;
    let (width, height) = fig.size();
    let svg_path = dir.join(format!("{name}.svg"));
    let png_path = dir.join(format!("{name}.png"));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        fig.draw(&root).map_err(|e| format!("{}: {e}", svg_path.display()))?;
        root.present().map_err(|e| format!("{}: {}", svg_path.display(), de(e)))?;
    }
    std::fs::write(&svg_path, &svg).map_err(|e| format!("cannot write {}: {e}", svg_path.display()))?;
    let mut pixels = vec![0u8; width as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, (width, height)).into_drawing_area();
        fig.draw(&root).map_err(|e| format!("{}: {e}", png_path.display()))?;
        root.present().map_err(|e| format!("{}: {}", png_path.display(), de(e)))?;
    }
    write_png(&png_path, width, height, &pixels)?;
    Ok(ChartFiles { png: png_path, svg: svg_path, width, height, svg_markup: svg })
}

/// Writes RGB `pixels` (`width` × `height`) to `path` as a PNG.
fn write_png(path: &Path, width: u32, height: u32, pixels: &[u8]) -> Result<(), String> {
    let failed = |e: &dyn std::fmt::Display| format!("cannot write {}: {e}", path.display());
    let file = std::fs::File::create(path).map_err(|e| failed(&e))?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| failed(&e))?;
    writer.write_image_data(pixels).map_err(|e| failed(&e))?;
    writer.finish().map_err(|e| failed(&e))
}

/// A white page with the title and a message in the middle (for empty data).
fn empty<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, title: &str, message: &str) -> Result<(), String> {
    let (w, h) = root.dim_in_pixel();
    root.fill(&WHITE).map_err(de)?;
    root.draw_text(title, &bold(22.0, &INK, HPos::Center, VPos::Top), (w as i32 / 2, 14)).map_err(de)?;
    root.draw_text(message, &text(16.0, &MUTED, HPos::Center, VPos::Center), (w as i32 / 2, h as i32 / 2)).map_err(de)
}

/// Names longer than this many characters are shortened in charts (tables keep them whole).
pub const MAX_LABEL_CHARS: usize = 30;

/// `name` if short enough, else its start and end around an ellipsis (bot specs differ at
/// either end).
fn short(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    if chars.len() <= MAX_LABEL_CHARS {
        return name.to_string();
    }
    let keep = (MAX_LABEL_CHARS - 1) / 2;
    let head: String = chars[..keep].iter().collect();
    let tail: String = chars[chars.len() - keep..].iter().collect();
    format!("{head}…{tail}")
}

/// Widest of `labels` in pixels at `size`.
fn widest<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, labels: &[String], size: f64) -> Result<u32, String> {
    let style = text(size, &INK, HPos::Left, VPos::Top);
    let mut w = 0;
    for l in labels {
        w = w.max(root.estimate_text_size(l, &style).map_err(de)?.0);
    }
    Ok(w)
}

/// `(lo, hi)` padded by `left`/`right` fractions of the span, at least `min_span` wide.
fn padded(lo: f64, hi: f64, left: f64, right: f64, min_span: f64) -> (f64, f64) {
    let (mut lo, mut hi) = if lo.is_finite() && hi.is_finite() { (lo, hi) } else { (-1.0, 1.0) };
    if hi - lo < min_span {
        let mid = (lo + hi) / 2.0;
        lo = mid - min_span / 2.0;
        hi = mid + min_span / 2.0;
    }
    let span = hi - lo;
    (lo - left * span, hi + right * span)
}

/// The rating with a bound marker: "≥ +412" for a lower bound, "≤ −300" for an upper one.
fn rating_label(r: f64, bound: Option<crate::ratings::Bound>) -> String {
    match bound {
        Some(b) => format!("{} {}", b.sign(), signed(r, 0)),
        None => signed(r, 0),
    }
}

fn zero_label(list: &RatingList) -> String {
    match &list.anchor {
        Some(a) => format!("0 = {a}"),
        None => "0 = mean of the rated".into(),
    }
}

/// A vertical axis of `n` rows: values in `-0.5..n − 0.5`, a tick at every integer (row).
struct RowAxis(usize);

impl Ranged for RowAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let t = (v + 0.5) / self.0.max(1) as f64;
        limit.0 + (t * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, _hint: H) -> Vec<f64> {
        (0..self.0).map(|k| k as f64).collect()
    }

    fn range(&self) -> std::ops::Range<f64> {
        -0.5..self.0 as f64 - 0.5
    }
}

/// One list's dots with their intervals, on a horizontal chart with one row per name.
struct Row {
    rating: f64,
    interval: Option<(f64, f64)>,
    bound: Option<crate::ratings::Bound>,
}

/// Draws rows of dots with error bars: `rows[s][k]` is series `s` for participant `k` (top
/// first). `offsets[s]` shifts series `s` vertically (in row units).
#[allow(clippy::too_many_arguments)]
fn dot_rows<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    labels: &[String],
    rows: &[Vec<Option<Row>>],
    colours: &[RGBColor],
    offsets: &[f64],
    x_desc: &str,
    value_labels: bool,
) -> Result<(), String> {
    let n = labels.len();
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for r in rows.iter().flatten().flatten() {
        let (a, b) = r.interval.unwrap_or((r.rating, r.rating));
        lo = lo.min(a.min(r.rating));
        hi = hi.max(b.max(r.rating));
    }
    let (lo, hi) = padded(lo, hi, 0.05, if value_labels { 0.16 } else { 0.05 }, 50.0);
    let label_w = widest(area, labels, 14.0)? + 18;
    let mut builder = ChartBuilder::on(area);
    builder.margin(14).margin_right(26).x_label_area_size(52).y_label_area_size(label_w.clamp(60, 420));
    if !title.is_empty() {
        builder.caption(title, bold(21.0, &INK, HPos::Center, VPos::Top));
    }
    let mut chart = builder.build_cartesian_2d(lo..hi, RowAxis(n)).map_err(de)?;
    let label_of = |y: &f64| {
        let k = y.round();
        if k >= 0.0 && (k as usize) < n { labels[n - 1 - k as usize].clone() } else { String::new() }
    };
    chart
        .configure_mesh()
        .y_label_formatter(&label_of)
        .x_label_formatter(&|x| signed(*x, 0))
        .x_max_light_lines(2)
        .x_desc(x_desc)
        .label_style(text(14.0, &INK, HPos::Center, VPos::Center))
        .axis_desc_style(text(15.0, &INK, HPos::Center, VPos::Center))
        .light_line_style(GRID_LIGHT)
        .bold_line_style(GRID_BOLD)
        .draw()
        .map_err(de)?;
    if lo < 0.0 && hi > 0.0 {
        chart
            .draw_series(std::iter::once(PathElement::new(vec![(0.0, -0.5), (0.0, n as f64 - 0.5)], MUTED)))
            .map_err(de)?;
    }
    for (s, series) in rows.iter().enumerate() {
        let c = colours[s];
        for (k, row) in series.iter().enumerate() {
            let Some(r) = row else { continue };
            let y = (n - 1 - k) as f64 + offsets[s];
            if let Some((a, b)) = r.interval {
                chart
                    .draw_series(std::iter::once(ErrorBar::new_horizontal(y, a, r.rating, b, c.stroke_width(2), 9)))
                    .map_err(de)?;
            }
            let marker = if r.bound.is_some() { c.stroke_width(2) } else { c.filled() };
            chart.draw_series(std::iter::once(Circle::new((r.rating, y), 5, marker))).map_err(de)?;
            if value_labels {
                let x = r.interval.map_or(r.rating, |(_, b)| b);
                let label = rating_label(r.rating, r.bound);
                chart
                    .draw_series(std::iter::once(
                        EmptyElement::at((x, y)) + Text::new(label, (8, 0), text(13.0, &INK, HPos::Left, VPos::Center)),
                    ))
                    .map_err(de)?;
            }
        }
    }
    Ok(())
}

struct RatingsFigure<'a> {
    title: &'a str,
    list: &'a RatingList,
}

impl Figure for RatingsFigure<'_> {
    fn size(&self) -> (u32, u32) {
        (WIDTH, HEIGHT.max(130 + 30 * self.list.entries.len() as u32))
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        if self.list.entries.is_empty() {
            return empty(root, self.title, "no rated participants");
        }
        root.fill(&WHITE).map_err(de)?;
        let labels: Vec<String> = self.list.entries.iter().map(|e| format!("{}. {}", e.rank, short(&e.name))).collect();
        let rows = vec![
            self.list
                .entries
                .iter()
                .map(|e| Some(Row { rating: e.rating, interval: e.interval, bound: e.bound }))
                .collect(),
        ];
        let interval = if self.list.bootstrap > 0 {
            format!("; bars: 95% intervals ({} resamples)", self.list.bootstrap)
        } else {
            String::new()
        };
        let desc = format!("Elo rating ({}){interval}", zero_label(self.list));
        dot_rows(root, self.title, &labels, &rows, &[colour(0)], &[0.0], &desc, true)
    }
}

/// Writes `dir/name.png` and `dir/name.svg`: the participants of `list` top to bottom by
/// rating, each a dot at its rating with its 95% interval as an error bar and the rating
/// written beside it (hollow dots and "≥"/"≤" mark ratings that are bounds).
pub fn ratings_chart(dir: &Path, name: &str, title: &str, list: &RatingList) -> Result<ChartFiles, String> {
    render(dir, name, &RatingsFigure { title, list })
}

struct ProgressionFigure<'a> {
    title: &'a str,
    names: &'a [String],
    progression: &'a Progression,
}

impl Figure for ProgressionFigure<'_> {
    fn size(&self) -> (u32, u32) {
        let shown = self.progression.ratings.iter().filter(|r| r.iter().any(Option::is_some)).count() as u32;
        (WIDTH, HEIGHT.max(110 + 22 * shown))
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let p = self.progression;
        // Participants with a rating, ordered by their last rating (legend order).
        let last = |r: &Vec<Option<f64>>| r.iter().rev().find_map(|x| *x);
        let mut shown: Vec<usize> = (0..p.ratings.len()).filter(|&i| last(&p.ratings[i]).is_some()).collect();
        shown.sort_by(|&a, &b| {
            last(&p.ratings[b]).unwrap_or(0.0).total_cmp(&last(&p.ratings[a]).unwrap_or(0.0)).then(a.cmp(&b))
        });
        if shown.is_empty() || p.games.is_empty() {
            return empty(root, self.title, "no rated games");
        }
        root.fill(&WHITE).map_err(de)?;
        let names: Vec<String> = shown.iter().map(|&i| short(self.names.get(i).map_or("", |s| s.as_str()))).collect();
        let legend_w = (widest(root, &names, 14.0)? + 56).clamp(120, 360);
        let (w, _) = root.dim_in_pixel();
        let (plot, legend) = root.split_horizontally(w.saturating_sub(legend_w));
        let values = shown.iter().flat_map(|&i| p.ratings[i].iter().flatten().copied());
        let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(x), b.max(x)));
        let (lo, hi) = padded(lo, hi, 0.06, 0.06, 50.0);
        let max_games = *p.games.last().unwrap_or(&1) as f64;
        let mut chart = ChartBuilder::on(&plot)
            .caption(self.title, bold(21.0, &INK, HPos::Center, VPos::Top))
            .margin(14)
            .x_label_area_size(52)
            .y_label_area_size(64)
            .build_cartesian_2d(0.0..max_games * 1.02, lo..hi)
            .map_err(de)?;
        chart
            .configure_mesh()
            .x_desc("games played (in the order given)")
            .y_desc("Elo rating")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| signed(*y, 0))
            .max_light_lines(2)
            .label_style(text(14.0, &INK, HPos::Center, VPos::Center))
            .axis_desc_style(text(15.0, &INK, HPos::Center, VPos::Center))
            .light_line_style(GRID_LIGHT)
            .bold_line_style(GRID_BOLD)
            .draw()
            .map_err(de)?;
        for (k, &i) in shown.iter().enumerate() {
            let c = colour(k);
            // Consecutive checkpoints where the participant is rated.
            let mut segment: Vec<(f64, f64)> = Vec::new();
            let mut segments = Vec::new();
            for (g, r) in p.games.iter().zip(&p.ratings[i]) {
                match r {
                    Some(r) => segment.push((*g as f64, *r)),
                    None if !segment.is_empty() => segments.push(std::mem::take(&mut segment)),
                    None => {}
                }
            }
            segments.push(segment);
            for s in segments.into_iter().filter(|s| !s.is_empty()) {
                chart.draw_series(LineSeries::new(s.clone(), c.stroke_width(2))).map_err(de)?;
                chart.draw_series(s.into_iter().map(|xy| Circle::new(xy, 3, c.filled()))).map_err(de)?;
            }
        }
        // Legend: one line per participant, best (last rating) first.
        legend.draw_text("participants", &bold(14.0, &INK, HPos::Left, VPos::Center), (10, 48)).map_err(de)?;
        for (k, name) in names.iter().enumerate() {
            let y = 74 + 22 * k as i32;
            let c = colour(k);
            legend.draw(&PathElement::new(vec![(10, y), (36, y)], c.stroke_width(3))).map_err(de)?;
            legend.draw(&Circle::new((23, y), 3, c.filled())).map_err(de)?;
            legend.draw_text(name, &text(14.0, &INK, HPos::Left, VPos::Center), (44, y)).map_err(de)?;
        }
        Ok(())
    }
}

/// Writes `dir/name.png` and `dir/name.svg`: each participant's rating re-fitted at the
/// checkpoints of `progression`, a line per participant (colours in legend order, best last
/// rating first). `names` are the participant names, by index.
pub fn progression_chart(
    dir: &Path,
    name: &str,
    title: &str,
    names: &[String],
    progression: &Progression,
) -> Result<ChartFiles, String> {
    render(dir, name, &ProgressionFigure { title, names, progression })
}

struct HeatFigure<'a> {
    title: &'a str,
    list: &'a RatingList,
}

impl HeatFigure<'_> {
    fn cell(&self) -> u32 {
        let n = self.list.entries.len().max(1) as f64;
        (380.0 / n).clamp(26.0, 72.0) as u32
    }
}

/// Score share to colour: red (0) through near-white (0.5) to blue (1).
fn diverging(share: f64) -> RGBColor {
    let t = ((share - 0.5) * 2.0).clamp(-1.0, 1.0);
    let (mid, end) = ((247.0, 247.0, 247.0), if t < 0.0 { (202.0, 0.0, 32.0) } else { (5.0, 113.0, 176.0) });
    let a = t.abs();
    let mix = |m: f64, e: f64| (m + (e - m) * a).round() as u8;
    RGBColor(mix(mid.0, end.0), mix(mid.1, end.1), mix(mid.2, end.2))
}

impl Figure for HeatFigure<'_> {
    fn size(&self) -> (u32, u32) {
        let n = self.list.entries.len() as u32;
        let grid = n * self.cell();
        let longest =
            self.list.entries.iter().map(|e| e.name.chars().count().min(MAX_LABEL_CHARS) + 5).max().unwrap_or(10)
                as u32;
        let labels = (longest * 9).clamp(80, 400);
        (WIDTH.max(labels + grid + 190), HEIGHT.max(grid + 160))
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let entries = &self.list.entries;
        if entries.is_empty() {
            return empty(root, self.title, "no rated participants");
        }
        root.fill(&WHITE).map_err(de)?;
        let (w, _) = root.dim_in_pixel();
        root.draw_text(self.title, &bold(21.0, &INK, HPos::Center, VPos::Top), (w as i32 / 2, 14)).map_err(de)?;
        root.draw_text(
            "score share of the row participant against the column participant (games below)",
            &text(14.0, &MUTED, HPos::Center, VPos::Top),
            (w as i32 / 2, 44),
        )
        .map_err(de)?;
        let n = entries.len();
        let cell = self.cell() as i32;
        let labels: Vec<String> = entries.iter().map(|e| format!("{}. {}", e.rank, short(&e.name))).collect();
        let label_w = widest(root, &labels, 14.0)? as i32 + 16;
        let grid = cell * n as i32;
        let x0 = ((w as i32 - (label_w + grid + 110)) / 2).max(0) + label_w;
        let y0 = 104;
        let big = (f64::from(cell as u32) * 0.3).clamp(10.0, 15.0);
        let small = (big * 0.75).max(9.0);
        for (k, e) in entries.iter().enumerate() {
            let y = y0 + cell * k as i32;
            root.draw_text(&labels[k], &text(14.0, &INK, HPos::Right, VPos::Center), (x0 - 8, y + cell / 2))
                .map_err(de)?;
            root.draw_text(
                &e.rank.to_string(),
                &bold(14.0, &INK, HPos::Center, VPos::Bottom),
                (x0 + cell * k as i32 + cell / 2, y0 - 6),
            )
            .map_err(de)?;
            for (j, o) in entries.iter().enumerate() {
                let x = x0 + cell * j as i32;
                let corners = [(x, y), (x + cell - 1, y + cell - 1)];
                let h2h = self.list.head_to_head(e.participant, o.participant);
                let centre = (x + cell / 2, y + cell / 2);
                match h2h {
                    _ if k == j => {
                        root.draw(&Rectangle::new(corners, RGBColor(225, 225, 225).filled())).map_err(de)?;
                    }
                    None => {
                        root.draw(&Rectangle::new(corners, RGBColor(250, 250, 250).filled())).map_err(de)?;
                        root.draw(&Rectangle::new(corners, GRID_BOLD)).map_err(de)?;
                        root.draw_text("·", &text(big, &MUTED, HPos::Center, VPos::Center), centre).map_err(de)?;
                    }
                    Some(h) => {
                        root.draw(&Rectangle::new(corners, diverging(h.score).filled())).map_err(de)?;
                        let ink = if (h.score - 0.5).abs() > 0.32 { WHITE } else { INK };
                        let share = format!("{:.0}%", 100.0 * h.score);
                        if cell >= 40 {
                            root.draw_text(
                                &share,
                                &bold(big, &ink, HPos::Center, VPos::Center),
                                (centre.0, centre.1 - 6),
                            )
                            .map_err(de)?;
                            root.draw_text(
                                &h.games.to_string(),
                                &text(small, &ink, HPos::Center, VPos::Center),
                                (centre.0, centre.1 + 10),
                            )
                            .map_err(de)?;
                        } else {
                            root.draw_text(&share, &text(big, &ink, HPos::Center, VPos::Center), centre).map_err(de)?;
                        }
                    }
                }
            }
        }
        root.draw_text(
            "column: opponent, by rank",
            &text(13.0, &MUTED, HPos::Center, VPos::Bottom),
            (x0 + grid / 2, y0 - 26),
        )
        .map_err(de)?;
        // Colour scale.
        let sx = x0 + grid + 36;
        let steps = 50;
        let sh = grid.max(120);
        for s in 0..steps {
            let share = 1.0 - f64::from(s) / f64::from(steps - 1);
            let ya = y0 + sh * s / steps;
            let yb = y0 + sh * (s + 1) / steps;
            root.draw(&Rectangle::new([(sx, ya), (sx + 16, yb)], diverging(share).filled())).map_err(de)?;
        }
        root.draw(&Rectangle::new([(sx, y0), (sx + 16, y0 + sh)], GRID_BOLD)).map_err(de)?;
        for (v, label) in [(1.0, "100%"), (0.5, "50%"), (0.0, "0%")] {
            let y = y0 + ((1.0 - v) * f64::from(sh)) as i32;
            root.draw_text(label, &text(13.0, &INK, HPos::Left, VPos::Center), (sx + 22, y)).map_err(de)?;
        }
        Ok(())
    }
}

/// Writes `dir/name.png` and `dir/name.svg`: a heat map of `list`'s head-to-head results,
/// rows and columns in rank order, each cell the row's score share against the column
/// (red below 50%, blue above) with the share and the number of games written in it.
pub fn head_to_head_chart(dir: &Path, name: &str, title: &str, list: &RatingList) -> Result<ChartFiles, String> {
    render(dir, name, &HeatFigure { title, list })
}

struct PairFigure<'a> {
    title: &'a str,
    left: (&'a str, &'a RatingList),
    right: (&'a str, &'a RatingList),
}

impl PairFigure<'_> {
    /// Participants rated in either list: by left rating, then those only on the right.
    fn participants(&self) -> Vec<(usize, String)> {
        let mut out: Vec<(usize, String)> =
            self.left.1.entries.iter().map(|e| (e.participant, e.name.clone())).collect();
        for e in &self.right.1.entries {
            if !out.iter().any(|(p, _)| *p == e.participant) {
                out.push((e.participant, e.name.clone()));
            }
        }
        out
    }
}

impl Figure for PairFigure<'_> {
    fn size(&self) -> (u32, u32) {
        (WIDTH, HEIGHT.max(150 + 40 * self.participants().len() as u32))
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let people = self.participants();
        if people.is_empty() {
            return empty(root, self.title, "no rated participants");
        }
        root.fill(&WHITE).map_err(de)?;
        let (w, _) = root.dim_in_pixel();
        // Legend strip under the title.
        let (top, body) = root.split_vertically(78);
        top.draw_text(self.title, &bold(21.0, &INK, HPos::Center, VPos::Top), (w as i32 / 2, 14)).map_err(de)?;
        let items = [self.left.0, self.right.0];
        let item_w: Vec<u32> =
            items.iter().map(|s| widest(&top, &[s.to_string()], 14.0).map(|x| x + 44)).collect::<Result<_, _>>()?;
        let mut x = (w as i32 - item_w.iter().sum::<u32>() as i32) / 2;
        for (s, label) in items.iter().enumerate() {
            let c = colour(s);
            top.draw(&PathElement::new(vec![(x, 58), (x + 24, 58)], c.stroke_width(2))).map_err(de)?;
            top.draw(&Circle::new((x + 12, 58), 5, c.filled())).map_err(de)?;
            top.draw_text(label, &text(14.0, &INK, HPos::Left, VPos::Center), (x + 32, 58)).map_err(de)?;
            x += item_w[s] as i32;
        }
        let labels: Vec<String> = people.iter().map(|(_, n)| short(n)).collect();
        let rows: Vec<Vec<Option<Row>>> = [self.left.1, self.right.1]
            .iter()
            .map(|list| {
                people
                    .iter()
                    .map(|(p, _)| {
                        list.entry(*p).map(|e| Row { rating: e.rating, interval: e.interval, bound: e.bound })
                    })
                    .collect()
            })
            .collect();
        let (zl, zr) = (zero_label(self.left.1), zero_label(self.right.1));
        let zero = if zl == zr { format!("{zl}, in each list") } else { format!("left: {zl}; right: {zr}") };
        let desc = format!("Elo rating, each list on its own scale ({zero}); bars: 95% intervals");
        dot_rows(&body, "", &labels, &rows, &[colour(0), colour(1)], &[0.17, -0.17], &desc, false)
    }
}

/// Writes `dir/name.png` and `dir/name.svg`: two rating lists side by side per participant
/// (e.g. a game with and without dice): for each participant rated in either list, a dot with
/// its 95% interval per list, in two colours named in the legend. Each list has its own zero,
/// so compare the order and the gaps, not the absolute values.
pub fn side_by_side_chart(
    dir: &Path,
    name: &str,
    title: &str,
    left: (&str, &RatingList),
    right: (&str, &RatingList),
) -> Result<ChartFiles, String> {
    render(dir, name, &PairFigure { title, left, right })
}
