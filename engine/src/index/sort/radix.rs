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

/// Keys from which a pass counts and moves the two halves of its buffer
/// on two threads: a buffer fills faster than one thread sorts it where
/// files are dense in distinct trigrams (the kernel's register headers),
/// and the extraction then waits on the sort with a core idle.
const TWO_THREADS_FROM: usize = 1 << 20;

/// Sorts `keys` by their trigram (bits 40 to 64), stably, using `aux` as
/// scratch space (resized to `keys`' length; its contents are lost).
pub(super) fn sort_by_trigram(keys: &mut [u64], aux: &mut Vec<u64>) {
    aux.clear();
    aux.resize(keys.len(), 0);
    sort_pass(keys, aux, 0);
    sort_pass(aux, keys, 1);
}

/// Moves `from` into `to` (of the same length) in the order of digit
/// `pass`, stably: the keys of `from`'s first half before those of its
/// second for each digit value, each half counted and moved on a thread
/// of its own when `from` is long.
fn sort_pass(from: &[u64], to: &mut [u64], pass: u32) {
    let half = if from.len() >= TWO_THREADS_FROM { from.len() / 2 } else { from.len() };
    let (first, second) = from.split_at(half);
    let (c1, c2) = std::thread::scope(|s| {
        let c2 = (!second.is_empty()).then(|| s.spawn(|| counts(second, pass)));
        (counts(first, pass), c2.map(|c| c.join().expect("a counting thread")))
    });
    let c2 = c2.unwrap_or_else(|| Box::new([0; DIGITS]));
    // Where each half's keys of each digit value start.
    let (mut at1, mut at2) = (Box::new([0usize; DIGITS]), Box::new([0usize; DIGITS]));
    let mut at = 0;
    for d in 0..DIGITS {
        (at1[d], at2[d]) = (at, at + c1[d]);
        at += c1[d] + c2[d];
    }
    let to = Slots(to.as_mut_ptr(), to.len());
    std::thread::scope(|s| {
        if !second.is_empty() {
            s.spawn(|| scatter(second, &to, &mut at2, pass));
        }
        scatter(first, &to, &mut at1, pass);
    });
}

/// How many keys of `keys` have each value of digit `pass`.
fn counts(keys: &[u64], pass: u32) -> Box<[usize; DIGITS]> {
    let mut c = Box::new([0usize; DIGITS]);
    for &k in keys {
        c[digit(k, pass)] += 1;
    }
    c
}

/// The slots of a buffer that two threads fill at once, each its own.
struct Slots(*mut u64, usize);

// SAFETY: `sort_pass` hands each thread slot ranges of its own (`at1`,
// `at2` partition the buffer), so no slot is written twice or read.
unsafe impl Sync for Slots {}

/// Moves `from`'s keys into `to`'s slots in the order of digit `pass`,
/// each digit value's from `at[value]` on (advanced as they are filled).
fn scatter(from: &[u64], to: &Slots, at: &mut [usize; DIGITS], pass: u32) {
    for &k in from {
        let slot = &mut at[digit(k, pass)];
        assert!(*slot < to.1, "a radix slot past the buffer");
        // SAFETY: in bounds (checked), and this thread's own (see `Slots`).
        unsafe { *to.0.add(*slot) = k };
        *slot += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_by_trigram_and_keeps_the_order_of_equal_trigrams() {
        let mut seed = 7u64;
        let mut keys: Vec<u64> = (0..(TWO_THREADS_FROM as u64 + 50_001))
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
