//! Where an S3 client's credentials, region and endpoint come from: where
//! the AWS CLI takes them, in its order.
//!
//! - credentials: `AWS_ACCESS_KEY_ID` + `AWS_SECRET_ACCESS_KEY` (+
//!   `AWS_SESSION_TOKEN`), else the profile's in the credentials file
//!   (`AWS_SHARED_CREDENTIALS_FILE`, default `~/.aws/credentials`), else
//!   in the config file (`AWS_CONFIG_FILE`, default `~/.aws/config`);
//! - the profile: `AWS_PROFILE`, else `AWS_DEFAULT_PROFILE`, else `default`;
//! - the region: `AWS_REGION`, else `AWS_DEFAULT_REGION`, else the
//!   profile's `region`, else `us-east-1`;
//! - the endpoint: `AWS_ENDPOINT_URL_S3`, else `AWS_ENDPOINT_URL`, else
//!   the profile's `endpoint_url` (none: AWS itself). An `http://`
//!   endpoint is allowed (a local server), and a custom endpoint is
//!   addressed path-style (`ENDPOINT/BUCKET/KEY`), as Garage and MinIO
//!   expect.
//!
//! Without credentials the client asks the instance's metadata service
//! (an EC2 role), unless `AWS_EC2_METADATA_DISABLED=true`, when it is an
//! error at once, as the AWS CLI's "Unable to locate credentials".

use std::path::PathBuf;

use super::profile::Ini;

/// A key and secret (and session token).
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Credentials {
    /// The access key id.
    pub key_id: String,
    /// The secret access key.
    pub secret: String,
    /// The session token of temporary credentials.
    pub token: Option<String>,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Credentials {{ key_id: {:?}, .. }}", self.key_id)
    }
}

/// What an S3 client is built from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Settings {
    /// Static credentials (`None`: the instance's role, when allowed).
    pub credentials: Option<Credentials>,
    /// Whether the metadata service may be asked for credentials.
    pub metadata: bool,
    /// The region.
    pub region: String,
    /// A custom endpoint (`None`: AWS).
    pub endpoint: Option<String>,
}

impl Settings {
    /// Whether a request of the process may need TLS: not with a plain
    /// `http://` endpoint and the credentials given (without them, a
    /// credential provider may ask AWS's STS, over HTTPS).
    pub(crate) fn needs_tls(&self) -> bool {
        let plain = self.endpoint.as_deref().is_some_and(|e| e.starts_with("http://"));
        !(plain && self.credentials.is_some())
    }
}

/// The environment and files settings are read from (the process's own,
/// or a test's).
pub(crate) trait Sources {
    /// An environment variable (`None`: unset or empty).
    fn var(&self, name: &str) -> Option<String>;
    /// A file's text (`None`: missing or unreadable).
    fn file(&self, path: &std::path::Path) -> Option<String>;
}

/// The process's environment and files.
pub struct Process;

impl Sources for Process {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok().filter(|v| !v.is_empty())
    }

    fn file(&self, path: &std::path::Path) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
}

impl Settings {
    /// The settings `sources` give.
    pub fn read(sources: &dyn Sources) -> Settings {
        let var = |name: &str| sources.var(name);
        let home = var("HOME").map(PathBuf::from);
        let file = |env: &str, name: &str| {
            let path =
                var(env).map(PathBuf::from).or_else(|| Some(home.clone()?.join(".aws").join(name)));
            Ini::parse(&path.and_then(|p| sources.file(&p)).unwrap_or_default())
        };
        let (config, shared) =
            (file("AWS_CONFIG_FILE", "config"), file("AWS_SHARED_CREDENTIALS_FILE", "credentials"));
        let profile = var("AWS_PROFILE").or_else(|| var("AWS_DEFAULT_PROFILE"));
        let profile = profile.unwrap_or_else(|| "default".into());
        let from_config = |key: &str| config.get_profile(&profile, key).map(str::to_string);
        let from_files =
            |key: &str| shared.get(&profile, key).map(str::to_string).or_else(|| from_config(key));
        let credentials = match (var("AWS_ACCESS_KEY_ID"), var("AWS_SECRET_ACCESS_KEY")) {
            (Some(key_id), Some(secret)) => {
                Some(Credentials { key_id, secret, token: var("AWS_SESSION_TOKEN") })
            }
            _ => match (from_files("aws_access_key_id"), from_files("aws_secret_access_key")) {
                (Some(key_id), Some(secret)) => {
                    Some(Credentials { key_id, secret, token: from_files("aws_session_token") })
                }
                _ => None,
            },
        };
        let region = var("AWS_REGION").or_else(|| var("AWS_DEFAULT_REGION"));
        let region = region.or_else(|| from_config("region")).unwrap_or_else(|| "us-east-1".into());
        let endpoint = var("AWS_ENDPOINT_URL_S3").or_else(|| var("AWS_ENDPOINT_URL"));
        let endpoint = endpoint.or_else(|| from_config("endpoint_url"));
        let metadata =
            !var("AWS_EC2_METADATA_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true"));
        Settings { credentials, metadata, region, endpoint }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::Path;

