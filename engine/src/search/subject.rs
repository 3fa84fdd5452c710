//! What a search reads, and the seam every way of finding it plugs into.
//!
//! A [`Subject`] is one thing to search: a walked entry, a file listed from
//! an index, stdin. A [`Source`] produces subjects, in output order on one
//! thread or spread over several; the drivers ([`super::sequential`],
//! [`super::parallel`]) search whatever a source yields with the same
//! worker and printer, so every source prints exactly what a scan prints.
//! Today's sources: a walk ([`super::walk::Walk`], optionally pruned by an
//! index) and a list made from an index's file table
//! ([`super::listed::Listed`]). A new way of finding subjects (a server's
//! overlay, the blocks of one huge file) is one more implementation.

use std::path::{Path, PathBuf};
#[cfg(feature = "remote")]
use std::sync::Arc;

use ignore::DirEntry;

#[cfg(feature = "remote")]
use crate::remote::object::RemoteObject;

use crate::error::Result;
use crate::options::SortBy;
use crate::report::Messages;

/// One thing to search, with the display rules applied to its path.
#[derive(Clone, Debug)]
pub struct Subject {
    path: PathBuf,
    explicit: bool,
    stdin: bool,
    dent: Option<DirEntry>,
    /// An index proved that nothing in it matches: it is reported without
    /// being read (for outputs that list such files).
    known_without_match: bool,
    /// A remote object: its bytes are fetched.
    #[cfg(feature = "remote")]
    remote: Option<Arc<RemoteObject>>,
}

impl Subject {
    /// Turns a walk result into a subject, reporting errors; `None` for
    /// directories and such. `strip` removes a leading `./` (no path given);
    /// `ignore_messages`: report ignore files that could not be parsed, as
    /// ripgrep does (not an error of the run).
    pub(crate) fn from_walk(
        result: std::result::Result<DirEntry, ignore::Error>,
        strip: bool,
        ignore_messages: bool,
        msgs: &Messages,
    ) -> Option<Subject> {
        let dent = match result {
            Ok(d) => d,
            Err(err) => {
                msgs.error(err);
                return None;
            }
        };
        if let Some(err) = dent.error().filter(|_| ignore_messages) {
            msgs.notice(err);
        }
        let stdin = dent.is_stdin();
        let explicit = stdin || (dent.depth() == 0 && !is_dir(&dent));
        if !explicit && !dent.file_type().is_some_and(|t| t.is_file()) {
            return None;
        }
        let p = dent.path();
        let path = if strip { p.strip_prefix("./").unwrap_or(p) } else { p }.to_path_buf();
        Some(Subject { dent: Some(dent), explicit, stdin, ..Subject::listed(path) })
    }

    /// A file found below a search path without walking (from an index's file table).
    pub fn listed(path: PathBuf) -> Subject {
        Subject {
            path,
            explicit: false,
            stdin: false,
            dent: None,
            known_without_match: false,
            #[cfg(feature = "remote")]
            remote: None,
        }
    }

    /// A remote object, printed as `name`; `explicit`: named by the search
    /// path itself.
    #[cfg(feature = "remote")]
    pub fn remote(name: String, object: RemoteObject, explicit: bool) -> Subject {
        let remote = Some(Arc::new(object));
        Subject { explicit, remote, ..Subject::listed(PathBuf::from(name)) }
    }

    /// The remote object this subject is, if it is one.
    #[cfg(feature = "remote")]
    pub fn remote_object(&self) -> Option<&RemoteObject> {
        self.remote.as_deref()
    }

    /// The same subject, marked as known to hold no match (an index said so).
    pub fn without_match(mut self) -> Subject {
        self.known_without_match = true;
        self
    }

    /// Whether an index proved that nothing in this subject matches.
    pub(crate) fn is_known_without_match(&self) -> bool {
        self.known_without_match
    }

    /// The path as printed.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether this is stdin.
    pub(crate) fn is_stdin(&self) -> bool {
        self.stdin
    }

    /// Named on the command line (binary files are then searched, not skipped).
    pub(crate) fn is_explicit(&self) -> bool {
        self.explicit
    }

    /// The walk entry this subject came from, if it was walked.
    pub(crate) fn dir_entry(&self) -> Option<&DirEntry> {
        self.dent.as_ref()
    }

    /// The same subject without its walk entry (for searching it later).
    pub fn detached(&self) -> Subject {
        Subject { dent: None, ..self.clone() }
    }

    /// The time `kind` of the file, for `--sort modified` and the like.
    pub fn time(&self, kind: SortBy) -> Option<std::time::SystemTime> {
        let md = self.path.metadata().ok()?;
        match kind {
            SortBy::Modified => md.modified().ok(),
            SortBy::Accessed => md.accessed().ok(),
            SortBy::Created => md.created().ok(),
            SortBy::Path => None,
        }
    }
}

fn is_dir(dent: &DirEntry) -> bool {
    match dent.file_type() {
        None => false,
        Some(t) if t.is_dir() => true,
        Some(_) => dent.path_is_symlink() && dent.path().is_dir(),
    }
}

/// A visitor of subjects: returns `false` to stop the search.
pub(crate) type Visit<'v> = dyn FnMut(&Subject) -> bool + Send + 'v;

/// Makes one visitor per searching thread (called on the calling thread,
/// before the searching threads start).
pub(crate) type MakeVisit<'v> = dyn FnMut() -> Box<Visit<'v>> + 'v;

/// Where the subjects of a search come from. Both methods return whether
/// any file was found at all, searched or not (a search that found none
/// says so, as ripgrep does).
pub trait Source: Sync {
    /// Calls `visit` with each subject in output order on this thread,
    /// until it returns `false`.
    fn visit(&self, visit: &mut Visit<'_>) -> Result<bool>;

    /// Searches on `threads` threads, each calling its own visitor from
    /// `make` with the subjects it takes, until one returns `false`.
    fn visit_parallel(&self, threads: usize, make: &mut MakeVisit<'_>) -> Result<bool>;
}
