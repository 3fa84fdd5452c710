//! Nested values (lists, structs, maps, unions) as JSON text: how a table
//! or a CSV file shows them, one JSON value a cell (`["a","b"]`,
//! `{"k":1}`), the same text `--format json` prints for them. A null
//! stays null.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, RecordBatch, StringBuilder};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::arrow::json::LineDelimitedWriter;
use datafusion::error::{DataFusionError, Result};

/// `field` as the string column [`as_json_text`] makes of it.
pub fn text_field(field: &Field) -> Field {
    Field::new(field.name(), DataType::Utf8, true)
}

/// Each value of `column` as its JSON text (arrow's JSON writer's).
pub fn as_json_text(column: &ArrayRef) -> Result<ArrayRef> {
    // The writer writes objects: each row is `{"v":VALUE}`, or `{}` for
    // a null.
    let field = Field::new("v", column.data_type().clone(), true);
    let batch = RecordBatch::try_new(Arc::new(Schema::new(vec![field])), vec![Arc::clone(column)])?;
    let mut json = Vec::new();
    {
        let mut w = LineDelimitedWriter::new(&mut json);
        w.write(&batch)?;
        w.finish()?;
    }
    let mut text = StringBuilder::with_capacity(column.len(), json.len());
    for line in json.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let mut row: serde_json::Map<String, serde_json::Value> =
            serde_json::from_slice(line).map_err(|e| DataFusionError::External(Box::new(e)))?;
        match row.remove("v") {
            Some(v) => text.append_value(v.to_string()),
            None => text.append_null(),
        }
    }
    let text = text.finish();
    if text.len() != column.len() {
        return Err(DataFusionError::Internal(format!(
            "{} JSON values for {} rows",
            text.len(),
            column.len()
        )));
    }
    Ok(Arc::new(text))
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::array::{Int64Builder, ListBuilder, StringArray};

    use super::*;

    #[test]
    fn lists_become_json_arrays_and_nulls_stay_null() {
        let mut b = ListBuilder::new(Int64Builder::new());
        b.values().append_value(1);
        b.values().append_value(2);
        b.append(true);
        b.append(false);
        b.append(true);
        let column: ArrayRef = Arc::new(b.finish());
        let text = as_json_text(&column).unwrap();
        let text = text.as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!(text.value(0), "[1,2]");
        assert!(text.is_null(1));
        assert_eq!(text.value(2), "[]");
    }
}
