//! Regex → trigram query planning (pending).
