//! Deterministic fixture trees. Every generator writes the same bytes on
//! every run (no randomness, no timestamps in contents), so a mismatch seen
//! once can be reproduced with the printed command line.
//!
//! * [`corpus`] — a handful of small text files for the pattern × flag matrix.
//! * [`walk`] — a git repo and a plain directory exercising ignore rules,
//!   hidden files, binaries, encodings, symlinks, file types and depth.
//! * [`big`] — one 5 MB single-line file, kept apart so walks stay fast.

use super::Tree;

/// The main text file of the corpus. Matches of `foo` sit close together so
/// context windows overlap; it holds case variants, unicode, a Kelvin sign,
/// trailing spaces and a tab.
pub const CORPUS_A: &str = "\
foo bar baz
Foo Bar Baz
FOO BAR BAZ
start of line foo
the end
food is good
foobar and bar
a cat and a dog
catalog dogma
nothing here
12 34 5678
café Café CAFÉ cafe
Straße STRASSE strasse
δέλτα Δέλτα ΔΈΛΤΑ
日本語のテキスト foo 中文
kelvin K 100K (Kelvin sign: \u{212A})
running jumping singing
line with trailing spaces   \n\tindented foo after a tab
-dash leads this line
start again
start
end
";

/// A markdown file with a few matches far apart (separate context groups).
pub const CORPUS_B: &str = "\
# Title about Foo

Some prose without the word.
More prose.
Even more prose.
Here is foo in the middle.
Nothing.
Nothing.
Nothing.
Nothing.
A cat sat on the mat.
the end
";

/// A Rust file.
pub const CORPUS_C: &str = "\
fn main() {
    let foo = 42;
    println!(\"{}\", foo);
}

// bar: start of a comment
struct Dog { name: String }
";

/// Writes the corpus under `corpus/`.
pub fn corpus(t: &Tree) {
    t.write("corpus/a.txt", CORPUS_A);
    t.write("corpus/b.md", CORPUS_B);
    t.write("corpus/c.rs", CORPUS_C);
    t.write("corpus/empty.txt", "");
    t.write("corpus/no_newline.txt", "last line has foo and no newline");
    t.write("corpus/crlf.txt", "foo one\r\nbar two\r\nthe end\r\nfoo end\r\n");
    t.write("corpus/sub/d.txt", "deep foo\ndeep bar\ncat and dog\n");
    t.write(
        "corpus/pats.txt",
        "foo\ncat|dog\n^start\n", // for -f
    );
    t.write("corpus/pats_empty.txt", "");
}

/// Text with `n` numbered lines, each mentioning `word` every 7th line.
pub fn numbered_lines(n: usize, word: &str) -> String {
    let mut s = String::new();
    for i in 0..n {
        if i % 7 == 3 {
            s.push_str(&format!("line {i:05} has {word} in it\n"));
        } else {
            s.push_str(&format!("line {i:05} plain text\n"));
        }
    }
    s
}

fn utf16(s: &str, big_endian: bool) -> Vec<u8> {
    let mut v = if big_endian { vec![0xFE, 0xFF] } else { vec![0xFF, 0xFE] };
    for u in s.encode_utf16() {
        let b = if big_endian { u.to_be_bytes() } else { u.to_le_bytes() };
        v.extend_from_slice(&b);
    }
    v
}

fn utf16_no_bom(s: &str) -> Vec<u8> {
    s.encode_utf16().flat_map(|u| u.to_le_bytes()).collect()
}

