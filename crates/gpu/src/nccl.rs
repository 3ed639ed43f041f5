//! NCCL, loaded at run time, for the collective benchmarks.
//!
//! The library is looked for before anything calls it, so that a machine
//! without NCCL gets a sentence saying where it was looked for, never a
//! panic. cudarc's own loader only tries names such as `libnccl.so` and
//! `libnccl.so.13` (never `libnccl.so.2`, the name NVIDIA's packages and
//! PyTorch's wheel ship) and cannot be given a path, so this module opens
//! the library itself, by path, with `libloading`, and binds the nine
//! functions the benchmarks call. Where it looks, in order:
//! 1. `$ROOFLINE_NCCL_LIB`: the library file, or a folder holding it;
//! 2. the dynamic loader's own search (`LD_LIBRARY_PATH`, the ld.so cache)
//!    for `libnccl.so.2` and `libnccl.so`;
//! 3. `nvidia/nccl/lib` under Python's site-packages (PyTorch's NCCL),
//!    asking `python3` for the folders (one short run of the interpreter).
//!
//! NVLink SHARP (multicast, "NVLS") is never used: [`Nccl::load`] sets
//! `NCCL_NVLS_ENABLE=0` in the process environment before NCCL reads it,
//! whatever the caller's environment said.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::GpuError;

/// The variable naming the NCCL library (or its folder).
pub const NCCL_LIB_ENV: &str = "ROOFLINE_NCCL_LIB";
/// NCCL's switch for NVLink SHARP; always set to 0 here.
pub const NVLS_ENV: &str = "NCCL_NVLS_ENABLE";

/// `ncclDataType_t`: float32.
pub const NCCL_FLOAT32: c_int = 7;
/// `ncclRedOp_t`: sum.
pub const NCCL_SUM: c_int = 0;

type Comm = *mut c_void;
type Stream = *mut c_void;
type Res = c_int;

#[derive(Clone, Copy)]
struct Fns {
    get_version: unsafe extern "C" fn(*mut c_int) -> Res,
    comm_init_all: unsafe extern "C" fn(*mut Comm, c_int, *const c_int) -> Res,
    comm_destroy: unsafe extern "C" fn(Comm) -> Res,
    all_reduce: unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, Comm, Stream) -> Res,
    all_gather: unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, Comm, Stream) -> Res,
    reduce_scatter: unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, Comm, Stream) -> Res,
    group_start: unsafe extern "C" fn() -> Res,
    group_end: unsafe extern "C" fn() -> Res,
    error_string: unsafe extern "C" fn(Res) -> *const c_char,
}

/// A loaded NCCL.
pub struct Nccl {
    _lib: libloading::Library,
    fns: Fns,
    /// The file it was loaded from (or the name the loader resolved).
    pub path: PathBuf,
    /// NCCL_VERSION_CODE: 22803 for 2.28.3.
    pub version_code: i32,
}

/// "2.28.3" from 22803 (NCCL >= 2.9 encodes major*10000 + minor*100 + patch).
pub fn format_version(code: i32) -> String {
    if code >= 10000 {
        format!("{}.{}.{}", code / 10000, (code % 10000) / 100, code % 100)
    } else {
        format!("{}.{}.{}", code / 1000, (code % 1000) / 100, code % 100)
    }
}

/// Candidate files in a folder: the versioned name first.
fn in_dir(dir: &Path) -> Vec<PathBuf> {
    ["libnccl.so.2", "libnccl.so"].iter().map(|n| dir.join(n)).collect()
}

/// The places to try, in order, with what to call each in a message.
pub fn candidates(env_lib: Option<&str>, site_dirs: &[PathBuf]) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    if let Some(v) = env_lib.filter(|v| !v.trim().is_empty()) {
        let p = PathBuf::from(v);
        if p.is_dir() {
            out.extend(in_dir(&p).into_iter().map(|c| (c, format!("${NCCL_LIB_ENV}"))));
        } else {
            out.push((p, format!("${NCCL_LIB_ENV}")));
        }
    }
    for name in ["libnccl.so.2", "libnccl.so"] {
        out.push((PathBuf::from(name), "the dynamic loader's search path (LD_LIBRARY_PATH, ld.so cache)".into()));
    }
    for d in site_dirs {
        let lib = d.join("nvidia").join("nccl").join("lib");
        out.extend(in_dir(&lib).into_iter().map(|c| (c, "Python's site-packages (nvidia/nccl/lib)".to_string())));
    }
    out
}

