//! Query results printed: an aligned table (the default; a result of more
//! than [`TABLE_ROWS`] rows as several), CSV with a header row, or JSON
//! with one object per line.

use std::io::Write;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::csv::WriterBuilder;
use datafusion::arrow::json::LineDelimitedWriter;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::dataframe::DataFrame;
use datafusion::error::{DataFusionError, Result};
use futures::StreamExt;

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

/// Runs `df` and prints its rows to `out` as `format` says.
pub async fn print(df: DataFrame, format: Format, out: &mut dyn Write) -> Result<()> {
    let schema = df.schema().inner().clone();
    let mut stream = df.execute_stream().await?;
    log::debug!("physical plan ready");
    match format {
        Format::Table => {
            // A table is aligned over the rows it holds, so they are held
            // until it is printed: a long result prints as several tables.
            let (mut batches, mut rows, mut bytes, mut printed) = (Vec::new(), 0, 0, false);
            while let Some(b) = stream.next().await {
                let b = b?;
                (rows, bytes) = (rows + b.num_rows(), bytes + b.get_array_memory_size());
                batches.push(b);
                if rows >= TABLE_ROWS || bytes >= TABLE_BYTES {
                    writeln!(out, "{}", pretty_format_batches(&batches)?)?;
                    (batches, rows, bytes, printed) = (Vec::new(), 0, 0, true);
                }
            }
            if batches.is_empty() && !printed {
                batches.push(RecordBatch::new_empty(schema));
            }
            if !batches.is_empty() {
                writeln!(out, "{}", pretty_format_batches(&batches)?)?;
            }
        }
        Format::Csv => {
            let mut w = WriterBuilder::new().with_header(true).build(&mut *out);
            let mut wrote = false;
            while let Some(b) = stream.next().await {
                w.write(&b?)?;
                wrote = true;
            }
            if !wrote {
                w.write(&RecordBatch::new_empty(schema))?;
            }
        }
        Format::Json => {
            let mut w = LineDelimitedWriter::new(&mut *out);
            while let Some(b) = stream.next().await {
                w.write(&b?)?;
            }
            w.finish()?;
        }
    }
    out.flush().map_err(DataFusionError::from)
}
