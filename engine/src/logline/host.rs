//! Which host wrote a log line, as lnav's `log_hostname` names it: in a
//! BSD syslog line, the word after its time (`Jan  3 10:00:00 web-1
//! sshd[42]: ...` was written by `web-1`). Other formats write none.
//!
//! ```
//! use trigrep::logline::host::detect;
//! use trigrep::logline::time::Format;
//! let syslog = Format::Syslog { year: 2026, month: 1 };
//! assert_eq!(detect(syslog, b"Jan  3 10:00:00 web-1 sshd[42]: hello"), Some(&b"web-1"[..]));
//! assert_eq!(detect(syslog, b"<14>Jan  3 10:00:00 db.local app: x"), Some(&b"db.local"[..]));
//! assert_eq!(detect(syslog, b"Jan  3 10:00:00 sshd[42]: no host"), None, "a tag");
//! assert_eq!(detect(syslog, b"  continued"), None);
//! assert_eq!(detect(Format::Iso, b"2026-01-03 10:00:00 web-1 x"), None);
//! ```

use super::time::{Format, syslog_end};

/// The host `line` (without its `\n`) names in `format`: in a syslog
/// line (one whose start is a syslog time, after a `<PRI>`), the bytes
/// after the time and one space, up to the next space. None when the line
/// has no such time, when that word is empty or is not followed by a
/// space (nothing is written after it), or when it ends with `:` (then
/// it is the program's tag: the line names no host).
pub fn detect(format: Format, line: &[u8]) -> Option<&[u8]> {
    let Format::Syslog { .. } = format else { return None };
    let end = syslog_end(line)?;
    let rest = line[end..].strip_prefix(b" ")?;
    let word = &rest[..memchr::memchr(b' ', rest)?];
    (!word.is_empty() && !word.ends_with(b":")).then_some(word)
}
