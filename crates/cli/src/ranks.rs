//! The rank of this process in a multi-process job (torchrun, mpirun,
//! srun), from the launcher's environment, and the file name it writes:
//! `-o job.rank{rank}.json` puts the rank where the placeholder is; a plain
//! `-o job.json` under a launcher of several ranks becomes `job.rankN.json`
//! (and says so), so that ranks never overwrite each other's file.

use std::path::PathBuf;

use roofline_core::merge::{expand_rank, RankInfo};

use crate::error::bad_input;

/// This process's rank, with the host name; `None` outside a launcher.
pub fn from_env() -> anyhow::Result<Option<RankInfo>> {
    let info = RankInfo::from_env(|k| std::env::var(k).ok()).map_err(bad_input)?;
    Ok(info.map(|mut i| {
        i.host = host_name();
        i
    }))
}

/// The machine's name: `$HOSTNAME`, else the kernel's.
fn host_name() -> Option<String> {
    std::env::var("HOSTNAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/proc/sys/kernel/hostname").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
}

/// The `-o` file for this rank, and what to tell the user about it. The
/// name is kept byte for byte: a name that is not UTF-8 is refused (exit
/// 2) only when the rank would have to go into it.
pub fn output_file(
    path: Option<PathBuf>,
    info: Option<&RankInfo>,
) -> anyhow::Result<(Option<PathBuf>, Option<String>)> {
    let Some(p) = path else { return Ok((None, None)) };
    if let Some(text) = p.to_str() {
        let (out, note) = expand_rank(text, info);
        return Ok((Some(PathBuf::from(out)), note));
    }
    let shown = p.to_string_lossy();
    let (expanded, note) = expand_rank(&shown, info);
    if expanded == shown {
        return Ok((Some(p), note));
    }
    Err(bad_input(format!(
        "-o {shown}: this file name is not UTF-8, and the rank of this job cannot be put into it ({expanded}); give a UTF-8 -o name"
    )))
}
