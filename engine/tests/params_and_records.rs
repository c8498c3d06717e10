//! Parameters (presets, YAML, overrides, errors that name field and line), the registry, and
//! game records that replay exactly.

use engine::core::{AnySpec, ParamSource, Record, ReplayError, params_to_yaml, resolve_params};
use engine::journey::JourneyParams;
use engine::{find_game, games};

fn yaml(text: &str) -> ParamSource {
    ParamSource::Yaml { name: "test.yaml".into(), text: text.into() }
}

fn kv(k: &str, v: &str) -> ParamSource {
    ParamSource::KeyValue { key: k.into(), value: v.into() }
}

fn err(preset: Option<&str>, sources: &[ParamSource]) -> String {
    resolve_params::<JourneyParams>(preset, sources).unwrap_err().to_string()
}

fn no_files(path: &str) -> Result<String, String> {
    Err(format!("no file {path} in this test"))
}

#[test]
fn unknown_field_is_named_with_its_line() {
    let e = err(None, &[yaml("travellers: 2\nsatchel_limt: 6\n")]);
    assert!(e.contains("test.yaml") && e.contains("satchel_limt") && e.contains("line 2"), "{e}");
    assert!(e.contains("satchel_limit"), "the valid keys are listed: {e}");
}

#[test]
fn wrong_type_is_named_with_its_line() {
    let e = err(None, &[yaml("travellers: 2\n\nallies: maybe\n")]);
    assert!(e.contains("`allies`") && e.contains("boolean") && e.contains("line 3"), "{e}");
}

#[test]
fn out_of_range_travellers_is_named_with_its_line() {
    let e = err(None, &[yaml("allies: true\ntravellers: 5\n")]);
    assert!(e.contains("`travellers`") && e.contains("1 to 4") && e.contains("line 2"), "{e}");
    let e = err(None, &[kv("travellers", "0")]);
    assert!(e.contains("travellers=0") && e.contains("1 to 4"), "{e}");
}

#[test]
fn unknown_preset_game_and_value_list_the_valid_ones() {
    let e = err(Some("easy"), &[]);
    assert!(e.contains("easy") && e.contains("classic, martian, dunwich"), "{e}");
    let e = find_game("chess").err().unwrap();
    assert!(e.contains("chess") && e.contains("journey") && e.contains("expedition"), "{e}");
    let e = err(None, &[kv("hide", "sneaky")]);
    assert!(e.contains("sneaky") && e.contains("reveal_chain"), "{e}");
}

#[test]
fn presets_then_files_then_overrides() {
    let p: JourneyParams = resolve_params(None, &[]).unwrap();
    assert_eq!(p, JourneyParams::dunwich(), "dunwich is the default");
    let p: JourneyParams =
        resolve_params(None, &[yaml("preset: classic\nallies: true"), kv("allies", "false")]).unwrap();
    assert_eq!(p, JourneyParams::classic(), "the file's preset, then the override on top");
    let p: JourneyParams = resolve_params(Some("martian"), &[yaml("preset: classic")]).unwrap();
    assert_eq!(p.theme, JourneyParams::martian().theme, "--preset wins over a file's preset");
    let e = err(None, &[yaml("allies: true"), yaml("preset: classic")]);
    assert!(e.contains("first"), "{e}");
    let e = err(None, &[kv("preset", "classic")]);
    assert!(e.contains("--preset"), "{e}");
    let e = err(None, &[kv("return_journey", "shadows"), kv("destination", "set_aside")]);
    assert!(e.contains("return_journey") && e.contains("last_refuge"), "checks across fields: {e}");
}

#[test]
fn every_game_describes_every_parameter_of_every_preset() {
    assert_eq!(games().iter().map(|g| g.name).collect::<Vec<_>>(), ["journey", "expedition"]);
    for g in games() {
        for preset in g.presets {
            let spec = (g.spec)(Some(preset), &[], &no_files).unwrap();
            let names: Vec<_> = spec.describe().iter().map(|p| p.name).collect();
            assert!(names.contains(&g.seats_param), "{}: {names:?}", g.name);
            let yaml = serde_yaml::to_string(&spec.params_yaml()).unwrap();
            for n in names {
                assert!(yaml.contains(&format!("{n}:")), "{n} is recorded in full");
            }
        }
    }
}

fn play_random(spec: &dyn AnySpec, seed: u64) -> (Record, Vec<i32>) {
    let mut g = spec.new_game(seed);
    let mut record = spec.record(seed, None);
    let mut legal = Vec::new();
    let mut i = 0usize;
    while g.to_move().is_some() {
        legal.clear();
        g.legal_actions(&mut legal);
        let a = legal[(i * 7 + 3) % legal.len()];
        g.apply(a).unwrap();
        record.actions.push(a);
        i += 1;
    }
    (record, g.outcome().unwrap().scores)
}

#[test]
fn a_record_replays_the_same_game_through_yaml() {
    for g in games() {
        for preset in g.presets {
            let spec = (g.spec)(Some(preset), &[kv(g.seats_param, "2")], &no_files).unwrap();
            for seed in 0..5 {
                let (record, scores) = play_random(spec.as_ref(), seed);
                let text = serde_yaml::to_string(&record).unwrap();
                let back: Record = serde_yaml::from_str(&text).unwrap();
                assert_eq!(back, record);
                let mut states = 0;
                let end = back.replay(&no_files, |_| states += 1).unwrap();
                assert_eq!(end.outcome().unwrap().scores, scores);
                assert_eq!(states, record.actions.len() + 1);
            }
        }
    }
}

