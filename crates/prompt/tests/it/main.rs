//! Assembly tests: fixtures in `test_data/` (a cursor `$0` inside fixture text, several files per
//! fixture) against their expected prompts, and properties that hold for any input.

mod fixtures;
mod imports;
mod properties;
