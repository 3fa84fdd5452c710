//! Wrong answers found by session 16's randomized differential hunt (random
//! trees, flags and patterns; tg's scan, tree index and server against the
//! pinned rg), each reduced to its smallest case and kept here.

mod util;

use util::{Case, Report, Tree};

/// A walked file whose first line ends within its first three bytes and
/// that holds a NUL further on: rg reads walked files through a
/// byte-order-mark sniffer whose first read returns those three bytes, so
/// that line is searched (and printed, with the "stopped searching binary
/// file after match" warning) before the NUL is seen. tg searched such a
/// small file as a slice, whose binary check came first: no line, exit 1.
#[test]
fn a_short_first_line_before_a_nul_is_searched_as_rg_reads_it() {
    let t = Tree::new("hunt_short_first_line");
    t.write("repo/a.txt", "a\nb\0\n");
    t.write("repo/b.txt", "\nhay\n\0\n");
    t.write("repo/c.txt", "xy\na\0\n");
    let mut r = Report::new("hunt_short_first_line");
    for args in [&["-n", "a"][..], &["-n", "^"], &["-c", "^$"], &["-l", "a"], &["--json", "a"]] {
        r.check(&t, &Case::new(args.join(" "), args).cwd("repo"));
    }
    util::tg_index(&t, "repo");
    for args in [&["-n", "a"][..], &["--count-matches", "^"]] {
        r.check(&t, &Case::new(format!("indexed/{}", args.join(" ")), args).cwd("repo"));
    }
    r.finish();
}

/// A pattern that can match only a NUL while binary detection is on: rg's
/// error ends with its hint about `--text` (tg printed the first line only).
#[test]
fn a_nul_pattern_error_carries_rgs_text_hint() {
    let t = Tree::new("hunt_nul_hint");
    t.write("a.txt", "a\n");
    let mut r = Report::new("hunt_nul_hint");
    r.check(&t, &Case::new("nul", [r"\x00", "a.txt"]).stderr_exact());
    r.check(&t, &Case::new("nul walked", [r"a\x00?b\x00"]).stderr_exact());
    r.check(&t, &Case::new("nul -a", ["-a", r"\x00", "a.txt"]).stderr_exact());
    r.finish();
}

/// `--passthru` prints every line of every file searched, matched or not,
/// so an index may rule no file out: tg printed only the candidates' lines
/// through a tree index and a server (files without the pattern's trigrams
/// vanished from the output).
#[test]
fn passthru_prints_every_file_through_an_index_and_a_server() {
    let t = Tree::new("hunt_passthru");
    t.write("repo/a.txt", "one\ntwo\n");
    t.write("repo/b.txt", "three\nzzz\n");
    t.write("repo/sub/c.txt", "four\n");
    util::tg_index(&t, "repo");
    let cases = |label: &str| {
        [
            &["--passthru", "zzz"][..],
            &["--passthru", "qqq"],
            &["--passthru", "-n", "zzz", "sub"],
            &["--json", "--passthru", "zzz"],
        ]
        .map(|args| Case::new(format!("{label}/{}", args.join(" ")), args).cwd("repo"))
    };
    let mut r = Report::new("hunt_passthru");
    r.check_all(&t, &cases("indexed"));
    let served = util::serve::Served::start(&t, &[]);
    r.check_all(&t, &cases("served"));
    drop(served);
    r.finish();
}

/// A link in the tree that closes a loop (`sub/up -> ..`) is recorded as a
/// directory that changed; the server's reconcile at its start watched
/// "the new directories below it" by walking from the link, which reached
/// the root's and `sub`'s inodes again: their watches were renamed
/// `sub/up` and `sub/up/sub`, so a file renamed in `sub` while served was
/// still listed (`tg: sub/a.txt: No such file or directory`, exit 2) and
/// its new name never searched.
#[test]
fn a_server_keeps_its_watches_beside_a_link_that_closes_a_loop() {
    let t = Tree::new("hunt_loop_watch");
    t.write("repo/sub/a.txt", "foo\n");
    t.write("repo/top.txt", "foo top\n");
    t.symlink("..", "repo/sub/up");
    util::tg_index(&t, "repo");
    let served = util::serve::Served::start(&t, &[]);
    let mut r = Report::new("hunt_loop_watch");
    r.check(&t, &Case::new("served/before", ["foo"]).cwd("repo"));
    std::fs::rename(t.path("repo/sub/a.txt"), t.path("repo/sub/b.txt")).unwrap();
    t.write("repo/sub/c.txt", "foo c\n");
    r.check(&t, &Case::new("served/renamed", ["foo"]).cwd("repo"));
    r.check(&t, &Case::new("served/renamed in sub", ["-n", "foo", "sub"]).cwd("repo"));
    drop(served);
    r.finish();
}

