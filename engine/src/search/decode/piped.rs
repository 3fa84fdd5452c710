//! Programs whose output is searched, run and closed as rg runs them: a
//! `--pre` preprocessor, and `uncompress` for `.Z` files.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::thread::JoinHandle;

/// `COMMAND PATH`'s output, the file on its stdin, as rg runs a
/// preprocessor; its failures read as rg's (`preprocessor command could not
/// start: '…': …`, `preprocessor command failed: '…': …`).
pub(super) fn preprocess(program: &Path, path: &Path) -> io::Result<Box<dyn Read + Send>> {
    let mut command = Command::new(program);
    command.arg(path).stdin(File::open(path)?);
    let shown = format!("{command:?}");
    let context = format!("preprocessor command failed: '{shown}': ");
    let piped = Piped::spawn(&mut command, Some(context)).map_err(|e| {
        io::Error::other(format!("preprocessor command could not start: '{shown}': {e}"))
    })?;
    Ok(Box::new(piped))
}

/// `uncompress -c PATH`'s output, as rg reads a `.Z` file; the file itself
/// when `uncompress` cannot start (rg's fallback).
pub(super) fn uncompress(path: &Path) -> io::Result<Box<dyn Read + Send>> {
    let mut command = Command::new("uncompress");
    command.arg("-c").arg(path).stdin(Stdio::null());
    match Piped::spawn(&mut command, None) {
        Ok(piped) => Ok(Box::new(piped)),
        Err(_) => Ok(Box::new(File::open(path)?)),
    }
}

/// A failure's message as rg shows a child's stderr: between two rules of
/// dashes on lines of their own, or `<stderr is empty>`.
pub(super) fn framed(message: &str) -> io::Error {
    let message = message.trim();
    if message.is_empty() {
        return io::Error::other("<stderr is empty>");
    }
    let rule = "-".repeat(79);
    io::Error::other(format!("\n{rule}\n{message}\n{rule}"))
}

/// A child process's stdout as a reader, closed as rg closes one: at the
/// end of its output, a failed exit is an error carrying its stderr (read
/// on a thread of its own, so a chatty child cannot block); stopped early
/// (`-l`, `-q`, `-m`), its stdout is closed and it is waited for, and its
/// failure counts only if it said why.
struct Piped {
    child: Child,
    stdout: Option<ChildStdout>,
    stderr: Option<JoinHandle<Vec<u8>>>,
    /// Whether its output was read to the end.
    eof: bool,
    /// Put before every error (the preprocessor's `… failed: '…': `).
    context: Option<String>,
}

impl Piped {
    fn spawn(command: &mut Command, context: Option<String>) -> io::Result<Piped> {
        let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
        let stdout = child.stdout.take();
        let mut from = child.stderr.take().expect("stderr is piped");
        let stderr = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = from.read_to_end(&mut bytes);
            bytes
        });
        Ok(Piped { child, stdout, stderr: Some(stderr), eof: false, context })
    }

    /// Closes its stdout and waits for it; its stderr as the error when it
    /// failed, unless it was stopped early and said nothing.
    fn close(&mut self) -> io::Result<()> {
        let Some(stdout) = self.stdout.take() else { return Ok(()) };
        drop(stdout);
        if self.child.wait()?.success() {
            return Ok(());
        }
        let stderr = self.stderr.take().and_then(|h| h.join().ok()).unwrap_or_default();
        if !self.eof && stderr.is_empty() {
            return Ok(());
        }
        Err(framed(&String::from_utf8_lossy(&stderr)))
    }
}

impl Read for Piped {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Some(stdout) = self.stdout.as_mut() else { return Ok(0) };
        let result = match stdout.read(buf) {
            Ok(0) if !buf.is_empty() => {
                self.eof = true;
                self.close().map(|()| 0)
            }
            other => other,
        };
        result.map_err(|e| match &self.context {
            Some(context) if e.kind() != io::ErrorKind::Interrupted => {
                io::Error::other(format!("{context}{e}"))
            }
            _ => e,
        })
    }
}

impl Drop for Piped {
    fn drop(&mut self) {
        // rg logs this failure and goes on; so does tg, silently.
        let _ = self.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(mut r: Box<dyn Read + Send>) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        r.read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn preprocessor_failures_read_as_rgs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        std::fs::write(&path, b"hello\n").unwrap();
        assert_eq!(read_all(preprocess(Path::new("cat"), &path).unwrap()).unwrap(), b"hello\n");
        let err = read_all(preprocess(Path::new("false"), &path).unwrap()).unwrap_err();
        let shown = format!("'\"false\" {:?}'", path.as_os_str());
        let want = format!("preprocessor command failed: {shown}: <stderr is empty>");
        assert_eq!(err.to_string(), want);
        let missing = preprocess(Path::new("/nonexistent/pre"), &path).err().unwrap();
        assert!(missing.to_string().starts_with("preprocessor command could not start: "));
    }

    #[test]
    fn stopped_early_a_silent_child_is_no_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        std::fs::write(&path, b"x\n").unwrap();
        let mut r = preprocess(Path::new("yes"), &path).unwrap();
        let mut buf = [0; 16];
        assert_eq!(r.read(&mut buf).unwrap(), 16);
        drop(r); // `yes` dies of SIGPIPE: nothing to report, and no hang.
    }

    #[test]
    fn a_failing_childs_stderr_is_framed() {
        let err = framed("  gzip: x.gz: not in gzip format\n").to_string();
        let rule = "-".repeat(79);
        assert_eq!(err, format!("\n{rule}\ngzip: x.gz: not in gzip format\n{rule}"));
        assert_eq!(framed(" \n").to_string(), "<stderr is empty>");
    }
}
