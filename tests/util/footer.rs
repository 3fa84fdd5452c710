//! An index file's footer, read and relabeled: a version changed with the
//! footer's CRC recomputed, so that only the version is wrong.

use trigrep::index::format::FOOTER_LEN;

/// Where the footer keeps the feature version.
pub const FEATURE: usize = 32;
/// Where the footer keeps the format version.
pub const FORMAT: usize = 40;

/// The footer's u32 at `field` ([`FEATURE`], [`FORMAT`]) of the index
/// file `bytes`.
pub fn read(bytes: &[u8], field: usize) -> u32 {
    let at = bytes.len() - FOOTER_LEN + field;
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

/// The index file `good` with the footer's u32 at `field` set to
/// `version` and the footer CRC (over its first 36 bytes) recomputed.
pub fn with_version(good: &[u8], field: usize, version: u32) -> Vec<u8> {
    let mut bad = good.to_vec();
    let footer = bad.len() - FOOTER_LEN;
    bad[footer + field..footer + field + 4].copy_from_slice(&version.to_le_bytes());
    let crc = crc32fast::hash(&bad[footer..footer + 36]);
    bad[footer + 36..footer + 40].copy_from_slice(&crc.to_le_bytes());
    bad
}