/// A walked packed file holding a NUL is read as rg reads the original: in
/// 64 KiB buffers, the one holding the NUL not searched. tg's reader of the
/// frames returned one 4 KiB frame a read, so binary detection struck later
/// and tg printed the matches between rg's last buffer and the NUL
/// (115 lines where rg printed 89).
#[test]
fn a_walked_packed_file_with_a_nul_stops_where_rg_stops() {
    let t = Tree::new("hunt_packed_nul");
    let mut text: Vec<u8> =
        (0..6_000).flat_map(|i| format!("line {i} needle\n").into_bytes()).collect();
    text.splice(100_000..100_000, *b"\0");
    t.write("o/big.log", &text);
    t.write("p/big.log", &text);
    pack(&t, "p");
    for args in [&["-n", "needle"][..], &["-c", "needle"], &["-b", "--no-mmap", "line 1"]] {
        same_as_rg(&t, ("o", args), ("p", args), ("big.log", "big.log.zst"));
    }
}

/// `-P --stop-on-nonmatch -v`: rg's PCRE2 search reads one line at a time
/// and stops at the first line it does not select after one it did; tg
/// found PCRE2's candidate lines in whole buffers, where the searcher's
/// inverted fast path passes over a matching line without stopping (rg's
/// default engine does that too, and tg matches it there).
#[test]
fn pcre2_stop_on_nonmatch_inverted_stops_as_rg_does() {
    let t = Tree::new("hunt_pcre2_stop");
    t.write("a.txt", "a\nthe\nb\nthe\nc\n");
    let mut r = Report::new("hunt_pcre2_stop");
    for args in [
        &["-P", "--stop-on-nonmatch", "-v", "the", "a.txt"][..],
        &["-P", "--stop-on-nonmatch", "-v", "-c", "the", "a.txt"],
        &["-P", "--stop-on-nonmatch", "-v", "-n", "-F", "th", "a.txt"],
        &["-P", "--stop-on-nonmatch", "the", "a.txt"],
    ] {
        r.check(&t, &Case::new(args.join(" "), args).pcre2());
    }
    r.check(&t, &Case::new("default engine", ["--stop-on-nonmatch", "-v", "the", "a.txt"]));
    r.finish();
}

/// rg reads a walked file in buffers: the byte-order-mark sniff's first
/// read returns three bytes, so a first line ending within them is a
/// buffer of its own, and a last line without a line end is searched as
/// one at the end. A pattern anchored at the haystack's start (`\A`,
/// `(?-m)^`) shows a match where each buffer starts when the printer looks
/// for positions (`--vimgrep`, `-o`, `--json`). tg searched a small file
/// as one slice.
#[test]
fn a_walked_file_shows_rgs_buffer_starts_to_a_haystack_anchor() {
    let t = Tree::new("hunt_short_first_buffer");
    t.write("repo/f.txt", "a\nbc\nd\n");
    t.write("repo/g.txt", "\nxy\nz\n");
    t.write("repo/h.txt", "abcd\nbc\n");
    t.write("repo/i.txt", "abcd\nbc\nlast");
    let mut r = Report::new("hunt_short_first_buffer");
    for mode in ["--vimgrep", "-o", "--json", "-n"] {
        for pat in [r"\A", r"(?-m)^b", r"\Ax|d"] {
            r.check(&t, &Case::new(format!("{mode} {pat}"), [mode, pat]).cwd("repo"));
        }
    }
    r.finish();
}

