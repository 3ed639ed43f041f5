//! `roofline-gpu`: the live GPU.

pub mod occupancy_check;
