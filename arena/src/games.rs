//! `arena games`: the games, their presets, and every parameter with its value per preset.

use clap::Args;
use engine::games;
use serde::Serialize;

#[derive(Args)]
pub struct GamesArgs {
    /// Print one JSON object instead of tables.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct ParamRow {
    name: &'static str,
    doc: &'static str,
    /// The value in each preset, in the order of `presets`.
    values: Vec<String>,
}

#[derive(Serialize)]
struct GameRow {
    name: &'static str,
    summary: &'static str,
    presets: &'static [&'static str],
    default_preset: &'static str,
    params: Vec<ParamRow>,
}

pub fn run(args: GamesArgs) -> Result<(), String> {
    let mut rows = Vec::new();
    for g in games() {
        let mut params: Vec<ParamRow> = Vec::new();
        for preset in g.presets {
            let spec = (g.spec)(Some(preset), &[], &crate::setup::load_file).map_err(|e| e.to_string())?;
            for (i, p) in spec.describe().into_iter().enumerate() {
                if params.len() <= i {
                    params.push(ParamRow { name: p.name, doc: p.doc, values: Vec::new() });
                }
                params[i].values.push(p.value);
            }
        }
        rows.push(GameRow {
            name: g.name,
            summary: g.summary,
            presets: g.presets,
            default_preset: g.default_preset,
            params,
        });
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&rows).map_err(|e| e.to_string())?);
        return Ok(());
    }
    for g in &rows {
        outln!("{} — {}", g.name, g.summary);
        outln!("  presets: {} (default {})", g.presets.join(", "), g.default_preset);
        let w = g.params.iter().map(|p| p.name.len()).max().unwrap_or(4).max(9);
        let cols: Vec<usize> = (0..g.presets.len())
            .map(|i| g.params.iter().map(|p| p.values[i].len()).chain([g.presets[i].len()]).max().unwrap_or(4))
            .collect();
        let mut head = format!("  {:<w$}", "parameter");
        for (i, p) in g.presets.iter().enumerate() {
            head += &format!("  {:<c$}", p, c = cols[i]);
        }
        outln!("{head}  meaning");
        for p in &g.params {
            let mut line = format!("  {:<w$}", p.name);
            for (i, v) in p.values.iter().enumerate() {
                line += &format!("  {:<c$}", v, c = cols[i]);
            }
            outln!("{line}  {}", p.doc);
        }
        outln!();
    }
    Ok(())
}