/// `tg` run as `tg` says (a directory of `t` and the arguments) against
/// `rg` run as `rg` says: the same stdout (tg's `names.1` read as rg's
/// `names.0`) and exit code.
fn same_as_rg(t: &Tree, rg: (&str, &[&str]), tg: (&str, &[&str]), names: (&str, &str)) {
    let want = util::run(&util::rg_bin(), &t.path(rg.0), &Case::new("rg", rg.1));
    let got = util::run(&util::tg_bin(), &t.path(tg.0), &Case::new("tg", tg.1));
    let norm = |b: &[u8]| String::from_utf8_lossy(&util::normalize_stdout(b)).into_owned();
    let got_out = norm(&got.stdout).replace(names.1, names.0);
    let want_out = norm(&want.stdout);
    assert!(
        want_out == got_out && want.code == got.code,
        "tg {:?}: exit {:?} vs rg {:?}\n{}",
        tg.1,
        got.code,
        want.code,
        util::diff::render(want_out.as_bytes(), got_out.as_bytes(), "  ")
    );
}

/// Packs `dir/big.log` of `t` (4 KiB frames) into `big.log.zst` and
/// removes the original.
fn pack(t: &Tree, dir: &str) {
    let packed = util::tg_command(t, t.path(dir))
        .args(["pack", "-q", "--frame-size", "4K", "big.log"])
        .output()
        .unwrap();
    assert!(packed.status.success(), "{}", String::from_utf8_lossy(&packed.stderr));
    std::fs::remove_file(t.path(dir).join("big.log")).unwrap();
}

/// A huge file cut into chunks: each chunk is a haystack of its own, so a
/// pattern anchored at the haystack's start showed a match at every
/// chunk's first line (`--vimgrep` printed a column there, `-o` an empty
/// match) where rg, reading the file whole, shows none; such a pattern
/// now searches the file whole.
#[test]
fn a_haystack_start_anchor_is_not_seen_at_chunk_starts() {
    let t = Tree::new("hunt_chunk_anchor");
    let text: String = (0..8_000).map(|i| format!("Jan {i} web{}\n", i % 7)).collect();
    t.write("a/big.log", &text);
    let huge = ["--chunk-threshold", "1", "--chunk-size", "16K", "-j", "4"];
    for args in [
        &["--vimgrep", r"\AJan", "big.log"][..],
        &["-o", r"\A", "big.log"],
        &["--json", r"(?-m)^J|web3", "big.log"],
        &["--vimgrep", r"\AJan"],
        &["-b", "-o", r"x|\A"],
    ] {
        same_as_rg(&t, ("a", args), ("a", &[&huge[..], args].concat()), ("", ""));
    }
}

/// A packed file named on the command line is read as rg reads the
/// original, from a map: one haystack. tg streamed its frames in 64 KiB
/// buffers, and a pattern anchored at the haystack's start showed a match
/// where each buffer started (`--vimgrep`, `-o`).
#[test]
fn a_named_packed_file_is_one_haystack_as_rg_maps_the_original() {
    let t = Tree::new("hunt_packed_anchor");
    let text: String = (0..8_000).map(|i| format!("Jan {i} web{}\n", i % 7)).collect();
    t.write("o/big.log", &text);
    t.write("p/big.log", &text);
    pack(&t, "p");
    for args in [&["--vimgrep", r"\AJan"][..], &["-o", r"\A"], &["-z", "-o", r"\A|web3"]] {
        let rg_args = [args, &["big.log"]].concat();
        let tg_args = [args, &["big.log.zst"]].concat();
        same_as_rg(&t, ("o", &rg_args), ("p", &tg_args), ("big.log", "big.log.zst"));
    }
}

/// `-l --stats` and `--files-without-match --stats` count every match of a
/// file (rg's summary printer searches on when it keeps statistics); a
/// huge file searched in chunks stopped at the first chunk with a match
/// (35 matches where rg counted 400), through a block index too.
#[test]
fn listings_with_stats_count_every_chunk() {
    let t = Tree::new("hunt_list_stats");
    let text: String = (0..20_000)
        .map(|i| if i % 50 == 0 { format!("line {i} Kelvin\n") } else { format!("line {i}\n") })
        .collect();
    t.write("a/big.log", &text);
    let huge = ["--chunk-threshold", "1", "--chunk-size", "16K", "-j", "4"];
    for args in [
        &["-l", "--stats", "Kelvin", "big.log"][..],
        &["--files-without-match", "--stats", "Kelvin", "big.log"],
        &["-l", "--stats", "Kelvin"],
    ] {
        same_as_rg(&t, ("a", args), ("a", &[&huge[..], args].concat()), ("", ""));
    }
}

