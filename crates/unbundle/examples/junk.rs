//! Counts the minifier's leftovers in the `.js` files under each folder given (an unbundler's
//! output): `cargo run -p unbundle --example junk -- OUT...`, a line per folder, and with
//! `--files` a line per file, worst first.

use std::path::{Path, PathBuf};

use unbundle::junk::{Junk, count};

fn files(dir: &Path, into: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        into.push(dir.to_owned());
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, into);
        } else if path
            .extension()
            .is_some_and(|e| e == "js" || e == "mjs" || e == "cjs")
        {
            into.push(path);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let per_file = args.iter().any(|a| a == "--files");
    for dir in args.iter().filter(|a| !a.starts_with("--")) {
        let mut all = Vec::new();
        files(Path::new(dir), &mut all);
        let mut total = Junk::default();
        let mut rows = Vec::new();
        for file in &all {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            match count(&text) {
                Ok(junk) => {
                    total += junk;
                    rows.push((junk, file));
                }
                Err(e) => eprintln!("{}: does not parse: {e}", file.display()),
            }
        }
        println!(
            "{dir}: {:.1} per 1,000 statements {total:?}",
            total.per_thousand()
        );
        if per_file {
            rows.sort_by_key(|(j, _)| std::cmp::Reverse(j.total()));
            for (junk, file) in rows.iter().take(15) {
                println!("  {:>5} {} {junk:?}", junk.total(), file.display());
            }
        }
    }
}
