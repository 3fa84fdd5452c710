//! Reading a stream into a buffer until it is full, and counting what a
//! search read ([`Counting`]): the helpers the engine's readers share (a
//! leaf, used from anywhere in the engine).

use std::io::{self, Read};

/// Reads from `reader` until `buf` is full or a read returns nothing
/// (retrying reads a signal interrupted); returns how many bytes were read.
pub fn read_full(reader: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match reader.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// A reader that counts the bytes read through it: what a search that may
/// stop early (at a NUL, after `-l`'s first match) really read, for
/// `--stats`.
pub struct Counting<R> {
    /// Where the bytes come from.
    pub inner: R,
    /// How many came.
    pub read: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}
