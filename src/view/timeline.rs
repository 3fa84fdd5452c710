//! Times in the viewer: the text's timestamp format, detected once from
//! its first 64 KiB ([`trigrep::logline::time`]); the time of the top
//! line for the status line; and `@TIME`, a jump to the first line at or
//! after a time ([`super::times`]: by bisecting the text's bytes, or by
//! scanning it when its times are not in order, and saying so, from the
//! first block whose recorded times reach it ([`super::text::Text::time_floor`])); on a
//! merge of several texts, through the [`super::merge::Merge`].

use trigrep::logline::time;

use super::app::App;
use super::finder::Progress;
use super::nav;
use super::times::{bisect, first_stamped, in_order, last_time, scan, time_at};

impl App {
    /// Detects the text's timestamp format from its first 64 KiB, a
    /// syslog year taken from `modified` (ms since the epoch, kept).
    pub fn detect_time(&mut self, modified: i64) {
        self.modified = modified;
        let mut head = vec![0; 64 << 10];
        let n = nav::read_full(&*self.text, 0, &mut head);
        self.time = time::detect(&head[..n], modified);
    }

    /// The time of the top line, if the text has times.
    pub fn top_time(&self) -> Option<i64> {
        if let Some(m) = &self.merge {
            return m.time_of(self.top);
        }
        time_at(&*self.text, self.time?, self.top)
    }

    /// `@spec`: to the first line at or after that time.
    pub(super) fn goto_time(&mut self, spec: &str, progress: Progress<'_>) {
        if let Some(m) = self.merge.clone() {
            let end = spec.trim().starts_with('-').then_some(m.span().1);
            match time::parse_query(spec, m.time_of(self.top).or(Some(m.span().0)), end) {
                Ok(t) => self.jump_to_time(t, progress),
                Err(e) => self.message = Some(format!("@{spec}: {e}")),
            }
            return;
        }
        if self.time.is_none() {
            self.detect_time(self.modified);
        }
        let Some(format) = self.time else {
            self.message = Some("no timestamps found".into());
            return;
        };
        let text = &*self.text;
        let today = time_at(text, format, self.top)
            .or_else(|| first_stamped(text, format, 0, text.len(), &mut |_| true).map(|f| f.1));
        let end =
            if spec.trim().starts_with('-') { last_time(text, format, progress) } else { None };
        match time::parse_query(spec, today, end) {
            Ok(t) => self.jump_to_time(t, progress),
            Err(e) => self.message = Some(format!("@{spec}: {e}")),
        }
    }

    /// To the first line at or after `target` (ms since the epoch).
    pub(super) fn jump_to_time(&mut self, target: i64, progress: Progress<'_>) {
        if let Some(m) = &self.merge {
            let at = m.offset_of_time(target);
            let when = time::format(target);
            match at < self.text.len() {
                true => (self.top, self.message) = (at, Some(format!("@{when}"))),
                false => self.message = Some(format!("no line at or after {when}")),
            }
            return;
        }
        let Some(format) = self.time else { return };
        let text = &*self.text;
        let ordered = in_order(text, format, progress);
        // No line before the first block whose recorded times reach the
        // target has a time at or after it.
        let from = if ordered { 0 } else { text.time_floor(format, target) };
        let found = match ordered {
            true => bisect(text, format, target, progress),
            false => scan(text, format, from, target, progress),
        };
        let when = time::format(target);
        let unordered = match (ordered, from) {
            (true, _) => String::new(),
            (false, 0) => " (times not in order: found by scanning)".to_string(),
            (false, _) => format!(" (times not in order: found by scanning from byte {from})"),
        };
        match found {
            Some(at) => {
                self.top = at;
                self.message = Some(format!("@{when}{unordered}"));
            }
            None => self.message = Some(format!("no line at or after {when}{unordered}")),
        }
    }
}
