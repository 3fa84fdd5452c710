//! A small line diff for mismatch reports: common prefix and suffix are
//! trimmed, the middle is aligned with an LCS table, and output is shown as
//! hunks with a little context. Lines are escaped and long lines truncated,
//! so binary data, colors and 100 KB lines stay readable.

const CONTEXT: usize = 2;
const MAX_LINE: usize = 160;
const MAX_OUTPUT_LINES: usize = 80;
/// Above this many table cells the middle is shown as a plain -/+ block.
const MAX_TABLE: usize = 4_000_000;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Same,
    Del,
    Add,
}

fn lines(b: &[u8]) -> Vec<&[u8]> {
    if b.is_empty() {
        return Vec::new();
    }
    // Keep the terminator so "no final newline" shows up as a difference.
    let mut v: Vec<&[u8]> = b.split_inclusive(|&c| c == b'\n').collect();
    if v.last().is_some_and(|l| l.is_empty()) {
        v.pop();
    }
    v
}

fn show(line: &[u8]) -> String {
    let (body, nl) = match line.strip_suffix(b"\n") {
        Some(b) => (b, true),
        None => (line, false),
    };
    let mut s = super::preview(body, MAX_LINE);
    if !nl {
        s.push_str("⏎̸ (no newline)");
    }
    s
}

fn script(a: &[&[u8]], b: &[&[u8]]) -> Vec<Op> {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..].iter().rev().zip(b[pre..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (ma, mb) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    let mut ops = vec![Op::Same; pre];
    if ma.len().saturating_mul(mb.len()) > MAX_TABLE {
        ops.extend(std::iter::repeat_n(Op::Del, ma.len()));
        ops.extend(std::iter::repeat_n(Op::Add, mb.len()));
    } else {
        let (n, m) = (ma.len(), mb.len());
        let mut t = vec![0u32; (n + 1) * (m + 1)];
        let idx = |i: usize, j: usize| i * (m + 1) + j;
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                t[idx(i, j)] = if ma[i] == mb[j] {
                    t[idx(i + 1, j + 1)] + 1
                } else {
                    t[idx(i + 1, j)].max(t[idx(i, j + 1)])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < n || j < m {
            if i < n && j < m && ma[i] == mb[j] {
                ops.push(Op::Same);
                i += 1;
                j += 1;
            } else if i < n && (j == m || t[idx(i + 1, j)] >= t[idx(i, j + 1)]) {
                ops.push(Op::Del);
                i += 1;
            } else {
                ops.push(Op::Add);
                j += 1;
            }
        }
    }
    ops.extend(std::iter::repeat_n(Op::Same, suf));
    ops
}

/// Renders the difference between `old` (rg) and `new` (tg), each output
/// line prefixed by `indent`.
pub fn render(old: &[u8], new: &[u8], indent: &str) -> String {
    let (a, b) = (lines(old), lines(new));
    let ops = script(&a, &b);
    // Mark which ops are near a change.
    let changed: Vec<bool> = ops.iter().map(|&o| o != Op::Same).collect();
    let near = |k: usize| {
        let lo = k.saturating_sub(CONTEXT);
        let hi = (k + CONTEXT + 1).min(ops.len());
        changed[lo..hi].iter().any(|&c| c)
    };
    let mut out = String::new();
    let mut shown = 0;
    let (mut i, mut j) = (0usize, 0usize);
    let mut gap = false;
    for (k, &op) in ops.iter().enumerate() {
        let visible = near(k);
        if visible {
            if gap || (k > 0 && shown == 0) {
                out.push_str(&format!("{indent}@@ rg line {}, tg line {} @@\n", i + 1, j + 1));
            }
            gap = false;
            if shown >= MAX_OUTPUT_LINES {
                out.push_str(&format!("{indent}… (diff truncated)\n"));
                break;
            }
            let (mark, line) = match op {
                Op::Same => (' ', a[i]),
                Op::Del => ('-', a[i]),
                Op::Add => ('+', b[j]),
            };
            out.push_str(&format!("{indent}{mark} {}\n", show(line)));
            shown += 1;
        } else {
            gap = true;
        }
        match op {
            Op::Same => {
                i += 1;
                j += 1;
            }
            Op::Del => i += 1,
            Op::Add => j += 1,
        }
    }
    if a.len() == b.len() && !a.is_empty() {
        let mut sa = a.clone();
        let mut sb = b.clone();
        sa.sort();
        sb.sort();
        if sa == sb {
            out.push_str(&format!("{indent}(same lines, different order)\n"));
        }
    }
    out.push_str(&format!(
        "{indent}(rg: {} lines, {} bytes; tg: {} lines, {} bytes)\n",
        a.len(),
        old.len(),
        b.len(),
        new.len()
    ));
    out
}

/// What differs between tg's output (`remote` names read as `local`) and
/// rg's, if anything; the JSON fields `blanked` matches (a regex over
/// `"name":N`, e.g. the bytes printed, which count the longer names) are
/// blanked in both.
pub fn remote_differs(
    tg: &std::process::Output,
    rg: &std::process::Output,
    remote: &str,
    local: &str,
    blanked: &str,
) -> Option<String> {
    let counts = regex::Regex::new(blanked).unwrap();
    let clean = |out: &[u8]| {
        let text = String::from_utf8_lossy(&super::normalize_stdout(out)).into_owned();
        counts.replace_all(&text, "\"$1\":N").into_owned()
    };
    let (tg_out, rg_out) = (clean(&tg.stdout).replace(remote, local), clean(&rg.stdout));
    if tg_out == rg_out && tg.status.code() == rg.status.code() {
        return None;
    }
    Some(format!(
        "exit {:?} vs rg {:?}; tg stderr: {}\n{}",
        tg.status.code(),
        rg.status.code(),
        String::from_utf8_lossy(&tg.stderr),
        render(rg_out.as_bytes(), tg_out.as_bytes(), "  ")
    ))
}
