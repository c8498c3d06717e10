//! Container hygiene, checked statically: deploy/Dockerfile pins its base images and runs as an
//! unprivileged user, /.dockerignore keeps the build's leftovers out of the context but nothing
//! the build reads, and every container of the Kubernetes manifests has resource requests and
//! limits and a locked-down securityContext. Nothing here needs Docker or a cluster.

use serde_yaml::Value;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("cannot read {rel}: {e}"))
}

/// The manifests: every container of every Pod template in them is checked.
const MANIFESTS: [&str; 4] =
    ["deploy/k8s-indexed-job.yaml", "deploy/k8s-report-job.yaml", "deploy/k8s-server.yaml", "deploy/k8s-ladder.yaml"];

fn assert_none(what: &str, problems: Vec<String>) {
    assert!(problems.is_empty(), "{what}:\n  - {}", problems.join("\n  - "));
}

// ---------------------------------------------------------------------------------------------
// The Dockerfile

/// One instruction: its keyword (upper case), its arguments, and the line it starts on.
struct Instruction {
    keyword: String,
    args: String,
    line: usize,
}

struct Stage {
    image: String,
    alias: Option<String>,
    line: usize,
    instructions: Vec<Instruction>,
}

/// The stages of a Dockerfile: comment lines dropped, `\` continuations joined.
fn stages(text: &str) -> Vec<Stage> {
    let mut instructions = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('#') || (line.is_empty() && pending.is_none()) {
            continue;
        }
        let (start, mut joined) = pending.take().unwrap_or((i + 1, String::new()));
        match line.strip_suffix('\\') {
            Some(part) => {
                joined.push_str(part);
                joined.push(' ');
                pending = Some((start, joined));
            }
            None => {
                joined.push_str(line);
                let (keyword, args) = joined.split_once(char::is_whitespace).unwrap_or((&joined, ""));
                instructions.push(Instruction {
                    keyword: keyword.to_uppercase(),
                    args: args.trim().to_string(),
                    line: start,
                });
            }
        }
    }
    let mut stages: Vec<Stage> = Vec::new();
    for ins in instructions {
        if ins.keyword == "FROM" {
            let words: Vec<&str> = ins.args.split_whitespace().filter(|w| !w.starts_with("--")).collect();
            let alias = match words.as_slice() {
                [_, as_, name] if as_.eq_ignore_ascii_case("as") => Some(name.to_string()),
                _ => None,
            };
            stages.push(Stage {
                image: words.first().unwrap_or(&"").to_string(),
                alias,
                line: ins.line,
                instructions: Vec::new(),
            });
        } else if let Some(stage) = stages.last_mut() {
            stage.instructions.push(ins);
        }
    }
    stages
}

/// Images whose two-part versions are exact releases (Debian's point releases, `debian:12.8`).
const TWO_PART_RELEASES: [&str; 1] = ["debian"];

/// Why an image reference is not pinned, if it is not: no tag, `latest`, a bare major or
/// minor version, or a release name alone (`bookworm-slim`, pushed again with every update).
/// A digest pins whatever the tag.
fn floating(image: &str) -> Option<String> {
    if image.contains('$') {
        return Some("it is built from a variable, which this check cannot follow".into());
    }
    if image == "scratch" {
        return None;
    }
    let (reference, digest) = image.split_once('@').unwrap_or((image, ""));
    if let Some(hex) = digest.strip_prefix("sha256:") {
        if hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        return Some(format!("its digest `{digest}` is not a sha256 of 64 hex digits"));
    }
    let last_slash = reference.rfind('/').map_or(0, |i| i + 1);
    let (name, tag) = match reference[last_slash..].split_once(':') {
        Some((name, tag)) => (name, tag),
        None => return Some("it has no tag, so Docker takes `latest`".into()),
    };
    if tag.to_lowercase().contains("latest") {
        return Some(format!("its tag `{tag}` moves with every release"));
    }
    let parts: Vec<&str> = tag.split('-').collect();
    if parts.iter().any(|p| p.len() == 8 && p.bytes().all(|b| b.is_ascii_digit())) {
        return None; // a dated snapshot: debian:bookworm-20260824-slim
    }
    let version: Vec<&str> = parts[0].split('.').collect();
    if !version.iter().all(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())) {
        return Some(format!(
            "its tag `{tag}` has no version or date: it names a release line, pushed again with every update"
        ));
    }
    match version.len() {
        1 => Some(format!("its tag `{tag}` is a bare major version, which follows every release of it")),
        2 if !TWO_PART_RELEASES.contains(&name) => {
            Some(format!("its tag `{tag}` is a minor version, which follows its patch releases"))
        }
        _ => None,
    }
}

