//! The layers of src/ import one way: each top-level module names only the layers below it,
//! and the host names WebMCP only through its seam (`host/seam.rs`), which itself imports
//! nothing above the host.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, bottom up. A module may name only those before it.
const LAYERS: &[&str] = &[
    "text",
    "host",
    "webmcp",
    "script",
    "engine",
    "scenario",
    "explore",
    "report",
    "export",
    "gateway",
    "browser",
    "speccheck",
];

/// The text of every .rs file under `dir`, by path.
fn sources(dir: &Path, out: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("a source file is readable");
            out.insert(path.to_string_lossy().replace('\\', "/"), text);
        }
    }
}

/// The top-level modules a file's text names as `crate::NAME` or `crate::{NAME, ...}`.
fn named_modules(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find("crate::") {
        let start = i + at + "crate::".len();
        i = start;
        if bytes.get(start) == Some(&b'{') {
            let end = text[start..].find('}').map_or(text.len(), |e| start + e);
            for part in text[start + 1..end].split(',') {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                out.insert(name);
            }
        } else {
            let name: String = text[start..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            out.insert(name);
        }
    }
    out
}

fn top_module(path: &str) -> Option<&str> {
    let rest = path.split("/src/").nth(1)?;
    let first = rest.split('/').next()?;
    Some(first.strip_suffix(".rs").unwrap_or(first))
}

#[test]
fn every_layer_names_only_the_layers_below_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = BTreeMap::new();
    sources(&root.join("src"), &mut files);
    let mut problems = Vec::new();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, text) in &files {
        let Some(module) = top_module(path) else {
            continue;
        };
        let Some(rank) = LAYERS.iter().position(|l| *l == module) else {
            continue;
        };
        for named in named_modules(text) {
            let Some(named_rank) = LAYERS.iter().position(|l| *l == named) else {
                continue;
            };
            if named_rank == rank {
                continue;
            }
            edges
                .entry(module.to_string())
                .or_default()
                .insert(named.clone());
            if named_rank > rank {
                problems.push(format!(
                    "{path} ({module}) names `crate::{named}`, a layer above it"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // No cycles among the top-level modules (a consequence of the order, checked on its own).
    fn reaches(
        edges: &BTreeMap<String, BTreeSet<String>>,
        from: &str,
        to: &str,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        edges.get(from).is_some_and(|next| {
            next.iter()
                .any(|n| n == to || (seen.insert(n.clone()) && reaches(edges, n, to, seen)))
        })
    }
    for m in edges.keys() {
        assert!(
            !reaches(&edges, m, m, &mut BTreeSet::new()),
            "the top-level modules import each other in a cycle through {m}"
        );
    }
}

/// Names of WebMCP's types and modules, which host code must not use.
const WEBMCP_NAMES: &[&str] = &[
    "webmcp::",
    "ModelContext",
    "ToolDefinition",
    "WaitOutcome",
    "Waiter",
    "Observation",
    "ExecutionKey",
    "PendingSet",
];

#[test]
fn the_host_names_webmcp_only_in_its_seam() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = BTreeMap::new();
    sources(&root.join("src/host"), &mut files);
    assert!(files.len() > 10, "the host's files were found");
    let above_host = &LAYERS[LAYERS.iter().position(|l| *l == "host").unwrap() + 1..];
    for (path, text) in &files {
        let names_upper = named_modules(text)
            .iter()
            .any(|n| above_host.contains(&n.as_str()));
        assert!(!names_upper, "{path} names a layer above the host");
        let says_webmcp = text.lines().any(|l| {
            let code = l.split("//").next().unwrap_or("");
            WEBMCP_NAMES.iter().any(|n| code.contains(n))
        });
        if !path.ends_with("host/seam.rs") {
            assert!(
                !says_webmcp,
                "{path} names a WebMCP type in code; only host/seam.rs may"
            );
        }
    }
}

#[test]
fn the_finder_sees_both_import_forms() {
    let names = named_modules("use crate::{host::x, engine::{a, b}};\nuse crate::webmcp::y;");
    assert!(
        names.contains("host") && names.contains("webmcp"),
        "{names:?}"
    );
}

/// The crates that do real I/O, which the library's `native` feature brings in (Cargo.toml):
/// the layers the playground builds for WebAssembly must not need them.
const IO_CRATES: &[&str] = &[
    "tokio::",
    "rmcp::",
    "hyper::",
    "hyper_util::",
    "http_body_util::",
    "bytes::",
    "libc::",
    "mimalloc::",
];

#[test]
fn only_the_native_layers_do_real_io() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = BTreeMap::new();
    sources(&root.join("src"), &mut files);
    let lib = &files[&root.join("src/lib.rs").to_string_lossy().replace('\\', "/")];
    for m in ["browser", "gateway"] {
        assert!(
            lib.contains(&format!("#[cfg(feature = \"native\")]\npub mod {m};")),
            "src/lib.rs builds {m} only with the native feature"
        );
    }
    let mut problems = Vec::new();
    for (path, text) in &files {
        let native_only = ["/src/browser/", "/src/gateway/", "/src/cli/", "/src/main.rs"]
            .iter()
            .any(|d| path.contains(d));
        if native_only {
            continue;
        }
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let code = l.split("//").next().unwrap_or("");
            let Some(c) = IO_CRATES.iter().find(|c| code.contains(*c)) else {
                continue;
            };
            // Allowed inside a block the native feature gates, opened just above.
            let gated = lines[i.saturating_sub(3)..i]
                .iter()
                .any(|above| above.contains("feature = \"native\""));
            if !gated {
                problems.push(format!("{path}:{}: names {c} outside the native feature", i + 1));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
