//! What a remote path names: `s3://BUCKET/KEY` (one object, or a prefix
//! walked like a directory when no object has that key),
//! `s3://BUCKET/PREFIX/` (a prefix) or `s3://BUCKET/PREFIX/*.log` (the
//! objects a glob matches); the same with `gs://` and `az://` (a
//! container for a bucket). A web server's `http(s)://HOST/PATH` names
//! one object, or a prefix when it ends in `/` (listed by a WebDAV
//! server only), never a glob: its `?` would be a query's. Pure: no
//! network.

use std::fmt;

/// A scheme tg reads; each has its store (`stores`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Scheme {
    /// `s3://`: S3, or a store that speaks its protocol.
    S3,
    /// `gs://`: Google Cloud Storage.
    Gcs,
    /// `az://`: Azure Blob Storage (a container for a bucket).
    Azure,
    /// `http://`: a web server's files.
    Http,
    /// `https://`: a web server's files.
    Https,
}

impl Scheme {
    /// Every scheme.
    const ALL: [Scheme; 5] = [Scheme::S3, Scheme::Gcs, Scheme::Azure, Scheme::Http, Scheme::Https];

    /// How a path of it starts.
    pub(crate) fn prefix(self) -> &'static str {
        match self {
            Scheme::S3 => "s3://",
            Scheme::Gcs => "gs://",
            Scheme::Azure => "az://",
            Scheme::Http => "http://",
            Scheme::Https => "https://",
        }
    }

    /// Whether it is a web server's: a path names one object (a prefix is
    /// listed only by WebDAV), and a `?` is a query's, never a glob's.
    pub(crate) fn is_web(self) -> bool {
        matches!(self, Scheme::Http | Scheme::Https)
    }
}

/// The bytes that make a key a glob (as the shell's and `globset`'s).
const GLOB_BYTES: &[char] = &['*', '?', '[', '{'];

/// A remote path, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Address {
    /// The path as the user wrote it (printed as written).
    pub written: String,
    /// The scheme.
    pub scheme: Scheme,
    /// The bucket.
    pub bucket: String,
    /// The key, or the prefix to list.
    pub key: String,
    /// What the key names.
    pub kind: Kind,
}

/// What an address's key names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An object, or (when none has this key) the prefix `KEY/`.
    Object,
    /// Every object under the prefix (the key, empty or ending in `/`).
    Prefix,
    /// The objects under `prefix` whose keys the glob (the whole key)
    /// matches.
    Glob {
        /// The key up to the last `/` before the first glob byte.
        prefix: String,
    },
}

/// A path that names no remote object in a way tg reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BadAddress(pub String);

