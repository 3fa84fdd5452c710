//! The subcommands' remote paths (`s3://…`, `trigrep::remote`):
//! `tg index s3://BUCKET/KEY` writes each object's block index beside it
//! as an index object, for readers on any machine.

use indicatif::HumanBytes;
use trigrep::kind::Format;
use trigrep::remote::indexed;
use trigrep::remote::{self, Rules};

use super::progress::Bar;

/// `tg index` of the remote path `written`: every object it names (an
/// object, a prefix, a glob) that holds its text as it is (a compressed
/// or packed object is said and left), cut into blocks of about
/// `block_size` bytes, `budget` bytes for the sort.
pub fn index(written: &str, block_size: u64, budget: usize, quiet: bool) -> anyhow::Result<()> {
    let listed = match remote::list(written, Rules::default()) {
        Some(listed) => listed.map_err(|e| anyhow::anyhow!("{written}: {e}"))?,
        None => anyhow::bail!("{written}: not a remote path"),
    };
    for object in &listed {
        let name = &object.name;
        if let Some(format) = Format::of(std::path::Path::new(name)) {
            if !quiet {
                let why = match format {
                    Format::Zstd => "a packed object carries its own index",
                    _ => "a compressed object's text is not indexed remotely yet",
                };
                eprintln!("{name}: left as it is ({why})");
            }
            continue;
        }
        let bar = Bar::new(quiet);
        let built = indexed::build(&object.object, name, block_size, budget, &bar)
            .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        bar.finish();
        if !quiet {
            eprintln!(
                "indexed {name} ({}) as {} blocks: index object {} beside it",
                HumanBytes(built.bytes),
                built.blocks,
                HumanBytes(built.index_len),
            );
        }
    }
    Ok(())
}
