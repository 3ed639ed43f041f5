//! Exit codes and the way errors are printed.
//!
//! 0: success; 1: a failure (a check failed, a GPU run broke, an output
//! could not be written, stdout was closed); 2: bad usage or bad input (the
//! user can fix it). Errors print on stderr as "error: ..." with their
//! causes, never as a panic. A broken stdout pipe (`| head`) is a clean exit.

use std::process::ExitCode;

/// Marks an error as the user's input being wrong: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadInput(pub String);

/// Wraps any error as bad input.
pub fn bad_input(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::Error::new(BadInput(e.to_string()))
}

fn is_bad_input(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.is::<BadInput>()
            || c.is::<roofline_documents::EstimateError>()
            || c.is::<roofline_documents::DocumentError>()
            || c.is::<roofline_model::ParseQuantityError>()
            || c.is::<roofline_hw::PeaksError>()
    })
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}

/// Prints the error and returns its exit code.
pub fn report(e: &anyhow::Error) -> ExitCode {
    if is_broken_pipe(e) {
        return ExitCode::SUCCESS;
    }
    let mut text = format!("error: {e}");
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !text.contains(&c) {
            text.push_str(&format!("\n  caused by: {c}"));
        }
    }
    crate::streams::message(&text);
    if is_bad_input(e) {
        ExitCode::from(2)
    } else {
        ExitCode::from(1)
    }
}
