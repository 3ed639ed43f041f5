//! The standard streams, written so that nothing is lost and nothing panics.
//!
//! - Messages go to stderr through [`message`], which ignores every write
//!   error: a closed pipe (`2>&1 | head -1`), a full disk or a terminal that
//!   went away must not kill a run whose `-o` file is not written yet
//!   (`eprintln!` panics on such errors; clippy forbids it in this crate).
//! - Data go to stdout through [`data`]. A broken pipe (`| head`) ends the
//!   run cleanly (exit 0, as ripgrep does: the reader asked for no more);
//!   any other error is a failure.
//! - A stdout that was closed before the tool started (`>&-`) is detected:
//!   Rust reopens a closed stdout on /dev/null before `main`, which would
//!   turn lost results into a silent success. On Linux a constructor that
//!   runs before Rust's start-up code records whether fd 1 was open; data
//!   written to a closed stdout is then an error (exit 1), after any `-o`
//!   file has been written.

use std::io::Write;

use anyhow::Context;
use std::sync::atomic::{AtomicBool, Ordering};

static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

#[cfg(target_os = "linux")]
mod closed_at_start {
    use std::sync::atomic::Ordering;

    /// Runs from `.init_array`, before Rust's runtime reopens closed
    /// standard streams on /dev/null.
    extern "C" fn record() {
        // SAFETY: fcntl(F_GETFD) only queries the descriptor table.
        if unsafe { libc::fcntl(1, libc::F_GETFD) } == -1 {
            super::STDOUT_CLOSED.store(true, Ordering::SeqCst);
        }
    }

    #[used]
    #[link_section = ".init_array"]
    static RECORD: extern "C" fn() = record;
}

/// Whether stdout was closed when the tool started (Linux only).
pub fn stdout_was_closed() -> bool {
    STDOUT_CLOSED.load(Ordering::SeqCst)
}

/// Writes a message line on stderr; errors are ignored (there is nowhere
/// left to report them).
pub fn message(text: &str) {
    styled("", text);
}

/// Writes `prefix` as it is (a colour code) and then `text` made printable
/// on stderr: messages quote what came from inputs (file and kernel names,
/// ncu's lines), and a terminal must not obey an escape sequence planted
/// there. Control characters other than line breaks and tabs, and the
/// bidirectional controls (which reorder what a terminal shows), become
/// U+FFFD.
pub fn styled(prefix: &str, text: &str) {
    let printable: String = text.chars().map(|c| if escaped(c) { '\u{FFFD}' } else { c }).collect();
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(prefix.as_bytes());
    let _ = err.write_all(printable.as_bytes());
    let _ = err.write_all(b"\n");
    let _ = err.flush();
}

/// Whether a character of a message is shown as U+FFFD.
pub fn escaped(c: char) -> bool {
    (c.is_control() && !matches!(c, '\n' | '\t')) || roofline_model::is_bidi_control(c)
}

/// Standard output is closed: the data had nowhere to go.
/// It holds what was lost ("1234 bytes of results", "the JSON document").
#[derive(Debug, thiserror::Error)]
#[error("standard output is closed (`>&-`): {0} could not be written; redirect it to a file (`> FILE`) or to /dev/null, or use -o FILE")]
pub struct StdoutClosed(pub String);

/// Writes data on stdout as `body` makes it (a large JSON document,
/// serialized straight onto stdout).
pub fn data_with(body: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>) -> anyhow::Result<()> {
    if stdout_was_closed() {
        return Err(StdoutClosed("the JSON document".into()).into());
    }
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    body(&mut out).and_then(|()| out.flush()).context("standard output: the results could not be written whole")
}

/// Writes data on stdout.
pub fn data(text: &str) -> anyhow::Result<()> {
    if stdout_was_closed() && !text.is_empty() {
        return Err(StdoutClosed(format!("{} bytes of results", text.len())).into());
    }
    let mut out = std::io::stdout().lock();
    // Named: "No space left on device" alone does not say which file.
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .with_context(|| format!("standard output: {} bytes of results could not be written", text.len()))
}