    use super::*;

    struct Fake(HashMap<&'static str, &'static str>, HashMap<&'static str, &'static str>);

    impl Sources for Fake {
        fn var(&self, name: &str) -> Option<String> {
            self.0.get(name).map(|v| v.to_string())
        }
        fn file(&self, path: &Path) -> Option<String> {
            self.1.get(path.to_str()?).map(|v| v.to_string())
        }
    }

    const CONFIG: &str = "[default]\nregion = eu-west-1\n[profile p]\nregion = us-west-2\nendpoint_url = http://127.0.0.1:1\n";
    const CREDENTIALS: &str = "[default]\naws_access_key_id = D\naws_secret_access_key = DS\n[p]\naws_access_key_id = P\naws_secret_access_key = PS\naws_session_token = PT\n";

    fn settings(vars: &[(&'static str, &'static str)]) -> Settings {
        let files = [("/h/.aws/config", CONFIG), ("/h/.aws/credentials", CREDENTIALS)];
        let mut env: HashMap<_, _> = vars.iter().copied().collect();
        env.insert("HOME", "/h");
        Settings::read(&Fake(env, files.into_iter().collect()))
    }

    #[test]
    fn the_aws_cli_order() {
        let d = settings(&[]);
        assert_eq!(d.credentials.as_ref().map(|c| c.key_id.as_str()), Some("D"));
        assert_eq!(
            (d.region.as_str(), d.endpoint.as_deref(), d.metadata),
            ("eu-west-1", None, true)
        );
        let p = settings(&[("AWS_PROFILE", "p")]);
        let c = p.credentials.unwrap();
        assert_eq!((c.key_id.as_str(), c.token.as_deref()), ("P", Some("PT")));
        assert_eq!(
            (p.region.as_str(), p.endpoint.as_deref()),
            ("us-west-2", Some("http://127.0.0.1:1"))
        );
        let e = settings(&[
            ("AWS_PROFILE", "p"),
            ("AWS_ACCESS_KEY_ID", "E"),
            ("AWS_SECRET_ACCESS_KEY", "ES"),
            ("AWS_REGION", "ap-south-1"),
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:2"),
        ]);
        let c = e.credentials.unwrap();
        assert_eq!((c.key_id.as_str(), c.token), ("E", None));
        assert_eq!(
            (e.region.as_str(), e.endpoint.as_deref()),
            ("ap-south-1", Some("http://127.0.0.1:2"))
        );
        let none = settings(&[("AWS_PROFILE", "nobody"), ("AWS_EC2_METADATA_DISABLED", "true")]);
        assert_eq!(
            (none.credentials, none.metadata, none.region.as_str()),
            (None, false, "us-east-1")
        );
    }

    #[test]
    fn only_a_plain_endpoint_with_credentials_given_needs_no_tls() {
        let keys = [("AWS_ACCESS_KEY_ID", "E"), ("AWS_SECRET_ACCESS_KEY", "ES")];
        let plain = [("AWS_ENDPOINT_URL", "http://127.0.0.1:2")];
        let secure = [("AWS_ENDPOINT_URL", "https://s3.example.net")];
        let no_keys = [("AWS_PROFILE", "nobody")];
        assert!(!settings(&[keys.as_slice(), &plain].concat()).needs_tls());
        assert!(settings(&[keys.as_slice(), &secure].concat()).needs_tls());
        assert!(settings(&keys).needs_tls(), "AWS itself");
        assert!(settings(&[no_keys.as_slice(), &plain].concat()).needs_tls(), "STS may be asked");
    }
}
