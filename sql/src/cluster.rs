//! A Ballista scheduler and executors that know lines tables: started by
//! `tg-sql scheduler` and `tg-sql executor`, each with the codecs of
//! [`crate::codec`]. The executors read the files named in the plans they
//! receive, so every executor must see the same paths (shared storage),
//! and they log which blocks of which text they read.

use std::net::SocketAddr;
use std::sync::Arc;

use ballista_core::registry::BallistaFunctionRegistry;
use ballista_core::utils::{default_config_producer, default_session_builder};
use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::{SchedulerConfig, TaskDistributionPolicy};
use ballista_scheduler::scheduler_process::start_server;
use datafusion::error::{DataFusionError, Result};

use crate::codec::{LinesLogicalCodec, LinesPhysicalCodec};

/// Seconds between an executor's heartbeats.
const HEARTBEAT_SECS: u64 = 5;

/// Seconds without a heartbeat after which an executor is lost.
const EXECUTOR_TIMEOUT_SECS: u64 = 4 * HEARTBEAT_SECS;

/// A Ballista error as DataFusion's.
fn ballista(e: impl std::fmt::Display) -> DataFusionError {
    DataFusionError::Execution(format!("ballista: {e}"))
}

/// Runs a scheduler listening on `bind` until the process ends; tasks
/// are dealt to executors round robin (a scan's partitions too: see
/// [`crate::exec`]).
pub async fn run_scheduler(bind: SocketAddr) -> Result<()> {
    let config = SchedulerConfig {
        bind_host: bind.ip().to_string(),
        bind_port: bind.port(),
        task_distribution: TaskDistributionPolicy::RoundRobin,
        // An executor silent for 20 s (4 missed heartbeats) is lost: its
        // tasks run again elsewhere, or the query fails; never a partial
        // answer.
        executor_timeout_seconds: EXECUTOR_TIMEOUT_SECS,
        no_executors_grace_period_seconds: EXECUTOR_TIMEOUT_SECS,
        expire_dead_executor_interval_seconds: 5,
        override_logical_codec: Some(Arc::new(LinesLogicalCodec::default())),
        override_physical_codec: Some(Arc::new(LinesPhysicalCodec::default())),
        ..SchedulerConfig::default()
    };
    let cluster = BallistaCluster::new_from_config(&config).await.map_err(ballista)?;
    start_server(cluster, bind, Arc::new(config)).await.map_err(ballista)
}

/// Where an executor listens and whom it serves.
#[derive(Clone, Debug)]
pub struct ExecutorOptions {
    /// The scheduler, `HOST:PORT`.
    pub scheduler: SocketAddr,
    /// The executor's own address (its Flight port is the next one up).
    pub bind: SocketAddr,
    /// How many tasks it runs at once.
    pub slots: usize,
    /// Where it keeps shuffle files.
    pub work_dir: Option<String>,
}

/// The functions an executor knows: those of the scheduler's sessions
/// (DataFusion's defaults, the nested ones among them, and Ballista's).
///
/// A plan names its functions and the executor looks each up here.
/// Ballista's own default for executors lacks DataFusion's nested
/// functions (`array_element`, `array_length`, `make_array`, ...), which
/// the scheduler plans: a query naming one, `regexp_match(...)[1]` say,
/// failed on the cluster while it ran embedded. Taken from the session
/// the scheduler plans with, the two cannot disagree.
pub fn executor_functions() -> Result<BallistaFunctionRegistry> {
    let state = default_session_builder(default_config_producer())?;
    Ok(BallistaFunctionRegistry::from(&state))
}

/// Runs an executor until the process ends.
pub async fn run_executor(opts: ExecutorOptions) -> Result<()> {
    let config = ExecutorProcessConfig {
        bind_host: opts.bind.ip().to_string(),
        port: opts.bind.port(),
        grpc_port: opts.bind.port() + 1,
        scheduler_host: opts.scheduler.ip().to_string(),
        scheduler_port: opts.scheduler.port(),
        vcores: opts.slots,
        work_dir: opts.work_dir,
        executor_heartbeat_interval_seconds: HEARTBEAT_SECS,
        override_function_registry: Some(Arc::new(executor_functions()?)),
        override_logical_codec: Some(Arc::new(LinesLogicalCodec::default())),
        override_physical_codec: Some(Arc::new(LinesPhysicalCodec::default())),
        ..ExecutorProcessConfig::default()
    };
    start_executor_process(Arc::new(config)).await.map_err(ballista)
}

#[cfg(test)]
mod tests {
    use datafusion::execution::FunctionRegistry;
    use datafusion::prelude::SessionContext;

    use super::*;

    #[test]
    fn executors_know_every_function_an_embedded_session_knows() {
        let known = executor_functions().unwrap();
        let embedded = SessionContext::new().state();
        let missing = |names: Vec<&String>, has: &dyn Fn(&str) -> bool| -> Vec<String> {
            names.into_iter().filter(|n| !has(n.as_str())).cloned().collect()
        };
        let scalar =
            missing(embedded.scalar_functions().keys().collect(), &|n| known.udf(n).is_ok());
        assert_eq!(scalar, Vec::<String>::new(), "scalar functions");
        let aggregate =
            missing(embedded.aggregate_functions().keys().collect(), &|n| known.udaf(n).is_ok());
        assert_eq!(aggregate, Vec::<String>::new(), "aggregate functions");
        let window =
            missing(embedded.window_functions().keys().collect(), &|n| known.udwf(n).is_ok());
        assert_eq!(window, Vec::<String>::new(), "window functions");
        assert!(known.udf("array_element").is_ok());
    }
}
