//! `check --group-by`: an analysis whose kernels are the program view's
//! groups (a library, a library and role, launches of one name), so that
//! the check's rules hold a group to account: `--kernel "cuBLAS=70"`, or a
//! library's time against the baseline's. A group of several kernels is
//! their FLOPs, bytes and time summed and placed again under the
//! document's machine, as `diff` places a paired group; a group of one is
//! that kernel's own placement, renamed.

use std::collections::BTreeMap;

use roofline_analysis::{GroupBy, KernelAnalysis, ProgramOptions};
use roofline_model::Kernel;

use crate::diff::aggregate;
use crate::schema::AnalysisDocument;

/// The document with one kernel per group, named by the group, most GPU
/// time first; its program view grouped the same way.
pub fn grouped(doc: &AnalysisDocument, by: GroupBy) -> AnalysisDocument {
    let mut groups: BTreeMap<String, Vec<&KernelAnalysis>> = BTreeMap::new();
    for a in &doc.kernels {
        groups.entry(by.kernel_label(a)).or_default().push(a);
    }
    let mut kernels: Vec<KernelAnalysis> = groups
        .into_iter()
        .map(|(label, members)| match members.as_slice() {
            [one] => {
                let mut a = (*one).clone();
                let named = Kernel::named(&label, a.kernel.origin);
                a.kernel.id = named.id;
                a.kernel.name = label.clone();
                a.kernel.display_name = label;
                a
            }
            _ => aggregate(&doc.machine, &label, &members),
        })
        .collect();
    kernels.sort_by(|a, b| b.kernel.duration_s.unwrap_or(0.0).total_cmp(&a.kernel.duration_s.unwrap_or(0.0)));
    let mut out = AnalysisDocument { kernels, ..doc.clone() };
    out.set_program(&ProgramOptions { group_by: by, ..ProgramOptions::default() });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{AnalysisSource, Producer};
    use roofline_analysis::analyze;
    use roofline_model::{FlopKind, Machine, MemLevel, Origin};

    fn kernel(name: &str, flops: f64, bytes: f64, seconds: f64) -> Kernel {
        let mut k = Kernel::named(name, Origin::Counter);
        k.flops.insert(FlopKind::Fp32, flops);
        k.bytes.insert(MemLevel::Dram, bytes);
        k.duration_s = Some(seconds);
        k
    }

    #[test]
    fn kernels_of_one_library_become_one_with_their_sums() {
        let m = Machine::simple("T4", FlopKind::Fp32, 8141e9, 320e9);
        let ks = [
            kernel("ampere_sgemm_128x64_nn", 2e9, 1e7, 1e-3),
            kernel("cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align4", 1e9, 1e7, 2e-3),
            kernel("my_kernel", 1e6, 1e6, 5e-4),
        ];
        let src = AnalysisSource { kind: "model".into(), detail: String::new(), byte_convention: None };
        let doc = AnalysisDocument::new(Producer::new("test"), src, m.clone(), analyze(&m, &ks));
        let g = grouped(&doc, GroupBy::Library);
        let names: Vec<&str> = g.kernels.iter().map(|k| k.kernel.name.as_str()).collect();
        assert_eq!(names.len(), 2, "{names:?}");
        let lib = &g.kernels[0];
        assert_eq!(lib.kernel.duration_s, Some(3e-3), "{names:?}");
        assert_eq!(lib.kernel.total_flops(), 3e9);
        assert_eq!(lib.kernel.bytes.get(&MemLevel::Dram), Some(&2e7));
        let own = &g.kernels[1];
        assert_eq!(own.kernel.duration_s, Some(5e-4));
        assert_eq!(own.kernel.display_name, own.kernel.name);
        assert_eq!(g.program.as_ref().map(|p| p.group_by), Some(GroupBy::Library));
    }
}
