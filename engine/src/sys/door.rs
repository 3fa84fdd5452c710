//! The server's local door, chosen here for each system.
//!
//! - **Linux, macOS**: a Unix socket (mode 0600) in the private runtime
//!   directory; the kernel admits only this user, and tells the server's
//!   pid to `tg stop` (`SO_PEERCRED` on Linux, `LOCAL_PEERPID` on macOS).
//! - **Windows**: loopback TCP on a port the system picks; the door's file
//!   (at the socket's path, in the user's private runtime directory, whose
//!   access list admits the user alone) holds the address and a random
//!   token, which every client presents in its hello. No peer process is
//!   known.
//!
//! A client finds the door the same way everywhere: the server's record
//! names the socket path ([`connect`]).

use std::io::{self, Read, Write};
use std::path::Path;
use std::time::Duration;

#[cfg(windows)]
use std::net::{TcpListener as Inner, TcpStream as InnerStream};
#[cfg(unix)]
use std::os::unix::net::{UnixListener as Inner, UnixStream as InnerStream};

/// A connection through the door.
pub struct Stream(InnerStream);

/// The listening door.
pub struct Listener {
    inner: Inner,
    /// The token clients must present (Windows), if any.
    token: Option<String>,
}

impl Listener {
    /// Opens the door at `socket` (replacing a stale one), private to this user.
    pub fn bind(socket: &Path) -> io::Result<Listener> {
        let _ = std::fs::remove_file(socket);
        #[cfg(unix)]
        {
            let inner = Inner::bind(socket)?;
            super::unix::make_private(socket)?;
            Ok(Listener { inner, token: None })
        }
        #[cfg(windows)]
        {
            let inner = Inner::bind(("127.0.0.1", 0))?;
            let token = super::token::new_token()?;
            let text = format!("{} {token}", inner.local_addr()?);
            let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(socket)?;
            f.write_all(text.as_bytes())?;
            Ok(Listener { inner, token: Some(token) })
        }
    }

    /// Waits for the next connection.
    pub fn accept(&self) -> io::Result<Stream> {
        let (s, _) = self.inner.accept()?;
        #[cfg(windows)]
        s.set_nodelay(true)?;
        Ok(Stream(s))
    }

    /// The token a client must present, where the door needs one.
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }
}

/// Connects to the door at `socket`; the token to present, where one is needed.
pub fn connect(socket: &Path) -> io::Result<(Stream, Option<String>)> {
    #[cfg(unix)]
    {
        Ok((Stream(InnerStream::connect(socket)?), None))
    }
    #[cfg(windows)]
    {
        let text = std::fs::read_to_string(socket)?;
        let (addr, token) = text.split_once(' ').ok_or(io::ErrorKind::NotFound)?;
        let s = InnerStream::connect(addr)?;
        s.set_nodelay(true)?;
        Ok((Stream(s), Some(token.to_string())))
    }
}

impl Stream {
    /// A second handle on the same connection.
    pub fn try_clone(&self) -> io::Result<Stream> {
        self.0.try_clone().map(Stream)
    }

    /// Sets the longest a read may block.
    pub fn set_read_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        self.0.set_read_timeout(t)
    }

    /// Sets the longest a write may block.
    pub fn set_write_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        self.0.set_write_timeout(t)
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// The process id of whatever listens at `socket`, as the kernel tells it
/// (`None` on Windows, or when it cannot be told).
pub fn peer_pid(socket: &Path) -> Option<u32> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let stream = InnerStream::connect(socket).ok()?;
        let mut cred = libc::ucred { pid: 0, uid: 0, gid: 0 };
        let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
        // SAFETY: `cred` and `len` are valid for writes of the sizes given, and
        // the descriptor is the open socket `stream` owns.
        let rc = unsafe {
            libc::getsockopt(
                stream.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_PEERCRED,
                (&raw mut cred).cast(),
                &raw mut len,
            )
        };
        (rc == 0 && cred.pid > 0).then_some(cred.pid as u32)
    }
    #[cfg(all(unix, not(target_os = "linux")))]
    {
        use std::os::fd::AsRawFd;
        let stream = InnerStream::connect(socket).ok()?;
        let mut pid: libc::pid_t = 0;
        let mut len = std::mem::size_of::<libc::pid_t>() as libc::socklen_t;
        // SAFETY: as above, for one pid_t.
        let rc = unsafe {
            libc::getsockopt(
                stream.as_raw_fd(),
                libc::SOL_LOCAL,
                libc::LOCAL_PEERPID,
                (&raw mut pid).cast(),
                &raw mut len,
            )
        };
        (rc == 0 && pid > 0).then_some(pid as u32)
    }
    #[cfg(windows)]
    {
        let _ = socket;
        None
    }
}