#[test]
fn a_tampered_record_names_the_action_that_fails() {
    let spec = (find_game("journey").unwrap().spec)(Some("classic"), &[], &no_files).unwrap();
    let (mut record, _) = play_random(spec.as_ref(), 3);
    record.actions.insert(1, 0xffff);
    match record.replay(&no_files, |_| {}) {
        Err(ReplayError::Action { index, error }) => {
            assert_eq!(index, 1);
            assert!(error.to_string().contains("65535"), "{error}");
        }
        other => panic!("expected an action error, got {:?}", other.map(|_| ())),
    }
    record.game = "chess".into();
    assert!(matches!(record.replay(&no_files, |_| {}), Err(ReplayError::Setup(e)) if e.contains("journey")));
}

/// A YAML 1.1 reader (PyYAML) reads `return_journey: off` as `false`, and writes `false`
/// back: the parameters it writes read as those the engine wrote.
#[test]
fn params_written_back_by_a_yaml_1_1_reader_read_the_same() {
    let spec = resolve_params::<JourneyParams>(Some("classic"), &[]).unwrap();
    let written = serde_yaml::to_string(&spec).unwrap();
    assert!(written.contains("return_journey: off"), "{written}");
    // What PyYAML's safe_load then dump makes of it.
    let pyyaml = written.replace("return_journey: off", "return_journey: false");
    let read = resolve_params::<JourneyParams>(None, &[yaml(&pyyaml)]).unwrap();
    assert_eq!(read, spec);
    // A boolean names no other value.
    let e = err(None, &[yaml("return_journey: true\n")]);
    assert!(e.contains("return_journey") && e.contains("`off`"), "{e}");
    // Through the registry too, as the arena rebuilds a record's game.
    let journey = find_game("journey").unwrap();
    let back = (journey.spec)(None, &[yaml(&pyyaml)], &no_files).unwrap();
    assert_eq!(serde_yaml::to_string(&back.params_yaml()).unwrap(), written);
}

/// The plain scalars of `text` (block YAML as serde_yaml writes it: `key: value`, `- value`)
/// that a YAML 1.1 reader takes for a boolean and the engine for a string. Of YAML 1.1's
/// booleans (`^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
/// `true` and `false` (any case) plain are booleans to the engine too, so they are left out.
fn yaml11_retyped_values(text: &str) -> Vec<String> {
    const RETYPED: &[&str] =
        &["y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF"];
    let mut found = Vec::new();
    for line in text.lines() {
        let mut rest = line.trim_start();
        while let Some(r) = rest.strip_prefix("- ") {
            rest = r.trim_start();
        }
        let value = match rest.split_once(": ") {
            Some((_, v)) => v.trim(),
            None => rest.trim(),
        };
        if RETYPED.contains(&value) {
            found.push(line.to_string());
        }
    }
    found
}

/// Every string value of every game's every preset, as the engine writes its parameters, reads
/// as a string in YAML 1.1 too (quoted where 1.1 would read a boolean), and reads back the same.
#[test]
fn params_the_engine_writes_hold_no_string_a_yaml_1_1_reader_retypes() {
    let classic = find_game("journey").unwrap();
    let spec = (classic.spec)(Some("classic"), &[], &no_files).unwrap();
    let plain = serde_yaml::to_string(&spec.params_yaml()).unwrap();
    assert!(!yaml11_retyped_values(&plain).is_empty(), "the check sees serde_yaml's own output: {plain}");
    for g in games() {
        for preset in g.presets {
            let spec = (g.spec)(Some(preset), &[], &no_files).unwrap();
            let written = params_to_yaml(&spec.params_yaml()).unwrap();
            let retyped = yaml11_retyped_values(&written);
            assert!(retyped.is_empty(), "{} {preset}: {retyped:?} in\n{written}", g.name);
            let back = (g.spec)(None, &[yaml(&written)], &no_files).unwrap();
            assert_eq!(back.params_yaml(), spec.params_yaml(), "{} {preset}", g.name);
            assert_eq!(params_to_yaml(&back.params_yaml()).unwrap(), written);
        }
    }
    let written = params_to_yaml(&spec.params_yaml()).unwrap();
    assert!(written.contains("return_journey: 'off'"), "{written}");
}

/// Strings that only YAML 1.1 retypes are quoted, booleans and numbers are not, and every value
/// reads back as it was.
#[test]
fn params_to_yaml_quotes_what_yaml_1_1_would_retype() {
    let value: serde_yaml::Value = serde_yaml::from_str(
        "a: 'off'\nb: 'Yes'\nc: 'n'\nd: '1_000'\ne: '12:30'\nf: '2001-12-14'\ng: '~'\nh: ''\ni: true\nj: 3\n\
         k: 'plain words'\nl: [ 'on', 'y', x ]\n'no': 'it''s'\nm: '.5'\n",
    )
    .unwrap();
    let written = params_to_yaml(&value).unwrap();
    for line in [
        "a: 'off'",
        "b: 'Yes'",
        "c: 'n'",
        "d: '1_000'",
        "e: '12:30'",
        "f: '2001-12-14'",
        "h: ''",
        "i: true",
        "j: 3",
        "k: plain words",
        "- 'on'",
        "- 'y'",
        "- x",
        "'no':",
        "m: '.5'",
    ] {
        assert!(written.contains(line), "{line} in\n{written}");
    }
    assert!(yaml11_retyped_values(&written).is_empty(), "{written}");
    assert_eq!(serde_yaml::from_str::<serde_yaml::Value>(&written).unwrap(), value);
}
