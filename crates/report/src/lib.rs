//! `roofline-report`: everything the tool writes.
