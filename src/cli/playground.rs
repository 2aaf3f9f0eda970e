//! `webmcp-ref playground`: the playground page (playground/: the engine built for WebAssembly
//! with wasm-bindgen's glue, and the page that calls it from a worker), written into a folder
//! and, with `--serve`, served on loopback.
//!
//! The WebAssembly module is built from a checkout of webmcp-ref (the `webmcp-ref-playground`
//! crate, for `wasm32-unknown-unknown`), so the command needs one, the target and the
//! `wasm-bindgen` CLI at the version the checkout's Cargo.lock names; it says which is missing
//! and how to get it. The page's own files are built into this binary.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use webmcp_ref::browser::server::Server;
use webmcp_ref::report::link::DEFAULT_BASE;

use super::{BadInput, CliError, Exit, Output};

/// The page's files, as web/playground/ holds them (a folder of this package, where
/// `cargo package` keeps them; playground/ is a crate of its own, which it leaves out).
const PAGE: [(&str, &str); 4] = [
    (
        "index.html",
        include_str!("../../web/playground/index.html"),
    ),
    (
        "playground.js",
        include_str!("../../web/playground/playground.js"),
    ),
    (
        "playground.css",
        include_str!("../../web/playground/playground.css"),
    ),
    ("worker.js", include_str!("../../web/playground/worker.js")),
];

/// The crate the module is built from, and its target.
const CRATE: &str = "webmcp-ref-playground";
const TARGET: &str = "wasm32-unknown-unknown";

#[derive(clap::Args)]
#[command(after_help = super::exits::PLAYGROUND)]
pub struct Args {
    /// The folder the page is written into (created if missing): index.html, its script,
    /// style and worker, and pkg/ (the WebAssembly module and its glue). Default, with
    /// --serve: target/playground in the checkout.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Serve the folder on loopback (http://127.0.0.1:PORT/) until stopped, once it is written.
    #[arg(long)]
    serve: bool,
    /// The port --serve listens on; links in Markdown reports name 8737 (`trace --playground`
    /// names another address).
    #[arg(long, default_value_t = 8737)]
    port: u16,
    /// The checkout of webmcp-ref the module is built from (default: the current folder, or
    /// the nearest folder above it holding playground/Cargo.toml).
    #[arg(long, value_name = "DIR")]
    source: Option<PathBuf>,
    /// Serve --out as it is, without building it again (it must hold pkg/).
    #[arg(long, requires = "serve")]
    no_build: bool,
    /// The wasm-bindgen CLI to run.
    #[arg(long, value_name = "PATH", default_value = "wasm-bindgen")]
    wasm_bindgen: PathBuf,
}

/// Why the page could not be built.
#[derive(Debug, thiserror::Error)]
pub enum PlaygroundError {
    #[error("the playground is built from a checkout of webmcp-ref, and none was found from {0} upwards (a folder holding playground/Cargo.toml); run this in one, or give --source DIR")]
    NoCheckout(String),
    #[error("{command} could not be started: {error}{hint}")]
    NotStarted {
        command: String,
        error: std::io::Error,
        hint: String,
    },
    #[error("{command} failed ({status}){hint}")]
    Failed {
        command: String,
        status: String,
        hint: String,
    },
    #[error("cargo built no .wasm file of {CRATE}")]
    NoModule,
    #[error("{0} holds no pkg/ (the built module): build it first, without --no-build")]
    NotBuilt(String),
    #[error("--serve: 127.0.0.1:{port}: {error}; give another --port")]
    Serve { port: u16, error: std::io::Error },
}

fn checkout(args: &Args) -> Result<PathBuf, PlaygroundError> {
    if let Some(s) = &args.source {
        return if s.join("playground/Cargo.toml").is_file() {
            Ok(s.clone())
        } else {
            Err(PlaygroundError::NoCheckout(s.display().to_string()))
        };
    }
    let here = std::env::current_dir().unwrap_or_default();
    here.ancestors()
        .find(|d| d.join("playground/Cargo.toml").is_file())
        .map(Path::to_path_buf)
        .ok_or_else(|| PlaygroundError::NoCheckout(here.display().to_string()))
}