/// The pinning of every base image, and the final stage's user.
fn dockerfile_problems(text: &str) -> Vec<String> {
    let stages = stages(text);
    let mut problems = Vec::new();
    if stages.is_empty() {
        return vec!["there is no FROM line".into()];
    }
    for (i, stage) in stages.iter().enumerate() {
        let earlier_stage = stages[..i].iter().any(|s| s.alias.as_deref() == Some(stage.image.as_str()));
        if earlier_stage {
            continue;
        }
        if let Some(why) = floating(&stage.image) {
            problems.push(format!(
                "line {}: FROM {} is not pinned: {why}; use an exact version tag (and a digest: see the comment \
                 at the top of deploy/Dockerfile)",
                stage.line, stage.image
            ));
        }
    }
    let last = stages.last().unwrap();
    match last.instructions.iter().rev().find(|i| i.keyword == "USER") {
        None => problems.push(format!(
            "the final stage (FROM {}, line {}) has no USER line: the container would run as root",
            last.image, last.line
        )),
        Some(user) => {
            let (uid, gid) = user.args.split_once(':').unwrap_or((&user.args, ""));
            if uid == "root" || uid.parse::<u32>() == Ok(0) {
                problems.push(format!("line {}: USER {} is root", user.line, user.args));
            } else if uid.parse::<u32>().is_err() {
                problems.push(format!(
                    "line {}: USER {} is a name: Kubernetes' runAsNonRoot can only verify a numeric user id",
                    user.line, user.args
                ));
            }
            if gid == "root" || gid.parse::<u32>() == Ok(0) {
                problems.push(format!("line {}: USER {} has the root group", user.line, user.args));
            }
        }
    }
    problems
}

/// The final stage's numeric user id, which the manifests must run as.
fn image_uid(text: &str) -> Option<u64> {
    let stages = stages(text);
    let user = stages.last()?.instructions.iter().rev().find(|i| i.keyword == "USER")?;
    user.args.split(':').next()?.parse().ok()
}

/// The paths COPY and ADD take from the build context (not those `--from` a stage).
fn copied_sources(text: &str) -> Vec<(usize, String)> {
    let mut sources = Vec::new();
    for stage in stages(text) {
        for ins in stage.instructions.iter().filter(|i| i.keyword == "COPY" || i.keyword == "ADD") {
            let words: Vec<String> = if ins.args.starts_with('[') {
                serde_json::from_str(&ins.args).unwrap_or_else(|e| panic!("line {}: {e}", ins.line))
            } else {
                ins.args.split_whitespace().map(str::to_string).collect()
            };
            if words.iter().any(|w| w.starts_with("--from")) {
                continue;
            }
            let paths: Vec<&String> = words.iter().filter(|w| !w.starts_with("--")).collect();
            if let Some((_, srcs)) = paths.split_last() {
                sources.extend(srcs.iter().map(|s| (ins.line, s.to_string())));
            }
        }
    }
    sources
}

// ---------------------------------------------------------------------------------------------
// .dockerignore

/// The patterns of a .dockerignore, as Docker reads them: `#` lines skipped, a leading `/` or
/// `./` and a trailing `/` dropped, `!` an exception.
struct Ignore {
    patterns: Vec<(bool, Vec<String>)>,
}

impl Ignore {
    fn parse(text: &str) -> Ignore {
        let mut patterns = Vec::new();
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (exception, pattern) = match line.strip_prefix('!') {
                Some(p) => (true, p.trim()),
                None => (false, line),
            };
            assert!(
                !pattern.contains('[') && !pattern.contains('\\'),
                ".dockerignore: `{line}`: this check reads `*`, `?` and `**` only"
            );
            let parts: Vec<String> =
                pattern.split('/').filter(|p| !p.is_empty() && *p != ".").map(str::to_string).collect();
            if !parts.is_empty() {
                patterns.push((exception, parts));
            }
        }
        Ignore { patterns }
    }

    /// Is this path (relative to the context, `/`-separated) left out? A pattern that matches
    /// one of its directories leaves it out too; the last pattern that matches decides.
    fn excludes(&self, path: &str) -> bool {
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty() && *p != ".").collect();
        if parts.is_empty() {
            return false; // the context's root is always sent
        }
        let mut excluded = false;
        for (exception, pattern) in &self.patterns {
            if (1..=parts.len()).any(|n| glob_path(pattern, &parts[..n])) {
                excluded = !exception;
            }
        }
        excluded
    }
}