/// Python's package folders, from `python3` (empty when there is none).
pub fn python_site_dirs() -> Vec<PathBuf> {
    let code = "import site, sys; print('\\n'.join(site.getsitepackages() + [site.getusersitepackages()] + sys.path))";
    let out = std::process::Command::new("python3")
        .args(["-I", "-c", code])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output();
    let Ok(out) = out else { return Vec::new() };
    let mut dirs: Vec<PathBuf> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_dir())
        .collect();
    dirs.dedup();
    dirs
}

unsafe fn sym<T: Copy>(lib: &libloading::Library, name: &str) -> Result<T, String> {
    lib.get::<T>(name.as_bytes()).map(|s| *s).map_err(|e| format!("{name}: {e}"))
}

impl Nccl {
    /// Finds and loads NCCL (see the module docs for where), or says where
    /// it looked and how to point at it.
    pub fn load() -> Result<Arc<Nccl>, GpuError> {
        // Before NCCL can read it: no NVLink SHARP, ever. The variable is set
        // once, early; NCCL reads its environment when a communicator is made.
        std::env::set_var(NVLS_ENV, "0");
        let env = std::env::var(NCCL_LIB_ENV).ok();
        let mut tried: Vec<String> = Vec::new();
        let mut errors: Vec<String> = Vec::new();
        let mut try_list = |list: Vec<(PathBuf, String)>| -> Option<Nccl> {
            for (path, origin) in list {
                if path.is_absolute() && !path.exists() {
                    if !tried.contains(&origin) {
                        tried.push(origin);
                    }
                    continue;
                }
                // SAFETY: loading runs NCCL's initialisers, which only set up its own state.
                match unsafe { libloading::Library::new(&path) } {
                    Ok(lib) => match unsafe { Nccl::bind(lib, path.clone()) } {
                        Ok(n) => return Some(n),
                        Err(e) => errors.push(format!("{}: {e}", path.display())),
                    },
                    Err(_) => {
                        if !tried.contains(&origin) {
                            tried.push(origin);
                        }
                    }
                }
            }
            None
        };
        if let Some(n) = try_list(candidates(env.as_deref(), &[])) {
            return Ok(Arc::new(n));
        }
        if let Some(n) = try_list(candidates(None, &python_site_dirs()).into_iter().skip(2).collect()) {
            return Ok(Arc::new(n));
        }
        if !tried.iter().any(|t| t.contains("site-packages")) {
            tried.push("Python's site-packages (no python3, or no nvidia/nccl there)".into());
        }
        let mut looked = tried.join("; ");
        if !errors.is_empty() {
            looked.push_str(&format!(" (found but unusable: {})", errors.join("; ")));
        }
        Err(GpuError::NoNccl { looked })
    }

    unsafe fn bind(lib: libloading::Library, path: PathBuf) -> Result<Nccl, String> {
        let fns = Fns {
            get_version: sym(&lib, "ncclGetVersion")?,
            comm_init_all: sym(&lib, "ncclCommInitAll")?,
            comm_destroy: sym(&lib, "ncclCommDestroy")?,
            all_reduce: sym(&lib, "ncclAllReduce")?,
            all_gather: sym(&lib, "ncclAllGather")?,
            reduce_scatter: sym(&lib, "ncclReduceScatter")?,
            group_start: sym(&lib, "ncclGroupStart")?,
            group_end: sym(&lib, "ncclGroupEnd")?,
            error_string: sym(&lib, "ncclGetErrorString")?,
        };
        let mut v: c_int = 0;
        let r = (fns.get_version)(&mut v);
        if r != 0 {
            return Err(format!("ncclGetVersion returned {r}"));
        }
        Ok(Nccl { _lib: lib, fns, path, version_code: v })
    }

    /// "2.28.3".
    pub fn version(&self) -> String {
        format_version(self.version_code)
    }

