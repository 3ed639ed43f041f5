//! Picks a launch shape from a short search: each candidate is timed briefly
//! and the fastest wins. Ties go to the earlier candidate (wider accesses
//! come first), so the choice is stable from run to run.

use super::suite::Launch;

/// The candidate with the highest rate; `None` when there is none or every
/// rate is not a number.
pub fn best(tried: &[(Launch, f64)]) -> Option<(Launch, f64)> {
    let mut out: Option<(Launch, f64)> = None;
    for (l, r) in tried {
        if !r.is_finite() {
            continue;
        }
        if out.as_ref().map(|(_, b)| r > b).unwrap_or(true) {
            out = Some((l.clone(), *r));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(w: u32) -> Launch {
        Launch { grid: 132, block: 256, width: Some(w), shared_bytes: None, unroll: None }
    }

    #[test]
    fn fastest_wins_ties_keep_the_first_and_nan_is_ignored() {
        let t = vec![(l(16), 4.0), (l(8), 4.5), (l(4), 4.5), (l(2), f64::NAN)];
        assert_eq!(best(&t).unwrap().0.width, Some(8));
        assert!(best(&[]).is_none());
        assert!(best(&[(l(4), f64::NAN)]).is_none());
    }
}
