//! What a failed query tells its user: one sentence about the query
//! (`invalid regex 'vol-(\w': unclosed group`), not DataFusion's chain of
//! internals (`Optimizer rule 'simplify_expressions' failed caused by
//! Invalid regex caused by External error: regex parse error: ...`), which
//! `--verbose` adds ([`detail`]). A query that failed on a Ballista
//! cluster comes back as a failed job whose message holds the executor's
//! error in its `Debug` form (`Job J failed: Job failed due to stage 1
//! failed: Task failed due to runtime execution error:
//! DataFusionError(Execution("PATH: ..."))`): its reason is taken out.

use datafusion::error::DataFusionError;

/// The cause of `e`, as one sentence about the query.
pub fn sentence(e: &DataFusionError) -> String {
    let full = e.to_string();
    if let Some(regex) = bad_regex(&full) {
        return regex;
    }
    let text = match e.find_root() {
        DataFusionError::SQL(e, _) => {
            let e = e.to_string();
            let e = e.strip_prefix("sql parser error: ").unwrap_or(&e);
            format!("the query does not parse: {e}")
        }
        DataFusionError::NotImplemented(m) => format!("not supported: {m}"),
        DataFusionError::Internal(m) => format!("internal error: {m}"),
        DataFusionError::SchemaError(e, _) => e.to_string(),
        DataFusionError::ArrowError(e, _) => e.to_string(),
        DataFusionError::External(e) => e.to_string(),
        root => root.message().into_owned(),
    };
    one_line(&job_reason(&text).unwrap_or(text))
}

/// The whole of `e`, each cause on a line of its own (`--verbose`).
pub fn detail(e: &DataFusionError) -> String {
    e.to_string()
}

/// The reason a failed Ballista job's message (`Job J failed: ...`)
/// gives: the executor's error, else Ballista's words after the job's.
fn job_reason(text: &str) -> Option<String> {
    let (_, why) = text.strip_prefix("Job ")?.split_once(" failed: ")?;
    let Some(at) = why.find("Task failed due to ") else {
        return Some(unwrapped(why.trim()).to_string());
    };
    let error = &why[at..];
    let error = &error[error.find(": ")? + 2..];
    Some(first_string(error).unwrap_or_else(|| error.trim().to_string()))
}

/// `text` without the words DataFusion puts before an error's own
/// (`DataFusion error: Execution error: WHY`: a scheduler's failure to
/// plan a job, sent as text).
fn unwrapped(text: &str) -> &str {
    const WRAPPERS: [&str; 4] =
        ["DataFusion error: ", "Execution error: ", "Error during planning: ", "External error: "];
    let mut text = text;
    while let Some(rest) = WRAPPERS.iter().find_map(|w| text.strip_prefix(w)) {
        text = rest;
    }
    text
}

/// The first string in `debug`, a value's `Debug` form
/// (`DataFusionError(Execution("why"))`: `why`), unescaped.
fn first_string(debug: &str) -> Option<String> {
    let quoted = &debug[debug.find('"')? + 1..];
    let mut out = String::new();
    let mut chars = quoted.chars();
    loop {
        match chars.next()? {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                c => out.push(c),
            },
            c => out.push(c),
        }
    }
}

/// `text`'s words on one line, without the rules of dashes a
/// decompressor's message is framed in (`tg -z` prints them on lines of
/// their own).
fn one_line(text: &str) -> String {
    let rule = |w: &&str| w.len() >= 3 && w.bytes().all(|b| b == b'-');
    text.split_whitespace().filter(|w| !rule(w)).collect::<Vec<_>>().join(" ")
}

