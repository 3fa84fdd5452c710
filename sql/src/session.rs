//! The SQL session: DataFusion in this process (embedded, the default) or
//! a Ballista scheduler's (`--scheduler HOST:PORT`), with the `lines`
//! table function and the named tables registered.

use std::path::PathBuf;
use std::sync::Arc;

use ballista::prelude::{SessionConfigExt, SessionContextExt};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::Column;
use datafusion::dataframe::DataFrame;
use datafusion::error::Result;
use datafusion::execution::SessionStateBuilder;
use datafusion::logical_expr::{Expr, cast};
use datafusion::prelude::{SessionConfig, SessionContext};

use crate::codec::{LinesLogicalCodec, LinesPhysicalCodec};
use crate::notes::Notes;
use crate::provider::{LinesFunction, LinesTable};
use crate::regex_ops::RegexOpsAsCalls;

/// How a session is set up.
#[derive(Clone, Debug)]
pub struct SessionOptions {
    /// The base directory of indexes.
    pub base: PathBuf,
    /// Whether conditions on `line` prune through indexes.
    pub pushdown: bool,
    /// How many partitions a scan is split into.
    pub partitions: usize,
    /// Named tables: each name with its paths.
    pub tables: Vec<(String, Vec<PathBuf>)>,
    /// A Ballista scheduler (`HOST:PORT`) to run queries on, else this process.
    pub scheduler: Option<String>,
}

/// A session set up as `opts` says, with its [`Notes`].
///
/// On a cluster, jobs are planned by Ballista's static distributed
/// planner, not its adaptive one (Ballista 55's default): the adaptive
/// planner keeps a `UNION` branch that ends in a collapse (an ungrouped
/// aggregate's `CoalescePartitionsExec`) inside the union's stage, where
/// the scheduler cannot restrict it to a task's partitions, so every task
/// of that stage ran the branch whole and `... GROUP BY path UNION ALL
/// SELECT 'total', count(*) ...` returned its total once per task (and,
/// the branches' partitions then misnumbered, groups twice or not at
/// all). The static planner gives such a branch a stage of its own.
pub async fn context(opts: &SessionOptions) -> Result<SessionContext> {
    let notes = Arc::new(Notes::default());
    let ctx = match &opts.scheduler {
        None => {
            let config =
                SessionConfig::new().with_target_partitions(opts.partitions).with_extension(notes);
            SessionContext::new_with_config(config)
        }
        Some(addr) => {
            let config = SessionConfig::new_with_ballista()
                .with_ballista_adaptive_query_planner(false)
                .with_target_partitions(opts.partitions)
                .with_extension(notes)
                .with_ballista_logical_extension_codec(Arc::new(LinesLogicalCodec::default()))
                .with_ballista_physical_extension_codec(Arc::new(LinesPhysicalCodec::default()));
            let state =
                SessionStateBuilder::new().with_config(config).with_default_features().build();
            SessionContext::remote_with_state(&format!("df://{addr}"), state).await?
        }
    };
    ctx.add_analyzer_rule(Arc::new(RegexOpsAsCalls));
    let function = LinesFunction { base: opts.base.clone(), pushdown: opts.pushdown };
    ctx.register_udtf("lines", Arc::new(function));
    for (name, paths) in &opts.tables {
        let table = LinesTable::new(paths, opts.base.clone(), opts.pushdown)?;
        ctx.register_table(name.as_str(), Arc::new(table))?;
    }
    Ok(ctx)
}

/// The results of `df` as a session of `opts` can send them: on a
/// cluster, a dictionary column (`host`) becomes its values. A cluster's
/// results come back through Arrow Flight, whose encoder sends a
/// dictionary's values, not the dictionary, while Ballista's client
/// decodes them as the plan's type (`expected Dictionary(Int32, Utf8) but
/// found Utf8`). The values print alike; embedded, nothing changes.
pub fn sendable(df: DataFrame, opts: &SessionOptions) -> Result<DataFrame> {
    let dictionary = |t: &DataType| matches!(t, DataType::Dictionary(..));
    if opts.scheduler.is_none() || !df.schema().fields().iter().any(|f| dictionary(f.data_type())) {
        return Ok(df);
    }
    let exprs: Vec<Expr> = df
        .schema()
        .iter()
        .map(|(q, f)| {
            let c = Expr::Column(Column::new(q.cloned(), f.name()));
            match f.data_type() {
                DataType::Dictionary(_, values) => {
                    cast(c, (**values).clone()).alias_qualified(q.cloned(), f.name())
                }
                _ => c,
            }
        })
        .collect();
    df.select(exprs)
}
