//! `roofline profile`, through the stand-in Nsight Compute of
//! `support::stand_in_ncu`: what it passes to ncu and makes of its answer
//! (`ncu`), its two passes (`two_pass`), and the processes it owns
//! (`children`).

mod children;
mod ncu;
mod two_pass;
