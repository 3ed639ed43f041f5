//! Element types as the PyTorch profiler names them ("c10::BFloat16",
//! "float", "long int"), their sizes, and the FLOP kind a matrix product
//! of them runs on.

use roofline_model::FlopKind;

/// A tensor element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dtype {
    /// bool (1 byte).
    Bool,
    /// 8-bit integers (signed or not).
    Int8,
    /// FP8 (E4M3 or E5M2).
    Fp8,
    /// 16-bit integers.
    Int16,
    /// 32-bit integers.
    Int32,
    /// 64-bit integers.
    Int64,
    /// IEEE half.
    Fp16,
    /// bfloat16.
    Bf16,
    /// FP32.
    Fp32,
    /// FP64.
    Fp64,
}

impl Dtype {
    /// The dtype of a profiler's "Input type" string, or of a sol spec word
    /// ("bf16", "fp32"); `None` for non-tensors ("Scalar", "TensorList", "").
    pub fn parse(s: &str) -> Option<Dtype> {
        let t = s.trim().trim_start_matches("c10::").to_ascii_lowercase();
        Some(match t.as_str() {
            "bool" => Dtype::Bool,
            "signed char" | "unsigned char" | "char" | "int8" | "uint8" | "i8" | "u8" => Dtype::Int8,
            "float8_e4m3fn" | "float8_e5m2" | "float8_e4m3fnuz" | "float8_e5m2fnuz" | "fp8" | "e4m3" | "e5m2" => {
                Dtype::Fp8
            }
            "short int" | "short" | "int16" => Dtype::Int16,
            "int" | "int32" | "i32" | "unsigned int" => Dtype::Int32,
            "long int" | "long" | "int64" | "i64" | "long long" => Dtype::Int64,
            "half" | "fp16" | "float16" | "f16" => Dtype::Fp16,
            "bfloat16" | "bf16" => Dtype::Bf16,
            "float" | "fp32" | "float32" | "f32" | "tf32" => Dtype::Fp32,
            "double" | "fp64" | "float64" | "f64" => Dtype::Fp64,
            _ => return None,
        })
    }

    /// Bytes per element.
    pub fn size(self) -> f64 {
        match self {
            Dtype::Bool | Dtype::Int8 | Dtype::Fp8 => 1.0,
            Dtype::Int16 | Dtype::Fp16 | Dtype::Bf16 => 2.0,
            Dtype::Int32 | Dtype::Fp32 => 4.0,
            Dtype::Int64 | Dtype::Fp64 => 8.0,
        }
    }

    /// The word a spec or a note uses ("bf16").
    pub fn key(self) -> &'static str {
        match self {
            Dtype::Bool => "bool",
            Dtype::Int8 => "int8",
            Dtype::Fp8 => "fp8",
            Dtype::Int16 => "int16",
            Dtype::Int32 => "int32",
            Dtype::Int64 => "int64",
            Dtype::Fp16 => "fp16",
            Dtype::Bf16 => "bf16",
            Dtype::Fp32 => "fp32",
            Dtype::Fp64 => "fp64",
        }
    }

    /// The FLOP kind a matrix product with these inputs runs on: the
    /// tensor cores for 16- and 8-bit types and FP64 (DMMA), the CUDA cores
    /// for FP32 (PyTorch's default keeps TF32 off for matmuls).
    pub fn matmul_kind(self) -> FlopKind {
        match self {
            Dtype::Fp16 => FlopKind::TensorFp16,
            Dtype::Bf16 => FlopKind::TensorBf16,
            Dtype::Fp8 => FlopKind::TensorFp8,
            Dtype::Int8 | Dtype::Bool => FlopKind::TensorInt8,
            Dtype::Fp64 => FlopKind::TensorFp64,
            _ => FlopKind::Fp32,
        }
    }

    /// The kind elementwise arithmetic on this type is counted as: FP64
    /// for doubles, FP32 otherwise (PyTorch computes half and bfloat16
    /// elementwise ops in FP32).
    pub fn vector_kind(self) -> FlopKind {
        match self {
            Dtype::Fp64 => FlopKind::Fp64,
            _ => FlopKind::Fp32,
        }
    }

    /// Type promotion between two tensors' types (the wider floating type
    /// wins; a floating type wins over an integer one).
    pub fn promote(a: Dtype, b: Dtype) -> Dtype {
        let rank = |d: Dtype| match d {
            Dtype::Bool => 0,
            Dtype::Int8 => 1,
            Dtype::Int16 => 2,
            Dtype::Int32 => 3,
            Dtype::Int64 => 4,
            Dtype::Fp8 => 5,
            Dtype::Fp16 | Dtype::Bf16 => 6,
            Dtype::Fp32 => 7,
            Dtype::Fp64 => 8,
        };
        if rank(b) > rank(a) {
            b
        } else {
            a
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiler_names_parse_to_sizes() {
        assert_eq!(Dtype::parse("c10::BFloat16"), Some(Dtype::Bf16));
        assert_eq!(Dtype::parse("c10::Half").map(Dtype::size), Some(2.0));
        assert_eq!(Dtype::parse("long int").map(Dtype::size), Some(8.0));
        assert_eq!(Dtype::parse("c10::Float8_e4m3fn"), Some(Dtype::Fp8));
        assert_eq!(Dtype::parse("Scalar"), None);
        assert_eq!(Dtype::parse("TensorList"), None);
        assert_eq!(Dtype::promote(Dtype::Bf16, Dtype::Fp32), Dtype::Fp32);
        assert_eq!(Dtype::promote(Dtype::Int64, Dtype::Bf16), Dtype::Bf16);
    }
}
