//! One way of making a case per kind: which documents, which edits, where the cursor ends.

use super::*;

impl Gen {
    pub(super) fn shape(&mut self, kind: Kind, language: Language) {
        match kind {
            Kind::Rename => self.rename(language),
            Kind::InsertLines => self.insert_lines_case(language),
            Kind::DeleteLines => self.delete_lines_case(language),
            Kind::Typing => self.typing(language),
            Kind::OtherFiles => {
                let others = 2 + self.rng.below(8);
                self.other_files(language, others)
            }
            Kind::Multibyte => self.multibyte(language),
            Kind::Edges => self.edges(language),
            Kind::LongFile => self.long_file(language),
            Kind::LongLines => self.long_lines(language),
            Kind::ManyEdits => self.many_edits(language),
            Kind::CursorAtZero => self.cursor_at_zero(language),
            Kind::NoEdits => self.no_edits(language),
            Kind::Viewed => self.viewed_case(language),
            // Only `generate` chooses the shape of a CRLF case.
            Kind::Crlf => self.rename(language),
        }
    }

    // ---- The shapes, one per kind.

    fn rename(&mut self, language: Language) {
        let doc = self.new_doc(language, 15, 70, Flavor::default());
        if self.rng.chance(30) {
            let other = self.rng.pick(Language::ALL);
            let n = 10 + self.rng.below(30);
            self.new_doc(other, n, 1, Flavor::default());
        }
        let text = self.texts[doc].clone();
        // Identifiers used at least twice, so that a later use is left to fix.
        let spans = words(&text);
        let mut candidates: Vec<&str> = spans
            .iter()
            .map(|&(s, e)| &text[s..e])
            .filter(|w| w.len() >= 3 && !KEYWORDS.contains(w))
            .filter(|w| spans.iter().filter(|&&(s, e)| &text[s..e] == *w).count() >= 2)
            .collect();
        candidates.sort();
        candidates.dedup();
        let Some(&old) = candidates.get(self.rng.below(candidates.len().max(1))) else {
            self.insert_lines(doc, None);
            self.cursor_after_last_edit(doc);
            return;
        };
        let old = old.to_owned();
        let suffix = self.rng.pick(&["Next", "2", "_v2", "s", "Count"]);
        let new = format!("{old}{suffix}");
        let occurrences = |text: &str| -> Vec<(usize, usize)> {
            words(text)
                .into_iter()
                .filter(|&(s, e)| text[s..e] == old)
                .collect()
        };
        let first = occurrences(&self.texts[doc])[0];
        let style = self.rng.below(4);
        match style {
            0 => {
                self.replace(doc, first.0, first.1, &new);
                self.notes
                    .push(format!("renamed `{old}` to `{new}` in one edit"));
            }
            1 => {
                self.type_text(doc, first.1, suffix, false);
                self.notes.push(format!("typed `{suffix}` after `{old}`"));
            }
            2 => {
                self.replace(doc, first.0, first.1, "");
                self.type_text(doc, first.0, &new, true);
                self.notes
                    .push(format!("deleted `{old}` and typed `{new}` (with typos)"));
            }
            _ => {
                let total = occurrences(&self.texts[doc]).len();
                let k = 1 + self.rng.below(total.saturating_sub(1).max(1));
                for _ in 0..k.min(total - 1).max(1) {
                    let at = occurrences(&self.texts[doc])[0];
                    self.replace(doc, at.0, at.1, &new);
                }
                self.notes
                    .push(format!("renamed {k} of {total} uses of `{old}` to `{new}`"));
            }
        }
        let left = occurrences(&self.texts[doc]);
        if left.is_empty() || self.rng.chance(10) {
            self.cursor_after_last_edit(doc);
        } else {
            let (s, e) = left[self.rng.below(left.len())];
            let at = match self.rng.below(3) {
                0 => s,
                1 => e,
                _ => s + (e - s) / 2,
            };
            self.cursor = Some((doc, at));
            self.notes.push("cursor on a later use".into());
        }
    }

    fn insert_lines_case(&mut self, language: Language) {
        let doc = self.new_doc(language, 5, 110, Flavor::default());
        for _ in 0..1 + self.rng.below(2) {
            self.insert_lines(doc, None);
        }
        match self.rng.below(3) {
            0 => self.cursor_after_last_edit(doc),
            1 => {
                let (line, _) = self.edit_line(doc);
                let line = line + self.rng.below(4);
                self.cursor_on_line(doc, line, At::Anywhere);
            }
            _ => self.random_cursor(doc),
        }
    }

