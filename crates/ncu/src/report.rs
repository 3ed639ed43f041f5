//! A `.ncu-rep` report read back as the raw CSV, through `ncu --import`.
//!
//! Only ncu can read its own reports, so the report is exported by an owned
//! child (`roofline_child`: a signal to the tool stops ncu too, and nothing
//! is orphaned) into anonymous temporary files, with a time limit: minutes
//! for a report of a long run, never forever.

use std::io::{Read, Seek};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::csv::{read_capture, CsvError, RawCapture};
use crate::runner::find_ncu;

/// How long `ncu --import` may take to export a report.
pub const REPORT_EXPORT_TIMEOUT: Duration = Duration::from_secs(600);

/// Why a report could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The input is wrong or cannot be read as given: the user can fix it.
    #[error("{0}")]
    BadInput(String),
    /// The export itself failed, was stopped or timed out.
    #[error("{0}")]
    Failed(String),
    /// ncu could not be started or waited for.
    #[error(transparent)]
    Child(#[from] roofline_child::ChildError),
}

/// A report's capture, and what ncu said while exporting it.
#[derive(Debug)]
pub struct ExportedReport {
    /// The launches read back, or why the exported CSV could not be read.
    pub capture: Result<RawCapture, CsvError>,
    /// ncu's messages (the last 64 kB), trimmed; empty when it said nothing.
    pub messages: String,
}

/// Reads `path` through `ncu --import ... --csv --page raw --print-units
/// base`, with the ncu at `ncu` or found on PATH and in `$CUDA_HOME/bin`.
pub fn read_report(path: &Path, ncu: Option<&Path>) -> Result<ExportedReport, ReportError> {
    let input = path.display().to_string();
    if !path.is_file() {
        return Err(ReportError::BadInput(format!(
            "{input}: no such file; expected an Nsight Compute report (.ncu-rep)"
        )));
    }
    let ncu = find_ncu(ncu).map_err(|e| {
        ReportError::BadInput(format!(
            "{input} is an Nsight Compute report; reading it needs ncu. {e} Or export it to CSV where ncu is installed: `ncu --import {input} --csv --page raw --print-units base > capture.csv`, then `roofline import capture.csv`"
        ))
    })?;
    let temp =
        |e: std::io::Error| ReportError::Failed(format!("could not make a temporary file for ncu's output: {e}"));
    let (csv, log) = (tempfile::tempfile().map_err(temp)?, tempfile::tempfile().map_err(temp)?);
    let mut cmd = Command::new(&ncu);
    cmd.args(["--import", &input, "--csv", "--page", "raw", "--print-units", "base"])
        .stdin(Stdio::null())
        .stdout(csv.try_clone().map_err(temp)?)
        .stderr(log.try_clone().map_err(temp)?);
    let limits = roofline_child::Limits { timeout: Some(REPORT_EXPORT_TIMEOUT), ..Default::default() };
    let outcome = roofline_child::spawn(cmd)?.wait(&limits, |_| {})?;
    match outcome.ending {
        roofline_child::Ending::Interrupted { signal } => {
            return Err(ReportError::Failed(format!(
                "{} --import {input} was stopped by {} to roofline: nothing was imported",
                ncu.display(),
                roofline_child::signal_name(signal)
            )))
        }
        roofline_child::Ending::TimedOut => {
            return Err(ReportError::Failed(format!(
                "{} --import {input} had not finished after {} s and was stopped: nothing was imported; export the report where it was recorded: `ncu --import {input} --csv --page raw --print-units base > capture.csv`",
                ncu.display(),
                REPORT_EXPORT_TIMEOUT.as_secs()
            )))
        }
        roofline_child::Ending::Finished => {}
    }
    let rewound = |mut f: std::fs::File| f.rewind().map(|_| f);
    // ncu's messages are kept (the last 64 kB) to say why an export failed.
    let mut messages = String::new();
    if let Ok(mut f) = rewound(log) {
        let mut tail = Vec::new();
        let _ = f.read_to_end(&mut tail);
        let from = tail.len().saturating_sub(65536);
        messages = String::from_utf8_lossy(&tail[from..]).into_owned();
    }
    let messages = messages.trim().to_string();
    let status = outcome.status;
    let csv = rewound(csv).map_err(temp)?;
    if status.success() && csv.metadata().map(|m| m.len()).unwrap_or(0) == 0 {
        return Err(ReportError::Failed(format!(
            "{} --import {input} exited normally but printed no CSV; check that this ncu can read the report, or export it to CSV where it was recorded: `ncu --import {input} --csv --page raw --print-units base > capture.csv`",
            ncu.display()
        )));
    }
    let cap = read_capture(csv, &input);
    if !status.success() {
        let said = if messages.is_empty() {
            String::from(" and printed nothing")
        } else {
            format!(
                ": {}",
                messages.lines().rev().take(5).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join(" | ")
            )
        };
        return Err(ReportError::Failed(format!(
            "{} --import {input} failed ({status}){said}; check that the report was written completely and by an Nsight Compute this version can read, or export it to CSV where it was recorded: `ncu --import {input} --csv --page raw --print-units base > capture.csv`",
            ncu.display()
        )));
    }
    Ok(ExportedReport { capture: cap, messages })
}
