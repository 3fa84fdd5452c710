//! Whether a pattern is anchored at the haystack's start (`\A`, `(?-m)^`):
//! such a pattern matches at the start of each buffer the searcher hands
//! the matcher, and the printer shows that match where a buffer starts, so
//! a search cut into chunks would show it at every chunk's first line,
//! where rg, which reads the file whole or in its own buffers, does not.

use regex_syntax::hir::Look;

use super::{Engine, MatchOptions};

impl MatchOptions {
    /// Whether any pattern holds an assertion of the haystack's start. A
    /// PCRE2 pattern the default engine's parser cannot read counts when
    /// its text may hold one (`\A`, `\G`, or a flag group turning `m` off).
    pub fn anchors_at_haystack_start(&self) -> bool {
        if self.fixed_strings {
            return false;
        }
        self.patterns.iter().any(|p| {
            let mut parser = regex_syntax::ParserBuilder::new();
            parser.utf8(false).unicode(self.unicode).multi_line(true);
            match parser.build().parse(p) {
                Ok(hir) => hir.properties().look_set().contains(Look::Start),
                Err(_) if self.engine != Engine::Default => {
                    p.contains("\\A") || p.contains("\\G") || p.contains("-m")
                }
                Err(_) => false,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchored(p: &str) -> bool {
        MatchOptions::new(vec![p.to_string()]).anchors_at_haystack_start()
    }

    #[test]
    fn only_the_haystacks_start_counts() {
        assert!(anchored(r"\A"));
        assert!(anchored(r"x|\Ab"));
        assert!(anchored(r"(?-m)^b"));
        assert!(!anchored(r"^b"));
        assert!(!anchored(r"b$"));
        assert!(!anchored(r"b\z"));
        assert!(!anchored(r"\bfoo"));
    }
}