/// PCRE2's candidate lines are found by a rewrite of the pattern where a
/// class the default engine does not share (`\pL`) is any character, so
/// `\pL+` reads `(?s:.)+`: the leftmost-first search for each candidate
/// ran greedily to the end of the buffer, quadratic in the file (a 64 KiB
/// file took 19 s, debug build; 0.4 s in release, 1.4 s at twice the size).
/// Past the harness's 30 s timeout here.
#[test]
fn pcre2_candidate_lines_do_not_run_to_the_end_of_the_buffer() {
    let t = Tree::new("hunt_pcre2_quadratic");
    let text: String = (0..40_000).map(|i| format!("line {i} w{}\n", i % 9)).collect();
    t.write("big.log", &text);
    let mut r = Report::new("hunt_pcre2_quadratic");
    for args in [&["-P", "-c", r"\pL+", "big.log"][..], &["-P", "-n", r"w3\pL*$", "big.log"]] {
        r.check(&t, &Case::new(args.join(" "), args).pcre2());
    }
    r.finish();
}

/// An ignore file made, after the build, in a directory above the search
/// path (`.ignore` at the root, `tg PAT sub`) changes what the walk
/// finds below it; the sweep judged only the entries below the search
/// path (and the ignore files it knew), so the new rule was not applied.
#[test]
fn an_ignore_file_made_above_the_search_path_is_seen() {
    let t = Tree::new("hunt_ignore_above");
    t.write("repo/a.txt", "foo\n");
    t.write("repo/sub/h.rs", "foo\n");
    t.write("repo/sub/deep/i.rs", "foo\n");
    t.write("repo/sub/deep/j.txt", "foo\n");
    util::tg_index(&t, "repo");
    t.write("repo/.ignore", "*.rs\n");
    t.write("repo/sub/.rgignore", "*.txt\n");
    let cases = |label: &str| {
        [&["foo", "sub"][..], &["foo", "sub/deep"], &["-l", "foo", "./sub/deep"], &["foo"]]
            .map(|args| Case::new(format!("{label}/{}", args.join(" ")), args).cwd("repo"))
    };
    let mut r = Report::new("hunt_ignore_above");
    r.check_all(&t, &cases("indexed"));
    let served = util::serve::Served::start(&t, &[]);
    r.check_all(&t, &cases("served"));
    std::fs::remove_file(t.path("repo/.ignore")).unwrap();
    t.write("repo/sub/deep/.ignore", "j.txt\n");
    r.check_all(&t, &cases("served again"));
    drop(served);
    r.finish();
}

/// `-P -m N`: rg's PCRE2 search goes line by line, and reaching the limit
/// at the last line of a read buffer reads the next buffer before it
/// stops (where a NUL then shows: the binary warning, JSON's
/// `binary_offset`); tg's candidate lines took the searcher's fast path,
/// which stops at once.
#[test]
fn pcre2_max_count_reads_on_as_rg_does() {
    let t = Tree::new("hunt_pcre2_max_count");
    t.write("repo/a.txt", "\nabc\nx\0y\n");
    let mut r = Report::new("hunt_pcre2_max_count");
    for args in [
        &["-P", "-v", "-m", "1", "zzz"][..],
        &["-P", "-m", "1", "^"],
        &["-P", "-m1", "--json", "^"],
    ] {
        r.check(&t, &Case::new(args.join(" "), args).cwd("repo").pcre2());
    }
    r.finish();
}

/// `-P -v -l` (and `-q`): rg's PCRE2 search goes line by line and stops at
/// the first selected line; the searcher's inverted fast path, which tg's
/// PCRE2 candidate lines took, passes over the printer's request to stop
/// and reads on to the NUL, and the listing of a binary file is dropped
/// (rg's default engine does the same, and tg matches it there).
#[test]
fn pcre2_inverted_listing_stops_at_the_first_line_as_rg_does() {
    let t = Tree::new("hunt_pcre2_inverted_list");
    t.write("repo/g.txt", "ab\n\nzz\0x\n");
    let mut r = Report::new("hunt_pcre2_inverted_list");
    for args in [&["-P", "-l", "-v", "4567"][..], &["-P", "-q", "-v", "4567"]] {
        r.check(&t, &Case::new(args.join(" "), args).cwd("repo").pcre2());
    }
    r.check(&t, &Case::new("default engine", ["-l", "-v", "4567"]).cwd("repo"));
    r.finish();
}