/// A pattern's components against a path's: `**` stands for any number of directories.
fn glob_path(pattern: &[String], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((first, rest)) if first == "**" => (0..=path.len()).any(|skip| glob_path(rest, &path[skip..])),
        Some((first, rest)) => {
            !path.is_empty() && glob_name(first.as_bytes(), path[0].as_bytes()) && glob_path(rest, &path[1..])
        }
    }
}

/// One component: `*` any run of characters, `?` any one.
fn glob_name(pattern: &[u8], name: &[u8]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some((b'*', rest)) => (0..=name.len()).any(|skip| glob_name(rest, &name[skip..])),
        Some((b'?', rest)) => !name.is_empty() && glob_name(rest, &name[1..]),
        Some((c, rest)) => name.first() == Some(c) && glob_name(rest, &name[1..]),
    }
}

/// The workspace's members, from the root Cargo.toml's `members = [...]`.
fn workspace_members() -> Vec<String> {
    let manifest = read("Cargo.toml");
    let start = manifest.find("members").expect("Cargo.toml has no workspace members");
    let list = &manifest[start..];
    let list = &list[list.find('[').unwrap() + 1..list.find(']').unwrap()];
    list.split(',').map(|m| m.trim().trim_matches('"').to_string()).filter(|m| !m.is_empty()).collect()
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            files_under(&path, out);
        } else if kind.is_file() {
            out.push(path);
        }
    }
}

fn relative(path: &Path) -> String {
    let root = root().canonicalize().unwrap();
    let path = path.canonicalize().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    path.strip_prefix(&root)
        .unwrap_or_else(|_| panic!("{} is outside the repository", path.display()))
        .to_string_lossy()
        .replace('\\', "/")
}

/// The string literals of `include_str!("…")`, `include_bytes!("…")` and `include!("…")`.
fn embedded_literals(source: &str) -> Vec<String> {
    let mut found = Vec::new();
    for mac in ["include_str!(\"", "include_bytes!(\"", "include!(\""] {
        let mut rest = source;
        while let Some(at) = rest.find(mac) {
            rest = &rest[at + mac.len()..];
            if let Some(end) = rest.find('"') {
                found.push(rest[..end].to_string());
            }
        }
    }
    found
}

/// What `cargo build --locked -p arena` reads from the context: the workspace's manifests and
/// lock file, every member's build script and sources, the files the sources embed, and the
/// files the build scripts name.
fn build_inputs() -> Vec<String> {
    let mut inputs = vec!["Cargo.toml".to_string(), "Cargo.lock".to_string()];
    for extra in ["rust-toolchain", "rust-toolchain.toml", ".cargo/config.toml", ".cargo/config"] {
        if root().join(extra).exists() {
            inputs.push(extra.to_string());
        }
    }
    for member in workspace_members() {
        let dir = root().join(&member);
        assert!(dir.join("Cargo.toml").is_file(), "the workspace member {member} has no Cargo.toml");
        inputs.push(format!("{member}/Cargo.toml"));
        let mut sources = Vec::new();
        files_under(&dir.join("src"), &mut sources);
        let build = dir.join("build.rs");
        if build.is_file() {
            // Its string literals that are files of the crate: the .proto files, for one.
            let text = std::fs::read_to_string(&build).unwrap();
            for literal in text.split('"').skip(1).step_by(2) {
                let path = dir.join(literal);
                if !literal.is_empty() && path.is_file() {
                    inputs.push(relative(&path));
                }
            }
            sources.push(build);
        }
        assert!(!sources.is_empty(), "the workspace member {member} has no sources");
        for source in sources {
            if source.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&source).unwrap();
                for literal in embedded_literals(&text) {
                    if literal.contains("env!") || literal.contains('{') {
                        continue;
                    }
                    let path = source.parent().unwrap().join(&literal);
                    assert!(path.is_file(), "{} embeds {literal}, which does not exist", source.display());
                    inputs.push(relative(&path));
                }
            }
            inputs.push(relative(&source));
        }
    }
    inputs.sort();
    inputs.dedup();
    inputs
}

