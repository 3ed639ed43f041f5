//! Writing an output file without destroying anything else.
//!
//! Every file the tool writes goes through [`write_atomic`] (or
//! [`write_atomic_with`], for contents made as they are written), because the
//! naive "write a temp file, rename it over the target" breaks in several
//! ways that cost users data:
//!
//! - the temporary file has a unique, unpredictable name and is created
//!   with O_EXCL in the target's folder (`tempfile`), so a symlink planted at
//!   a guessable name cannot redirect the write, and a long target name
//!   cannot push the temporary name over NAME_MAX;
//! - a symlink is followed to the file it points to, which is replaced (the
//!   link stays a link);
//! - a file being replaced keeps its mode and, as far as the user may,
//!   its owner and group;
//! - a file with several hard links: the name given is replaced (a new
//!   inode), so the other links keep the old content, as with any
//!   write-then-rename; write into the file in place (`> file`) to change
//!   them all;
//! - a device, FIFO or socket (`/dev/null`, `/dev/stdout`, a named pipe)
//!   is written into, never renamed over;
//! - [`refuse_overwriting_inputs`] stops a command before it writes over a
//!   file it reads (`import cap.csv -o cap.csv`);
//! - SIGINT, SIGTERM or SIGHUP during the write (a CI job cancelled, a
//!   Ctrl-C) removes the temporary file before the tool dies of the signal
//!   as usual: the temporary files being written are kept in a small,
//!   fixed registry that the signal handler reads without allocating.
//!   Signals the tool was started with ignored (`nohup`) or handled
//!   elsewhere are left alone.

use std::fs::{File, Metadata, OpenOptions};
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicPtr, Ordering};

use crate::ExportError;

/// How deep a chain of symlinks may be (Linux's own limit).
const MAX_SYMLINKS: usize = 40;

/// Where the bytes for a path go.
#[derive(Debug, PartialEq)]
enum Target {
    /// A device, FIFO, socket or `/proc/self/fd` link: opened and written.
    Direct(PathBuf),
    /// A regular file (or none yet) at this path, after symlinks: replaced
    /// through a temporary file in its folder.
    Replace(PathBuf),
}

fn io_error(path: &Path, source: std::io::Error) -> ExportError {
    ExportError::Io { path: path.display().to_string(), source }
}

fn absolute(path: &Path) -> std::io::Result<PathBuf> {
    if path.is_absolute() {
        Ok(path.to_path_buf())
    } else {
        Ok(std::env::current_dir()?.join(path))
    }
}

/// A link into `/proc` (`/dev/stdout` -> `/proc/self/fd/1`) names an open
/// file of a process, not a place in a folder: it is written through.
fn is_proc(path: &Path) -> bool {
    let mut components = path.components();
    components.next() == Some(Component::RootDir) && components.next() == Some(Component::Normal("proc".as_ref()))
}

fn in_proc(path: &Path) -> bool {
    is_proc(path) || path.parent().and_then(|p| p.canonicalize().ok()).is_some_and(|p| is_proc(&p))
}

/// Follows symlinks from `path` to the file they end at (which may not
/// exist yet), and says how to write it.
fn resolve(path: &Path) -> std::io::Result<Target> {
    let mut current = absolute(path)?;
    for _ in 0..MAX_SYMLINKS {
        let meta = match std::fs::symlink_metadata(&current) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Target::Replace(current)),
            Err(e) => return Err(e),
        };
        let kind = meta.file_type();
        if kind.is_symlink() {
            let link = std::fs::read_link(&current)?;
            if in_proc(&current) || is_proc(&link) {
                return Ok(Target::Direct(current));
            }
            current = if link.is_absolute() { link } else { current.parent().map(|p| p.join(&link)).unwrap_or(link) };
            continue;
        }
        if kind.is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::IsADirectory,
                "it is a folder; give a file name inside it",
            ));
        }
        return Ok(if kind.is_file() { Target::Replace(current) } else { Target::Direct(current) });
    }
    Err(std::io::Error::other(format!("more than {MAX_SYMLINKS} symlinks to follow")))
}

/// Whether `path` (after symlinks) is a device, FIFO, socket or `/proc`
/// link: written into, and with no folder of regular files around it.
pub fn is_special_file(path: &Path) -> bool {
    matches!(resolve(path), Ok(Target::Direct(_)))
}

