//! The report directory: every file, charts that decode, a page that needs nothing else.

use reports::ratings::{Pairwise, RatedGame, RatingOptions};
use reports::report::RatingsJson;
use reports::{ReportInput, write_report};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    std::env::temp_dir().join(format!("reports-test-{name}-{}-{nanos}", std::process::id()))
}

const NAMES: [&str; 5] = ["mcts:iterations=2000", "greedy", "random", "rules & <tricks>", "nemesis"];

/// Two groups (dice, no dice): two-player games with a strength order and some noise, plus
/// three-player games; "nemesis" never plays.
fn input(side_by_side: bool) -> ReportInput {
    let strength: [f64; 4] = [1.0, 0.4, -0.8, 0.1];
    let mut state = 99u64;
    let mut uniform = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut games = Vec::new();
    for k in 0..240u64 {
        let group = (k % 2) as usize;
        let a = (k / 2 % 4) as usize;
        let b = (a + 1 + (k / 8 % 3) as usize) % 4;
        let noise = if group == 0 { 0.0 } else { 0.3 };
        let p = 1.0 / (1.0 + (-(strength[a] - strength[b]) * (1.0 - noise)).exp());
        let u = uniform();
        let score = if u < p * 0.9 {
            1.0
        } else if u < p * 0.9 + 0.1 {
            0.5
        } else {
            0.0
        };
        games.push(RatedGame { group, unit: k / 2, results: vec![Pairwise { a, b, score }], plays: 1 });
    }
    for k in 0..20u64 {
        games.push(RatedGame {
            group: 1,
            unit: 1000 + k,
            results: vec![
                Pairwise { a: 0, b: 1, score: 1.0 },
                Pairwise { a: 0, b: 2, score: 1.0 },
                Pairwise { a: 1, b: 2, score: if k % 3 == 0 { 0.0 } else { 1.0 } },
            ],
            plays: 1,
        });
    }
    ReportInput {
        title: "Expedition test tournament".into(),
        participants: NAMES.iter().map(|s| s.to_string()).collect(),
        groups: vec!["expedition dice, 2 players".into(), "expedition no dice, 2 players".into()],
        games,
        options: RatingOptions { anchor: None, bootstrap: 200, seed: 3 },
        side_by_side: if side_by_side { vec![(0, 1, "Dice against no dice".into())] } else { vec![] },
        notes: vec!["Verdict: mcts is stronger than greedy.".into(), "12 games were missing.".into()],
        run_notes: vec![],
        to_watch: vec![],
        variants: vec![],
    }
}

fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert!(bytes.starts_with(&[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A]), "{} is not a PNG", path.display());
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    // Not a blank image: some pixels are not white.
    assert!(buf[..info.buffer_size()].iter().any(|&b| b < 200), "{} is blank", path.display());
    (info.width, info.height)
}

