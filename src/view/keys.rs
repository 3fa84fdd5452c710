//! Keys as in `less`: a key (with any number typed before it, or a line
//! typed at a prompt) becomes an [`Action`]. Pure: no screen, no text.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use trigrep::logline::level::Level;

/// What the user asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Down this many lines.
    Down(u64),
    /// Up this many lines.
    Up(u64),
    /// Down this many screens (halves: [`Action::HalfDown`]).
    PageDown(u64),
    /// Up this many screens.
    PageUp(u64),
    /// Down half a screen.
    HalfDown,
    /// Up half a screen.
    HalfUp,
    /// Right half a screen (long lines).
    Right,
    /// Left half a screen.
    Left,
    /// To line N (1-based).
    Line(u64),
    /// To the first line.
    Top,
    /// To the last screen.
    Bottom,
    /// To N percent of the text.
    Percent(u64),
    /// Search for a pattern, forward or backward (empty: the last one).
    Search {
        /// The pattern.
        pattern: String,
        /// Backward (`?`).
        backward: bool,
    },
    /// The next match in the search's direction.
    Next,
    /// The next match the other way.
    Previous,
    /// Show only lines matching a pattern (empty: all lines).
    Filter(String),
    /// To a region of the density bar.
    Region(Region),
    /// Follow the text as it grows.
    Follow,
    /// Toggle case-insensitive search (`-I`).
    IgnoreCase,
    /// Toggle smart case (`-i`, less's: insensitive unless the pattern
    /// has an upper-case letter).
    SmartCase,
    /// Toggle between chopping and wrapping long lines (`-S`).
    Chop,
    /// Toggle line numbers (`-N`).
    LineNumbers,
    /// Show the keys.
    Help,
    /// Draw everything again.
    Redraw,
    /// Stop what runs (a follow, a long search) or close the help.
    Cancel,
    /// Leave.
    Quit,
    /// Remember the top line under a letter (`m`).
    Mark(char),
    /// To a remembered line (`'`): a letter, `'` (where the last jump
    /// started), `^` (the start) or `$` (the end).
    GotoMark(char),
    /// Say the file, lines shown, byte offset and percentage (`=`, Ctrl-G).
    Info,
    /// Stop marking the search's matches until the next search (ESC-u).
    HighlightOff,
    /// Write the lines shown (after a filter) to a file (`s FILE`).
    Save(String),
    /// To the next line of a level (`e`, `w`) or the previous (`E`, `W`).
    Level {
        /// Which level.
        level: Level,
        /// Backward.
        backward: bool,
    },
    /// Enter: one line down, or, over the histogram, to its bucket.
    Enter(u64),
    /// Show how many lines fall in each time bucket (`H`).
    Histogram,
    /// To the first line at or after a time (`@TIME`).
    Time(String),
    /// To the next file named (`:n`), the previous (`:p`), the first (`:x`).
    File(FileStep),
}

impl Action {
    /// Whether it is a jump that `''` comes back from.
    pub fn jumps(&self) -> bool {
        use Action::*;
        matches!(
            self,
            Line(_)
                | Top
                | Bottom
                | Percent(_)
                | Search { .. }
                | Next
                | Previous
                | Region(_)
                | GotoMark(_)
                | Time(_)
                | Level { .. }
        )
    }

    /// Whether it says where in its top line the screen starts (moves by
    /// rows when wrapped, the end, marks, searches); after any other, at
    /// its start.
    pub fn sets_part(&self) -> bool {
        use Action::*;
        matches!(
            self,
            Down(_) | Enter(_) | Up(_) | PageDown(_) | PageUp(_) | HalfDown | HalfUp | Bottom
        ) || matches!(self, Follow | GotoMark(_) | Percent(100..) | Search { .. } | Next | Previous)
    }
}

/// Which file `:n`, `:p` and `:x` go to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileStep {
    /// The next (`:n`).
    Next,
    /// The previous (`:p`).
    Previous,
    /// The first (`:x`).
    First,
}

/// Which region of the density bar to go to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// The next marked cell below the screen's top (`]`).
    Next,
    /// The previous one (`[`).
    Previous,
    /// The cell with the most matches (`}`).
    Densest,
}

/// What is being typed at the bottom line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prompt {
    /// The key that opened it: `/`, `?`, `&`, `:`, `-`, `s` or `@`.
    pub kind: char,
    /// What was typed.
    pub text: String,
}

/// Keys typed so far that make no action yet: a count, or a prompt.
#[derive(Clone, Debug, Default)]
pub struct Keys {
    count: Option<u64>,
    prompt: Option<Prompt>,
    /// A key that takes the next one: `m`, `'` or Esc.
    pending: Option<char>,
}

impl Keys {
    /// The prompt being typed, if any, for the bottom line.
    pub fn prompt(&self) -> Option<&Prompt> {
        self.prompt.as_ref()
    }

    /// The count typed so far, if any.
    pub fn count(&self) -> Option<u64> {
        self.count
    }