/// Writes `contents` to `path` whole or not at all: through a uniquely
/// named temporary file in the same folder and a rename, so readers never
/// see half a file and a failure leaves the old file as it was. See the
/// module documentation for symlinks, special files, owners and modes.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), ExportError> {
    write_atomic_with(path, &mut |w| w.write_all(contents))
}

/// As [`write_atomic`], with the contents written by `body` as they are
/// made (a large JSON document serialized straight into the file, never
/// held whole in memory). An error from `body` leaves the old file as it
/// was, as any other failure does.
pub fn write_atomic_with(
    path: &Path,
    body: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), ExportError> {
    match resolve(path).map_err(|e| io_error(path, e))? {
        Target::Direct(p) => write_direct(&p, body).map_err(|e| io_error(path, e)),
        Target::Replace(p) => replace(&p, body).map_err(|e| io_error(path, e)),
    }
}

/// The buffer between a body and its file: writes of a serializer are
/// small, the system calls need not be.
const WRITE_BUFFER: usize = 1 << 20;

/// Why a file name the tool makes itself (a table beside `-o FILE.csv`,
/// a name the user never typed) may not be written: it is a symbolic link
/// (followed, it would write wherever the link points, out of the folder)
/// or not a regular file. `None`: it does not exist, or is a regular file
/// (the output of an earlier run, replaced).
pub fn not_a_plain_file(path: &Path) -> Option<String> {
    let kind = std::fs::symlink_metadata(path).ok()?.file_type();
    if kind.is_symlink() {
        let target = std::fs::read_link(path).map(|t| t.display().to_string()).unwrap_or_default();
        return Some(format!("a symbolic link to {target}"));
    }
    if kind.is_dir() {
        return Some("a folder".into());
    }
    (!kind.is_file()).then(|| "not a regular file (a device, FIFO or socket)".into())
}

/// As [`write_atomic`], for a name the tool makes itself: never follows a
/// symbolic link ([`not_a_plain_file`] refuses one), and the rename
/// replaces the name itself, so a link planted after that check is
/// replaced, not written through.
pub fn write_atomic_no_follow(path: &Path, contents: &[u8]) -> Result<(), ExportError> {
    if let Some(why) = not_a_plain_file(path) {
        return Err(io_error(
            path,
            std::io::Error::new(std::io::ErrorKind::AlreadyExists, format!("it is {why}; remove it first")),
        ));
    }
    let target = absolute(path).map_err(|e| io_error(path, e))?;
    replace(&target, &mut |w| w.write_all(contents)).map_err(|e| io_error(path, e))
}

/// Whether `path` is the file this process's stdout (or stderr) writes to.
fn same_as_stream(path: &Path, stream: std::os::fd::BorrowedFd<'_>) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(target) = std::fs::metadata(path) else { return false };
    let Ok(fd) = stream.try_clone_to_owned() else { return false };
    match File::from(fd).metadata() {
        Ok(m) => m.dev() == target.dev() && m.ino() == target.ino(),
        Err(_) => false,
    }
}

fn write_direct(path: &Path, body: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>) -> std::io::Result<()> {
    use std::os::fd::AsFd;
    fn through(w: impl Write, body: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>) -> std::io::Result<()> {
        let mut w = std::io::BufWriter::with_capacity(WRITE_BUFFER, w);
        body(&mut w)?;
        w.flush()
    }
    // `-o /dev/stdout`: through the process's own stdout, so that the file
    // and the data that follow on stdout come out in order.
    if same_as_stream(path, std::io::stdout().as_fd()) {
        return through(std::io::stdout().lock(), body);
    }
    if same_as_stream(path, std::io::stderr().as_fd()) {
        return through(std::io::stderr().lock(), body);
    }
    // Append: through a /proc link to a file, the shell has already
    // truncated it for `>` and wants the end for `>>`.
    through(open_for_writing(path)?, body)
}

/// Opens a device, FIFO or /proc link for writing. A FIFO that no process
/// reads is an error at once instead of a wait that never ends.
fn open_for_writing(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let is_fifo = std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo());
    if !is_fifo {
        return OpenOptions::new().append(true).open(path);
    }
    let f = OpenOptions::new().append(true).custom_flags(libc::O_NONBLOCK).open(path).map_err(|e| {
        if e.raw_os_error() == Some(libc::ENXIO) {
            std::io::Error::new(
                e.kind(),
                "it is a FIFO (named pipe) that no process is reading; start the reader first",
            )
        } else {
            e
        }
    })?;
    // Blocking writes from here on: a full pipe waits for its reader.
    // SAFETY: F_GETFL/F_SETFL on a descriptor this function owns.
    unsafe {
        let fd = std::os::fd::AsRawFd::as_raw_fd(&f);
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags == -1 || libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) == -1 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(f)
}

