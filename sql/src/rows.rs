//! Lines into Arrow rows: the table's schema, and a builder that fills
//! only the projected columns (`count(*)` projects none: lines are then
//! counted, never copied; a line's time, level and host, [`Facts`], are
//! read only when their columns are projected).

use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, RecordBatch, RecordBatchOptions, StringBuilder, TimestampMillisecondBuilder,
    TimestampNanosecondBuilder, UInt64Builder,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use datafusion::error::Result;

use crate::hosts::HostBuilder;

/// How many rows a batch holds at most.
pub const BATCH_ROWS: usize = 8192;

/// The columns of a lines table, in order.
pub fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("path", DataType::Utf8, false),
        Field::new("line_number", DataType::UInt64, false),
        Field::new("byte_offset", DataType::UInt64, false),
        Field::new(crate::pushdown::LINE, DataType::Utf8, false),
        Field::new("modified", DataType::Timestamp(TimeUnit::Nanosecond, None), true),
        Field::new(TIME, DataType::Timestamp(TimeUnit::Millisecond, Some(UTC.into())), true),
        Field::new("level", DataType::Utf8, true),
        // Few hosts write many lines: each batch holds each name once.
        Field::new(
            "host",
            DataType::Dictionary(DataType::Int32.into(), DataType::Utf8.into()),
            true,
        ),
    ]))
}

/// The name of the column of a line's time.
pub const TIME: &str = "time";

/// The zone of the `time` column.
const UTC: &str = "UTC";

/// What a line says beyond its text, read only when its column is
/// projected ([`crate::stamps`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Facts<'a> {
    /// Its time (its own, or carried from the last line before it with
    /// one), in ms since the epoch.
    pub time: Option<i64>,
    /// Its level's name.
    pub level: Option<&'static str>,
    /// The host it names (a syslog line's).
    pub host: Option<&'a [u8]>,
}

/// One column being built.
enum Column {
    Path(StringBuilder),
    LineNumber(UInt64Builder),
    ByteOffset(UInt64Builder),
    Line(StringBuilder),
    Modified(TimestampNanosecondBuilder),
    Time(TimestampMillisecondBuilder),
    Level(StringBuilder),
    Host(Box<HostBuilder>),
}

/// The file the rows being added come from.
pub struct FileInfo {
    /// The path as the walk gave it, decoded lossily.
    pub path: String,
    /// Its modification time, in nanoseconds since the epoch.
    pub modified: Option<i64>,
}

impl FileInfo {
    /// What `md` says of the file at `path`.
    pub fn of(path: &std::path::Path, md: Option<&std::fs::Metadata>) -> FileInfo {
        let modified = md.and_then(|m| m.modified().ok()).and_then(|t| {
            let d = t.duration_since(std::time::UNIX_EPOCH).ok()?;
            i64::try_from(d.as_nanos()).ok()
        });
        FileInfo { path: path.to_string_lossy().into_owned(), modified }
    }

    /// Its modification time in ms since the epoch (now when unknown, as
    /// the viewer takes it): the year of a syslog line.
    pub fn modified_ms(&self) -> i64 {
        self.modified.map_or_else(
            || {
                let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
                now.map_or(0, |d| d.as_millis() as i64)
            },
            |ns| ns.div_euclid(1_000_000),
        )
    }
}

/// Rows being gathered into batches of the projected columns.
pub struct RowBuilder {
    schema: SchemaRef,
    columns: Vec<Column>,
    rows: usize,
    /// Whether `line`, `time`, `level` and `host` are projected (asked
    /// of every line).
    line: bool,
    time: bool,
    level: bool,
    host: bool,
}

