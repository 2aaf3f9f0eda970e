//! `webmcp-ref`: run WPT-style scenarios against the WebMCP reference engine (see `cli` for the
//! commands).

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
