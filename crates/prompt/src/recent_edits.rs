//! Recent edits as Copilot tracks and shows them: documents' successive contents reduced to a
//! few line-based edits per file (close edits merged, old ones folded into the baseline), each
//! summarized as a small unified diff for the prompt.

use tokenizer::utf16::utf16_len;

/// Copilot's recent-edits settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecentEditsConfig {
    /// Files with edits kept at most.
    pub max_files: usize,
    /// Edits kept per file, and shown in a prompt at most.
    pub max_edits: usize,
    /// Lines of unchanged context around a change.
    pub diff_context_lines: usize,
    /// Edits this many lines apart or closer are merged into one.
    pub edit_merge_line_distance: usize,
    /// A change bigger than this (characters of its diff) resets the file's history.
    pub max_chars_per_edit: usize,
    /// Edits of more added or removed lines than this are not shown.
    pub max_lines_per_edit: usize,
    /// Edits in the current file this close to the cursor line are not shown.
    pub active_doc_distance_limit_from_cursor: usize,
}

impl Default for RecentEditsConfig {
    fn default() -> Self {
        RecentEditsConfig {
            max_files: 20,
            max_edits: 8,
            diff_context_lines: 3,
            edit_merge_line_distance: 1,
            max_chars_per_edit: 2000,
            max_lines_per_edit: 10,
            active_doc_distance_limit_from_cursor: 100,
        }
    }
}

/// One change to a file's lines, with its context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    pub file: String,
    /// First line of the hunk, context included (0-based).
    pub pre: usize,
    pub before: Vec<String>,
    pub removed: Vec<String>,
    pub added: Vec<String>,
    pub after: Vec<String>,
}

/// An edit: the lines it replaced and the hunk showing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub file: String,
    pub start_line: usize,
    /// The last replaced line; `start_line - 1` for a pure insertion.
    pub end_line: isize,
    pub diff: Hunk,
    /// A logical clock: later edits have larger values.
    pub timestamp: u64,
}

#[derive(Debug, Clone, Default)]
struct FileState {
    original: String,
    current: String,
    edits: Vec<Edit>,
}

/// The edits of all files, fed with documents' successive contents.
#[derive(Debug, Clone, Default)]
pub struct RecentEdits {
    /// Files in the order they were first seen (the order Copilot's map keeps).
    files: Vec<(String, FileState)>,
    clock: u64,
}

/// Files larger than this (UTF-16 code units) are not tracked.
const MAX_TRACKED_LENGTH: usize = 2 * 1024 * 1024;

impl RecentEdits {
    /// Records that `file` now reads `contents`. The first contents seen for a file are its
    /// baseline.
    pub fn update(&mut self, file: &str, contents: &str, config: &RecentEditsConfig) {
        if utf16_len(contents) > MAX_TRACKED_LENGTH {
            return;
        }
        let Some(index) = self.files.iter().position(|(f, _)| f == file) else {
            self.files.push((
                file.to_owned(),
                FileState {
                    original: contents.to_owned(),
                    current: contents.to_owned(),
                    edits: Vec::new(),
                },
            ));
            return;
        };
        if self.files[index].1.current == contents {
            return;
        }
        let prev_lines: Vec<&str> = self.files[index].1.current.split('\n').collect();
        let new_lines: Vec<&str> = contents.split('\n').collect();
        let Some(span) = change_span(&prev_lines, &new_lines) else {
            self.files[index].1.current = contents.to_owned();
            return;
        };
        let incoming = build_edit(&mut self.clock, file, &prev_lines, &new_lines, span, config);
        if diff_size(&incoming.diff) > config.max_chars_per_edit {
            // A huge change: start the file's history again from here.
            self.files[index].1 = FileState {
                original: contents.to_owned(),
                current: contents.to_owned(),
                edits: Vec::new(),
            };
            return;
        }
        let state = std::mem::take(&mut self.files[index].1);
        let (original, edits) =
            self.merge(state.original, state.edits, incoming, &new_lines, config);
        self.files[index].1 = FileState {
            original,
            current: contents.to_owned(),
            edits,
        };
        self.trim_old_files(config.max_files);
    }

    /// Every edit of every file, oldest first.
    pub fn by_time(&self) -> Vec<&Edit> {
        let mut all: Vec<&Edit> = self
            .files
            .iter()
            .flat_map(|(_, s)| s.edits.iter())
            .collect();
        all.sort_by_key(|e| e.timestamp);
        all
    }

    /// Adds an edit, merging it with the last one when they touch, then folds edits beyond
    /// `max_edits` into the baseline.
    fn merge(
        &mut self,
        mut original: String,
        mut edits: Vec<Edit>,
        incoming: Edit,
        current_lines: &[&str],
        config: &RecentEditsConfig,
    ) -> (String, Vec<Edit>) {
        match edits.last() {
            Some(last) if overlaps(&incoming, last, config.edit_merge_line_distance) => {
                let before_last = apply_edits(
                    original.split('\n').map(str::to_owned).collect(),
                    &edits[..edits.len() - 1],
                );
                let before_last: Vec<&str> = before_last.iter().map(String::as_str).collect();
                // A change that restores the state before the last edit is dropped; the last
                // edit stays, as in Copilot.
                if let Some(span) = change_span(&before_last, current_lines) {
                    let merged = build_edit(
                        &mut self.clock,
                        &incoming.file,
                        &before_last,
                        current_lines,
                        span,
                        config,
                    );
                    edits.pop();
                    edits.push(merged);
                }
            }
            _ => edits.push(incoming),
        }
        if edits.len() > config.max_edits {
            let stale: Vec<Edit> = edits.drain(..edits.len() - config.max_edits).collect();
            original =
                apply_edits(original.split('\n').map(str::to_owned).collect(), &stale).join("\n");
        }
        (original, edits)
    }