    fn delete_lines_case(&mut self, language: Language) {
        let doc = self.new_doc(language, 8, 110, Flavor::default());
        for _ in 0..1 + self.rng.below(2) {
            self.delete_lines(doc);
        }
        match self.rng.below(3) {
            0 => self.cursor_after_last_edit(doc),
            1 => {
                let (line, _) = self.edit_line(doc);
                let line = (line + 1).saturating_sub(self.rng.below(3));
                self.cursor_on_line(doc, line, At::Anywhere);
            }
            _ => self.random_cursor(doc),
        }
    }

    fn typing(&mut self, language: Language) {
        let doc = self.new_doc(language, 5, 80, Flavor::default());
        let lines = lines_of(&self.texts[doc]);
        let line = self.rng.below(lines.len());
        let (start, end) = lines[line];
        let at = if self.rng.chance(70) {
            end
        } else {
            self.boundary_in(doc, start, end)
        };
        let names: Vec<String> = words(&self.texts[doc][start..end])
            .into_iter()
            .map(|(s, e)| self.texts[doc][start + s..start + e].to_owned())
            .collect();
        let new_line = self.rng.chance(40);
        let statement = language.statement(&mut self.rng, 1, &names);
        let statement = if new_line {
            statement
        } else {
            statement.trim_start().to_owned()
        };
        // Stop part way through at times: the user is in the middle of typing.
        let keep = if self.rng.chance(50) {
            statement.len()
        } else {
            let mut k = 1 + self.rng.below(statement.len());
            while !statement.is_char_boundary(k) {
                k -= 1;
            }
            k
        };
        let typed = &statement[..keep];
        // The line break goes in as one edit, as an editor's Enter does.
        let mut caret = at;
        if new_line {
            caret = self.type_unit(doc, caret, self.eol);
        }
        let caret = self.type_text(doc, caret, typed, true);
        self.notes.push(format!(
            "typed {:?} on line {line}{}",
            typed,
            if new_line { " after Enter" } else { "" }
        ));
        if self.rng.chance(80) {
            self.cursor = Some((doc, caret));
        } else {
            self.random_cursor(doc);
        }
    }

    fn other_files(&mut self, language: Language, others: usize) {
        let mut all = Vec::new();
        let this = self.new_doc(language, 10, 70, Flavor::default());
        all.push(this);
        for _ in 0..others {
            let l = if self.rng.chance(60) {
                language
            } else {
                self.rng.pick(Language::ALL)
            };
            let n = if self.rng.chance(50) {
                40 + self.rng.below(80)
            } else {
                3 + self.rng.below(37)
            };
            let multibyte = if self.rng.chance(20) { 50 } else { 0 };
            all.push(self.new_doc(l, n, 1, Flavor { multibyte }));
        }
        // Some documents stay untouched, open beside the others.
        let edited: Vec<usize> = all[1..]
            .iter()
            .copied()
            .filter(|_| self.rng.chance(85))
            .collect();
        let mut queue: Vec<usize> = Vec::new();
        for &d in &edited {
            for _ in 0..1 + self.rng.below(3) {
                queue.push(d);
            }
        }
        for _ in 0..self.rng.below(3) {
            queue.push(this);
        }
        // Interleave the documents' edits.
        for i in (1..queue.len()).rev() {
            let j = self.rng.below(i + 1);
            queue.swap(i, j);
        }
        if self.rng.chance(30) {
            // This document edited last, as when the user comes back to it.
            queue.push(this);
        }
        for d in queue {
            self.random_edit(d);
        }
        if self.rng.chance(30) && !edited.is_empty() {
            // A line of this document, another document, then the same line again: Copilot
            // merges an edit only into its document's latest entry, however far back it is.
            let lines = lines_of(&self.texts[this]);
            let line = self.rng.below(lines.len());
            let caret = self.type_text(this, lines[line].1, " a", false);
            let other = edited[self.rng.below(edited.len())];
            self.random_edit(other);
            self.type_text(this, caret, "b", false);
            self.notes.push(format!(
                "typed on line {line}, in another file, then on line {line} again"
            ));
        }
        self.notes.push(format!(
            "{} other files, {} of them edited",
            others,
            edited.len()
        ));
        self.random_cursor_not_zero(this);
        self.shuffle_documents();
    }

