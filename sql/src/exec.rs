//! [`LinesExec`]: the physical scan of a lines table. Its partitions'
//! [`Unit`]s are data, not fields: its one input is an in-memory source
//! (`DataSourceExec` over a `MemorySourceConfig`) whose partition `i`
//! holds the units of partition `i`, one row each, and partition `i` of
//! the scan reads the units partition `i` of its input yields, on a
//! blocking thread, into batches of the projected columns.
//!
//! Why an input and not a field: Ballista's scheduler gives each task its
//! slice of a stage's partitions by rewriting the leaves it knows (an
//! in-memory source among them: `ballista-scheduler`
//! `src/state/task_builder.rs`, `select_output_partitions`) and ships any
//! other leaf whole to every task, which would then read every partition.
//! With the units in a source it knows, each task's scan reads exactly the
//! units of the partitions it was given, so the partitions of one table
//! spread over executors. The scan itself is plain data
//! ([`ScanSpec`], serialisable: [`crate::codec`]).

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::array::{Array, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchReceiverStreamBuilder;
use datafusion::physical_plan::{
    ChildrenPropertiesMode, DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning,
    PlanProperties, ReplaceChildrenOptions, SendableRecordBatchStream,
};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};

use crate::notes::Notes;
use crate::opened::OpenTexts;
use crate::pushdown::Pred;
use crate::read::{Unit, UnitReader};
use crate::rows::{self, RowBuilder};
use crate::time_filter::TimeCut;

/// What a [`LinesExec`] does with the units it is given: all it needs
/// to run anywhere.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanSpec {
    /// The table's columns to produce, in order.
    pub projection: Vec<usize>,
    /// What lines must satisfy, as far as an index can tell (`None`: the
    /// scan prunes nothing).
    pub pred: Option<Pred>,
    /// The base directory of indexes.
    pub base: PathBuf,
    /// The times lines must have: blocks that hold none are skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<TimeCut>,
}

/// The scan of a lines table.
#[derive(Debug)]
pub struct LinesExec {
    spec: ScanSpec,
    /// The units, partition by partition ([`units_source`]).
    units: Arc<dyn ExecutionPlan>,
    /// The texts its partitions opened (in this process).
    texts: Arc<OpenTexts>,
    schema: SchemaRef,
    properties: Arc<PlanProperties>,
}

/// The schema of the units' source: one row per unit, as JSON.
fn units_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new("unit", DataType::Utf8, false)]))
}

/// The in-memory source of `partitions`' units, partition `i` holding
/// the units of partition `i`.
pub fn units_source(partitions: &[Vec<Unit>]) -> Result<Arc<dyn ExecutionPlan>> {
    let schema = units_schema();
    let batches = partitions
        .iter()
        .map(|units| {
            let json = units
                .iter()
                .map(|u| {
                    serde_json::to_string(u).map_err(|e| DataFusionError::External(Box::new(e)))
                })
                .collect::<Result<Vec<String>>>()?;
            let column = Arc::new(StringArray::from(json));
            Ok(vec![RecordBatch::try_new(Arc::clone(&schema), vec![column])?])
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(MemorySourceConfig::try_new_exec(&batches, schema, None)?)
}

/// The units the rows of `batches` (of the units' source) name.
fn units_of(batches: &[RecordBatch]) -> Result<Vec<Unit>> {
    let mut units = Vec::new();
    for batch in batches {
        let column = batch.column(0);
        let Some(json) = column.as_any().downcast_ref::<StringArray>() else {
            return Err(DataFusionError::Internal("a lines scan's units are not strings".into()));
        };
        for s in json.iter().flatten() {
            units
                .push(serde_json::from_str(s).map_err(|e| DataFusionError::External(Box::new(e)))?);
        }
    }
    Ok(units)
}

impl LinesExec {
    /// The scan `spec` describes, of the units `units` yields
    /// ([`units_source`]).
    pub fn new(spec: ScanSpec, units: Arc<dyn ExecutionPlan>) -> Result<LinesExec> {
        let schema = Arc::new(rows::schema().project(&spec.projection)?);
        let n = units.properties().output_partitioning().partition_count();
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(Arc::clone(&schema)),
            Partitioning::UnknownPartitioning(n),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        Ok(LinesExec { spec, units, texts: Arc::default(), schema, properties })
    }

    /// What it does.
    pub fn spec(&self) -> &ScanSpec {
        &self.spec
    }
}

impl DisplayAs for LinesExec {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "LinesExec: partitions={}, pushdown={}{}",
            self.properties.output_partitioning().partition_count(),
            self.spec.pred.is_some(),
            match self.spec.times {
                Some(TimeCut { range: r, .. }) => format!(", times={:?}..={:?}", r.lo, r.hi),
                None => String::new(),
            }
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
        vec![&self.units]
    }

    /// Partition `i` reads the units of its input's partition `i`:
    /// splitting the input further would only deal them otherwise.
    fn benefits_from_input_partitioning(&self) -> Vec<bool> {
        vec![false]
    }

    fn apply_expressions(
        &self,
        _: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn replace_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
        _: ReplaceChildrenOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let [units] = <[_; 1]>::try_from(children).map_err(|c| {
            DataFusionError::Internal(format!("LinesExec takes one input, not {}", c.len()))
        })?;
        Ok(Arc::new(LinesExec::new(self.spec.clone(), units)?))
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let mode = ReplaceChildrenOptions::new(ChildrenPropertiesMode::Recompute);
        self.replace_children(children, mode)
    }

    fn execute(
        &self,
        partition: usize,
        ctx: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        // The session's notes, in the process that runs the query.
        let notes = ctx.session_config().get_extension::<Notes>();
        let input = self.units.execute(partition, ctx)?;
        let (pred, base) = (self.spec.pred.clone(), self.spec.base.clone());
        let times = self.spec.times;
        let texts = Arc::clone(&self.texts);
        let rows = RowBuilder::new(Arc::clone(&self.schema), &self.spec.projection);
        let mut builder = RecordBatchReceiverStreamBuilder::new(Arc::clone(&self.schema), 2);
        let tx = builder.tx();
        builder.spawn(async move {
            let batches: Vec<RecordBatch> = input.try_collect().await?;
            let units = units_of(&batches)?;
            log::info!("partition {partition}: {} units", units.len());
            let read = move || -> Result<()> {
                let emit = Box::new(move |batch| tx.blocking_send(Ok(batch)).is_ok());
                let (pred, notes) = (pred.as_ref(), notes.as_deref());
                let scan = (pred, times);
                let mut reader = UnitReader::new(rows, scan, &base, &texts, notes, emit);
                for unit in &units {
                    slow_down_for_tests();
                    if !reader.read(unit)? {
                        return Ok(());
                    }
                }
                reader.finish()
            };
            tokio::task::spawn_blocking(read)
                .await
                .map_err(|e| DataFusionError::External(Box::new(e)))?
        });
        Ok(builder.build())
    }
}

/// Sleeps `TG_SQL_TEST_UNIT_DELAY_MS` milliseconds before each unit when
/// that is set: a test's hook, so that a query lasts long enough to kill
/// an executor in the middle of it (`tests/ballista.rs`).
fn slow_down_for_tests() {
    if let Some(ms) = std::env::var("TG_SQL_TEST_UNIT_DELAY_MS").ok().and_then(|s| s.parse().ok()) {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}
