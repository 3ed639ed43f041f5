//! Picks a launch shape from a short search: each candidate is timed briefly
//! and the fastest wins. Ties go to the earlier candidate (wider accesses
//! come first), so the choice is stable from run to run.

use super::suite::LaunchShape;

/// The index of the highest rate; `None` when there is none or every rate
/// is not a number. Ties keep the earlier candidate.
pub fn best_index(rates: &[f64]) -> Option<usize> {
    let mut out: Option<(usize, f64)> = None;
    for (i, &r) in rates.iter().enumerate() {
        if !r.is_finite() {
            continue;
        }
        if out.map(|(_, b)| r > b).unwrap_or(true) {
            out = Some((i, r));
        }
    }
    out.map(|(i, _)| i)
}

/// The candidate with the highest rate (see [`best_index`]).
pub fn best(tried: &[(LaunchShape, f64)]) -> Option<(LaunchShape, f64)> {
    let rates: Vec<f64> = tried.iter().map(|t| t.1).collect();
    best_index(&rates).map(|i| tried[i].clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(w: u32) -> LaunchShape {
        LaunchShape { width: Some(w), ..LaunchShape::new(132, 256) }
    }

    #[test]
    fn fastest_wins_ties_keep_the_first_and_nan_is_ignored() {
        let t = vec![(l(16), 4.0), (l(8), 4.5), (l(4), 4.5), (l(2), f64::NAN)];
        assert_eq!(best(&t).unwrap().0.width, Some(8));
        assert!(best(&[]).is_none());
        assert!(best(&[(l(4), f64::NAN)]).is_none());
        assert_eq!(best_index(&[f64::NAN, 2.0, 3.0, 3.0]), Some(2));
    }
}