impl fmt::Display for BadAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether `path` (a command line's path, as bytes) is a remote one.
pub fn is_remote(path: &[u8]) -> bool {
    Scheme::ALL.iter().any(|s| path.starts_with(s.prefix().as_bytes()))
}

/// Whether `text` (a SQL query, say) holds a remote path anywhere.
pub fn mentions_remote(text: &[u8]) -> bool {
    let prefixes = Scheme::ALL.map(|s| s.prefix().as_bytes());
    prefixes.iter().any(|p| text.windows(p.len()).any(|w| w == *p))
}

impl Address {
    /// Parses `written` (`None`: not a remote path at all).
    pub fn parse(written: &str) -> Option<Result<Address, BadAddress>> {
        let scheme = *Scheme::ALL.iter().find(|s| written.starts_with(s.prefix()))?;
        let rest = &written[scheme.prefix().len()..];
        let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Some(Err(BadAddress(format!("{written}: no bucket named"))));
        }
        if key.contains("//") || key.split('/').any(|c| c == "." || c == "..") {
            let what = "a key with an empty, `.` or `..` component is not read";
            return Some(Err(BadAddress(format!("{written}: {what}"))));
        }
        let web = scheme.is_web();
        if web && key.contains(['?', '#']) {
            let what = "a URL with a query or a fragment is not read";
            return Some(Err(BadAddress(format!("{written}: {what}"))));
        }
        let kind = match key.find(GLOB_BYTES).filter(|_| !web) {
            Some(at) => {
                Kind::Glob { prefix: key[..key[..at].rfind('/').map_or(0, |s| s + 1)].into() }
            }
            None if key.is_empty() || key.ends_with('/') => Kind::Prefix,
            None => Kind::Object,
        };
        let (bucket, key) = (bucket.to_string(), key.to_string());
        Some(Ok(Address { written: written.to_string(), scheme, bucket, key, kind }))
    }

    /// Whether a key of this address may also be a prefix, walked like a
    /// directory when no object has that key (a bucket's, not a web
    /// server's: its path names one object).
    pub(crate) fn may_be_prefix(&self) -> bool {
        self.kind == Kind::Object && !self.scheme.is_web()
    }

    /// The name of the object at `key` (under this address's prefix), as
    /// printed: the written path, then the rest of the key below it.
    pub(crate) fn name_of(&self, key: &str) -> String {
        match &self.kind {
            Kind::Object if key == self.key => self.written.clone(),
            Kind::Object => {
                let below = key.strip_prefix(&self.key).unwrap_or(key);
                format!("{}/{}", self.written, below.trim_start_matches('/'))
            }
            Kind::Prefix => {
                let below = key.strip_prefix(&self.key).unwrap_or(key);
                match self.written.ends_with('/') {
                    true => format!("{}{below}", self.written),
                    false => format!("{}/{below}", self.written),
                }
            }
            Kind::Glob { .. } => format!("{}{}/{key}", self.scheme.prefix(), self.bucket),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Address {
        Address::parse(s).unwrap().unwrap()
    }

    #[test]
    fn objects_prefixes_and_globs() {
        let a = parse("s3://logs/app/a.log");
        assert_eq!(
            (a.bucket.as_str(), a.key.as_str(), &a.kind),
            ("logs", "app/a.log", &Kind::Object)
        );
        assert_eq!(parse("s3://logs").kind, Kind::Prefix);
        assert_eq!(parse("s3://logs/").kind, Kind::Prefix);
        assert_eq!(parse("s3://logs/app/").kind, Kind::Prefix);
        let g = parse("s3://logs/app/2026-*/x.log");
        assert_eq!(g.kind, Kind::Glob { prefix: "app/".into() });
        assert_eq!(parse("s3://logs/*.log").kind, Kind::Glob { prefix: "".into() });
        assert!(Address::parse("logs/a").is_none());
        assert!(Address::parse("s3:///a").unwrap().is_err());
        assert!(Address::parse("s3://b/a//c").unwrap().is_err());
        assert!(Address::parse("s3://b/../c").unwrap().is_err());
        assert!(is_remote(b"s3://b/k") && !is_remote(b"./s3:/b"));
        for other in ["gs://b/k.log", "az://container/k.log", "https://h:8/k.log"] {
            assert_eq!(parse(other).kind, Kind::Object, "{other}");
            assert!(
                is_remote(other.as_bytes()) && mentions_remote(format!("x '{other}'").as_bytes())
            );
        }
        let web = parse("http://127.0.0.1:9/logs/a.log");
        assert_eq!(
            (web.scheme, web.bucket.as_str(), web.key.as_str()),
            (Scheme::Http, "127.0.0.1:9", "logs/a.log")
        );
        assert!(!web.may_be_prefix() && parse("s3://b/k").may_be_prefix());
        assert_eq!(parse("https://h/logs/").kind, Kind::Prefix);
        assert_eq!(parse("https://h/a[1].log").kind, Kind::Object, "no glob on the web");
        assert!(Address::parse("https://h/a.log?x=1").unwrap().is_err());
        assert!(!mentions_remote(b"lines('/s3/b')"));
    }

    #[test]
    fn names_are_printed_as_written() {
        assert_eq!(parse("s3://b/k.log").name_of("k.log"), "s3://b/k.log");
        assert_eq!(parse("s3://b/dir").name_of("dir/x/y.log"), "s3://b/dir/x/y.log");
        assert_eq!(parse("s3://b/dir/").name_of("dir/x.log"), "s3://b/dir/x.log");
        assert_eq!(parse("s3://b").name_of("x.log"), "s3://b/x.log");
        assert_eq!(parse("s3://b/").name_of("x.log"), "s3://b/x.log");
        assert_eq!(parse("s3://b/d/*.log").name_of("d/x.log"), "s3://b/d/x.log");
    }
}
