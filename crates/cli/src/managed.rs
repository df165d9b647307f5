//! A managed local model: given a GGUF file (`gguf` in `[backend]`, `--gguf`), pilotfish starts
//! llama.cpp's `llama-server` for it on a free loopback port, waits until it answers, and stops
//! it when pilotfish is done. The server's output goes to a log file; the model's trained
//! context is read from the file's own header (`gguf`) to size the server's.

use std::{
    fs::File,
    io,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};

use host::config::BackendConfig;

use crate::gguf::{GgufError, Header, read_header, show_bytes};

/// The context a managed server gets when the file does not say its trained length.
pub(crate) const DEFAULT_CONTEXT: u32 = 4096;

/// The largest context given unasked: the KV cache of a 128k-token context would not fit a
/// laptop's memory, and completions need far less.
pub(crate) const MAX_CONTEXT: u32 = 8192;

/// How long a model may take to load before pilotfish gives up on it.
const READY_LIMIT: Duration = Duration::from_secs(120);

/// Everything decided before a server starts: the binary, the model and the context size.
/// Two equal plans describe the same server, which is how the language server knows it can
/// keep the one it has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(crate) binary: PathBuf,
    pub(crate) model: PathBuf,
    /// The context the server is started with (`-c`).
    pub(crate) context: u32,
    /// The model's trained context, from its GGUF header, when it says.
    pub(crate) trained: Option<u64>,
}

/// A running llama-server that pilotfish started; stopped when dropped.
#[derive(Debug)]
pub(crate) struct Managed {
    child: Child,
    pub(crate) plan: Plan,
    /// `http://127.0.0.1:PORT`.
    pub(crate) url: String,
    /// Where the server's output goes.
    pub(crate) log: PathBuf,
}

/// Starts the server `backend.gguf` names, if it names one, and points `backend` at it. The
/// other settings are checked first, so that a mistake there costs no model load.
pub(crate) fn start_for(backend: &mut BackendConfig) -> Result<Option<Managed>> {
    let Some(gguf) = &backend.gguf else {
        return Ok(None);
    };
    backend.backend()?;
    let managed = plan(gguf, backend.context_size)?.start()?;
    backend.endpoint = Some(managed.url.clone());
    Ok(Some(managed))
}

/// Checks the model file and finds the server binary; starts nothing.
pub(crate) fn plan(gguf: &Path, context_size: Option<u32>) -> Result<Plan> {
    let model = expand_home(gguf);
    let header = check_model(&model)?;
    let binary = find_server()?;
    Ok(Plan {
        binary,
        model,
        context: context_for(context_size, header.context_length),
        trained: header.context_length,
    })
}

/// The context a server gets: the setting, else the trained length up to [`MAX_CONTEXT`],
/// else [`DEFAULT_CONTEXT`].
fn context_for(setting: Option<u32>, trained: Option<u64>) -> u32 {
    setting.unwrap_or(match trained {
        Some(n) if n > 0 => n.min(u64::from(MAX_CONTEXT)) as u32,
        _ => DEFAULT_CONTEXT,
    })
}

impl Plan {
    /// Starts the server and waits until it answers (up to two minutes, the model loading).
    ///
    /// Call this on a thread that lives as long as pilotfish (the main thread): on Linux the
    /// server is told to end when the thread that started it ends, which is what makes it die
    /// with a pilotfish that is killed.
    pub(crate) fn start(self) -> Result<Managed> {
        let name = self.model.file_name().map_or_else(
            || self.model.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        eprintln!(
            "pilotfish: starting llama-server for {name} (context {}) ...",
            self.context
        );
        // Another process may take the free port between our look and the server's bind; a
        // new port is tried then, a few times.
        let mut attempts = 0;
        loop {
            attempts += 1;
            match self.clone().start_once() {
                Err(Failure::PortTaken(_)) if attempts < 3 => continue,
                Err(Failure::PortTaken(e) | Failure::Other(e)) => return Err(e),
                Ok(m) => return Ok(m),
            }
        }
    }

    fn start_once(self) -> Result<Managed, Failure> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .context("could not find a free port on 127.0.0.1")?
            .port();
        let log = log_path(port);
        let out = File::create(&log)
            .with_context(|| format!("could not create the server's log {}", log.display()))?;
        let err = out.try_clone().context("could not share the log file")?;
        let mut command = Command::new(&self.binary);
        command
            .arg("-m")
            .arg(&self.model)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["-c", &self.context.to_string()])
            .args(["-np", "1", "--cache-reuse", "256"])
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        die_with_parent(&mut command);
        let child = command
            .spawn()
            .with_context(|| format!("could not start {}", self.binary.display()))?;
        let url = format!("http://127.0.0.1:{port}");
        let mut managed = Managed {
            child,
            plan: self,
            url,
            log,
        };
        managed.wait_ready()?;
        Ok(managed)
    }
}

