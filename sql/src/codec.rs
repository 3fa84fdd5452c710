//! The extension codecs Ballista needs to ship a lines table: the client
//! sends its logical plan to the scheduler ([`LinesLogicalCodec`]: a
//! [`LinesTable`] as JSON), and the scheduler sends each stage's physical
//! plan to executors ([`LinesPhysicalCodec`]: a [`LinesExec`]'s
//! [`ScanSpec`] as JSON; its input, the in-memory source of its units,
//! travels as DataFusion encodes any input). Anything else is Ballista's
//! own codecs' work.
//!
//! Both are needed by the client, the scheduler and every executor.

use std::sync::Arc;

use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::TableReference;
use datafusion::datasource::TableProvider;
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{Extension, LogicalPlan};
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::{PhysicalExtensionCodec, PhysicalProtoConverterExtension};

use crate::exec::{LinesExec, ScanSpec};
use crate::provider::LinesTable;

/// What opens every blob this module writes, so that Ballista's own
/// blobs (which never start so) go to Ballista's codecs.
const MAGIC: &[u8] = b"trigrep-sql/1\n";

/// `value` as a tagged JSON blob appended to `buf`.
fn encode<T: serde::Serialize>(value: &T, buf: &mut Vec<u8>) -> Result<()> {
    buf.extend_from_slice(MAGIC);
    serde_json::to_writer(buf, value).map_err(|e| DataFusionError::External(Box::new(e)))
}

/// The value in a blob of [`encode`] (`None`: the blob is not one).
fn decode<T: serde::de::DeserializeOwned>(buf: &[u8]) -> Option<Result<T>> {
    let json = buf.strip_prefix(MAGIC)?;
    Some(serde_json::from_slice(json).map_err(|e| DataFusionError::External(Box::new(e))))
}

/// Ballista's logical codec, plus lines tables.
#[derive(Debug, Default)]
pub struct LinesLogicalCodec {
    inner: BallistaLogicalExtensionCodec,
}

impl LogicalExtensionCodec for LinesLogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.inner.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        match decode::<LinesTable>(buf) {
            Some(table) => Ok(Arc::new(table?)),
            None => self.inner.try_decode_table_provider(buf, table_ref, schema, ctx),
        }
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        match node.downcast_ref::<LinesTable>() {
            Some(table) => encode(table, buf),
            None => self.inner.try_encode_table_provider(table_ref, node, buf),
        }
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn FileFormatFactory>> {
        self.inner.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> Result<()> {
        self.inner.try_encode_file_format(buf, node)
    }
}

/// Ballista's physical codec, plus lines scans.
#[derive(Debug, Default)]
pub struct LinesPhysicalCodec {
    inner: BallistaPhysicalExtensionCodec,
}

impl PhysicalExtensionCodec for LinesPhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        match decode::<ScanSpec>(buf) {
            Some(spec) => {
                let [units] = inputs else {
                    return Err(DataFusionError::Internal(format!(
                        "a lines scan has one input, not {}",
                        inputs.len()
                    )));
                };
                Ok(Arc::new(LinesExec::new(spec?, Arc::clone(units))?))
            }
            None => self.inner.try_decode(buf, inputs, ctx, converter),
        }
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        match node.downcast_ref::<LinesExec>() {
            Some(exec) => encode(exec.spec(), buf),
            None => self.inner.try_encode(node, buf, converter),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scan_round_trips_and_other_blobs_are_left_alone() {
        let spec =
            ScanSpec { projection: vec![0, 3], pred: None, base: "/idx".into(), times: None };
        let mut buf = Vec::new();
        encode(&spec, &mut buf).unwrap();
        assert_eq!(decode::<ScanSpec>(&buf).unwrap().unwrap(), spec);
        assert!(decode::<ScanSpec>(b"\x0a\x02xx").is_none());
        // A time range and the table's promise travel with the scan.
        let range = crate::time_filter::TimeRange { lo: Some(5), hi: None };
        let times = Some(crate::time_filter::TimeCut { range, ascending: true });
        let spec = ScanSpec { times, ..spec };
        buf.clear();
        encode(&spec, &mut buf).unwrap();
        assert_eq!(decode::<ScanSpec>(&buf).unwrap().unwrap(), spec);
    }
}
