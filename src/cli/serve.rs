//! `webmcp-ref serve`: a subtest's simulated pages, served to agents over MCP on this process's
//! stdin and stdout (which are the transport: nothing else is written there), or with
//! `--http ADDR` over MCP's streamable HTTP on loopback, where several agents share the world.

use std::path::PathBuf;

use webmcp_ref::gateway::http_limits::{self, HttpLimits};
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
    /// With --http: the most connections open at once; one more is answered 503 and closed.
    #[arg(long, value_name = "N", default_value_t = http_limits::MAX_CONNECTIONS, value_parser = at_least_one)]
    max_connections: usize,
    /// With --http: the most MCP sessions open at once; an `initialize` past it is answered
    /// 503 (after the idle ones are closed).
    #[arg(long, value_name = "N", default_value_t = http_limits::MAX_SESSIONS, value_parser = at_least_one)]
    max_sessions: usize,
    /// With --http: a session with no request for this long is closed; its id then gets 404.
    /// A duration: seconds, or with ms, s, m or h.
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = super::duration_up_to_a_day)]
    session_idle: std::time::Duration,
    /// With --http: the time a client has to send a request's header; past it the connection
    /// is closed.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = super::duration_up_to_a_day)]
    header_timeout: std::time::Duration,
    /// With --http: the time a client has to send a request's body; past it, 408.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = super::duration_up_to_a_day)]
    body_timeout: std::time::Duration,
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
    let bounds = HttpLimits {
        max_connections: args.max_connections,
        max_sessions: args.max_sessions,
        session_idle: args.session_idle,
        header_timeout: args.header_timeout,
        body_timeout: args.body_timeout,
    };
    let gateway = Gateway::start(load_one(&args.file)?, options).map_err(BadInput::from)?;
    let s = gateway.served();
    let about = format!(
        "webmcp-ref serve: subtest {} of {} ({} profile, {} clock)",
        webmcp_ref::text::js_string::quoted(&s.subtest),
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
        Some(address) => serve_http(gateway, address, bounds, |bound| {
            warn(&format!("{about}: MCP at http://{bound}/mcp"));
        })?,
    }
    Ok(Exit::Held)
}

/// A count of at least one, at most a million.
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=1_000_000).contains(&n) => Ok(n),
        _ => Err(format!(
            "`{text}`: expected a whole number from 1 to 1000000"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    #[derive(clap::Parser)]
    struct Serve {
        #[command(flatten)]
        args: Args,
    }

    #[test]
    fn the_flags_default_to_the_gateways_bounds() {
        let a = Serve::parse_from(["serve", "x.scn"]).args;
        let given = HttpLimits {
            max_connections: a.max_connections,
            max_sessions: a.max_sessions,
            session_idle: a.session_idle,
            header_timeout: a.header_timeout,
            body_timeout: a.body_timeout,
        };
        assert_eq!(given, HttpLimits::default());
    }
}
