//! What pilotfish does when no model server is configured (no `endpoint`, no `gguf`) and none
//! answers where the backend's kind listens by default: `complete` runs the default local model
//! (SmolLM2-135M-Instruct, which `tools/smollm2.sh` caches) on a llama-server of its own when
//! both are already on the machine, and otherwise says in one line how to get a server, naming
//! the address it tried, instead of a bare connection error at the first request; the language
//! server logs that line once.

use std::{
    net::{TcpStream, ToSocketAddrs},
    path::PathBuf,
    time::Duration,
};

use anyhow::{Result, bail};
use backends::Kind;
use host::config::BackendConfig;

/// The file `tools/smollm2.sh` writes into pilotfish's cache folder.
const DEFAULT_MODEL: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

/// How long a server on this machine may take to accept a connection: a listening one
/// accepts at once, so this only bounds an address that drops packets.
const LOOK: Duration = Duration::from_millis(500);

/// What was decided, for the caller to say.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Choice {
    /// A server is configured, or one answers at the default address: nothing to do.
    Configured,
    /// `backend.gguf` now names the cached default model; the line says why.
    CachedModel(String),
}

/// For `complete`: fills in the cached default model when nothing names a server and nothing
/// listens at the default address; fails with the one line that says how to get a server
/// when the cache holds no model or no llama-server either.
pub(crate) fn settle(backend: &mut BackendConfig) -> Result<Choice> {
    let Some((endpoint, refused)) = missing(backend)? else {
        return Ok(Choice::Configured);
    };
    if let Some(model) = cached(backend)? {
        let why = format!(
            "pilotfish: no model server answers at {endpoint} ({refused}) and none is configured; using the default local model {}, which tools/smollm2.sh cached, on a llama-server of pilotfish's own (give --endpoint or --gguf to choose another)",
            model.display()
        );
        backend.gguf = Some(model);
        return Ok(Choice::CachedModel(why));
    }
    bail!("{}", how_to_get_one(&endpoint, &refused))
}

/// For the language server: the one line for its log when nothing names a server and nothing
/// listens at the default address, else `None`. It starts no model of its own: the editor's
/// settings, which come after the server starts, usually name the server, and a model loaded
/// before them would be loaded for nothing; the line gives the setting that would use the
/// cached one.
pub(crate) fn log_line(backend: &BackendConfig) -> Result<Option<String>> {
    let Some((endpoint, refused)) = missing(backend)? else {
        return Ok(None);
    };
    Ok(Some(match cached(backend)? {
        Some(model) => format!(
            "no model server answers at {endpoint} ({refused}) and none is configured: start one, set `endpoint` in [backend] or the editor's settings, or set `gguf = \"{}\"` there to have pilotfish run the default model tools/smollm2.sh cached",
            model.display()
        ),
        None => how_to_get_one(&endpoint, &refused),
    }))
}

/// The default address and why nothing answers there, when no server is named; `None` when
/// one is named or something listens.
fn missing(backend: &BackendConfig) -> Result<Option<(String, String)>> {
    if backend.endpoint.is_some() || backend.gguf.is_some() {
        return Ok(None);
    }
    backend.kind()?;
    let endpoint = backend.endpoint()?;
    Ok(unreachable(&endpoint).map(|refused| (endpoint, refused)))
}

/// The cached default model, when it and a llama-server are on the machine and the backend's
/// kind is one llama-server speaks.
fn cached(backend: &BackendConfig) -> Result<Option<PathBuf>> {
    let served = matches!(
        backend.kind()?,
        Kind::LlamaCppInfill
            | Kind::LlamaCppCompletion
            | Kind::OpenAiCompletions
            | Kind::OpenAiChat
    );
    let model = crate::managed::cache_dir()
        .map(|c| c.join(DEFAULT_MODEL))
        .filter(|p| p.is_file());
    Ok(model.filter(|_| served && crate::managed::find_server().is_ok()))
}

/// The one line for a user with no server: what was tried, and the commands that give one.
fn how_to_get_one(endpoint: &str, refused: &str) -> String {
    format!(
        "no model server answers at {endpoint} ({refused}) and none is configured: start one (`llama-server -m MODEL.gguf --port 8080 -c 4096 -np 1`), give --endpoint URL or --gguf MODEL.gguf, or run `bash tools/smollm2.sh && bash tools/llama-server.sh` in a clone of pilotfish to bring the default model and llama-server, which pilotfish then starts by itself"
    )
}

/// Why nothing listens at `endpoint`, or `None` when something accepts a connection there.
/// An address that does not resolve, or a URL without a host, counts as nothing listening.
fn unreachable(endpoint: &str) -> Option<String> {
    let (host, port) = host_and_port(endpoint)?;
    let addrs: Vec<_> = match (host.as_str(), port).to_socket_addrs() {
        Ok(a) => a.collect(),
        Err(e) => return Some(format!("{host} does not resolve: {e}")),
    };
    let mut last = None;
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, LOOK) {
            Ok(_) => return None,
            Err(e) => last = Some(e.to_string()),
        }
    }
    Some(last.unwrap_or_else(|| format!("{host} has no address")))
}

/// The host and port of an `http://` or `https://` URL (the scheme's port when none is given).
fn host_and_port(endpoint: &str) -> Option<(String, u16)> {
    let (scheme, rest) = endpoint.split_once("://")?;
    let authority = rest.split('/').next()?;
    let authority = authority.rsplit('@').next()?;
    let default = if scheme == "https" { 443 } else { 80 };
    if let Some(v6) = authority.strip_prefix('[') {
        let (host, after) = v6.split_once(']')?;
        let port = after
            .strip_prefix(':')
            .map_or(Some(default), |p| p.parse().ok())?;
        return Some((host.to_owned(), port));
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => Some((host.to_owned(), port.parse().ok()?)),
        None => Some((authority.to_owned(), default)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_and_port_come_from_the_url() {
        assert_eq!(
            host_and_port("http://127.0.0.1:8080"),
            Some(("127.0.0.1".into(), 8080))
        );
        assert_eq!(
            host_and_port("https://example.org/v1"),
            Some(("example.org".into(), 443))
        );
        assert_eq!(
            host_and_port("http://[::1]:9000/x"),
            Some(("::1".into(), 9000))
        );
        assert_eq!(host_and_port("not a url"), None);
    }

    #[test]
    fn a_port_nobody_listens_on_is_unreachable_and_a_listening_one_is_not() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        assert_eq!(unreachable(&format!("http://127.0.0.1:{port}")), None);
        drop(listener);
        let why = unreachable(&format!("http://127.0.0.1:{port}"));
        assert!(why.is_some_and(|w| w.contains("refused")), "nobody listens");
    }
}
