//! Windows: paths are WTF-8 bytes of UTF-16 names, a file is known by its
//! volume serial number and file index, memory figures come from
//! `GetProcessMemoryInfo` and `GlobalMemoryStatusEx`, a stop is a console
//! event. There is no read-ahead advice to give (the system's own
//! read-ahead serves sequential reads).

use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::fs::{File, Metadata};
use std::os::windows::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::os::windows::io::AsRawHandle;
use std::os::windows::process::CommandExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use windows_sys::Win32::Foundation::CloseHandle;
use windows_sys::Win32::Storage::FileSystem::{
    BY_HANDLE_FILE_INFORMATION, FILE_FLAG_BACKUP_SEMANTICS, GetFileInformationByHandle,
};
use windows_sys::Win32::System::Console::SetConsoleCtrlHandler;
use windows_sys::Win32::System::ProcessStatus::{
    GetProcessMemoryInfo, PROCESS_MEMORY_COUNTERS, PROCESS_MEMORY_COUNTERS_EX,
};
use windows_sys::Win32::System::SystemInformation::{GlobalMemoryStatusEx, MEMORYSTATUSEX};
use windows_sys::Win32::System::Threading::{
    CREATE_NEW_PROCESS_GROUP, DETACHED_PROCESS, GetCurrentProcess, OpenProcess,
    PROCESS_MODE_BACKGROUND_BEGIN, PROCESS_TERMINATE, SetPriorityClass, TerminateProcess,
};

use super::id::FileId;
pub(crate) use super::portable::read_cached;
pub use super::portable::{
    ExitWatch, advise_sequential, advise_willneed, page_resident, release_free_heap, reopen,
    send_to_null,
};

pub fn os_str(b: &[u8]) -> Cow<'_, OsStr> {
    match std::str::from_utf8(b) {
        Ok(s) => Cow::Borrowed(OsStr::new(s)),
        Err(_) => Cow::Owned(OsString::from(String::from_utf8_lossy(b).into_owned())),
    }
}

pub fn os_string(b: Vec<u8>) -> OsString {
    match String::from_utf8(b) {
        Ok(s) => OsString::from(s),
        Err(e) => OsString::from(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    }
}

pub fn rel_bytes(p: &Path) -> Cow<'_, [u8]> {
    let b = p.as_os_str().as_encoded_bytes();
    if !b.contains(&b'\\') {
        return Cow::Borrowed(b);
    }
    Cow::Owned(b.iter().map(|&c| if c == b'\\' { b'/' } else { c }).collect())
}

pub fn rel_path(b: &[u8]) -> Cow<'_, Path> {
    if !b.contains(&b'/') {
        return match os_str(b) {
            Cow::Borrowed(s) => Cow::Borrowed(Path::new(s)),
            Cow::Owned(s) => Cow::Owned(s.into()),
        };
    }
    let swapped: Vec<u8> = b.iter().map(|&c| if c == b'/' { b'\\' } else { c }).collect();
    Cow::Owned(os_string(swapped).into())
}

pub fn file_id(path: &Path, _md: &Metadata) -> FileId {
    std::fs::OpenOptions::new()
        .access_mode(0)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)
        .map_or(FileId::default(), |f| open_file_id(&f))
}

pub fn open_file_id(file: &File) -> FileId {
    // SAFETY: plain data, filled by the call below.
    let mut info: BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
    // SAFETY: the handle is `file`'s, open for the call; `info` is ours.
    if unsafe { GetFileInformationByHandle(file.as_raw_handle(), &mut info) } == 0 {
        return FileId::default();
    }
    FileId {
        dev: u64::from(info.dwVolumeSerialNumber),
        ino: (u64::from(info.nFileIndexHigh) << 32) | u64::from(info.nFileIndexLow),
    }
}

/// 100-ns ticks between 1601-01-01 (Windows' epoch) and 1970-01-01.
const EPOCH_TICKS: i64 = 116_444_736_000_000_000;

fn ticks_to_ns(ticks: u64) -> i64 {
    (ticks as i64).saturating_sub(EPOCH_TICKS).saturating_mul(100)
}

pub fn changed_ns(md: &Metadata) -> i64 {
    ticks_to_ns(md.last_write_time())
}

pub fn modified_ns(md: &Metadata) -> i64 {
    ticks_to_ns(md.last_write_time())
}

pub fn sync_dir(_dir: &Path) -> std::io::Result<()> {
    Ok(())
}

pub fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    file.seek_read(buf, offset)
}

pub fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        match file.seek_read(buf, offset) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

pub fn advise_map_sequential(_map: &memmap2::Mmap) {}

/// This process's memory counters.
fn counters() -> Option<PROCESS_MEMORY_COUNTERS_EX> {
    // SAFETY: plain data, filled by the call below.
    let mut c: PROCESS_MEMORY_COUNTERS_EX = unsafe { std::mem::zeroed() };
    c.cb = std::mem::size_of::<PROCESS_MEMORY_COUNTERS_EX>() as u32;
    // SAFETY: the pseudo-handle of this process; `c` is valid for `cb` bytes.
    let ok = unsafe {
        GetProcessMemoryInfo(
            GetCurrentProcess(),
            (&raw mut c).cast::<PROCESS_MEMORY_COUNTERS>(),
            c.cb,
        )
    };
    (ok != 0).then_some(c)
}

pub fn faults() -> (u64, u64) {
    counters().map_or((0, 0), |c| (u64::from(c.PageFaultCount), 0))
}

