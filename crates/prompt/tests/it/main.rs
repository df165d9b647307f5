//! Assembly tests: fixtures in `test_data/` (a cursor `$0` inside fixture text, several files per
//! fixture) against their expected prompts, the outline context filling its share, and
//! properties that hold for any input.

mod fixtures;
mod imports;
mod packing;
mod properties;