/// Writes the walk trees: `repo/` (a git repository) and `plain/` (not one).
///
/// Layout of `repo/` (ignore files in brackets):
///
/// ```text
/// [.gitignore: *.log build/ ignored_by_git.txt]  [.ignore: ignored_by_ignore.txt !keep.log]
/// [.rgignore: ignored_by_rgignore.txt]
/// src/{main.rs,lib.rs,util/mod.rs}  go/main.go  c/{x.c,x.h}  py/app.py  docs/README.md
/// notes.txt app.log keep.log build/out.txt ignored_by_*.txt
/// .hidden_file.txt .hidden_dir/secret.txt
/// sub/[.gitignore: *.tmp] sub/a.tmp sub/b.txt sub/deep/deeper/deepest.txt
/// bin/{early_nul.bin,late_nul.txt,middle_nul.txt}
/// enc/{utf16le.txt,utf16be.txt,utf16le_nobom.txt,utf8bom.txt,latin1.txt,invalid_utf8.txt,crlf.txt}
/// unicode.txt empty.txt no_newline.txt long/line100k.txt many/f000..f059.txt
/// links/{to_file,to_dir,broken}  loop/{file.txt,self -> ..}
/// ```
pub fn walk(t: &Tree) {
    t.git_init("repo");
    t.write("repo/.gitignore", "*.log\nbuild/\nignored_by_git.txt\n");
    t.write("repo/.ignore", "ignored_by_ignore.txt\n!keep.log\n");
    t.write("repo/.rgignore", "ignored_by_rgignore.txt\n");

    t.write(
        "repo/src/main.rs",
        "fn main() {\n    let needle = 1;\n    println!(\"needle {}\", needle);\n}\n",
    );
    t.write("repo/src/lib.rs", "//! needle library\npub fn needle() -> u32 { 7 }\n");
    t.write("repo/src/util/mod.rs", "pub fn helper() {}\n// no needle here? yes: needle\n");
    t.write("repo/go/main.go", "package main\n\nfunc main() { needle := 1; _ = needle }\n");
    t.write("repo/c/x.c", "#include \"x.h\"\nint needle(void) { return 1; }\n");
    t.write("repo/c/x.h", "int needle(void);\n");
    t.write("repo/py/app.py", "def needle():\n    return 'needle'\n");
    t.write("repo/docs/README.md", "# Needle\n\nFind the needle in the haystack.\n");
    t.write("repo/notes.txt", "needle one\nhay\nneedle two\nhay\nNEEDLE three\n");
    t.write("repo/app.log", "needle in a log (gitignored)\n");
    t.write("repo/keep.log", "needle in a whitelisted log\n");
    t.write("repo/build/out.txt", "needle in build output (gitignored dir)\n");
    t.write("repo/ignored_by_git.txt", "needle ignored by .gitignore\n");
    t.write("repo/ignored_by_ignore.txt", "needle ignored by .ignore\n");
    t.write("repo/ignored_by_rgignore.txt", "needle ignored by .rgignore\n");
    t.write("repo/.hidden_file.txt", "needle hidden file\n");
    t.write("repo/.hidden_dir/secret.txt", "needle hidden dir\n");
    t.write("repo/sub/.gitignore", "*.tmp\n");
    t.write("repo/sub/a.tmp", "needle in tmp (nested gitignore)\n");
    t.write("repo/sub/b.txt", "needle in sub\n");
    t.write("repo/sub/deep/deeper/deepest.txt", "needle at depth four\n");

    // Binary files: NUL in the first bytes; NUL after many lines of text
    // (past the first read buffer); NUL mid-file with matches after it.
    let mut early = b"needle before\0nul\n".to_vec();
    early.extend_from_slice(numbered_lines(50, "needle").as_bytes());
    t.write("repo/bin/early_nul.bin", early);
    let mut late = numbered_lines(20_000, "needle").into_bytes();
    late.extend_from_slice(b"binary\0tail needle\n");
    late.extend_from_slice(numbered_lines(10, "needle").as_bytes());
    t.write("repo/bin/late_nul.txt", late);
    let mut mid = numbered_lines(30, "needle").into_bytes();
    mid.extend_from_slice(b"x\0y needle\n");
    mid.extend_from_slice(numbered_lines(30, "needle").as_bytes());
    t.write("repo/bin/middle_nul.txt", mid);
    // Around the searcher's 64 KiB buffer: a file searched whole is read
    // at once if smaller, as a stream if not; both must print the same.
    // (No NUL past the first 64 KiB: whether rg prints the matches before
    // it depends on how far earlier files grew its thread's buffer.)
    for (name, len, nul) in [
        ("under", 65_535, None),
        ("at", 65_536, None),
        ("over", 65_537, None),
        ("under_nul_last", 65_535, Some(65_534)),
        ("over_nul_in_first", 70_000, Some(65_000)),
    ] {
        let mut text = numbered_lines(len / 20, "needle").into_bytes();
        text.resize(len, b'x');
        *text.last_mut().unwrap() = b'\n';
        if let Some(at) = nul {
            text[at] = 0;
        }
        text[len - 2] = b'Z';
        t.write(format!("repo/edge/{name}.txt"), text);
    }

    // Encodings.
    let enc_text = "needle in utf16\ncafé naïve\nsecond needle line\n";
    t.write("repo/enc/utf16le.txt", utf16(enc_text, false));
    t.write("repo/enc/utf16be.txt", utf16(enc_text, true));
    t.write("repo/enc/utf16le_nobom.txt", utf16_no_bom(enc_text));
    let mut bom = vec![0xEF, 0xBB, 0xBF];
    bom.extend_from_slice("needle after a utf-8 bom\ncafé\n".as_bytes());
    t.write("repo/enc/utf8bom.txt", bom);
    // Latin-1: "café needle" with é as 0xE9, plus "naïve" with ï as 0xEF.
    t.write("repo/enc/latin1.txt", b"caf\xE9 needle\nna\xEFve\nplain needle\n");
    t.write("repo/enc/invalid_utf8.txt", b"needle \xFF\xFE bad bytes\n\xC3\x28 needle\nok\n");
    t.write("repo/enc/crlf.txt", "needle one\r\nhay\r\nneedle$ end\r\n");

    t.write(
        "repo/unicode.txt",
        "Café CAFÉ café\n東京 needle 北京\nKelvin \u{212A} k K\nΣίσυφος ΣΊΣΥΦΟΣ\nStraße\nemoji 🎉 needle\n",
    );
    t.write("repo/empty.txt", "");
    t.write("repo/no_newline.txt", "needle without newline");
    let mut long = "x".repeat(50_000);
    long.push_str(" needle ");
    long.push_str(&"y".repeat(50_000));
    long.push('\n');
    long.push_str("short needle line\n");
    t.write("repo/long/line100k.txt", long);
    for i in 0..60 {
        let body = if i % 5 == 0 { format!("file {i} needle\n") } else { format!("file {i}\n") };
        t.write(format!("repo/many/f{i:03}.txt"), body);
    }

    t.symlink("../notes.txt", "repo/links/to_file");
    t.symlink("../src", "repo/links/to_dir");
    t.symlink("does_not_exist", "repo/links/broken");
    t.write("repo/loop/file.txt", "needle in loop dir\n");
    t.symlink("..", "repo/loop/self");

    // A non-git directory: .gitignore must be ignored here, .ignore and
    // .rgignore still apply.
    t.write("plain/.gitignore", "*.txt\n");
    t.write("plain/.ignore", "skip_me.md\n");
    t.write("plain/.rgignore", "*.skip\n");
    t.write("plain/a.txt", "needle in plain a\n");
    t.write("plain/b.txt", "needle in plain b\n");
    t.write("plain/skip_me.md", "needle skipped by .ignore\n");
    t.write("plain/c.skip", "needle skipped by .rgignore\n");
    t.write("plain/d.md", "needle kept\n");
    t.write("plain/.hidden", "needle hidden in plain\n");
    t.write("plain/nested/e.txt", "needle nested\n");
}