    fn multibyte(&mut self, language: Language) {
        let doc = self.new_doc(language, 8, 60, Flavor { multibyte: 70 });
        for _ in 0..1 + self.rng.below(3) {
            match self.rng.below(4) {
                0 => {
                    // Type text that is not ASCII at the end of a line that already has some.
                    let line = self.multibyte_line(doc);
                    let (_, end) = lines_of(&self.texts[doc])[line];
                    let text = format!(" {}", self.rng.pick(MULTIBYTE));
                    self.type_text(doc, end, &text, false);
                    self.notes.push(format!("typed {text:?} on line {line}"));
                }
                1 => {
                    // Replace an identifier that follows text that is not ASCII.
                    let line = self.multibyte_line(doc);
                    let (start, end) = lines_of(&self.texts[doc])[line];
                    let after = self.texts[doc][start..end]
                        .char_indices()
                        .find(|(_, c)| c.len_utf8() > 1)
                        .map_or(start, |(i, _)| start + i);
                    let word = words(&self.texts[doc][after..end]).first().copied();
                    match word {
                        Some((s, e)) => {
                            let new = format!("{}é", &self.texts[doc][after + s..after + e]);
                            self.replace(doc, after + s, after + e, &new);
                            self.notes.push(format!("renamed a word on line {line}"));
                        }
                        None => self.insert_lines(doc, Some(line + 1)),
                    }
                }
                2 => self.insert_lines(doc, None),
                _ => self.random_edit(doc),
            }
        }
        if self.rng.chance(30) {
            let other = self.new_doc(language, 5, 40, Flavor { multibyte: 80 });
            let line = self.multibyte_line(other);
            let (_, end) = lines_of(&self.texts[other])[line];
            let emoji = self.rng.pick(&["🎉", "😀", "中", "é"]);
            self.type_text(other, end, emoji, false);
            self.notes.push("typed in another file too".into());
        }
        // The cursor just after a character that is not ASCII, most of the time.
        if self.rng.chance(70) {
            let line = self.multibyte_line(doc);
            let (start, end) = lines_of(&self.texts[doc])[line];
            let afters: Vec<usize> = self.texts[doc][start..end]
                .char_indices()
                .filter(|(_, c)| c.len_utf8() > 1)
                .map(|(i, c)| start + i + c.len_utf8())
                .collect();
            let at = if afters.is_empty() {
                end
            } else {
                afters[self.rng.below(afters.len())]
            };
            self.cursor = Some((doc, at));
            self.notes
                .push("cursor after a multi-byte character".into());
        } else {
            self.random_cursor(doc);
        }
    }

    fn edges(&mut self, language: Language) {
        let n = self.rng.below(13);
        let trailing = self.rng.chance(50);
        let doc = self.new_doc_with(language, n, Flavor::default(), trailing);
        for _ in 0..1 + self.rng.below(2) {
            let text = self.texts[doc].clone();
            let lines = lines_of(&text);
            let last = *lines.last().expect("a text has a line");
            let statement = language.statement(&mut self.rng, 0, &[]);
            match self.rng.below(6) {
                0 => {
                    let t = format!("{statement}{}", self.eol);
                    self.replace(doc, 0, 0, &t);
                    self.notes.push("inserted a line at the start".into());
                }
                1 => {
                    let caret = self.type_text(doc, text.len(), "x", false);
                    self.type_text(doc, caret, "yz", false);
                    self.notes.push("typed at the very end".into());
                }
                2 if lines.len() >= 2 => {
                    // The last line with content and the line break before it.
                    let (s, _) = lines[lines.len() - if trailing { 2 } else { 1 }];
                    let from = s.saturating_sub(self.eol.len());
                    self.replace(doc, from, text.len(), if trailing { self.eol } else { "" });
                    self.notes.push("deleted the last line".into());
                }
                3 => {
                    let t = if text.is_empty() || text.ends_with('\n') {
                        format!("{statement}{}", if trailing { self.eol } else { "" })
                    } else {
                        format!("{}{statement}", self.eol)
                    };
                    self.replace(doc, text.len(), text.len(), &t);
                    self.notes.push("appended a line at the end".into());
                }
                4 => {
                    let (s, e) = lines[0];
                    match words(&text[s..e]).first() {
                        Some(&(a, b)) => {
                            self.replace(doc, s + a, s + b, "renamed");
                            self.notes.push("renamed the first word".into());
                        }
                        None => {
                            self.replace(doc, 0, 0, "x");
                            self.notes.push("typed at the start".into());
                        }
                    }
                }
                _ => {
                    let (s, e) = last;
                    self.replace(doc, s, e, &statement);
                    self.notes.push("rewrote the last line".into());
                }
            }
        }
        let text = &self.texts[doc];
        let lines = lines_of(text);
        let at = match self.rng.below(5) {
            0 => text.len(),
            1 => lines[lines.len() - 1].0,
            2 => lines[0].1,
            3 => {
                let mut at = lines[0].1.min(1);
                while !text.is_char_boundary(at) {
                    at += 1;
                }
                at
            }
            _ => self.last_edit_end(doc).unwrap_or(text.len()),
        };
        let at = if text[..at].ends_with('\r') {
            at - 1
        } else {
            at
        };
        self.cursor = Some((doc, at));
        self.notes.push(format!(
            "{} lines{}",
            n,
            if trailing {
                ", trailing line break"
            } else {
                ""
            }
        ));
    }