impl Managed {
    /// Waits until the server describes itself (it answers 503 while the model loads), or
    /// exits, or the time is up.
    fn wait_ready(&mut self) -> Result<(), Failure> {
        let backend = backends::Backend::new(
            backends::Kind::LlamaCppInfill,
            &self.url,
            Duration::from_secs(1),
            Duration::from_secs(2),
        )
        .map_err(anyhow::Error::new)?;
        // The caller may be inside an async runtime (the language server's), where another
        // cannot run; a thread of its own has none.
        let Managed { child, log, .. } = self;
        std::thread::scope(|s| {
            s.spawn(|| wait(child, log, &backend))
                .join()
                .unwrap_or_else(|_| Err(anyhow::anyhow!("the wait for llama-server failed").into()))
        })
    }
}

fn wait(child: &mut Child, log: &Path, backend: &backends::Backend) -> Result<(), Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().context("could not watch llama-server")? {
            let tail = log_tail(log);
            let e = anyhow::anyhow!(
                "llama-server exited ({status}) before it was ready; the end of its log {}:\n{tail}",
                log.display()
            );
            return Err(if tail.contains("couldn't bind") {
                Failure::PortTaken(e)
            } else {
                Failure::Other(e)
            });
        }
        if runtime
            .block_on(backend.server_info(Duration::from_secs(2)))
            .is_ok()
        {
            return Ok(());
        }
        if started.elapsed() > READY_LIMIT {
            return Err(Failure::Other(anyhow::anyhow!(
                "llama-server did not answer within {} s; its log is {}",
                READY_LIMIT.as_secs(),
                log.display()
            )));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

impl Drop for Managed {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Why a start failed: a port someone else took in the meantime is worth another try.
enum Failure {
    PortTaken(anyhow::Error),
    Other(anyhow::Error),
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Other(e)
    }
}

/// On Linux, the server is killed when pilotfish ends, however it ends (killed included).
///
/// SIGKILL rather than SIGTERM: Linux sends the signal each time the server is handed to a
/// new parent, and a killed pilotfish hands it from thread to thread as they die, so it gets
/// several; llama-server answers a second SIGTERM by calling `exit` inside its signal
/// handler, which can hang for good (seen in the tests). It keeps nothing worth a clean exit.
#[cfg(target_os = "linux")]
fn die_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: between fork and exec the closure only makes two system calls, both
    // async-signal-safe, and allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(io::Error::last_os_error());
            }
            // pilotfish died before the line above: the signal will never come.
            if libc::getppid() != parent {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_command: &mut Command) {}

/// `~/x` as the shell would have it: configuration files and editors' settings are not
/// expanded by a shell.
fn expand_home(path: &Path) -> PathBuf {
    match (path.strip_prefix("~"), std::env::var_os("HOME")) {
        (Ok(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => path.to_path_buf(),
    }
}

/// The file exists, is readable and is a GGUF file; its header, read.
fn check_model(path: &Path) -> Result<Header> {
    let shown = path.display();
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            bail!("the model file {shown} does not exist")
        }
        Err(e) => bail!("could not read the model file {shown}: {e}"),
    };
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        bail!("{shown} is a folder, not a GGUF model file");
    }
    read_header(io::BufReader::new(file)).map_err(|e| match e {
        GgufError::Io(e) => anyhow::anyhow!("could not read the model file {shown}: {e}"),
        GgufError::NotGguf(start) if start.is_empty() => {
            anyhow::anyhow!("{shown} is empty, not a GGUF file")
        }
        GgufError::NotGguf(start) => {
            let hint = if start.starts_with(b"version https://git-lfs") {
                ": it is a Git LFS pointer, fetch the file itself with `git lfs pull`"
            } else {
                ""
            };
            anyhow::anyhow!(
                "{shown} is not a GGUF file (it starts with {}){hint}",
                show_bytes(&start)
            )
        }
        e => anyhow::anyhow!("{shown} is not a valid GGUF file: {e}"),
    })
}

