//! Ignore files and repository markers made since the build in a
//! directory above a search path inside the tree (`.ignore` at the root,
//! `tg PAT sub`): they steer the walk below it, but the sweep judges only
//! the entries below the search paths, where a new one shows as a changed
//! directory. A watched name the table does not know, present now in such
//! a directory, means the search walks.

use std::path::Path;

use super::changes::lookup;
use crate::index::reader::IndexReader;
use crate::index::recorded::{WATCHED_NAMES, child_rel};

/// Whether a watched name unknown to `reader`'s table (of the tree at
/// `root`) is present in a directory strictly above one of `scopes`
/// (table paths; `b""`, the root, has none above it in the tree).
pub(crate) fn made_above(reader: &IndexReader, root: &Path, scopes: &[Vec<u8>]) -> bool {
    scopes.iter().any(|scope| {
        above(scope).any(|dir| {
            WATCHED_NAMES.iter().any(|name| {
                let rel = child_rel(dir, name.as_bytes());
                lookup(reader, &rel).is_none()
                    && root.join(crate::sys::rel_path(&rel)).symlink_metadata().is_ok()
            })
        })
    })
}

/// The directories strictly above `scope` in the tree, the root first.
fn above(scope: &[u8]) -> impl Iterator<Item = &[u8]> {
    let cuts = scope.iter().enumerate().filter(|(_, b)| **b == b'/').map(|(i, _)| i);
    let inner = std::iter::once(&scope[..0]).chain(cuts.map(move |i| &scope[..i]));
    inner.take(if scope.is_empty() { 0 } else { usize::MAX })
}

#[cfg(test)]
mod tests {
    use super::above;

    #[test]
    fn the_directories_above_a_scope() {
        let all = |s: &'static [u8]| above(s).collect::<Vec<_>>();
        assert_eq!(all(b""), Vec::<&[u8]>::new());
        assert_eq!(all(b"sub"), vec![&b""[..]]);
        assert_eq!(all(b"sub/deep/x"), vec![&b""[..], b"sub", b"sub/deep"]);
    }
}