#[test]
fn the_report_has_every_file_and_a_self_contained_page() {
    let dir = scratch("full");
    let input = input(true);
    let out = write_report(&dir, &input).unwrap();
    for f in ["ratings.json", "standings.md", "index.html"] {
        assert!(dir.join(f).is_file(), "{f} missing");
        assert!(out.files.contains(&dir.join(f)));
    }
    let charts = ["ratings", "progression", "head_to_head", "variants"];
    assert_eq!(out.charts.len(), charts.len());
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    let rated: Vec<&str> = NAMES[..4].to_vec();
    for (chart, name) in out.charts.iter().zip(charts) {
        assert_eq!(chart.png, dir.join(format!("{name}.png")));
        assert_eq!(chart.svg, dir.join(format!("{name}.svg")));
        // PNG: signature, decodes, the size announced.
        assert_eq!(png_size(&chart.png), (chart.width, chart.height), "{name}");
        // SVG: XML with an <svg> root, the participants' names, of sensible size.
        let svg = std::fs::read_to_string(&chart.svg).unwrap();
        assert!(svg.len() > 2048, "{name}.svg is only {} bytes", svg.len());
        let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{name}.svg: {e}"));
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        let texts: String = doc.descendants().filter_map(|n| n.text()).collect::<Vec<_>>().join("\n");
        for who in &rated {
            assert!(texts.contains(who), "{name}.svg lacks {who}");
        }
        // Inline in the page.
        let marker =
            doc.descendants().find_map(|n| n.text().filter(|t| t.contains("Elo") || t.contains("score share")));
        assert!(marker.is_some() || name == "head_to_head", "{name}");
        assert!(html.contains(&format!("({name}.png, {name}.svg)")), "{name} not captioned in the page");
    }
    // Four participants: the default size.
    assert_eq!((out.charts[0].width, out.charts[0].height), (900, 520));
    assert_eq!(html.matches("<svg").count(), charts.len(), "every chart inline, nothing else");
    assert!(!html.contains("http"), "the page references a URL");
    assert!(!html.contains("src="), "the page loads a file");
    assert!(!html.contains("<script"), "the page runs script");
    assert!(!html.contains("<link"), "the page loads a stylesheet");
    assert!(html.contains("rules &amp; &lt;tricks&gt;"), "names are escaped");
    assert!(!html.contains("rules & <tricks>"));
    for n in &input.notes {
        assert!(html.contains(n.as_str()));
    }
    assert!(html.contains("expedition no dice, 2 players"));
    // The Markdown standings: a table per list, head to head, notes.
    let md = std::fs::read_to_string(dir.join("standings.md")).unwrap();
    assert_eq!(md.matches("| rank | participant | rating | 95% interval |").count(), 3);
    assert!(md.contains("### Head to head"));
    assert!(md.contains("Verdict: mcts is stronger than greedy."));
    assert!(md.contains("nemesis (no rated game)"));
    assert!(md.contains("rules & \\<tricks\\>"));
    // The JSON reads back.
    let json: RatingsJson = serde_json::from_str(&std::fs::read_to_string(dir.join("ratings.json")).unwrap()).unwrap();
    // (serde_json's default float parsing may differ in the last bit.)
    for (a, b) in json.overall.entries.iter().zip(&out.overall.entries) {
        assert_eq!((&a.name, a.games, a.bound), (&b.name, b.games, b.bound));
        assert!((a.rating - b.rating).abs() < 1e-9);
    }
    assert_eq!(json.by_group.len(), 2);
    assert_eq!(json.by_group[1].label, "expedition no dice, 2 players");
    assert_eq!(json.overall.entries.len(), 4);
    assert_eq!(json.overall.entries[0].name, "mcts:iterations=2000");
    assert!(json.overall.entries[0].interval.is_some());
    assert_eq!(json.progression.games.last(), Some(&input.games.len()));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_side_by_side_pair_no_variants_chart_and_bad_pairs_are_refused() {
    let dir = scratch("plain");
    let out = write_report(&dir, &input(false)).unwrap();
    assert_eq!(out.charts.len(), 3);
    assert!(!dir.join("variants.png").exists() && !dir.join("variants.svg").exists());
    let mut bad = input(true);
    bad.side_by_side = vec![(0, 7, "nowhere".into())];
    let err = write_report(&dir, &bad).unwrap_err();
    assert!(err.contains("group 7"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_empty_tournament_still_writes_a_report() {
    let dir = scratch("empty");
    let input = ReportInput {
        title: "Nothing yet".into(),
        participants: vec!["a".into(), "b".into()],
        groups: vec!["g".into()],
        games: vec![],
        options: RatingOptions::default(),
        side_by_side: vec![(0, 0, "g against itself".into())],
        notes: vec![],
        run_notes: vec![],
        to_watch: vec![],
        variants: vec![],
    };
    let out = write_report(&dir, &input).unwrap();
    assert!(out.overall.entries.is_empty());
    for c in &out.charts {
        assert_eq!(png_size(&c.png), (c.width, c.height));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unwritable_directory_is_named_in_the_error() {
    let file = scratch("file");
    std::fs::write(&file, "not a directory").unwrap();
    let err = write_report(&file.join("sub"), &input(false)).unwrap_err();
    assert!(err.contains(&file.display().to_string()), "{err}");
    std::fs::remove_file(&file).unwrap();
}

/// Every name a stranger may choose (a participant's, the tournament's, a game entry's, a note
/// that quotes one, a game to watch) is text in the page: no element, comment or script comes
/// of one, in the tables or in the charts inline.
#[test]
fn a_hostile_name_is_text_in_the_page_and_its_charts() {
    let hostile = "<!--<script> </script><img src=x onerror=alert(1)> \" onclick=alert(2) x=\" 'q' &amp; ]]> \u{2028}";
    let dir = scratch("hostile");
    let mut input = input(true);
    input.title = format!("T {hostile}");
    input.participants = NAMES.iter().map(|n| format!("{n} {hostile}")).collect();
    input.groups = input.groups.iter().map(|g| format!("{g} {hostile}")).collect();
    input.side_by_side = vec![(0, 1, format!("pair {hostile}"))];
    input.notes.push(format!("a note {hostile}"));
    input.to_watch = vec![reports::report::Watch {
        heading: format!("watch {hostile}"),
        links: vec![(format!("label {hostile}"), format!("games/{hostile}.html"))],
    }];
    write_report(&dir, &input).unwrap();
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    for markup in ["<!--", "<script", "<img", "</script"] {
        assert!(!html.contains(markup), "{markup} in the page");
    }
    assert!(!html.contains("\" onclick"), "an attribute in the page");
    let shown = "&lt;!--&lt;script&gt; &lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; &quot; onclick=alert(2) \
                 x=&quot; &#39;q&#39; &amp;amp; ]]&gt; \u{2028}";
    // The title (twice: the page's and its heading), the names in the tables, the charts (the
    // SVG's own escapes), the labels, the notes, the link.
    assert!(html.matches(&format!("T {shown}")).count() >= 2, "the title");
    for n in NAMES {
        assert!(
            html.contains(&format!("{} {shown}", n.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")))
        );
    }
    for what in ["pair", "a note", "watch", "label"] {
        assert!(html.contains(&format!("{what} {shown}")), "{what}");
    }
    assert!(html.contains(&format!("href=\"games/{shown}.html\"")));
    let svg = std::fs::read_to_string(dir.join("ratings.svg")).unwrap();
    assert!(!svg.contains("<img") && !svg.contains("<!--") && !svg.contains("<script"), "{svg}");
}
