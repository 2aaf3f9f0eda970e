//! `webmcp-ref serve`: a subtest's simulated pages, served to agents over MCP on this process's
//! stdin and stdout (which are the transport: nothing else is written there).

use std::path::PathBuf;

use webmcp_ref::gateway::{server::serve_stdio, Clock, Gateway, ServeOptions};

use super::{build_profile, load_one, warn, BadInput, CliError, Exit};

#[derive(clap::Args)]
#[command(after_help = super::exits::SERVE)]
pub struct Args {
    file: PathBuf,
    /// The subtest to serve (its name, or part of it); needed when the file has several.
    #[arg(long)]
    subtest: Option<String>,
    /// The profile the world runs under (one).
    #[arg(long, default_value = "spec")]
    profile: String,
    #[arg(long = "set", value_name = "SWITCH=VALUE")]
    sets: Vec<String>,
    /// Virtual time: the clock stands still unless an agent waits, then jumps to the next
    /// thing due (deterministic, for tests). By default it follows real time.
    #[arg(long = "virtual")]
    virtual_clock: bool,
}

pub fn run(args: Args) -> Result<Exit, CliError> {
    let options = ServeOptions {
        profile: build_profile(&args.profile, &args.sets)?,
        subtest: args.subtest,
        clock: if args.virtual_clock {
            Clock::Virtual
        } else {
            Clock::RealTime
        },
    };
    let gateway = Gateway::start(load_one(&args.file)?, options).map_err(BadInput::from)?;
    let s = gateway.served();
    warn(&format!(
        "webmcp-ref serve: subtest {:?} of {} ({} profile, {} clock): MCP on stdin/stdout",
        s.subtest,
        s.path,
        s.profile,
        if args.virtual_clock {
            "virtual"
        } else {
            "real-time"
        }
    ));
    serve_stdio(gateway)?;
    Ok(Exit::Held)
}
