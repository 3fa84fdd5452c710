//! Writing an object: a local file uploaded to `s3://BUCKET/KEY` by
//! multipart upload (parts of `PART` bytes, a few in flight), as
//! `tg pack FILE -o s3://…` does with the packed file (which carries its
//! block index). An upload that fails is aborted: no part is left behind
//! and no object is half written (S3 makes the object whole or not at all).

use std::fs::File;
use std::io::Read;
use std::path::Path;

use object_store::path::Path as Key;
use object_store::{ObjectStoreExt, WriteMultipart};

use super::address::{Address, Kind};
use super::client::{RemoteError, block_on, count_request};
use super::object::RemoteObject;
use super::stores::store;

/// The size of a part (S3 takes 5 MiB to 5 GiB, but for the last).
pub(crate) const PART: usize = 8 << 20;

/// Parts in flight at once.
const IN_FLIGHT: usize = 4;

/// Checks that the remote path `written` names one object to write: an
/// error when it is not one, or (unless `replace`) when an object is
/// there already.
pub fn target(written: &str, replace: bool) -> Result<(), RemoteError> {
    destination(written, replace).map(drop)
}

/// The address of the object [`target`] checks.
fn destination(written: &str, replace: bool) -> Result<Address, RemoteError> {
    let address = match Address::parse(written) {
        Some(Ok(address)) => address,
        Some(Err(bad)) => return Err(RemoteError(bad.0)),
        None => return Err(RemoteError("not a remote path".into())),
    };
    if address.kind != Kind::Object {
        return Err(RemoteError("names no single object to write".into()));
    }
    if !replace && RemoteObject::head(&store(&address)?, &address.key)?.is_some() {
        return Err(RemoteError("exists (replace it with --force)".into()));
    }
    Ok(address)
}

/// Uploads the file at `path` as the object `written` names (see
/// [`target`]); returns the bytes sent.
pub fn upload(written: &str, path: &Path, replace: bool) -> Result<u64, RemoteError> {
    let address = destination(written, replace)?;
    let (store, key) = (store(&address)?, address.key);
    let mut file = File::open(path).map_err(|e| failed(path, e))?;
    // The parts are sent by tasks of the runtime: the whole upload runs on it.
    block_on(async move {
        count_request();
        let key = Key::from(key);
        let upload = store.put_multipart(&key).await.map_err(|e| RemoteError::of(&e))?;
        let mut writer = WriteMultipart::new_with_chunk_size(upload, PART);
        let mut buf = vec![0; PART];
        let mut sent = 0u64;
        let result = loop {
            let n = match file.read(&mut buf) {
                Ok(0) => break Ok(()),
                Ok(n) => n,
                Err(e) => break Err(failed(path, e)),
            };
            if let Err(e) = writer.wait_for_capacity(IN_FLIGHT).await {
                break Err(RemoteError::of(&e));
            }
            count_request();
            writer.write(&buf[..n]);
            sent += n as u64;
        };
        if let Err(e) = result {
            let _ = writer.abort().await;
            return Err(e);
        }
        count_request();
        writer.finish().await.map_err(|e| RemoteError::of(&e))?;
        Ok(sent)
    })
}

/// The error of reading the file at `path`.
fn failed(path: &Path, e: std::io::Error) -> RemoteError {
    RemoteError(format!("{}: {e}", path.display()))
}
