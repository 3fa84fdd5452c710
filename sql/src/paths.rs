//! The paths a table reads, as its user gave them: each a file or a
//! directory, or a glob naming some (`*`, `?`, `[...]`, and `**` for any
//! depth of directories), expanded as a shell expands it: in sorted order,
//! `*` and `?` matching no leading dot. A path that exists is taken as it
//! is, whatever characters it holds.

use std::path::PathBuf;

use datafusion::error::{DataFusionError, Result};

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
        let pattern = path.to_str().filter(|s| s.contains(['*', '?', '[']));
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