    fn long_file(&mut self, language: Language) {
        let n = 300 + self.rng.below(701);
        let doc = self.new_doc(language, n, 1, Flavor::default());
        let lines = lines_of(&self.texts[doc]).len();
        // Near the start, near the end, near a page boundary or anywhere.
        let line = match self.rng.below(4) {
            0 => self.rng.below(20),
            1 => lines - 1 - self.rng.below(20),
            2 => (10 * self.rng.below(lines / 10) + self.rng.below(5))
                .saturating_sub(2)
                .min(lines - 1),
            _ => self.rng.below(lines),
        };
        let edits = 1 + self.rng.below(3);
        for _ in 0..edits {
            let near = (line + self.rng.below(10)).saturating_sub(5);
            if self.rng.chance(70) {
                self.edit_on_line(doc, near.min(lines - 1));
            } else {
                self.random_edit(doc);
            }
        }
        let lines = lines_of(&self.texts[doc]).len();
        self.cursor_on_line(doc, line.min(lines - 1), At::Anywhere);
        self.notes.push(format!("{n} lines"));
    }

    fn long_lines(&mut self, language: Language) {
        let n = 20 + self.rng.below(40);
        let mut lines = code(&mut self.rng, language, n, Flavor::default());
        let c = self.rng.below(lines.len());
        // Lengths around Copilot's limits: 2000 tokens for the window (8000 UTF-16 units) and
        // 1500 for the area of 31 lines around the cursor.
        let scheme = self.rng.below(5);
        let (from, to) = match scheme {
            0 | 1 => (c.saturating_sub(2), (c + 6).min(lines.len())),
            _ => (c.saturating_sub(15), (c + 16).min(lines.len())),
        };
        for (i, line) in lines.iter_mut().enumerate().take(to).skip(from) {
            let len = match scheme {
                // One very long line in the window.
                0 if i == c => 8200 + self.rng.below(3000),
                0 => continue,
                // Every window line long: about 2000 tokens in all.
                1 => 850 + self.rng.below(400),
                // The area near its budget.
                2 => 150 + self.rng.below(100),
                3 => 180 + self.rng.below(40),
                // A few long lines that fit.
                _ if self.rng.chance(20) => 300 + self.rng.below(500),
                _ => continue,
            };
            *line = long_line(&mut self.rng, language, len);
        }
        self.notes.push(format!("long lines (scheme {scheme})"));
        let trailing = self.rng.chance(80);
        let doc = self.add_doc(language, &lines, trailing);
        self.edit_on_line(doc, c);
        let cl = lines_of(&self.texts[doc]).len();
        self.cursor_on_line(doc, c.min(cl - 1), At::Anywhere);
    }

