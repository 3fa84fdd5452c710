//! Which `object_store` store reads a scheme's buckets, and where each
//! takes its settings from, as the store's own command-line tool does:
//!
//! - `s3://BUCKET/KEY`: S3 or a store that speaks its protocol, set as the
//!   AWS CLI is ([`Settings`]);
//! - `gs://BUCKET/KEY`: Google Cloud Storage, set as `object_store` reads
//!   `GOOGLE_*` (`GOOGLE_APPLICATION_CREDENTIALS`, else gcloud's
//!   application default credentials, else the instance's account;
//!   `GOOGLE_BASE_URL` for another server);
//! - `az://CONTAINER/KEY`: Azure Blob Storage, set as `object_store` reads
//!   `AZURE_*` (`AZURE_STORAGE_ACCOUNT_NAME`, `AZURE_STORAGE_ACCOUNT_KEY`,
//!   `AZURE_STORAGE_SAS_TOKEN`, `AZURE_STORAGE_ENDPOINT`, …), and the Azure
//!   CLI's `AZURE_STORAGE_ACCOUNT`, `AZURE_STORAGE_KEY` and
//!   `AZURE_STORAGE_CONNECTION_STRING`;
//! - `http://HOST/PATH`, `https://HOST/PATH`: a web server that answers
//!   ranged GETs (a prefix is listed only by one that speaks WebDAV).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use object_store::aws::AmazonS3Builder;
use object_store::azure::MicrosoftAzureBuilder;
use object_store::gcp::GoogleCloudStorageBuilder;
use object_store::http::HttpBuilder;
use object_store::{BackoffConfig, ClientOptions, ObjectStore, RetryConfig};

use super::address::{Address, Scheme};
use super::client::{CONNECT_TIMEOUT, OneClient, REQUEST_TIMEOUT, RemoteError, causes};
use super::settings::{Process, Settings, Sources};

/// The store of the bucket (container, host) `at` names, built once per
/// process from its scheme's settings.
pub(crate) fn store(at: &Address) -> Result<Arc<dyn ObjectStore>, RemoteError> {
    stored(at, true)
}

/// The store of `at`'s bucket for requests whose failure costs nothing
/// but the request (a first reader's guess at an object's tail: a store
/// may refuse a suffix longer than the object, as s3s-fs does with a
/// 500), never retried.
pub(crate) fn store_unretried(at: &Address) -> Result<Arc<dyn ObjectStore>, RemoteError> {
    stored(at, false)
}

/// The store of `at`'s bucket, its failed requests `retried` or not.
fn stored(at: &Address, retried: bool) -> Result<Arc<dyn ObjectStore>, RemoteError> {
    type Stores = Mutex<HashMap<(Scheme, String, bool), Arc<dyn ObjectStore>>>;
    static STORES: OnceLock<Stores> = OnceLock::new();
    let mut stores = STORES.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    let key = (at.scheme, at.bucket.clone(), retried);
    if let Some(store) = stores.get(&key) {
        return Ok(Arc::clone(store));
    }
    let store = build(at.scheme, &at.bucket, retried)?;
    stores.insert(key, Arc::clone(&store));
    Ok(store)
}

/// Retries of a failed request, with backoff (`retried`), or none.
fn retry(retried: bool) -> RetryConfig {
    RetryConfig {
        backoff: BackoffConfig {
            init_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(2),
            base: 2.0,
        },
        max_retries: if retried { 3 } else { 0 },
        retry_timeout: Duration::from_secs(20),
    }
}

/// The HTTP client's options: its timeouts, and plain HTTP allowed (an
/// `http://` URL comes only from the user's own settings: a local
/// server's endpoint).
fn client_options() -> ClientOptions {
    ClientOptions::new()
        .with_connect_timeout(CONNECT_TIMEOUT)
        .with_timeout(REQUEST_TIMEOUT)
        .with_allow_http(true)
}

/// The store of `bucket` (a bucket, a container, a web server's host) of
/// `scheme`, its failed requests `retried` or not.
fn build(scheme: Scheme, bucket: &str, retried: bool) -> Result<Arc<dyn ObjectStore>, RemoteError> {
    let (retry, client) = (retry(retried), client_options());
    let built: Result<Arc<dyn ObjectStore>, _> = match scheme {
        Scheme::S3 => return s3(bucket, retry, client),
        Scheme::Gcs => GoogleCloudStorageBuilder::from_env()
            .with_bucket_name(bucket)
            .with_retry(retry)
            .with_client_options(client)
            .with_http_connector(OneClient { tls: true })
            .build()
            .map(|s| Arc::new(s) as _),
        Scheme::Azure => azure(&Process)?
            .with_container_name(bucket)
            .with_retry(retry)
            .with_client_options(client)
            .with_http_connector(OneClient { tls: true })
            .build()
            .map(|s| Arc::new(s) as _),
        Scheme::Http | Scheme::Https => HttpBuilder::new()
            .with_url(format!("{}{bucket}", scheme.prefix()))
            .with_retry(retry)
            .with_client_options(client)
            .with_http_connector(OneClient { tls: scheme == Scheme::Https })
            .build()
            .map(|s| Arc::new(s) as _),
    };
    built.map_err(|e| RemoteError(causes(&e)))
}

