//! What identifies a file, on each system.

/// What identifies a file on its system: device and inode on Unix, volume
/// serial number and file index on Windows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileId {
    /// The device (Unix) or volume serial number (Windows).
    pub dev: u64,
    /// The inode (Unix) or file index (Windows).
    pub ino: u64,
}
