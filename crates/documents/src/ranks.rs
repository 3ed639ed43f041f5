//! Which rank of a multi-process job wrote a document: the launcher's
//! environment read once ([`RankInfo::from_env`], torchrun, mpirun, srun),
//! and the per-rank file name ([`expand_rank`]). An analysis carries its
//! rank; `merge` reads it back.

use serde::{Deserialize, Serialize};

/// Which process of a job a document came from, as its launcher said.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankInfo {
    /// The global rank.
    pub rank: u32,
    /// Rank within its node, when the launcher says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_rank: Option<u32>,
    /// Processes in the job, when the launcher says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub world_size: Option<u32>,
    /// The variable the rank came from ("RANK", "OMPI_COMM_WORLD_RANK").
    pub variable: String,
    /// "torchrun", "Open MPI", "PMI", "Slurm".
    pub launcher: String,
    /// Host name the rank ran on, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

/// The launchers' variables, in the order they are trusted: torchrun's
/// first (under `srun torchrun`, torch's rank is the one that matters),
/// then Open MPI, PMI (MPICH, Intel MPI, MVAPICH) and Slurm.
pub const LAUNCHERS: [(&str, &str, &str, &str); 4] = [
    ("torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK"),
    ("Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"),
    ("PMI", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"),
    ("Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"),
];

/// A launcher's variable held something that is not a rank.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{variable}={value:?} is not a rank ({expected}); fix or unset it")]
pub struct BadRank {
    /// The environment variable.
    pub variable: String,
    /// Its value.
    pub value: String,
    /// What a rank is here ("a whole number from 0", "below WORLD_SIZE=2").
    pub expected: String,
}

impl RankInfo {
    /// The rank of this process from its environment (`get` reads a
    /// variable); `Ok(None)` when no launcher variable is set.
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Result<Option<RankInfo>, BadRank> {
        let num = |var: &str| -> Result<Option<u32>, BadRank> {
            match get(var) {
                None => Ok(None),
                Some(v) => v.trim().parse::<u32>().map(Some).map_err(|_| BadRank {
                    variable: var.to_string(),
                    value: v,
                    expected: "a whole number from 0".into(),
                }),
            }
        };
        for (launcher, rank_var, size_var, local_var) in LAUNCHERS {
            let Some(rank) = num(rank_var)? else { continue };
            let world_size = num(size_var).ok().flatten();
            // A rank at or past the job's size (`RANK=3 WORLD_SIZE=2`): two
            // launchers' variables mixed up, or a stale one; its file name
            // would collide with another rank's.
            if let Some(size) = world_size {
                let bad = |variable: &str, value: u32, expected: String| BadRank {
                    variable: variable.to_string(),
                    value: value.to_string(),
                    expected,
                };
                if size == 0 {
                    return Err(bad(size_var, size, "a job has at least one rank".into()));
                }
                if rank >= size {
                    return Err(bad(
                        rank_var,
                        rank,
                        format!("ranks of a job of {size_var}={size} run from 0 to {}", size - 1),
                    ));
                }
            }
            return Ok(Some(RankInfo {
                rank,
                local_rank: num(local_var).ok().flatten(),
                world_size,
                variable: rank_var.to_string(),
                launcher: launcher.to_string(),
                host: None,
            }));
        }
        Ok(None)
    }
}

/// A file name for this rank: `{rank}` (and `{local_rank}`, `{world_size}`)
/// replaced; without a placeholder, a job of several ranks gets `.rankN`
/// before the extension so that ranks never overwrite each other's file.
/// Returns the name and, when the name was changed without a placeholder,
/// a sentence saying so.
pub fn expand_rank(path: &str, info: Option<&RankInfo>) -> (String, Option<String>) {
    let rank = info.map(|i| i.rank).unwrap_or(0);
    if path.contains("{rank}") || path.contains("{local_rank}") || path.contains("{world_size}") {
        let local = info.and_then(|i| i.local_rank).unwrap_or(rank);
        let size = info.and_then(|i| i.world_size).unwrap_or(1);
        let out = path
            .replace("{rank}", &rank.to_string())
            .replace("{local_rank}", &local.to_string())
            .replace("{world_size}", &size.to_string());
        let note = info.is_none().then(|| format!("no launcher variable is set: {{rank}} is 0 in {out}"));
        return (out, note);
    }
    match info {
        Some(i) if i.world_size.is_none_or(|n| n > 1) => {
            let p = std::path::Path::new(path);
            let stem = p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let name = match p.extension() {
                Some(e) => format!("{stem}.rank{}.{}", i.rank, e.to_string_lossy()),
                None => format!("{stem}.rank{}", i.rank),
            };
            let out = p.with_file_name(name).display().to_string();
            let note = format!(
                "rank {} of a job ({} from {}): writing {out}, not {path} (put {{rank}} in the name to choose where)",
                i.rank, i.variable, i.launcher
            );
            (out, Some(note))
        }
        _ => (path.to_string(), None),
    }
}

/// The rank a file name gives ("job.rank3.json", "rank_12.json"), for rank
/// files written without [`RankInfo`].
pub fn rank_from_file_name(name: &str) -> Option<u32> {
    let base = std::path::Path::new(name).file_name()?.to_string_lossy().to_ascii_lowercase();
    if let Some(at) = base.rfind("rank") {
        let digits: String =
            base[at + 4..].trim_start_matches(['_', '-', '.']).chars().take_while(|c| c.is_ascii_digit()).collect();
        return digits.parse().ok();
    }
    // `-o out.{rank}.json`: a part of the name between dots that is all digits.
    let stem = base.rsplit_once('.').map_or(base.as_str(), |(s, _)| s);
    let last = stem.rsplit('.').next().filter(|_| stem.contains('.'))?;
    (!last.is_empty() && last.chars().all(|c| c.is_ascii_digit())).then(|| last.parse().ok()).flatten()
}
