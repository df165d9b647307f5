//! The session methods beyond a session's turns: `session/load` (the saved conversation
//! replayed, then continued), `session/resume` (continued without replay), `session/list`,
//! `session/close`, `session/delete`, `session/set_config_option`, and `$/cancel_request` for
//! a prompt in flight. Kept apart from the core dispatch in `lib.rs`.

use std::{
    path::Path,
    sync::{Arc, atomic::Ordering},
};

use serde_json::{Value, json};

use crate::{
    Server,
    rpc::{METHOD_NOT_FOUND, RpcError},
    session,
};

/// The answers of the methods this module serves; `None` for a method it does not know.
pub(crate) fn request(
    server: &Server,
    method: &str,
    params: &Value,
) -> Option<Result<Value, RpcError>> {
    Some(match method {
        "session/list" => list(server, params),
        "session/close" => close(server, params),
        "session/delete" => delete(server, params),
        "session/set_config_option" => server
            .session_of(params)
            .and_then(|h| crate::choices::set(&h, params, &server.conn)),
        _ => return None,
    })
}

/// An unknown method's error.
pub(crate) fn unknown(method: &str) -> RpcError {
    RpcError {
        code: METHOD_NOT_FOUND,
        message: format!("pilotfish does not know the method {method}"),
    }
}

fn store(server: &Server) -> Result<&host::session_store::Store, RpcError> {
    server.options.store.as_ref().ok_or_else(|| {
        RpcError::internal(
            "there is no state folder for saved sessions: set HOME or XDG_STATE_HOME",
        )
    })
}

/// `session/list {cwd?}`: the saved conversations, the most recent first.
fn list(server: &Server, params: &Value) -> Result<Value, RpcError> {
    // The workspace as sessions record it: its real path.
    let cwd = params["cwd"]
        .as_str()
        .map(|c| std::fs::canonicalize(c).unwrap_or_else(|_| Path::new(c).to_path_buf()));
    let found = store(server)?
        .list(cwd.as_deref())
        .map_err(|e| RpcError::internal(e.to_string()))?;
    let sessions: Vec<Value> = found
        .iter()
        .map(|s| {
            json!({"sessionId": s.id, "cwd": s.cwd, "title": s.title,
                "updatedAt": s.updated_iso()})
        })
        .collect();
    Ok(json!({ "sessions": sessions }))
}

/// `session/close {sessionId}`: its turn stops and the session is let go (its MCP servers
/// stop); the saved conversation stays.
fn close(server: &Server, params: &Value) -> Result<Value, RpcError> {
    let handle = server.session_of(params)?;
    handle.cancel.store(true, Ordering::SeqCst);
    handle.closed.store(true, Ordering::SeqCst);
    server
        .sessions
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&handle.id);
    Ok(json!({}))
}

/// `session/delete {sessionId}`: the saved conversation is removed (and closed if open).
fn delete(server: &Server, params: &Value) -> Result<Value, RpcError> {
    let Some(id) = params["sessionId"].as_str() else {
        return Err(RpcError::invalid_params("`sessionId` is missing"));
    };
    if server.session(id).is_some() {
        close(server, params)?;
    }
    match store(server)?.delete(id) {
        Ok(true) => Ok(json!({})),
        Ok(false) => Err(RpcError::invalid_params(format!(
            "there is no saved session {id}"
        ))),
        Err(e) => Err(RpcError::invalid_params(e.to_string())),
    }
}

/// `session/load` (`replay`) or `session/resume`: opens the saved conversation `sessionId` in
/// `cwd` and continues it; a load first tells it again as `session/update`s.
pub(crate) fn reopen(server: &Server, params: &Value, replay: bool) -> Result<Value, RpcError> {
    let Some(id) = params["sessionId"].as_str() else {
        return Err(RpcError::invalid_params("`sessionId` is missing"));
    };
    let saved = store(server)?
        .load(id)
        .map_err(|e| RpcError::invalid_params(e.to_string()))?
        .ok_or_else(|| {
            RpcError::invalid_params(format!(
                "there is no saved session {id}; session/list shows those there are"
            ))
        })?;
    let handle = server.open_session(id.to_owned(), params)?;
    if saved.cwd != handle.root.to_string_lossy() {
        return Err(RpcError::invalid_params(format!(
            "the session {id} belongs to the workspace {}, not {}",
            saved.cwd,
            handle.root.display()
        )));
    }
    if replay {
        for update in crate::replay::updates(&saved, &handle.root) {
            server
                .conn
                .notify("session/update", json!({"sessionId": id, "update": update}));
        }
    }
    session::restore(&handle, saved);
    let answer = json!({"modes": session::modes(&handle),
        "configOptions": crate::choices::options(&handle)});
    let old = server
        .sessions
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(id.to_owned(), Arc::clone(&handle));
    // The same conversation opened again: the older copy stops.
    if let Some(old) = old {
        old.cancel.store(true, Ordering::SeqCst);
        old.closed.store(true, Ordering::SeqCst);
    }
    Ok(answer)
}

/// `$/cancel_request {requestId}`: a prompt in flight stops (it answers `cancelled`); other
/// requests are answered quickly anyway.
pub(crate) fn cancel_request(server: &Server, params: &Value) {
    let key = params["requestId"].to_string();
    let session = server
        .inflight
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&key)
        .cloned();
    match session.and_then(|s| server.session(&s)) {
        Some(handle) => handle.cancel.store(true, Ordering::SeqCst),
        None => eprintln!("pilotfish acp: $/cancel_request for no prompt in flight ({key})"),
    }
}
