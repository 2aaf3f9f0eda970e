//! Reading a text file the one way every reader of the tool does: only a regular file (a FIFO,
//! a device or a folder put in its place is refused, never waited on or read without end), no
//! larger than a limit, UTF-8 (a byte that is not is named by its line and column), a byte
//! order mark dropped, and CRLF line ends read as LF.

use std::io::Read as _;
use std::path::Path;

use thiserror::Error;

/// The most bytes a text file the tool reads may hold, unless its reader says otherwise.
pub const MAX_TEXT_BYTES: u64 = 16 << 20;

/// Why a text file could not be read.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ReadError {
    #[error("{path}: {reason}")]
    Io { path: String, reason: String },
    #[error("{path}: not a regular file ({kind}): {what} is read from a regular file")]
    NotAFile {
        path: String,
        kind: &'static str,
        what: &'static str,
    },
    #[error("{path}: {bytes} bytes: {what} is at most {max} bytes")]
    TooLarge {
        path: String,
        bytes: u64,
        max: u64,
        what: &'static str,
    },
    #[error("{path}:{line}:{column}: byte 0x{byte:02X} is not UTF-8: {what} is UTF-8 text")]
    NotUtf8 {
        path: String,
        line: usize,
        column: usize,
        byte: u8,
        what: &'static str,
    },
}

impl ReadError {
    /// The message without the file's name in front (for an error that names it itself).
    pub fn reason(&self) -> String {
        let message = self.to_string();
        let rest = message.strip_prefix(self.path()).unwrap_or(&message);
        rest.strip_prefix(": ")
            .or_else(|| rest.strip_prefix(':'))
            .unwrap_or(rest)
            .to_string()
    }

    /// The file the error is about.
    pub fn path(&self) -> &str {
        match self {
            ReadError::Io { path, .. }
            | ReadError::NotAFile { path, .. }
            | ReadError::TooLarge { path, .. }
            | ReadError::NotUtf8 { path, .. } => path,
        }
    }
}

/// What kind of thing a file that is not a regular file is, for messages.
pub fn kind_of(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if file_type.is_fifo() {
            return "a FIFO";
        } else if file_type.is_socket() {
            return "a socket";
        } else if file_type.is_char_device() || file_type.is_block_device() {
            return "a device";
        }
    }
    if file_type.is_dir() {
        "a folder"
    } else {
        "not a file"
    }
}

fn io_error(path: &Path, e: std::io::Error) -> ReadError {
    ReadError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    }
}

/// A regular file's bytes, opened without blocking (a FIFO put in its place is not waited on)
/// and read no further than `max` bytes. `what` names the file in messages ("a scenario file").
pub fn read_bytes(path: &Path, max: u64, what: &'static str) -> Result<Vec<u8>, ReadError> {
    let mut open = std::fs::OpenOptions::new();
    open.read(true);
    #[cfg(all(unix, feature = "native"))]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        open.custom_flags(libc::O_NONBLOCK);
    }
    let file = open.open(path).map_err(|e| io_error(path, e))?;
    let meta = file.metadata().map_err(|e| io_error(path, e))?;
    if !meta.is_file() {
        return Err(ReadError::NotAFile {
            path: path.display().to_string(),
            kind: kind_of(meta.file_type()),
            what,
        });
    }
    let too_large = |bytes: u64| ReadError::TooLarge {
        path: path.display().to_string(),
        bytes,
        max,
        what,
    };
    if meta.len() > max {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| io_error(path, e))?;
    if bytes.len() as u64 > max {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Where the first byte that is not UTF-8 is: (line, column, byte), both 1-based, the column
/// in characters.
pub fn first_bad_byte(bytes: &[u8]) -> Option<(usize, usize, u8)> {
    let e = std::str::from_utf8(bytes).err()?;
    let good = &bytes[..e.valid_up_to()];
    let line = good.iter().filter(|b| **b == b'\n').count() + 1;
    let line_start = good.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    // The good prefix is UTF-8: its characters on this line give the column.
    let column = std::str::from_utf8(&good[line_start..]).map_or(1, |s| s.chars().count() + 1);
    Some((line, column, bytes[e.valid_up_to()]))
}

/// A text file's bytes as text: UTF-8 with or without a byte order mark, CRLF read as LF.
pub fn decode(path: &str, bytes: &[u8], what: &'static str) -> Result<String, ReadError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) if text.contains("\r\n") => Ok(text.replace("\r\n", "\n")),
        Ok(text) => Ok(text.to_string()),
        Err(_) => {
            let (line, column, byte) = first_bad_byte(bytes).unwrap_or((1, 1, 0));
            Err(ReadError::NotUtf8 {
                path: path.to_string(),
                line,
                column,
                byte,
                what,
            })
        }
    }
}

/// A text file, read as [`read_bytes`] and [`decode`] read one.
pub fn read_text(path: &Path, max: u64, what: &'static str) -> Result<String, ReadError> {
    let bytes = read_bytes(path, max, what)?;
    decode(&path.display().to_string(), &bytes, what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_utf8_with_crlf_and_a_byte_order_mark_read_as_the_scenario_loader_reads_them() {
        assert_eq!(
            decode("f", b"\xEF\xBB\xBFa\r\nb\n", "a file").unwrap(),
            "a\nb\n"
        );
        let e = decode("f.bs", b"one\ntw\xC3\xA9\xFFo\n", "a Bikeshed source").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f.bs:2:4: byte 0xFF is not UTF-8: a Bikeshed source is UTF-8 text"
        );
    }

    #[test]
    fn what_is_not_a_regular_file_is_refused_and_not_read() {
        let e = read_text(Path::new("/dev/zero"), MAX_TEXT_BYTES, "a file").unwrap_err();
        assert!(
            matches!(
                e,
                ReadError::NotAFile {
                    kind: "a device",
                    ..
                }
            ),
            "{e}"
        );
        let e = read_text(Path::new("/"), MAX_TEXT_BYTES, "a file").unwrap_err();
        assert!(e.to_string().contains("a folder"), "{e}");
    }
}