/// The temporary files being written, as C strings for `unlink` in the
/// signal handler; a slot is null when free. More writes at once than slots
/// (never, today) only lose the cleanup, never the write.
static TEMP_FILES: [AtomicPtr<libc::c_char>; 8] = [const { AtomicPtr::new(std::ptr::null_mut()) }; 8];

/// The signals after which a temporary file is removed.
const CLEANUP_SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

extern "C" fn remove_temp_files_and_die(sig: libc::c_int) {
    for slot in &TEMP_FILES {
        let p = slot.load(Ordering::SeqCst);
        if !p.is_null() {
            // SAFETY: a NUL-terminated path that is never freed (see `TempRegistration`);
            // unlink is async-signal-safe.
            unsafe {
                libc::unlink(p);
            }
        }
    }
    // SA_RESETHAND made the action the default again; the signal is blocked
    // until this handler returns, then ends the process with the usual status.
    // SAFETY: raise is async-signal-safe.
    unsafe {
        libc::raise(sig);
    }
}

/// Installs the cleanup handler, once, for each of [`CLEANUP_SIGNALS`]
/// whose action is still the default.
fn install_cleanup_handler() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for sig in CLEANUP_SIGNALS {
            // SAFETY: sigaction with zeroed, then filled, structs; the handler
            // only unlinks and re-raises.
            unsafe {
                let mut current: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, std::ptr::null(), &mut current) != 0 || current.sa_sigaction != libc::SIG_DFL {
                    continue;
                }
                let mut act: libc::sigaction = std::mem::zeroed();
                act.sa_sigaction = remove_temp_files_and_die as extern "C" fn(libc::c_int) as usize;
                act.sa_flags = libc::SA_RESETHAND;
                libc::sigemptyset(&mut act.sa_mask);
                libc::sigaction(sig, &act, std::ptr::null_mut());
            }
        }
    });
}

/// A temporary file listed for removal on a signal while it exists.
struct TempRegistration(Option<usize>);

impl TempRegistration {
    fn new(path: &Path) -> TempRegistration {
        use std::os::unix::ffi::OsStrExt;
        install_cleanup_handler();
        let Ok(c) =
            std::ffi::CString::new(absolute(path).unwrap_or_else(|_| path.to_path_buf()).as_os_str().as_bytes())
        else {
            return TempRegistration(None);
        };
        let ptr = c.into_raw();
        for (i, slot) in TEMP_FILES.iter().enumerate() {
            if slot.compare_exchange(std::ptr::null_mut(), ptr, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
                return TempRegistration(Some(i));
            }
        }
        // SAFETY: the pointer came from into_raw just above and was not stored.
        drop(unsafe { std::ffi::CString::from_raw(ptr) });
        TempRegistration(None)
    }
}

impl Drop for TempRegistration {
    fn drop(&mut self) {
        // The string is left allocated (a few bytes per write): a handler
        // running on another thread may still be reading it.
        if let Some(i) = self.0 {
            TEMP_FILES[i].store(std::ptr::null_mut(), Ordering::SeqCst);
        }
    }
}

/// Debug builds only: `ROOFLINE_TEST_HOLD_TEMP_FILE=MARKER` makes the write
/// stop once the temporary file holds everything, create MARKER and wait,
/// so that a test can signal the tool inside the window deterministically.
#[cfg(debug_assertions)]
fn hold_for_tests() {
    if let Some(marker) = std::env::var_os("ROOFLINE_TEST_HOLD_TEMP_FILE") {
        let _ = std::fs::write(marker, b"");
        std::thread::sleep(std::time::Duration::from_secs(60));
    }
}

fn replace(target: &Path, body: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>) -> std::io::Result<()> {
    stage(target, body)?.commit()
}

/// A file written whole into its temporary twin, not yet renamed over its
/// target: dropped, the temporary file goes and the target is untouched.
struct Staged {
    tmp: tempfile::NamedTempFile,
    target: PathBuf,
    dir: PathBuf,
    _registered: TempRegistration,
}

