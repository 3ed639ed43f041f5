//! Summary statistics of repeated measurements.
//!
//! A measured figure is never a single number: the tool keeps the median (the
//! robust centre, what it reports), the minimum and maximum (the range a
//! reader should expect) and the mean and sample standard deviation (for
//! readers who want them). Invariants: at least one sample, no NaN, and
//! `min <= median <= max`.

use serde::{Deserialize, Serialize};

/// The spread of `n` samples of one quantity, in that quantity's unit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Number of samples.
    pub samples: usize,
    /// Median (mean of the two middle values for an even count).
    pub median: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (n - 1 in the denominator); 0 for one sample.
    pub stddev: f64,
}

/// Why a set of samples has no summary.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StatsError {
    /// No samples were given.
    #[error("no samples to summarise")]
    Empty,
    /// A sample was NaN or infinite.
    #[error("sample {index} is not a finite number ({value})")]
    NotFinite {
        /// Its position, from 0.
        index: usize,
        /// The value.
        value: f64,
    },
}

impl Spread {
    /// Summarises samples. Median of an even count is the mean of the two
    /// middle values.
    pub fn from_samples(samples: &[f64]) -> Result<Spread, StatsError> {
        if samples.is_empty() {
            return Err(StatsError::Empty);
        }
        if let Some((index, &value)) = samples.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(StatsError::NotFinite { index, value });
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median = if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 };
        let mean = sorted.iter().sum::<f64>() / n as f64;
        let stddev =
            if n > 1 { (sorted.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt() } else { 0.0 };
        Ok(Spread { samples: n, median, min: sorted[0], max: sorted[n - 1], mean, stddev })
    }

    /// (max - min) / median, the spread a reader sees at a glance.
    pub fn relative_range(&self) -> f64 {
        if self.median == 0.0 {
            0.0
        } else {
            (self.max - self.min) / self.median.abs()
        }
    }

    /// Applies `f` to every statistic (for example seconds to bytes/s, which
    /// swaps min and max; the result is re-ordered so min <= max).
    pub fn map(&self, f: impl Fn(f64) -> f64) -> Spread {
        let (a, b) = (f(self.min), f(self.max));
        Spread {
            samples: self.samples,
            median: f(self.median),
            min: a.min(b),
            max: a.max(b),
            mean: f(self.mean),
            stddev: (f(self.mean + self.stddev) - f(self.mean)).abs(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_and_even_medians() {
        let s = Spread::from_samples(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.mean), (2.0, 1.0, 3.0, 2.0));
        assert!((s.stddev - 1.0).abs() < 1e-12);
        let s = Spread::from_samples(&[4.0, 1.0, 2.0, 3.0]).unwrap();
        assert_eq!(s.median, 2.5);
    }

    #[test]
    fn rejects_empty_and_nan() {
        assert_eq!(Spread::from_samples(&[]), Err(StatsError::Empty));
        assert!(matches!(Spread::from_samples(&[1.0, f64::NAN]), Err(StatsError::NotFinite { index: 1, .. })));
    }

    #[test]
    fn map_to_rate_keeps_order() {
        let t = Spread::from_samples(&[1.0, 2.0, 4.0]).unwrap();
        let r = t.map(|s| 8.0 / s);
        assert_eq!((r.min, r.median, r.max), (2.0, 4.0, 8.0));
    }
}
