//! Faults and bad input: each test is one reported problem, made from a real
//! H200 capture altered the way real files go wrong.

use std::path::PathBuf;

use roofline_model::Warning;
use roofline_model::{FlopKind, MemLevel};
mod common;
use common::{analyse, Analysis, Options};
use roofline_ncu::{read_capture, CsvError};

fn fixture_text(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/ncu").join(name);
    std::fs::read_to_string(p).unwrap()
}

/// Preamble, header, units and rows of a capture.
struct Table {
    preamble: String,
    header: Vec<String>,
    units: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn parse(text: &str) -> Table {
        let start = text.find("\"ID\"").unwrap();
        let mut r = csv::ReaderBuilder::new().has_headers(false).from_reader(&text.as_bytes()[start..]);
        let mut recs = r.records().map(|r| r.unwrap().iter().map(str::to_string).collect::<Vec<_>>());
        let header = recs.next().unwrap();
        let units = recs.next().unwrap();
        Table { preamble: text[..start].to_string(), header, units, rows: recs.collect() }
    }

    fn col(&self, name: &str) -> usize {
        self.header.iter().position(|c| c == name).unwrap_or_else(|| panic!("no {name}"))
    }

    fn remove(&mut self, name: &str) {
        let i = self.col(name);
        self.header.remove(i);
        self.units.remove(i);
        for r in &mut self.rows {
            r.remove(i);
        }
    }

    fn text(&self) -> String {
        let mut w = csv::WriterBuilder::new().quote_style(csv::QuoteStyle::Always).from_writer(Vec::new());
        w.write_record(&self.header).unwrap();
        w.write_record(&self.units).unwrap();
        for r in &self.rows {
            w.write_record(r).unwrap();
        }
        format!("{}{}", self.preamble, String::from_utf8(w.into_inner().unwrap()).unwrap())
    }
}

fn analyse_text(text: &[u8]) -> Analysis {
    let cap = read_capture(text, "test.csv").unwrap();
    analyse(&cap, &Options::default())
}

fn assert_all_finite(a: &Analysis) {
    for k in &a.kernels {
        let opts =
            [k.achieved_flops_per_s, k.pct_of_roof, k.attainable_flops_per_s, k.time_share, k.compute_roof_flops_per_s];
        for v in opts.iter().flatten() {
            assert!(v.is_finite(), "{}: {v}", k.kernel.name);
        }
        assert!(k.total_flops.is_finite());
        for p in &k.levels {
            for v in
                [p.intensity, p.achieved_bytes_per_s, p.pct_of_bandwidth, p.attainable_flops_per_s].iter().flatten()
            {
                assert!(v.is_finite(), "{}: {:?}", k.kernel.name, p);
            }
            assert!(p.bytes.is_finite());
        }
    }
    // serde_json writes a NaN or an infinity as null, so the JSON cannot
    // show one; Debug prints every float of the analysis as it is.
    let text = format!("{:?}", a.kernels);
    for bad in ["NaN", "inf", "-inf"] {
        for (before, after) in [(": ", ","), (": ", " }"), ("(", ")"), ("[", ","), (", ", ","), (", ", "]")] {
            let token = format!("{before}{bad}{after}");
            assert!(!text.contains(&token), "{token} in the analysis");
        }
    }
}

#[test]
fn a_missing_metric_is_named_with_what_it_blocks_and_the_rest_is_analysed() {
    let mut t = Table::parse(&fixture_text("h200_seed000_metrics.csv"));
    t.remove("dram__bytes.sum");
    t.remove("smsp__sass_thread_inst_executed_op_dfma_pred_on.sum");
    let a = analyse_text(t.text().as_bytes());
    let missing = a
        .warnings
        .iter()
        .find_map(|w| match w {
            Warning::MissingMetrics { missing } => Some(missing.clone()),
            _ => None,
        })
        .expect("a missing_metrics warning");
    let blocked =
        |metric: &str| missing.iter().find(|m| m.metrics.iter().any(|x| x == metric)).map(|m| m.blocks.clone());
    assert_eq!(blocked("dram__bytes.sum").as_deref(), Some("the DRAM point"));
    assert_eq!(blocked("smsp__sass_thread_inst_executed_op_dfma_pred_on.sum").as_deref(), Some("FP64 FLOPs"));
    assert_eq!(blocked("lts__lts2xbar_cycles_active.sum"), None, "present metrics are not reported");
    let w = a.warnings.iter().map(|w| w.to_string()).collect::<Vec<_>>().join("\n");
    assert!(w.contains("dram__bytes.sum") && w.contains("the DRAM point"), "{w}");
    assert!(w.contains("smsp__sass_thread_inst_executed_op_dfma_pred_on.sum") && w.contains("FP64 FLOPs"), "{w}");
    assert!(!w.contains("lts__lts2xbar_cycles_active.sum or"), "present metrics are not reported: {w}");
    let vecadd = a.kernels.iter().find(|k| k.kernel.name == "vecadd").unwrap();
    assert!(vecadd.level(MemLevel::Dram).is_none());
    assert!(vecadd.level(MemLevel::L2).is_some());
    assert!(vecadd.pct_of_roof.is_some());
}