fn stage(target: &Path, body: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>) -> std::io::Result<Staged> {
    use std::os::unix::fs::PermissionsExt;
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        // Said plainly, rather than as a temporary file that cannot be made.
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("the folder {} does not exist; create it first", dir.display()),
        ));
    }
    // Not through a link (one planted after `resolve`): the rename replaces the name.
    let existing = std::fs::symlink_metadata(target).ok().filter(Metadata::is_file);
    let mut tmp = tempfile::Builder::new()
        .prefix(".roofline-")
        .suffix(".tmp")
        // New files get 0666 less the umask, as any created file does.
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(|e| {
            std::io::Error::new(e.kind(), format!("cannot create a temporary file in {} ({e})", dir.display()))
        })?;
    let registered = TempRegistration::new(tmp.path());
    if let Some(old) = &existing {
        keep_owner_and_mode(tmp.as_file(), old)?;
    }
    {
        let mut w = std::io::BufWriter::with_capacity(WRITE_BUFFER, tmp.as_file_mut());
        body(&mut w)?;
        w.flush()?;
    }
    tmp.as_file().sync_all()?;
    Ok(Staged { tmp, target: target.to_path_buf(), dir: dir.to_path_buf(), _registered: registered })
}

impl Staged {
    /// Renames the temporary file over the target.
    fn commit(self) -> std::io::Result<()> {
        #[cfg(debug_assertions)]
        hold_for_tests();
        self.tmp.persist(&self.target).map_err(|e| e.error)?;
        // The rename itself reaches the disk with the folder.
        if let Ok(d) = File::open(&self.dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

/// How [`write_set`] treats a symbolic link at a file's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// Followed to the file it points to, as for `-o` (the user named the file).
    Follow,
    /// Refused, as for the names the tool makes itself (tables beside `-o`,
    /// `--svg-dir`'s charts): followed, a planted link would lead the write
    /// out of the folder. See [`not_a_plain_file`].
    Refuse,
}

/// One file of a set: its name, how a link there is treated, and what it holds.
pub type SetFile<'a> = (&'a Path, Links, &'a mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>);

/// Writes several files that belong together (a CSV and the tables beside
/// it, a tour's folder) all or none: every regular file is written whole
/// into its temporary twin first, devices and FIFOs are written next, and
/// only then are the temporary files renamed over their targets. A full
/// disk, a FIFO nobody reads or a refused link leaves every target as it
/// was (renames do not need space).
pub fn write_set(files: &mut [SetFile<'_>]) -> Result<(), ExportError> {
    let mut staged = Vec::new();
    let mut direct = Vec::new();
    for (i, (path, links, body)) in files.iter_mut().enumerate() {
        let target = match links {
            Links::Follow => resolve(path).map_err(|e| io_error(path, e))?,
            Links::Refuse => {
                if let Some(why) = not_a_plain_file(path) {
                    return Err(io_error(
                        path,
                        std::io::Error::new(std::io::ErrorKind::AlreadyExists, format!("it is {why}; remove it first")),
                    ));
                }
                Target::Replace(absolute(path).map_err(|e| io_error(path, e))?)
            }
        };
        match target {
            Target::Replace(p) => staged.push(stage(&p, body).map_err(|e| io_error(path, e))?),
            Target::Direct(p) => direct.push((i, p)),
        }
    }
    for (i, p) in direct {
        let (path, _, body) = &mut files[i];
        write_direct(&p, body).map_err(|e| io_error(path, e))?;
    }
    for s in staged {
        let target = s.target.clone();
        s.commit().map_err(|e| io_error(&target, e))?;
    }
    Ok(())
}

/// Gives the new file the owner, group and mode of the one it replaces:
/// the owner where the user may change it (root), the group where the user
/// belongs to it; the mode always.
fn keep_owner_and_mode(file: &File, old: &Metadata) -> std::io::Result<()> {
    use std::os::unix::fs::{fchown, MetadataExt, PermissionsExt};
    let new = file.metadata()?;
    let differs = new.uid() != old.uid() || new.gid() != old.gid();
    if differs && fchown(file, Some(old.uid()), Some(old.gid())).is_err() {
        let _ = fchown(file, None, Some(old.gid()));
    }
    // After the chown, which clears set-user-ID bits.
    file.set_permissions(std::fs::Permissions::from_mode(old.mode() & 0o7777))
}

/// An output of a command that is also one of its inputs.
#[derive(Debug, thiserror::Error)]
#[error("{output_flag} {output}: this file is also an input of this command ({input_flag} {input}); writing it would destroy it. Give another output file name")]
pub struct OverwritesInput {
    /// The flag that names the output (`-o`, `--svg`).
    pub output_flag: String,
    /// The output file as given.
    pub output: String,
    /// The flag or argument that names the input (`FILE`, `--machine`).
    pub input_flag: String,
    /// The input file as given.
    pub input: String,
}

/// Two paths name the same existing regular file (same device and inode:
/// hard links, `./a` and `a`, and symlinks count as the same).
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.is_file() && y.is_file() && x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// Refuses when an output would write over an input of the same run, or
/// two outputs over each other. Each entry is (flag, path), for example
/// `("-o", out)` and `("FILE", capture)`; `-` (stdin/stdout) and special
/// files (devices, FIFOs) are not files to protect.
pub fn refuse_overwriting_inputs(outputs: &[(&str, &Path)], inputs: &[(&str, &Path)]) -> Result<(), OverwritesInput> {
    let err = |(of, o): (&str, &Path), (i_f, i): (&str, &Path)| OverwritesInput {
        output_flag: of.into(),
        output: o.display().to_string(),
        input_flag: i_f.into(),
        input: i.display().to_string(),
    };
    for &(of, o) in outputs {
        if o.as_os_str() == "-" {
            continue;
        }
        for &(i_f, i) in inputs {
            if i.as_os_str() != "-" && same_file(o, i) {
                return Err(err((of, o), (i_f, i)));
            }
        }
    }
    for (n, &(of, o)) in outputs.iter().enumerate() {
        for &(pf, p) in &outputs[..n] {
            if same_file(o, p) || (o == p && o.as_os_str() != "-" && !matches!(resolve(o), Ok(Target::Direct(_)))) {
                return Err(OverwritesInput {
                    output_flag: of.into(),
                    output: o.display().to_string(),
                    input_flag: format!("output {pf}"),
                    input: p.display().to_string(),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};

    use super::*;

    #[test]
    fn write_atomic_does_not_follow_a_symlink_planted_at_a_predictable_temp_name() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        // The names the old code used: `.NAME.tmp-PID`.
        let planted = dir.path().join(format!(".out.json.tmp-{}", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        let out = dir.path().join("out.json");
        write_atomic(&out, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "new");
        assert!(!std::fs::symlink_metadata(&out).unwrap().file_type().is_symlink());
    }

    #[test]
    fn a_new_file_gets_the_usual_mode_and_no_temporary_file_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("new.json");
        write_atomic(&out, b"x").unwrap();
        // 0666 less a umask, never tempfile's 0600.
        let mode = std::fs::metadata(&out).unwrap().mode() & 0o777;
        assert_eq!(mode & 0o600, 0o600);
        let probe = dir.path().join("probe");
        File::create(&probe).unwrap();
        assert_eq!(mode, std::fs::metadata(&probe).unwrap().mode() & 0o777);
        std::fs::remove_file(&probe).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("d");
        std::fs::create_dir(&sub).unwrap();
        let e = write_atomic(&sub, b"x").unwrap_err().to_string();
        assert!(e.contains("folder"), "{e}");
        let e = write_atomic(&dir.path().join("missing/x.json"), b"x").unwrap_err().to_string();
        assert!(e.contains("missing/x.json") && e.contains("does not exist"), "{e}");
    }

    #[test]
    fn a_body_that_fails_halfway_leaves_the_old_file_and_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("job.json");
        std::fs::write(&out, b"old").unwrap();
        let e = write_atomic_with(&out, &mut |w| {
            w.write_all(&[b'x'; 3 * WRITE_BUFFER])?;
            Err(std::io::Error::other("the serializer gave up"))
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("job.json") && e.contains("the serializer gave up"), "{e}");
        assert_eq!(std::fs::read(&out).unwrap(), b"old");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["job.json"], "a temporary file was left");
        // A body that succeeds is written whole, past the buffer's size.
        write_atomic_with(&out, &mut |w| w.write_all(&[b'y'; 3 * WRITE_BUFFER + 1])).unwrap();
        assert_eq!(std::fs::read(&out).unwrap().len(), 3 * WRITE_BUFFER + 1);
    }

    #[test]
    fn a_set_of_files_is_written_all_or_none() {
        // Fifth adversarial pass (F2): `-o x.csv` on a disk that filled up
        // halfway left x.csv and one table beside it new and the others old.
        let dir = tempfile::tempdir().unwrap();
        let (a, b, c) = (dir.path().join("x.csv"), dir.path().join("x.roof.csv"), dir.path().join("x.facts.csv"));
        for p in [&a, &b, &c] {
            std::fs::write(p, b"old").unwrap();
        }
        let mut ok = |w: &mut dyn Write| w.write_all(b"new");
        let mut ok2 = |w: &mut dyn Write| w.write_all(b"new");
        let mut full = |w: &mut dyn Write| {
            w.write_all(b"ne")?;
            Err(std::io::Error::from_raw_os_error(libc::ENOSPC))
        };
        let e = write_set(&mut [
            (&a, Links::Follow, &mut ok),
            (&b, Links::Refuse, &mut ok2),
            (&c, Links::Refuse, &mut full),
        ])
        .unwrap_err()
        .to_string();
        assert!(e.contains("x.facts.csv") && e.contains("No space left"), "{e}");
        for p in [&a, &b, &c] {
            assert_eq!(std::fs::read(p).unwrap(), b"old", "{} was replaced", p.display());
        }
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 3, "a temporary file was left: {names:?}");
        // A planted link under a name the tool makes is refused before anything is written.
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, b"keep").unwrap();
        std::fs::remove_file(&b).unwrap();
        std::os::unix::fs::symlink(&outside, &b).unwrap();
        let mut ok3 = |w: &mut dyn Write| w.write_all(b"new");
        let mut ok4 = |w: &mut dyn Write| w.write_all(b"new");
        assert!(write_set(&mut [(&a, Links::Follow, &mut ok3), (&b, Links::Refuse, &mut ok4)]).is_err());
        assert_eq!(std::fs::read(&outside).unwrap(), b"keep");
        assert_eq!(std::fs::read(&a).unwrap(), b"old");
        // All well: all written.
        std::fs::remove_file(&b).unwrap();
        let mut ok5 = |w: &mut dyn Write| w.write_all(b"new");
        let mut ok6 = |w: &mut dyn Write| w.write_all(b"new");
        write_set(&mut [(&a, Links::Follow, &mut ok5), (&b, Links::Refuse, &mut ok6)]).unwrap();
        assert_eq!((std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap()), (b"new".to_vec(), b"new".to_vec()));
    }

    #[test]
    fn output_into_a_missing_folder_says_the_folder_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let e = write_atomic(&dir.path().join("nope/sub/out.json"), b"x").unwrap_err().to_string();
        assert!(e.contains("nope/sub does not exist"), "{e}");
        assert!(!e.contains(".roofline-"), "names the internal temporary file: {e}");
    }

    #[test]
    fn a_dangling_symlink_creates_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("l.json");
        std::os::unix::fs::symlink("t.json", &link).unwrap();
        write_atomic(&link, b"x").unwrap();
        assert_eq!(std::fs::read(dir.path().join("t.json")).unwrap(), b"x");
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    }

    #[test]
    fn a_symlink_loop_is_an_error_not_a_hang() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        std::os::unix::fs::symlink("b", &a).unwrap();
        std::os::unix::fs::symlink("a", dir.path().join("b")).unwrap();
        assert!(write_atomic(&a, b"x").is_err());
    }

    #[test]
    fn proc_links_are_written_through() {
        if !Path::new("/proc/self/fd").exists() {
            let _ = writeln!(std::io::stderr(), "SKIPPED: no /proc");
            return;
        }
        assert!(matches!(resolve(Path::new("/dev/stdout")).unwrap(), Target::Direct(_)));
        assert!(matches!(resolve(Path::new("/proc/self/fd/2")).unwrap(), Target::Direct(_)));
        assert!(matches!(resolve(Path::new("/dev/null")).unwrap(), Target::Direct(_)));
    }

    #[test]
    fn a_fifo_nobody_reads_is_an_error_not_a_hang() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("p");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
        if !made {
            let _ = writeln!(std::io::stderr(), "SKIPPED: mkfifo is not available");
            return;
        }
        let e = write_atomic(&fifo, b"x").unwrap_err().to_string();
        assert!(e.contains("no process is reading"), "{e}");
        assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    }

