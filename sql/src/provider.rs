//! [`LinesTable`], the table provider over trigrep's texts, and
//! [`LinesFunction`], the `lines(PATH, ...)` table function that makes one.

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableFunctionArgs, TableFunctionImpl};
use datafusion::datasource::{TableProvider, TableType};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::scalar::ScalarValue;
use serde::{Deserialize, Serialize};

use crate::exec::{LinesExec, ScanSpec, units_source};
use crate::filter::{is_pushable, pred_of};
use crate::{listing, paths, rows};

/// One row per line of every file under `paths`: a tree (walked as `tg`
/// walks it), a huge file with a block index, an indexed `.gz`, a packed
/// `.zst`, or a directory of any of these (globs naming them expanded
/// when the table is made).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinesTable {
    /// The files and directories the table reads.
    pub paths: Vec<PathBuf>,
    /// The base directory of indexes (`tg --index-dir`'s).
    pub base: PathBuf,
    /// Whether conditions on `line` prune through indexes (off: every
    /// line of every file is read, for tests that compare both ways).
    pub pushdown: bool,
}

impl LinesTable {
    /// The table over `paths`, its globs expanded ([`paths::expand`]).
    pub fn new(paths: &[PathBuf], base: PathBuf, pushdown: bool) -> Result<LinesTable> {
        Ok(LinesTable { paths: paths::expand(paths)?, base, pushdown })
    }
}

#[async_trait]
impl TableProvider for LinesTable {
    fn schema(&self) -> SchemaRef {
        rows::schema()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        Ok(filters
            .iter()
            .map(|f| {
                if self.pushdown && is_pushable(f) {
                    TableProviderFilterPushDown::Inexact
                } else {
                    TableProviderFilterPushDown::Unsupported
                }
            })
            .collect())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        _limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let pred = if self.pushdown { pred_of(filters) } else { None };
        let n = state.config().target_partitions();
        let (paths, base) = (self.paths.clone(), self.base.clone());
        let pred_for_walk = pred.clone();
        let (units, pruned) = tokio::task::spawn_blocking(move || {
            listing::units(&paths, &base, pred_for_walk.as_ref(), n)
        })
        .await
        .map_err(|e| DataFusionError::External(Box::new(e)))??;
        log::debug!("scan: {} units, {pruned} files ruled out by a tree index", units.len());
        let projection =
            projection.cloned().unwrap_or_else(|| (0..rows::schema().fields().len()).collect());
        let source = units_source(&listing::deal(units, n))?;
        let spec = ScanSpec { projection, pred, base: self.base.clone() };
        Ok(Arc::new(LinesExec::new(spec, source)?))
    }
}

/// The table function `lines(PATH, ...)`.
#[derive(Clone, Debug)]
pub struct LinesFunction {
    /// The base directory of indexes.
    pub base: PathBuf,
    /// Whether the tables it makes push conditions down.
    pub pushdown: bool,
}

impl TableFunctionImpl for LinesFunction {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let paths = args
            .exprs()
            .iter()
            .map(|e| match e {
                Expr::Literal(
                    ScalarValue::Utf8(Some(s))
                    | ScalarValue::LargeUtf8(Some(s))
                    | ScalarValue::Utf8View(Some(s)),
                    _,
                ) => Ok(PathBuf::from(s)),
                other => Err(DataFusionError::Plan(format!(
                    "lines() takes paths as string literals, not {other}"
                ))),
            })
            .collect::<Result<Vec<_>>>()?;
        if paths.is_empty() {
            return Err(DataFusionError::Plan("lines() needs at least one path".into()));
        }
        Ok(Arc::new(LinesTable::new(&paths, self.base.clone(), self.pushdown)?))
    }
}