/// An S3 store of `bucket`, set as the AWS CLI is.
fn s3(
    bucket: &str,
    retry: RetryConfig,
    client: ClientOptions,
) -> Result<Arc<dyn ObjectStore>, RemoteError> {
    static SETTINGS: OnceLock<Settings> = OnceLock::new();
    let settings = SETTINGS.get_or_init(|| Settings::read(&Process));
    let mut b = AmazonS3Builder::new()
        .with_bucket_name(bucket)
        .with_region(&settings.region)
        .with_retry(retry)
        .with_client_options(client)
        .with_http_connector(OneClient { tls: settings.needs_tls() });
    if let Some(endpoint) = &settings.endpoint {
        b = b.with_endpoint(endpoint);
    }
    match &settings.credentials {
        Some(c) => {
            b = b.with_access_key_id(&c.key_id).with_secret_access_key(&c.secret);
            if let Some(token) = &c.token {
                b = b.with_token(token);
            }
        }
        None if !settings.metadata => {
            return Err(RemoteError(
                "no AWS credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or \
                 AWS_PROFILE with ~/.aws/credentials)"
                    .into(),
            ));
        }
        None => {}
    }
    let store = b.build().map_err(|e| RemoteError(causes(&e)))?;
    Ok(Arc::new(store))
}

/// An Azure builder set from `object_store`'s `AZURE_*` variables, then
/// from the Azure CLI's where those leave a setting out: the account and
/// key (`AZURE_STORAGE_ACCOUNT`, `AZURE_STORAGE_KEY`) and a connection
/// string (`AZURE_STORAGE_CONNECTION_STRING`: its `AccountName`,
/// `AccountKey`, `SharedAccessSignature` and `BlobEndpoint`).
fn azure(env: &dyn Sources) -> Result<MicrosoftAzureBuilder, RemoteError> {
    use object_store::azure::AzureConfigKey as K;
    let mut b = MicrosoftAzureBuilder::from_env();
    let given = |key: &str| env.var(key).is_some();
    let set = |key: K, value: Option<String>, b: MicrosoftAzureBuilder| match value {
        Some(v) => b.with_config(key, v),
        None => b,
    };
    let parts = env.var("AZURE_STORAGE_CONNECTION_STRING").map(|s| connection_string(&s));
    let part = |name: &str| parts.as_ref().and_then(|p| p.iter().find(|(k, _)| k == name));
    let part = |name: &str| part(name).map(|(_, v)| v.clone());
    if !given("AZURE_STORAGE_ACCOUNT_NAME") {
        let account = env.var("AZURE_STORAGE_ACCOUNT").or_else(|| part("AccountName"));
        b = set(K::AccountName, account, b);
    }
    let secret =
        ["AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_ACCESS_KEY", "AZURE_STORAGE_SAS_TOKEN"];
    if !secret.iter().any(|k| given(k)) {
        let key = env.var("AZURE_STORAGE_KEY").or_else(|| part("AccountKey"));
        b = set(K::AccessKey, key, b);
        b = set(K::SasKey, part("SharedAccessSignature"), b);
    }
    if !given("AZURE_STORAGE_ENDPOINT") && !given("AZURE_ENDPOINT") {
        b = set(K::Endpoint, part("BlobEndpoint"), b);
    }
    let emulated = b.get_config_value(&K::UseEmulator).is_some_and(|v| v == "true");
    if b.get_config_value(&K::AccountName).is_none() && !emulated {
        return Err(RemoteError(
            "no Azure storage account (set AZURE_STORAGE_ACCOUNT_NAME with a key or SAS \
             token, AZURE_STORAGE_CONNECTION_STRING, or AZURE_STORAGE_USE_EMULATOR=true)"
                .into(),
        ));
    }
    Ok(b)
}

/// The `Name=value` parts of an Azure connection string (`;` between
/// them; a value may hold `=`, as a key's base64 does).
fn connection_string(text: &str) -> Vec<(String, String)> {
    let parts = text.split(';').filter_map(|p| p.split_once('='));
    parts.map(|(k, v)| (k.trim().to_string(), v.trim().to_string())).collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use object_store::azure::AzureConfigKey as K;

    use super::*;

    struct Env(HashMap<&'static str, &'static str>);

    impl Sources for Env {
        fn var(&self, name: &str) -> Option<String> {
            self.0.get(name).map(|v| v.to_string())
        }
        fn file(&self, _: &std::path::Path) -> Option<String> {
            None
        }
    }

    #[test]
    fn the_azure_cli_s_settings_where_object_store_s_are_not_given() {
        let cli = Env([("AZURE_STORAGE_ACCOUNT", "acct"), ("AZURE_STORAGE_KEY", "a2V5")].into());
        let b = azure(&cli).unwrap();
        assert_eq!(b.get_config_value(&K::AccountName).as_deref(), Some("acct"));
        assert_eq!(b.get_config_value(&K::AccessKey).as_deref(), Some("a2V5"));
        let string = "AccountName=dev;AccountKey=a2V5==;BlobEndpoint=http://127.0.0.1:1/dev";
        let b = azure(&Env([("AZURE_STORAGE_CONNECTION_STRING", string)].into())).unwrap();
        assert_eq!(b.get_config_value(&K::AccountName).as_deref(), Some("dev"));
        assert_eq!(b.get_config_value(&K::AccessKey).as_deref(), Some("a2V5=="));
        assert_eq!(b.get_config_value(&K::Endpoint).as_deref(), Some("http://127.0.0.1:1/dev"));
        let none = azure(&Env(HashMap::new())).map(drop).unwrap_err();
        assert!(none.0.starts_with("no Azure storage account"), "{none}");
    }
}
