//! Where index files live: a small [`Storage`] trait with a directory
//! implementation ([`FsStorage`]) and an in-memory one (`MemStorage`).
//!
//! Publishing is atomic. [`Storage::begin`] hands out a [`PendingIndex`]
//! to write the new file into; only [`PendingIndex::commit`] makes it
//! visible, and dropping it without committing leaves the previous index
//! as it was. For a directory that means: write a temporary file in the
//! same directory, fsync it, rename it over `INDEX_FILE`, fsync the
//! directory. A process killed at any point leaves either the old or the
//! new index in place, never a torn one. A killed writer may leave its
//! `.index.tg.*.tmp` file behind; it is never read, and the next
//! [`Storage::begin`] in the directory removes it. A writer holds an
//! exclusive lock (`flock`) on its temporary file for as long as it lives,
//! so a temporary file nobody holds a lock on belongs to a dead process,
//! while a concurrent build's file is left alone.

use std::fs::File;
use std::io::{self, Write};
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use memmap2::Mmap;

use super::error::IndexError;
use super::temp::{locked_temp_file, remove_own_temp_files};

/// Name of the index file inside an index directory.
pub(crate) const INDEX_FILE: &str = "index.tg";

/// The build lock's file name in an index directory (see `super::lock`).
pub(crate) const BUILD_LOCK: &str = ".building";

/// The request to give way's file name in an index directory (see `super::lock`).
pub(crate) const TAKEOVER: &str = ".takeover";

/// The name of the text file recording which tree an index directory belongs to.
pub(crate) const KEY_FILE: &str = "ROOT";

/// Prefix and suffix of a writer's temporary file (`.index.tg.XXXXXX.tmp`).
const TEMP_PREFIX: &str = ".index.tg.";
const TEMP_SUFFIX: &str = ".tmp";

/// The bytes of a published index: mapped from disk or shared in memory.
#[derive(Debug)]
pub enum IndexBytes {
    /// A read-only mapping of the index file.
    Mapped(Mmap),
    /// Bytes held in memory.
    Shared(Arc<Vec<u8>>),
    /// A range of a shared read-only mapping (the index inside a packed
    /// file); whoever makes one checks that the range lies within the map.
    Part(Arc<Mmap>, std::ops::Range<usize>),
}

impl Deref for IndexBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            IndexBytes::Mapped(m) => m,
            IndexBytes::Shared(v) => v,
            IndexBytes::Part(m, r) => &m[r.clone()],
        }
    }
}

/// A place where one index is published and read back.
pub trait Storage {
    /// Starts writing a new index; nothing is visible until it is committed.
    fn begin(&self) -> Result<Box<dyn PendingIndex + '_>, IndexError>;
    /// The bytes of the published index.
    fn load(&self) -> Result<IndexBytes, IndexError>;
}

/// A new index being written. Dropping it without [`commit`](Self::commit)
/// discards it.
pub trait PendingIndex: Write {
    /// Makes the written bytes the published index, atomically.
    fn commit(self: Box<Self>) -> Result<(), IndexError>;
}

/// Steps of a directory publish at which tests inject failures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) enum Step {
    /// Creating the temporary file.
    Create,
    /// A write at this offset of the temporary file.
    Write(u64),
    /// fsync of the temporary file.
    SyncFile,
    /// The rename over the index file.
    Rename,
    /// fsync of the directory.
    SyncDir,
}

#[cfg(test)]
type FailHook = Arc<dyn Fn(Step) -> io::Result<()> + Send + Sync>;

/// An index stored as `INDEX_FILE` in a directory.
#[derive(Clone)]
pub struct FsStorage {
    dir: PathBuf,
    #[cfg(test)]
    fail: Option<FailHook>,
}

impl std::fmt::Debug for FsStorage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FsStorage").field("dir", &self.dir).finish()
    }
}

impl FsStorage {
    /// Storage in `dir` (which must exist).
    pub fn new(dir: &Path) -> Self {
        FsStorage {
            dir: dir.to_path_buf(),
            #[cfg(test)]
            fail: None,
        }
    }

