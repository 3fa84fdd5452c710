//! Reading a stream into a buffer until it is full: the one helper the
//! engine's readers share (a leaf, used from anywhere in the engine).

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
