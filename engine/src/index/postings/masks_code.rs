//! Follow masks of format 7 lists: a canonical Huffman code per list over
//! the 16 masks, so a list spends on its masks about their entropy (about
//! 2.3 bits a document on a source tree) instead of 4 bits.
//!
//! The code is stated by 8 bytes, the code length (0: unused, else 1 to
//! 15) of mask `m` in half `m % 2` (low first) of byte `m / 2`; then, for
//! each mask of rank `128 j` (`j` ≥ 1), the bit where its code starts
//! (`u32` LE), so that a query testing a few documents of a long list
//! decodes at most 128 masks for each instead of all before it; then the
//! masks, one code each in id order, most significant bit first, padded
//! with zero bits to a whole byte. Codes are canonical: shorter first,
//! then by mask. A list of one distinct mask codes it in one bit.

use super::bits::{BitReader, BitWriter};

/// Bytes stating a code.
pub(super) const CODE_LEN: usize = 8;

/// Masks between two starts kept.
pub(super) const SKIP_EVERY: u64 = 128;

/// Bytes of the starts kept for `count` masks.
pub(super) fn skips_len(count: u32) -> usize {
    4 * (u64::from(count).saturating_sub(1) / SKIP_EVERY) as usize
}

/// The longest code: a Huffman code of 16 symbols is at most 15 deep.
const MAX_BITS: usize = 15;

/// Huffman code lengths for symbol frequencies `freq` (0 for an unused one).
fn code_lengths(freq: &[u64; 16]) -> [u8; 16] {
    let mut lens = [0u8; 16];
    // Nodes: (weight, members) merged two lightest at a time; every
    // member of a merged node gets one bit longer.
    let mut nodes: Vec<(u64, u16)> =
        (0..16).filter(|&s| freq[s] > 0).map(|s| (freq[s], 1u16 << s)).collect();
    if nodes.len() == 1 {
        lens[nodes[0].1.trailing_zeros() as usize] = 1;
    }
    while nodes.len() > 1 {
        nodes.sort_unstable_by(|a, b| b.cmp(a));
        let (wa, a) = nodes.pop().expect("two nodes");
        let (wb, b) = nodes.pop().expect("two nodes");
        for (s, len) in lens.iter_mut().enumerate() {
            if (a | b) & (1 << s) != 0 {
                *len += 1;
            }
        }
        nodes.push((wa + wb, a | b));
    }
    lens
}

/// Canonical codes for `lens`: `(code, bits)` per symbol.
fn canonical(lens: &[u8; 16]) -> [(u32, u8); 16] {
    let mut codes = [(0u32, 0u8); 16];
    let mut code = 0u32;
    for bits in 1..=MAX_BITS as u8 {
        for s in 0..16 {
            if lens[s] == bits {
                codes[s] = (code, bits);
                code += 1;
            }
        }
        code <<= 1;
    }
    codes
}

/// Appends `masks` (low 4 bits each): the code, then the masks coded.
pub(super) fn encode(masks: &[u8], out: &mut Vec<u8>) {
    let mut freq = [0u64; 16];
    for &m in masks {
        freq[usize::from(m & 0x0f)] += 1;
    }
    let lens = code_lengths(&freq);
    out.extend(lens.chunks(2).map(|p| p[0] | (p[1] << 4)));
    let codes = canonical(&lens);
    let mut stream = Vec::new();
    let mut w = BitWriter::new(&mut stream);
    for (k, &m) in masks.iter().enumerate() {
        if k > 0 && (k as u64).is_multiple_of(SKIP_EVERY) {
            out.extend_from_slice(&(w.written_since(0) as u32).to_le_bytes());
        }
        let (code, bits) = codes[usize::from(m & 0x0f)];
        w.put(u64::from(code), u32::from(bits));
    }
    w.finish();
    out.extend_from_slice(&stream);
}

/// Whether `bytes` (a code, then `masks.len()` masks) decode
/// ([`MaskDecoder`]) to `masks` (their low 4 bits), with the starts kept
/// where they belong, the stream read to its end and its padding zero.
/// Each code is checked where the codes of the masks before it end, as
/// [`super::gamma::holds`] checks ids: in a prefix code, a code whose bits
/// are there is the one a decoder reads there.
pub(super) fn holds(bytes: &[u8], masks: &[u8]) -> bool {
    let Some(decoder) = MaskDecoder::new(bytes, masks.len() as u32) else { return false };
    let codes = canonical(&code_lengths_stated(bytes.first_chunk().expect("a code")));
    let mut bits = decoder.bits.clone();
    let (mut pos, mut wrong) = (0u64, false);
    for (k, &m) in masks.iter().enumerate() {
        if k > 0 && (k as u64).is_multiple_of(SKIP_EVERY) {
            wrong |= decoder.kept_start(k as u64 / SKIP_EVERY) != Some(pos);
        }
        let (code, len) = codes[usize::from(m & 0x0f)];
        if len == 0 {
            return false;
        }
        bits.seek(pos);
        wrong |= bits.read(u32::from(len)) != u64::from(code);
        pos += u64::from(len);
    }
    bits.seek(pos);
    !wrong && bits.at_padded_end()
}