    /// Storage in `dir`, created with its parents if missing.
    pub fn create(dir: &Path) -> Result<Self, IndexError> {
        std::fs::create_dir_all(dir)
            .map_err(|err| IndexError::Place { dir: dir.to_path_buf(), err })?;
        Ok(FsStorage::new(dir))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of the published index file.
    pub fn index_path(&self) -> PathBuf {
        self.dir.join(INDEX_FILE)
    }

    /// Whether an index is published here.
    pub fn has_index(&self) -> bool {
        self.index_path().is_file()
    }

    /// When the published index was committed.
    pub fn published_at(&self) -> Result<std::time::SystemTime, IndexError> {
        Ok(std::fs::metadata(self.index_path())?.modified()?)
    }

    /// Removes the published index (one that failed its check), so that
    /// searches scan instead; an absent index is not an error.
    pub fn withdraw(&self) -> Result<(), IndexError> {
        match std::fs::remove_file(self.index_path()) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e.into()),
            _ => Ok(()),
        }
    }

    /// Records the key this directory is filed under ([`KEY_FILE`]:
    /// [`super::location::key`], the tree or file it describes and its
    /// kind; for `tg status`, never read by queries), written like any
    /// small file ([`FsStorage::write_file`]).
    pub(crate) fn record_key(&self, key: &Path) -> Result<(), IndexError> {
        self.write_file(KEY_FILE, key.as_os_str().as_encoded_bytes())
    }

    /// Writes `bytes` as the file `name` here, atomically and durably as an
    /// index is published: a locked temporary file (swept the same way when
    /// its writer dies), fsync, rename, fsync of the directory.
    pub fn write_file(&self, name: &str, bytes: &[u8]) -> Result<(), IndexError> {
        let mut tmp = locked_temp_file(&self.dir, TEMP_PREFIX, TEMP_SUFFIX)?;
        tmp.write_all(bytes)?;
        tmp.as_file().sync_all()?;
        tmp.persist(self.dir.join(name)).map_err(|e| e.error)?;
        crate::sys::sync_dir(&self.dir)?;
        Ok(())
    }

    /// The same storage, calling `hook` before each step of a publish; an
    /// error from the hook is returned as if the step had failed.
    #[cfg(test)]
    pub(crate) fn with_fail_hook(mut self, hook: FailHook) -> Self {
        self.fail = Some(hook);
        self
    }

    /// Runs the test hook, if any, before `step`.
    #[inline]
    fn check(&self, _step: Step) -> io::Result<()> {
        #[cfg(test)]
        if let Some(h) = &self.fail {
            return h(_step);
        }
        Ok(())
    }
}

struct FsPending<'a> {
    storage: &'a FsStorage,
    tmp: tempfile::NamedTempFile,
    written: u64,
}

impl Write for FsPending<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.storage.check(Step::Write(self.written))?;
        let n = self.tmp.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.tmp.flush()
    }
}

impl PendingIndex for FsPending<'_> {
    fn commit(self: Box<Self>) -> Result<(), IndexError> {
        let FsPending { storage, mut tmp, .. } = *self;
        tmp.flush()?;
        storage.check(Step::SyncFile)?;
        tmp.as_file().sync_all()?;
        storage.check(Step::Rename)?;
        tmp.persist(storage.dir.join(INDEX_FILE)).map_err(|e| e.error)?;
        storage.check(Step::SyncDir)?;
        crate::sys::sync_dir(&storage.dir)?;
        Ok(())
    }
}

impl Storage for FsStorage {
    fn begin(&self) -> Result<Box<dyn PendingIndex + '_>, IndexError> {
        self.check(Step::Create)?;
        let tmp = locked_temp_file(&self.dir, TEMP_PREFIX, TEMP_SUFFIX)?;
        Ok(Box::new(FsPending { storage: self, tmp, written: 0 }))
    }

    fn load(&self) -> Result<IndexBytes, IndexError> {
        let path = self.dir.join(INDEX_FILE);
        let file = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(IndexError::NotFound(path));
            }
            Err(e) => return Err(e.into()),
        };
        if file.metadata()?.len() == 0 {
            return Ok(IndexBytes::Shared(Arc::new(Vec::new())));
        }
        // SAFETY: an index file is only ever replaced by rename (see
        // `FsPending::commit`), never rewritten or truncated in place, so
        // the inode mapped here keeps its bytes for as long as the mapping
        // lives, even after a newer index is published. Another program
        // truncating the file would break this (SIGBUS on access); trigrep
        // never does.
        let map = unsafe { Mmap::map(&file)? };
        Ok(IndexBytes::Mapped(map))
    }
}

impl FsStorage {
    /// Removes this directory if no index was ever published in it (a
    /// first build failed or was interrupted): its build lock and this
    /// process's temporary files go, then the directory, unless something
    /// else is in it. Best effort: errors are ignored.
    pub fn remove_if_unpublished(&self) {
        if self.has_index() {
            return;
        }
        self.remove_own_temp_files();
        let _ = std::fs::remove_file(self.dir.join(BUILD_LOCK));
        // A request to give way that someone holds stays: its holder waits here.
        let takeover = self.dir.join(TAKEOVER);
        if File::open(&takeover).is_ok_and(|f| f.try_lock().is_ok()) {
            let _ = std::fs::remove_file(&takeover);
        }
        let _ = std::fs::remove_dir(&self.dir);
    }

