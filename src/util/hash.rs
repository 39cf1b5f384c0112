//! A stable content hash (64-bit FNV-1a): the same bytes give the same key on every machine and
//! in every release, which `std`'s hashers do not promise. Keys caches, never security.

/// The hash state before any byte.
pub const START: u64 = 0xcbf2_9ce4_8422_2325;

/// `h` extended by `bytes`.
pub fn fnv(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// `h` extended by `s`, its length first, so that a sequence of strings hashes unambiguously.
pub fn fnv_str(h: u64, s: &str) -> u64 {
    fnv(fnv(h, &(s.len() as u64).to_le_bytes()), s.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values_and_unambiguous_sequences() {
        // The published FNV-1a 64 test vectors.
        assert_eq!(fnv(START, b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv(START, b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(fnv_str(fnv_str(START, "ab"), "c"), fnv_str(fnv_str(START, "a"), "bc"));
    }
}
