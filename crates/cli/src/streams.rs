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
    let mut printable: String = text.chars().map(|c| if escaped(c) { '\u{FFFD}' } else { c }).collect();
    if let Some(width) = stderr_width() {
        // The visible prefix ("warning: ") without its colour codes.
        let shown = prefix.split('\x1b').map(|p| p.split_once('m').map_or(p, |(_, t)| t)).collect::<String>();
        printable = wrap_words(&printable, width, shown.chars().count());
    }
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(prefix.as_bytes());
    let _ = err.write_all(printable.as_bytes());
    let _ = err.write_all(b"\n");
    let _ = err.flush();
}

/// The width messages are wrapped to: a terminal's (COLUMNS, else its
/// size); into a pipe or a file none, so that a log keeps whole lines.
fn stderr_width() -> Option<usize> {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let columns = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok());
    columns
        .or_else(|| terminal_size::terminal_size_of(std::io::stderr()).map(|(w, _)| usize::from(w.0)))
        .filter(|w| *w >= 40)
}

/// `text` with each line longer than `width` broken at spaces, never inside
/// a word (a terminal's own wrap cuts words anywhere), later parts indented
/// by two spaces; the first line starts `first` columns in (after a
/// prefix). A word longer than the line stays whole.
fn wrap_words(text: &str, width: usize, first: usize) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut col = if i == 0 { first } else { 0 };
        let mut fresh = true;
        for word in line.split(' ') {
            let len = word.chars().count();
            if !fresh && col + 1 + len > width {
                out.push_str("\n  ");
                col = 2;
            } else if !fresh {
                out.push(' ');
                col += 1;
            }
            out.push_str(word);
            col += len;
            fresh = false;
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::wrap_words;

    #[test]
    fn messages_break_between_words_on_a_terminal() {
        let banner = "Showing the bundled data of an NVIDIA H200 (132 SMs, driver 580.159.04, CUDA 13.0), measured on 2026-12-02";
        let wrapped = wrap_words(banner, 80, 0);
        assert!(wrapped.lines().all(|l| l.chars().count() <= 80), "{wrapped}");
        assert_eq!(wrapped.replace("\n  ", " "), banner);
        assert!(wrapped.lines().nth(1).is_some_and(|l| l.starts_with("  ")), "{wrapped}");
        // After a prefix ("warning: "), the first line has less room.
        let w = wrap_words("aaaa bbbb", 14, 9);
        assert_eq!(w, "aaaa\n  bbbb");
        // A word longer than the line stays whole; short lines are kept.
        assert_eq!(wrap_words("x /a/very/long/path/name", 10, 0), "x\n  /a/very/long/path/name");
        assert_eq!(wrap_words("one\ntwo", 80, 0), "one\ntwo");
    }
}
