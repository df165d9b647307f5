//! Copilot's own prompt texts, read where the user has them. Pilotfish does not ship them:
//! `tools/copilot-texts.sh` takes them from Copilot's package (`@vscode/chat-lib` 0.66.0) into
//! pilotfish's cache folder, and they are used only if their hash is that of the texts that
//! version sends. The `copilot` next-edit strategy sends them (its system message and
//! instructions), and so does the `copilot` completion strategy (the heading of its recent-edits
//! block); without them both send pilotfish's own wording, and the front end says once what to
//! run for Copilot's exact request.

use std::path::{Path, PathBuf};

use nes::strategies::copilot::Wording;

/// The variable that names the texts file, before the configuration's `[next_edit]
/// copilot_texts` and the cache folder.
pub const ENV: &str = "PILOTFISH_COPILOT_TEXTS";

/// The file's name in pilotfish's cache folder, where `tools/copilot-texts.sh` writes it.
pub const FILE_NAME: &str = "copilot-texts.json";

/// Where the texts must come from.
pub const SOURCE: &str = "@vscode/chat-lib 0.66.0";

/// What to run to get Copilot's texts.
pub const FETCH: &str = "run `bash tools/copilot-texts.sh` in pilotfish's source tree";

/// SHA-256 of the file's texts (`nes_system`, `nes_postscript`, `recent_edits_heading`, joined
/// by NUL characters) as `SOURCE` sends them. A hash, not the texts: it tells whether texts read
/// at run time are Copilot's without pilotfish holding them.
const SHA256: &str = "7d80e56c78f4791fc738e2f4e1a0570c06f02de047746217502a3aa19c7134b9";

/// The texts the strategies that imitate Copilot send, and, when they are not Copilot's, why
/// and what to do, for the front end to say once.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The `copilot` next-edit strategy's system message and instructions.
    pub wording: Wording,
    /// The `copilot` completion strategy's recent-edits heading (`None`: pilotfish's own).
    pub recent_edits_heading: Option<String>,
    pub notice: Option<String>,
}

/// Why a texts file is not taken as Copilot's.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TextsError {
    #[error(
        "it is not a texts file of tools/copilot-texts.sh (JSON with `nes_system`, `nes_postscript` and `recent_edits_heading`): {0}"
    )]
    Malformed(String),
    #[error(
        "its texts are not those of {SOURCE} (their SHA-256 is {found}, {SOURCE}'s is {SHA256})"
    )]
    Differ { found: String },
}

#[derive(serde::Deserialize)]
struct TextsFile {
    nes_system: String,
    nes_postscript: String,
    recent_edits_heading: String,
}

/// Reads the texts from `$PILOTFISH_COPILOT_TEXTS`, else from `configured` (`[next_edit]
/// copilot_texts`), else from the cache folder. Never fails: without Copilot's texts the
/// wording is pilotfish's and the notice says why.
pub fn load(configured: Option<&Path>) -> Loaded {
    let Some(path) = locate(configured) else {
        return own(format!(
            "pilotfish's cache folder is unknown (neither PILOTFISH_CACHE, XDG_CACHE_HOME nor \
             HOME is set) and {ENV} names no file"
        ));
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => match parse(&text) {
            Ok(loaded) => loaded,
            Err(e) => own(format!("{} was not used: {e}", path.display())),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            own(format!("Copilot's texts are not at {}", path.display()))
        }
        Err(e) => own(format!("could not read {}: {e}", path.display())),
    }
}

/// Copilot's texts from the contents of a texts file, if they are the ones [`SOURCE`] sends.
pub fn parse(file: &str) -> Result<Loaded, TextsError> {
    let texts: TextsFile =
        serde_json::from_str(file).map_err(|e| TextsError::Malformed(e.to_string()))?;
    let found = sha256_hex(&[
        &texts.nes_system,
        &texts.nes_postscript,
        &texts.recent_edits_heading,
    ]);
    if found != SHA256 {
        return Err(TextsError::Differ { found });
    }
    Ok(Loaded {
        wording: Wording::copilots(texts.nes_system, texts.nes_postscript),
        recent_edits_heading: Some(texts.recent_edits_heading),
        notice: None,
    })
}

/// The texts file to read: the variable's, the configuration's, or the cache folder's.
pub fn locate(configured: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(ENV).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    if let Some(p) = configured {
        return Some(p.to_owned());
    }
    cache_dir().map(|d| d.join(FILE_NAME))
}

/// Pilotfish's cache folder, as `tools/copilot-texts.sh` chooses it: `$PILOTFISH_CACHE`, else
/// `$XDG_CACHE_HOME/pilotfish`, else `~/.cache/pilotfish`.
pub fn cache_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(p) = var("PILOTFISH_CACHE") {
        return Some(PathBuf::from(p));
    }
    if let Some(p) = var("XDG_CACHE_HOME") {
        return Some(PathBuf::from(p).join("pilotfish"));
    }
    var("HOME").map(|h| PathBuf::from(h).join(".cache").join("pilotfish"))
}

/// Pilotfish's own wording, and the notice that says why and what to do.
fn own(why: String) -> Loaded {
    Loaded {
        wording: Wording::pilotfish(),
        recent_edits_heading: None,
        notice: Some(format!(
            "{why}; the `copilot` strategies send pilotfish's own wording of Copilot's prompt \
             texts instead; for the requests Copilot sends, word for word, {FETCH}"
        )),
    }
}

/// The SHA-256 of `texts` joined by NUL characters, in lower-case hexadecimal.
fn sha256_hex(texts: &[&str]) -> String {
    use sha2::Digest as _;
    use std::fmt::Write as _;
    let mut hash = sha2::Sha256::new();
    for (i, t) in texts.iter().enumerate() {
        if i > 0 {
            hash.update([0]);
        }
        hash.update(t.as_bytes());
    }
    hash.finalize().iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_sha256() {
        // FIPS 180-2's example: "abc".
        assert_eq!(
            sha256_hex(&["abc"]),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(sha256_hex(&["a", "b"]), sha256_hex(&["a\0b"]));
    }

    #[test]
    fn texts_of_another_hash_or_shape_are_refused_and_say_so() {
        let file =
            r#"{"nes_system": "x", "nes_postscript": "y {path}", "recent_edits_heading": "z"}"#;
        let err = parse(file).unwrap_err();
        assert!(matches!(&err, TextsError::Differ { found } if found.len() == 64));
        assert!(err.to_string().contains(SOURCE), "{err}");
        for bad in ["", "{}", "[1]", r#"{"nes_system": 1}"#] {
            assert!(
                matches!(parse(bad), Err(TextsError::Malformed(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn a_missing_or_foreign_file_gives_pilotfishs_wording_and_says_what_to_run() {
        let dir = std::env::temp_dir().join(format!("pilotfish-texts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = dir.join("none.json");
        let foreign = dir.join("foreign.json");
        std::fs::write(
            &foreign,
            r#"{"nes_system": "x", "nes_postscript": "y {path}", "recent_edits_heading": "z"}"#,
        )
        .unwrap();
        // The variable would win over the path given here; the tests do not set it.
        if std::env::var_os(ENV).is_none() {
            for (path, says) in [(&missing, "are not at"), (&foreign, "SHA-256")] {
                let loaded = load(Some(path));
                assert!(!loaded.wording.is_copilots());
                assert_eq!(loaded.recent_edits_heading, None);
                let notice = loaded.notice.expect("a notice");
                assert!(notice.contains(says), "{notice}");
                assert!(notice.contains("tools/copilot-texts.sh"), "{notice}");
                assert!(notice.contains(&path.display().to_string()), "{notice}");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
