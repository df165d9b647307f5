//! A managed local model: given a GGUF file (`gguf` in `[backend]`, `--gguf`), pilotfish starts
//! llama.cpp's `llama-server` for it on a free loopback port, waits until it answers, and stops
//! it when pilotfish is done. The server's output goes to a log file; the model's trained
//! context is read from the file's own header to size the server's.

use std::{
    fs::File,
    io::{self, Read},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};

use crate::config::BackendConfig;

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

/// The first bytes of a file as text where they are, else in hexadecimal.
fn show_bytes(bytes: &[u8]) -> String {
    let bytes = &bytes[..bytes.len().min(16)];
    if bytes
        .iter()
        .all(|b| b.is_ascii_graphic() || b.is_ascii_whitespace())
    {
        format!("{:?}", String::from_utf8_lossy(bytes))
    } else {
        let hex: Vec<String> = bytes.iter().take(8).map(|b| format!("{b:02x}")).collect();
        format!("bytes {}", hex.join(" "))
    }
}

/// The server binary: `$PILOTFISH_LLAMA_SERVER`, else `llama-server` on PATH, else the newest
/// `llama-server-*` that `tools/llama-server.sh` built into pilotfish's cache.
fn find_server() -> Result<PathBuf> {
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
fn cache_dir() -> Option<PathBuf> {
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

/// What pilotfish reads from a GGUF file's header.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) version: u32,
    pub(crate) tensors: u64,
    /// `general.architecture`, such as `llama` or `qwen2`.
    pub(crate) architecture: Option<String>,
    /// `<architecture>.context_length`: the context the model was trained with.
    pub(crate) context_length: Option<u64>,
}

/// Why a header could not be read.
#[derive(Debug)]
pub(crate) enum GgufError {
    /// The file does not start with `GGUF`; its first bytes (up to 32).
    NotGguf(Vec<u8>),
    /// The file ends inside its header.
    Truncated,
    Malformed(String),
    Io(io::Error),
}

impl std::fmt::Display for GgufError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GgufError::NotGguf(start) => {
                write!(f, "no GGUF magic (it starts with {})", show_bytes(start))
            }
            GgufError::Truncated => {
                write!(f, "the file ends inside its header (a download cut short?)")
            }
            GgufError::Malformed(why) => write!(f, "{why}"),
            GgufError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for GgufError {}

/// The longest key the format allows.
const MAX_KEY: u64 = 65_535;
/// Metadata past this many bytes is not read: the keys pilotfish wants come early, and a
/// damaged file must not be read to its end.
const MAX_METADATA: u64 = 256 << 20;
/// Arrays of arrays deeper than this are taken as damage.
const MAX_DEPTH: u32 = 3;

/// Reads the header of a GGUF file: magic, version, tensor and key counts, then the key/value
/// pairs up to the ones wanted. Any bytes give a value or an error, never a panic, and nothing
/// is allocated by a length the file claims beyond a key's 64 KiB.
pub(crate) fn read_header(input: impl Read) -> Result<Header, GgufError> {
    let mut r = Reader {
        input,
        read: 0,
        v1: false,
    };
    let mut magic = Vec::with_capacity(16);
    (&mut r.input)
        .take(4)
        .read_to_end(&mut magic)
        .map_err(GgufError::Io)?;
    if magic != b"GGUF" {
        // A few more bytes make the error readable ("<!DOCTYPE html>", "version https://...").
        let _ = (&mut r.input).take(28).read_to_end(&mut magic);
        return Err(GgufError::NotGguf(magic));
    }
    let version = r.u32()?;
    let mut header = Header {
        version,
        ..Header::default()
    };
    if !(1..=3).contains(&version) {
        // A newer (or big-endian) file: llama-server may read it; pilotfish only misses the
        // trained context.
        return Ok(header);
    }
    r.v1 = version == 1;
    header.tensors = r.count()?;
    let keys = r.count()?;
    // `<arch>.context_length` may come before `general.architecture`: a few candidates are kept.
    let mut lengths: Vec<(String, u64)> = Vec::new();
    for _ in 0..keys {
        if r.read > MAX_METADATA {
            break;
        }
        let key = r.key()?;
        let ty = r.u32()?;
        if key == "general.architecture" && ty == STRING {
            header.architecture = r.short_string(256)?;
        } else if key.ends_with(".context_length") {
            if let Some(n) = r.integer(ty)?
                && lengths.len() < 16
            {
                lengths.push((key, n));
            }
        } else {
            r.skip_value(ty, 0)?;
        }
        if let Some(arch) = &header.architecture
            && let Some((_, n)) = lengths
                .iter()
                .find(|(k, _)| k.strip_suffix(".context_length") == Some(arch.as_str()))
        {
            header.context_length = Some(*n);
            break;
        }
    }
    Ok(header)
}

const STRING: u32 = 8;
const ARRAY: u32 = 9;

struct Reader<R> {
    input: R,
    /// Bytes read so far.
    read: u64,
    /// Version 1 has 32-bit counts and lengths.
    v1: bool,
}

impl<R: Read> Reader<R> {
    fn bytes<const N: usize>(&mut self) -> Result<[u8; N], GgufError> {
        let mut buf = [0; N];
        self.input.read_exact(&mut buf).map_err(eof)?;
        self.read += N as u64;
        Ok(buf)
    }

    fn u32(&mut self) -> Result<u32, GgufError> {
        Ok(u32::from_le_bytes(self.bytes()?))
    }

    fn u64(&mut self) -> Result<u64, GgufError> {
        Ok(u64::from_le_bytes(self.bytes()?))
    }

    /// A count or a length: 64 bits, or 32 in version 1.
    fn count(&mut self) -> Result<u64, GgufError> {
        if self.v1 {
            self.u32().map(u64::from)
        } else {
            self.u64()
        }
    }

    fn skip(&mut self, n: u64) -> Result<(), GgufError> {
        let got =
            io::copy(&mut (&mut self.input).take(n), &mut io::sink()).map_err(GgufError::Io)?;
        self.read = self.read.saturating_add(got);
        if got < n {
            return Err(GgufError::Truncated);
        }
        Ok(())
    }

    fn key(&mut self) -> Result<String, GgufError> {
        let len = self.count()?;
        if len > MAX_KEY {
            return Err(GgufError::Malformed(format!(
                "a metadata key of {len} bytes, more than the format allows"
            )));
        }
        let mut buf = Vec::new();
        let got = (&mut self.input)
            .take(len)
            .read_to_end(&mut buf)
            .map_err(GgufError::Io)?;
        self.read += got as u64;
        if (got as u64) < len {
            return Err(GgufError::Truncated);
        }
        String::from_utf8(buf)
            .map_err(|_| GgufError::Malformed("a metadata key that is not UTF-8".into()))
    }

    /// A string value: its text if at most `max` bytes of UTF-8, else skipped.
    fn short_string(&mut self, max: u64) -> Result<Option<String>, GgufError> {
        let len = self.count()?;
        if len > max {
            self.skip(len)?;
            return Ok(None);
        }
        let mut buf = Vec::new();
        let got = (&mut self.input)
            .take(len)
            .read_to_end(&mut buf)
            .map_err(GgufError::Io)?;
        self.read += got as u64;
        if (got as u64) < len {
            return Err(GgufError::Truncated);
        }
        Ok(String::from_utf8(buf).ok())
    }

    /// An integer value of any width; `None` (the value skipped) for other types and
    /// negative numbers.
    fn integer(&mut self, ty: u32) -> Result<Option<u64>, GgufError> {
        Ok(match ty {
            0 => Some(u64::from(self.bytes::<1>()?[0])),
            1 => u64::try_from(i8::from_le_bytes(self.bytes()?)).ok(),
            2 => Some(u64::from(u16::from_le_bytes(self.bytes()?))),
            3 => u64::try_from(i16::from_le_bytes(self.bytes()?)).ok(),
            4 => Some(u64::from(self.u32()?)),
            5 => u64::try_from(i32::from_le_bytes(self.bytes()?)).ok(),
            10 => Some(self.u64()?),
            11 => u64::try_from(i64::from_le_bytes(self.bytes()?)).ok(),
            _ => {
                self.skip_value(ty, 0)?;
                None
            }
        })
    }

    fn skip_value(&mut self, ty: u32, depth: u32) -> Result<(), GgufError> {
        if let Some(size) = fixed_size(ty) {
            return self.skip(size);
        }
        match ty {
            STRING => {
                let len = self.count()?;
                self.skip(len)
            }
            ARRAY => {
                if depth >= MAX_DEPTH {
                    return Err(GgufError::Malformed("arrays nested too deep".into()));
                }
                let element = self.u32()?;
                let n = self.count()?;
                if let Some(size) = fixed_size(element) {
                    let total = n
                        .checked_mul(size)
                        .ok_or_else(|| GgufError::Malformed(format!("an array of {n} elements")))?;
                    return self.skip(total);
                }
                // Strings and arrays one by one: each takes at least 4 bytes of the file, so
                // a false count ends at the end of the file or of the metadata allowed.
                for _ in 0..n {
                    if self.read > MAX_METADATA {
                        return Err(GgufError::Malformed(format!(
                            "an array of {n} elements that does not end within {} MiB",
                            MAX_METADATA >> 20
                        )));
                    }
                    self.skip_value(element, depth + 1)?;
                }
                Ok(())
            }
            _ => Err(GgufError::Malformed(format!("an unknown value type {ty}"))),
        }
    }
}

/// The size of a value of fixed size: integers, floats and booleans.
fn fixed_size(ty: u32) -> Option<u64> {
    match ty {
        0 | 1 | 7 => Some(1),
        2 | 3 => Some(2),
        4..=6 => Some(4),
        10..=12 => Some(8),
        _ => None,
    }
}

fn eof(e: io::Error) -> GgufError {
    if e.kind() == io::ErrorKind::UnexpectedEof {
        GgufError::Truncated
    } else {
        GgufError::Io(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GGUF value, for building files in tests.
    enum V {
        U32(u32),
        U64(u64),
        I32(i32),
        F32(f32),
        Bool(bool),
        Str(&'static str),
        Strings(Vec<String>),
        Ints(Vec<i32>),
        Nested(Vec<Vec<&'static str>>),
    }

    fn string(out: &mut Vec<u8>, s: &str, v1: bool) {
        count(out, s.len() as u64, v1);
        out.extend_from_slice(s.as_bytes());
    }

    fn count(out: &mut Vec<u8>, n: u64, v1: bool) {
        if v1 {
            out.extend_from_slice(&(n as u32).to_le_bytes());
        } else {
            out.extend_from_slice(&n.to_le_bytes());
        }
    }

    /// A GGUF file of `version` with these key/value pairs and no tensors.
    fn gguf(version: u32, kvs: &[(&str, V)]) -> Vec<u8> {
        let v1 = version == 1;
        let mut out = b"GGUF".to_vec();
        out.extend_from_slice(&version.to_le_bytes());
        count(&mut out, 0, v1);
        count(&mut out, kvs.len() as u64, v1);
        for (key, value) in kvs {
            string(&mut out, key, v1);
            let ty = |out: &mut Vec<u8>, t: u32| out.extend_from_slice(&t.to_le_bytes());
            match value {
                V::U32(n) => {
                    ty(&mut out, 4);
                    out.extend_from_slice(&n.to_le_bytes());
                }
                V::U64(n) => {
                    ty(&mut out, 10);
                    out.extend_from_slice(&n.to_le_bytes());
                }
                V::I32(n) => {
                    ty(&mut out, 5);
                    out.extend_from_slice(&n.to_le_bytes());
                }
                V::F32(x) => {
                    ty(&mut out, 6);
                    out.extend_from_slice(&x.to_le_bytes());
                }
                V::Bool(b) => {
                    ty(&mut out, 7);
                    out.push(u8::from(*b));
                }
                V::Str(s) => {
                    ty(&mut out, STRING);
                    string(&mut out, s, v1);
                }
                V::Strings(items) => {
                    ty(&mut out, ARRAY);
                    ty(&mut out, STRING);
                    count(&mut out, items.len() as u64, v1);
                    for s in items {
                        string(&mut out, s, v1);
                    }
                }
                V::Ints(items) => {
                    ty(&mut out, ARRAY);
                    ty(&mut out, 5);
                    count(&mut out, items.len() as u64, v1);
                    for n in items {
                        out.extend_from_slice(&n.to_le_bytes());
                    }
                }
                V::Nested(rows) => {
                    ty(&mut out, ARRAY);
                    ty(&mut out, ARRAY);
                    count(&mut out, rows.len() as u64, v1);
                    for row in rows {
                        ty(&mut out, STRING);
                        count(&mut out, row.len() as u64, v1);
                        for s in row {
                            string(&mut out, s, v1);
                        }
                    }
                }
            }
        }
        out
    }

    /// A header as a converted model has it: the vocabulary (arrays of strings) between the
    /// architecture and its context length.
    fn model(version: u32) -> Vec<u8> {
        let vocab: Vec<String> = (0..500).map(|i| format!("tok{i}")).collect();
        gguf(
            version,
            &[
                ("general.name", V::Str("tiny")),
                ("tokenizer.ggml.tokens", V::Strings(vocab)),
                ("tokenizer.ggml.token_type", V::Ints(vec![1; 500])),
                ("bert.context_length", V::U32(512)),
                ("general.architecture", V::Str("qwen2")),
                ("qwen2.rope.freq_base", V::F32(1e6)),
                ("tokenizer.ggml.add_bos_token", V::Bool(true)),
                ("nested", V::Nested(vec![vec!["a", "b"], vec![]])),
                ("qwen2.context_length", V::U64(32_768)),
                ("after", V::I32(-1)),
            ],
        )
    }

    #[test]
    fn reads_the_architectures_context_length_past_arrays_of_strings() {
        for version in [1, 2, 3] {
            let h = read_header(model(version).as_slice()).unwrap();
            assert_eq!(h.version, version);
            assert_eq!(h.architecture.as_deref(), Some("qwen2"));
            assert_eq!(h.context_length, Some(32_768), "version {version}");
        }
    }

    #[test]
    fn a_context_length_before_the_architecture_counts() {
        let file = gguf(
            3,
            &[
                ("llama.context_length", V::I32(4096)),
                ("general.architecture", V::Str("llama")),
            ],
        );
        let h = read_header(file.as_slice()).unwrap();
        assert_eq!(h.context_length, Some(4096));
        // No architecture: no length, even with one of some other model's.
        let file = gguf(3, &[("llama.context_length", V::U32(4096))]);
        assert_eq!(read_header(file.as_slice()).unwrap().context_length, None);
        // A negative length is no length.
        let file = gguf(
            3,
            &[
                ("general.architecture", V::Str("llama")),
                ("llama.context_length", V::I32(-5)),
            ],
        );
        assert_eq!(read_header(file.as_slice()).unwrap().context_length, None);
    }

    #[test]
    fn other_files_are_named_by_how_they_start() {
        let e = read_header(b"<!DOCTYPE html><html>".as_slice()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no GGUF magic (it starts with \"<!DOCTYPE html><\")"
        );
        let e = read_header([0x7f, b'E', b'L', b'F', 2, 1].as_slice()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no GGUF magic (it starts with bytes 7f 45 4c 46 02 01)"
        );
        assert!(matches!(
            read_header(b"".as_slice()),
            Err(GgufError::NotGguf(s)) if s.is_empty()
        ));
        // A version pilotfish does not know: the file is a GGUF file, its length unknown.
        let mut future = b"GGUF".to_vec();
        future.extend_from_slice(&7u32.to_le_bytes());
        assert_eq!(read_header(future.as_slice()).unwrap().context_length, None);
    }

    #[test]
    fn a_header_cut_anywhere_is_an_error_not_a_panic() {
        let file = model(3);
        let whole = read_header(file.as_slice()).unwrap();
        // The reader stops at the length it wants, so cuts after it still give the header.
        let mut last_error = 0;
        for cut in 0..file.len() {
            match read_header(&file[..cut]) {
                Ok(h) => assert_eq!(h, whole, "cut at {cut}"),
                Err(_) => last_error = cut,
            }
        }
        assert!(last_error > file.len() - 30, "{last_error}");
    }

    /// Fuzzing in miniature: random bytes after the magic, and the model's header with random
    /// bytes changed, always give an answer; claimed lengths of up to 2^64 allocate nothing.
    #[test]
    fn random_and_damaged_headers_never_panic() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            // xorshift64*: deterministic, so a failure can be replayed.
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        let base = model(3);
        for round in 0..20_000 {
            let bytes = if round % 2 == 0 {
                let mut b = b"GGUF".to_vec();
                b.extend_from_slice(&[(round % 4) as u8, 0, 0, 0]);
                let len = (next() % 200) as usize;
                b.extend((0..len).map(|_| {
                    // Small values often, so that types and short lengths come up.
                    let r = next();
                    if r % 3 == 0 {
                        (r >> 8) as u8
                    } else {
                        (r >> 8) as u8 % 13
                    }
                }));
                b
            } else {
                let mut b = base.clone();
                for _ in 0..=next() % 4 {
                    let at = (next() as usize) % b.len();
                    b[at] = (next() >> 16) as u8;
                }
                b.truncate((next() as usize) % (b.len() + 1));
                b
            };
            let _ = read_header(bytes.as_slice());
        }
        // The largest claims, explicitly: an array of 2^64-1 strings, a string of 2^64-1 bytes.
        let mut huge = b"GGUF".to_vec();
        huge.extend_from_slice(&3u32.to_le_bytes());
        huge.extend_from_slice(&0u64.to_le_bytes());
        huge.extend_from_slice(&u64::MAX.to_le_bytes());
        huge.extend_from_slice(&1u64.to_le_bytes());
        huge.push(b'k');
        huge.extend_from_slice(&ARRAY.to_le_bytes());
        huge.extend_from_slice(&STRING.to_le_bytes());
        huge.extend_from_slice(&u64::MAX.to_le_bytes());
        huge.extend_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(
            read_header(huge.as_slice()),
            Err(GgufError::Truncated)
        ));
    }

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
