//! What every benchmark's output must be, computed on the host.
//!
//! A benchmark whose kernel was optimised away, or computes the wrong thing,
//! must fail loudly instead of reporting an impossible bandwidth. The inputs
//! are random but reproducible: the host mirrors the kernels' hash
//! ([`hash`], [`unit()`]) bit for bit, and computes the expected outputs of
//! the arithmetic kernels with the same IEEE operations (fused multiply-add
//! rounds once, in Rust as on the GPU). Half precision is emulated exactly:
//! the product and sum of two halves are exact in f64, then rounded once.
//! Integer chains, shared-memory sums and stores and atomic counters are
//! predicted exactly; special functions are approximations, so their chains
//! are checked against a plain replay on the device, and one step of each
//! against the exact function here ([`mufu_step`]).

use super::suite::{IntOp, MufuOp};

/// The kernels' `rl_hash`.
pub fn hash(i: u64, seed: u32) -> u32 {
    let mut x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(seed as u64);
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 29;
    (x >> 32) as u32
}

/// The kernels' `rl_unit`: a float in [-1, 1) with 24 significant bits.
pub fn unit(i: u64, seed: u32) -> f32 {
    ((hash(i, seed) >> 8) as i32 - (1 << 23)) as f32 * (1.0 / 8_388_608.0)
}

/// Expected final values of `chains` FMA chains `x = x * a + b` run `steps` times.
pub fn fma_chain_f32(start: f32, a: f32, b: f32, steps: u64) -> f32 {
    let mut x = start;
    for _ in 0..steps {
        x = x.mul_add(a, b);
    }
    x
}

/// The same in FP64, rounded once per step as `fma.rn.f64` does.
pub fn fma_chain_f64(start: f64, a: f64, b: f64, steps: u64) -> f64 {
    let mut x = start;
    for _ in 0..steps {
        x = x.mul_add(a, b);
    }
    x
}

/// Rounds `x` to the nearest IEEE binary16 value (ties to even), returned as
/// f64. Values beyond the half range saturate to infinity.
pub fn round_f16(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let e = ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let ulp = 2f64.powi(e.max(-14) - 10);
    let r = (x / ulp).round_ties_even() * ulp;
    if r.abs() > 65504.0 {
        f64::INFINITY.copysign(x)
    } else {
        r
    }
}

/// binary16 bits of a value already representable in half.
pub fn f16_bits(x: f64) -> u16 {
    let sign = if x.is_sign_negative() { 0x8000u16 } else { 0 };
    let a = x.abs();
    if a == 0.0 {
        return sign;
    }
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    if e < -14 {
        return sign | (a * 2f64.powi(24)) as u16;
    }
    let m = ((a / 2f64.powi(e) - 1.0) * 1024.0) as u16;
    sign | (((e + 15) as u16) << 10) | m
}

