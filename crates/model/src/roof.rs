//! The roofline formula itself (Williams, Waterman and Patterson): a kernel
//! of intensity I on a machine of peak pi and bandwidth beta attains at most
//! `min(pi, I x beta)`, and the two roofs meet at the ridge `pi / beta`.

/// `pi / beta`: the intensity (FLOP/byte) where the two roofs meet.
pub fn ridge_point(peak_flops_per_s: f64, bytes_per_s: f64) -> f64 {
    peak_flops_per_s / bytes_per_s
}

/// `min(pi, I x beta)`.
pub fn attainable(peak_flops_per_s: f64, bytes_per_s: f64, intensity: f64) -> f64 {
    peak_flops_per_s.min(intensity * bytes_per_s)
}
