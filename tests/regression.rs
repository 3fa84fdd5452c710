//! Regression tests, one per reported issue, named `issue_NNNN_<summary>`.
//!
//! Each test builds its own fixture inline, runs `tg` and rg through the
//! differential harness and fails with a diff. A known difference that is
//! not fixed yet is asserted as today's behaviour with a FIXME (never
//! `#[ignore]` or `#[should_panic]`).

mod util;

use util::{Case, Report, Tree};

/// Template: an empty file with `-c` prints nothing and exits 1, like rg.
#[test]
fn issue_0000_example_count_on_empty_file() {
    let t = Tree::new("issue_0000");
    t.write("empty.txt", "");
    t.write("one.txt", "needle\n");
    let mut r = Report::new("issue_0000");
    r.check(&t, &Case::new("count_empty", ["-c", "needle", "empty.txt"]));
    r.check(&t, &Case::new("count_walk", ["-c", "needle"]));
    r.finish();
}
