//! In-process decompression: one streaming reader per format, whose
//! errors read as rg shows its decompressor's, and which reads what the
//! decompressor programs rg runs read: every gzip member, bzip2 stream, xz
//! stream and LZ4 frame; trailing zeros after gzip (tar padding) and
//! anything after a bzip2 stream ignored, as `gzip` and `bzip2` ignore
//! them; the bytes decoded before damage handed over before the error, as
//! `xz` writes them.

use std::fs::File;
use std::io::{self, BufRead, Read};
use std::path::{Path, PathBuf};

use bzip2::bufread::BzDecoder;
use flate2::bufread::GzDecoder;
use liblzma::stream::{Action, Status, Stream};

use super::ahead::Ahead;
use crate::kind::Format;

/// The buffer between a compressed file and its decoder.
const INPUT_BUFFER: usize = 256 << 10;

/// Compressed files at least this big are decoded on a thread of their
/// own, ahead of the search; smaller ones are not worth a thread.
const AHEAD_MIN: u64 = 4 << 20;

/// A reader of the decompressed bytes of the file at `path` (`format` is
/// not [`Format::Compress`], which runs a program).
pub(super) fn open(format: Format, path: &Path) -> io::Result<Box<dyn Read + Send>> {
    let file = File::open(path).map_err(|e| failure(format, path, &e))?;
    let big = file.metadata().is_ok_and(|m| m.len() >= AHEAD_MIN);
    let decoded = decoder(format, path, file)?;
    if !big {
        return Ok(decoded);
    }
    match Ahead::spawn(decoded) {
        Ok(ahead) => Ok(Box::new(ahead)),
        // No thread to spare: decode as the search reads.
        Err(_) => decoder(format, path, File::open(path)?),
    }
}

/// `format`'s decoder of `file` (at `path`), its errors worded as rg's.
fn decoder(format: Format, path: &Path, file: File) -> io::Result<Box<dyn Read + Send>> {
    decode(format, path, Box::new(file))
}

/// `format`'s decoder of the compressed bytes `file` reads (of the file or
/// object at `path`), its errors worded as rg's.
pub(super) fn decode(
    format: Format,
    path: &Path,
    file: Box<dyn Read + Send>,
) -> io::Result<Box<dyn Read + Send>> {
    let failed = |e: io::Error| failure(format, path, &e);
    let input = Input::new(file);
    let inner: Box<dyn Read + Send> = match format {
        Format::Gzip => Box::new(Gzip(Some(GzDecoder::new(input)))),
        Format::Bzip2 => Box::new(Bzip2(Some(BzDecoder::new(input)))),
        Format::Xz => {
            let stream = Stream::new_auto_decoder(u64::MAX, liblzma::stream::CONCATENATED);
            Box::new(Lzma::new(input, stream.map_err(|e| failed(e.into()))?))
        }
        Format::Lzma => {
            let stream = Stream::new_lzma_decoder(u64::MAX);
            Box::new(Lzma::new(input, stream.map_err(|e| failed(e.into()))?))
        }
        Format::Lz4 => Box::new(Lz4Frames(lz4_flex::frame::FrameDecoder::new(input))),
        Format::Brotli => Box::new(brotli_decompressor::Decompressor::new(input, 64 << 10)),
        Format::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(input).map_err(failed)?),
        Format::Compress => unreachable!("`.Z` runs `uncompress`"),
    };
    Ok(Box::new(Decoded { inner, format, path: path.to_path_buf() }))
}

/// `err`, met decoding `path`, as rg shows a decompressor's failure:
/// `FORMAT: PATH: WHAT` between two rules of dashes.
fn failure(format: Format, path: &Path, err: &io::Error) -> io::Error {
    let what = match err.kind() {
        io::ErrorKind::UnexpectedEof => "unexpected end of file".to_string(),
        _ => err.to_string(),
    };
    super::piped::framed(&format!("{}: {}: {what}", format.name(), path.display()))
}

/// A decoder whose errors read as rg's (see [`failure`]).
struct Decoded {
    inner: Box<dyn Read + Send>,
    format: Format,
    path: PathBuf,
}

impl Read for Decoded {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| match e.kind() {
            io::ErrorKind::Interrupted => e,
            _ => failure(self.format, &self.path, &e),
        })
    }
}

