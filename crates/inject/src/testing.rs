//! Test support: a stand-in libcupti and CUDA program, compiled with the
//! system C compiler, so that the injection library can be exercised end to
//! end on machines without a GPU (its own tests and the CLI's).
//!
//! The stand-in CUPTI (tests/fake/fake_cupti.c) hands over records laid out
//! like CUDA 13.0's CUPTI, with the offsets taken from cudarc's bindings;
//! the stand-in program (tests/fake/fake_app.c) loads the injection library
//! the way the CUDA driver and NVTX do, then asks for records.

use std::mem::offset_of;
use std::path::{Path, PathBuf};
use std::process::Command;

use cudarc::cupti::sys::{
    CUpti_ActivityAPI as Api, CUpti_ActivityKernel10 as Kernel, CUpti_ActivityMarker2 as Marker,
    CUpti_ActivityMemcpy6 as Memcpy,
};

const FAKE_CUPTI: &str = include_str!("../tests/fake/fake_cupti.c");
const FAKE_APP: &str = include_str!("../tests/fake/fake_app.c");

/// The compiled stand-ins, in a folder of the caller's.
pub struct Fake {
    /// A CUPTI that says it is 13.0 (`<dir>/cupti13/libcupti.so.13`).
    pub cupti13: PathBuf,
    /// One that says it is 12.x (`<dir>/cupti12/libcupti.so.13`).
    pub cupti12: PathBuf,
    /// The program: `fake_app exit|sigterm|fork|sleep`.
    pub app: PathBuf,
}

fn defines(version: u32) -> Vec<String> {
    let stride = [size_of::<Kernel>(), size_of::<Api>(), size_of::<Marker>(), size_of::<Memcpy>()]
        .into_iter()
        .max()
        .unwrap_or(0)
        .next_multiple_of(8);
    let d = [
        ("FAKE_VERSION", version as usize),
        ("STRIDE", stride),
        ("K_START", offset_of!(Kernel, start)),
        ("K_END", offset_of!(Kernel, end)),
        ("K_DEV", offset_of!(Kernel, deviceId)),
        ("K_CTX", offset_of!(Kernel, contextId)),
        ("K_STREAM", offset_of!(Kernel, streamId)),
        ("K_GRIDX", offset_of!(Kernel, gridX)),
        ("K_GRIDY", offset_of!(Kernel, gridY)),
        ("K_GRIDZ", offset_of!(Kernel, gridZ)),
        ("K_BLOCKX", offset_of!(Kernel, blockX)),
        ("K_BLOCKY", offset_of!(Kernel, blockY)),
        ("K_BLOCKZ", offset_of!(Kernel, blockZ)),
        ("K_REGS", offset_of!(Kernel, registersPerThread)),
        ("K_DSMEM", offset_of!(Kernel, dynamicSharedMemory)),
        ("K_CORR", offset_of!(Kernel, correlationId)),
        ("K_NAME", offset_of!(Kernel, name)),
        ("K_GRAPH", offset_of!(Kernel, graphId)),
        ("K_NODE", offset_of!(Kernel, graphNodeId)),
        ("A_CBID", offset_of!(Api, cbid)),
        ("A_START", offset_of!(Api, start)),
        ("A_END", offset_of!(Api, end)),
        ("A_TID", offset_of!(Api, threadId)),
        ("A_CORR", offset_of!(Api, correlationId)),
        ("M_FLAGS", offset_of!(Marker, flags)),
        ("M_TS", offset_of!(Marker, timestamp)),
        ("M_ID", offset_of!(Marker, id)),
        ("M_OBJKIND", offset_of!(Marker, objectKind)),
        ("M_OBJID", offset_of!(Marker, objectId)),
        ("M_NAME", offset_of!(Marker, name)),
        ("C_KIND", offset_of!(Memcpy, copyKind)),
        ("C_BYTES", offset_of!(Memcpy, bytes)),
        ("C_START", offset_of!(Memcpy, start)),
        ("C_END", offset_of!(Memcpy, end)),
        ("C_STREAM", offset_of!(Memcpy, streamId)),
        ("C_CORR", offset_of!(Memcpy, correlationId)),
    ];
    d.iter().map(|(k, v)| format!("-D{k}={v}")).collect()
}

fn cc(args: &[String]) -> Result<(), String> {
    let out = Command::new("cc").args(args).output().map_err(|e| format!("cc: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("cc {args:?}: {}", String::from_utf8_lossy(&out.stderr)))
    }
}

impl Fake {
    /// Compiles the stand-ins into `dir`; `None` when there is no C compiler.
    pub fn build(dir: &Path) -> Option<Result<Fake, String>> {
        Command::new("cc").arg("--version").output().ok()?;
        Some(Self::compile(dir))
    }

    fn compile(dir: &Path) -> Result<Fake, String> {
        let io = |e: std::io::Error| e.to_string();
        let src = dir.join("src");
        std::fs::create_dir_all(&src).map_err(io)?;
        std::fs::write(src.join("fake_cupti.c"), FAKE_CUPTI).map_err(io)?;
        std::fs::write(src.join("fake_app.c"), FAKE_APP).map_err(io)?;
        let mut libs = Vec::new();
        for (sub, version) in [("cupti13", 130001u32), ("cupti12", 24u32)] {
            std::fs::create_dir_all(dir.join(sub)).map_err(io)?;
            let lib = dir.join(sub).join("libcupti.so.13");
            let mut args = vec![
                "-shared".to_string(),
                "-fPIC".into(),
                "-O1".into(),
                "-o".into(),
                lib.display().to_string(),
                src.join("fake_cupti.c").display().to_string(),
                "-lpthread".into(),
            ];
            args.extend(defines(version));
            cc(&args)?;
            libs.push(lib);
        }
        let app = dir.join("fake_app");
        cc(&[
            "-O1".into(),
            "-o".into(),
            app.display().to_string(),
            src.join("fake_app.c").display().to_string(),
            "-ldl".into(),
        ])?;
        let cupti12 = libs.pop().unwrap_or_default();
        let cupti13 = libs.pop().unwrap_or_default();
        Ok(Fake { cupti13, cupti12, app })
    }
}

/// Where cargo put libroofline_inject.so for a test executable: beside it
/// (`deps/`, when this crate is a dependency) or one folder up.
pub fn built_library(test_exe: &Path) -> Option<PathBuf> {
    let deps = test_exe.parent()?;
    [deps.join("libroofline_inject.so"), deps.parent()?.join("libroofline_inject.so")].into_iter().find(|p| p.is_file())
}
