//! Search options: how patterns match and how files are read.

use grep_searcher::Encoding;
use trigrep::options::{BinaryMode, Boundary, Case, EncodingChoice, IoChoice, MmapRule};

use super::flag::{Flag, Value, size_usize, text, u64, usize};
use crate::cli::args::Engine;

/// The search options, in help order (rg's deprecated flags last).
pub const FLAGS: &[Flag] = &[
    Flag::switch("case-sensitive", "Search case sensitively (default).", |_, a| {
        a.case = Case::Sensitive;
        Ok(())
    })
    .short('s')
    .more("Overrides -i and -S."),
    Flag::switch("crlf", "Use CRLF line terminators (nice for Windows).", |v, a| {
        a.crlf = v.on();
        if a.crlf {
            a.null_data = false;
        }
        Ok(())
    })
    .negated("no-crlf")
    .more("^ and $ treat CRLF, CR or LF as line ends. Overrides --null-data."),
    Flag::value(
        "dfa-size-limit",
        "NUM+SUFFIX?",
        "The upper size limit of the regex DFA.",
        |v, a| {
            a.dfa_size_limit = Some(size_usize(&v.given())?);
            Ok(())
        },
    )
    .more("A size in bytes, with an optional K, M or G suffix."),
    Flag::value("encoding", "ENCODING", "Specify the text encoding of files to search.", |v, a| {
        let Value::Given(v) = v else {
            a.encoding = EncodingChoice::Auto;
            return Ok(());
        };
        a.encoding = match text(&v)? {
            "auto" => EncodingChoice::Auto,
            "none" => EncodingChoice::None,
            label => EncodingChoice::Label(Encoding::new(label)?),
        };
        Ok(())
    })
    .short('E')
    .negated("no-encoding")
    .more(
        "'auto' (the default) sniffs a UTF-8 or UTF-16 byte-order mark; 'none' searches \
         raw bytes; any WHATWG label (latin1, utf-16le, ...) transcodes.",
    ),
    Flag::value("engine", "ENGINE", "Specify which regex engine to use.", |v, a| {
        a.engine = match text(&v.given())? {
            "default" => Engine::Default,
            "pcre2" => Engine::Pcre2,
            "auto" => Engine::Auto,
            other => anyhow::bail!("unrecognized regex engine '{other}'"),
        };
        Ok(())
    })
    .choices(&[
        ("default", "the default regex engine"),
        ("pcre2", "PCRE2 (look-around, backreferences)"),
        ("auto", "the default engine, else PCRE2 when the default cannot compile the pattern"),
    ]),
    Flag::switch("fixed-strings", "Treat all patterns as literals.", |v, a| {
        a.fixed_strings = v.on();
        Ok(())
    })
    .short('F')
    .negated("no-fixed-strings"),
    Flag::switch("ignore-case", "Case insensitive search.", |_, a| {
        a.case = Case::Insensitive;
        Ok(())
    })
    .short('i')
    .more("Overrides -s and -S."),
    Flag::switch("invert-match", "Invert matching.", |v, a| {
        a.invert_match = v.on();
        Ok(())
    })
    .short('v')
    .negated("no-invert-match"),
    Flag::switch("line-regexp", "Show matches surrounded by line boundaries.", |_, a| {
        a.boundary = Boundary::Line;
        Ok(())
    })
    .short('x')
    .more("Overrides -w."),
    Flag::value("max-count", "NUM", "Limit the number of matching lines.", |v, a| {
        a.max_count = Some(u64(&v.given())?);
        Ok(())
    })
    .short('m'),
    Flag::switch("mmap", "Search with memory maps when possible.", |v, a| {
        let on = v.on();
        a.mmap = if on { MmapRule::Always } else { MmapRule::Never };
        a.io = if on { IoChoice::Mmap } else { IoChoice::Read };
        Ok(())
    })
    .negated("no-mmap")
    .more("trigrep: also sets how huge files are read (--io mmap; --no-mmap: --io read)."),
    Flag::switch("multiline", "Enable searching across multiple lines.", |v, a| {
        a.multiline = v.on();
        if a.multiline {
            a.stop_on_nonmatch = false;
        }
        Ok(())
    })
    .short('U')
    .negated("no-multiline"),
    Flag::switch("multiline-dotall", "Make '.' match line terminators.", |v, a| {
        a.multiline_dotall = v.on();
        Ok(())
    })
    .negated("no-multiline-dotall"),
    Flag::switch("no-unicode", "Disable Unicode mode.", |v, a| {
        a.no_unicode = v.on();
        Ok(())
    })
    .negated("unicode"),
    Flag::switch("null-data", "Use NUL as a line terminator.", |_, a| {
        a.crlf = false;
        a.null_data = true;
        Ok(())
    })
    .more("Implies -a. Overrides --crlf."),
    Flag::switch("pcre2", "Enable PCRE2 matching.", |v, a| {
        a.engine = if v.on() { Engine::Pcre2 } else { Engine::Default };
        Ok(())
    })
    .short('P')
    .negated("no-pcre2")
    .more("Same as --engine=pcre2: look-around and backreferences, one line at a time."),
    Flag::value(
        "regex-size-limit",
        "NUM+SUFFIX?",
        "The size limit of the compiled regex.",
        |v, a| {
            a.regex_size_limit = Some(size_usize(&v.given())?);
            Ok(())
        },
    ),
    Flag::switch("smart-case", "Smart case search.", |_, a| {
        a.case = Case::Smart;
        Ok(())
    })
    .short('S')
    .more("Case insensitive if every pattern is all lower case. Overrides -s and -i."),
    Flag::switch("stop-on-nonmatch", "Stop searching after a non-match.", |_, a| {
        a.stop_on_nonmatch = true;
        a.multiline = false;
        Ok(())
    }),
    Flag::switch("text", "Search binary files as if they were text.", |v, a| {
        a.binary = if v.on() { BinaryMode::AsText } else { BinaryMode::Default };
        Ok(())
    })
    .short('a')
    .negated("no-text"),
    Flag::value("threads", "NUM", "Set the approximate number of threads to use.", |v, a| {
        let n = usize(&v.given())?;
        a.threads = (n > 0).then_some(n);
        Ok(())
    })
    .short('j')
    .more("0 picks one per core (at most 12)."),
    Flag::switch("word-regexp", "Show matches surrounded by word boundaries.", |_, a| {
        a.boundary = Boundary::Word;
        Ok(())
    })
    .short('w')
    .more("Overrides -x."),
    Flag::switch("auto-hybrid-regex", "(DEPRECATED) Use PCRE2 if appropriate.", |v, a| {
        a.engine = if v.on() { Engine::Auto } else { Engine::Default };
        Ok(())
    })
    .negated("no-auto-hybrid-regex"),
    Flag::switch("no-pcre2-unicode", "(DEPRECATED) Disable Unicode mode for PCRE2.", |v, a| {
        a.no_unicode = v.on();
        Ok(())
    })
    .negated("pcre2-unicode"),
];