    fn many_edits(&mut self, language: Language) {
        let this = self.new_doc(language, 40, 80, Flavor::default());
        let mut docs = vec![this];
        for _ in 0..self.rng.below(4) {
            let n = 10 + self.rng.below(50);
            docs.push(self.new_doc(language, n, 1, Flavor::default()));
        }
        let n = 26 + self.rng.below(35);
        // Without long lines the 25 entries are the limit; with them, the 1000 tokens.
        let long_lines = self.rng.pick(&[0, 0, 10, 40]);
        for _ in 0..n {
            let d = if self.rng.chance(70) {
                this
            } else {
                *self.rng.pick_ref(&docs)
            };
            if self.rng.chance(long_lines) {
                // A long line makes the diff history go over its 1000 tokens sooner.
                let lines = lines_of(&self.texts[d]);
                let line = self.rng.below(lines.len());
                let len = 100 + self.rng.below(300);
                let t = format!("{}{}", long_line(&mut self.rng, language, len), self.eol);
                self.replace(d, lines[line].0, lines[line].0, &t);
            } else if self.rng.chance(3) {
                // An edit that changes nothing still counts as an edit.
                let at = self.random_boundary(d);
                self.replace(d, at, at, "");
            } else if long_lines == 0 {
                // Small edits on short lines only, so that the 25 entries fill before the
                // 1000 tokens do (an entry costs its header with the path twice).
                let lines = lines_of(&self.texts[d]);
                let short: Vec<usize> = (0..lines.len())
                    .filter(|&i| lines[i].1 - lines[i].0 < 12)
                    .collect();
                let line = short
                    .get(self.rng.below(short.len().max(1)))
                    .copied()
                    .unwrap_or(0);
                let word = self.rng.pick(&["x", "y1", "ok", "n"]);
                self.replace(d, lines[line].1, lines[line].1, word);
            } else {
                self.random_edit_quiet(d);
            }
        }
        self.notes.push(format!(
            "{n} edits over {} documents, {long_lines}% of them long lines",
            docs.len()
        ));
        self.random_cursor_not_zero(this);
    }

    fn cursor_at_zero(&mut self, language: Language) {
        let this = self.new_doc(language, 3, 50, Flavor::default());
        let variant = self.rng.below(4);
        match variant {
            0 => {
                // Only other documents were edited: Copilot has no fallback and sends nothing.
                let other = self.new_doc(language, 10, 20, Flavor::default());
                self.random_edit(other);
                self.notes.push("only another file edited".into());
            }
            1 => {
                // The last edit is at the very start.
                self.random_edit(this);
                let statement = language.statement(&mut self.rng, 0, &[]);
                let t = format!("{statement}{}", self.eol);
                self.replace(this, 0, 0, &t);
                self.notes.push("inserted a line at the start".into());
            }
            2 => {
                // This document edited, then another one.
                for _ in 0..1 + self.rng.below(3) {
                    self.random_edit(this);
                }
                let other = self.new_doc(language, 10, 20, Flavor::default());
                self.random_edit(other);
            }
            _ => {
                for _ in 0..1 + self.rng.below(4) {
                    self.random_edit(this);
                }
            }
        }
        self.cursor = Some((this, 0));
    }

    fn no_edits(&mut self, language: Language) {
        let this = self.new_doc(language, 0, 60, Flavor::default());
        for _ in 0..self.rng.below(4) {
            let n = 5 + self.rng.below(30);
            let l = self.rng.pick(Language::ALL);
            self.new_doc(l, n, 1, Flavor::default());
        }
        // A view is history too: chat-lib sends a request for a document only viewed.
        if self.rng.chance(40) {
            self.view(this);
        }
        if self.docs.len() > 1 && self.rng.chance(40) {
            let other = 1 + self.rng.below(self.docs.len() - 1);
            self.view(other);
        }
        if self.rng.chance(20) {
            self.cursor = Some((this, 0));
        } else {
            self.random_cursor(this);
        }
        self.notes.push("no edits".into());
        self.shuffle_documents();
    }

    fn viewed_case(&mut self, language: Language) {
        let this = self.new_doc(language, 10, 60, Flavor::default());
        let mut docs = vec![this];
        for _ in 0..1 + self.rng.below(5) {
            let n = 5 + self.rng.below(60);
            let l = self.rng.pick(Language::ALL);
            docs.push(self.new_doc(l, n, 1, Flavor::default()));
        }
        for _ in 0..2 + self.rng.below(5) {
            let d = *self.rng.pick_ref(&docs);
            self.view(d);
        }
        // Sometimes enough edits that the views push the history over its 25 entries.
        let n = if self.rng.chance(40) {
            20 + self.rng.below(8)
        } else {
            1 + self.rng.below(5)
        };
        for _ in 0..n {
            let d = *self.rng.pick_ref(&docs);
            self.random_edit_quiet(d);
        }
        self.notes.push(format!("{n} edits"));
        self.random_cursor_not_zero(this);
        self.shuffle_documents();
    }
}