    fn check(&self, what: &str, r: Res) -> Result<(), GpuError> {
        if r == 0 {
            return Ok(());
        }
        // SAFETY: NCCL returns a static string for any code.
        let text = unsafe {
            let p = (self.fns.error_string)(r);
            if p.is_null() {
                String::new()
            } else {
                CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        };
        Err(GpuError::Library { library: "NCCL", what: what.into(), detail: format!("error {r}: {text}") })
    }

    /// One communicator per device of `devices` (CUDA ordinals), in one
    /// process (`ncclCommInitAll`).
    pub fn init_all(self: &Arc<Self>, devices: &[i32]) -> Result<Comms, GpuError> {
        let mut comms: Vec<Comm> = vec![std::ptr::null_mut(); devices.len()];
        // SAFETY: `comms` has room for one communicator per device.
        let r = unsafe { (self.fns.comm_init_all)(comms.as_mut_ptr(), devices.len() as c_int, devices.as_ptr()) };
        self.check(&format!("ncclCommInitAll over devices {devices:?}"), r)?;
        Ok(Comms { nccl: self.clone(), comms })
    }
}

/// Which collective to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Collective {
    /// `count` floats per rank, summed into every rank.
    AllReduce,
    /// `count` floats per rank gathered into `count x ranks` on every rank.
    AllGather,
    /// `count x ranks` floats per rank, summed; rank r keeps chunk r (`count`).
    ReduceScatter,
}

/// Communicators over several local GPUs, destroyed when dropped.
pub struct Comms {
    nccl: Arc<Nccl>,
    comms: Vec<Comm>,
}

// SAFETY: NCCL communicators may be used from any one thread at a time; the
// benchmark uses them from the thread that owns this value.
unsafe impl Send for Comms {}

impl Comms {
    /// Enqueues one collective on every rank in one group call: rank i reads
    /// `send[i]` and writes `recv[i]` (device pointers on its GPU) on
    /// `streams[i]`.
    ///
    /// # Safety
    /// The pointers must hold what the collective reads and writes for
    /// `count` (see [`Collective`]) and stay valid until the streams finish.
    pub unsafe fn launch(
        &self,
        what: Collective,
        send: &[u64],
        recv: &[u64],
        count: usize,
        streams: &[Stream],
    ) -> Result<(), GpuError> {
        let f = &self.nccl.fns;
        self.nccl.check("ncclGroupStart", (f.group_start)())?;
        let mut first_err = Ok(());
        for i in 0..self.comms.len() {
            let (s, r, c, st) = (send[i] as *const c_void, recv[i] as *mut c_void, self.comms[i], streams[i]);
            let res = match what {
                Collective::AllReduce => (f.all_reduce)(s, r, count, NCCL_FLOAT32, NCCL_SUM, c, st),
                Collective::AllGather => (f.all_gather)(s, r, count, NCCL_FLOAT32, c, st),
                Collective::ReduceScatter => (f.reduce_scatter)(s, r, count, NCCL_FLOAT32, NCCL_SUM, c, st),
            };
            if first_err.is_ok() {
                first_err = self.nccl.check(&format!("{what:?} on rank {i}"), res);
            }
        }
        // The group is always closed, even after an error.
        let end = self.nccl.check("ncclGroupEnd", (f.group_end)());
        first_err.and(end)
    }
}

impl Drop for Comms {
    fn drop(&mut self) {
        for c in &self.comms {
            if !c.is_null() {
                // SAFETY: each communicator came from ncclCommInitAll and is destroyed once.
                unsafe { (self.nccl.fns.comm_destroy)(*c) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_codes_of_old_and_new_nccl() {
        assert_eq!(format_version(22803), "2.28.3");
        assert_eq!(format_version(2708), "2.7.8");
    }

    #[test]
    fn the_variable_is_tried_first_then_the_loader_then_python() {
        let site = vec![PathBuf::from("/opt/py/site-packages")];
        let c = candidates(Some("/x/libnccl.so.2"), &site);
        assert_eq!(c[0].0, PathBuf::from("/x/libnccl.so.2"));
        assert_eq!(c[1].0, PathBuf::from("libnccl.so.2"));
        assert_eq!(c[3].0, PathBuf::from("/opt/py/site-packages/nvidia/nccl/lib/libnccl.so.2"));
        assert_eq!(candidates(Some("  "), &[]).len(), 2, "an empty variable is ignored");
    }

    #[test]
    fn missing_nccl_is_a_message_that_says_where_it_looked() {
        match Nccl::load() {
            Ok(n) => crate::skip_notice(&format!(
                "NCCL {} is present ({}); the missing-NCCL message is not exercised",
                n.version(),
                n.path.display()
            )),
            Err(e) => {
                let m = e.to_string();
                assert!(m.contains(NCCL_LIB_ENV) && m.contains("LD_LIBRARY_PATH"), "{m}");
            }
        }
        assert_eq!(std::env::var(NVLS_ENV).as_deref(), Ok("0"), "NVLS is switched off before NCCL loads");
    }
}
