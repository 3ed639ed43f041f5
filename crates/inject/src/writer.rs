//! The process's record file: one JSON line per record, strings written
//! once and referred to by number, flushed after every CUPTI buffer so that
//! the file always ends close to the last complete line.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use roofline_records::Record;

pub struct Writer {
    out: BufWriter<File>,
    names: HashMap<Vec<u8>, u32>,
    pub records: u64,
    pub path: PathBuf,
    failed: bool,
}

impl Writer {
    /// Creates `<dir>/<pid>.jsonl` (or `<pid>-<n>.jsonl` when a process of
    /// the same pid already wrote one), never overwriting a file.
    pub fn create(dir: &Path, pid: u32) -> std::io::Result<Writer> {
        let mut n = 0u32;
        loop {
            let name = if n == 0 { format!("{pid}.jsonl") } else { format!("{pid}-{n}.jsonl") };
            let path = dir.join(name);
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(f) => {
                    return Ok(Writer {
                        out: BufWriter::with_capacity(1 << 20, f),
                        names: HashMap::new(),
                        records: 0,
                        path,
                        failed: false,
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => n += 1,
                Err(e) => return Err(e),
            }
        }
    }

    /// The number of a string, writing it first if it is new.
    pub fn intern(&mut self, s: &[u8]) -> u32 {
        if let Some(&id) = self.names.get(s) {
            return id;
        }
        let id = self.names.len() as u32 + 1;
        self.names.insert(s.to_vec(), id);
        self.write(&Record::Name { id, s: String::from_utf8_lossy(s).to_string() });
        id
    }

    pub fn write(&mut self, r: &Record) {
        if self.failed {
            return;
        }
        let ok = serde_json::to_writer(&mut self.out, r).is_ok() && self.out.write_all(b"\n").is_ok();
        if ok {
            self.records += 1;
        } else {
            // A full disk: stop writing rather than fail inside the program.
            self.failed = true;
            eprintln!("roofline-inject: could not write {}; the timeline stops here", self.path.display());
        }
    }

    pub fn flush(&mut self) {
        if !self.failed && self.out.flush().is_err() {
            self.failed = true;
        }
    }
}
