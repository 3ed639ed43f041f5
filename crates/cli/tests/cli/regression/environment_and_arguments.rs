//! What a run is given besides its flags' values (a launcher's variables,
//! the library and program it is told to run, its rank files), named for
//! what it is when it is wrong.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The launchers' variables, removed so that the machine running the tests
/// (a CI job under Slurm) does not change what is tested.
const LAUNCHER_VARIABLES: [&str; 16] = [
    "RANK",
    "WORLD_SIZE",
    "LOCAL_RANK",
    "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_SIZE",
    "OMPI_COMM_WORLD_LOCAL_RANK",
    "PMI_RANK",
    "PMI_SIZE",
    "MPI_LOCALRANKID",
    "SLURM_PROCID",
    "SLURM_NTASKS",
    "SLURM_LOCALID",
    "CUDA_INJECTION64_PATH",
    "ROOFLINE_INJECT_LIB",
    "ROOFLINE_CUPTI_LIB",
    "LD_PRELOAD",
];

fn roofline() -> Command {
    let mut c = Command::cargo_bin("roofline").unwrap();
    c.env("NO_COLOR", "1");
    for v in LAUNCHER_VARIABLES {
        c.env_remove(v);
    }
    c
}

/// Runs and returns (exit code, stderr).
fn run(c: &mut Command) -> (Option<i32>, String) {
    let out = c.output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn executable(path: &Path, body: &[u8]) -> PathBuf {
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.to_path_buf()
}

/// A folder with an (empty) injection library the tool accepts: it only
/// checks that the file exists before it starts the program.
fn with_inject_lib() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("libroofline_inject.so");
    std::fs::write(&lib, b"").unwrap();
    (dir, lib)
}

