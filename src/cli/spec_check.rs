//! `webmcp-ref spec-check FILE.bs`: the WebMCP text against the engine's algorithm tables and
//! the digest of the text the engine last matched, and the subtests to run again.

use std::io::Write as _;
use std::path::PathBuf;

use webmcp_ref::engine::profile::{Profile, NAMED_PROFILES};
use webmcp_ref::speccheck::{self, CheckError, Digest};
use webmcp_ref::text::file::{read_text, MAX_TEXT_BYTES};

use super::{load_all, BadInput, CliError, Exit, Output, SimpleFormat};

#[derive(clap::Args)]
#[command(after_help = super::exits::SPEC_CHECK)]
pub struct Args {
    /// The Bikeshed source (a WebMCP index.bs).
    file: PathBuf,
    /// Compare with this digest instead of the engine's own.
    #[arg(long)]
    digest: Option<PathBuf>,
    /// Write FILE's digest here instead of comparing (once the engine follows FILE).
    #[arg(long, value_name = "PATH")]
    write_digest: Option<PathBuf>,
    /// The source the written digest names (a commit id; default: FILE's name).
    #[arg(long, requires = "write_digest")]
    source: Option<String>,
    /// Scenario files or folders searched for subtests reaching a changed step (default: the
    /// bundled wpt-mirror/), each under every named profile.
    #[arg(long = "scenarios", value_name = "PATH")]
    scenarios: Vec<PathBuf>,
    /// human: what changed and the subtests to run again; json: the same, as one object.
    #[arg(long, value_enum, default_value = "human")]
    format: SimpleFormat,
}

/// A source or digest, read as every text file the tool reads is (see `text::file`).
fn read(path: &std::path::Path, what: &'static str) -> Result<String, BadInput> {
    Ok(read_text(path, MAX_TEXT_BYTES, what)?)
}

pub fn run(args: Args, out: &mut Output) -> Result<Exit, CliError> {
    let text = read(&args.file, "a Bikeshed source")?;
    let source_error = |e: speccheck::ParseError| BadInput::Bikeshed {
        path: args.file.display().to_string(),
        error: e,
    };
    if let Some(target) = &args.write_digest {
        let spec = speccheck::parse_bs(&text).map_err(source_error)?;
        let name = args.source.clone().unwrap_or_else(|| {
            args.file
                .file_name()
                .map_or("unknown".into(), |n| n.to_string_lossy().into_owned())
        });
        std::fs::write(target, Digest::from_spec(&spec, &name).to_string()).map_err(|error| {
            BadInput::File {
                path: target.display().to_string(),
                error,
            }
        })?;
        writeln!(
            out,
            "wrote the digest of {} ({} algorithms) to {}",
            args.file.display(),
            spec.algorithms.len(),
            target.display()
        )?;
        return Ok(Exit::Held);
    }
    let digest = match &args.digest {
        Some(path) => {
            Digest::parse(&read(path, "a digest")?).map_err(|error| BadInput::Digest {
                path: path.display().to_string(),
                error,
            })?
        }
        None => speccheck::digest().map_err(|error| BadInput::Digest {
            path: "the engine's own digest".into(),
            error,
        })?,
    };
    let report = match speccheck::check_against(&text, &digest) {
        Ok(r) => r,
        Err(CheckError::Source(e)) => return Err(source_error(e).into()),
        Err(CheckError::Digest(error)) => {
            return Err(BadInput::Digest {
                path: "the digest".into(),
                error,
            }
            .into())
        }
    };
    let mut changes = speccheck::changed_steps(&report);
    let profiles: Vec<Profile> = NAMED_PROFILES
        .iter()
        .map(|p| Profile::named(p.name))
        .collect::<Result<_, _>>()
        .map_err(BadInput::from)?;
    if !changes.is_empty() {
        let files = load_all(args.scenarios)?;
        speccheck::find_reaching(&mut changes, &files, &profiles);
    }
    match args.format {
        SimpleFormat::Human => write!(
            out,
            "{report}{}",
            speccheck::changes_human(&changes, profiles.len())
        )?,
        SimpleFormat::Json => out.json(&speccheck::report_json(&report, &changes))?,
    }
    Ok(Exit::held_if(report.is_clean()))
}
