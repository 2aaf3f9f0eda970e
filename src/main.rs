//! `webmcp-ref`: run WPT-style scenarios against the WebMCP reference engine (see `cli` for the
//! commands).

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}

/// The explorer allocates and frees many small objects per state (footprints, summaries,
/// copies of the world); mimalloc does that faster than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
