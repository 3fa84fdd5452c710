//! [`LinesExec`]: the physical scan of a lines table — partitions of
//! [`Unit`]s, each read on a blocking thread into batches of the
//! projected columns. It is plain data (serialisable), so that Ballista
//! can ship it to executors ([`crate::codec`]), which read their
//! partitions with the indexes of the files they read.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::error::Result;
use datafusion::execution::TaskContext;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchReceiverStreamBuilder;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
    ReplaceChildrenOptions, SendableRecordBatchStream,
};
use serde::{Deserialize, Serialize};

use crate::filter::Pred;
use crate::read::{Unit, UnitReader};
use crate::rows::{self, RowBuilder};

/// What a [`LinesExec`] is made of: all it needs to run anywhere.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanSpec {
    /// The units of each partition.
    pub partitions: Vec<Vec<Unit>>,
    /// The table's columns to produce, in order.
    pub projection: Vec<usize>,
    /// What lines must satisfy, as far as an index can tell (`None`: the
    /// scan prunes nothing).
    pub pred: Option<Pred>,
    /// The base directory of indexes.
    pub base: PathBuf,
}

/// The scan of a lines table.
#[derive(Debug)]
pub struct LinesExec {
    spec: ScanSpec,
    schema: SchemaRef,
    properties: Arc<PlanProperties>,
}

impl LinesExec {
    /// The scan `spec` describes.
    pub fn new(spec: ScanSpec) -> Result<LinesExec> {
        let schema = Arc::new(rows::schema().project(&spec.projection)?);
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(Arc::clone(&schema)),
            Partitioning::UnknownPartitioning(spec.partitions.len()),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        Ok(LinesExec { spec, schema, properties })
    }

    /// What it is made of.
    pub fn spec(&self) -> &ScanSpec {
        &self.spec
    }
}

impl DisplayAs for LinesExec {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let units: usize = self.spec.partitions.iter().map(Vec::len).sum();
        write!(
            f,
            "LinesExec: partitions={}, units={units}, pushdown={}",
            self.spec.partitions.len(),
            self.spec.pred.is_some()
        )
    }
}

impl ExecutionPlan for LinesExec {
    fn name(&self) -> &str {
        "LinesExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![]
    }

    fn apply_expressions(
        &self,
        _: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn replace_children(
        self: Arc<Self>,
        _: Vec<Arc<dyn ExecutionPlan>>,
        _: ReplaceChildrenOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn with_new_children(
        self: Arc<Self>,
        _: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn execute(&self, partition: usize, _: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        let units = self.spec.partitions.get(partition).cloned().unwrap_or_default();
        log::info!(
            "partition {partition} of {}: {} units",
            self.spec.partitions.len(),
            units.len()
        );
        let (pred, base) = (self.spec.pred.clone(), self.spec.base.clone());
        let rows = RowBuilder::new(Arc::clone(&self.schema), &self.spec.projection);
        let mut builder = RecordBatchReceiverStreamBuilder::new(Arc::clone(&self.schema), 2);
        let tx = builder.tx();
        builder.spawn_blocking(move || {
            let emit = Box::new(move |batch| tx.blocking_send(Ok(batch)).is_ok());
            let mut reader = UnitReader::new(rows, pred.as_ref(), &base, emit);
            for unit in &units {
                if !reader.read(unit)? {
                    return Ok(());
                }
            }
            reader.finish()
        });
        Ok(builder.build())
    }
}
