//! A stable radix sort of packed pair keys by their trigram alone.
//!
//! A sort buffer holds keys `trigram << 40 | doc << 8 | follow` pushed in
//! document order, so sorting them stably by the trigram's 24 bits sorts
//! them by `(trigram, doc)`: two counting passes of 12 bits each, from the
//! low digit up, between the buffer and a second one of the same length.
//! Linear in the keys, where a comparison sort of a 4-million-key buffer
//! costs about twenty times more.

/// Bits of the trigram digit sorted by each pass.
const DIGIT_BITS: u32 = 12;
/// Values of one digit.
const DIGITS: usize = 1 << DIGIT_BITS;
/// Where the trigram starts in a key.
const TRIGRAM_SHIFT: u32 = 40;

/// The digit of `key` that pass `pass` (0: low, 1: high) sorts by.
#[inline]
fn digit(key: u64, pass: u32) -> usize {
    ((key >> (TRIGRAM_SHIFT + pass * DIGIT_BITS)) as usize) & (DIGITS - 1)
}

/// Sorts `keys` by their trigram (bits 40 to 64), stably, using `aux` as
/// scratch space (resized to `keys`' length; its contents are lost).
pub(super) fn sort_by_trigram(keys: &mut [u64], aux: &mut Vec<u64>) {
    let mut counts = vec![[0usize; DIGITS]; 2];
    for &k in keys.iter() {
        counts[0][digit(k, 0)] += 1;
        counts[1][digit(k, 1)] += 1;
    }
    aux.clear();
    aux.resize(keys.len(), 0);
    scatter(keys, aux, &mut counts[0], 0);
    scatter(aux, keys, &mut counts[1], 1);
}

/// Moves `from` into `to` in the order of digit `pass`, stably; `counts`
/// holds how many keys have each digit value (and is consumed).
fn scatter(from: &[u64], to: &mut [u64], counts: &mut [usize; DIGITS], pass: u32) {
    let mut at = 0;
    for c in counts.iter_mut() {
        (*c, at) = (at, at + *c);
    }
    for &k in from {
        let slot = &mut counts[digit(k, pass)];
        to[*slot] = k;
        *slot += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_by_trigram_and_keeps_the_order_of_equal_trigrams() {
        let mut seed = 7u64;
        let mut keys: Vec<u64> = (0..50_000u64)
            .map(|doc| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let t = (seed >> 40) % if doc % 3 == 0 { 300 } else { 1 << 24 };
                (t << 40) | (doc << 8) | (seed & 0xff)
            })
            .collect();
        let mut want = keys.clone();
        want.sort_by_key(|k| k >> 40);
        let mut aux = Vec::new();
        sort_by_trigram(&mut keys, &mut aux);
        assert_eq!(keys, want);
        sort_by_trigram(&mut [], &mut aux);
    }
}
