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

/// The `-o` file for this rank, and what to tell the user about it.
pub fn output_file(path: Option<PathBuf>, info: Option<&RankInfo>) -> (Option<PathBuf>, Option<String>) {
    match path {
        None => (None, None),
        Some(p) => {
            let text = p.to_string_lossy().into_owned();
            let (out, note) = expand_rank(&text, info);
            (Some(PathBuf::from(out)), note)
        }
    }
}
