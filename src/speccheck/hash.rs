//! The 64-bit hash of a step's normalized text.
//!
//! FNV-1a is used because it is tiny, has no dependency, and is stable across
//! platforms and Rust versions: a digest written today must compare equal to one
//! computed by a later build. It is not a cryptographic hash; it only has to make
//! accidental collisions between two wordings of one step unlikely.

use std::fmt;

const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// The FNV-1a 64 hash of `bytes`.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(FNV_OFFSET_BASIS, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(FNV_PRIME)
    })
}

/// A hash of normalized step text, shown as 16 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct TextHash(pub u64);

impl TextHash {
    /// Hashes already-normalized text (see [`super::normalize`]).
    pub fn of(normalized: &str) -> TextHash {
        TextHash(fnv1a64(normalized.as_bytes()))
    }

    /// Reads the digest form: exactly 16 lowercase hex digits, so that one hash
    /// has one spelling and digests diff cleanly.
    pub fn from_hex(text: &str) -> Option<TextHash> {
        let well_formed = text.len() == 16
            && text
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if !well_formed {
            return None;
        }
        u64::from_str_radix(text, 16).ok().map(TextHash)
    }
}

impl fmt::Display for TextHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_vectors() {
        // Published FNV-1a 64 test vectors.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn hex_round_trip() {
        let h = TextHash::of("hello");
        assert_eq!(TextHash::from_hex(&h.to_string()), Some(h));
        assert_eq!(TextHash::from_hex("ABCDEF0123456789"), None);
        assert_eq!(TextHash::from_hex("abc"), None);
    }
}
