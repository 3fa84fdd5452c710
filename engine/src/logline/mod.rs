//! What a log line says beyond its text: when it was written
//! ([`time`]) and how severe it is ([`level`]). Pure functions over a
//! line's bytes, no I/O: the viewer, and `tg sql`, read lines and ask.

pub mod level;
pub mod time;