/// The bytes the context holds: the files the .dockerignore lets through.
fn context_bytes(ignore: &Ignore) -> (u64, Vec<(u64, String)>) {
    let prune = ignore.patterns.iter().all(|(exception, _)| !exception);
    let mut total = 0;
    let mut files = Vec::new();
    let mut stack = vec![(root(), String::new())];
    while let Some((dir, rel)) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            let path = if rel.is_empty() { name } else { format!("{rel}/{name}") };
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                if !(prune && ignore.excludes(&path)) {
                    stack.push((entry.path(), path));
                }
            } else if !ignore.excludes(&path) {
                let size = entry.metadata().map_or(0, |m| m.len());
                total += size;
                files.push((size, path));
            }
        }
    }
    files.sort();
    (total, files)
}

// ---------------------------------------------------------------------------------------------
// The manifests

/// The YAML documents of a manifest, split on `---` lines (comment-only documents dropped).
fn documents(file: &str) -> Vec<Value> {
    let text = read(file);
    let mut docs = Vec::new();
    let mut current = String::new();
    for line in text.lines().chain(std::iter::once("---")) {
        if line.trim_end() == "---" {
            let doc: Value =
                serde_yaml::from_str(&current).unwrap_or_else(|e| panic!("{file}: a document does not parse: {e}"));
            if !doc.is_null() {
                docs.push(doc);
            }
            current.clear();
        } else {
            current.push_str(line);
            current.push('\n');
        }
    }
    docs
}

/// The Pod spec of a workload, if it is one.
fn pod_spec(doc: &Value) -> Option<&Value> {
    let spec = match doc["kind"].as_str()? {
        "Pod" => &doc["spec"],
        "CronJob" => &doc["spec"]["jobTemplate"]["spec"]["template"]["spec"],
        _ => &doc["spec"]["template"]["spec"],
    };
    spec.is_mapping().then_some(spec)
}

/// A Kubernetes quantity (`2`, `500m`, `1Gi`) as a number.
fn quantity(v: &Value) -> Option<f64> {
    if let Some(n) = v.as_f64() {
        return Some(n);
    }
    let s = v.as_str()?.trim();
    let split = s.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(s.len());
    let (number, suffix) = s.split_at(split);
    let scale = match suffix {
        "" => 1.0,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "Ki" => 1024.0,
        "Mi" => 1024.0f64.powi(2),
        "Gi" => 1024.0f64.powi(3),
        "Ti" => 1024.0f64.powi(4),
        _ => return None,
    };
    number.parse::<f64>().ok().map(|n| n * scale)
}

/// A field of the container's securityContext, else of the Pod's.
fn effective<'a>(container: &'a Value, pod: &'a Value, field: &str) -> &'a Value {
    let own = &container["securityContext"][field];
    if own.is_null() { &pod["securityContext"][field] } else { own }
}

