//! `roofline profile`, through the stand-in Nsight Compute of
//! `support::stand_in_ncu`: what it passes to ncu and makes of its answer
//! (`ncu`), its two passes (`two_pass`), a training loop's steady state and every way pass 2 fails
//! (`steady`), and the processes it owns
//! (`children`).

mod children;
mod ncu;
mod recorded;
mod steady;
mod two_pass;
