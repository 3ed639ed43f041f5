//! Log-log axes: which values a chart accepts, the ranges it fits to them,
//! where the ticks go and how data maps to pixels.
//!
//! Every number that reaches a chart passes [`plottable`] first: finite and
//! within [`MIN_VALUE`]..=[`MAX_VALUE`]. So an axis spans at most
//! [`MAX_DECADES`] decades and every loop over ticks or grid lines is bounded,
//! whatever the input (a zero, a subnormal or 1e308 is refused, not drawn).

use roofline_model::{format_plain, format_si, Unit};

use super::layout::Rect;

/// The smallest value an axis shows.
pub const MIN_VALUE: f64 = 1e-30;
/// The largest value an axis shows.
pub const MAX_VALUE: f64 = 1e30;
/// The widest an axis may be, in decades.
pub const MAX_DECADES: f64 = 60.0;
/// The narrowest an axis may be (a zoom stops there), in decades.
pub const MIN_DECADES: f64 = 0.02;

/// Whether a value can be placed on a log axis.
pub fn plottable(v: f64) -> bool {
    v.is_finite() && (MIN_VALUE..=MAX_VALUE).contains(&v)
}

/// A range of an axis in decades (log10 of the values), `lo < hi`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    /// log10 of the lowest value shown.
    pub lo: f64,
    /// log10 of the highest value shown.
    pub hi: f64,
}

impl Span {
    /// The range that shows `values` with `pad` decades (at least) on each
    /// side, at least `min` decades wide, within the axis limits. Values
    /// that are not [`plottable`] are ignored; with none left, `fallback`.
    pub fn fit(values: impl IntoIterator<Item = f64>, pad: f64, min: f64, fallback: (f64, f64)) -> Span {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in values.into_iter().filter(|v| plottable(*v)) {
            lo = lo.min(v.log10());
            hi = hi.max(v.log10());
        }
        if !lo.is_finite() {
            (lo, hi) = (fallback.0.log10(), fallback.1.log10());
        }
        let pad = pad.max(0.08 * (hi - lo));
        Span { lo: lo - pad, hi: hi + pad }.widened(min)
    }

    /// At least `min` decades wide (grown about its middle), at most
    /// [`MAX_DECADES`], and inside the axis limits.
    pub fn widened(self, min: f64) -> Span {
        let (limit_lo, limit_hi) = (MIN_VALUE.log10(), MAX_VALUE.log10());
        let min = min.clamp(MIN_DECADES, MAX_DECADES);
        let (mut lo, mut hi) = (self.lo.max(limit_lo), self.hi.min(limit_hi));
        if !(lo.is_finite() && hi.is_finite()) || hi < lo {
            (lo, hi) = (-1.0, 1.0);
        }
        if hi - lo < min {
            let mid = (lo + hi) / 2.0;
            (lo, hi) = (mid - min / 2.0, mid + min / 2.0);
        }
        if hi - lo > MAX_DECADES {
            hi = lo + MAX_DECADES;
        }
        // Shift back inside the limits.
        if lo < limit_lo {
            (lo, hi) = (limit_lo, limit_lo + (hi - lo));
        }
        if hi > limit_hi {
            (lo, hi) = (limit_hi - (hi - lo), limit_hi);
        }
        Span { lo, hi }
    }

    /// The span covering both.
    pub fn union(self, o: Span) -> Span {
        Span { lo: self.lo.min(o.lo), hi: self.hi.max(o.hi) }
    }

    /// Width in decades.
    pub fn width(self) -> f64 {
        self.hi - self.lo
    }

    /// The value at the low end.
    pub fn min_value(self) -> f64 {
        10f64.powf(self.lo)
    }

    /// The value at the high end.
    pub fn max_value(self) -> f64 {
        10f64.powf(self.hi)
    }

    /// Whether `v` lies inside.
    pub fn contains(self, v: f64) -> bool {
        plottable(v) && v.log10() >= self.lo - 1e-9 && v.log10() <= self.hi + 1e-9
    }

