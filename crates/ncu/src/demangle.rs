//! Kernel names for people: demangled, then shortened for tables and charts.
//!
//! ncu prints demangled names by default (`void cutlass::Kernel2<...>(T1::
//! Params)`), mangled ones with `--print-kernel-base mangled` (`_Z6vecaddPKfS0_Pfi`).
//! Either way the full name stays in the JSON (`Kernel::name`) and its hash
//! is the stable short ID; the display name drops the return type, the
//! parameter list and the template arguments, which are what makes
//! library kernel names hundreds of characters long.

/// Demangles an Itanium C++ name (`_Z...`); other names are returned as is.
pub fn demangle(name: &str) -> String {
    let name = name.trim();
    if name.starts_with("_Z") {
        if let Ok(sym) = cpp_demangle::Symbol::new(name) {
            if let Ok(text) = sym.demangle() {
                return text;
            }
        }
    }
    name.to_string()
}

/// The most a display name runs to before it is cut with an ellipsis.
pub const DISPLAY_MAX: usize = 48;

/// A short name for display: no return type, no parameters, template
/// arguments folded to `<…>`, cut at [`DISPLAY_MAX`] characters.
pub fn display_name(name: &str) -> String {
    let full = demangle(name);
    let mut s = full.as_str();
    // The parameter list: the last top-level parenthesised group.
    let mut depth = 0i32;
    let mut cut = s.len();
    for (i, c) in s.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            '(' if depth == 0 => {
                cut = i;
                break;
            }
            _ => {}
        }
    }
    s = &s[..cut];
    // Fold template arguments.
    let mut out = String::with_capacity(s.len());
    let mut depth = 0i32;
    for c in s.chars() {
        match c {
            '<' => {
                if depth == 0 {
                    out.push_str("<…>");
                }
                depth += 1;
            }
            '>' => depth = (depth - 1).max(0),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    // The return type: everything before the last top-level space.
    let trimmed = out.trim();
    let short = match trimmed.rfind(' ') {
        Some(i) if !trimmed[i + 1..].is_empty() => &trimmed[i + 1..],
        _ => trimmed,
    };
    let short = if short.is_empty() { full.trim() } else { short };
    if short.chars().count() > DISPLAY_MAX {
        let mut s: String = short.chars().take(DISPLAY_MAX - 1).collect();
        s.push('…');
        s
    } else {
        short.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_c_names_stay() {
        assert_eq!(display_name("vecadd"), "vecadd");
        assert_eq!(demangle("vecadd"), "vecadd");
    }

    #[test]
    fn mangled_names_are_demangled() {
        assert_eq!(demangle("_Z6vecaddPKfS0_Pfi"), "vecadd(float const*, float const*, float*, int)");
        assert_eq!(display_name("_Z6vecaddPKfS0_Pfi"), "vecadd");
    }

    #[test]
    fn library_names_are_shortened() {
        let n = "void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>(T1::Params)";
        assert_eq!(display_name(n), "cutlass::Kernel2<…>");
        let n = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char *, 1>>(int, T2, T3)";
        assert_eq!(display_name(n), "at::native::vectorized_elementwise_kernel<…>");
        assert_eq!(
            display_name("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"),
            "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"
        );
    }

    #[test]
    fn long_names_are_cut() {
        let n = "a".repeat(100);
        let d = display_name(&n);
        assert_eq!(d.chars().count(), DISPLAY_MAX);
        assert!(d.ends_with('…'));
    }
}