/// Adversarial pass 5.
/// F7: `RANK=$'\xff'` was taken for unset (rank 0), so two ranks with a
/// corrupted variable wrote the same file; `RANK=abc` was refused.
#[test]
fn a_launcher_variable_that_is_not_utf8_is_refused_like_any_bad_rank() {
    let not_utf8 = OsStr::from_bytes(b"\xff");
    let cases: [(&[(&str, &OsStr)], &str); 3] = [
        (&[("RANK", not_utf8), ("WORLD_SIZE", OsStr::new("2"))], "RANK"),
        (&[("OMPI_COMM_WORLD_RANK", not_utf8)], "OMPI_COMM_WORLD_RANK"),
        // The rank is fine, the size it is read with is not.
        (&[("RANK", OsStr::new("1")), ("WORLD_SIZE", not_utf8)], "WORLD_SIZE"),
    ];
    for (vars, named) in cases {
        let dir = tempfile::tempdir().unwrap();
        let mut c = roofline();
        c.current_dir(dir.path()).args(["peaks", "--gpu", "h200", "-o", "p{rank}.json"]);
        for (k, v) in vars {
            c.env(k, v);
        }
        let (code, err) = run(&mut c);
        assert_eq!(code, Some(2), "{vars:?}: {err}");
        assert!(err.contains(&format!("{named}=\"\\xff\" is not UTF-8")) && err.contains("fix or unset it"), "{err}");
        let written: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(written.is_empty(), "{vars:?}: nothing is written: {written:?}");
    }
    // Without -o the rank does not matter: said, and the run goes on.
    let (code, err) = run(roofline().env("RANK", not_utf8).args(["peaks", "--gpu", "h200"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("is not UTF-8") && err.contains("ignored here"), "{err}");
}

/// Adversarial pass 5.
/// F9: `--inject-lib /dev/null`, `--inject-lib /` and `--cupti /dev/zero`
/// said "no such file" of paths that exist.
#[test]
fn a_library_flag_naming_a_device_or_a_folder_says_what_it_is() {
    let (dir, lib) = with_inject_lib();
    let program = executable(&dir.path().join("p.sh"), b"#!/bin/sh\nexit 0\n");
    let lib = lib.to_str().unwrap();
    let cases = [
        (["--inject-lib", "/dev/null"], "--inject-lib /dev/null: is not a regular file (a device, FIFO or socket)"),
        (["--inject-lib", "/"], "--inject-lib /: is a folder"),
        (["--cupti", "/dev/zero"], "--cupti /dev/zero: is not a regular file (a device, FIFO or socket)"),
        (["--cupti", "/"], "--cupti /: is a folder"),
    ];
    for (flag, said) in cases {
        let mut c = roofline();
        c.arg("timeline");
        if flag[0] == "--cupti" {
            c.args(["--inject-lib", lib]);
        }
        let (code, err) = run(c.args(flag).arg("--").arg(&program));
        assert_eq!(code, Some(2), "{flag:?}: {err}");
        assert!(err.contains(said) && !err.contains("no such file"), "{flag:?}: {err}");
    }
    // A missing file is still said to be missing.
    let (code, err) = run(roofline().args(["timeline", "--inject-lib", "/nonexistent/lib.so", "--"]).arg(&program));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--inject-lib /nonexistent/lib.so: no such file"), "{err}");
}

/// Adversarial pass 5.
/// F13: `merge job.rank0.json job.rank0.json` counted the rank's GPU time
/// twice (exit 0).
#[test]
fn the_same_rank_file_given_twice_is_refused() {
    let ranks = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/ranks/synthetic-2gpu");
    let dir = tempfile::tempdir().unwrap();
    let rank0 = dir.path().join("job.rank0.json");
    std::fs::copy(ranks.join("job.rank0.json"), &rank0).unwrap();
    let linked = dir.path().join("linked.rank0.json");
    std::fs::hard_link(&rank0, &linked).unwrap();
    let copy = dir.path().join("copy.rank0.json");
    std::fs::copy(&rank0, &copy).unwrap();
    for (first, second) in [
        ("job.rank0.json", "job.rank0.json"),
        ("./job.rank0.json", "job.rank0.json"),
        ("job.rank0.json", "linked.rank0.json"),
    ] {
        let (code, err) = run(roofline().current_dir(dir.path()).args(["merge", first, second, "-o", "job.json"]));
        assert_eq!(code, Some(2), "{first} {second}: {err}");
        assert!(
            err.contains(&format!("RANK_FILE {first} and {second} are the same file, given twice")),
            "{first} {second}: {err}"
        );
        assert!(!dir.path().join("job.json").exists());
    }
    // Two different files of one rank (two passes) are still joined.
    let (code, err) =
        run(roofline().current_dir(dir.path()).args(["merge", "job.rank0.json", "copy.rank0.json", "-o", "job.json"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("are joined into one rank"), "{err}");
}

/// Adversarial pass 5.
/// F16: a script whose `#!` interpreter is missing was said to be "not
/// found; check the name" although the script exists.
#[test]
fn a_program_whose_interpreter_is_missing_says_so_not_that_it_is_not_found() {
    let (dir, lib) = with_inject_lib();
    executable(&dir.path().join("s.sh"), b"#!/nonexistent/interp -x\necho hi\n");
    // An ELF binary whose loader is missing: a copy of this test binary with
    // its PT_INTERP path pointed at a file that does not exist.
    let mut elf = std::fs::read(std::env::current_exe().unwrap()).unwrap();
    let elf_case = interp_range(&elf).filter(|r| r.len() > 20).map(|r| {
        let mut missing = b"/nonexistent/ld".to_vec();
        missing.resize(r.len() - 1, b'x');
        missing.push(0);
        let shown = String::from_utf8_lossy(&missing[..missing.len() - 1]).into_owned();
        elf[r].copy_from_slice(&missing);
        executable(&dir.path().join("app"), &elf);
        shown
    });
    let mut cases = vec![(
        "./s.sh",
        "./s.sh: the file exists, but its interpreter (its first line, `#!/nonexistent/interp -x`) was not found; install that interpreter",
    )];
    let elf_said = elf_case.map(|loader| {
        format!("./app: the file exists, but its loader {loader} (the dynamic linker it was built for) was not found")
    });
    match &elf_said {
        Some(said) => cases.push(("./app", said.as_str())),
        None => eprintln!("SKIPPED: the ELF case: this test binary is not a dynamically linked 64-bit ELF"),
    }
    for (program, said) in cases {
        let (code, err) =
            run(roofline().current_dir(dir.path()).arg("timeline").arg("--inject-lib").arg(&lib).args(["--", program]));
        assert_eq!(code, Some(2), "{program}: {err}");
        assert!(err.contains(said) && !err.contains("check the name"), "{program}: {err}");
    }
    // A program that is not there is still "not found".
    let (code, err) =
        run(roofline().current_dir(dir.path()).arg("timeline").arg("--inject-lib").arg(&lib).args(["--", "./nope.sh"]));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("./nope.sh: not found; check the name"), "{err}");
}

/// Where the loader's path (`PT_INTERP`, NUL included) lies in a 64-bit
/// little-endian ELF file.
fn interp_range(elf: &[u8]) -> Option<std::ops::Range<usize>> {
    if !elf.starts_with(b"\x7fELF") || elf[4] != 2 || elf[5] != 1 {
        return None;
    }
    let word = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap()) as usize;
    let half = |o: usize| u16::from_le_bytes(elf[o..o + 2].try_into().unwrap()) as usize;
    let (phoff, phentsize, phnum) = (word(0x20), half(0x36), half(0x38));
    (0..phnum).map(|i| phoff + i * phentsize).find(|&ph| elf[ph..ph + 4] == 3u32.to_le_bytes()).map(|ph| {
        let start = word(ph + 8);
        start..start + word(ph + 32)
    })
}
