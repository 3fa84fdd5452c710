//! Decoding ahead: a big file's decoder runs on a thread of its own, a few
//! chunks ahead of the search, so that decoding and searching overlap (rg
//! gets the same overlap by running `gzip` as a separate process).

use std::io::{self, Read};

use crossbeam_channel::{Receiver, Sender, bounded};

/// Decoded bytes handed over at a time.
const CHUNK: usize = 256 << 10;
/// Chunks decoded ahead of the search, at most.
const AHEAD: usize = 4;

/// The reader of a decoder that runs on its own thread. Dropped, it stops
/// the thread after the chunk it is decoding.
pub(super) struct Ahead {
    chunks: Receiver<io::Result<Vec<u8>>>,
    /// Read chunks go back to the thread, to be filled again.
    spare: Sender<Vec<u8>>,
    current: Vec<u8>,
    pos: usize,
    done: bool,
}

impl Ahead {
    /// Starts decoding `inner` on a new thread (an error when no thread
    /// can be started).
    pub(super) fn spawn(mut inner: Box<dyn Read + Send>) -> io::Result<Ahead> {
        let (sender, chunks) = bounded(AHEAD);
        let (spare, spares) = bounded(AHEAD + 2);
        std::thread::Builder::new()
            .name("tg-decode".into())
            .spawn(move || decode(&mut *inner, &sender, &spares))?;
        Ok(Ahead { chunks, spare, current: Vec::new(), pos: 0, done: false })
    }
}

/// The thread's work: `inner` in chunks to `chunks` (an error after the
/// bytes read before it), until its end, an error, or the reader is gone.
fn decode(inner: &mut dyn Read, chunks: &Sender<io::Result<Vec<u8>>>, spares: &Receiver<Vec<u8>>) {
    loop {
        let mut buf = spares.try_recv().unwrap_or_default();
        buf.resize(CHUNK, 0);
        let mut filled = 0;
        let mut failed = None;
        while filled < CHUNK {
            match inner.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        buf.truncate(filled);
        if filled > 0 && chunks.send(Ok(buf)).is_err() {
            return;
        }
        if let Some(e) = failed {
            let _ = chunks.send(Err(e));
            return;
        }
        if filled < CHUNK {
            return;
        }
    }
}

impl Read for Ahead {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.current.len() {
            if self.done || out.is_empty() {
                return Ok(0);
            }
            let used = std::mem::take(&mut self.current);
            let _ = self.spare.try_send(used);
            self.pos = 0;
            match self.chunks.recv() {
                Ok(Ok(chunk)) => self.current = chunk,
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => self.done = true,
            }
        }
        let n = out.len().min(self.current.len() - self.pos);
        out[..n].copy_from_slice(&self.current[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Yields `data` in pieces of 1,000 bytes, then `error` if any.
    struct Source {
        data: Vec<u8>,
        at: usize,
        error: Option<io::Error>,
    }

    impl Read for Source {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if self.at == self.data.len() {
                return self.error.take().map_or(Ok(0), Err);
            }
            let n = out.len().min(1000).min(self.data.len() - self.at);
            out[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    fn ahead(len: usize, error: Option<io::Error>) -> (Vec<u8>, Ahead) {
        let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let source = Source { data: data.clone(), at: 0, error };
        (data, Ahead::spawn(Box::new(source)).unwrap())
    }

    #[test]
    fn every_byte_in_order_across_chunks() {
        for len in [0, 1, CHUNK - 1, CHUNK, 3 * CHUNK + 7] {
            let (data, mut r) = ahead(len, None);
            let mut out = Vec::new();
            r.read_to_end(&mut out).unwrap();
            assert!(out == data, "length {len}");
        }
    }

    #[test]
    fn the_bytes_before_an_error_then_the_error() {
        let (data, mut r) = ahead(CHUNK + 5, Some(io::Error::other("damaged")));
        let mut out = Vec::new();
        let err = r.read_to_end(&mut out).unwrap_err();
        assert_eq!((out == data, err.to_string().as_str()), (true, "damaged"));
    }

    #[test]
    fn dropped_early_it_stops() {
        let (_, mut r) = ahead(10 * CHUNK, None);
        let mut first = [0; 10];
        r.read_exact(&mut first).unwrap();
        drop(r);
    }
}
