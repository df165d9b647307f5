//! Copilot's recent-edits block: the latest edits of open files as small diffs.

use super::{Part, WEIGHT_RECENT_EDITS, chunk_id};
use crate::request::RequestJson;
use crate::{ElementKind, encode_uri_path, relative_path};

/// Pilotfish's own first line of the block, sent unless the caller has Copilot's
/// (`Options::recent_edits_heading`): what the model must take from the block, in our words.
const OWN_HEADING: &str =
    "Edits made lately to open files, newest last; what they removed stays removed.";

/// The file URI Copilot knows a document by (paths without a workspace root are taken from `/`).
fn file_uri(root: Option<&str>, path: &str) -> String {
    let absolute = match (path.starts_with('/'), root) {
        (true, _) => path.to_owned(),
        (false, Some(root)) => format!(
            "{}/{}",
            root.trim_end_matches('/'),
            path.trim_start_matches("./")
        ),
        (false, None) => format!("/{}", path.trim_start_matches("./")),
    };
    format!("file://{}", encode_uri_path(&absolute))
}

/// Copilot's recent-edits block: the latest edits of open files (not those right around the
/// cursor), as small diffs, newest last.
pub(crate) fn recent_edits(request: &RequestJson, root: Option<&str>) -> Option<Part> {
    if request.recent_edits.is_empty() {
        return None;
    }
    let config = crate::recent_edits::RecentEditsConfig::default();
    let mut tracker = crate::recent_edits::RecentEdits::default();
    for snapshot in &request.recent_edits {
        tracker.update(&file_uri(root, &snapshot.path), &snapshot.text, &config);
    }
    let current_uri = file_uri(root, &request.document.path);
    let open: Vec<(String, &str)> = std::iter::once(&request.document)
        .chain(&request.open_documents)
        .map(|d| (file_uri(root, &d.path), d.path.as_str()))
        .collect();
    let edits = tracker.by_time();
    let mut files: Vec<&str> = Vec::new();
    let mut summaries: Vec<String> = Vec::new();
    for edit in edits.iter().rev() {
        if summaries.len() >= config.max_edits {
            break;
        }
        let Some((_, path)) = open.iter().find(|(uri, _)| *uri == edit.file) else {
            continue;
        };
        let new_file = !files.contains(&edit.file.as_str());
        if files.len() + usize::from(new_file) > config.max_files {
            break;
        }
        if edit.file == current_uri
            && crate::recent_edits::too_close_to_cursor(
                edit,
                request.position.line,
                config.active_doc_distance_limit_from_cursor,
            )
        {
            continue;
        }
        if let Some(summary) = crate::recent_edits::summarize(edit, &config) {
            if new_file {
                files.push(&edit.file);
            }
            let shown = relative_path(root, path).unwrap_or_default();
            summaries.insert(
                0,
                format!(
                    "{}{}",
                    languages::new_line_ended(&format!("File: {shown}")),
                    languages::new_line_ended(&summary)
                ),
            );
        }
    }
    if summaries.is_empty() {
        return None;
    }
    let text = format!(
        "{}{}{}",
        languages::new_line_ended(
            request
                .options
                .recent_edits_heading
                .as_deref()
                .unwrap_or(OWN_HEADING)
        ),
        summaries.concat(),
        languages::new_line_ended("End of recent edits")
    );
    Some(Part {
        kind: ElementKind::RecentEdit,
        path: None,
        score: None,
        weight: WEIGHT_RECENT_EDITS,
        values: vec![(text, chunk_id(4, 0))],
        context_index: 1,
    })
}
