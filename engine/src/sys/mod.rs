//! The platform seam: every call into the operating system that
//! differs between Linux, macOS and Windows lives below this folder, and no
//! other module names `libc`, `std::os::unix`, `/proc` or `inotify`
//! (`tests/layout.rs` checks it).
//!
//! - `unix` (Linux and macOS): `getrusage`, file modes, `kill`,
//!   sessions, `exec`, positional reads; `linux` adds `/proc`,
//!   `posix_fadvise`, `mincore`/`sendfile` read-ahead, `ioprio`, pidfds
//!   and inotify ([`watch`]); `bsd` (macOS) asks `sysctl` for free memory
//!   and has no read-ahead advice.
//! - `windows`: volume serial and file index for identity, the last write
//!   time for the change time, `GetProcessMemoryInfo`,
//!   `GlobalMemoryStatusEx`, background priority, console events.
//!
//! Paths travel through the engine as bytes (`OsStr::as_encoded_bytes`):
//! on Unix a path's own bytes; on Windows the WTF-8 bytes of its UTF-16
//! name, with `/` between the components of a path below an indexed root
//! ([`rel_bytes`]). An index records which of the two it
//! holds ([`PATH_STYLE`]) so that one built on another system is refused.
//! The server's door ([`door`]) and the watcher ([`watch`]) are chosen
//! here too.

use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::fs::{File, Metadata};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

pub mod dirstat;
pub mod door;
mod id;
mod token;
pub mod watch;

pub use id::FileId;
pub use token::new_token;

#[cfg(all(unix, not(target_os = "linux")))]
mod bsd;
#[cfg(target_os = "linux")]
mod linux;
#[cfg(not(target_os = "linux"))]
mod portable;
#[cfg(unix)]
mod unix;
#[cfg(windows)]
mod windows;

#[cfg(all(unix, not(target_os = "linux")))]
use bsd as os;
#[cfg(target_os = "linux")]
use linux as os;
#[cfg(unix)]
use unix as family;
#[cfg(windows)]
use windows as family;
#[cfg(windows)]
use windows as os;

/// How paths are stored as bytes on this system: 0 for Unix (a path's own
/// bytes), 1 for Windows (WTF-8 of UTF-16 names). An index records it; one
/// of another style is refused.
pub const PATH_STYLE: u8 = if cfg!(windows) { 1 } else { 0 };

/// The OS string of stored bytes (the inverse of `as_encoded_bytes`); on
/// Windows, bytes that are not WTF-8 of this system are read lossily.
pub fn os_str(b: &[u8]) -> Cow<'_, OsStr> {
    family::os_str(b)
}

/// The owned OS string of stored bytes (see [`os_str`]).
pub fn os_string(b: Vec<u8>) -> OsString {
    family::os_string(b)
}

/// A path below an indexed root as the index stores it: bytes with `/`
/// between components on every system (Windows' `\\` is turned into `/`).
pub fn rel_bytes(p: &Path) -> Cow<'_, [u8]> {
    family::rel_bytes(p)
}

/// The path of stored relative bytes (the inverse of [`rel_bytes`]), to
/// join to a root: on Windows with `\\` separators, which a verbatim
/// (`\\?\`) root requires.
pub fn rel_path(b: &[u8]) -> Cow<'_, Path> {
    family::rel_path(b)
}

/// The identity of the file at `path`, whose metadata is `md` (on Unix
/// taken from `md`; on Windows the file is opened and asked; zero when it
/// cannot be).
pub fn file_id(path: &Path, md: &Metadata) -> FileId {
    family::file_id(path, md)
}

/// The identity of the open `file` (see [`file_id`]).
pub fn open_file_id(file: &File) -> FileId {
    family::open_file_id(file)
}

/// A path's status-change time (ctime) in nanoseconds since the epoch; on
/// Windows, where std does not expose the change time, its last write time.
pub fn changed_ns(md: &Metadata) -> i64 {
    family::changed_ns(md)
}

/// A path's modification time in nanoseconds since the epoch.
pub fn modified_ns(md: &Metadata) -> i64 {
    family::modified_ns(md)
}

/// Makes a rename in directory `dir` durable (fsync of the directory on
/// Unix; on Windows a directory cannot be opened for that, and NTFS
/// journals its metadata: nothing is done).
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    family::sync_dir(dir)
}

/// Reads from `file` at `offset` (not moving any shared cursor on Unix; on
/// Windows the file's cursor moves, which no caller uses).
pub fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    family::read_at(file, buf, offset)
}

/// Fills `buf` from `file` at `offset`; an error at the end of the file.
pub fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    family::read_exact_at(file, buf, offset)
}

/// Tells the system `file` will be read sequentially
/// (`POSIX_FADV_SEQUENTIAL` on Linux; nothing elsewhere).
pub fn advise_sequential(file: &File) {
    os::advise_sequential(file)
}

/// Asks the system to start reading `[offset, offset + len)` of `file`
/// (`POSIX_FADV_WILLNEED` on Linux; nothing elsewhere).
pub fn advise_willneed(file: &File, offset: u64, len: u64) {
    os::advise_willneed(file, offset, len)
}

