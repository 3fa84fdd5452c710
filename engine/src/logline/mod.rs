//! What a log line says beyond its text: when it was written
//! ([`time`]), how severe it is ([`level`]) and which host wrote it
//! ([`host`]). Pure functions over a
//! line's bytes, no I/O: the viewer, and `tg sql`, read lines and ask.

pub mod host;
pub mod level;
pub mod time;