/// A regex that does not compile, as the regex crates describe it
/// anywhere in `text` (`regex parse error:`, the pattern, a caret line,
/// `error: WHAT`): `invalid regex 'PATTERN': WHAT`.
fn bad_regex(text: &str) -> Option<String> {
    const HEAD: &str = "regex parse error:";
    let after = &text[text.find(HEAD)? + HEAD.len()..];
    // A message that went through a string's `Debug` form (a failed
    // job's, from Ballista) has its newlines and backslashes escaped.
    let after = if after.starts_with(['\n', '\r']) { after.to_string() } else { unescape(after) };
    let mut lines = after.lines().skip_while(|l| l.trim().is_empty());
    let pattern = lines.next()?.trim();
    // The regex operators hand arrow a pattern with its flags in front.
    let pattern = pattern.strip_prefix("(?u)").unwrap_or(pattern);
    let what = lines.find_map(|l| l.trim().strip_prefix("error: "))?;
    Some(format!("invalid regex '{pattern}': {}", what.trim_end_matches(['"', ')'])))
}

/// `text` with a string's `Debug` escapes (`\\n`, `\\\\`, `\\"`, `\\t`) undone.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(e @ ('\\' | '"' | '\'')) => out.push(e),
            Some(other) => out.extend(['\\', other]),
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_regex_is_named_with_its_pattern_and_fault() {
        let inner = regex_syntax::Parser::new().parse(r"vol-(\w").unwrap_err();
        let e = DataFusionError::Context(
            "Optimizer rule 'simplify_expressions' failed".into(),
            Box::new(DataFusionError::Context(
                "Invalid regex".into(),
                Box::new(DataFusionError::External(Box::new(inner))),
            )),
        );
        assert_eq!(sentence(&e), r"invalid regex 'vol-(\w': unclosed group");
        assert!(detail(&e).contains("simplify_expressions"));
        // A pattern made at run time: clippy checks literal patterns.
        let bad = ["a{2", ",1}"].concat();
        let compiled = regex::Regex::new(&bad).unwrap_err();
        let e = DataFusionError::ArrowError(
            Box::new(datafusion::arrow::error::ArrowError::ComputeError(format!(
                "Regular expression did not compile: {compiled:?}"
            ))),
            None,
        );
        assert_eq!(
            sentence(&e),
            "invalid regex 'a{2,1}': invalid repetition count range, the start must be <= the end"
        );
        // As a failed job's message carries it: a string's Debug form.
        let job = format!("Job 1 failed: Task failed: {:?}", format!("{e}"));
        let e = DataFusionError::Execution(job);
        assert_eq!(
            sentence(&e),
            "invalid regex 'a{2,1}': invalid repetition count range, the start must be <= the end"
        );
        let e = DataFusionError::Execution(format!(
            "{:?}",
            r"regex parse error:
    C:\\app(\n
            ^
error: unclosed group"
        ));
        assert_eq!(sentence(&e), r"invalid regex 'C:\\app(\n': unclosed group");
    }

    #[test]
    fn a_failed_job_gives_the_executors_reason() {
        let e = DataFusionError::Execution(
            "Job ab12 failed: Job failed due to stage 1 failed: Task failed due to runtime \
             execution error: DataFusionError(Execution(\"/logs/a.zst: damaged \\\"frame\\\" 3\"))\n"
                .into(),
        );
        assert_eq!(sentence(&e), r#"/logs/a.zst: damaged "frame" 3"#);
        let e = DataFusionError::Execution(
            "Job ab12 failed: task could not be prepared or was rejected by executor".into(),
        );
        assert_eq!(sentence(&e), "task could not be prepared or was rejected by executor");
        let e = DataFusionError::Execution(
            "Job ab12 failed: DataFusion error: Execution error: s3://b/: no such bucket".into(),
        );
        assert_eq!(sentence(&e), "s3://b/: no such bucket");
        let rule = "-".repeat(79);
        let e = DataFusionError::Execution(format!(
            "/logs/a.gz: \n{rule}\ngzip: /logs/a.gz: unexpected end of file\n{rule}\n"
        ));
        assert_eq!(sentence(&e), "/logs/a.gz: gzip: /logs/a.gz: unexpected end of file");
    }

    #[test]
    fn wrappers_give_way_to_their_cause() {
        let e = DataFusionError::Context(
            "Optimizer rule 'x' failed".into(),
            Box::new(DataFusionError::Plan("Invalid function 'fo'.\nDid you mean 'cot'?".into())),
        );
        assert_eq!(sentence(&e), "Invalid function 'fo'. Did you mean 'cot'?");
    }
}
