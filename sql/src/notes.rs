//! What a query says on standard error besides its rows and its error,
//! once, after its results: the files whose lines stop at binary data (a
//! NUL byte), which a table reads as `rg` reads a binary file it walks,
//! so that a file read so is never silently a few rows or none.
//!
//! A session holds one [`Notes`] (an extension of its `SessionConfig`:
//! [`Notes::of`]); the scans of its queries add to it, and `tg-sql`
//! prints [`Notes::take`] after the results, to its own standard error
//! or to the client a warm server answers. A Ballista executor has no
//! client's session: it logs the note instead.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use datafusion::prelude::SessionContext;

/// How many binary files a note names before it counts the rest.
const NAMED: usize = 5;

/// What the queries of one session have to say.
#[derive(Debug, Default)]
pub struct Notes {
    /// Each binary file's shown path and the offset of its first NUL.
    binary: Mutex<BTreeMap<String, u64>>,
}

impl Notes {
    /// The notes of the session `ctx` (none when it was not made by
    /// [`crate::session::context`]).
    pub fn of(ctx: &SessionContext) -> Option<Arc<Notes>> {
        ctx.copied_config().get_extension::<Notes>()
    }

    /// Notes that the file shown as `path` holds binary data at byte
    /// `offset`, where its lines stop.
    pub fn binary(&self, path: &str, offset: u64) {
        let mut binary = self.binary.lock().unwrap_or_else(|e| e.into_inner());
        binary.entry(path.to_string()).or_insert(offset);
    }

    /// The line saying that one file, shown as `path`, is binary from
    /// byte `offset` (as an executor logs it).
    pub fn binary_line(path: &str, offset: u64) -> String {
        format!(
            "tg: sql: warning: {path} is binary (a NUL byte at offset {offset}): \
             its lines stop there, as rg reads a binary file"
        )
    }

    /// The lines to print, emptying the notes: one line for the binary
    /// files, if any.
    pub fn take(&self) -> Vec<String> {
        let binary = std::mem::take(&mut *self.binary.lock().unwrap_or_else(|e| e.into_inner()));
        let mut named = binary.iter().map(|(p, at)| format!("{p} (offset {at})"));
        match binary.len() {
            0 => Vec::new(),
            1 => {
                let (path, at) = binary.iter().next().expect("one file");
                vec![Notes::binary_line(path, *at)]
            }
            n => {
                let mut list: Vec<String> = named.by_ref().take(NAMED).collect();
                if n > NAMED {
                    list.push(format!("and {} more", n - NAMED));
                }
                vec![format!(
                    "tg: sql: warning: {n} files are binary (a NUL byte): their lines stop \
                     at it, as rg reads a binary file: {}",
                    list.join(", ")
                )]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_files_are_said_once_in_one_line() {
        let notes = Notes::default();
        assert!(notes.take().is_empty());
        notes.binary("a.gz", 10);
        notes.binary("a.gz", 99);
        assert_eq!(
            notes.take(),
            ["tg: sql: warning: a.gz is binary (a NUL byte at offset 10): its lines stop \
              there, as rg reads a binary file"]
        );
        assert!(notes.take().is_empty(), "taken once");
        for i in 0..7 {
            notes.binary(&format!("f{i}"), i);
        }
        let lines = notes.take();
        assert_eq!(lines.len(), 1);
        assert!(lines[0].starts_with("tg: sql: warning: 7 files are binary"), "{}", lines[0]);
        assert!(lines[0].ends_with("f0 (offset 0), f1 (offset 1), f2 (offset 2), f3 (offset 3), f4 (offset 4), and 2 more"), "{}", lines[0]);
    }
}