    fn trim_old_files(&mut self, max_files: usize) {
        let mut modified: Vec<(u64, String)> = self
            .files
            .iter()
            .filter_map(|(f, s)| s.edits.last().map(|e| (e.timestamp, f.clone())))
            .collect();
        modified.sort_by_key(|(t, _)| *t);
        let trim = modified.len().saturating_sub(max_files);
        for (_, file) in modified.into_iter().take(trim) {
            self.files.retain(|(f, _)| *f != file);
        }
    }
}

/// Builds the edit from `prev` to `next`, stamped with the next tick of `clock`.
fn build_edit(
    clock: &mut u64,
    file: &str,
    prev: &[&str],
    next: &[&str],
    span: Span,
    config: &RecentEditsConfig,
) -> Edit {
    *clock += 1;
    Edit {
        file: file.to_owned(),
        start_line: span.start,
        end_line: span.end_prev,
        diff: hunk(file, prev, next, span, config.diff_context_lines),
        timestamp: *clock,
    }
}

#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end_prev: isize,
    end_new: isize,
}

/// The first and last differing lines of two versions, or `None` when they are the same.
fn change_span(prev: &[&str], next: &[&str]) -> Option<Span> {
    let mut start = 0;
    while start < prev.len() && start < next.len() && prev[start] == next[start] {
        start += 1;
    }
    let mut end_prev = prev.len() as isize - 1;
    let mut end_new = next.len() as isize - 1;
    while end_prev >= start as isize
        && end_new >= start as isize
        && prev[end_prev as usize] == next[end_new as usize]
    {
        end_prev -= 1;
        end_new -= 1;
    }
    if start as isize > end_prev && start as isize > end_new {
        return None;
    }
    Some(Span {
        start,
        end_prev,
        end_new,
    })
}

fn lines(of: &[&str], from: usize, to: usize) -> Vec<String> {
    let to = to.min(of.len());
    if from >= to {
        return Vec::new();
    }
    of[from..to].iter().map(|s| (*s).to_owned()).collect()
}

fn hunk(file: &str, prev: &[&str], next: &[&str], span: Span, context: usize) -> Hunk {
    let pre = span.start.saturating_sub(context);
    let end_new = (span.end_new + 1) as usize;
    let post = next.len().min(end_new + context);
    Hunk {
        file: file.to_owned(),
        pre,
        before: lines(prev, pre, span.start),
        removed: lines(prev, span.start, (span.end_prev + 1) as usize),
        added: lines(next, span.start, end_new),
        after: lines(next, end_new, post),
    }
}

fn diff_size(h: &Hunk) -> usize {
    [&h.before, &h.removed, &h.added, &h.after]
        .into_iter()
        .flatten()
        .map(|l| utf16_len(l) + 1)
        .sum()
}

fn apply_edits(mut lines: Vec<String>, edits: &[Edit]) -> Vec<String> {
    for e in edits {
        let start = e.start_line.min(lines.len());
        let after_end = ((e.end_line + 1).max(0) as usize).clamp(start, lines.len());
        lines.splice(start..after_end, e.diff.added.iter().cloned());
    }
    lines
}

fn overlaps(incoming: &Edit, last: &Edit, distance: usize) -> bool {
    let last_start = last.start_line as isize;
    let last_end = last.start_line as isize + last.diff.added.len() as isize;
    let inc_start = incoming.start_line as isize;
    let inc_end = incoming.end_line + 1;
    let d = distance as isize;
    inc_start <= last_end + d && inc_end >= last_start - d
}

/// The diff Copilot shows for an edit, or `None` for edits it leaves out: blank-only, white
/// space only, or more than `max_lines_per_edit` lines added or removed.
pub fn summarize(edit: &Edit, config: &RecentEditsConfig) -> Option<String> {
    let non_empty = |v: &[String]| -> Vec<String> {
        v.iter()
            .filter(|l| !l.trim_matches(languages::is_js_whitespace).is_empty())
            .cloned()
            .collect()
    };
    let old = non_empty(&edit.diff.removed);
    let new = non_empty(&edit.diff.added);
    if old.is_empty() && new.is_empty() {
        return None;
    }
    if old.concat().trim_matches(languages::is_js_whitespace)
        == new.concat().trim_matches(languages::is_js_whitespace)
    {
        return None;
    }
    if edit.diff.added.len() > config.max_lines_per_edit
        || edit.diff.removed.len() > config.max_lines_per_edit
    {
        return None;
    }
    let h = &edit.diff;
    let old_len = h.before.len() + h.removed.len() + h.after.len();
    let new_len = h.before.len() + h.added.len() + h.after.len();
    let mut out = vec![
        format!("--- a/{}", h.file),
        format!("+++ b/{}", h.file),
        format!("@@ -{},{old_len} +{},{new_len} @@", h.pre + 1, h.pre + 1),
    ];
    out.extend(h.before.iter().map(|l| format!(" {l}")));
    // Copilot puts insertions first and marks deletions so the model does not repeat them.
    out.extend(h.added.iter().map(|l| format!("+{l}")));
    out.extend(h.removed.iter().map(|l| format!("-{l} --- IGNORE ---")));
    out.extend(h.after.iter().map(|l| format!(" {l}")));
    Some(out.join("\n") + "\n")
}

/// Whether an edit in the current file is too close to the cursor to show. Copilot compares
/// the edit's lines less one with the cursor line.
pub fn too_close_to_cursor(edit: &Edit, cursor_line: usize, limit: usize) -> bool {
    let start = edit.start_line as isize - 1;
    let end = edit.end_line - 1;
    let cursor = cursor_line as isize;
    let limit = limit as isize;
    (start - cursor).abs() <= limit || (end - cursor).abs() <= limit
}
