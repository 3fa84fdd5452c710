//! Secrets for the server's doors: random tokens.

#[cfg(unix)]
use super::unix as family;
#[cfg(windows)]
use super::windows as family;

/// A new random token: 24 bytes from the system's generator, in hex.
pub fn new_token() -> std::io::Result<String> {
    let mut raw = [0u8; 24];
    family::random(&mut raw)?;
    Ok(raw.iter().map(|b| format!("{b:02x}")).collect())
}
