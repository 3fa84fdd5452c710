//! `tg view s3://BUCKET/KEY`: a remote object (`trigrep::remote`) opened
//! as the door says a viewer opens a file ([`Door::Viewer`]), its bytes
//! fetched by range where an index says where lines are: a packed object
//! through the block index it carries (its ends fetched, then one frame
//! per screen or jump), a plain object through its index object (`tg
//! index s3://…`: one block per screen or jump); anything else (a
//! compressed object, a plain one without an index object) is fetched
//! as a stream into a spool, as stdin is.
//!
//! Scrolling through a huge object keeps memory bounded: a reader holds
//! at most [`HOLDING`] bytes of what it fetched (the pieces used least
//! recently dropped first), and the viewer a few pieces of text
//! ([`super::ahead`]), the next one read ahead in the background: of a
//! text read through a block index, and of another tool's seekable zstd
//! object ([`Seekable`]: the frames a piece covers, fetched together).

use std::io;
use std::sync::Arc;

use trigrep::kind::Door;
use trigrep::pack::read::PackedFile;
use trigrep::remote::{self, Rules, indexed};
use trigrep::search::decode::Transform;
use trigrep::text::Opened;
use trigrep::text::packed::PackedText;

use super::ahead::{Pieces, ReadAt};
use super::text::{self, Text};

/// Bytes of what was fetched of an object a viewing session holds at
/// most: many screens' frames, and a block index's worth of them.
const HOLDING: u64 = 16 << 20;

/// Opens the one object the remote path `written` names, with index
/// objects kept under `base`.
pub fn open(written: &str, base: &std::path::Path) -> anyhow::Result<Arc<dyn Text>> {
    let failed = |e: &dyn std::fmt::Display| anyhow::anyhow!("{written}: {e}");
    let listed = match remote::list(written, Rules::default()) {
        Some(listed) => listed.map_err(|e| failed(&e))?,
        None => anyhow::bail!("{written}: not a remote path"),
    };
    let [one] = &listed[..] else {
        anyhow::bail!("{written}: names {} objects; the viewer shows one", listed.len())
    };
    anyhow::ensure!(one.explicit, "{written}: is a prefix; the viewer shows one object");
    let object = &one.object.clone().holding_at_most(HOLDING);
    let opening = Door::Viewer.opening(std::path::Path::new(written));
    let packed = match opening.packed {
        true => remote::open_packed(object, written, base).map_err(|e| failed(&e))?,
        false => None,
    };
    if let Some(packed) = packed.filter(|p| p.is_tg() || opening.seekable) {
        if packed.is_tg()
            && let Opened::Trusted(text) =
                PackedText::read_checked(&packed).map_err(|e| failed(&e))?
        {
            return Ok(text::indexed(text, "packed, fetched by range"));
        }
        return Ok(match packed.is_tg() {
            true => text::frames(packed),
            false => Arc::new(Seekable::new(packed)),
        });
    }
    if let Some(format) = opening.decompress {
        let body = Box::new(object.reader().map_err(|e| failed(&e))?);
        let path = std::path::Path::new(written);
        let decoded = Transform::decode(format, path, body).map_err(|e| failed(&e))?;
        return text::spool(decoded, "fetching");
    }
    if let Some(text) = indexed::open(object, written, base).map_err(|e| failed(&e))? {
        return Ok(text::indexed(text, "block index, fetched by range"));
    }
    text::spool(Box::new(object.reader().map_err(|e| failed(&e))?), "fetching")
}

/// Another tool's seekable zstd object (no tg index): its text read by
/// pieces of [`PIECE`](super::ahead::PIECE) bytes, each the frames it covers fetched in one
/// request and decompressed, the next piece read ahead in the background
/// as a read nears its piece's end ([`Pieces`]).
struct Seekable {
    len: u64,
    pieces: Pieces,
}

impl Seekable {
    fn new(packed: PackedFile) -> Seekable {
        let len = packed.text_len();
        let read: ReadAt =
            Arc::new(move |offset, buf: &mut [u8]| read_frames(&packed, offset, buf));
        Seekable { len, pieces: Pieces::new(len, read, true) }
    }
}

