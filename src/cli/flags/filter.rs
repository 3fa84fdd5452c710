//! Filter options: which files a walk searches.

use std::path::PathBuf;

use trigrep::options::{BinaryMode, TypeChange};

use super::flag::{Flag, size, string, usize};
use crate::cli::args::LowArgs;

/// `--no-ignore` (and `--ignore`, its negation; `-u` once).
fn no_ignore(on: bool, a: &mut LowArgs) {
    a.no_ignore_dot = on;
    a.no_ignore_exclude = on;
    a.no_ignore_global = on;
    a.no_ignore_parent = on;
    a.no_ignore_vcs = on;
}

/// The filter options, in help order.
pub const FLAGS: &[Flag] = &[
    Flag::switch("binary", "Search binary files.", |v, a| {
        a.binary = if v.on() { BinaryMode::SearchAndSuppress } else { BinaryMode::Default };
        Ok(())
    })
    .negated("no-binary")
    .more(
        "Binary files met while walking are searched too (not only those named on the \
         command line), but binary matches are not printed.",
    ),
    Flag::switch("follow", "Follow symbolic links.", |v, a| {
        a.follow = v.on();
        Ok(())
    })
    .short('L')
    .negated("no-follow"),
    Flag::value("glob", "GLOB", "Include or exclude file paths.", |v, a| {
        a.globs.push(string(v.given())?);
        Ok(())
    })
    .short('g')
    .more("Gitignore-style globs; '!' excludes. May be given many times; later globs win."),
    Flag::switch(
        "glob-case-insensitive",
        "Process all glob patterns case insensitively.",
        |v, a| {
            a.glob_case_insensitive = v.on();
            Ok(())
        },
    )
    .negated("no-glob-case-insensitive"),
    Flag::switch("hidden", "Search hidden files and directories.", |v, a| {
        a.hidden = v.on();
        Ok(())
    })
    .short('.')
    .negated("no-hidden"),
    Flag::value("iglob", "GLOB", "Include/exclude paths case insensitively.", |v, a| {
        a.iglobs.push(string(v.given())?);
        Ok(())
    }),
    Flag::value("ignore-file", "PATH", "Specify additional ignore files.", |v, a| {
        a.ignore_file.push(PathBuf::from(v.given()));
        Ok(())
    })
    .more(
        "Gitignore-style rules that apply to every searched path, below the rules of \
         .gitignore, .ignore and .rgignore files. May be given many times.",
    ),
    Flag::switch(
        "ignore-file-case-insensitive",
        "Process ignore files case insensitively.",
        |v, a| {
            a.ignore_file_case_insensitive = v.on();
            Ok(())
        },
    )
    .negated("no-ignore-file-case-insensitive"),
    Flag::value("max-depth", "NUM", "Descend at most NUM directories.", |v, a| {
        a.max_depth = Some(usize(&v.given())?);
        Ok(())
    })
    .short('d')
    .aliases(&["maxdepth"]),
    Flag::value("max-filesize", "NUM+SUFFIX?", "Ignore files larger than NUM in size.", |v, a| {
        a.max_filesize = Some(size(&v.given())?);
        Ok(())
    })
    .more("A size in bytes, with an optional K, M or G suffix. Named files are searched anyway."),
    Flag::switch("no-ignore", "Don't use ignore files.", |v, a| {
        no_ignore(v.on(), a);
        Ok(())
    })
    .negated("ignore")
    .more("Implies --no-ignore-dot, -exclude, -global, -parent and -vcs (not -files)."),
    Flag::switch("no-ignore-dot", "Don't use .ignore or .rgignore files.", |v, a| {
        a.no_ignore_dot = v.on();
        Ok(())
    })
    .negated("ignore-dot"),
    Flag::switch("no-ignore-exclude", "Don't use local exclusion files.", |v, a| {
        a.no_ignore_exclude = v.on();
        Ok(())
    })
    .negated("ignore-exclude"),
    Flag::switch("no-ignore-files", "Don't use --ignore-file arguments.", |v, a| {
        a.no_ignore_files = v.on();
        Ok(())
    })
    .negated("ignore-files"),
    Flag::switch("no-ignore-global", "Don't use global ignore files.", |v, a| {
        a.no_ignore_global = v.on();
        Ok(())
    })
    .negated("ignore-global"),
    Flag::switch("no-ignore-parent", "Don't use ignore files in parent directories.", |v, a| {
        a.no_ignore_parent = v.on();
        Ok(())
    })
    .negated("ignore-parent"),
    Flag::switch("no-ignore-vcs", "Don't use ignore files from source control.", |v, a| {
        a.no_ignore_vcs = v.on();
        Ok(())
    })
    .negated("ignore-vcs"),
    Flag::switch("no-require-git", "Use .gitignore outside of git repositories.", |v, a| {
        a.no_require_git = v.on();
        Ok(())
    })
    .negated("require-git"),
    Flag::switch("one-file-system", "Skip directories on other file systems.", |v, a| {
        a.one_file_system = v.on();
        Ok(())
    })
    .negated("no-one-file-system"),
    Flag::value("type", "TYPE", "Only search files matching TYPE.", |v, a| {
        a.type_changes.push(TypeChange::Select(string(v.given())?));
        Ok(())
    })
    .short('t')
    .more("May be given many times. 'all' selects every known type; see --type-list."),
    Flag::value("type-not", "TYPE", "Do not search files matching TYPE.", |v, a| {
        a.type_changes.push(TypeChange::Negate(string(v.given())?));
        Ok(())
    })
    .short('T'),
    Flag::value("type-add", "TYPESPEC", "Add a new glob for a file type.", |v, a| {
        a.type_changes.push(TypeChange::Add(string(v.given())?));
        Ok(())
    })
    .more("'name:glob' adds a glob; 'name:include:a,b' includes other types' globs."),
    Flag::value("type-clear", "TYPE", "Clear globs for a file type.", |v, a| {
        a.type_changes.push(TypeChange::Clear(string(v.given())?));
        Ok(())
    })
    .more("Applies in order with --type-add, -t and -T."),
    Flag::switch("unrestricted", "Reduce the level of \"smart\" filtering.", |_, a| {
        a.unrestricted = a.unrestricted.saturating_add(1);
        anyhow::ensure!(a.unrestricted <= 3, "flag can only be repeated up to 3 times");
        match a.unrestricted {
            1 => no_ignore(true, a),
            2 => a.hidden = true,
            _ => a.binary = BinaryMode::SearchAndSuppress,
        }
        Ok(())
    })
    .short('u')
    .more("-u is --no-ignore, -uu adds --hidden, -uuu adds --binary."),
];
