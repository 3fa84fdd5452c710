//! Query results printed: an aligned table (the default; a result of more
//! than [`TABLE_ROWS`] rows as several), CSV with a header row, or JSON
//! with one object per line. Columns are named as the query wrote them
//! ([`crate::headers`]); a nested value (a list, a struct, a map) prints
//! as JSON in every format: a JSON value in `--format json`, its JSON
//! text in a table's or a CSV file's cell ([`crate::nested`]).

use std::io::Write;
use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::csv::WriterBuilder;
use datafusion::arrow::datatypes::{Field, Schema, SchemaRef};
use datafusion::arrow::json::LineDelimitedWriter;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::dataframe::DataFrame;
use datafusion::error::{DataFusionError, Result};
use futures::StreamExt;

use crate::nested;

/// How results are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// An aligned table.
    Table,
    /// CSV with a header row.
    Csv,
    /// One JSON object per line.
    Json,
}

/// The most rows one aligned table holds: a longer result prints as
/// several tables, each with its header, so that memory stays bounded.
pub const TABLE_ROWS: usize = 10_000;

/// The most bytes of rows one aligned table holds (as [`TABLE_ROWS`]).
const TABLE_BYTES: usize = 64 << 20;

/// What a batch becomes before it prints: its columns renamed, and its
/// nested columns as JSON text unless the format is JSON.
struct Shape {
    schema: SchemaRef,
    as_text: bool,
}

impl Shape {
    /// The shape of `schema`'s batches in `format`; `names` (one per
    /// column, `None` to keep a name) renames columns.
    fn new(schema: &Schema, format: Format, names: Option<&[Option<String>]>) -> Shape {
        let names = names.filter(|n| n.len() == schema.fields().len());
        let as_text = format != Format::Json;
        let fields: Vec<Field> = schema
            .fields()
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let name = names.and_then(|n| n[i].clone()).unwrap_or_else(|| f.name().clone());
                let field = f.as_ref().clone().with_name(name);
                if as_text && f.data_type().is_nested() {
                    nested::text_field(&field)
                } else {
                    field
                }
            })
            .collect();
        Shape { schema: Arc::new(Schema::new(fields)), as_text }
    }

    /// `batch` in this shape.
    fn apply(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        let columns = batch
            .columns()
            .iter()
            .map(|c| {
                if self.as_text && c.data_type().is_nested() {
                    nested::as_json_text(c)
                } else {
                    Ok(Arc::clone(c))
                }
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(RecordBatch::try_new(Arc::clone(&self.schema), columns)?)
    }
}

/// Runs `df` and prints its rows to `out` as `format` says, its columns
/// named by `names` where it gives a name (see [`crate::headers`]).
pub async fn print(
    df: DataFrame,
    format: Format,
    names: Option<&[Option<String>]>,
    out: &mut dyn Write,
) -> Result<()> {
    let shape = Shape::new(df.schema().inner(), format, names);
    let mut stream = df.execute_stream().await?;
    log::debug!("physical plan ready");
    match format {
        Format::Table => {
            // A table is aligned over the rows it holds, so they are held
            // until it is printed: a long result prints as several tables.
            let (mut batches, mut rows, mut bytes, mut printed) = (Vec::new(), 0, 0, false);
            while let Some(b) = stream.next().await {
                let b = shape.apply(&b?)?;
                (rows, bytes) = (rows + b.num_rows(), bytes + b.get_array_memory_size());
                batches.push(b);
                if rows >= TABLE_ROWS || bytes >= TABLE_BYTES {
                    writeln!(out, "{}", pretty_format_batches(&batches)?)?;
                    (batches, rows, bytes, printed) = (Vec::new(), 0, 0, true);
                }
            }
            if batches.is_empty() && !printed {
                batches.push(RecordBatch::new_empty(Arc::clone(&shape.schema)));
            }
            if !batches.is_empty() {
                writeln!(out, "{}", pretty_format_batches(&batches)?)?;
            }
        }
        Format::Csv => {
            let mut w = WriterBuilder::new().with_header(true).build(&mut *out);
            let mut wrote = false;
            while let Some(b) = stream.next().await {
                w.write(&shape.apply(&b?)?)?;
                wrote = true;
            }
            if !wrote {
                w.write(&RecordBatch::new_empty(Arc::clone(&shape.schema)))?;
            }
        }
        Format::Json => {
            let mut w = LineDelimitedWriter::new(&mut *out);
            while let Some(b) = stream.next().await {
                w.write(&shape.apply(&b?)?)?;
            }
            w.finish()?;
        }
    }
    out.flush().map_err(DataFusionError::from)
}
