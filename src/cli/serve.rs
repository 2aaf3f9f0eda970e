//! `webmcp-ref serve`: a subtest's simulated pages, served to agents over MCP on this process's
//! stdin and stdout (which are the transport: nothing else is written there), or with
//! `--http ADDR` over MCP's streamable HTTP on loopback, where several agents share the world.

use std::path::PathBuf;

use webmcp_ref::gateway::server::{http_address, serve_http, serve_stdio};
use webmcp_ref::gateway::{Clock, Gateway, ServeOptions};

use super::{build_profile, load_one, warn, BadInput, BudgetArgs, CliError, Exit};

#[derive(clap::Args)]
#[command(after_help = super::exits::SERVE)]
pub struct Args {
    /// The scenario file (`.scn`) whose subtest's pages are served.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// The subtest to serve (its name, or part of it); needed when the file has several.
    #[arg(long)]
    subtest: Option<String>,
    /// The profile the world runs under (one).
    #[arg(long, default_value = "spec")]
    profile: String,
    /// Override one switch of the profile: `--set gettools-waits=yes`. Repeatable.
    #[arg(long = "set", value_name = "SWITCH=VALUE")]
    sets: Vec<String>,
    /// Virtual time: the clock stands still unless an agent waits, then jumps to the next
    /// thing due (deterministic, for tests). By default it follows real time.
    #[arg(long = "virtual")]
    virtual_clock: bool,
    /// Serve MCP's streamable HTTP at http://ADDR/mcp instead of stdio: ADDR is PORT (on
    /// 127.0.0.1) or a loopback HOST:PORT. Every client shares the one served world and its
    /// clock. Port 0 picks a free port; the address is printed on stderr.
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    #[command(flatten)]
    budgets: BudgetArgs,
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
        budgets: args.budgets.budgets(),
    };
    let address = args.http.as_deref().map(http_address).transpose()?;
    let gateway = Gateway::start(load_one(&args.file)?, options).map_err(BadInput::from)?;
    let s = gateway.served();
    let about = format!(
        "webmcp-ref serve: subtest {:?} of {} ({} profile, {} clock)",
        s.subtest,
        s.path,
        s.profile,
        if args.virtual_clock {
            "virtual"
        } else {
            "real-time"
        }
    );
    match address {
        None => {
            warn(&format!("{about}: MCP on stdin/stdout"));
            serve_stdio(gateway)?;
        }
        Some(address) => serve_http(gateway, address, |bound| {
            warn(&format!("{about}: MCP at http://{bound}/mcp"));
        })?,
    }
    Ok(Exit::Held)
}