#[test]
fn a_file_cut_short_keeps_the_skip_before_match_the_cut() {
    let text = fixture_text("h200_seed000_metrics.csv");
    let cut = &text.as_bytes()[..text.len() * 6 / 10];
    let cap = read_capture(cut, "cut.csv").unwrap();
    assert!(cap.launches.len() >= 10 && cap.launches.len() < 24, "{}", cap.launches.len());
    assert!(cap.warnings.iter().any(|w| w.contains("fewer columns")), "{:?}", cap.warnings);
    assert_all_finite(&analyse(&cap, &Options::default()));
}

#[test]
fn na_values_garbage_and_non_utf8_bytes_are_tolerated() {
    let mut t = Table::parse(&fixture_text("h200_seed000_metrics.csv"));
    let d = t.col("dram__bytes.sum");
    t.rows[0][d] = "n/a".into();
    let f = t.col("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum");
    t.rows[1][f] = "garbled".into();
    let mut bytes = t.text().into_bytes();
    // A kernel name with bytes that are not UTF-8.
    let pos = bytes.windows(8).position(|w| w == b"\"saxpy\",").unwrap();
    bytes[pos + 2] = 0xff;
    let cap = read_capture(&bytes[..], "garbled.csv").unwrap();
    assert_eq!(cap.launches.len(), 24);
    assert_eq!(cap.launches[0].get(roofline_ncu::Slot::DramBytes), None);
    assert!(cap.launches[2].kernel_name.contains('\u{fffd}'));
    assert!(cap.warnings.iter().any(|w| w.contains("\"garbled\" is not a number")), "{:?}", cap.warnings);
    assert_all_finite(&analyse(&cap, &Options::default()));
}

/// Hardening (issue 27), items 3 and 5: a decimal comma (`58784,5` ns) was
/// read as a thousands separator (ten times too long), and `1e400` was "not
/// a number; treated as absent" while `1e31` was refused. One grammar now:
/// a field of digits, commas, points and exponents is a number or an error
/// naming line, column and value.
#[test]
fn numbers_are_read_with_one_strict_grammar() {
    let base = Table::parse(&fixture_text("h200_seed000_metrics.csv"));
    let col = base.col("gpu__time_duration.sum");
    for (raw, says) in [
        ("58784,5", "LC_NUMERIC=C"),
        ("1.234,5", "LC_NUMERIC=C"),
        ("58,78", "LC_NUMERIC=C"),
        ("5878,400", "LC_NUMERIC=C"),
        ("1e400", "out of range"),
        ("-1e400", "out of range"),
        ("1.2.3", "not a number"),
        ("1e", "not a number"),
    ] {
        let mut t = Table::parse(&fixture_text("h200_seed000_metrics.csv"));
        t.rows[3][col] = raw.into();
        let e = read_capture(t.text().as_bytes(), "cap.csv").unwrap_err().to_string();
        assert!(e.contains(says), "{raw}: {e}");
        assert!(e.contains("cap.csv") && e.contains("line ") && e.contains(&format!("column {}", col + 1)), "{e}");
        assert!(e.contains("gpu__time_duration.sum") && e.contains(raw), "{raw}: {e}");
    }
    // ncu's own spellings still read.
    for (raw, v) in [("3,209,127,424", 3209127424.0), ("58784.5", 58784.5), ("1.5e3", 1500.0), (" 12 ", 12.0)] {
        assert_eq!(roofline_ncu::read_number(raw.as_bytes()), Ok(Some(v)), "{raw}");
    }
}