/// Writes `big/line5m.txt`: one 5 MB line with a few needles, then a short line.
pub fn big(t: &Tree) {
    let mut s = String::with_capacity(5_100_000);
    for i in 0..5 {
        s.push_str(&"abcdefghij".repeat(100_000));
        s.push_str(&format!(" needle{i} "));
    }
    s.push('\n');
    s.push_str("tail needle\n");
    t.write("big/line5m.txt", s);
}

/// Writes `names/` (awkward file names) and `rules/` (a git repo with
/// harder ignore rules: negation, anchoring, directory-only patterns,
/// `.git/info/exclude`, and an `.ignore` above the search root).
pub fn edge(t: &Tree) {
    t.write("names/with space.txt", "needle in a spaced name\n");
    t.write("names/üñí.txt", "needle in a unicode name\n");
    t.write("names/-dash.txt", "needle in a dash name\n");
    t.write("names/a:colon.txt", "needle in a colon name\n");
    t.write("names/tab\there.txt", "needle in a tab name\n");
    // A file name that is not valid UTF-8.
    {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"names/bad\xFFname.txt");
        t.write(name, "needle in a non-utf8 name\n");
    }
    t.write("names/UPPER.TXT", "needle in upper case name\n");
    t.write("names/noext", "needle without extension\n");
    t.write("names/Makefile", "needle:\n\techo needle\n");

    t.write(".ignore", "top_ignored.txt\n");
    t.git_init("rules");
    t.write("rules/top_ignored.txt", "needle ignored by .ignore above the repo\n");
    t.write(
        "rules/.gitignore",
        "/anchored.txt\n*.gen\n!keep.gen\nonly_dir/\n**/deep_ignored\ndocs/*.md\n",
    );
    t.write("rules/.git/info/exclude", "excluded_by_info.txt\n");
    t.write("rules/anchored.txt", "needle anchored (ignored)\n");
    t.write("rules/nested/anchored.txt", "needle anchored only at root (kept)\n");
    t.write("rules/a.gen", "needle generated (ignored)\n");
    t.write("rules/keep.gen", "needle generated but whitelisted\n");
    t.write("rules/only_dir/x.txt", "needle in ignored dir\n");
    t.write("rules/sub/only_dir", "needle file named like ignored dir (kept)\n");
    t.write("rules/a/b/deep_ignored/y.txt", "needle deep ignored\n");
    t.write("rules/docs/readme.md", "needle docs md (ignored)\n");
    t.write("rules/docs/sub/inner.md", "needle nested docs md (kept)\n");
    t.write("rules/excluded_by_info.txt", "needle excluded by info/exclude\n");
    t.write("rules/nested/.gitignore", "!*.gen\nlocal.txt\n");
    t.write("rules/nested/b.gen", "needle gen re-included in nested\n");
    t.write("rules/nested/local.txt", "needle local ignored\n");
    t.write("rules/nested/.rgignore", "!local.txt\n");
    t.write("rules/main.rs", "fn needle() {}\n");
}