    #[test]
    fn a_signal_during_an_output_write_removes_the_temp_file() {
        if !cfg!(debug_assertions) {
            // The hold inside the write window (`hold_for_tests`) exists in debug builds only.
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: a_signal_during_an_output_write_removes_the_temp_file needs a debug build (its hold hook is compiled out of release builds)"
            );
            return;
        }
        // The writer runs in a child: this test binary again, on this test,
        // with the target in ROOFLINE_TEST_WRITER.
        if let Some(target) = std::env::var_os("ROOFLINE_TEST_WRITER") {
            write_atomic(Path::new(&target), &vec![b'n'; 8 << 20]).unwrap();
            return;
        }
        for (sig, name) in [(libc::SIGTERM, "SIGTERM"), (libc::SIGINT, "SIGINT"), (libc::SIGHUP, "SIGHUP")] {
            let dir = tempfile::tempdir().unwrap();
            let target = dir.path().join("big.html");
            std::fs::write(&target, "old").unwrap();
            let marker = dir.path().join("held");
            let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
            cmd.args(["--exact", "output_file::tests::a_signal_during_an_output_write_removes_the_temp_file"])
                .env("ROOFLINE_TEST_WRITER", &target)
                .env("ROOFLINE_TEST_HOLD_TEMP_FILE", &marker)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            // The writer starts with the signals' default dispositions: a
            // shell's background job inherits SIGINT ignored, and an ignored
            // signal is left ignored (and this test would see no death by it).
            use std::os::unix::process::CommandExt;
            // SAFETY: pre_exec runs in the forked child before exec; signal()
            // is async-signal-safe.
            unsafe {
                cmd.pre_exec(|| {
                    for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                        libc::signal(s, libc::SIG_DFL);
                    }
                    Ok(())
                });
            }
            let mut child = cmd.spawn().unwrap();
            let t = std::time::Instant::now();
            while !marker.exists() {
                assert!(t.elapsed().as_secs() < 30, "the writer never reached the rename");
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            // SAFETY: signals the child this test started.
            unsafe { libc::kill(child.id() as i32, sig) };
            let status = child.wait().unwrap();
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(status.signal(), Some(sig), "{name}: dies of the signal, as usual");
            let temps: Vec<_> = std::fs::read_dir(dir.path())
                .unwrap()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().to_string())
                .filter(|n| n.starts_with(".roofline-"))
                .collect();
            assert!(temps.is_empty(), "{name} left {temps:?}");
            assert_eq!(std::fs::read_to_string(&target).unwrap(), "old", "{name}: the target is the old file");
        }
    }

    #[test]
    fn a_side_table_name_is_never_written_through_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim.csv");
        std::fs::write(&victim, "precious").unwrap();
        let side = dir.path().join("x.roof.csv");
        std::os::unix::fs::symlink(&victim, &side).unwrap();
        assert!(not_a_plain_file(&side).is_some_and(|w| w.contains("symbolic link")));
        let e = write_atomic_no_follow(&side, b"new").unwrap_err().to_string();
        assert!(e.contains("x.roof.csv") && e.contains("symbolic link"), "{e}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        // An earlier run's table is replaced.
        std::fs::remove_file(&side).unwrap();
        std::fs::write(&side, "old").unwrap();
        assert_eq!(not_a_plain_file(&side), None);
        write_atomic_no_follow(&side, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&side).unwrap(), "new");
    }

    #[test]
    fn mode_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("m");
        std::fs::write(&out, "old").unwrap();
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&out, b"new").unwrap();
        assert_eq!(std::fs::metadata(&out).unwrap().mode() & 0o7777, 0o640);
    }

    #[test]
    fn inputs_are_protected() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        std::fs::write(&a, "x").unwrap();
        let b = dir.path().join("b.json");
        let e = refuse_overwriting_inputs(&[("-o", &a)], &[("FILE", &a)]).unwrap_err().to_string();
        assert!(e.contains("-o") && e.contains("FILE") && e.contains("a.csv"), "{e}");
        assert!(refuse_overwriting_inputs(&[("-o", &b)], &[("FILE", &a)]).is_ok());
        assert!(refuse_overwriting_inputs(&[("-o", &b), ("--svg", &b)], &[]).is_err());
        let dash = Path::new("-");
        assert!(refuse_overwriting_inputs(&[("-o", dash)], &[("FILE", dash)]).is_ok());
        let null = Path::new("/dev/null");
        assert!(refuse_overwriting_inputs(&[("-o", null), ("--svg", null)], &[("FILE", null)]).is_ok());
    }
}
