//! macOS (and the BSDs): no `/proc`, no `posix_fadvise`, no pidfds. Free
//! memory comes from `sysctl` (`vm.page_free_count`), the peak resident
//! set from `getrusage` (in bytes there); private memory is not measured.

pub(crate) use super::portable::read_cached;
pub use super::portable::{
    ExitWatch, advise_sequential, advise_willneed, page_resident, release_free_heap, reopen,
    send_to_null,
};

pub fn private_bytes() -> u64 {
    0
}

pub fn peak_resident() -> u64 {
    super::unix::max_rss()
}

pub fn mem_available() -> Option<u64> {
    let mut free: u32 = 0;
    let mut len = std::mem::size_of::<u32>();
    // SAFETY: the name is NUL-terminated; `free` and `len` are valid for
    // writes of the size given.
    let rc = unsafe {
        libc::sysctlbyname(
            c"vm.page_free_count".as_ptr(),
            (&raw mut free).cast(),
            &raw mut len,
            std::ptr::null_mut(),
            0,
        )
    };
    (rc == 0 && free > 0).then(|| u64::from(free) * super::unix::page_size())
}

pub fn lower_priority() {
    // SAFETY: a plain syscall on this process; a failure keeps the priority.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 19);
    }
}
