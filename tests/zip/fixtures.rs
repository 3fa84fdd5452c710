//! Fixtures for `zip.rs`, made by the system's compressors.

use std::io::Write;
use std::process::{Command, Stdio};

use super::util::Tree;

/// A compressed format: file name ending, the program and arguments that
/// compress stdin to stdout, and the Debian package holding the program.
pub struct Format {
    pub ext: &'static str,
    pub program: &'static str,
    pub args: &'static [&'static str],
    pub package: &'static str,
}

pub const FORMATS: &[Format] = &[
    Format { ext: "gz", program: "gzip", args: &["-c", "-n"], package: "gzip" },
    Format { ext: "bz2", program: "bzip2", args: &["-c"], package: "bzip2" },
    Format { ext: "xz", program: "xz", args: &["-c"], package: "xz-utils" },
    Format { ext: "lzma", program: "xz", args: &["--format=lzma", "-c"], package: "xz-utils" },
    Format { ext: "lz4", program: "lz4", args: &["-q", "-c"], package: "lz4" },
    Format { ext: "zst", program: "zstd", args: &["-q", "-c"], package: "zstd" },
    Format { ext: "br", program: "brotli", args: &["-c"], package: "brotli" },
    Format { ext: "Z", program: "compress", args: &["-c", "-f"], package: "ncompress" },
];

/// Formats whose files may hold several streams back to back.
pub const CONCATENABLE: &[&str] = &["gz", "bz2", "xz", "lz4", "zst"];

/// Other names rg's globs give the same formats.
pub const ALIASES: &[(&str, &str)] =
    &[("tgz", "gz"), ("tbz2", "bz2"), ("txz", "xz"), ("zstd", "zst")];

/// The text every good archive holds: matches, unicode, no NUL.
pub const TEXT: &str = "alpha foo\nbeta bar\nfoo gamma food\n\
                    caf\u{e9} foo \u{394}\u{388}\u{39b}\u{3a4}\u{391}\nno match here\nend foo\n";

/// A match, a NUL on the next line, then more matches.
const BINARY: &[u8] = b"one foo\ntwo\0bin\nthree foo\n";

fn on_path(program: &str) -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).any(|d| d.join(program).is_file())
}

/// The formats whose compressor is installed; fails when one is missing,
/// unless `TG_ZIP_ALLOW_MISSING=1` (then it says which are skipped).
pub fn available() -> Vec<&'static Format> {
    let (ok, missing): (Vec<&Format>, Vec<&Format>) =
        FORMATS.iter().partition(|f| on_path(f.program));
    if missing.is_empty() {
        return ok;
    }
    let packages: Vec<&str> = missing.iter().map(|f| f.package).collect();
    let names: Vec<&str> = missing.iter().map(|f| f.ext).collect();
    let msg = format!(
        "compressors missing for .{}: apt-get install -y {}",
        names.join(" ."),
        packages.join(" ")
    );
    if std::env::var_os("TG_ZIP_ALLOW_MISSING").is_some_and(|v| v == "1") {
        eprintln!("SKIPPED formats (TG_ZIP_ALLOW_MISSING=1): {msg}");
        return ok;
    }
    panic!("{msg} (or set TG_ZIP_ALLOW_MISSING=1 to skip those formats)");
}

/// `input` compressed by `f`'s program.
pub fn compress(f: &Format, input: &[u8]) -> Vec<u8> {
    let mut child = Command::new(f.program)
        .args(f.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", f.program));
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "{} {:?} failed", f.program, f.args);
    out.stdout
}

/// Numbered lines of pseudo-random hex (40,000 make about 1 MB), one in
/// seven with `foo`: compresses poorly enough that half of the compressed
/// file is about half of the text.
pub fn big_text(lines: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut out = Vec::new();
    for i in 0..lines {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let tag = if i % 7 == 0 { "foo" } else { "bar" };
        out.extend_from_slice(format!("{i} {tag} {x:016x}\n").as_bytes());
    }
    out
}

/// `good/`: every format's text, binary, empty, concatenated and aliased
/// files, padded ones, plus plain and look-alike files. `bad/`: zero-length,
/// fake (plain text) and truncated files of every format, and gzip with
/// trailing garbage; `corrupt/`: files
/// with 64 bytes in the middle garbled.
pub fn tree(formats: &[&Format]) -> Tree {
    let t = Tree::new("zip");
    t.write("good/plain.txt", TEXT);
    t.write("good/upper.GZ", compress(&FORMATS[0], TEXT.as_bytes()));
    t.write("good/.gz", compress(&FORMATS[0], TEXT.as_bytes()));
    // A BOM inside: rg transcodes the decompressed stream.
    let utf16: Vec<u8> =
        [0xfeff].into_iter().chain(TEXT.encode_utf16()).flat_map(u16::to_le_bytes).collect();
    t.write("good/utf16.gz", compress(&FORMATS[0], &utf16));
    // gzip warns about other bytes after the last member, and fails.
    t.write("bad/garbage.gz", [compress(&FORMATS[0], TEXT.as_bytes()), b"junk".to_vec()].concat());
    let big = big_text(40_000);
    for f in formats {
        let ext = f.ext;
        t.write(format!("good/text.{ext}"), compress(f, TEXT.as_bytes()));
        t.write(format!("good/bin.{ext}"), compress(f, BINARY));
        t.write(format!("good/empty.{ext}"), compress(f, b""));
        if CONCATENABLE.contains(&ext) {
            let mut two = compress(f, b"first foo\n");
            two.extend(compress(f, b"second foo\n"));
            t.write(format!("good/multi.{ext}"), two);
        }
        for (alias, _) in ALIASES.iter().filter(|(_, e)| *e == ext) {
            t.write(format!("good/alias.{alias}"), compress(f, TEXT.as_bytes()));
        }
        t.write(format!("bad/zero.{ext}"), b"");
        let padding: &[u8] = match ext {
            // Zeros after gzip (tar padding) and xz (stream padding), and
            // anything after bzip2, are ignored by their programs.
            "gz" | "xz" => &[0; 512],
            "bz2" => b"trailing junk\n",
            _ => &[],
        };
        if !padding.is_empty() {
            let padded = [compress(f, TEXT.as_bytes()), padding.to_vec()].concat();
            t.write(format!("good/padded.{ext}"), padded);
        }
        t.write(format!("bad/fake.{ext}"), TEXT);
        let whole = compress(f, &big);
        t.write(format!("bad/trunc.{ext}"), &whole[..whole.len() / 2]);
        let mut corrupt = whole.clone();
        let mid = corrupt.len() / 2;
        for b in &mut corrupt[mid..mid + 64] {
            *b ^= 0x5a;
        }
        t.write(format!("corrupt/{ext}.{ext}"), corrupt);
    }
    t
}

/// A preprocessor script at `rel`, made executable.
pub fn script(t: &Tree, rel: &str, body: &str) {
    t.write(rel, format!("#!/bin/sh\n{body}"));
    let path = t.path(rel);
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&path, perms).unwrap();
}
