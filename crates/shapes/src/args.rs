//! An operator's inputs as the profiler records them: tensors (dims,
//! strides, dtype), tensor lists, scalars and scalar lists (their concrete
//! values, when recorded), and absent optional arguments.

use crate::dtype::Dtype;

/// A tensor input: its sizes, strides (in elements) and element type.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    /// Sizes, outermost first.
    pub dims: Vec<u64>,
    /// Strides in elements; empty when not recorded (contiguous assumed).
    pub strides: Vec<i64>,
    /// Element type.
    pub dtype: Dtype,
}

impl Tensor {
    /// A contiguous tensor.
    pub fn new(dims: &[u64], dtype: Dtype) -> Tensor {
        Tensor { dims: dims.to_vec(), strides: Vec::new(), dtype }
    }

    /// Elements, as the shape says.
    pub fn numel(&self) -> f64 {
        self.dims.iter().map(|&d| d as f64).product()
    }

    /// Distinct elements in memory: a broadcast (stride 0) or overlapping
    /// view touches fewer than [`Tensor::numel`]; the span of the strides
    /// bounds it.
    pub fn footprint_elements(&self) -> f64 {
        let n = self.numel();
        if n == 0.0 || self.strides.len() != self.dims.len() {
            return n;
        }
        let span: f64 = 1.0
            + self
                .dims
                .iter()
                .zip(&self.strides)
                .map(|(&d, &s)| (d.saturating_sub(1)) as f64 * s.unsigned_abs() as f64)
                .sum::<f64>();
        n.min(span)
    }

    /// Bytes the tensor occupies: [`Tensor::footprint_elements`] x size.
    pub fn bytes(&self) -> f64 {
        self.footprint_elements() * self.dtype.size()
    }

    /// A size counted from the end (-1 = last); 1 when out of range.
    pub fn dim(&self, from_end: usize) -> u64 {
        if from_end == 0 || from_end > self.dims.len() {
            return 1;
        }
        self.dims[self.dims.len() - from_end]
    }
}

/// One input of an operator.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// A tensor.
    Tensor(Tensor),
    /// A list of tensors (empty when the profiler did not record their shapes).
    TensorList(Vec<Tensor>),
    /// A scalar, with its concrete value when recorded ("1", "True", "0.5").
    Scalar(String),
    /// A list of scalars as recorded ("[3, 3]").
    ScalarList(String),
    /// An absent optional input (`None`), or one the profiler did not type.
    None,
}

impl Arg {
    /// The tensor, if this input is one.
    pub fn tensor(&self) -> Option<&Tensor> {
        match self {
            Arg::Tensor(t) => Some(t),
            _ => None,
        }
    }

    /// A scalar's value as a number ("True" = 1).
    pub fn number(&self) -> Option<f64> {
        match self {
            Arg::Scalar(s) => match s.trim() {
                "True" | "true" => Some(1.0),
                "False" | "false" => Some(0.0),
                t => t.parse().ok(),
            },
            _ => None,
        }
    }

    /// A scalar list's values ("[3, 3]" = [3, 3]); a lone scalar as a list of one.
    pub fn ints(&self) -> Option<Vec<i64>> {
        match self {
            Arg::ScalarList(s) | Arg::Scalar(s) => {
                let t = s.trim().trim_start_matches('[').trim_end_matches(']');
                if t.trim().is_empty() {
                    return Some(Vec::new());
                }
                t.split(',')
                    .map(|x| {
                        let x = x.trim();
                        match x {
                            "True" => Some(1),
                            "False" => Some(0),
                            _ => x.parse::<i64>().ok().or_else(|| x.parse::<f64>().ok().map(|f| f as i64)),
                        }
                    })
                    .collect()
            }
            _ => None,
        }
    }

    /// A boolean scalar ("True"); `None` when absent or not recorded.
    pub fn flag(&self) -> Option<bool> {
        self.number().map(|n| n != 0.0)
    }
}

/// The tensors among `args`, tensor lists flattened, in order.
pub fn tensors(args: &[Arg]) -> Vec<&Tensor> {
    let mut out = Vec::new();
    for a in args {
        match a {
            Arg::Tensor(t) => out.push(t),
            Arg::TensorList(l) => out.extend(l.iter()),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broadcast_view_occupies_its_strides_span() {
        let t = Tensor { dims: vec![32, 2048, 7, 7], strides: vec![2048, 1, 0, 0], dtype: Dtype::Bf16 };
        assert_eq!(t.numel(), 32.0 * 2048.0 * 49.0);
        assert_eq!(t.footprint_elements(), 32.0 * 2048.0);
        assert_eq!(t.bytes(), 32.0 * 2048.0 * 2.0);
        let c = Tensor { dims: vec![4, 5], strides: vec![5, 1], dtype: Dtype::Fp32 };
        assert_eq!(c.bytes(), 80.0);
    }

    #[test]
    fn scalar_lists_parse() {
        assert_eq!(Arg::ScalarList("[3, 3]".into()).ints(), Some(vec![3, 3]));
        assert_eq!(Arg::ScalarList("[True, True, False]".into()).ints(), Some(vec![1, 1, 0]));
        assert_eq!(Arg::Scalar("True".into()).flag(), Some(true));
        assert_eq!(Arg::Scalar("".into()).flag(), None);
    }
}
