//! What the sandbox adds to starting a command: `true` plain and `true` confined (bubblewrap,
//! namespaces, the seccomp helper), measured in the same run.

use std::{path::Path, process::Command};

use criterion::{Criterion, criterion_group, criterion_main};
use sandbox::{Mode, Policy};

fn run(line: &[String]) {
    let status = Command::new(&line[0])
        .args(&line[1..])
        .status()
        .expect("starts");
    assert!(status.success(), "{line:?} failed");
}

fn start(c: &mut Criterion) {
    let bwrap = sandbox::find_bwrap()
        .unwrap_or_else(|e| panic!("the benchmark needs bubblewrap (tools/bubblewrap.sh): {e}"));
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let helper = env!("CARGO_BIN_EXE_pilotfish-sandbox-exec").to_owned();
    let policy = Policy::new(Mode::WorkspaceWrite, workspace, bwrap, vec![helper]);
    let plain = vec!["true".to_owned()];
    let confined = sandbox::argv(&policy, &plain);
    let mut group = c.benchmark_group("start");
    group.bench_function("plain", |b| b.iter(|| run(&plain)));
    group.bench_function("sandboxed", |b| b.iter(|| run(&confined)));
    group.finish();
}

criterion_group!(benches, start);
criterion_main!(benches);
