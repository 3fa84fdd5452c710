//! What a tree index records of the tree, shared by the build
//! ([`super::build`]) and the freshness check ([`super::fresh`]): table
//! paths, change stamps, and the names that steer a walk.

use super::table::RACY;

/// Names whose appearance, change or removal in a directory changes what a
/// walk yields: ignore files and repository markers.
pub const WATCHED_NAMES: &[&str] = &[".gitignore", ".ignore", ".rgignore", ".git", ".jj"];

/// Whether an entry named `name` is a repository's store (`.git`,
/// `.jj`), which the build's walk leaves out: a search whose walk would
/// enter one is not answered from the table (`fresh::view`).
pub(crate) fn is_store(name: &[u8]) -> bool {
    name == b".git" || name == b".jj"
}

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
    crate::sys::changed_ns(md)
}

/// How close to the build's look a change must be to be untrustworthy: file
/// times come from a coarse clock (one tick is up to 4 ms, and lags the
/// precise clock by up to a tick), so two changes within it can share a time.
pub const RACY_WINDOW_NS: i64 = 20_000_000;

/// `changed_ns` of `md` as recorded by the build, or [`RACY`] when the change
/// is too recent to be told apart from a later one.
pub(crate) fn recorded_change(md: &std::fs::Metadata) -> i64 {
    recorded_ns(changed_ns(md))
}

/// A change time `t` (nanoseconds) as recorded by the build, or [`RACY`]
/// when it is too recent to be told apart from a later one.
pub(crate) fn recorded_ns(t: i64) -> i64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(i64::MAX, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
    if now.saturating_sub(t) < RACY_WINDOW_NS { RACY } else { t }
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