/// The wasm-bindgen version the checkout's Cargo.lock names (the CLI must be that version).
fn bindgen_version(source: &Path) -> Option<String> {
    let lock = std::fs::read_to_string(source.join("Cargo.lock")).ok()?;
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l == "name = \"wasm-bindgen\"" {
            return lines
                .next()?
                .strip_prefix("version = \"")?
                .strip_suffix('"')
                .map(str::to_string);
        }
    }
    None
}

fn run_command(mut command: Command, hint: &str) -> Result<std::process::Output, PlaygroundError> {
    let shown = format!(
        "{} {}",
        command.get_program().to_string_lossy(),
        command
            .get_args()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let out = command
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|error| PlaygroundError::NotStarted {
            command: shown.clone(),
            error,
            hint: hint.to_string(),
        })?;
    if !out.status.success() {
        return Err(PlaygroundError::Failed {
            command: shown,
            status: out.status.to_string(),
            hint: hint.to_string(),
        });
    }
    Ok(out)
}

/// Builds the module and its glue into `out/pkg`.
fn build(source: &Path, out: &Path, bindgen: &Path) -> Result<(), CliError> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(source)
        .args([
            "build",
            "--profile",
            "wasm",
            "--locked",
            "--message-format=json-render-diagnostics",
        ])
        .args(["-p", CRATE, "--target", TARGET]);
    let built = run_command(
        command,
        &format!("; the target is installed with `rustup target add {TARGET}`"),
    )?;
    // The .wasm file cargo reports building, wherever its target folder is.
    let wasm = String::from_utf8_lossy(&built.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| {
            m["reason"] == "compiler-artifact" && m["target"]["name"] == "webmcp_ref_playground"
        })
        .flat_map(|m| {
            m["filenames"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .filter_map(|f| f.as_str().map(PathBuf::from))
        })
        .find(|f| f.extension().is_some_and(|e| e == "wasm"))
        .ok_or(PlaygroundError::NoModule)?;
    let version = bindgen_version(source).unwrap_or_else(|| "VERSION".into());
    let hint = format!(
        "; the CLI must be the version of the wasm-bindgen crate in Cargo.lock: cargo install wasm-bindgen-cli --version {version}"
    );
    let mut command = Command::new(bindgen);
    command
        .args(["--target", "web", "--no-typescript", "--out-dir"])
        .arg(out.join("pkg"))
        .arg(&wasm);
    run_command(command, &hint)?;
    Ok(())
}

fn write_page(out: &Path) -> Result<(), CliError> {
    for (name, text) in PAGE {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|error| BadInput::File {
            path: path.display().to_string(),
            error,
        })?;
    }
    Ok(())
}

pub fn run(args: Args, out: &mut Output) -> Result<Exit, CliError> {
    if args.out.is_none() && !args.serve {
        return Err(BadInput::PlaygroundWhere.into());
    }
    let dir = match &args.out {
        Some(d) => d.clone(),
        None => checkout(&args)?.join("target/playground"),
    };
    if args.no_build {
        if !dir.join("pkg").is_dir() {
            return Err(PlaygroundError::NotBuilt(dir.display().to_string()).into());
        }
    } else {
        let source = checkout(&args)?;
        std::fs::create_dir_all(&dir).map_err(|error| BadInput::File {
            path: dir.display().to_string(),
            error,
        })?;
        build(&source, &dir, &args.wasm_bindgen)?;
        write_page(&dir)?;
        writeln!(out, "wrote {}", dir.join("index.html").display())?;
    }
    if !args.serve {
        return Ok(Exit::Held);
    }
    let (results, _posted) = std::sync::mpsc::channel();
    let server = Server::start_at(dir.clone(), args.port, results).map_err(|error| {
        PlaygroundError::Serve {
            port: args.port,
            error,
        }
    })?;
    let address = if args.port == 8737 {
        DEFAULT_BASE.to_string()
    } else {
        format!("http://127.0.0.1:{}/", server.port)
    };
    writeln!(
        out,
        "serving {address} (the folder {}); stop it with Ctrl-C",
        dir.display()
    )?;
    out.flush()?;
    loop {
        std::thread::park();
    }
}
