//! Finding and loading the one libcupti the process must use.
//!
//! A process may hold only one CUPTI: PyTorch loads its own copy when it is
//! imported (before CUDA starts), and a second copy from another folder
//! would fight it for the driver's hooks. So the library the program already
//! loaded wins; then `ROOFLINE_CUPTI_LIB` (the tool finds one under the CUDA
//! toolkit); then the loader's own search for `libcupti.so.13`. The
//! functions are looked up here, in that library, rather than through
//! cudarc's loader, which searches by name on its own and could load the
//! second copy; cudarc's bindings still give the record layouts.
//!
//! Every function is checked for before use: a missing one is an error
//! message in the record file, never a panic inside the user's program.

use std::ffi::{c_char, c_int, c_void, CStr};

use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};

use roofline_records::env;

pub type BufferRequested = unsafe extern "C" fn(*mut *mut u8, *mut usize, *mut usize);
pub type BufferCompleted = unsafe extern "C" fn(*mut c_void, u32, *mut u8, usize, usize);

type Res = u32;
pub const SUCCESS: Res = 0;

/// CUPTI's functions, from the chosen library.
pub struct Cupti {
    _lib: Library,
    pub path: String,
    pub get_version: unsafe extern "C" fn(*mut u32) -> Res,
    get_result_string: Option<unsafe extern "C" fn(Res, *mut *const c_char) -> Res>,
    pub register_callbacks: unsafe extern "C" fn(Option<BufferRequested>, Option<BufferCompleted>) -> Res,
    pub enable: unsafe extern "C" fn(u32) -> Res,
    pub flush_all: unsafe extern "C" fn(u32) -> Res,
    pub flush_period: Option<unsafe extern "C" fn(u32) -> Res>,
    pub get_next_record: unsafe extern "C" fn(*mut u8, usize, *mut *mut u8) -> Res,
    pub get_num_dropped: Option<unsafe extern "C" fn(*mut c_void, u32, *mut usize) -> Res>,
    pub get_timestamp: unsafe extern "C" fn(*mut u64) -> Res,
    pub set_thread_id_type: Option<unsafe extern "C" fn(u32) -> Res>,
    pub enable_runtime_api: Option<unsafe extern "C" fn(u32, u8) -> Res>,
    pub enable_driver_api: Option<unsafe extern "C" fn(u32, u8) -> Res>,
    pub get_callback_name: Option<unsafe extern "C" fn(u32, u32, *mut *const c_char) -> Res>,
    pub nvtx_init: Option<unsafe extern "C" fn(*const c_void) -> c_int>,
}

impl Cupti {
    /// CUPTI's text for a result code.
    pub fn error_text(&self, r: Res) -> String {
        let mut s: *const c_char = std::ptr::null();
        if let Some(f) = self.get_result_string {
            // SAFETY: CUPTI writes a pointer to a static string.
            if unsafe { f(r, &mut s) } == SUCCESS && !s.is_null() {
                return format!("{} ({r})", unsafe { CStr::from_ptr(s) }.to_string_lossy());
            }
        }
        format!("CUPTI error {r}")
    }

    pub fn timestamp(&self) -> u64 {
        let mut t = 0u64;
        // SAFETY: writes one u64.
        unsafe { (self.get_timestamp)(&mut t) };
        t
    }

    pub fn version(&self) -> u32 {
        let mut v = 0u32;
        // SAFETY: writes one u32.
        unsafe { (self.get_version)(&mut v) };
        v
    }
}

/// Paths of loaded objects whose file name starts with `libcupti.so`.
fn loaded_cupti() -> Vec<String> {
    unsafe extern "C" fn visit(info: *mut libc::dl_phdr_info, _size: usize, data: *mut c_void) -> c_int {
        // SAFETY: the loader passes a valid info; data is our Vec.
        let out = unsafe { &mut *(data as *mut Vec<String>) };
        let name = unsafe { (*info).dlpi_name };
        if !name.is_null() {
            let path = unsafe { CStr::from_ptr(name) }.to_string_lossy().to_string();
            if path.rsplit('/').next().is_some_and(|f| f.starts_with("libcupti.so")) {
                out.push(path);
            }
        }
        0
    }
    let mut out: Vec<String> = Vec::new();
    // SAFETY: the callback only reads the info it is given.
    unsafe { libc::dl_iterate_phdr(Some(visit), &mut out as *mut Vec<String> as *mut c_void) };
    out
}

/// Loads CUPTI (see the module docs), or says why it could not.
pub fn load() -> Result<Cupti, String> {
    let mut tried = Vec::new();
    // SAFETY: dlopen of CUPTI runs its initialisers, which is what we want.
    for path in loaded_cupti() {
        match unsafe { Library::open(Some(path.as_str()), RTLD_NOW | libc::RTLD_NOLOAD) } {
            Ok(lib) => return resolve(lib, path),
            Err(e) => tried.push(format!("{path} (already loaded, but {e})")),
        }
    }
    if let Ok(path) = std::env::var(env::CUPTI_LIB) {
        match unsafe { Library::open(Some(path.as_str()), RTLD_NOW | RTLD_GLOBAL) } {
            Ok(lib) => return resolve(lib, path),
            Err(e) => tried.push(format!("{path} from ${} ({e})", env::CUPTI_LIB)),
        }
    }
    for name in ["libcupti.so.13", "libcupti.so"] {
        match unsafe { Library::open(Some(name), RTLD_NOW | RTLD_GLOBAL) } {
            Ok(lib) => return resolve(lib, name.to_string()),
            Err(_) => tried.push(format!("{name} on the loader's path")),
        }
    }
    Err(format!(
        "libcupti not found: tried {}. It ships with the CUDA toolkit ($CUDA_HOME/extras/CUPTI/lib64) and with PyTorch (site-packages/nvidia/cu13/lib); give its path with `roofline timeline --cupti PATH`",
        tried.join(", ")
    ))
}

fn resolve(lib: Library, path: String) -> Result<Cupti, String> {
    macro_rules! req {
        ($name:literal) => {
            // SAFETY: the types match CUPTI's C declarations.
            *unsafe { lib.get($name) }.map_err(|e| format!("{path} has no {}: {e}", $name))?
        };
    }
    macro_rules! opt {
        ($name:literal) => {
            // SAFETY: as above.
            unsafe { lib.get($name) }.ok().map(|s| *s)
        };
    }
    Ok(Cupti {
        get_version: req!("cuptiGetVersion"),
        get_result_string: opt!("cuptiGetResultString"),
        register_callbacks: req!("cuptiActivityRegisterCallbacks"),
        enable: req!("cuptiActivityEnable"),
        flush_all: req!("cuptiActivityFlushAll"),
        flush_period: opt!("cuptiActivityFlushPeriod"),
        get_next_record: req!("cuptiActivityGetNextRecord"),
        get_num_dropped: opt!("cuptiActivityGetNumDroppedRecords"),
        get_timestamp: req!("cuptiGetTimestamp"),
        set_thread_id_type: opt!("cuptiSetThreadIdType"),
        enable_runtime_api: opt!("cuptiActivityEnableRuntimeApi"),
        enable_driver_api: opt!("cuptiActivityEnableDriverApi"),
        get_callback_name: opt!("cuptiGetCallbackName"),
        nvtx_init: opt!("InitializeInjectionNvtx2"),
        path,
        _lib: lib,
    })
}
