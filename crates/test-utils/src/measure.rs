//! Whole-process measurements for benchmarks: a command's wall time and peak resident memory.
//!
//! The kernel counts a child's peak memory from before it starts its program, while it is
//! still a copy of the process that started it; a benchmark holding large inputs would report
//! its own size. So the command is started by a small helper, the benchmark's own binary run
//! afresh with [`HELPER`] set, which calls [`serve_if_helper`] first thing in `main`.

use std::{
    path::Path,
    process::{Command, Stdio},
    time::Instant,
};

/// Set in the helper's environment.
pub const HELPER: &str = "PILOTFISH_BENCH_MEASURE_CHILD";

/// What one run of a command cost.
#[derive(Debug, Clone, Copy)]
pub struct Cost {
    /// Wall time, nanoseconds.
    pub wall_ns: f64,
    /// User and system CPU time, nanoseconds: wall time less waiting (for the disk, say).
    pub cpu_ns: f64,
    /// Peak resident memory, kilobytes.
    pub peak_kb: i64,
}

/// Runs `program args`, standard input from `input` (or none), standard output discarded:
/// its wall time in nanoseconds and its peak resident memory in kilobytes. Panics when the
/// command fails, with its standard error.
pub fn run(program: &Path, args: &[&str], input: Option<&Path>) -> (f64, i64) {
    let cost = cost(program, args, input);
    (cost.wall_ns, cost.peak_kb)
}

/// [`run`], with the command's CPU time too.
pub fn cost(program: &Path, args: &[&str], input: Option<&Path>) -> Cost {
    try_cost(program, args, input).unwrap_or_else(|e| panic!("{e}"))
}

/// [`cost`], or when the command fails, what it said.
pub fn try_cost(program: &Path, args: &[&str], input: Option<&Path>) -> Result<Cost, String> {
    let stdin = match input {
        Some(path) => Stdio::from(std::fs::File::open(path).expect("the input file opens")),
        None => Stdio::null(),
    };
    let out = Command::new(std::env::current_exe().expect("the benchmark's own path"))
        .env(HELPER, "1")
        .arg(program)
        .args(args)
        .stdin(stdin)
        .output()
        .expect("the measuring helper starts");
    if !out.status.success() {
        return Err(format!(
            "{program:?} {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8(out.stdout).expect("the helper prints numbers");
    let numbers: Vec<f64> = text
        .split_whitespace()
        .map(|n| n.parse().expect("the helper prints numbers"))
        .collect();
    let [wall_ns, cpu_ns, peak_kb] = numbers[..] else {
        panic!("the helper prints three numbers: {text}");
    };
    Ok(Cost {
        wall_ns,
        cpu_ns,
        peak_kb: peak_kb as i64,
    })
}

/// When this process is the helper: runs its arguments as a command with this process's
/// standard input, prints the command's wall time (ns), CPU time (ns) and peak memory (KB),
/// and exits with the command's success.
pub fn serve_if_helper() {
    if std::env::var_os(HELPER).is_none() {
        return;
    }
    let mut args = std::env::args_os().skip(1);
    let program = args.next().expect("a program to measure");
    let start = Instant::now();
    let child = Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .spawn()
        .expect("the measured program starts");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value to be filled in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, whose id stays live until it is waited for; the `Child`
    // is never waited for through std afterwards.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let ns = start.elapsed().as_nanos();
    assert_eq!(pid, child.id() as libc::pid_t, "waited for the child");
    let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    let nanos = |t: libc::timeval| t.tv_sec as f64 * 1e9 + t.tv_usec as f64 * 1e3;
    let cpu = nanos(usage.ru_utime) + nanos(usage.ru_stime);
    println!("{ns} {cpu} {}", usage.ru_maxrss);
    std::process::exit(if ok { 0 } else { 1 });
}

/// The median of `xs`.
pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}
