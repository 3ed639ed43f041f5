//! Where a libcupti is for the program being recorded.
//!
//! The injection library loads CUPTI into the program; a program that
//! loads its own (PyTorch does) needs none from us, the others do. CUDA
//! toolkits keep it in `extras/CUPTI/lib64`, but Python programs often have
//! no toolkit at all: JAX and CuPy bring CUDA as wheels, `nvidia-cuda-cupti`
//! (`site-packages/nvidia/cuda_cupti/lib`) or the CUDA 13 layout
//! (`site-packages/nvidia/cu13/lib`). So the search derives the program's
//! Python environment from the program itself (a Python interpreter, or a
//! script whose `#!` line names one, as `torchrun` is) and from
//! `$VIRTUAL_ENV` and `$CONDA_PREFIX`, then looks in the toolkits
//! (`$CUDA_HOME`, `$CUDA_PATH`, /usr/local/cuda) and `$LD_LIBRARY_PATH`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The CUPTI file names the injection library can use, best first.
pub const CUPTI_NAMES: [&str; 2] = ["libcupti.so.13", "libcupti.so"];

/// The folders searched for libcupti, in order, for `command` with the
/// environment `var` gives (`std::env::var_os` outside tests).
pub fn cupti_dirs(command: &[String], var: &dyn Fn(&str) -> Option<OsString>) -> Vec<PathBuf> {
    let mut prefixes: Vec<PathBuf> = Vec::new();
    if let Some(python) = command.first().and_then(|p| python_of(p, var)) {
        // bin/python -> its prefix; a venv's link to the system interpreter too.
        for p in [Some(python.clone()), python.canonicalize().ok()].into_iter().flatten() {
            if let Some(prefix) = p.parent().and_then(Path::parent) {
                prefixes.push(prefix.to_path_buf());
            }
        }
    }
    for v in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(p) = var(v) {
            prefixes.push(PathBuf::from(p));
        }
    }
    if let Some(home) = var("HOME") {
        prefixes.push(PathBuf::from(home).join(".local"));
    }
    let mut dirs: Vec<PathBuf> = Vec::new();
    for prefix in &prefixes {
        dirs.extend(wheel_dirs(prefix));
    }
    for v in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(h) = var(v) {
            dirs.push(PathBuf::from(h).join("extras/CUPTI/lib64"));
        }
    }
    dirs.push(PathBuf::from("/usr/local/cuda/extras/CUPTI/lib64"));
    if let Some(ld) = var("LD_LIBRARY_PATH") {
        dirs.extend(std::env::split_paths(&ld));
    }
    let mut seen = std::collections::HashSet::new();
    dirs.retain(|d| seen.insert(d.clone()));
    dirs
}

/// The first libcupti in `dirs`.
pub fn first_cupti(dirs: &[PathBuf]) -> Option<PathBuf> {
    dirs.iter().flat_map(|d| CUPTI_NAMES.iter().map(move |n| d.join(n))).find(|c| c.is_file())
}

/// The Python interpreter a program runs under: the program itself when
/// it is one (`python3`, `/venv/bin/python3.12`), or the one its `#!` line
/// names (`torchrun`, `accelerate`); looked up on `$PATH` when bare.
fn python_of(program: &str, var: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let path = resolve(program, var)?;
    let name = path.file_name()?.to_string_lossy().to_string();
    if name.starts_with("python") {
        return Some(path);
    }
    // A script: its first line, at most 256 bytes of it.
    let mut head = [0u8; 256];
    let n = std::io::Read::read(&mut std::fs::File::open(&path).ok()?, &mut head).ok()?;
    let line = String::from_utf8_lossy(&head[..n]).lines().next()?.to_string();
    let rest = line.strip_prefix("#!")?.trim();
    let mut words = rest.split_whitespace();
    let first = words.next()?;
    // `#!/usr/bin/env python3` names it through env.
    let interp = if first.ends_with("/env") { words.find(|w| !w.starts_with('-'))? } else { first };
    let interp_name = Path::new(interp).file_name()?.to_string_lossy().to_string();
    if !interp_name.starts_with("python") {
        return None;
    }
    resolve(interp, var)
}

