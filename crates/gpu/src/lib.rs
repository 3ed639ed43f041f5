//! `roofline-gpu`: the live GPU.
