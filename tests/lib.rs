//! Helpers shared by the cross-crate tests of Tablesight.