/// A file read through a buffer that can show what comes next without
/// consuming it (what follows a gzip member or a bzip2 stream).
struct Input {
    file: Box<dyn Read + Send>,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
}

impl Input {
    fn new(file: Box<dyn Read + Send>) -> Input {
        Input { file, buf: vec![0; INPUT_BUFFER], pos: 0, end: 0 }
    }

    /// The next bytes, at least `n` of them unless the file ends first.
    fn peek(&mut self, n: usize) -> io::Result<&[u8]> {
        if self.end - self.pos < n {
            self.buf.copy_within(self.pos..self.end, 0);
            (self.end, self.pos) = (self.end - self.pos, 0);
            while self.end < n {
                match self.file.read(&mut self.buf[self.end..]) {
                    Ok(0) => break,
                    Ok(got) => self.end += got,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(&self.buf[self.pos..self.end])
    }
}

impl Read for Input {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.fill_buf()?.len().min(out.len());
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

impl BufRead for Input {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.end {
            self.peek(1)?;
        }
        Ok(&self.buf[self.pos..self.end])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.end);
    }
}

/// gzip members one after another, as `gzip -d` reads them: after the
/// last, zeros to the end are ignored, anything else is its warning
/// (`decompression OK, trailing garbage ignored`, an error for rg).
struct Gzip(Option<GzDecoder<Input>>);

impl Read for Gzip {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(member) = &mut self.0 else { return Ok(0) };
            let n = member.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            let mut input = self.0.take().expect("read above").into_inner();
            let magic = Format::Gzip.magic();
            let head = input.peek(magic.len())?;
            let (end, member, zero) =
                (head.is_empty(), head.starts_with(magic), head.first() == Some(&0));
            if end || zero && zeros_to_the_end(&mut input)? {
                return Ok(0);
            }
            if !member {
                return Err(io::Error::other("decompression OK, trailing garbage ignored"));
            }
            self.0 = Some(GzDecoder::new(input));
        }
    }
}

/// Whether `input` holds only zero bytes from here to its end.
fn zeros_to_the_end(input: &mut Input) -> io::Result<bool> {
    loop {
        let rest = input.fill_buf()?;
        if rest.is_empty() {
            return Ok(true);
        }
        if rest.iter().any(|&b| b != 0) {
            return Ok(false);
        }
        let n = rest.len();
        input.consume(n);
    }
}

/// bzip2 streams one after another, as `bzip2 -d` reads them: what
/// follows the last one (not `BZh`) is ignored.
struct Bzip2(Option<BzDecoder<Input>>);

impl Read for Bzip2 {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(stream) = &mut self.0 else { return Ok(0) };
            let n = stream.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            let mut input = self.0.take().expect("read above").into_inner();
            let magic = Format::Bzip2.magic();
            if input.peek(magic.len())?.starts_with(magic) {
                self.0 = Some(BzDecoder::new(input));
            }
        }
    }
}

/// xz and lzma through liblzma, which the `xz` program uses too. Unlike
/// the crate's own reader, the bytes decoded in the call that met damage
/// are returned before the error, as `xz` writes them before it fails.
struct Lzma<R> {
    input: R,
    stream: Stream,
    /// The error to return after the bytes decoded with it.
    failed: Option<io::Error>,
    done: bool,
}

impl<R: BufRead> Lzma<R> {
    fn new(input: R, stream: Stream) -> Lzma<R> {
        Lzma { input, stream, failed: None, done: false }
    }
}

impl<R: BufRead> Read for Lzma<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        if buf.is_empty() || self.done {
            return Ok(0);
        }
        loop {
            let input = self.input.fill_buf()?;
            let eof = input.is_empty();
            let (in0, out0) = (self.stream.total_in(), self.stream.total_out());
            let action = if eof { Action::Finish } else { Action::Run };
            let status = self.stream.process(input, buf, action);
            let consumed = (self.stream.total_in() - in0) as usize;
            let written = (self.stream.total_out() - out0) as usize;
            self.input.consume(consumed);
            match status {
                Err(e) if written > 0 => {
                    self.failed = Some(e.into());
                    return Ok(written);
                }
                Err(e) => return Err(e.into()),
                Ok(Status::StreamEnd) => {
                    self.done = true;
                    return Ok(written);
                }
                Ok(_) if written > 0 => return Ok(written),
                Ok(_) if eof => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(_) if consumed == 0 => {
                    return Err(io::Error::new(io::ErrorKind::InvalidData, "corrupt stream"));
                }
                Ok(_) => {}
            }
        }
    }
}

