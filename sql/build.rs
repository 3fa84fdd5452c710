//! Links `tg-sql` as a position-dependent executable on Linux: a PIE of
//! DataFusion's size carries some 260,000 relative relocations, which the
//! loader applies at every start, writing (and so copying) 4 MiB of
//! `.data.rel.ro`: 1,300 page faults, about 6 ms before `main`, most of a
//! short query's time. A fixed address has none to apply.
fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        println!("cargo:rustc-link-arg-bin=tg-sql=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
