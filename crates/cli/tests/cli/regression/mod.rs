//! Reported problems: one test per problem, named after it, filed by the
//! behaviour it holds. Each test's doc comment names its finding:
//!
//! - "Adversarial pass N" (N = 2 to 5): the adversarial passes of issue 16,
//!   `results/adversarial-pass-N-2026-11-30.md`, with the finding's ID there;
//! - "Hardening (issue 16), item N": the items of issue 16 itself;
//! - "Item N" in `views.rs`: the items of issue 28 (views).
//!
//! Pass 5's F11 (a huge record file without a header) is tested beside the
//! reader in roofline-timeline, and its F14 (warnings naming every kernel)
//! beside the warnings in roofline-core. Tests that need root, special files
//! or a Linux `/proc` say `SKIPPED: ...` where they cannot run.

mod bounded_reading;
mod captures;
mod check;
mod children_and_signals;
mod environment_and_arguments;
mod inputs_not_overwritten;
mod numbers;
mod occupancy;
mod output_files;
mod output_folders;
mod output_names;
mod standard_streams;
mod temporary_folders;
mod views;