/// The server binary: `$PILOTFISH_LLAMA_SERVER`, else `llama-server` on PATH, else the newest
/// `llama-server-*` that `tools/llama-server.sh` built into pilotfish's cache.
pub(crate) fn find_server() -> Result<PathBuf> {
    const HOW: &str = "build one with `bash tools/llama-server.sh` from a clone of pilotfish, or install llama.cpp; or start a server yourself and give --endpoint";
    if let Some(p) = std::env::var_os("PILOTFISH_LLAMA_SERVER") {
        let p = PathBuf::from(p);
        if is_executable(&p) {
            return Ok(p);
        }
        bail!(
            "PILOTFISH_LLAMA_SERVER names {}, which is not an executable file: point it at llama.cpp's llama-server ({HOW})",
            p.display()
        );
    }
    if let Some(path) = std::env::var_os("PATH")
        && let Some(p) = std::env::split_paths(&path)
            .map(|dir| dir.join("llama-server"))
            .find(|p| is_executable(p))
    {
        return Ok(p);
    }
    let cache = cache_dir();
    let newest = cache.as_ref().and_then(|dir| {
        std::fs::read_dir(dir)
            .ok()?
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("llama-server-"))
            .map(|e| e.path())
            .filter(|p| is_executable(p))
            .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
    });
    if let Some(p) = newest {
        return Ok(p);
    }
    let looked = cache.map_or(String::new(), |c| format!(" nor in {}", c.display()));
    bail!("no llama-server found (not on PATH{looked}): {HOW}")
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `${PILOTFISH_CACHE:-$HOME/.cache/pilotfish}`.
pub(crate) fn cache_dir() -> Option<PathBuf> {
    std::env::var_os("PILOTFISH_CACHE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/pilotfish")))
}

/// `logs/llama-server-PORT.log` in the cache folder, else in the system's temporary folder.
fn log_path(port: u16) -> PathBuf {
    let name = format!("llama-server-{port}.log");
    cache_dir()
        .map(|c| c.join("logs"))
        .filter(|dir| std::fs::create_dir_all(dir).is_ok())
        .map_or_else(
            || std::env::temp_dir().join(format!("pilotfish-{name}")),
            |d| d.join(&name),
        )
}

/// The last lines of the server's log, for an error that says why it stopped.
fn log_tail(log: &Path) -> String {
    let text = std::fs::read(log).unwrap_or_default();
    let text = String::from_utf8_lossy(&text[text.len().saturating_sub(4096)..]);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(10)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gguf::test_files::model;

    #[test]
    fn the_context_is_the_setting_else_the_trained_length_capped() {
        assert_eq!(context_for(None, Some(32_768)), MAX_CONTEXT);
        assert_eq!(context_for(None, Some(2048)), 2048);
        assert_eq!(context_for(None, None), DEFAULT_CONTEXT);
        assert_eq!(context_for(None, Some(0)), DEFAULT_CONTEXT);
        assert_eq!(context_for(Some(16_384), Some(32_768)), 16_384);
    }

    #[test]
    fn model_files_are_checked_before_anything_starts() {
        let dir = std::env::temp_dir().join(format!("pilotfish-managed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.gguf");
        std::fs::write(&good, model(3)).unwrap();
        assert_eq!(check_model(&good).unwrap().context_length, Some(32_768));
        let error = |name: &str, contents: &[u8]| {
            let path = dir.join(name);
            std::fs::write(&path, contents).unwrap();
            format!("{:#}", check_model(&path).unwrap_err())
        };
        let e = error("notes.txt", b"hello, world\n");
        assert!(
            e.ends_with(r#"notes.txt is not a GGUF file (it starts with "hello, world\n")"#),
            "{e}"
        );
        let e = error("zip.gguf", b"PK\x03\x04\x14\0\0\0");
        assert!(
            e.ends_with(
                "zip.gguf is not a GGUF file (it starts with bytes 50 4b 03 04 14 00 00 00)"
            ),
            "{e}"
        );
        let e = error("lfs.gguf", b"version https://git-lfs.github.com/spec/v1\n");
        assert!(e.contains("a Git LFS pointer"), "{e}");
        let e = error("empty.gguf", b"");
        assert!(e.ends_with("empty.gguf is empty, not a GGUF file"), "{e}");
        let e = error("cut.gguf", &model(3)[..40]);
        assert!(
            e.contains("cut.gguf is not a valid GGUF file: the file ends inside its header"),
            "{e}"
        );
        let e = format!("{:#}", check_model(&dir.join("missing.gguf")).unwrap_err());
        assert!(e.ends_with("missing.gguf does not exist"), "{e}");
        let e = format!("{:#}", check_model(&dir).unwrap_err());
        assert!(e.ends_with("is a folder, not a GGUF model file"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