/// Reads into `buf`, at `file`'s position, what the page cache holds,
/// without waiting for the disk: `Some(n)` bytes (fewer than `buf` holds
/// when the rest is not cached or the file ends), `None` when nothing could
/// be read without waiting (`RWF_NOWAIT` on Linux). Where the system cannot
/// tell, it reads as `read` does and never says `None`.
pub(crate) fn read_cached(file: &mut File, buf: &mut [u8]) -> std::io::Result<Option<usize>> {
    os::read_cached(file, buf)
}

/// Tells the system a mapping will be read sequentially
/// (`MADV_SEQUENTIAL` on Unix; nothing on Windows).
pub fn advise_map_sequential(map: &memmap2::Mmap) {
    family::advise_map_sequential(map)
}

/// Page faults of this process so far: (minor, major); on Windows every
/// fault counts as minor (the system does not tell them apart).
pub fn faults() -> (u64, u64) {
    family::faults()
}

/// CPU time this process has used so far, user and system, on all its
/// threads (zero when unknown).
pub fn cpu_time() -> std::time::Duration {
    family::cpu_time()
}

/// This process's private memory now, in bytes (0: unknown): RssAnon on
/// Linux, the private bytes on Windows; unknown on macOS.
pub fn private_bytes() -> u64 {
    os::private_bytes()
}

/// This process's peak resident set, in bytes (0: unknown): VmHWM on
/// Linux, `ru_maxrss` on macOS, the peak working set on Windows.
pub fn peak_resident() -> u64 {
    os::peak_resident()
}

/// Memory available to new work, in bytes (`None`: unknown):
/// `MemAvailable` on Linux, free pages on macOS, available physical
/// memory on Windows.
pub fn mem_available() -> Option<u64> {
    os::mem_available()
}

/// The page size.
pub fn page_size() -> u64 {
    family::page_size()
}

/// Whether the page at `off` (page-aligned) of `map` is in the page cache
/// (`mincore` on Linux; elsewhere never said to be).
pub fn page_resident(map: &[u8], off: usize) -> bool {
    os::page_resident(map, off)
}

/// A new open file description of `file`, with its own read-ahead state
/// (Linux; `None` elsewhere: the prefetcher then only advises).
pub fn reopen(file: &File) -> Option<File> {
    os::reopen(file)
}

/// Reads `[pos, pos + len)` of `file` into the page cache without copying
/// it (`sendfile` to `null` on Linux); false when it could not.
pub fn send_to_null(file: &File, null: &File, pos: u64, len: u64) -> bool {
    os::send_to_null(file, null, pos, len)
}

/// Hands freed heap pages back to the system (glibc's `malloc_trim`).
pub fn release_free_heap() {
    os::release_free_heap()
}

/// Lowers this process to background priority for a build nobody waits
/// for: nice 19 and the lowest best-effort I/O level on Linux (not the idle
/// class: a query may wait for a page the build's read holds), nice 19 on
/// macOS, the background mode on Windows.
pub fn lower_priority() {
    os::lower_priority()
}

/// Makes `cmd` start in a session of its own, without a terminal (a
/// detached process on Windows): a server outlives the query that started it.
pub fn detach(cmd: &mut std::process::Command) {
    family::detach(cmd)
}

/// Makes `cmd` start in a process group of its own, so that the
/// terminal's interrupt does not reach it.
pub fn own_group(cmd: &mut std::process::Command) {
    family::own_group(cmd)
}

/// Replaces this process with `cmd` (Unix `exec`); on Windows runs it and
/// exits with its status. Returns only on failure.
pub fn exec(cmd: &mut std::process::Command) -> std::io::Error {
    family::exec(cmd)
}

/// Asks process `pid` to terminate (SIGTERM; `TerminateProcess` on Windows).
pub fn terminate(pid: u32) -> std::io::Result<()> {
    family::terminate(pid)
}

/// Runs `f` with the signal's number on a thread of its own when the
/// process is asked to stop (SIGINT, SIGTERM, SIGHUP; Ctrl-C and Ctrl-Break
/// on Windows).
pub fn on_stop(f: impl FnOnce(i32) + Send + 'static) -> std::io::Result<()> {
    family::on_stop(f)
}

/// Sets `flag` when the process is asked to stop (as [`on_stop`]).
pub fn flag_on_stop(flag: &Arc<AtomicBool>) -> std::io::Result<()> {
    family::flag_on_stop(flag)
}

/// A watch on a process that tells when it has exited (a pidfd on Linux;
/// `None` elsewhere: callers wait for the server's lock instead).
pub use os::ExitWatch;

/// The user's cache directory where the system has one apart from
/// `~/.cache` (`%LOCALAPPDATA%` on Windows; `None` on Unix).
pub fn cache_dir() -> Option<std::path::PathBuf> {
    family::cache_dir()
}

/// The current user's id (0 on Windows, which has none of that kind).
pub fn uid() -> u32 {
    family::uid()
}

/// Creates the directory `dir` if missing, private to this user: mode 0700
/// and checked (owner, no access for others) on Unix; on Windows a
/// directory in the user's profile, private by its access list.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    family::private_dir(dir)
}

/// Makes files that `opts` creates readable and writable by their owner
/// only (mode 0600 on Unix; the directory's access list on Windows).
pub fn private_file(opts: &mut std::fs::OpenOptions) -> &mut std::fs::OpenOptions {
    family::private_file(opts)
}
