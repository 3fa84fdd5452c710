//! Whether a search's patterns repeat large Unicode classes (`\w{3}`,
//! `\d+`, `\p{..}*`): the lazy DFA that runs such a regex over one big
//! haystack may give up and fall back to a much slower engine, while over
//! small haystacks it does not (measured on a 1 GiB log, hot, 2 threads:
//! `^\w{3} +\d+ … kernel: .*BUG` 0.98 s over 16 MiB slices, 0.21 s through
//! 64 KiB buffers). The chunk engine reads through buffers for such
//! patterns only: for others the slices are as fast or faster (a single
//! `\d`, as in `03:1\d:\d\d`, ran 0.10 s as slices, 0.19 s buffered).

use regex_syntax::hir::{Class, Hir, HirKind};

use super::MatchOptions;

/// How many code points make a class "large".
const LARGE: u32 = 256;

impl MatchOptions {
    /// Whether any pattern repeats a large Unicode class (see the module docs).
    pub fn repeats_large_classes(&self) -> bool {
        if self.fixed_strings || !self.unicode {
            return false;
        }
        self.patterns.iter().any(|p| {
            let mut parser = regex_syntax::ParserBuilder::new();
            parser.utf8(false).unicode(true).multi_line(true);
            parser.build().parse(p).is_ok_and(|hir| repeats_large(&hir, false))
        })
    }
}

/// Whether `hir` holds a large class under a repetition (`repeated`: it is
/// under one already).
fn repeats_large(hir: &Hir, repeated: bool) -> bool {
    match hir.kind() {
        HirKind::Class(Class::Unicode(c)) => {
            let size: u32 =
                c.ranges().iter().map(|r| u32::from(r.end()) - u32::from(r.start()) + 1).sum();
            repeated && size > LARGE
        }
        HirKind::Repetition(r) => {
            let many = r.max.is_none_or(|m| m > 1);
            repeats_large(&r.sub, repeated || many)
        }
        HirKind::Capture(c) => repeats_large(&c.sub, repeated),
        HirKind::Concat(v) | HirKind::Alternation(v) => {
            v.iter().any(|h| repeats_large(h, repeated))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str) -> MatchOptions {
        MatchOptions::new(vec![p.to_string()])
    }

    #[test]
    fn unicode_classes_are_large_literals_are_not() {
        assert!(m(r"^\w{3} +\d+ kernel: .*BUG").repeats_large_classes());
        assert!(m(r"(\d\w)+").repeats_large_classes());
        assert!(m(r"\p{Greek}+").repeats_large_classes());
        assert!(!m(r"03:1\d:\d\d").repeats_large_classes());
        assert!(!m(r"\bfoo\b").repeats_large_classes());
        assert!(!m("segfault at").repeats_large_classes());
        assert!(!m("(?i)out of memory").repeats_large_classes());
        assert!(!m("[a-z]+ [0-9]").repeats_large_classes());
        assert!(!MatchOptions { unicode: false, ..m(r"\w+") }.repeats_large_classes());
    }
}
