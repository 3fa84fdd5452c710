//! Where a text's blocks end: just past a line end after about a block
//! size.

/// Cuts `data` into `(offset, len)` blocks of about `size` bytes, each
/// ending just past a `\n` (a longer line makes a longer block; the last
/// block ends where the data does).
pub fn cut(data: &[u8], size: u64) -> Vec<(u64, u64)> {
    let (len, size) = (data.len() as u64, size.max(1));
    let mut blocks = Vec::new();
    let mut start = 0;
    while start < len {
        let nominal = start + size;
        let end = if nominal >= len {
            len
        } else {
            memchr::memchr(b'\n', &data[(nominal - 1) as usize..])
                .map_or(len, |j| nominal + j as u64)
        };
        blocks.push((start, end - start));
        start = end;
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_end_at_line_ends_and_cover_everything() {
        let data = b"aa\nbbbb\nc\n\ndddddddddd\ne";
        let blocks = cut(data, 4);
        assert_eq!(blocks, vec![(0, 8), (8, 14), (22, 1)]);
        assert_eq!(cut(b"", 4), vec![]);
        assert_eq!(cut(b"x\n", 100), vec![(0, 2)]);
        let total: u64 = cut(data, 1).iter().map(|b| b.1).sum();
        assert_eq!(total, data.len() as u64);
    }
}
