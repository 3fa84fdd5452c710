//! Query results printed: an aligned table (the default), CSV with a
//! header row, or JSON with one object per line.

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

/// Runs `df` and prints its rows to `out` as `format` says.
pub async fn print(df: DataFrame, format: Format, out: &mut dyn Write) -> Result<()> {
    let schema = df.schema().inner().clone();
    let mut stream = df.execute_stream().await?;
    log::debug!("physical plan ready");
    match format {
        Format::Table => {
            let mut batches = Vec::new();
            while let Some(b) = stream.next().await {
                batches.push(b?);
            }
            if batches.is_empty() {
                batches.push(RecordBatch::new_empty(schema));
            }
            writeln!(out, "{}", pretty_format_batches(&batches)?)?;
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