/// Every container's resources and securityContext, in every workload of one manifest.
fn manifest_problems(file: &str, docs: &[Value], uid: Option<u64>) -> Vec<String> {
    let mut problems = Vec::new();
    let mut workloads = 0;
    for doc in docs {
        let Some(pod) = pod_spec(doc) else { continue };
        workloads += 1;
        let workload = format!(
            "{file}: {} {}",
            doc["kind"].as_str().unwrap_or("?"),
            doc["metadata"]["name"].as_str().unwrap_or("?")
        );
        let mut problem = |what: String| problems.push(format!("{workload}: {what}"));
        if pod["securityContext"]["runAsNonRoot"] != Value::Bool(true) {
            problem("the Pod's securityContext lacks `runAsNonRoot: true`".into());
        }
        let volumes = pod["volumes"].as_sequence().cloned().unwrap_or_default();
        let claims = volumes.iter().any(|v| !v["persistentVolumeClaim"].is_null());
        if claims && pod["securityContext"]["fsGroup"].as_u64().is_none_or(|g| g == 0) {
            problem(
                "it mounts a claim but sets no (non-root) fsGroup: the unprivileged user may not write to it".into(),
            );
        }
        if pod["automountServiceAccountToken"] != Value::Bool(false) {
            problem("it does not set `automountServiceAccountToken: false` (nothing here calls the API)".into());
        }
        let containers = ["initContainers", "containers"]
            .iter()
            .flat_map(|k| pod[*k].as_sequence().cloned().unwrap_or_default())
            .collect::<Vec<_>>();
        if containers.is_empty() {
            problem("its Pod template has no containers".into());
        }
        for c in &containers {
            let name = c["name"].as_str().unwrap_or("?");
            let mut problem = |what: String| problem(format!("container {name}: {what}"));
            for kind in ["requests", "limits"] {
                for resource in ["cpu", "memory"] {
                    if quantity(&c["resources"][kind][resource]).is_none_or(|q| q <= 0.0) {
                        problem(format!("no resources.{kind}.{resource}"));
                    }
                }
            }
            for resource in ["cpu", "memory"] {
                let request = quantity(&c["resources"]["requests"][resource]);
                let limit = quantity(&c["resources"]["limits"][resource]);
                if let (Some(request), Some(limit)) = (request, limit)
                    && request > limit
                {
                    problem(format!("its {resource} request is above its limit"));
                }
            }
            if effective(c, pod, "runAsNonRoot") != &Value::Bool(true) {
                problem("no `runAsNonRoot: true`".into());
            }
            match effective(c, pod, "runAsUser").as_u64() {
                Some(0) => problem("runAsUser is 0 (root)".into()),
                Some(user) if uid.is_some_and(|u| u != user) => {
                    problem(format!("runAsUser {user} is not the image's user {}", uid.unwrap()))
                }
                _ => {}
            }
            if effective(c, pod, "runAsGroup").as_u64() == Some(0) {
                problem("runAsGroup is 0 (root)".into());
            }
            let sc = &c["securityContext"];
            if sc["allowPrivilegeEscalation"] != Value::Bool(false) {
                problem("no `allowPrivilegeEscalation: false` in its securityContext".into());
            }
            if sc["readOnlyRootFilesystem"] != Value::Bool(true) {
                problem("no `readOnlyRootFilesystem: true` in its securityContext".into());
            }
            if sc["privileged"] == Value::Bool(true) {
                problem("it is privileged".into());
            }
            let dropped = sc["capabilities"]["drop"].as_sequence().cloned().unwrap_or_default();
            if !dropped.iter().any(|d| d.as_str() == Some("ALL")) {
                problem("its securityContext does not drop ALL capabilities".into());
            }
            if sc["capabilities"]["add"].as_sequence().is_some_and(|a| !a.is_empty()) {
                problem("its securityContext adds capabilities".into());
            }
            let seccomp = effective(c, pod, "seccompProfile")["type"].as_str();
            if !matches!(seccomp, Some("RuntimeDefault" | "Localhost")) {
                problem("no seccompProfile (RuntimeDefault)".into());
            }
            // The root filesystem is read-only: /tmp, HOME and TMPDIR must be writable mounts.
            let mounts = c["volumeMounts"].as_sequence().cloned().unwrap_or_default();
            let writable = |dir: &str| {
                mounts.iter().any(|m| {
                    let at = m["mountPath"].as_str().unwrap_or("");
                    m["readOnly"] != Value::Bool(true)
                        && (dir == at || dir.starts_with(&format!("{}/", at.trim_end_matches('/'))))
                        && volumes.iter().any(|v| {
                            v["name"] == m["name"]
                                && (!v["emptyDir"].is_null() || !v["persistentVolumeClaim"].is_null())
                        })
                })
            };
            if !writable("/tmp") {
                problem("no writable volume (an emptyDir) at /tmp, and the root filesystem is read-only".into());
            }
            for var in c["env"].as_sequence().cloned().unwrap_or_default() {
                let (Some(key @ ("HOME" | "TMPDIR")), Some(dir)) = (var["name"].as_str(), var["value"].as_str()) else {
                    continue;
                };
                if !writable(dir) {
                    problem(format!("{key}={dir} is not on a writable volume"));
                }
            }
        }
    }
    if workloads == 0 {
        problems.push(format!("{file}: no Pod template found"));
    }
    problems
}

// ---------------------------------------------------------------------------------------------
// The tests

#[test]
fn the_dockerfile_pins_its_images_and_runs_unprivileged() {
    assert_none("deploy/Dockerfile", dockerfile_problems(&read("deploy/Dockerfile")));
    let dockerfile = read("deploy/Dockerfile");
    assert!(
        dockerfile.contains("cargo build --release --locked -p arena"),
        "deploy/Dockerfile no longer builds the arena with the lock file"
    );
    assert!(
        dockerfile.contains("docker buildx imagetools inspect"),
        "deploy/Dockerfile should say how to look up the digest that pins a base image"
    );
    let last = stages(&dockerfile).pop().unwrap();
    let copies_to_path = |file: &str| {
        last.instructions
            .iter()
            .any(|i| i.keyword == "COPY" && i.args.contains(file) && i.args.contains("/usr/local/bin/"))
    };
    assert!(copies_to_path("arena-shard.sh"), "the image must have arena-shard.sh on PATH (the Jobs run it)");
    assert!(copies_to_path("release/arena"), "the image must have the arena on PATH");
    assert!(last.instructions.iter().any(|i| i.keyword == "ENTRYPOINT" && i.args.contains("arena")));
}

