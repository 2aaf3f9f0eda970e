//! `webmcp-ref profiles`: the named profiles and every switch, with its values and where it
//! comes from.

use std::io::Write as _;

use webmcp_ref::engine::profile::{self, Profile, NAMED_PROFILES};

use super::{CliError, Exit, Output, SimpleFormat};

#[derive(clap::Args)]
#[command(after_help = super::exits::PROFILES)]
pub struct Args {
    /// human: a list of profiles and switches; json: the same, as one object.
    #[arg(long, value_enum, default_value = "human")]
    format: SimpleFormat,
}

pub fn run(args: Args, out: &mut Output) -> Result<Exit, CliError> {
    match args.format {
        SimpleFormat::Human => {
            writeln!(
                out,
                "Named profiles (each is `spec` with the switches shown):\n"
            )?;
            for p in NAMED_PROFILES {
                let sw = switches_of(p.name);
                writeln!(out, "  {:<27} {}", p.name, p.about)?;
                if !sw.is_empty() {
                    writeln!(out, "  {:<27}   {}", "", sw.join(", "))?;
                }
            }
            writeln!(
                out,
                "\nSwitches (set any with --set name=value; the first value is spec's):\n"
            )?;
            for s in profile::switches() {
                writeln!(out, "  {}\n      from: {}", s.name, s.source)?;
                for v in s.values {
                    writeln!(out, "      {:<22} {}", v.name, v.meaning)?;
                }
            }
        }
        SimpleFormat::Json => {
            let profiles: Vec<serde_json::Value> = NAMED_PROFILES
                .iter()
                .map(|p| {
                    let switches: Vec<serde_json::Value> = switches_of(p.name)
                        .iter()
                        .filter_map(|kv| kv.split_once('='))
                        .map(|(k, v)| serde_json::json!({k.to_string(): v}))
                        .collect();
                    serde_json::json!({"name": p.name, "about": p.about, "switches": switches})
                })
                .collect();
            let switches: Vec<serde_json::Value> = profile::switches()
                .map(|s| {
                    let values: Vec<serde_json::Value> = s
                        .values
                        .iter()
                        .map(|v| serde_json::json!({"value": v.name, "means": v.meaning}))
                        .collect();
                    serde_json::json!({"name": s.name, "source": s.source, "values": values})
                })
                .collect();
            out.json(&serde_json::json!({"profiles": profiles, "switches": switches}))?;
        }
    }
    Ok(Exit::Held)
}

/// The switches a named profile sets differently from `spec`, as `name=value`.
fn switches_of(name: &str) -> Vec<String> {
    Profile::named(name)
        .map(|p| p.differences_from_spec())
        .unwrap_or_default()
}
