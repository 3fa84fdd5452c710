//! Asking a server (`tg serve`) what changed in an indexed tree, so that
//! the freshness sweep stats only that ([`Changes::Watched`]).

use std::path::Path;

use crate::index::fresh::changes::Changes;
use crate::serve::client::{Client, NoServer};
use crate::serve::rendezvous;

/// A server's answer, or why there was none.
pub struct Answer {
    /// What the sweep must stat.
    pub changes: Changes,
    /// The server's pid, or why no server told (for `--stats`).
    pub from: Result<u32, String>,
    /// The identity of the index table the server's account is about.
    pub table: Option<u64>,
    /// No server ran, and the index asks for one on demand.
    pub start_one: bool,
}

/// Asks the server of the index in `index_dir`; with none, or one that
/// cannot vouch, every entry may have changed.
pub fn ask(index_dir: &Path) -> Answer {
    let answer = Client::connect(index_dir).and_then(|mut c| Ok((c.sync()?, c.record.pid)));
    match answer {
        Ok(((touched, table), pid)) => Answer {
            changes: Changes::Watched(touched),
            from: Ok(pid),
            table: Some(table),
            start_one: false,
        },
        Err(why) => Answer {
            start_one: matches!(why, NoServer::Absent) && rendezvous::auto_start(index_dir),
            changes: Changes::Unknown,
            from: Err(why.to_string()),
            table: None,
        },
    }
}

impl Answer {
    /// The answer for a query that opened the index with table `table_id`:
    /// a server's account of another index (one published since, by the
    /// server's rebuild or by `tg index`) is not used.
    pub fn for_table(self, table_id: u64) -> Answer {
        match self.table {
            Some(t) if t != table_id => Answer {
                changes: Changes::Unknown,
                from: Err("the server tracks another build of the index".into()),
                ..self
            },
            _ => self,
        }
    }
}