#[test]
fn the_floating_check_tells_pinned_from_floating() {
    for pinned in [
        "rust:1.95.0-slim-bookworm",
        "rust:1.95.0-bookworm",
        "debian:bookworm-20260824-slim",
        "debian:12.8-slim",
        "registry.example:5000/team/rust:1.95.0",
        "rust@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "debian:bookworm-slim@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    ] {
        assert_eq!(floating(pinned), None, "{pinned}");
    }
    for floats in [
        "rust",
        "rust:latest",
        "rust:1-bookworm",
        "rust:1",
        "rust:1.95-slim",
        "debian:bookworm-slim",
        "debian:stable",
        "debian:12",
        "registry.example:5000/team/rust",
        "rust@sha256:abc",
        "${BASE}",
    ] {
        assert!(floating(floats).is_some(), "{floats} should be refused");
    }
    // The whole check, on the Dockerfile this issue began with.
    let old = "FROM rust:1-bookworm AS build\nCOPY . .\nRUN cargo build\n\nFROM debian:bookworm-slim\n\
               COPY --from=build /src/target/release/arena /usr/local/bin/arena\nENTRYPOINT [\"arena\"]\n";
    let problems = dockerfile_problems(old);
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(problems[0].contains("FROM rust:1-bookworm") && problems[0].contains("bare major"), "{problems:#?}");
    assert!(problems[1].contains("FROM debian:bookworm-slim"), "{problems:#?}");
    assert!(problems[2].contains("no USER line"), "{problems:#?}");
    // A later stage built FROM an earlier one is not an image; root, by name or id, is refused.
    let root = "FROM rust:1.95.0 AS a\nFROM a\nUSER 10001\nUSER \\\n  0:0\n";
    let problems = dockerfile_problems(root);
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(problems[0].contains("line 4: USER 0:0 is root"), "{problems:#?}");
    assert!(dockerfile_problems("FROM scratch\nUSER arena\n")[0].contains("is a name"));
    assert!(dockerfile_problems("# syntax=x\nFROM debian:12.8\nUSER 10001:10001\n").is_empty());
}

#[test]
fn the_dockerignore_keeps_leftovers_out_and_the_build_inputs_in() {
    let ignore = Ignore::parse(&read(".dockerignore"));
    let mut problems = Vec::new();
    for leftover in [
        "target",
        "target/release/arena",
        ".git/HEAD",
        "bots/node/node_modules/x/index.js",
        "bots/python/.venv/bin/python",
        "bots/python/python/tabletop_arena/__pycache__/client.cpython-312.pyc",
        "results/default/games.jsonl",
    ] {
        if !ignore.excludes(leftover) {
            problems.push(format!("it does not exclude {leftover}"));
        }
    }
    for input in build_inputs() {
        if ignore.excludes(&input) {
            problems.push(format!("it excludes {input}, which the build reads"));
        }
    }
    assert_none(".dockerignore", problems);

    let (bytes, files) = context_bytes(&ignore);
    let largest: Vec<String> = files.iter().rev().take(5).map(|(n, p)| format!("{p} ({n} bytes)")).collect();
    println!("build context: {bytes} bytes in {} files; the largest: {}", files.len(), largest.join(", "));
    assert!(
        bytes < 64 << 20,
        "the build context is {} MiB: add what the build does not need to .dockerignore (the largest: {})",
        bytes >> 20,
        largest.join(", ")
    );
}