#[test]
fn zero_duration_and_zero_bytes_give_no_nan_or_inf() {
    let mut t = Table::parse(&fixture_text("h200_seed000_metrics.csv"));
    for name in ["gpu__time_duration.sum", "dram__bytes.sum", "lts__lts2xbar_cycles_active.sum"] {
        let c = t.col(name);
        for r in &mut t.rows {
            r[c] = "0".into();
        }
    }
    let a = analyse_text(t.text().as_bytes());
    assert_all_finite(&a);
    assert!(a.warnings.iter().any(|w| matches!(w, Warning::NoDuration { launches: 24 })), "{:?}", a.warnings);
    assert!(a.kernels.iter().all(|k| k.achieved_flops_per_s.is_none()));
}

#[test]
fn counter_permission_error_is_explained_with_the_fix() {
    let text = "==PROF== Connected to process 1234 (/app)\n==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0. For instructions on enabling permissions and to get more information see https://developer.nvidia.com/ERR_NVGPUCTRPERM\n==PROF== Disconnected from process 1234\n";
    let e = read_capture(text.as_bytes(), "app.csv").unwrap_err();
    assert!(matches!(e, CsvError::CounterPermission { .. }));
    let msg = e.to_string();
    assert!(msg.contains("NVreg_RestrictProfilingToAdminUsers=0") && msg.contains("sudo"), "{msg}");
}

#[test]
fn scaled_units_without_separators_give_the_same_points() {
    let base = Table::parse(&fixture_text("h200_seed000_metrics.csv"));
    let mut t = Table::parse(&fixture_text("h200_seed000_metrics.csv"));
    // What ncu prints without --print-units base, and with no thousands separators.
    for (i, unit) in base.units.iter().enumerate() {
        let (new_unit, div) = match unit.as_str() {
            "byte" => ("Mbyte", 1e6),
            "ns" => ("usecond", 1e3),
            "hz" => ("Ghz", 1e9),
            _ => continue,
        };
        t.units[i] = new_unit.into();
        for r in &mut t.rows {
            if let Ok(v) = r[i].replace(',', "").parse::<f64>() {
                r[i] = format!("{}", v / div);
            }
        }
    }
    for r in &mut t.rows {
        for v in r.iter_mut() {
            if v.chars().all(|c| c.is_ascii_digit() || c == ',' || c == '.') {
                *v = v.replace(',', "");
            }
        }
    }
    let a = analyse_text(base.text().as_bytes());
    let b = analyse_text(t.text().as_bytes());
    assert_eq!(a.kernels.len(), b.kernels.len());
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * x.abs().max(y.abs());
    for (x, y) in a.kernels.iter().zip(&b.kernels) {
        assert_eq!(x.kernel.flops, y.kernel.flops);
        for (l, v) in &x.kernel.bytes {
            assert!(close(*v, y.kernel.bytes[l]), "{l:?}");
        }
        assert!(close(x.kernel.duration_s.unwrap(), y.kernel.duration_s.unwrap()));
        assert!(close(x.pct_of_roof.unwrap(), y.pct_of_roof.unwrap()));
    }
}

#[test]
fn kernels_of_several_processes_devices_and_streams_stay_apart() {
    let mut t = Table::parse(&fixture_text("h200_seed000_exit3.csv"));
    let (pid, dev, stream) = (t.col("Process ID"), t.col("Device"), t.col("Stream"));
    let mut extra = t.rows.clone();
    for r in &mut extra {
        r[pid] = "999".into();
        r[dev] = "1".into();
    }
    let mut third = t.rows[0].clone();
    third[stream] = "13".into();
    t.rows.extend(extra);
    t.rows.push(third);
    let a = analyse_text(t.text().as_bytes());
    assert_eq!(a.kernels.len(), 5);
    let names: Vec<&str> = a.kernels.iter().map(|k| k.kernel.display_name.as_str()).collect();
    assert!(names.iter().any(|n| n.contains("pid 999") && n.contains("dev 1")), "{names:?}");
    assert!(names.iter().any(|n| n.contains("stream 13")), "{names:?}");
    let mut ids: Vec<&str> = a.kernels.iter().map(|k| k.kernel.id.as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 5, "short IDs stay distinct");
    assert!(a.kernels.iter().all(|k| k.kernel.name == "vecadd" || k.kernel.name == "saxpy"));
}