    /// The labelled ticks and unlabelled grid lines of the range.
    ///
    /// Wide ranges tick every decade (every few decades past 8, grid lines
    /// at 2..9 inside each decade up to 6); ranges of a few decades tick at
    /// 1, 2 and 5; narrower ones at 1..9 of each decade, and zooms inside
    /// one decade at round steps. At most about 12 ticks and 100 grid lines,
    /// whatever the range. The page's script (`templates/report.js`)
    /// follows the same rules when it zooms.
    pub fn ticks(self) -> Ticks {
        let mut t = Ticks::default();
        let w = self.width();
        let (k0, k1) = (self.lo.floor() as i32, self.hi.ceil() as i32);
        if w > 2.5 {
            let every = ((w / 8.0).ceil() as i32).max(1);
            for k in k0..=k1 {
                let v = 10f64.powi(k);
                if k.rem_euclid(every) == 0 && self.contains(v) {
                    t.major.push(v);
                }
                if w <= 6.0 {
                    for m in 2..10 {
                        let v = f64::from(m) * 10f64.powi(k);
                        if self.contains(v) {
                            t.minor.push(v);
                        }
                    }
                }
            }
        } else if w > 0.9 {
            let labelled: &[i32] = if w > 1.6 { &[1, 2, 5] } else { &[1, 2, 3, 5] };
            for k in k0..=k1 {
                for m in 1..10 {
                    let v = f64::from(m) * 10f64.powi(k);
                    if !self.contains(v) {
                        continue;
                    }
                    if labelled.contains(&m) {
                        t.major.push(v);
                    } else {
                        t.minor.push(v);
                    }
                }
            }
        } else {
            // Round linear steps: about five ticks across the range.
            let (a, b) = (self.min_value(), self.max_value());
            let step = nice_step((b - a) / 5.0);
            let first = (a / step).ceil();
            for i in 0..12 {
                let v = (first + f64::from(i)) * step;
                if v > b {
                    break;
                }
                if self.contains(v) {
                    t.major.push(v);
                }
            }
            let minor = step / 5.0;
            let first = (a / minor).ceil();
            for i in 0..64 {
                let v = (first + f64::from(i)) * minor;
                if v > b {
                    break;
                }
                if self.contains(v) && !t.major.iter().any(|m| (m / v - 1.0).abs() < 1e-9) {
                    t.minor.push(v);
                }
            }
        }
        t
    }
}

/// 1, 2 or 5 times a power of ten, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw * (1.0 - 1e-9)).unwrap_or(10.0 * mag)
}

/// Tick values of an axis.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ticks {
    /// Labelled.
    pub major: Vec<f64>,
    /// Grid lines only.
    pub minor: Vec<f64>,
}

/// A tick label: intensities as plain numbers ("0.01", "1e-5"), rates with
/// an SI prefix ("10 TFLOP/s"), trailing zeros dropped.
pub fn tick_label(v: f64, unit: Unit) -> String {
    let k = (v.log10() + 1e-9).floor();
    let sci = || {
        let m = v / 10f64.powf(k);
        let m = if (m - m.round()).abs() < 1e-6 { format!("{}", m.round()) } else { trim_zeros(&format_plain(m)) };
        format!("{m}e{}", k as i32)
    };
    if unit != Unit::FlopPerByte {
        return if v >= 10.0 { trim_zeros(&format_si(v, unit)) } else { format!("{} {}", sci(), unit.symbol()) };
    }
    if !(-4.0..6.0).contains(&k) {
        sci()
    } else {
        // Enough digits to tell neighbouring ticks apart.
        let digits = if k < 0.0 { (-k) as usize + 1 } else { 1 };
        trim_zeros(&format!("{v:.digits$}"))
    }
}

/// "10.0 TFLOP/s" -> "10 TFLOP/s", "0.0500" -> "0.05".
fn trim_zeros(s: &str) -> String {
    let (num, rest) = s.split_once(' ').map(|(a, b)| (a, format!(" {b}"))).unwrap_or((s, String::new()));
    let num = if num.contains('.') { num.trim_end_matches('0').trim_end_matches('.') } else { num };
    format!("{num}{rest}")
}

