//! The object `tg index s3://BUCKET/KEY` writes beside a remote object
//! (`KEY.tgidx`, `crate::kind::index_object_name`): the object's block
//! index, with the ETag and size of the object it was built from, so that
//! a reader on any machine uses it only for that very object.
//!
//! ```text
//! magic "TGRIDX\0\0" | version u32 | etag_len u32 | size u64 | head_crc u32
//! | etag (etag_len bytes, UTF-8) | the block index (its own format)
//! ```
//!
//! Integers little-endian; `head_crc` is the CRC-32 of the bytes before it
//! and of the ETag. The index carries its own footer and checksum
//! (`crate::index::format`), checked when it is opened. [`decode`] checks
//! lengths, magic, version and CRC, and never panics on bad input.

use super::client::RemoteError;

/// The magic opening an index object.
const MAGIC: [u8; 8] = *b"TGRIDX\0\0";

/// The version of this layout.
///
/// History: 1, the first.
const VERSION: u32 = 1;

/// Bytes before the ETag.
const FIXED_LEN: usize = 8 + 4 + 4 + 8 + 4;

/// The longest ETag accepted (S3's are 34 bytes; a multipart one a few more).
const MAX_ETAG: usize = 1024;

/// An index object, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexObject {
    /// The ETag of the object it was built from.
    pub etag: String,
    /// That object's size.
    pub size: u64,
    /// The block index's bytes.
    pub index: Vec<u8>,
}

/// The bytes of the index object of an object of `size` bytes and ETag
/// `etag`, holding `index`.
pub fn encode(etag: &str, size: u64, index: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(FIXED_LEN + etag.len() + index.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(etag.len() as u32).to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    let mut crc = crc32fast::Hasher::new();
    crc.update(&out);
    crc.update(etag.as_bytes());
    out.extend_from_slice(&crc.finalize().to_le_bytes());
    out.extend_from_slice(etag.as_bytes());
    out.extend_from_slice(index);
    out
}

/// Decodes an index object's bytes.
pub fn decode(mut bytes: Vec<u8>) -> Result<IndexObject, RemoteError> {
    let bad = |what: &str| RemoteError(format!("not a tg index object ({what})"));
    if bytes.len() < FIXED_LEN || bytes[..8] != MAGIC {
        return Err(bad("no magic"));
    }
    let u32_at =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let version = u32_at(8);
    if version != VERSION {
        return Err(bad(&format!("version {version}, this tg reads {VERSION}")));
    }
    let etag_len = u32_at(12) as usize;
    let mut size = [0; 8];
    size.copy_from_slice(&bytes[16..24]);
    let size = u64::from_le_bytes(size);
    let crc = u32_at(24);
    if etag_len > MAX_ETAG || bytes.len() < FIXED_LEN + etag_len {
        return Err(bad("cut short"));
    }
    let etag = &bytes[FIXED_LEN..FIXED_LEN + etag_len];
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&bytes[..24]);
    hasher.update(etag);
    if hasher.finalize() != crc {
        return Err(bad("its header's checksum differs"));
    }
    let etag = String::from_utf8(etag.to_vec()).map_err(|_| bad("an ETag not in UTF-8"))?;
    let index = bytes.split_off(FIXED_LEN + etag_len);
    Ok(IndexObject { etag, size, index })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_object_reads_back_and_damage_is_an_error() {
        let bytes = encode("\"abc\"", 42, b"INDEX");
        let want = IndexObject { etag: "\"abc\"".into(), size: 42, index: b"INDEX".to_vec() };
        assert_eq!(decode(bytes.clone()).unwrap(), want);
        for at in 0..FIXED_LEN + 5 {
            let mut bad = bytes.clone();
            bad[at] ^= 1;
            assert!(decode(bad).is_err(), "a flip at {at} went unseen");
        }
        for len in 0..FIXED_LEN + 5 {
            assert!(decode(bytes[..len].to_vec()).is_err());
        }
    }
}
