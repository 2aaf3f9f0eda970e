//! Text in and out, within bounds: reading a text file as every reader of the tool reads one
//! ([`file`]: a regular file, of bounded size, UTF-8, with or without a byte order mark, CRLF or
//! LF), and writing text where it cannot be turned against its reader ([`escape`]: JavaScript
//! comments and strings, shell commands, terminals, Markdown, long values). [`js_string`] is how
//! a JavaScript string, lone surrogates included, is held in a Rust string.
//!
//! It names no other part of the engine: every layer may use it.

pub mod escape;
pub mod file;
pub mod js_string;