#[test]
fn the_details_page_is_recognised() {
    let text = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n\"0\",\"1\",\"a\",\"h\",\"k\",\"1\",\"7\",\"(256, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"SOL\",\"Duration\",\"ns\",\"1,000\"\n";
    let e = read_capture(text.as_bytes(), "details.csv").unwrap_err();
    assert!(e.to_string().contains("--page raw"), "{e}");
}

#[test]
fn a_capture_without_launches_says_what_was_expected() {
    let e = read_capture(&b""[..], "empty.csv").unwrap_err();
    assert!(e.to_string().contains("empty"), "{e}");
    let text = "==PROF== Connected to process 5 (/app)\nhello from the app\n==PROF== Disconnected from process 5\n";
    let e = read_capture(text.as_bytes(), "nokernels.csv").unwrap_err().to_string();
    assert!(e.contains("filters"), "{e}");
    let t = Table::parse(&fixture_text("h200_seed000_exit3.csv"));
    let header_only = Table { rows: vec![], ..t };
    let e = read_capture(header_only.text().as_bytes(), "h.csv").unwrap_err().to_string();
    assert!(e.contains("no launch row"), "{e}");
}

#[test]
fn tensor_work_of_a_gemm_capture_is_split_per_input_type() {
    let a = analyse_text(fixture_text("h200_gemms_metrics.csv").as_bytes());
    let kinds: Vec<Option<FlopKind>> = a.kernels.iter().map(|k| k.kernel.dominant_kind()).collect();
    assert_eq!(
        kinds,
        [Some(FlopKind::TensorBf16), Some(FlopKind::TensorFp16), Some(FlopKind::Fp32), Some(FlopKind::TensorFp64)]
    );
    assert_eq!(a.kernels[2].kernel.display_name, "cutlass::Kernel2<…>");
    assert!(a.kernels[2].kernel.name.starts_with("void cutlass::Kernel2<cutlass_80_simt_sgemm"));
}

/// An endless stream of one byte, for memory-bound checks.
struct Endless(u8);

impl std::io::Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        buf.fill(self.0);
        Ok(buf.len())
    }
}

#[test]
fn a_binary_input_is_refused_at_once() {
    let e = read_capture(Endless(0), "/dev/zero").unwrap_err();
    assert!(matches!(e, CsvError::Binary { line: 1, .. }), "{e}");
    assert!(e.to_string().contains("/dev/zero") && e.to_string().contains("binary"), "{e}");
    // After a good header, binary data stops the read with the launches so far kept.
    let mut text = fixture_text("h200_seed000_exit3.csv").into_bytes();
    text.extend_from_slice(b"\0\0\0garbage\n");
    let cap = read_capture(&text[..], "tail.csv").unwrap();
    assert_eq!(cap.launches.len(), 2);
    assert!(cap.warnings.iter().any(|w| w.contains("binary")), "{:?}", cap.warnings);
}

#[test]
fn a_line_without_an_end_is_refused_with_bounded_memory() {
    let e = read_capture(Endless(b'a'), "endless.csv").unwrap_err();
    assert!(matches!(e, CsvError::LineTooLong { line: 1, .. }), "{e}");
    let header = fixture_text("h200_seed000_exit3.csv");
    let cap = read_capture(std::io::Read::chain(header.as_bytes(), Endless(b'7')), "endless.csv").unwrap();
    assert_eq!(cap.launches.len(), 2);
    assert!(cap.warnings.iter().any(|w| w.contains("line 9, longer than")), "{:?}", cap.warnings);
}

