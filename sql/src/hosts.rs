//! The `host` column being built: dictionary-encoded, each name once per
//! batch. Few hosts write many lines, so a row's name is most often found
//! in a small table of the names seen, by a hash of a few of its bytes
//! (and then compared whole), before the map of every name is asked.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{DictionaryArray, Int32Builder, StringBuilder};
use datafusion::arrow::datatypes::Int32Type;

/// How many names the small table holds (a power of two).
const SLOTS: usize = 256;

/// The `host` column of one batch being built.
pub struct HostBuilder {
    keys: Int32Builder,
    values: StringBuilder,
    /// Each key's name, as the line wrote it.
    names: Vec<Box<[u8]>>,
    /// Every name's key.
    keyed: HashMap<Box<[u8]>, i32>,
    /// A key per slot of a name's [`slot`] (-1: none).
    slots: [i32; SLOTS],
}

impl Default for HostBuilder {
    fn default() -> HostBuilder {
        HostBuilder {
            keys: Int32Builder::new(),
            values: StringBuilder::new(),
            names: Vec::new(),
            keyed: HashMap::new(),
            slots: [-1; SLOTS],
        }
    }
}

/// The slot of `name` in the small table: a hash of its length and its
/// first and last 8 bytes.
fn slot(name: &[u8]) -> usize {
    let word = |b: &[u8]| b.iter().take(8).fold(0u64, |a, &c| a << 8 | u64::from(c));
    let tail = &name[name.len().saturating_sub(8)..];
    let x = word(name) ^ word(tail).rotate_left(29) ^ (name.len() as u64) << 58;
    (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize % SLOTS
}

impl HostBuilder {
    /// Adds a row naming `host` (`None`: null); a name that is not UTF-8
    /// reads with U+FFFD, as `line` does.
    pub fn append(&mut self, host: Option<&[u8]>) {
        let Some(name) = host else {
            self.keys.append_null();
            return;
        };
        let s = slot(name);
        let cached = self.slots[s];
        if cached >= 0 && *self.names[cached as usize] == *name {
            self.keys.append_value(cached);
            return;
        }
        let key = match self.keyed.get(name) {
            Some(&k) => k,
            None => {
                let k = self.names.len() as i32;
                self.values.append_value(String::from_utf8_lossy(name));
                self.names.push(name.into());
                self.keyed.insert(name.into(), k);
                k
            }
        };
        self.slots[s] = key;
        self.keys.append_value(key);
    }

    /// The rows added so far, as a column; the builder starts again.
    pub fn finish(&mut self) -> DictionaryArray<Int32Type> {
        let (keys, values) = (self.keys.finish(), self.values.finish());
        self.names.clear();
        self.keyed.clear();
        self.slots = [-1; SLOTS];
        DictionaryArray::try_new(keys, Arc::new(values)).expect("every key names a value")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Array, StringArray};

    #[test]
    fn every_row_reads_back_its_name_each_name_once_per_batch() {
        let mut b = HostBuilder::default();
        // Many names sharing prefixes and suffixes, so that slots collide.
        let names: Vec<Vec<u8>> = (0..600)
            .map(|i| format!("node-{:03}.dc{}.example.net", i % 300, i % 7).into_bytes())
            .chain([b"h\xFFst".to_vec(), b"".to_vec()])
            .collect();
        for round in 0..2 {
            let rows: Vec<Option<&[u8]>> = (0..5000)
                .map(|i| (i % 11 != 0).then(|| &names[(i * 7919) % names.len()][..]))
                .collect();
            rows.iter().for_each(|h| b.append(*h));
            let got = b.finish();
            let values = got.values().as_any().downcast_ref::<StringArray>().unwrap();
            let mut distinct: Vec<&[u8]> = rows.iter().flatten().copied().collect();
            distinct.sort();
            distinct.dedup();
            assert_eq!(values.len(), distinct.len(), "round {round}: each name once");
            for (i, want) in rows.iter().enumerate() {
                let read = got.key(i).map(|k| values.value(k));
                let want = want.map(String::from_utf8_lossy);
                assert_eq!(read, want.as_deref(), "round {round}, row {i}");
            }
        }
    }
}