/// The code lengths a code's bytes state, mask by mask.
fn code_lengths_stated(code: &[u8; CODE_LEN]) -> [u8; 16] {
    let mut lens = [0u8; 16];
    for (i, b) in code.iter().enumerate() {
        (lens[2 * i], lens[2 * i + 1]) = (b & 0x0f, b >> 4);
    }
    lens
}

/// Decodes a list's masks in id order.
#[derive(Clone, Debug)]
pub(super) struct MaskDecoder<'a> {
    /// Per code length: the first code of that length and how many.
    first: [u32; MAX_BITS + 1],
    count: [u32; MAX_BITS + 1],
    /// Symbols in code order.
    symbols: [u8; 16],
    /// Where the codes of ranks `128 j` start, `j` ≥ 1 (`u32` LE each).
    skips: &'a [u8],
    /// By the next 8 bits: the code they start with when it is at most 8
    /// bits long, as its length times 16 plus its mask (0: a longer one).
    fast: [u8; 256],
    bits: BitReader<'a>,
}

impl<'a> MaskDecoder<'a> {
    /// The decoder of a code and `count` masks `bytes`; `None` when the
    /// code is not a prefix code (its lengths over-subscribe the code
    /// space) or the bytes too short.
    pub(super) fn new(bytes: &'a [u8], count: u32) -> Option<Self> {
        let (code, rest) = bytes.split_first_chunk::<CODE_LEN>()?;
        let (skips, stream) = rest.split_at_checked(skips_len(count))?;
        let lens = code_lengths_stated(code);
        let mut count = [0u32; MAX_BITS + 1];
        for &l in &lens {
            count[usize::from(l)] += 1;
        }
        count[0] = 0;
        let kraft: u32 = (1..=MAX_BITS).map(|l| count[l] << (MAX_BITS - l)).sum();
        if kraft > 1 << MAX_BITS {
            return None;
        }
        let mut first = [0u32; MAX_BITS + 1];
        let mut symbols = [0u8; 16];
        let (mut code, mut n) = (0u32, 0);
        for bits in 1..=MAX_BITS {
            first[bits] = code;
            for s in 0..16u8 {
                if usize::from(lens[usize::from(s)]) == bits {
                    symbols[n] = s;
                    n += 1;
                }
            }
            code = (code + count[bits]) << 1;
        }
        let mut fast = [0u8; 256];
        let mut index = 0;
        for bits in 1..=8 {
            for i in 0..count[bits] as usize {
                let code = (first[bits] as usize + i) << (8 - bits);
                let entry = (bits as u8) << 4 | symbols[index + i];
                fast[code..code + (1 << (8 - bits))].fill(entry);
            }
            index += count[bits] as usize;
        }
        Some(MaskDecoder { first, count, symbols, skips, fast, bits: BitReader::new(stream) })
    }

    /// The next mask; `None` when the bits match no code or run past the
    /// end of the stream.
    #[inline]
    pub(super) fn next_mask(&mut self) -> Option<u8> {
        let window = self.bits.peek();
        let entry = self.fast[(window >> 56) as usize];
        if entry != 0 {
            self.bits.skip(u32::from(entry >> 4));
            return (!self.bits.overrun()).then_some(entry & 0x0f);
        }
        let mut index = 0usize;
        for bits in 1..=MAX_BITS {
            let code = (window >> (64 - bits)) as u32;
            let within = code.wrapping_sub(self.first[bits]);
            if within < self.count[bits] {
                self.bits.skip(bits as u32);
                if self.bits.overrun() {
                    return None;
                }
                return self.symbols.get(index + within as usize).copied();
            }
            index += self.count[bits] as usize;
        }
        None
    }

    /// Moves to the code of mask `SKIP_EVERY * block` (`block` ≥ 1 and
    /// below the starts kept); false when it is not kept.
    pub(super) fn seek_block(&mut self, block: u64) -> bool {
        let at = (block as usize - 1) * 4;
        let Some(pos) = self.skips.get(at..at + 4) else { return false };
        self.bits.seek(u64::from(u32::from_le_bytes(pos.try_into().expect("4 bytes"))));
        true
    }

    /// Whether the next mask is of rank `SKIP_EVERY * block` and starts
    /// where the starts kept say.
    pub(super) fn at_block(&self, block: u64) -> bool {
        self.kept_start(block) == Some(self.bits.position())
    }

    /// The bit where the code of mask `SKIP_EVERY * block` starts, as kept
    /// (`block` ≥ 1).
    fn kept_start(&self, block: u64) -> Option<u64> {
        let at = (block as usize - 1) * 4;
        let kept = self.skips.get(at..at + 4)?;
        Some(u64::from(u32::from_le_bytes(kept.try_into().expect("4 bytes"))))
    }

    /// Whether the stream was read to its end exactly, padding zero.
    pub(super) fn at_padded_end(&self) -> bool {
        self.bits.at_padded_end()
    }
}
