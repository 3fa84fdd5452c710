//! Bits written and read most significant first, the carrier of the
//! exp-Golomb ids and the Huffman-coded follow masks of format 7 lists.

/// Appends bits to a byte vector, most significant first.
pub(super) struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    /// Pending bits, the low `pending` of them.
    acc: u64,
    pending: u32,
}

impl<'a> BitWriter<'a> {
    /// Bits written since `out` held `start` bytes.
    pub(super) fn written_since(&self, start: usize) -> u64 {
        (self.out.len() - start) as u64 * 8 + u64::from(self.pending)
    }

    pub(super) fn new(out: &'a mut Vec<u8>) -> Self {
        BitWriter { out, acc: 0, pending: 0 }
    }

    /// Appends the low `bits` (at most 32) bits of `value`.
    #[inline]
    pub(super) fn put(&mut self, value: u64, bits: u32) {
        debug_assert!(bits <= 32 && value >> bits == 0);
        // Fewer than 32 bits pending before, so at most 63 after.
        self.acc = (self.acc << bits) | value;
        self.pending += bits;
        if self.pending >= 32 {
            self.pending -= 32;
            self.out.extend_from_slice(&((self.acc >> self.pending) as u32).to_be_bytes());
            self.acc &= (1 << self.pending) - 1;
        }
    }

    /// Writes the bits pending, the last byte padded with zero bits.
    pub(super) fn finish(mut self) {
        while self.pending >= 8 {
            self.pending -= 8;
            self.out.push((self.acc >> self.pending) as u8);
        }
        if self.pending > 0 {
            self.out.push((self.acc << (8 - self.pending)) as u8);
        }
    }
}

/// Reads bits from a byte slice, most significant first; past the end it
/// reads zero bits, which [`BitReader::overrun`] reports.
#[derive(Clone, Debug)]
pub(super) struct BitReader<'a> {
    bytes: &'a [u8],
    /// Bits read.
    pos: u64,
}

impl<'a> BitReader<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        BitReader { bytes, pos: 0 }
    }

    /// The next 64 bits (at least the next 57 are the stream's, zero past
    /// its end), without consuming them.
    #[inline]
    pub(super) fn peek(&self) -> u64 {
        let at = (self.pos / 8) as usize;
        let word = match self.bytes.get(at..at + 8) {
            Some(w) => u64::from_be_bytes(w.try_into().expect("8 bytes")),
            None => {
                let mut w = [0u8; 8];
                let tail = self.bytes.get(at..).unwrap_or(&[]);
                w[..tail.len()].copy_from_slice(tail);
                u64::from_be_bytes(w)
            }
        };
        word << (self.pos % 8)
    }

    /// Consumes `bits` bits.
    #[inline]
    pub(super) fn skip(&mut self, bits: u32) {
        self.pos += u64::from(bits);
    }

    /// Reads `bits` (1 to 57) bits as a number.
    #[inline]
    pub(super) fn read(&mut self, bits: u32) -> u64 {
        let v = self.peek() >> (64 - bits);
        self.skip(bits);
        v
    }

    /// Bits read so far.
    pub(super) fn position(&self) -> u64 {
        self.pos
    }

    /// Moves to bit `pos` of the stream.
    pub(super) fn seek(&mut self, pos: u64) {
        self.pos = pos;
    }

    /// Whether more bits were read than the stream holds.
    pub(super) fn overrun(&self) -> bool {
        self.pos > self.bytes.len() as u64 * 8
    }

    /// Whether the stream was read to its last byte exactly, the bits
    /// after the last one read all zero (its padding).
    pub(super) fn at_padded_end(&self) -> bool {
        let len = self.bytes.len() as u64;
        if self.pos.div_ceil(8) != len {
            return false;
        }
        let used = self.pos % 8;
        used == 0 || self.bytes.last().is_some_and(|b| b << used == 0)
    }
}
