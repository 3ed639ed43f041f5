//! `roofline-ncu`: Nsight Compute counters in, kernel points out.