#[test]
fn a_duration_below_one_nanosecond_enters_no_rate_and_is_named() {
    let base = Table::parse(&fixture_text("h200_seed000_metrics.csv"));
    let d = base.col("gpu__time_duration.sum");
    assert_eq!(base.units[d], "ns", "the fixture's time unit");
    let with_first = |value: &str| {
        let mut t = Table::parse(&fixture_text("h200_seed000_metrics.csv"));
        t.rows[0][d] = value.into();
        analyse_text(t.text().as_bytes())
    };
    let below = |a: &Analysis| {
        a.warnings.iter().find_map(|w| match w {
            Warning::DurationBelowFloor { metric, launches, examples, .. } => {
                Some((metric.clone(), *launches, examples.clone()))
            }
            _ => None,
        })
    };
    // The adversarial case: 1e-6 ns made "135% of the DRAM roof".
    let a = with_first("0.000001");
    assert_all_finite(&a);
    let (metric, launches, examples) = below(&a).unwrap_or_else(|| panic!("{:?}", a.warnings));
    assert_eq!((metric.as_str(), launches), ("gpu__time_duration.sum", 1));
    assert!(!examples[0].kernel.is_empty() && examples[0].line > 0, "{examples:?}");
    let text = a.warnings.iter().map(|w| w.text()).collect::<Vec<_>>().join("\n");
    assert!(text.contains(&format!("line {}", examples[0].line)) && text.contains(&examples[0].kernel), "{text}");
    // Left out of its kernel's rates, as a zero duration is.
    assert!(a.warnings.iter().any(|w| matches!(w, Warning::PartlyTimed { .. })), "{:?}", a.warnings);
    for k in &a.kernels {
        for p in &k.levels {
            assert!(p.pct_of_bandwidth.is_none_or(|pct| pct < 120.0), "{}: {:?}", k.kernel.display_name, p);
        }
    }
    // The floor is 1 ns: 0.9 ns is below it, 1 ns (what ncu prints) is not.
    assert!(below(&with_first("0.9")).is_some());
    assert!(below(&with_first("1")).is_none());
}

#[test]
fn a_point_far_above_its_roof_gets_a_warning_naming_it() {
    let clean = analyse_text(fixture_text("h200_seed000_metrics.csv").as_bytes());
    assert!(!clean.warnings.iter().any(|w| matches!(w, Warning::AboveRoof { .. })), "a real capture is plausible");
    // Every duration 100 times too short (a wrong unit): bytes per second
    // go 100 times over, far above any roof.
    let mut t = Table::parse(&fixture_text("h200_seed000_metrics.csv"));
    let d = t.col("gpu__time_duration.sum");
    for r in &mut t.rows {
        let v: f64 = r[d].replace(',', "").parse().unwrap();
        r[d] = format!("{}", v / 100.0);
    }
    let a = analyse_text(t.text().as_bytes());
    let w = a
        .warnings
        .iter()
        .find(|w| matches!(w, Warning::AboveRoof { .. }))
        .unwrap_or_else(|| panic!("{:?}", a.warnings));
    let Warning::AboveRoof { limit_pct, points } = w else { unreachable!() };
    assert_eq!(*limit_pct, 150.0);
    assert!(points.iter().any(|p| p.roof == "DRAM bandwidth" && p.pct > 150.0), "{points:?}");
    let text = w.text();
    assert!(text.contains("% of the DRAM bandwidth roof") && text.contains("wrong unit"), "{text}");
}

#[test]
fn a_row_broken_by_a_newline_is_refused_naming_its_line_not_read_as_a_kernel() {
    let text = Table::parse(&fixture_text("h200_seed000_metrics.csv")).text();
    let width = Table::parse(&text).header.len();
    // The fourth launch row, broken after its tenth field.
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let header = lines.iter().position(|l| l.starts_with("\"ID\"")).unwrap();
    let row = header + 2 + 3;
    let cut = lines[row].match_indices("\",\"").nth(9).unwrap().0 + 1;
    let (a, b) = lines[row].split_at(cut);
    let (a, b) = (a.to_string(), b[1..].to_string());
    lines[row] = a;
    lines.insert(row + 1, b);
    let broken = lines.join("\n") + "\n";
    let e = read_capture(broken.as_bytes(), "split.csv").unwrap_err();
    assert!(
        matches!(e, CsvError::RowWidth { line, found: 10, expected, .. } if line == row as u64 + 1 && expected == width),
        "{e:?}"
    );
    let msg = e.to_string();
    assert!(msg.contains(&format!("line {}", row + 1)) && msg.contains(&format!("header has {width}")), "{msg}");
    // The same fragment as the last row is a capture cut short: the rest is kept.
    let cut_at_end = lines[..=row].join("\n") + "\n";
    let cap = read_capture(cut_at_end.as_bytes(), "cut.csv").unwrap();
    assert_eq!(cap.launches.len(), 3);
    assert!(
        cap.warnings.iter().any(|w| w.contains(&format!("line {}", row + 1)) && w.contains("cut short")),
        "{:?}",
        cap.warnings
    );
}