#[test]
fn the_dockerfile_copies_nothing_the_dockerignore_excludes() {
    let ignore = Ignore::parse(&read(".dockerignore"));
    let sources = copied_sources(&read("deploy/Dockerfile"));
    assert!(!sources.is_empty(), "deploy/Dockerfile copies nothing from the context");
    let mut problems = Vec::new();
    for (line, source) in sources {
        // A wildcard source: its literal directory is what must be sent.
        let literal = source.split(['*', '?', '[']).next().unwrap().trim_end_matches('/');
        let literal = literal.rsplit_once('/').filter(|_| literal.len() < source.len()).map_or(literal, |(d, _)| d);
        if ignore.excludes(literal) {
            problems.push(format!("line {line}: COPY {source}, which .dockerignore excludes"));
        } else if !literal.is_empty() && !root().join(literal).exists() {
            problems.push(format!("line {line}: COPY {source}, which is not in the repository"));
        }
    }
    assert_none("deploy/Dockerfile", problems);

    // The matcher itself, on patterns of Docker's kinds.
    let ignore = Ignore::parse("# c\n/target/\n**/node_modules\n*.log\ndocs\n!docs/keep.md\nsrc/*/gen?\n");
    for (path, excluded) in [
        ("target/debug/x", true),
        ("engine/target", false),
        ("node_modules", true),
        ("a/b/node_modules/c", true),
        ("x.log", true),
        ("a/x.log", false),
        ("docs/rules.md", true),
        ("docs/keep.md", false),
        ("src/a/gen1/f.rs", true),
        ("src/a/gen12", false),
        ("deploy/arena-shard.sh", false),
        (".", false),
    ] {
        assert_eq!(ignore.excludes(path), excluded, "{path}");
    }
}

#[test]
fn every_container_has_resources_and_a_locked_down_security_context() {
    let uid = image_uid(&read("deploy/Dockerfile"));
    assert!(uid.is_some(), "deploy/Dockerfile's final USER is not a numeric id");
    let problems = MANIFESTS.iter().flat_map(|file| manifest_problems(file, &documents(file), uid)).collect();
    assert_none("the Kubernetes manifests", problems);

    // The check finds what the manifests of this start lacked.
    let bare = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n      \
                containers:\n        - name: c\n          image: i\n          resources:\n            \
                requests: {cpu: \"2\", memory: 1Gi}\n";
    let doc: Value = serde_yaml::from_str(bare).unwrap();
    let problems = manifest_problems("bare.yaml", &[doc], Some(10001)).join("\n");
    for missing in [
        "runAsNonRoot",
        "automountServiceAccountToken",
        "no resources.limits.cpu",
        "no resources.limits.memory",
        "allowPrivilegeEscalation",
        "readOnlyRootFilesystem",
        "drop ALL",
        "seccompProfile",
        "/tmp",
    ] {
        assert!(problems.contains(missing), "no problem about {missing} in:\n{problems}");
    }
    assert!(!problems.contains("no resources.requests"), "{problems}");
    assert_eq!(quantity(&"500m".into()), Some(0.5));
    assert_eq!(quantity(&"1Gi".into()), Some(1024.0 * 1024.0 * 1024.0));
    assert_eq!(quantity(&Value::from(2)), Some(2.0));
}

#[test]
fn the_server_deployment_serves_on_every_interface_with_grpc_probes() {
    let docs = documents("deploy/k8s-server.yaml");
    let deployment = docs.iter().find(|d| d["kind"] == "Deployment").expect("no Deployment in k8s-server.yaml");
    let service = docs.iter().find(|d| d["kind"] == "Service").expect("no Service in k8s-server.yaml");
    let pod = pod_spec(deployment).unwrap();
    let server = &pod["containers"][0];
    let args: Vec<&str> =
        server["args"].as_sequence().expect("the server has no args").iter().map(|a| a.as_str().unwrap()).collect();
    assert_eq!(args.first(), Some(&"serve"), "the server container must run `arena serve`: {args:?}");
    let addr = args.iter().position(|a| *a == "--addr").map(|i| args[i + 1]).expect("no --addr");
    assert!(addr.starts_with("0.0.0.0:"), "--addr {addr}: the Service reaches the pod on its own address");
    let port: u64 = addr.rsplit(':').next().unwrap().parse().unwrap();

    // Every flag it passes is one `arena serve` has.
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_arena")).args(["serve", "--help"]).output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    for flag in args.iter().filter(|a| a.starts_with("--")) {
        let flag = flag.split('=').next().unwrap();
        assert!(help.contains(&format!("{flag} ")), "`arena serve` has no {flag}:\n{help}");
    }

    let ports = server["ports"].as_sequence().expect("the server declares no ports");
    let declared =
        ports.iter().find(|p| p["containerPort"].as_u64() == Some(port)).expect("--addr's port is not declared");
    for probe in ["readinessProbe", "livenessProbe"] {
        assert_eq!(server[probe]["grpc"]["port"].as_u64(), Some(port), "{probe}: a gRPC probe on port {port}");
    }
    let labels = &deployment["spec"]["template"]["metadata"]["labels"];
    for (k, v) in service["spec"]["selector"].as_mapping().expect("the Service has no selector") {
        assert_eq!(&labels[k], v, "the Service's selector does not pick the server's pods");
    }
    let target = &service["spec"]["ports"][0]["targetPort"];
    assert!(
        target == &declared["name"] || target.as_u64() == Some(port),
        "the Service's targetPort is not the server's"
    );
}

