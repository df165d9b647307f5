//! The search tools: `file_search` (globs), `grep_search`, `search_codebase` (a small workspace
//! whole, a large one ranked) and `get_changed_files` (git, excluded files left out).

use agent::conversation::Outcome;

use super::{SMALL_WORKSPACE, Workspace};

impl Workspace {
    pub(super) fn file_search(&self, query: &str) -> Outcome {
        let glob = match globset::GlobBuilder::new(query)
            .literal_separator(true)
            .build()
        {
            Ok(g) => g.compile_matcher(),
            Err(e) => return Outcome::failed(format!("`{query}` is not a valid glob: {e}")),
        };
        let found: Vec<String> = self
            .files()
            .iter()
            .map(|p| self.shown(p))
            .filter(|p| glob.is_match(p) || glob.is_match(format!("/{p}")))
            .take(20)
            .collect();
        Outcome::done(if found.is_empty() {
            "no file matches".to_owned()
        } else {
            found.join("\n")
        })
    }

    pub(super) fn grep_search(&self, query: &str, regexp: bool, include: Option<&str>) -> Outcome {
        let pattern = if regexp {
            query.to_owned()
        } else {
            regex::escape(query)
        };
        let re = match regex::Regex::new(&pattern) {
            Ok(r) => r,
            Err(e) => {
                return Outcome::failed(format!(
                    "`{query}` is not a valid regular expression: {e}"
                ));
            }
        };
        let include =
            match include.map(|g| globset::GlobBuilder::new(g).literal_separator(true).build()) {
                Some(Ok(g)) => Some(g.compile_matcher()),
                Some(Err(e)) => {
                    return Outcome::failed(format!("includePattern is not a valid glob: {e}"));
                }
                None => None,
            };
        let mut hits = Vec::new();
        for path in self.files() {
            let shown = self.shown(&path);
            if include.as_ref().is_some_and(|g| !g.is_match(&shown)) {
                continue;
            }
            let Ok(text) = self.read_disk(&path) else {
                continue;
            };
            for (i, line) in text.lines().enumerate() {
                if re.is_match(line) {
                    hits.push(format!("{shown}:{i}: {}", line.trim()));
                    if hits.len() == 20 {
                        return Outcome::done(hits.join("\n"));
                    }
                }
            }
        }
        Outcome::done(if hits.is_empty() {
            "no match".to_owned()
        } else {
            hits.join("\n")
        })
    }

    pub(super) fn search_codebase(&self, query: &str) -> Outcome {
        let texts: Vec<(String, String)> = self
            .files()
            .iter()
            .filter_map(|p| Some((self.shown(p), self.read_disk(p).ok()?)))
            .collect();
        let total: usize = texts.iter().map(|(_, t)| t.len()).sum();
        // A small workspace is given whole: nothing can be missed.
        if total <= SMALL_WORKSPACE {
            let mut out = String::from("The workspace is small: here is all of it.\n");
            for (path, text) in &texts {
                out.push_str(&format!("\n─── {path} ───\n{text}\n"));
            }
            return Outcome::done(out);
        }
        let index =
            retrieval::search::Index::build(texts.iter().map(|(p, t)| (p.as_str(), t.as_str())));
        let hits = index.search(query, 8);
        if hits.is_empty() {
            return Outcome::done(
                "nothing in the workspace matches those words; try the names the code would use",
            );
        }
        let mut out = String::new();
        for h in hits {
            let c = &h.chunk;
            out.push_str(&format!(
                "─── {} lines {}-{} ───\n{}\n",
                c.path, c.start_line, c.end_line, c.text
            ));
        }
        Outcome::done(out)
    }

    pub(super) fn changed_files(&self, states: &[String]) -> Outcome {
        let want = |s: &str| states.is_empty() || states.iter().any(|x| x == s);
        let mut out = String::new();
        let git = |args: &[&str]| {
            // Git runs the workspace's configuration (diff drivers, hooks): confined too.
            let argv: Vec<String> = std::iter::once("git")
                .chain(args.iter().copied())
                .map(String::from)
                .collect();
            self.runner
                .command(&argv)
                .ok()?
                .current_dir(&self.root)
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        };
        if git(&["rev-parse", "--git-dir"]).is_none() {
            return Outcome::failed("the workspace is not a git repository");
        }
        if want("staged") {
            out.push_str(&format!(
                "staged:\n{}\n",
                git(&["diff", "--cached"]).unwrap_or_default()
            ));
        }
        if want("unstaged") {
            out.push_str(&format!(
                "unstaged:\n{}\n",
                git(&["diff"]).unwrap_or_default()
            ));
        }
        if want("merge-conflicts") {
            out.push_str(&format!(
                "merge conflicts:\n{}\n",
                git(&["diff", "--name-only", "--diff-filter=U"]).unwrap_or_default()
            ));
        }
        // Changes in ignored files are not shown.
        Outcome::done(self.without_excluded_diffs(&out))
    }

    /// A diff with the sections of excluded files left out.
    fn without_excluded_diffs(&self, diff: &str) -> String {
        let mut out = String::new();
        let mut keep = true;
        for line in diff.lines() {
            if let Some(rest) = line.strip_prefix("diff --git a/") {
                let path = rest.split(" b/").next().unwrap_or(rest);
                keep = self.resolve(path).is_ok();
            }
            if keep {
                out.push_str(line);
                out.push('\n');
            }
        }
        out
    }
}