/// Fills `buf` with the text of `packed` from `offset`: the frames it
/// covers fetched together, then decompressed one by one.
fn read_frames(packed: &PackedFile, offset: u64, buf: &mut [u8]) -> io::Result<()> {
    let frames = packed.frames();
    let end = offset + buf.len() as u64;
    let first = frames.partition_point(|f| f.text_offset + f.text_len <= offset);
    let last = frames.partition_point(|f| f.text_offset < end);
    packed.want_frames(&(first..last).collect::<Vec<_>>())?;
    let mut dctx = zstd::bulk::Decompressor::new()?;
    let (mut text, mut filled) = (Vec::new(), 0);
    for (i, f) in frames.iter().enumerate().take(last).skip(first) {
        packed.frame(i, &mut dctx, &mut text).map_err(io::Error::other)?;
        let from = offset.saturating_sub(f.text_offset) as usize;
        let to = (end - f.text_offset).min(text.len() as u64) as usize;
        let part = text
            .get(from..to)
            .ok_or_else(|| io::Error::other("a frame shorter than its seek table says"))?;
        buf[filled..filled + part.len()].copy_from_slice(part);
        filled += part.len();
    }
    match filled == buf.len() {
        true => Ok(()),
        false => Err(io::ErrorKind::UnexpectedEof.into()),
    }
}

impl Text for Seekable {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.len.saturating_sub(offset) as usize);
        if n == 0 {
            return Ok(0);
        }
        self.pieces.read_at(offset, n, buf)
    }

    fn kind(&self) -> &str {
        "seekable zstd, fetched by range"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;
    use std::ops::Range;
    use std::sync::Mutex;
    use std::time::{Duration, Instant};
    use trigrep::pack::Store;

    /// A file fetched by range, as a remote object is: what it was asked
    /// for (each `want`) counted, nothing held.
    struct Fetching {
        file: Vec<u8>,
        wants: Mutex<usize>,
    }

    impl Store for Fetching {
        fn len(&self) -> u64 {
            self.file.len() as u64
        }

        fn bytes(&self, r: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
            Ok(Cow::Borrowed(&self.file[r.start as usize..r.end as usize]))
        }

        fn want(&self, _: &[Range<u64>]) -> io::Result<()> {
            *self.wants.lock().unwrap() += 1;
            Ok(())
        }

        fn holds(&self, _: Range<u64>) -> bool {
            false
        }
    }

    /// `data` in zstd's seekable format (its contrib library), 4 KiB frames.
    fn seekable_zst(data: &[u8]) -> Vec<u8> {
        use zstd_safe::seekable::SeekableCStream;
        use zstd_safe::{InBuffer, OutBuffer};
        let mut out = vec![0u8; data.len() + (1 << 20)];
        let mut c = SeekableCStream::create();
        c.init(3, true, 4096).unwrap();
        let (mut input, mut output) = (InBuffer::around(data), OutBuffer::around(&mut out[..]));
        while input.pos() < data.len() {
            c.compress_stream(&mut output, &mut input).unwrap();
        }
        while c.end_stream(&mut output).unwrap() != 0 {}
        let n = output.pos();
        out.truncate(n);
        out
    }

    #[test]
    fn reading_on_through_another_tools_seekable_zst_finds_the_next_piece_fetched_ahead() {
        let data: Vec<u8> =
            (0..40_000).flat_map(|i| format!("line {i} of the log\n").into_bytes()).collect();
        let store = Arc::new(Fetching { file: seekable_zst(&data), wants: Mutex::new(0) });
        let packed = PackedFile::open_store(store.clone()).unwrap().expect("a seekable file");
        assert!(!packed.is_tg());
        let text = Seekable::new(packed);
        let wants = || *store.wants.lock().unwrap();
        let read = |at: usize| {
            let mut buf = vec![0; 4096];
            let n = text.read_at(at as u64, &mut buf).unwrap();
            assert_eq!(&buf[..n], &data[at..at + n]);
        };
        // Past the middle of the first piece (its frames fetched in one
        // request): the next piece is fetched ahead, unasked, and reading
        // on there fetches nothing more.
        let before = wants();
        read(200 << 10);
        let started = Instant::now();
        while wants() < before + 2 && started.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(10));
        }
        let ahead = wants();
        assert_eq!(ahead, before + 2, "a read, and the next piece fetched ahead");
        std::thread::sleep(Duration::from_millis(100));
        read(300 << 10);
        assert_eq!(wants(), ahead, "the piece after was fetched again, not ahead");
    }
}
