//! The path style an index was built with, kept in the footer's feature
//! field: bits 16 and up hold [`crate::sys::PATH_STYLE`] (0 on Unix, so a
//! Unix index's field is its feature version alone, as before; 1 on
//! Windows). An index of another style is refused and rebuilt, never
//! misread: its paths are bytes of another system (docs/PLATFORMS.md).

use super::format::{FEATURE_VERSION, OLDEST_FEATURE_VERSION};

/// Where the path style starts in the feature field (the footer's writer,
/// [`super::format::FormatWriter`], puts it there).
const SHIFT: u32 = 16;

/// A feature field as (feature version, path style).
pub fn split(field: u32) -> (u32, u8) {
    (field & ((1 << SHIFT) - 1), (field >> SHIFT) as u8)
}

/// Whether an index whose feature field is `field` can be used by this
/// build: a feature version it reads, of this system's path style.
pub fn usable(field: u32) -> bool {
    let (version, style) = split(field);
    style == crate::sys::PATH_STYLE && (OLDEST_FEATURE_VERSION..=FEATURE_VERSION).contains(&version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_field_round_trips_and_a_unix_field_is_the_version() {
        let field = FEATURE_VERSION | (u32::from(crate::sys::PATH_STYLE) << SHIFT);
        assert_eq!(split(field), (FEATURE_VERSION, crate::sys::PATH_STYLE));
        assert_eq!(split(3), (3, 0));
        assert_eq!(split(3 | 1 << 16), (3, 1));
        assert!(usable(field));
        assert!(!usable(field ^ 1 << SHIFT), "another system's index");
    }
}