/// A program name as the shell finds it: a path as it is, a bare name on `$PATH`.
fn resolve(program: &str, var: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    if program.contains('/') {
        let p = PathBuf::from(program);
        return p.is_file().then_some(p);
    }
    let path = var("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(program)).find(|c| c.is_file())
}

/// `PREFIX/lib*/python3*/{site,dist}-packages/nvidia/*/lib`: the CUDA
/// wheels' library folders, CUDA 13's `cu13` first.
fn wheel_dirs(prefix: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for lib in ["lib", "lib64", "local/lib"] {
        let Ok(entries) = std::fs::read_dir(prefix.join(lib)) else { continue };
        let mut pythons: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
            .map(|e| e.path())
            .collect();
        pythons.sort();
        for py in pythons {
            for packages in ["site-packages", "dist-packages"] {
                let nvidia = py.join(packages).join("nvidia");
                let Ok(wheels) = std::fs::read_dir(&nvidia) else { continue };
                let mut names: Vec<String> =
                    wheels.flatten().map(|e| e.file_name().to_string_lossy().to_string()).collect();
                // cu13 (CUDA 13's one wheel) before cuda_cupti (the CUDA 12 layout), then the rest by name.
                names.sort_by_key(|n| (n != "cu13", n != "cuda_cupti", n.clone()));
                out.extend(names.into_iter().map(|n| nvidia.join(n).join("lib")));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::os::unix::fs::PermissionsExt;

    fn touch(p: &Path) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, b"").unwrap();
    }

    #[test]
    fn the_cupti_wheel_of_the_programs_python_environment_is_found() {
        let t = tempfile::tempdir().unwrap();
        let venv = t.path().join("venv");
        let python = venv.join("bin/python3");
        touch(&python);
        let wheel = venv.join("lib/python3.12/site-packages/nvidia/cu13/lib/libcupti.so.13");
        touch(&wheel);
        touch(&venv.join("lib/python3.12/site-packages/nvidia/cublas/lib/libcublas.so.13"));
        // A launcher script whose #! line names the environment's interpreter.
        let torchrun = venv.join("bin/torchrun");
        std::fs::write(&torchrun, format!("#!{}\nimport sys\n", python.display())).unwrap();
        std::fs::set_permissions(&torchrun, std::fs::Permissions::from_mode(0o755)).unwrap();
        let env: HashMap<&str, OsString> = [("PATH", venv.join("bin").into_os_string())].into();
        let var = |k: &str| env.get(k).cloned();
        for program in [python.to_str().unwrap(), "python3", "torchrun"] {
            let dirs = cupti_dirs(&[program.to_string(), "train.py".into()], &var);
            assert_eq!(first_cupti(&dirs).as_deref(), Some(wheel.as_path()), "{program}: {dirs:?}");
        }
        // Not a Python program, and no environment: the toolkit's places only.
        let dirs = cupti_dirs(&["/bin/true".into()], &|_| None);
        assert_eq!(dirs, [PathBuf::from("/usr/local/cuda/extras/CUPTI/lib64")]);
    }

    #[test]
    fn cuda_home_conda_and_the_cuda_12_wheel_layout_are_searched() {
        let t = tempfile::tempdir().unwrap();
        let conda = t.path().join("conda");
        let cupti12 = conda.join("lib/python3.11/site-packages/nvidia/cuda_cupti/lib/libcupti.so");
        touch(&cupti12);
        let cuda = t.path().join("cuda");
        let toolkit = cuda.join("extras/CUPTI/lib64/libcupti.so.13");
        touch(&toolkit);
        let env: HashMap<&str, OsString> =
            [("CONDA_PREFIX", conda.into_os_string()), ("CUDA_HOME", cuda.into_os_string())].into();
        let var = |k: &str| env.get(k).cloned();
        let dirs = cupti_dirs(&["./app".into()], &var);
        assert_eq!(first_cupti(&dirs).as_deref(), Some(cupti12.as_path()), "the environment's own first: {dirs:?}");
        std::fs::remove_file(&cupti12).unwrap();
        assert_eq!(first_cupti(&dirs).as_deref(), Some(toolkit.as_path()));
    }
}