    /// Takes one key; the action it completes, if any.
    pub fn feed(&mut self, key: KeyEvent) -> Option<Action> {
        if self.prompt.is_some() {
            return self.feed_prompt(key);
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        if let Some(first) = self.pending.take() {
            match (first, key.code) {
                ('m', KeyCode::Char(c)) if c.is_ascii_alphabetic() => return Some(Action::Mark(c)),
                ('\'', KeyCode::Char(c)) if c.is_ascii_alphabetic() || "'^$".contains(c) => {
                    return Some(Action::GotoMark(c));
                }
                ('\x1b', KeyCode::Char('u')) => return Some(Action::HighlightOff),
                ('m' | '\'', _) => return None,
                _ => {}
            }
        }
        let count = self.count.take();
        let n = count.unwrap_or(1);
        Some(match key.code {
            KeyCode::Char('u') if alt => Action::HighlightOff,
            KeyCode::Char(c) if ctrl => match c {
                'c' => Action::Cancel,
                'g' => Action::Info,
                'f' | 'v' => Action::PageDown(n),
                'b' => Action::PageUp(n),
                'd' => Action::HalfDown,
                'u' => Action::HalfUp,
                'n' | 'e' | 'j' => Action::Down(n),
                'p' | 'y' | 'k' => Action::Up(n),
                'l' | 'r' => Action::Redraw,
                _ => return None,
            },
            KeyCode::Char(d @ '0'..='9') => {
                let digit = u64::from(d as u8 - b'0');
                self.count = Some(count.unwrap_or(0).saturating_mul(10).saturating_add(digit));
                return None;
            }
            KeyCode::Char('j') | KeyCode::Down => Action::Down(n),
            KeyCode::Enter => Action::Enter(n),
            KeyCode::Char('k' | 'y') | KeyCode::Up => Action::Up(n),
            KeyCode::Char(' ' | 'f' | 'z') | KeyCode::PageDown => Action::PageDown(n),
            KeyCode::Char('b') | KeyCode::PageUp => Action::PageUp(n),
            KeyCode::Char(c @ ('e' | 'E' | 'w' | 'W')) => Action::Level {
                level: if c.eq_ignore_ascii_case(&'e') { Level::Error } else { Level::Warn },
                backward: c.is_ascii_uppercase(),
            },
            KeyCode::Char('d') => Action::HalfDown,
            KeyCode::Char('u') => Action::HalfUp,
            KeyCode::Right => Action::Right,
            KeyCode::Left => Action::Left,
            KeyCode::Char('g' | '<') | KeyCode::Home => count.map_or(Action::Top, Action::Line),
            KeyCode::Char('G' | '>') | KeyCode::End => count.map_or(Action::Bottom, Action::Line),
            KeyCode::Char('%' | 'p') => Action::Percent(count.unwrap_or(0).min(100)),
            KeyCode::Char('n') => Action::Next,
            KeyCode::Char('N') => Action::Previous,
            KeyCode::Char('F') => Action::Follow,
            KeyCode::Char(']') => Action::Region(Region::Next),
            KeyCode::Char('[') => Action::Region(Region::Previous),
            KeyCode::Char('}') => Action::Region(Region::Densest),
            KeyCode::Char('h') => Action::Help,
            KeyCode::Char('H') => Action::Histogram,
            KeyCode::Char('r' | 'R') => Action::Redraw,
            KeyCode::Char('q' | 'Q') => Action::Quit,
            KeyCode::Esc => {
                self.pending = Some('\x1b');
                Action::Cancel
            }
            KeyCode::Char('=') => Action::Info,
            KeyCode::Char(c @ ('m' | '\'')) => {
                self.pending = Some(c);
                return None;
            }
            KeyCode::Char(c @ ('/' | '?' | '&' | ':' | '-' | 's' | '@')) => {
                self.prompt = Some(Prompt { kind: c, text: String::new() });
                return None;
            }
            _ => return None,
        })
    }

    /// A key typed at the prompt.
    fn feed_prompt(&mut self, key: KeyEvent) -> Option<Action> {
        let prompt = self.prompt.as_mut()?;
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => self.prompt = None,
            KeyCode::Char('c' | 'g') if ctrl => self.prompt = None,
            KeyCode::Char('u') if ctrl => prompt.text.clear(),
            KeyCode::Backspace if prompt.text.is_empty() => self.prompt = None,
            KeyCode::Backspace => {
                prompt.text.pop();
            }
            KeyCode::Enter => {
                let p = self.prompt.take()?;
                return line_action(p.kind, p.text);
            }
            KeyCode::Char(c @ ('n' | 'p' | 'x' | 'q' | 'f'))
                if prompt.kind == ':' && prompt.text.is_empty() =>
            {
                self.prompt = None;
                return Some(match c {
                    'n' => Action::File(FileStep::Next),
                    'p' => Action::File(FileStep::Previous),
                    'x' => Action::File(FileStep::First),
                    'f' => Action::Info,
                    _ => Action::Quit,
                });
            }
            KeyCode::Char(c) if prompt.kind == '-' => {
                self.prompt = None;
                return match c {
                    'i' => Some(Action::SmartCase),
                    'I' => Some(Action::IgnoreCase),
                    'S' => Some(Action::Chop),
                    'N' | 'n' => Some(Action::LineNumbers),
                    _ => None,
                };
            }
            KeyCode::Char(c) => prompt.text.push(c),
            _ => {}
        }
        None
    }
}