impl RowBuilder {
    /// A builder of `schema` (the table's schema, projected), whose
    /// columns come from the table's `projection`.
    pub fn new(schema: SchemaRef, projection: &[usize]) -> RowBuilder {
        let columns: Vec<Column> = projection
            .iter()
            .map(|&i| match i {
                0 => Column::Path(StringBuilder::new()),
                1 => Column::LineNumber(UInt64Builder::new()),
                2 => Column::ByteOffset(UInt64Builder::new()),
                3 => Column::Line(StringBuilder::new()),
                4 => Column::Modified(TimestampNanosecondBuilder::new()),
                5 => Column::Time(TimestampMillisecondBuilder::new().with_timezone(UTC)),
                6 => Column::Level(StringBuilder::new()),
                _ => Column::Host(Box::default()),
            })
            .collect();
        let line = columns.iter().any(|c| matches!(c, Column::Line(_)));
        let time = columns.iter().any(|c| matches!(c, Column::Time(_)));
        let level = columns.iter().any(|c| matches!(c, Column::Level(_)));
        let host = columns.iter().any(|c| matches!(c, Column::Host(_)));
        RowBuilder { schema, columns, rows: 0, line, time, level, host }
    }

    /// Whether any column needs the line's bytes (else lines are only counted).
    pub fn wants_lines(&self) -> bool {
        !self.columns.is_empty()
    }

    /// Whether the line numbers are wanted (else any number will do).
    pub fn wants_line_numbers(&self) -> bool {
        self.columns.iter().any(|c| matches!(c, Column::LineNumber(_)))
    }

    /// Whether the `time` column is projected.
    pub fn wants_time(&self) -> bool {
        self.time
    }

    /// Whether the `level` column is projected.
    pub fn wants_level(&self) -> bool {
        self.level
    }

    /// Whether the `host` column is projected.
    pub fn wants_host(&self) -> bool {
        self.host
    }

    /// Adds one line (without its `\n`) of `file`, decoded only when
    /// the `line` column is projected.
    pub fn push(&mut self, file: &FileInfo, at: (u64, u64), line: &[u8], facts: Facts<'_>) {
        match self.line {
            true => self.push_decoded(file, at, &String::from_utf8_lossy(line), facts),
            false => self.push_decoded(file, at, "", facts),
        }
    }

    /// Adds one line of `file`, decoded (an invalid byte is U+FFFD), at
    /// `(line_number, byte_offset)`.
    pub fn push_decoded(&mut self, file: &FileInfo, at: (u64, u64), line: &str, facts: Facts<'_>) {
        let (line_number, byte_offset) = at;
        for c in &mut self.columns {
            match c {
                Column::Path(b) => b.append_value(&file.path),
                Column::LineNumber(b) => b.append_value(line_number),
                Column::ByteOffset(b) => b.append_value(byte_offset),
                Column::Line(b) => b.append_value(line),
                Column::Modified(b) => b.append_option(file.modified),
                Column::Time(b) => b.append_option(facts.time),
                Column::Level(b) => b.append_option(facts.level),
                Column::Host(b) => b.append(facts.host),
            }
        }
        self.rows += 1;
    }

    /// Adds `n` rows of no columns (lines counted, not read).
    pub fn push_count(&mut self, n: usize) {
        self.rows += n;
    }

    /// Whether a batch is full.
    pub fn is_full(&self) -> bool {
        self.rows >= BATCH_ROWS
    }

    /// The rows gathered so far as a batch (`None`: there are none).
    pub fn take(&mut self) -> Result<Option<RecordBatch>> {
        if self.rows == 0 {
            return Ok(None);
        }
        let arrays: Vec<ArrayRef> = self
            .columns
            .iter_mut()
            .map(|c| -> ArrayRef {
                match c {
                    Column::Path(b) | Column::Line(b) | Column::Level(b) => Arc::new(b.finish()),
                    Column::LineNumber(b) | Column::ByteOffset(b) => Arc::new(b.finish()),
                    Column::Modified(b) => Arc::new(b.finish()),
                    Column::Time(b) => Arc::new(b.finish()),
                    Column::Host(b) => Arc::new(b.finish()),
                }
            })
            .collect();
        let options = RecordBatchOptions::new().with_row_count(Some(self.rows));
        self.rows = 0;
        Ok(Some(RecordBatch::try_new_with_options(Arc::clone(&self.schema), arrays, &options)?))
    }
}
