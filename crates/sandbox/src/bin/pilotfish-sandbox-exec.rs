//! The sandbox's helper as a program of its own, for this crate's tests and benchmark
//! (`pilotfish __sandbox-exec` is the same helper in the product).

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let rest = match args.first() {
        Some(first) if first == sandbox::HELPER_ARG => args[1..].to_vec(),
        _ => args,
    };
    sandbox::exec_main(rest)
}