/// Where the data goes in pixels: a plot rectangle and the two ranges.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    /// The plot area.
    pub plot: Rect,
    /// The x range (intensity, FLOP/byte).
    pub x: Span,
    /// The y range (FLOP/s).
    pub y: Span,
}

impl Frame {
    /// Pixel x of an intensity.
    pub fn px(&self, x: f64) -> f64 {
        self.plot.x + (x.log10() - self.x.lo) / self.x.width() * self.plot.w
    }

    /// Pixel y of a rate.
    pub fn py(&self, y: f64) -> f64 {
        self.plot.y + self.plot.h - (y.log10() - self.y.lo) / self.y.width() * self.plot.h
    }

    /// The intensity at a pixel x.
    pub fn x_at(&self, px: f64) -> f64 {
        10f64.powf(self.x.lo + (px - self.plot.x) / self.plot.w * self.x.width())
    }

    /// The on-screen angle (degrees, negative is up) of a line of slope one
    /// in log-log (a bandwidth roof).
    pub fn diagonal_angle(&self) -> f64 {
        let slope = -(self.plot.h / self.y.width()) / (self.plot.w / self.x.width());
        slope.atan().to_degrees()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_subnormal_and_huge_values_are_not_plottable() {
        for v in [0.0, 5e-324, 1e-310, f64::MIN_POSITIVE, 9e307, f64::MAX, f64::INFINITY, f64::NAN, -1.0] {
            assert!(!plottable(v), "{v:e}");
        }
        assert!(plottable(1e-3) && plottable(4.8e12));
    }

    #[test]
    fn a_fit_is_bounded_whatever_the_input() {
        let s = Span::fit([0.0, 5e-324, 1e308, f64::NAN], 0.3, 1.5, (1e-2, 1e2));
        assert_eq!((s.lo, s.hi), Span::fit([], 0.3, 1.5, (1e-2, 1e2)).into());
        let s = Span::fit([1e-30, 1e30], 0.3, 1.5, (1.0, 10.0));
        assert!(s.width() <= MAX_DECADES + 1e-9, "{s:?}");
        let t = s.ticks();
        assert!(t.major.len() <= 12 && t.minor.len() <= 100, "{t:?}");
    }

    impl From<Span> for (f64, f64) {
        fn from(s: Span) -> (f64, f64) {
            (s.lo, s.hi)
        }
    }

    #[test]
    fn ticks_follow_the_zoom() {
        let wide = Span { lo: -2.0, hi: 4.0 }.ticks();
        assert_eq!(wide.major, vec![0.01, 0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0]);
        let few = Span { lo: 0.0, hi: 2.0 }.ticks();
        assert_eq!(few.major, vec![1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]);
        let narrow = Span { lo: 1.0, hi: 1.3 }.ticks();
        assert_eq!(narrow.major, vec![10.0, 12.0, 14.0, 16.0, 18.0]);
        for s in [Span { lo: -30.0, hi: 30.0 }, Span { lo: 5.0, hi: 5.02 }, Span { lo: -0.5, hi: 0.5 }] {
            let t = s.ticks();
            assert!(!t.major.is_empty() && t.major.len() <= 12 && t.minor.len() <= 100, "{s:?} {t:?}");
        }
    }

    #[test]
    fn tick_labels_are_short() {
        assert_eq!(tick_label(0.01, Unit::FlopPerByte), "0.01");
        assert_eq!(tick_label(1e-5, Unit::FlopPerByte), "1e-5");
        assert_eq!(tick_label(1000.0, Unit::FlopPerByte), "1000");
        assert_eq!(tick_label(1e13, Unit::FlopPerSecond), "10 TFLOP/s");
        assert_eq!(tick_label(2e11, Unit::FlopPerSecond), "200 GFLOP/s");
    }
}
