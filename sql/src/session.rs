//! The SQL session: DataFusion in this process (embedded, the default) or
//! a Ballista scheduler's (`--scheduler HOST:PORT`), with the `lines`
//! table function and the named tables registered.

use std::path::PathBuf;
use std::sync::Arc;

use ballista::prelude::{SessionConfigExt, SessionContextExt};
use datafusion::error::Result;
use datafusion::execution::SessionStateBuilder;
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