/// The value of binary16 bits.
pub fn f16_value(h: u16) -> f64 {
    let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 31) as i32;
    let m = (h & 1023) as f64;
    match e {
        0 => s * m * 2f64.powi(-24),
        31 if m == 0.0 => s * f64::INFINITY,
        31 => f64::NAN,
        _ => s * (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

/// `fma.rn.f16x2` on one half: the exact `x * a + b`, rounded once.
pub fn fma_f16(x: f64, a: f64, b: f64) -> f64 {
    round_f16(x * a + b)
}

/// The same on one FP16 half, rounded to FP16 after every step as
/// `fma.rn.f16x2` does.
pub fn fma_chain_f16(start: f64, a: f64, b: f64, steps: u64) -> f64 {
    let mut x = start;
    for _ in 0..steps {
        x = fma_f16(x, a, b);
    }
    x
}

/// The wrapping sum each thread of `smem_read` must return: its `k` words of
/// 16 bytes (tile index `t + j * threads`), summed `reps` times.
pub fn smem_expected(tile: &[u32], t: usize, threads: usize, k: usize, reps: u32) -> u32 {
    let mut once = 0u32;
    for j in 0..k {
        let w = (t + j * threads) * 4;
        for c in 0..4 {
            once = once.wrapping_add(tile[w + c]);
        }
    }
    once.wrapping_mul(reps)
}

/// One step of an integer chain as the kernels compute it (`rl_imad`,
/// `rl_iadd3`, `rl_lop3` of instructions.cu): `x` the chain, `y` the next
/// chain of the ring, `k` the kernel's constant.
pub fn int_step(op: IntOp, x: u32, y: u32, k: u32) -> u32 {
    match op {
        IntOp::Imad => x.wrapping_mul(k).wrapping_add(y),
        IntOp::Iadd3 => x.wrapping_add(y).wrapping_add(k),
        IntOp::Lop3 => x ^ (y & k),
    }
}

/// The chains of one thread after `steps` steps: chain c reads chain c + 1
/// (already updated for the last chain, as the kernel's loop order does).
pub fn int_chains(op: IntOp, seeds: &[u32], k: u32, steps: u64) -> Vec<u32> {
    let mut x = seeds.to_vec();
    let n = x.len();
    for _ in 0..steps {
        for c in 0..n {
            x[c] = int_step(op, x[c], x[(c + 1) % n], k);
        }
    }
    x
}

/// One step of a MUFU chain in exact arithmetic (the GPU's is approximate;
/// the check allows the hardware's error).
pub fn mufu_step(op: MufuOp, x: f64) -> f64 {
    match op {
        MufuOp::Ex2 => 2.4 - 1.5 * x.abs().exp2(),
        MufuOp::Lg2 => 1.95 - 0.9 * (2.0 * x.log2() - 1.0).abs(),
        MufuOp::Rsqrt => 1.45 - 4.3 * (1.0 / x.sqrt() - 0.908).abs(),
        MufuOp::Sin => 3.0 * x.sin(),
    }
}

/// A seed inside the domain each MUFU map keeps its chain in.
pub fn mufu_seed(op: MufuOp, i: u64) -> f32 {
    let u = (unit(i, 0x5f) + 1.0) / 2.0; // [0, 1)
    match op {
        MufuOp::Ex2 => 2.0 * u - 1.0,
        MufuOp::Lg2 => 1.05 + 0.9 * u,
        MufuOp::Rsqrt => 1.05 + 0.4 * u,
        MufuOp::Sin => 6.0 * u - 3.0,
    }
}

/// Shared-memory element of lane `lane`, slot `k` with `ways`-way bank
/// conflicts (`rl_elem` of instructions.cu).
pub fn smem_elem(lane: u32, k: u32, ways: u32) -> u32 {
    (lane * ways + k) % (32 * ways)
}

/// The value a store benchmark leaves in shared word `word` after trip `r`
/// (`rl_sval`).
pub fn smem_store_value(word: u32, r: u32) -> u32 {
    word.wrapping_mul(0x9E37_79B1).wrapping_add(r)
}

/// The tile a store benchmark leaves: `tile` (the initial words) with every
/// word a lane stores holding the last trip's value. `words_per_elem` is 1
/// for STS.32 and 4 for STS.128.
pub fn smem_stored_tile(tile: &[u32], ways: u32, slots: u32, words_per_elem: u32, reps: u32) -> Vec<u32> {
    let mut t = tile.to_vec();
    for lane in 0..32 {
        for k in 0..slots {
            let e = smem_elem(lane, k, ways);
            for j in 0..words_per_elem {
                let w = e * words_per_elem + j;
                t[w as usize] = smem_store_value(w, reps - 1);
            }
        }
    }
    t
}

/// The sum a load benchmark's lane returns: its `slots` elements of
/// `words_per_elem` words, `reps` times, wrapping.
pub fn smem_load_sum(tile: &[u32], lane: u32, ways: u32, slots: u32, words_per_elem: u32, reps: u32) -> u32 {
    let mut once = 0u32;
    for k in 0..slots {
        let e = smem_elem(lane, k, ways);
        for j in 0..words_per_elem {
            once = once.wrapping_add(tile[(e * words_per_elem + j) as usize]);
        }
    }
    once.wrapping_mul(reps)
}

/// The value of every atomic counter after one launch: `per` threads each
/// add 1 + 2 + ... + `slots`, `iters` times.
pub fn atomic_count(per: u32, iters: u32, slots: u32) -> u32 {
    let once = slots * (slots + 1) / 2;
    per.wrapping_mul(iters).wrapping_mul(once)
}

/// A mismatch report: how many of `total` elements were wrong and where the
/// first one was.
pub fn mismatch_report(bad: u64, first: u64, total: u64) -> Option<String> {
    (bad > 0).then(|| format!("{bad} of {total} elements wrong, the first at index {first}"))
}

/// Compares host-expected and device values element by element.
pub fn compare_exact<T: PartialEq + Copy + std::fmt::Debug>(
    got: &[T],
    want: impl Fn(usize) -> T,
) -> Result<(), String> {
    let mut bad = 0u64;
    let mut first = None;
    for (i, &g) in got.iter().enumerate() {
        let w = want(i);
        if g != w {
            bad += 1;
            first.get_or_insert((i, g, w));
        }
    }
    match first {
        None => Ok(()),
        Some((i, g, w)) => Err(format!("{bad} of {} elements wrong; element {i} is {g:?}, expected {w:?}", got.len())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_is_stable_and_unit_is_in_range() {
        // Pinned values: the CUDA side computes the same (see common.cuh).
        assert_eq!(hash(0, 0), 0);
        assert_ne!(hash(1, 0), hash(2, 0));
        assert_ne!(hash(1, 0), hash(1, 1));
        for i in 0..10_000 {
            let u = unit(i, 7);
            assert!((-1.0..1.0).contains(&u));
            assert_eq!(u, (u as f64) as f32);
        }
    }

    #[test]
    fn half_rounding_ties_to_even() {
        assert_eq!(round_f16(1.0 + 2f64.powi(-11)), 1.0);
        assert_eq!(round_f16(1.0 + 3.0 * 2f64.powi(-11)), 1.0 + 2.0 * 2f64.powi(-10));
        assert_eq!(round_f16(1.0 + 2f64.powi(-11) + 2f64.powi(-30)), 1.0 + 2f64.powi(-10));
        assert_eq!(round_f16(1e6), f64::INFINITY);
        assert_eq!(round_f16(2f64.powi(-24) * 1.4), 2f64.powi(-24));
    }

    #[test]
    fn half_bits_round_trip() {
        for h in [0u16, 0x3c00, 0xbc00, 0x3555, 0x0001, 0x03ff, 0x7bff, 0x8400] {
            assert_eq!(f16_bits(f16_value(h)), h, "{h:#x}");
        }
    }

    #[test]
    fn fma_chains_converge_to_the_fixed_point() {
        let x = fma_chain_f32(0.5, 0.5, 0.5, 100);
        assert_eq!(x, 1.0);
        let h = fma_chain_f16(0.25, 0.5, 0.5, 100);
        assert_eq!(h, 1.0);
    }

    #[test]
    fn smem_sum_wraps() {
        let tile = vec![u32::MAX; 8 * 4 * 2];
        assert_eq!(smem_expected(&tile, 0, 2, 8, 1), 0u32.wrapping_sub(32));
    }

    #[test]
    fn integer_chains_replay_the_kernel_ring_exactly() {
        // Two chains, one step each, in loop order: chain 1 reads chain 0's new value.
        assert_eq!(int_chains(IntOp::Iadd3, &[1, 2], 10, 1), vec![13, 2 + 13 + 10]);
        assert_eq!(int_chains(IntOp::Imad, &[3, 5], 7, 1), vec![26, 5 * 7 + 26]);
        assert_eq!(int_chains(IntOp::Lop3, &[0xF0, 0x0F], 0xFF, 1), vec![0xF0 ^ 0x0F, 0x0F ^ 0xFF]);
        assert_eq!(int_step(IntOp::Imad, u32::MAX, 1, 2), u32::MAX.wrapping_mul(2).wrapping_add(1));
        // 0x78 is x ^ (y & k): the LOP3 table of the kernel.
        let lut = |a: u32, b: u32, c: u32| int_step(IntOp::Lop3, a, b, c);
        assert_eq!(lut(0xF0, 0xCC, 0xAA), 0x78);
    }

    #[test]
    fn mufu_maps_keep_their_chains_inside_their_domains() {
        let domains =
            [(MufuOp::Ex2, -1.0, 1.0), (MufuOp::Lg2, 1.0, 2.0), (MufuOp::Rsqrt, 1.0, 1.5), (MufuOp::Sin, -3.0, 3.0)];
        for (op, lo, hi) in domains {
            for i in 0..64 {
                let mut x = mufu_seed(op, i) as f64;
                for _ in 0..200 {
                    assert!((lo..=hi).contains(&x), "{op:?} left [{lo}, {hi}]: {x}");
                    x = mufu_step(op, x);
                }
            }
        }
    }

    #[test]
    fn shared_memory_predictions_follow_the_bank_layout() {
        // 32-way: every lane on bank k, at 32 different addresses.
        assert!((0..32).all(|l| smem_elem(l, 3, 32) % 32 == 3));
        assert_eq!((0..32).map(|l| smem_elem(l, 0, 1)).collect::<std::collections::HashSet<_>>().len(), 32);
        let tile: Vec<u32> = (0..64).collect();
        // Lane 0, 2-way: elements 0 and 1, three trips.
        assert_eq!(smem_load_sum(&tile, 0, 2, 2, 1, 3), 3);
        let stored = smem_stored_tile(&tile, 1, 8, 1, 5);
        assert_eq!(stored[0], smem_store_value(0, 4));
        assert_eq!(atomic_count(4, 10, 8), 4 * 10 * 36);
    }

    #[test]
    fn wrong_or_optimised_away_output_fails_loudly() {
        let poisoned = vec![f32::NAN.to_bits(); 4];
        let e = compare_exact(&poisoned, |i| i as u32).unwrap_err();
        assert!(e.contains("4 of 4 elements wrong"), "{e}");
        assert!(compare_exact(&[1u32, 2], |i| i as u32 + 1).is_ok());
        assert_eq!(mismatch_report(0, u64::MAX, 10), None);
        assert!(mismatch_report(2, 5, 10).unwrap().contains("first at index 5"));
    }
}