/// The flags a container passes to `arena SUBCOMMAND`, each one the subcommand has.
fn check_flags(args: &[&str]) {
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_arena")).args([args[0], "--help"]).output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    for flag in args.iter().filter(|a| a.starts_with("--")) {
        assert!(help.contains(&format!("{flag} ")), "`arena {}` has no {flag}:\n{help}", args[0]);
    }
}

fn args_of(container: &Value) -> Vec<&str> {
    container["args"].as_sequence().expect("no args").iter().map(|a| a.as_str().unwrap()).collect()
}

/// The ladder on Kubernetes: its file (the ConfigMap) reads and hands its games to workers
/// whose keys are the Secret's; the workers' Deployment reaches the ladder's Service, each
/// replica an instance of its own with the Secret's key, probed on its health port, with a
/// termination grace above its own.
#[test]
fn the_ladder_and_its_workers_deployment_fit_together() {
    let docs = documents("deploy/k8s-ladder.yaml");
    let kind = |k: &str| docs.iter().find(|d| d["kind"] == k).unwrap_or_else(|| panic!("no {k} in k8s-ladder.yaml"));
    let text = kind("ConfigMap")["data"]["ladder.yaml"].as_str().unwrap();
    let config = arena::ladder::config::LadderConfig::parse("the ConfigMap's ladder.yaml", text).unwrap();
    let workers = config.workers.as_ref().expect("the ladder hands its games to workers");

    let ladder_pod = pod_spec(kind("StatefulSet")).unwrap();
    let ladder = &ladder_pod["containers"][0];
    let args = args_of(ladder);
    assert_eq!(args[0], "ladder");
    check_flags(&args);
    let mounted = |pod: &Value, c: &Value, path: &str| -> Value {
        let mount = c["volumeMounts"]
            .as_sequence()
            .unwrap()
            .iter()
            .find(|m| path.starts_with(m["mountPath"].as_str().unwrap()))
            .unwrap_or_else(|| panic!("nothing mounted at {path}"))
            .clone();
        pod["volumes"].as_sequence().unwrap().iter().find(|v| v["name"] == mount["name"]).unwrap().clone()
    };
    assert_eq!(mounted(ladder_pod, ladder, &workers.keys)["secret"]["secretName"], "arena-workers");
    let addr = args.iter().position(|a| *a == "--addr").map(|i| args[i + 1]).unwrap();
    let port = addr.rsplit(':').next().unwrap();

    let worker_pod = pod_spec(kind("Deployment")).unwrap();
    let worker = &worker_pod["containers"][0];
    let args = args_of(worker);
    assert_eq!(args[0], "worker");
    check_flags(&args);
    let flag = |f: &str| args.iter().position(|a| *a == f).map(|i| args[i + 1]).unwrap_or_else(|| panic!("no {f}"));
    let service = kind("Service");
    assert_eq!(flag("--ladder"), format!("http://{}:{port}", service["metadata"]["name"].as_str().unwrap()));
    assert_eq!(flag("--instance"), "$(POD_NAME)", "each replica an instance of its own");
    let env = worker["env"].as_sequence().unwrap();
    let var = |n: &str| env.iter().find(|e| e["name"] == n).unwrap_or_else(|| panic!("no {n}"));
    assert_eq!(var("POD_NAME")["valueFrom"]["fieldRef"]["fieldPath"], "metadata.name");
    assert_eq!(var("ARENA_WORKER_KEY")["valueFrom"]["secretKeyRef"]["name"], "arena-workers");
    let health: u64 = flag("--health").rsplit(':').next().unwrap().parse().unwrap();
    assert_eq!(worker["readinessProbe"]["grpc"]["port"].as_u64(), Some(health));
    let grace: u64 = flag("--grace").parse().unwrap();
    assert!(
        worker_pod["terminationGracePeriodSeconds"].as_u64().unwrap() > grace,
        "the pod outlives the worker's grace"
    );
    let slots: u64 = flag("--slots").parse().unwrap();
    assert!(slots <= u64::from(workers.slots), "a replica asks no more slots than the ladder gives a worker");
}