#[test]
fn a_byte_column_in_sectors_is_refused_naming_the_column_and_the_unit() {
    for unit in ["sector", "Ksector", "inst", "cycle"] {
        let mut t = Table::parse(&fixture_text("h200_seed000_metrics.csv"));
        let d = t.col("dram__bytes.sum");
        t.units[d] = unit.into();
        let e = read_capture(t.text().as_bytes(), "units.csv").unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, CsvError::Unit { .. }), "{unit}: {e:?}");
        assert!(
            msg.contains("dram__bytes.sum") && msg.contains(&format!("{unit:?}")) && msg.contains("Kbyte"),
            "{msg}"
        );
    }
    // Byte units still read, with their scale.
    let mut t = Table::parse(&fixture_text("h200_seed000_metrics.csv"));
    let d = t.col("dram__bytes.sum");
    t.units[d] = "Kbyte".into();
    assert!(read_capture(t.text().as_bytes(), "kbyte.csv").is_ok());
}

/// Hardening (issue 27), item 3: an instruction or cycle counter took a
/// byte, percent or sector unit and was scaled by it (`Kbyte` multiplied
/// the FLOPs by 1,000).
#[test]
fn counter_columns_take_only_units_of_their_kind() {
    for (column, unit) in [
        ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "Kbyte"),
        ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "%"),
        ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "Ksector"),
        ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "Mcycle"),
        ("sm__cycles_elapsed.avg", "Kbyte"),
        ("sm__cycles_elapsed.avg", "Kinst"),
    ] {
        let mut t = Table::parse(&fixture_text("h200_seed000_metrics.csv"));
        let Some(c) = t.header.iter().position(|h| h == column) else { continue };
        t.units[c] = unit.into();
        let e = read_capture(t.text().as_bytes(), "cap.csv").unwrap_err().to_string();
        assert!(e.contains(column) && e.contains(unit) && e.contains("does not count"), "{column} in {unit}: {e}");
    }
    // Units of the counter's own kind still scale it.
    let mut t = Table::parse(&fixture_text("h200_seed000_metrics.csv"));
    let c = t.col("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum");
    t.units[c] = "Kinst".into();
    assert!(read_capture(t.text().as_bytes(), "cap.csv").is_ok());
}

/// Hardening (issue 27), item 3: a clock column in `khz` holding Hz values
/// gave a 1,977 GHz SM clock, roofs 1,000 times too high, with no warning.
#[test]
fn clocks_outside_their_physical_range_are_refused() {
    for (column, unit) in [
        ("sm__cycles_elapsed.avg.per_second", "khz"),
        ("dram__cycles_elapsed.avg.per_second", "khz"),
        ("sm__cycles_elapsed.avg.per_second", "Mhz"),
    ] {
        let mut t = Table::parse(&fixture_text("h200_seed000_metrics.csv"));
        let c = t.col(column);
        t.units[c] = unit.into();
        let e = read_capture(t.text().as_bytes(), "cap.csv").unwrap_err().to_string();
        assert!(e.contains(column) && e.contains("cannot be") && e.contains("GHz"), "{column} in {unit}: {e}");
    }
    // The maximum clock's kHz column holding Hz.
    let mut t = Table::parse(&fixture_text("h200_seed000_metrics.csv"));
    let c = t.col("device__attribute_max_gpu_frequency_khz");
    for r in &mut t.rows {
        r[c] = "1,980,000,000".into();
    }
    let e = read_capture(t.text().as_bytes(), "cap.csv").unwrap_err().to_string();
    assert!(e.contains("device__attribute_max_gpu_frequency_khz") && e.contains("1980 GHz"), "{e}");
    // Hz read as GHz: a clock of 2 Hz.
    let mut t = Table::parse(&fixture_text("h200_seed000_metrics.csv"));
    let c = t.col("sm__cycles_elapsed.avg.per_second");
    for r in &mut t.rows {
        r[c] = "1.97".into();
    }
    let e = read_capture(t.text().as_bytes(), "cap.csv").unwrap_err().to_string();
    assert!(e.contains("cannot be an SM clock"), "{e}");
}

