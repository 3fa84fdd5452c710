//! One call for freshness: which files of a tree must be read for a plan,
//! and which of them are known to hold no match ([`files_to_read`]).
//!
//! Inside it, in this order: the plan's query is planned and the index
//! covering the walk located; a server of that index (`tg serve`) is
//! asked to list the files; else the index is opened and its candidates
//! found, and the server's account of what changed since the build (or,
//! without one, "anything may have") lets the sweep of the file table stat
//! only that; when the table cannot stand in for the walk, the walk is
//! pruned by the index; without a usable index, every walked file is read.
//! The answer ([`TreeFiles`]) says which of these happened; the caller
//! reads the files, or walks, and reports what the index did from it.

use std::path::PathBuf;

use super::served;
use crate::index::fresh::changes::Changes;
use crate::index::fresh::sweep::Swept;
use crate::index::fresh::{IndexFilter, IndexReport, Rules};
use crate::query::Query;
use crate::query::search_plan::{Plans, Unused};
use crate::report::Messages;

/// What the files are read for: the trigram query that rules files out.
#[derive(Clone, Copy)]
pub enum Plan<'a> {
    /// A search's patterns, planned once for every index it reads.
    Search(&'a Plans<'a>),
    /// A caller's own query, for an index whose documents hold their edges
    /// or not (the SQL crate's conditions on lines); every file is read
    /// when it is [`Query::All`].
    Own(&'a dyn Fn(bool) -> Query),
    /// A listing of the files a walk yields (`--files`): every one of them.
    Listing,
}

/// The files of a tree to read, and what the index did.
pub struct TreeFiles {
    /// The files to read in the walk's order, listed by a server or from
    /// the index's file table, and whether a walk would have found any
    /// file; `None`: the walk yields them, each asked of the index when
    /// one opened ([`IndexFilter::should_search`]).
    pub listed: Option<(Vec<Swept>, bool)>,
    /// The index that answered, or why none did.
    pub index: Result<TreeIndex, Unused>,
    /// The root of a tree whose index asks for a server on demand (`tg
    /// index --serve`) and none ran: the caller may start one.
    pub serve_wanted: Option<PathBuf>,
}

/// The index that answered for a tree.
pub enum TreeIndex {
    /// Its server listed the files, and said what the index did (this
    /// process never opened it).
    Served(IndexReport),
    /// It was opened here.
    Opened(Box<IndexFilter>),
}

impl TreeIndex {
    /// The index opened here, if it was.
    pub fn opened(&self) -> Option<&IndexFilter> {
        match self {
            TreeIndex::Served(_) => None,
            TreeIndex::Opened(index) => Some(index),
        }
    }

    /// What the index did (an opened index's counters so far: ask once the
    /// files were read).
    pub fn report(&self) -> IndexReport {
        match self {
            TreeIndex::Served(report) => report.clone(),
            TreeIndex::Opened(index) => index.report(),
        }
    }
}

impl TreeFiles {
    /// Every walked file, for the reason `why` (the caller knew before
    /// asking that no index can serve it).
    pub fn walk(why: Unused) -> TreeFiles {
        TreeFiles { listed: None, index: Err(why), serve_wanted: None }
    }
}

/// Which files of the walk of `rules` must be read for `plan` (see the
/// module docs); a server is asked when `ask_server`. Warnings (an
/// unusable index) and per-file errors of a listing go to `msgs`.
pub fn files_to_read(
    rules: &Rules<'_>,
    plan: Plan<'_>,
    msgs: &Messages,
    ask_server: bool,
) -> TreeFiles {
    let query = |edges: bool| match plan {
        Plan::Search(plans) => plans.query(edges).clone(),
        Plan::Own(query) => query(edges),
        Plan::Listing => Query::All,
    };
    let located = match plan {
        Plan::Search(plans) => IndexFilter::locate(rules, plans),
        Plan::Own(query) => IndexFilter::locate_planned(rules, query),
        Plan::Listing => IndexFilter::locate_listing(rules),
    };
    let found = match located {
        Ok(found) => found,
        Err(why) => return TreeFiles::walk(why),
    };
    // Asked before the index is opened: what a server says holds for the
    // index published when it answered, or any later one.
    let told = match ask_server {
        true => match served::list(rules, msgs, &found) {
            Ok((files, any_file, report)) => {
                let (listed, index) = (Some((files, any_file)), Ok(TreeIndex::Served(report)));
                return TreeFiles { listed, index, serve_wanted: None };
            }
            Err(answer) => Some(answer),
        },
        false => None,
    };
    let mut index = match IndexFilter::open_planned(rules, &query, msgs, found) {
        Ok(index) => index,
        Err(why) => return TreeFiles::walk(why),
    };
    let (changes, serve_wanted) = match told {
        Some(answer) => {
            let answer = answer.for_table(index.table_id());
            index.set_served(answer.from.clone());
            (answer.changes, answer.start_one.then(|| index.root().to_path_buf()))
        }
        None => (Changes::Unknown, None),
    };
    let listed = index.sweep(rules, msgs, &changes);
    TreeFiles { listed, index: Ok(TreeIndex::Opened(Box::new(index))), serve_wanted }
}