pub fn cpu_time() -> std::time::Duration {
    use windows_sys::Win32::Foundation::FILETIME;
    use windows_sys::Win32::System::Threading::GetProcessTimes;
    let zero = FILETIME { dwLowDateTime: 0, dwHighDateTime: 0 };
    let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
    // SAFETY: the pseudo-handle of this process and four times we own.
    let ok = unsafe {
        GetProcessTimes(GetCurrentProcess(), &mut created, &mut exited, &mut kernel, &mut user)
    };
    if ok == 0 {
        return std::time::Duration::ZERO;
    }
    // FILETIMEs count 100-nanosecond intervals.
    let ticks = |t: FILETIME| (u64::from(t.dwHighDateTime) << 32) | u64::from(t.dwLowDateTime);
    std::time::Duration::from_nanos((ticks(kernel) + ticks(user)) * 100)
}

pub fn private_bytes() -> u64 {
    counters().map_or(0, |c| c.PrivateUsage as u64)
}

pub fn peak_resident() -> u64 {
    counters().map_or(0, |c| c.PeakWorkingSetSize as u64)
}

pub fn mem_available() -> Option<u64> {
    // SAFETY: plain data, filled by the call below.
    let mut m: MEMORYSTATUSEX = unsafe { std::mem::zeroed() };
    m.dwLength = std::mem::size_of::<MEMORYSTATUSEX>() as u32;
    // SAFETY: `m` is valid and its length set.
    (unsafe { GlobalMemoryStatusEx(&mut m) } != 0).then_some(m.ullAvailPhys)
}

pub fn page_size() -> u64 {
    4096
}

pub fn lower_priority() {
    // SAFETY: the pseudo-handle of this process; a failure keeps the priority.
    unsafe {
        SetPriorityClass(GetCurrentProcess(), PROCESS_MODE_BACKGROUND_BEGIN);
    }
}

pub fn detach(cmd: &mut std::process::Command) {
    cmd.creation_flags(DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP);
}

pub fn own_group(cmd: &mut std::process::Command) {
    cmd.creation_flags(CREATE_NEW_PROCESS_GROUP);
}

pub fn exec(cmd: &mut std::process::Command) -> std::io::Error {
    match cmd.status() {
        Ok(status) => std::process::exit(status.code().unwrap_or(2)),
        Err(e) => e,
    }
}

pub fn terminate(pid: u32) -> std::io::Result<()> {
    // SAFETY: the handle is checked, used once and closed.
    unsafe {
        let h = OpenProcess(PROCESS_TERMINATE, 0, pid);
        if h.is_null() {
            return Err(std::io::Error::last_os_error());
        }
        let ok = TerminateProcess(h, 1);
        let err = std::io::Error::last_os_error();
        CloseHandle(h);
        if ok == 0 { Err(err) } else { Ok(()) }
    }
}

type OnStop = Box<dyn FnOnce(i32) + Send>;

/// What a console event runs: the first `on_stop` action, and flags.
static STOPS: Mutex<(Vec<OnStop>, Vec<Arc<AtomicBool>>)> = Mutex::new((Vec::new(), Vec::new()));

/// The console's handler (on a thread of the system's): Ctrl-C is SIGINT
/// (2), anything else (Ctrl-Break, the console closing) SIGTERM (15).
unsafe extern "system" fn console_event(kind: u32) -> windows_sys::core::BOOL {
    let sig = if kind == 0 { 2 } else { 15 };
    let mut stops = STOPS.lock().unwrap_or_else(|e| e.into_inner());
    for flag in &stops.1 {
        flag.store(true, Ordering::SeqCst);
    }
    let actions: Vec<OnStop> = stops.0.drain(..).collect();
    let flagged = !stops.1.is_empty();
    drop(stops);
    for f in actions {
        f(sig);
    }
    i32::from(flagged)
}

fn install() -> std::io::Result<()> {
    // SAFETY: a static handler that lives as long as the process.
    if unsafe { SetConsoleCtrlHandler(Some(console_event), 1) } == 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

pub fn on_stop(f: impl FnOnce(i32) + Send + 'static) -> std::io::Result<()> {
    STOPS.lock().unwrap_or_else(|e| e.into_inner()).0.push(Box::new(f));
    install()
}

pub fn flag_on_stop(flag: &Arc<AtomicBool>) -> std::io::Result<()> {
    STOPS.lock().unwrap_or_else(|e| e.into_inner()).1.push(Arc::clone(flag));
    install()
}

/// `%LOCALAPPDATA%`, the user's own data that does not roam.
pub fn cache_dir() -> Option<std::path::PathBuf> {
    std::env::var_os("LOCALAPPDATA").filter(|x| !x.is_empty()).map(Into::into)
}

/// The current user's id: Windows has none of Unix's kind (the runtime
/// directory is the user's own temporary directory instead).
pub fn uid() -> u32 {
    0
}

/// Creates directory `dir` if missing. It lies in the user's profile,
/// whose access list admits the user alone.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

/// Files inherit the private directory's access list.
pub fn private_file(opts: &mut std::fs::OpenOptions) -> &mut std::fs::OpenOptions {
    opts
}

/// Fills `buf` with random bytes (the system's generator).
pub fn random(buf: &mut [u8]) -> std::io::Result<()> {
    getrandom::fill(buf).map_err(|e| std::io::Error::other(e.to_string()))
}