/// The action of a line typed after `kind`.
fn line_action(kind: char, text: String) -> Option<Action> {
    match kind {
        '/' => Some(Action::Search { pattern: text, backward: false }),
        '?' => Some(Action::Search { pattern: text, backward: true }),
        '&' => Some(Action::Filter(text)),
        ':' => text.trim().parse().ok().map(Action::Line),
        's' if !text.trim().is_empty() => Some(Action::Save(text.trim().to_string())),
        '@' => Some(Action::Time(text)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(keys: &str) -> Vec<Action> {
        let mut k = Keys::default();
        keys.chars()
            .filter_map(|c| {
                let code = if c == '\n' { KeyCode::Enter } else { KeyCode::Char(c) };
                k.feed(KeyEvent::new(code, KeyModifiers::NONE))
            })
            .collect()
    }

    #[test]
    fn counts_prefix_moves_and_jumps() {
        assert_eq!(feed("j5jk"), vec![Action::Down(1), Action::Down(5), Action::Up(1)]);
        assert_eq!(feed("g1234G"), vec![Action::Top, Action::Line(1234)]);
        assert_eq!(feed("G42g"), vec![Action::Bottom, Action::Line(42)]);
        assert_eq!(feed("50%"), vec![Action::Percent(50)]);
        assert_eq!(feed(":77\n:q"), vec![Action::Line(77), Action::Quit]);
        let file = |s| Action::File(s);
        assert_eq!(
            feed(":n:p:x:f="),
            vec![
                file(FileStep::Next),
                file(FileStep::Previous),
                file(FileStep::First),
                Action::Info,
                Action::Info
            ]
        );
        assert_eq!(
            feed("ma'a''m1j'^'$"),
            vec![
                Action::Mark('a'),
                Action::GotoMark('a'),
                Action::GotoMark('\''),
                Action::Down(1),
                Action::GotoMark('^'),
                Action::GotoMark('$')
            ]
        );
        assert_eq!(
            feed("sout.txt\n@10:00\n"),
            vec![Action::Save("out.txt".into()), Action::Time("10:00".into())]
        );
        assert_eq!(feed(" b"), vec![Action::PageDown(1), Action::PageUp(1)]);
        let region = |r| Action::Region(r);
        assert_eq!(
            feed("][}"),
            vec![region(Region::Next), region(Region::Previous), region(Region::Densest)]
        );
    }

    #[test]
    fn prompts_make_searches_filters_and_toggles() {
        let search = |p: &str, backward| Action::Search { pattern: p.into(), backward };
        assert_eq!(
            feed("/err[0-9]\nnN"),
            vec![search("err[0-9]", false), Action::Next, Action::Previous]
        );
        assert_eq!(feed("?x\n"), vec![search("x", true)]);
        assert_eq!(
            feed("&needle\n&\n"),
            vec![Action::Filter("needle".into()), Action::Filter(String::new())]
        );
        assert_eq!(
            feed("-i-I-S-Nq"),
            vec![
                Action::SmartCase,
                Action::IgnoreCase,
                Action::Chop,
                Action::LineNumbers,
                Action::Quit
            ]
        );
        // Letters typed at a prompt are text, not keys.
        assert_eq!(feed("/q G\n"), vec![search("q G", false)]);
    }

    #[test]
    fn escape_and_backspace_edit_the_prompt() {
        let mut k = Keys::default();
        let key = |c| KeyEvent::new(c, KeyModifiers::NONE);
        k.feed(key(KeyCode::Char('/')));
        k.feed(key(KeyCode::Char('a')));
        k.feed(key(KeyCode::Char('b')));
        k.feed(key(KeyCode::Backspace));
        assert_eq!(k.prompt().map(|p| p.text.as_str()), Some("a"));
        k.feed(key(KeyCode::Esc));
        assert_eq!(k.prompt(), None);
        assert_eq!(k.feed(key(KeyCode::Char('q'))), Some(Action::Quit));
        // ESC-u, as two keys or as Alt-u, turns the highlight off.
        assert_eq!(k.feed(key(KeyCode::Esc)), Some(Action::Cancel));
        assert_eq!(k.feed(key(KeyCode::Char('u'))), Some(Action::HighlightOff));
        assert_eq!(k.feed(key(KeyCode::Char('u'))), Some(Action::HalfUp));
        let alt_u = KeyEvent::new(KeyCode::Char('u'), KeyModifiers::ALT);
        assert_eq!(k.feed(alt_u), Some(Action::HighlightOff));
    }
}
