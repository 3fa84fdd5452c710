//! How one file's bytes reach the searcher: memory map or buffered reads.
//!
//! [`io_choice`] is the whole `--io auto` rule, a pure function of the
//! file's size and the memory available; docs/IO.md has
//! the measurements behind it, per system. [`mem_available`] asks the
//! system ([`crate::sys`]); [`advise_sequential`] and [`advise_map_sequential`]
//! give the kernel its read-ahead hints where it takes them.
//!
//! The strategy only decides *how* bytes are read, never *what* is printed:
//! files searched in chunks are always searched as slices (ripgrep's
//! memory-map semantics), whichever way the bytes arrived. See
//! `src/chunk/mod.rs`.

use std::fs::File;

/// The read strategy actually used for one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// The file is memory-mapped and searched in place.
    Mmap,
    /// The file is read with `pread` into large buffers.
    Read,
}

impl Strategy {
    /// The strategy's name in `--stats`.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Mmap => "mmap",
            Strategy::Read => "read",
        }
    }
}

/// How many times the available memory a file may be and still be mapped.
pub(crate) const MAP_UP_TO_AVAILABLE: u64 = 4;

/// The `--io auto` rule for a file of `file_size` bytes when `mem_available`
/// bytes of memory are available (`None`: unknown): map a file of up to
/// [`MAP_UP_TO_AVAILABLE`] × the available memory, read a larger one.
///
/// Cold, with the prefetcher reading ahead of the workers (every fault of
/// the map is then a minor one) and the VM's memory held steady, the map
/// was ahead of read or level with it in every cell from 0.12 to 3.0 ×
/// MemAvailable, for a light query and for an inverted, output-bound one
/// (docs/IO.md): reading copies every byte. At 5 × read was ahead on the
/// inverted query (+6 %) and the map only 2.5 % ahead on the light one, so
/// the boundary sits between 3 and 5. Hot, the map saves the copy (3–4x).
///
/// On Windows every file this rule decides is read: the one measurement
/// there (rg's default map on a 51 GB file, Windows 11) lost 1.22x on a
/// fixed string and 2.89x on a regex with exclusion, and none showed the
/// map winning. macOS keeps the rule (no difference was measured there).
pub(crate) fn io_choice(file_size: u64, mem_available: Option<u64>) -> Strategy {
    if cfg!(windows) {
        return Strategy::Read;
    }
    match mem_available {
        Some(avail) if file_size <= avail.saturating_mul(MAP_UP_TO_AVAILABLE) => Strategy::Mmap,
        _ => Strategy::Read,
    }
}

/// Memory available to new work, in bytes; `None` where unknown
/// ([`crate::sys::mem_available`]).
pub fn mem_available() -> Option<u64> {
    crate::sys::mem_available()
}

/// Tells the kernel `file` will be read sequentially (doubles read-ahead).
pub fn advise_sequential(file: &File) {
    crate::sys::advise_sequential(file)
}

/// Asks the kernel to start reading `[offset, offset + len)` of `file`
/// into the page cache (asynchronously).
pub fn advise_willneed(file: &File, offset: u64, len: u64) {
    crate::sys::advise_willneed(file, offset, len)
}

/// Tells the kernel a mapping will be read sequentially.
pub fn advise_map_sequential(map: &memmap2::Mmap) {
    crate::sys::advise_map_sequential(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    #[cfg(not(windows))]
    #[test]
    fn files_that_fit_are_mapped() {
        assert_eq!(io_choice(GIB, Some(16 * GIB)), Strategy::Mmap);
        assert_eq!(io_choice(16 * GIB, Some(16 * GIB)), Strategy::Mmap);
        assert_eq!(io_choice(64 * GIB, Some(16 * GIB)), Strategy::Mmap);
    }

    #[test]
    fn larger_files_are_read() {
        assert_eq!(io_choice(64 * GIB + 1, Some(16 * GIB)), Strategy::Read);
        assert_eq!(io_choice(200 * GIB, Some(16 * GIB)), Strategy::Read);
    }

    #[cfg(not(windows))]
    #[test]
    fn unknown_memory_reads() {
        assert_eq!(io_choice(GIB, None), Strategy::Read);
        assert_eq!(io_choice(GIB, Some(u64::MAX)), Strategy::Mmap);
    }

    #[cfg(windows)]
    #[test]
    fn windows_reads_every_file() {
        assert_eq!(io_choice(GIB, Some(16 * GIB)), Strategy::Read);
    }
}
