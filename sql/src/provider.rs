//! [`LinesTable`], the table provider over trigrep's texts, and
//! [`LinesFunction`], the `lines(PATH, ..., 'NAME=VALUE', ...)` table
//! function that makes one: its paths, then its options, each a string
//! `'name=value'` (`compression`, [`Compression`]; `times`,
//! [`TimeOrder`]).

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
use crate::paths::Root;
use crate::pushdown::{is_pushable, pred_of};
use crate::text::Compression;
use crate::time_filter::{TimeCut, TimeOrder, bounds_time, range_of};
use crate::{paths, rows, scan_units};

/// One row per line of every file under `paths`: a tree (walked as `tg`
/// walks it), a huge file with a block index, a compressed file (read as
/// its text: an indexed `.gz` and a packed `.zst` through their indexes),
/// or a directory of any of these (globs naming them expanded when the
/// table is made).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinesTable {
    /// The files and directories the table reads, resolved where the
    /// table was made ([`paths::resolve`]).
    pub roots: Vec<Root>,
    /// The base directory of indexes (`tg --index-dir`'s).
    pub base: PathBuf,
    /// Whether conditions on `line` prune through indexes (off: every
    /// line of every file is read, for tests that compare both ways).
    pub pushdown: bool,
    /// Whether a compressed file is read as its text (the default) or as
    /// its bytes.
    #[serde(default)]
    pub compression: Compression,
    /// What may be assumed of the order of its lines' times (only when
    /// they go up are conditions on `time` pushed down, to skip blocks).
    #[serde(default)]
    pub times: TimeOrder,
}

impl LinesTable {
    /// The table over `paths`, its globs expanded and relative paths
    /// resolved in this process's working directory ([`paths::resolve`]),
    /// reading every compressed file as its text.
    pub fn new(paths: &[PathBuf], base: PathBuf, pushdown: bool) -> Result<LinesTable> {
        let roots = paths::resolve(paths)?;
        let (compression, times) = (Compression::Auto, TimeOrder::Any);
        Ok(LinesTable { roots, base, pushdown, compression, times })
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
                if self.pushdown && (is_pushable(f) || bounds_time(f)) {
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
        let ascending = self.times == TimeOrder::Ascending;
        let times = range_of(filters).filter(|_| self.pushdown);
        let times = times.map(|range| TimeCut { range, ascending });
        let n = state.config().target_partitions();
        let (roots, base, compression) = (self.roots.clone(), self.base.clone(), self.compression);
        let pred_for_walk = pred.clone();
        let (units, pruned) = tokio::task::spawn_blocking(move || {
            scan_units::of_paths(&roots, &base, pred_for_walk.as_ref(), n, compression)
        })
        .await
        .map_err(|e| DataFusionError::External(Box::new(e)))??;
        log::debug!("scan: {} units, {pruned} files ruled out by a tree index", units.len());
        let projection =
            projection.cloned().unwrap_or_else(|| (0..rows::schema().fields().len()).collect());
        let source = units_source(&scan_units::deal(units, n))?;
        let spec = ScanSpec { projection, pred, base: self.base.clone(), times };
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
        let mut paths = Vec::new();
        let (mut compression, mut times) = (None, None);
        for e in args.exprs() {
            let Expr::Literal(
                ScalarValue::Utf8(Some(s))
                | ScalarValue::LargeUtf8(Some(s))
                | ScalarValue::Utf8View(Some(s)),
                _,
            ) = e
            else {
                return Err(plan(format!(
                    "takes paths, then options ('name=value'), as string literals, not {e}"
                )));
            };
            let Some((name, value)) = option(s) else {
                if compression.is_some() || times.is_some() {
                    return Err(plan("its paths come first, then its options".into()));
                }
                paths.push(PathBuf::from(s));
                continue;
            };
            let value = value.to_ascii_lowercase();
            match name.to_ascii_lowercase().as_str() {
                "compression" => set(&mut compression, "compression", Compression::parse(&value))
                    .ok_or_else(|| {
                        plan(format!(
                            "'{s}': give 'compression=auto' (a compressed file is read as its \
                             text) or 'compression=none' (as its bytes, as rg reads without -z)"
                        ))
                    })??,
                "times" => {
                    set(&mut times, "times", TimeOrder::parse(&value)).ok_or_else(|| {
                        plan(format!(
                            "'{s}': give 'times=any' (the default: no block is skipped by time) or \
                         'times=ascending' (every file's times only go up: blocks outside a \
                         time range are skipped)"
                        ))
                    })??
                }
                _ => {
                    return Err(plan(format!(
                        "no option {name} (its options: compression, times; a path of that \
                         form: ./{s})"
                    )));
                }
            }
        }
        if paths.is_empty() {
            return Err(plan("needs at least one path".into()));
        }
        let mut table = LinesTable::new(&paths, self.base.clone(), self.pushdown)?;
        table.compression = compression.unwrap_or_default();
        table.times = times.unwrap_or_default();
        Ok(Arc::new(table))
    }
}

/// Sets an option to its `parsed` value: `None` when the value is not
/// one of its values, an error when it was given before.
fn set<T>(option: &mut Option<T>, name: &str, parsed: Option<T>) -> Option<Result<()>> {
    let value = parsed?;
    if option.is_some() {
        return Some(Err(plan(format!("{name} is given twice"))));
    }
    *option = Some(value);
    Some(Ok(()))
}

/// An error in a call of `lines()`.
fn plan(why: String) -> DataFusionError {
    DataFusionError::Plan(format!("lines(): {why}"))
}

/// The option an argument of `lines()` gives, `'name=value'` (a word
/// before the `=`); `None` for a path, and for a path of that form that
/// exists.
fn option(arg: &str) -> Option<(&str, &str)> {
    let (name, value) = arg.split_once('=')?;
    let word = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (word && std::path::Path::new(arg).symlink_metadata().is_err()).then_some((name, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_words_before_an_equals_sign_unless_a_path_is_there() {
        assert_eq!(option("compression=none"), Some(("compression", "none")));
        assert_eq!(option("Compression=AUTO"), Some(("Compression", "AUTO")));
        assert_eq!(option("typo_1=x"), Some(("typo_1", "x")));
        assert_eq!(option("/var/log/a=b"), None);
        assert_eq!(option("./compression=none"), None);
        assert_eq!(option("app.log"), None);
        assert_eq!(option("=x"), None);
    }
}