/// Hardening (issue 27), item 3: a column given twice was resolved
/// silently (the first one taken).
#[test]
fn a_column_given_twice_is_refused_naming_it() {
    let mut t = Table::parse(&fixture_text("h200_seed000_metrics.csv"));
    let c = t.col("gpu__time_duration.sum");
    t.header.push(t.header[c].clone());
    t.units.push(t.units[c].clone());
    for r in &mut t.rows {
        let v = r[c].clone();
        r.push(format!("{v}0"));
    }
    let e = read_capture(t.text().as_bytes(), "cap.csv").unwrap_err().to_string();
    assert!(e.contains("gpu__time_duration.sum") && e.contains("twice"), "{e}");
    assert!(e.contains(&format!("columns {} and {}", c + 1, t.header.len())), "{e}");
}

/// A bad value in any kind of column the reader reads (a slot, a per-second
/// rate, tensor operations and their peak, a stall reason, a pipe) is
/// refused naming that column and the value, and of two bad values in one
/// row the first the reader reads is the one named: slots, tensor kinds,
/// stalls, then pipes.
#[test]
fn a_bad_value_in_any_column_read_is_named_with_its_column() {
    for (fixture, column, raw, says) in [
        ("h200_seed000_metrics.csv", "gpu__time_duration.sum", "-5", "a counter cannot be negative"),
        ("h200_seed000_metrics.csv", "gpu__time_duration.sum", "1e31", "above 1e30"),
        ("h200_seed000_metrics.csv", "dram__bytes.sum", "1.2.3", "not a number"),
        ("h200_seed000_metrics.csv", "sm__ops_path_tensor_src_fp16.sum", "-1", "a counter cannot be negative"),
        ("h200_seed000_metrics.csv", "sm__ops_path_tensor_src_fp16.sum", "58784,5", "LC_NUMERIC=C"),
        ("h200_seed000_metrics.csv", "sm__ops_path_tensor_src_fp16.sum.peak_sustained", "-2", "cannot be negative"),
        (
            "h200_seed000_metrics.csv",
            "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
            "-0.5",
            "cannot be negative",
        ),
        ("h200_seed000_full.csv", "derived__lts__lts2xbar_bytes.sum.per_second", "-4", "cannot be negative"),
        ("h200_seed000_full.csv", "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active", "-3", "negative"),
        ("h200_seed000_full.csv", "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active", "1e", "not a number"),
    ] {
        let mut t = Table::parse(&fixture_text(fixture));
        let c = t.col(column);
        t.rows[1][c] = raw.into();
        let e = read_capture(t.text().as_bytes(), "cap.csv").unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with("cap.csv: line "), "{column} = {raw}: {text}");
        assert!(
            text.contains(column) && text.contains(&format!("{raw:?}")) && text.contains(says),
            "{column} = {raw}: {text}"
        );
        if matches!(e, CsvError::Number { .. }) {
            assert!(text.contains(&format!("column {}", c + 1)), "{text}");
        }
    }
    // Two bad values in one row: the slot's is named before the stall's
    // and the tensor kind's, though its column comes later in the row.
    let mut t = Table::parse(&fixture_text("h200_seed000_metrics.csv"));
    let stall = t.col("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio");
    let tensor = t.col("sm__ops_path_tensor_src_bf16_dst_fp32.sum");
    let slot = t.col("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum");
    assert!(stall < slot && tensor < slot);
    t.rows[2][stall] = "-1".into();
    t.rows[2][tensor] = "-1".into();
    t.rows[2][slot] = "-7".into();
    let e = read_capture(t.text().as_bytes(), "cap.csv").unwrap_err().to_string();
    assert!(e.contains("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum = \"-7\""), "{e}");
    t.rows[2][slot] = "0".into();
    let e = read_capture(t.text().as_bytes(), "cap.csv").unwrap_err().to_string();
    assert!(e.contains("sm__ops_path_tensor_src_bf16_dst_fp32.sum = \"-1\""), "{e}");
}