    /// Removes the temporary files this process is writing here: for a
    /// build interrupted by a signal, which will not get to drop them.
    /// Best effort: errors are ignored.
    pub fn remove_own_temp_files(&self) {
        remove_own_temp_files(&self.dir, TEMP_PREFIX, TEMP_SUFFIX);
    }
}

/// An index kept in memory: for tests and for indexes that are never saved.
#[derive(Debug, Default)]
pub(crate) struct MemStorage {
    current: Mutex<Option<Arc<Vec<u8>>>>,
}

impl MemStorage {
    /// Empty storage (no index published yet).
    pub fn new() -> Self {
        Self::default()
    }
}

struct MemPending<'a> {
    storage: &'a MemStorage,
    buf: Vec<u8>,
}

impl Write for MemPending<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl PendingIndex for MemPending<'_> {
    fn commit(self: Box<Self>) -> Result<(), IndexError> {
        let mut cur = self.storage.current.lock().unwrap_or_else(|e| e.into_inner());
        *cur = Some(Arc::new(self.buf));
        Ok(())
    }
}

impl Storage for MemStorage {
    fn begin(&self) -> Result<Box<dyn PendingIndex + '_>, IndexError> {
        Ok(Box::new(MemPending { storage: self, buf: Vec::new() }))
    }

    fn load(&self) -> Result<IndexBytes, IndexError> {
        let cur = self.current.lock().unwrap_or_else(|e| e.into_inner());
        match &*cur {
            Some(b) => Ok(IndexBytes::Shared(Arc::clone(b))),
            None => Err(IndexError::NotFound(PathBuf::from("<memory>"))),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// One conformance suite, run on every implementation.
    fn conformance(s: &dyn Storage) {
        assert!(matches!(s.load(), Err(IndexError::NotFound(_))));
        let mut p = s.begin().unwrap();
        p.write_all(b"first").unwrap();
        p.commit().unwrap();
        assert_eq!(&*s.load().unwrap(), b"first");
        let held = s.load().unwrap();
        let mut p = s.begin().unwrap();
        p.write_all(b"dropped").unwrap();
        drop(p);
        assert_eq!(&*s.load().unwrap(), b"first");
        let mut p = s.begin().unwrap();
        p.write_all(b"second!").unwrap();
        p.commit().unwrap();
        assert_eq!(&*s.load().unwrap(), b"second!");
        // A reader of the old index keeps its bytes.
        assert_eq!(&*held, b"first");
    }

    #[test]
    fn mem_storage_conforms() {
        conformance(&MemStorage::new());
    }

    #[test]
    fn fs_storage_conforms_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        conformance(&FsStorage::new(dir.path()));
        assert_eq!(names(dir.path()), vec![INDEX_FILE.to_string()]);
    }

    /// The sorted names of the entries of `dir` (also used by the reader's tests).
    pub(crate) fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        v.sort();
        v
    }

    /// Crash test: temp files of killed builds must not pile up,
    /// and a live build's temp file must survive another build's sweep.
    #[test]
    fn begin_removes_temp_files_of_dead_writers_only() {
        let dir = tempfile::tempdir().unwrap();
        let s = FsStorage::new(dir.path());
        // A writer that died: its file exists, nobody holds its lock.
        std::fs::write(dir.path().join(".index.tg.dead01.tmp"), b"torn").unwrap();
        // A writer that is alive: another pending index of this storage.
        let mut live = s.begin().unwrap();
        live.write_all(b"live").unwrap();
        let live_name = names(dir.path()).into_iter().find(|n| n != ".index.tg.dead01.tmp");
        // Another file that only looks similar is not ours to remove.
        std::fs::write(dir.path().join("index.tg.notes"), b"keep").unwrap();
        let mut p = s.begin().unwrap();
        p.write_all(b"new").unwrap();
        p.commit().unwrap();
        let mut expect = vec![INDEX_FILE.to_string(), "index.tg.notes".to_string()];
        expect.extend(live_name);
        expect.sort();
        assert_eq!(names(dir.path()), expect);
        // The live writer still publishes.
        live.commit().unwrap();
        assert_eq!(&*s.load().unwrap(), b"live");
        assert_eq!(names(dir.path()), vec![INDEX_FILE.to_string(), "index.tg.notes".to_string()]);
    }
}
