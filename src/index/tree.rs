//! What a tree index records of the tree, shared by the build
//! ([`super::build`]) and the freshness check ([`super::fresh`]): table
//! paths, change stamps, and the names that steer a walk.

use std::os::unix::fs::MetadataExt;

/// Names whose appearance, change or removal in a directory changes what a
/// walk yields: ignore files and repository markers.
pub const WATCHED_NAMES: &[&str] = &[".gitignore", ".ignore", ".rgignore", ".git", ".jj"];

/// The table path of entry `name` in the directory whose table path is `dir`.
pub fn child_rel(dir: &[u8], name: &[u8]) -> Vec<u8> {
    let mut r = Vec::with_capacity(dir.len() + 1 + name.len());
    r.extend_from_slice(dir);
    if !r.is_empty() {
        r.push(b'/');
    }
    r.extend_from_slice(name);
    r
}

/// A path's status-change time (ctime) in nanoseconds since the epoch.
pub fn changed_ns(md: &std::fs::Metadata) -> i64 {
    md.ctime().saturating_mul(1_000_000_000).saturating_add(md.ctime_nsec())
}

/// Whether table path `rel` is `prefix` or below it (`prefix` empty: the root).
pub fn under(rel: &[u8], prefix: &[u8]) -> bool {
    prefix.is_empty()
        || (rel.starts_with(prefix) && (rel.len() == prefix.len() || rel[prefix.len()] == b'/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_paths_and_scopes() {
        assert_eq!(child_rel(b"", b"a"), b"a");
        assert_eq!(child_rel(b"a/b", b".gitignore"), b"a/b/.gitignore");
        assert!(under(b"a/b", b""));
        assert!(under(b"a/b", b"a"));
        assert!(under(b"a", b"a"));
        assert!(!under(b"ab/c", b"a"));
    }
}
