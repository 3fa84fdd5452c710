//! LEB128 varints, the encoding of sparse posting lists.

/// Appends `v` as an LEB128 varint.
#[inline]
pub fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Decodes a varint at `*pos`, advancing it; `None` when truncated or longer
/// than 5 bytes.
#[inline]
pub fn get_varint(b: &[u8], pos: &mut usize) -> Option<u32> {
    let mut v: u32 = 0;
    for shift in (0..35).step_by(7) {
        let byte = *b.get(*pos)?;
        *pos += 1;
        if shift == 28 && byte & 0x70 != 0 {
            return None; // bits beyond u32
        }
        v |= u32::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}
