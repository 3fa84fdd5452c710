//! The paths a table reads, as its user gave them: each a file or a
//! directory, or a glob naming some (`*`, `?`, `[...]`, and `**` for any
//! depth of directories), expanded as a shell expands it: in sorted order,
//! `*` and `?` matching no leading dot. A path that exists is taken as it
//! is, whatever characters it holds.
//!
//! Each is resolved where the table is made ([`resolve`]): a relative
//! path against that process's working directory — the client's, or the
//! client's that a warm server answers — so that a Ballista scheduler and
//! its executors, whatever their own working directories, read the files
//! the user named. Rows still name each file as the user's path leads to
//! it ([`Root::shown`]), as `rg` prints it.

use std::path::{Path, PathBuf};

use datafusion::error::{DataFusionError, Result};
use serde::{Deserialize, Serialize};

use crate::remote;

/// A path a table reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Root {
    /// Where it is read: absolute.
    pub path: PathBuf,
    /// As the user gave it (`None`: as `path`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<PathBuf>,
}

impl Root {
    /// How rows name `found`, a file the walk of [`Root::path`] found,
    /// when not by `found` itself: as the walk of the path the user gave
    /// would have named it.
    pub fn shown(&self, found: &Path) -> Option<PathBuf> {
        let given = self.given.as_ref()?;
        let rest = found.strip_prefix(&self.path).ok()?;
        Some(if rest.as_os_str().is_empty() { given.clone() } else { given.join(rest) })
    }
}

/// `given` expanded ([`expand`]), each path made absolute against the
/// working directory of this process.
pub fn resolve(given: &[PathBuf]) -> Result<Vec<Root>> {
    expand(given)?
        .into_iter()
        .map(|p| {
            // A remote path is an address, the same wherever it is read.
            if p.is_absolute() || remote::is_remote(&p) {
                return Ok(Root { path: p, given: None });
            }
            let path = std::path::absolute(&p)
                .map_err(|e| DataFusionError::Plan(format!("{}: {e}", p.display())))?;
            Ok(Root { path, given: Some(p) })
        })
        .collect()
}

/// How a glob matches: a leading dot only by a dot, as in a shell.
const OPTIONS: glob::MatchOptions = glob::MatchOptions {
    case_sensitive: true,
    require_literal_separator: true,
    require_literal_leading_dot: true,
};

/// `given`, each glob replaced by the paths it matches (see the module
/// docs); an error for a glob that matches nothing or is not one.
pub fn expand(given: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::with_capacity(given.len());
    for path in given {
        // A remote glob is the store's to expand, when the scan lists it.
        let pattern = path
            .to_str()
            .filter(|_| !remote::is_remote(path))
            .filter(|s| s.contains(['*', '?', '[']));
        let Some(pattern) = pattern.filter(|_| path.symlink_metadata().is_err()) else {
            out.push(path.clone());
            continue;
        };
        let bad = |e: &dyn std::fmt::Display| DataFusionError::Plan(format!("{pattern}: {e}"));
        let before = out.len();
        for found in glob::glob_with(pattern, OPTIONS).map_err(|e| bad(&e))? {
            out.push(found.map_err(|e| bad(&e))?);
        }
        if out.len() == before {
            return Err(bad(&"no file or directory matches"));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_read_absolute_and_shown_as_given() {
        let cwd = std::env::current_dir().unwrap();
        let roots = resolve(&["/abs/x".into(), "rel/dir".into(), "./dot".into()]).unwrap();
        assert_eq!(roots[0], Root { path: "/abs/x".into(), given: None });
        assert_eq!(roots[1], Root { path: cwd.join("rel/dir"), given: Some("rel/dir".into()) });
        assert_eq!(roots[2].path, cwd.join("dot"));
        assert_eq!(roots[0].shown(Path::new("/abs/x/a")), None);
        assert_eq!(roots[1].shown(&cwd.join("rel/dir/a/b.log")), Some("rel/dir/a/b.log".into()));
        assert_eq!(roots[1].shown(&cwd.join("rel/dir")), Some("rel/dir".into()));
        assert_eq!(roots[2].shown(&cwd.join("dot/c")), Some("./dot/c".into()));
    }

    #[test]
    fn globs_expand_as_a_shell_expands_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for name in ["b.log", "a.log", ".hidden.log", "c.txt", "sub/d.log", "odd[1].log"] {
            std::fs::create_dir_all(root.join(name).parent().unwrap()).unwrap();
            std::fs::write(root.join(name), b"x\n").unwrap();
        }
        let at = |rel: &str| root.join(rel);
        let expand_one = |rel: &str| expand(&[at(rel)]);
        assert_eq!(expand_one("*.log").unwrap(), [at("a.log"), at("b.log"), at("odd[1].log")]);
        assert_eq!(
            expand_one("**/*.log").unwrap(),
            [at("a.log"), at("b.log"), at("odd[1].log"), at("sub/d.log")]
        );
        assert_eq!(expand_one("?.txt").unwrap(), [at("c.txt")]);
        // A path that exists is itself, brackets and all; others are kept
        // for the scan to report.
        assert_eq!(expand_one("odd[1].log").unwrap(), [at("odd[1].log")]);
        assert_eq!(expand_one("missing.log").unwrap(), [at("missing.log")]);
        let none = expand_one("*.gz").unwrap_err().to_string();
        assert!(none.ends_with("*.gz: no file or directory matches"), "{none}");
        assert!(expand_one("[.log").is_err());
        // Order and repeats are the user's.
        let both = expand(&[at("c.txt"), at("*.log")]).unwrap();
        assert_eq!(both, [at("c.txt"), at("a.log"), at("b.log"), at("odd[1].log")]);
    }
}