/// Every LZ4 frame of a file, back to back, as the `lz4` program reads
/// them (the crate's decoder stops at the end of the first).
struct Lz4Frames<R: BufRead>(lz4_flex::frame::FrameDecoder<R>);

impl<R: BufRead> Read for Lz4Frames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = self.0.read(buf)?;
            // A frame ended: go on if another one follows.
            if n > 0 || buf.is_empty() || self.0.get_mut().fill_buf()?.is_empty() {
                return Ok(n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn decode(format: Format, name: &str, bytes: &[u8]) -> (Vec<u8>, io::Result<usize>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let mut out = Vec::new();
        let result = open(format, &path).unwrap().read_to_end(&mut out);
        (out, result)
    }

    #[test]
    fn multi_member_gzip_is_read_whole_and_truncation_is_rgs_error() {
        let mut bytes = Vec::new();
        for part in [&b"first\n"[..], b"second\n"] {
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            enc.write_all(part).unwrap();
            bytes.extend(enc.finish().unwrap());
        }
        assert_eq!(decode(Format::Gzip, "a.gz", &bytes).0, b"first\nsecond\n");
        let (_, result) = decode(Format::Gzip, "a.gz", &bytes[..bytes.len() - 5]);
        let err = result.unwrap_err().to_string();
        assert!(err.starts_with(&format!("\n{}\ngzip: ", "-".repeat(79))), "{err}");
        let tail = format!("a.gz: unexpected end of file\n{}", "-".repeat(79));
        assert!(err.ends_with(&tail), "{err}");
    }

    #[test]
    fn what_follows_the_last_member_or_stream_is_read_as_gzip_and_bzip2_read_it() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"text\n").unwrap();
        let gz = gz.finish().unwrap();
        let padded = [gz.clone(), vec![0; 1000]].concat();
        assert_eq!(decode(Format::Gzip, "a.gz", &padded).0, b"text\n");
        assert!(decode(Format::Gzip, "a.gz", &padded).1.is_ok());
        let (out, result) = decode(Format::Gzip, "a.gz", &[gz, b"\0junk".to_vec()].concat());
        assert_eq!(out, b"text\n");
        let err = result.unwrap_err().to_string();
        assert!(err.contains("a.gz: decompression OK, trailing garbage ignored\n"), "{err}");
        let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        bz.write_all(b"text\n").unwrap();
        let bz = bz.finish().unwrap();
        let (out, result) = decode(Format::Bzip2, "a.bz2", &[bz, b"junk".to_vec()].concat());
        assert_eq!((out.as_slice(), result.is_ok()), (&b"text\n"[..], true));
    }

    #[test]
    fn concatenated_lz4_frames_are_read_whole() {
        let mut bytes = Vec::new();
        for part in [&b"first\n"[..], b"second\n"] {
            let mut enc = lz4_flex::frame::FrameEncoder::new(Vec::new());
            enc.write_all(part).unwrap();
            bytes.extend(enc.finish().unwrap());
        }
        let (out, result) = decode(Format::Lz4, "a.lz4", &bytes);
        assert_eq!((out.as_slice(), result.is_ok()), (&b"first\nsecond\n"[..], true));
    }

    #[test]
    fn damaged_xz_yields_what_was_decoded_then_the_error() {
        let text: Vec<u8> = (0..20_000).flat_map(|i| format!("line {i}\n").into_bytes()).collect();
        let mut enc = liblzma::write::XzEncoder::new(Vec::new(), 6);
        enc.write_all(&text).unwrap();
        let bytes = enc.finish().unwrap();
        let (out, result) = decode(Format::Xz, "a.xz", &bytes);
        assert_eq!((out.as_slice(), result.is_ok()), (text.as_slice(), true));
        let (out, result) = decode(Format::Xz, "a.xz", &bytes[..bytes.len() - 40]);
        assert!(result.is_err());
        assert!(!out.is_empty() && text.starts_with(&out), "{} bytes", out.len());
    }
}
