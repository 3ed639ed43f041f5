//! The rank of this process in a multi-process job (torchrun, mpirun,
//! srun), from the launcher's environment, and the file name it writes:
//! `-o job.rank{rank}.json` puts the rank where the placeholder is; a plain
//! `-o job.json` under a launcher of several ranks becomes `job.rankN.json`
//! (and says so), so that ranks never overwrite each other's file.

use std::cell::RefCell;
use std::ffi::OsString;
use std::path::PathBuf;

use roofline_documents::{expand_rank, RankInfo};

use crate::error::bad_input;

/// This process's rank, with the host name; `None` outside a launcher.
/// A variable the rank is read from that is not UTF-8 is refused like any
/// other value that is not a number (taking it for unset would give two
/// ranks the same file).
pub fn from_env() -> anyhow::Result<Option<RankInfo>> {
    let not_utf8: RefCell<Option<(String, OsString)>> = RefCell::new(None);
    let read = RankInfo::from_env(|k| match std::env::var_os(k)?.into_string() {
        Ok(v) => Some(v),
        Err(raw) => {
            not_utf8.borrow_mut().get_or_insert((k.to_string(), raw));
            // Not a number either: the rank's own variable is refused below.
            Some(String::new())
        }
    });
    if let Some((variable, raw)) = not_utf8.into_inner() {
        return Err(bad_input(format!(
            "{variable}=\"{}\" is not UTF-8, so not a rank (a whole number from 0); fix or unset it",
            raw.as_encoded_bytes().escape_ascii()
        )));
    }
    let info = read.map_err(bad_input)?;
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
