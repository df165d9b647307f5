//! Next edit suggestions against Copilot's own library: chat-lib's `createNESProvider` and
//! pilotfish's `copilot` strategy are given the same generated documents, edits and cursor
//! (`differential::nes_cases`). The request chat-lib sends must be the prompt pilotfish builds,
//! message for message, and a model's answer must become the same edit on both sides.
//!
//! A failure prints, for each kind of case and each part of the prompt that differs, the first
//! differing case: its description, the first differing line with the lines before it, and the
//! request to reproduce it (`node oracle/oracle.js < file`, with the files written to the folder
//! named by `PILOTFISH_DUMP_MISMATCHES`).

use std::collections::BTreeMap;

use differential::{
    Oracle, Rng,
    nes_cases::{self, Case, Kind, Language},
};
use nes::{
    prompt::{Answer, Body, Message, Prompt, Skip, Suggestion, Window},
    strategies::copilot::Wording,
};
use serde_json::Value;

/// Cases of each kind for the prompts (14 kinds: about 300 cases).
const PROMPT_CASES_PER_KIND: usize = 22;
/// Cases of each kind for the answers.
const ANSWER_CASES_PER_KIND: usize = 7;
/// Answers asked of each case: the window unchanged, renamed, and this many more drawn from the
/// other shapes (more cases with fewer answers each find more than the reverse, in the same time).
const MORE_ANSWERS_PER_CASE: usize = 8;
/// Seeds of the answer cases start here, so that they are not the prompt cases again.
const ANSWER_SEEDS: u64 = 10_000;
/// Answers pilotfish reads differently from chat-lib on purpose: a refusal, nothing at all,
/// or text that shares no word with the window. chat-lib puts such text in place of the window's
/// lines; pilotfish suggests nothing (`is_junk` in `nes::strategies::copilot`). (A fenced
/// answer is compared with chat-lib's edit of the same answer without its fences.) For these
/// answers pilotfish may suggest nothing where chat-lib makes an edit, but an edit it does
/// suggest must be chat-lib's.
const DECLINED: &[&str] = &["junk", "empty"];

#[test]
fn nes_prompts_match_copilots_library() {
    let oracle = Oracle::start();
    let cases = nes_cases::cases(PROMPT_CASES_PER_KIND);
    let requests: Vec<Value> = cases
        .iter()
        .map(|c| c.oracle_request("nes_request"))
        .collect();
    let answers = oracle.ask(&requests);

    let mut report = Report::new("NES prompts", "cases");
    let mut coverage = Coverage::default();
    for (case, theirs) in cases.iter().zip(&answers) {
        let (_, ours) = build(case);
        if let Ok(v) = theirs {
            coverage.count(case, v);
        }
        match compare_prompt(theirs, &ours) {
            Ok(sent) => report.agree(case.kind, sent),
            Err((section, detail)) => report.differ(case, section, detail, &requests_of(case)),
        }
    }
    coverage.check();
    check_the_comparison(&answers);
    report.finish();
}

/// The comparison itself: chat-lib's own messages as pilotfish's prompt compare equal, and
/// differ when one character of the user message or of the prediction changes.
fn check_the_comparison(answers: &[Result<Value, String>]) {
    let theirs = answers
        .iter()
        .flatten()
        .find(|v| !v["url"].is_null())
        .expect("chat-lib sends some request");
    let copy = |user_edit: &dyn Fn(&mut String), prediction_edit: &dyn Fn(&mut String)| {
        let mut messages: Vec<Message> = theirs["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .map(|m| Message {
                role: m["role"].as_str().unwrap_or_default().to_owned(),
                content: m["content"].as_str().unwrap_or_default().to_owned(),
            })
            .collect();
        user_edit(&mut messages[1].content);
        let mut prediction = theirs["prediction"]["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        prediction_edit(&mut prediction);
        Ok(Prompt {
            body: Body::Chat {
                messages,
                prediction: Some(prediction),
            },
            window: Window {
                uri: String::new(),
                start: 0,
                end: 0,
                text: String::new(),
            },
            answer: Answer::Lines,
        })
    };
    let same = |_: &mut String| {};
    assert_eq!(
        compare_prompt(&Ok(theirs.clone()), &copy(&same, &same)),
        Ok(true)
    );
    let one_more = |s: &mut String| {
        let mut at = s.len() / 2;
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        s.insert(at, 'x');
    };
    let differ = compare_prompt(&Ok(theirs.clone()), &copy(&one_more, &same));
    assert!(
        matches!(&differ, Err((section, _)) if section.starts_with("messages[1]")),
        "a changed user message is not seen: {differ:?}"
    );
    let differ = compare_prompt(&Ok(theirs.clone()), &copy(&same, &one_more));
    assert!(
        matches!(&differ, Err((section, _)) if section == "prediction"),
        "a changed prediction is not seen: {differ:?}"
    );
}

#[test]
fn nes_answers_become_copilots_edits() {
    let oracle = Oracle::start();
    let cases: Vec<Case> = (0..ANSWER_CASES_PER_KIND as u64)
        .flat_map(|s| {
            Kind::ALL
                .iter()
                .map(move |&k| nes_cases::generate(k, ANSWER_SEEDS + s))
        })
        .collect();
    // First the requests alone, for the window each answer rewrites.
    let windows = oracle.ask(
        &cases
            .iter()
            .map(|c| c.oracle_request("nes_request"))
            .collect::<Vec<_>>(),
    );
    let mut rng = Rng::new(77);
    let mut asked: Vec<(usize, &'static str, String)> = Vec::new();
    for (i, (case, window)) in cases.iter().zip(&windows).enumerate() {
        let sent = window.as_ref().ok().filter(|v| !v["url"].is_null());
        match sent {
            Some(v) => {
                let mut answers = answers_for(&mut rng, case.language, v);
                let mut more = answers.split_off(2);
                for k in (1..more.len()).rev() {
                    more.swap(k, rng.below(k + 1));
                }
                more.truncate(MORE_ANSWERS_PER_CASE);
                for (label, answer) in answers.into_iter().chain(more) {
                    asked.push((i, label, answer));
                }
            }
            // chat-lib sends nothing: whatever the model would say, there is no edit.
            None => asked.push((i, "junk", JUNK.to_owned())),
        }
    }
    let requests: Vec<Value> = asked
        .iter()
        .map(|(i, _, answer)| {
            let mut r = cases[*i].oracle_request("nes_edit");
            r["answer"] = Value::from(answer.as_str());
            r
        })
        .collect();
    let results = oracle.ask(&requests);

    let mut report = Report::new("NES answers", "answers");
    let mut chatlib_edits: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let built: Vec<_> = cases.iter().map(build).collect();
    let mut declined = 0;
    for (((i, label, answer), theirs), request) in asked.iter().zip(&results).zip(&requests) {
        let case = &cases[*i];
        let ours = match &built[*i] {
            (replayed, Ok(prompt)) => nes::strategies::suggest(replayed, prompt, answer),
            _ => None,
        };
        let theirs = match theirs {
            Ok(v) => v,
            Err(e) => {
                report.differ(
                    case,
                    format!("answer `{label}`: chat-lib fails"),
                    format!("chat-lib fails: {e}"),
                    std::slice::from_ref(request),
                );
                continue;
            }
        };
        // A fenced answer is read without its fences (`unfenced` in the strategy): pilotfish's
        // edit must be the one chat-lib makes of the same answer unfenced, the `rename` one.
        let theirs = if *label == "fenced" {
            match asked
                .iter()
                .position(|(j, l, _)| j == i && *l == "rename")
                .map(|k| &results[k])
            {
                Some(Ok(v)) => v,
                _ => theirs,
            }
        } else {
            theirs
        };
        let counted = chatlib_edits.entry(label).or_default();
        counted.0 += 1;
        if !theirs["result"].is_null() {
            counted.1 += 1;
            if ours.is_none() && DECLINED.contains(label) {
                declined += 1;
                report.agree(case.kind, true);
                continue;
            }
        }
        match compare_answer(case, answer, &theirs["result"], ours.as_ref()) {
            Ok(()) => report.agree(case.kind, !theirs["request"]["url"].is_null()),
            Err(detail) => report.differ(
                case,
                format!("answer `{label}`"),
                detail,
                std::slice::from_ref(request),
            ),
        }
    }
    for (label, (n, edits)) in &chatlib_edits {
        eprintln!("  answer `{label}`: chat-lib made an edit of {edits} of {n}");
    }
    eprintln!("  {declined} refusals and empty answers chat-lib made an edit of, pilotfish none");
    // The answers must exercise both outcomes: the harness is no proof if chat-lib never (or
    // always) makes an edit of them.
    let (n, edits) = chatlib_edits["rename"];
    assert!(
        edits * 2 >= n,
        "chat-lib made an edit of only {edits} of {n} renamed windows"
    );
    let (_, edits) = chatlib_edits["unchanged"];
    assert_eq!(edits, 0, "chat-lib made edits of unchanged windows");
    report.finish();
}

/// What pilotfish makes of a case: the replayed request and the `copilot` prompt, with
/// Copilot's own texts.
fn build(case: &Case) -> (nes::request::Replayed, Result<Prompt, Skip>) {
    let replayed = case
        .request
        .replay()
        .unwrap_or_else(|e| panic!("pilotfish refuses {}: {e}", case.description));
    let prompt = nes::strategies::build(&replayed, copilots_wording());
    (replayed, prompt)
}

/// Copilot's texts as pilotfish finds them where `tools/copilot-texts.sh` put them: the proof
/// that what the script fetches, read as the front ends read it, makes the request chat-lib
/// sends. Without them the comparison cannot hold, so the tests fail and say what to run.
fn copilots_wording() -> &'static Wording {
    static WORDING: std::sync::OnceLock<Wording> = std::sync::OnceLock::new();
    WORDING.get_or_init(|| {
        let loaded = host::copilot_texts::load(None);
        assert!(
            loaded.wording.is_copilots(),
            "the differential tests need Copilot's texts: {}",
            loaded.notice.unwrap_or_default()
        );
        loaded.wording
    })
}

fn requests_of(case: &Case) -> Vec<Value> {
    vec![case.oracle_request("nes_request")]
}

/// Whether both send the same request, and whether chat-lib sends one at all; or the part of
/// the prompt that differs first and how.
fn compare_prompt(
    theirs: &Result<Value, String>,
    ours: &Result<Prompt, Skip>,
) -> Result<bool, (String, String)> {
    let theirs = match theirs {
        Ok(v) => v,
        Err(e) => return Err(("chat-lib fails".into(), format!("chat-lib fails: {e}"))),
    };
    let sent = !theirs["url"].is_null();
    match (sent, ours) {
        (false, Err(_)) => Ok(false),
        (false, Ok(p)) => Err((
            "chat-lib sends nothing".into(),
            format!(
                "chat-lib sends nothing; pilotfish sends a prompt with the window {:?}",
                clip(&p.window.text, 200)
            ),
        )),
        (true, Err(skip)) => Err((
            format!("pilotfish skips ({})", skip_name(skip)),
            format!("chat-lib sends a request; pilotfish sends nothing: {skip}"),
        )),
        (true, Ok(prompt)) => {
            // pilotfish's prompt names no model: the model is the backend's. chat-lib's must be
            // the one this prompt is made for.
            if theirs["model"] != "copilot-nes-oct" {
                return Err((
                    "chat-lib's model".into(),
                    format!(
                        "chat-lib asks {} instead of copilot-nes-oct: the prompt compared is not the one pilotfish makes",
                        theirs["model"]
                    ),
                ));
            }
            let Body::Chat {
                messages,
                prediction,
            } = &prompt.body
            else {
                return Err((
                    "body".into(),
                    "pilotfish sends a completion prompt, not chat messages".into(),
                ));
            };
            let their_messages = theirs["messages"].as_array().cloned().unwrap_or_default();
            for (k, (a, b)) in their_messages.iter().zip(messages).enumerate() {
                let role = a["role"].as_str().unwrap_or_default();
                if role != b.role {
                    return Err((
                        format!("messages[{k}].role"),
                        format!(
                            "message {k}: chat-lib's role {role}, pilotfish's {}",
                            b.role
                        ),
                    ));
                }
                let content = a["content"].as_str().unwrap_or_default();
                if content != b.content {
                    let (line, diff) = first_difference(content, &b.content);
                    let section = section_at(content, line);
                    return Err((
                        format!("messages[{k}] ({role}) in {section}"),
                        format!("message {k} ({role}) differs in {section}:\n{diff}"),
                    ));
                }
            }
            if their_messages.len() != messages.len() {
                return Err((
                    "number of messages".into(),
                    format!(
                        "chat-lib sends {} messages, pilotfish {}",
                        their_messages.len(),
                        messages.len()
                    ),
                ));
            }
            let their_prediction = &theirs["prediction"];
            if their_prediction["type"] != "content" {
                return Err((
                    "prediction".into(),
                    format!("chat-lib's prediction is {their_prediction}"),
                ));
            }
            let their_prediction = their_prediction["content"].as_str().unwrap_or_default();
            match prediction {
                Some(p) if p == their_prediction => Ok(true),
                Some(p) => Err((
                    "prediction".into(),
                    format!(
                        "the predicted output differs:\n{}",
                        first_difference(their_prediction, p).1
                    ),
                )),
                None => Err((
                    "prediction".into(),
                    "pilotfish sends no predicted output".into(),
                )),
            }
        }
    }
}

fn skip_name(skip: &Skip) -> &'static str {
    match skip {
        Skip::NoEdits => "no edits",
        Skip::NoCursor => "no cursor",
        Skip::WindowTooLarge(_) => "window too large",
        Skip::AreaTooLarge => "area too large",
        Skip::PromptTooLarge(_) => "prompt too large",
    }
}

/// The tag of the prompt's part that line `line` of `content` belongs to: the last
/// `<|...|>` line at or before it.
fn section_at(content: &str, line: usize) -> String {
    content
        .split('\n')
        .take(line + 1)
        .filter(|l| l.starts_with("<|") && l.ends_with("|>"))
        .last()
        .map_or_else(|| "the text before the first tag".into(), str::to_owned)
}

/// The first line at which `theirs` and `ours` differ and a readable account of it: the three
/// lines before it, the next lines of each side, and where in the line they part.
fn first_difference(theirs: &str, ours: &str) -> (usize, String) {
    let a: Vec<&str> = theirs.split('\n').collect();
    let b: Vec<&str> = ours.split('\n').collect();
    let line = (0..a.len().max(b.len()))
        .find(|&i| a.get(i) != b.get(i))
        .unwrap_or(a.len());
    let mut out = format!(
        "  first difference at line {} (chat-lib has {} lines, pilotfish {})\n",
        line + 1,
        a.len(),
        b.len()
    );
    for l in &a[line.saturating_sub(3)..line.min(a.len())] {
        out.push_str(&format!("    {}\n", show(l, 0)));
    }
    let column = match (a.get(line), b.get(line)) {
        (Some(x), Some(y)) => x
            .char_indices()
            .zip(y.chars())
            .find(|((_, c), d)| c != d)
            .map_or(x.len().min(y.len()), |((i, _), _)| i),
        _ => 0,
    };
    for (sign, side, lines) in [("-", "chat-lib: ", &a), ("+", "pilotfish:", &b)] {
        let shown: Vec<&&str> = lines.iter().skip(line).take(3).collect();
        if shown.is_empty() {
            out.push_str(&format!("  {sign} {side} (end of text)\n"));
        }
        for (k, l) in shown.into_iter().enumerate() {
            let at = if k == 0 { column.min(l.len()) } else { 0 };
            out.push_str(&format!("  {sign} {side} {}\n", show(l, at)));
        }
    }
    if column > 0 {
        out.push_str(&format!("  (the first line differs from byte {column})\n"));
    }
    (line, out)
}

/// A line as Rust would quote it, cut to about 160 characters around byte `at`.
fn show(line: &str, at: usize) -> String {
    let mut start = at.saturating_sub(60);
    while !line.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start + 160).min(line.len());
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}{:?}{}",
        if start > 0 { "…" } else { "" },
        &line[start..end],
        if end < line.len() { "…" } else { "" }
    )
}

fn clip(s: &str, max: usize) -> &str {
    let mut end = max.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

const JUNK: &str = "Sorry, I can't assist with that.";

/// Answers a model could give for the window chat-lib asked about: the window as it was, with a
/// rename, a line inserted or deleted, whitespace or an import changed, refusals and empty
/// answers, the cursor tag left in, line breaks of either kind, and changes on the cursor line.
fn answers_for(rng: &mut Rng, language: Language, request: &Value) -> Vec<(&'static str, String)> {
    let window = request["prediction"]["content"]
        .as_str()
        .unwrap_or_default();
    let lines: Vec<String> = window.split('\n').map(str::to_owned).collect();
    let join = |l: &[String]| l.join("\n");
    let mut out: Vec<(&'static str, String)> = vec![("unchanged", window.to_owned())];

    let renamed = rename_one(rng, window);
    out.push(("rename", renamed.clone()));

    let mut inserted = lines.clone();
    let at = rng.below(lines.len() + 1);
    let indent = indentation(lines.get(at).or(lines.last()).map_or("", |l| l.as_str()));
    let names = identifiers(window);
    let statement = language.statement(rng, 0, &names);
    inserted.insert(at, format!("{indent}{statement}"));
    out.push(("insert line", join(&inserted)));

    let mut deleted = lines.clone();
    deleted.remove(rng.below(lines.len()));
    out.push(("delete line", join(&deleted)));

    let mut spaced = lines.clone();
    let nonblank: Vec<usize> = (0..lines.len())
        .filter(|&i| !lines[i].trim().is_empty())
        .collect();
    if let Some(&i) = nonblank.get(rng.below(nonblank.len().max(1))) {
        spaced[i] = if rng.chance(50) {
            format!("  {}", spaced[i])
        } else {
            format!("{}   ", spaced[i])
        };
    }
    out.push(("whitespace", join(&spaced)));

    let mut imported = lines.clone();
    let at = if rng.chance(50) {
        0
    } else {
        rng.below(lines.len() + 1)
    };
    imported.insert(at, language.import_line(rng));
    out.push(("import", join(&imported)));

    let mut blank = lines.clone();
    blank.insert(rng.below(lines.len() + 1), String::new());
    out.push(("blank line", join(&blank)));

    out.push(("junk", JUNK.to_owned()));
    out.push(("empty", String::new()));

    let mut tagged = renamed.clone();
    let mut at = rng.below(tagged.len() + 1);
    while !tagged.is_char_boundary(at) {
        at -= 1;
    }
    tagged.insert_str(at, "<|cursor|>");
    out.push(("cursor tag", tagged));

    out.push(("trailing newline", format!("{renamed}\n")));
    out.push(("crlf", renamed.replace('\n', "\r\n")));
    out.push(("fenced", format!("```\n{renamed}\n```")));

    // A rename near the top and a line deleted further down: only the first change survives.
    let mut two = renamed.split('\n').map(str::to_owned).collect::<Vec<_>>();
    if two.len() >= 3 {
        let k = two.len() - 1 - rng.below(2);
        two.remove(k);
    }
    out.push(("two changes", join(&two)));

    // The cursor's line, from the window tagged in the user message.
    if let Some((line, column)) = cursor_in_window(request) {
        let mut appended = lines.clone();
        if let Some(l) = appended.get_mut(line) {
            l.push_str(rng.pick(&[" + 1", ";", "()", " // done", "Value"]));
            out.push(("cursor line appended", join(&appended)));
        }
        let mut completed = lines.clone();
        if let Some(l) = completed.get_mut(line)
            && l.is_char_boundary(column.min(l.len()))
        {
            let at = column.min(l.len());
            l.insert_str(at, rng.pick(&["x", "Count", "_value", "é", "😀"]));
            out.push(("typed at the cursor", join(&completed)));
        }
    }
    out
}

/// `text` with one of its identifiers renamed everywhere it appears, or with a word appended
/// to its first line when it has none.
fn rename_one(rng: &mut Rng, text: &str) -> String {
    let names = identifiers(text);
    let Some(name) = names.get(rng.below(names.len().max(1))) else {
        return format!("{text} value");
    };
    let new = format!("{name}Next");
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = find_word(rest, name) {
        out.push_str(&rest[..i]);
        out.push_str(&new);
        rest = &rest[i + name.len()..];
    }
    out.push_str(rest);
    out
}

fn find_word(text: &str, word: &str) -> Option<usize> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(i) = text[from..].find(word) {
        let at = from + i;
        let before = text[..at].chars().next_back().is_some_and(is_word);
        let after = text[at + word.len()..].chars().next().is_some_and(is_word);
        if !before && !after {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// The identifiers of three letters or more in `text`, each once.
fn identifiers(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.len() >= 3 && !w.starts_with(|c: char| c.is_ascii_digit()))
        .map(str::to_owned)
        .collect();
    out.sort();
    out.dedup();
    out
}

fn indentation(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// The cursor's line in the window and its byte column, read from the window as chat-lib's
/// user message shows it (the last `<|code_to_edit|>` block, with the cursor tag).
fn cursor_in_window(request: &Value) -> Option<(usize, usize)> {
    let user = request["messages"]
        .as_array()?
        .iter()
        .rev()
        .find(|m| m["role"] == "user")?["content"]
        .as_str()?;
    let start = user.rfind("<|code_to_edit|>\n")? + "<|code_to_edit|>\n".len();
    let end = start + user[start..].find("<|/code_to_edit|>")?;
    user[start..end]
        .split('\n')
        .enumerate()
        .find_map(|(i, l)| l.find("<|cursor|>").map(|c| (i, c)))
}

/// Whether chat-lib's result and pilotfish's suggestion leave the document the same; no edit is
/// the document unchanged.
fn compare_answer(
    case: &Case,
    answer: &str,
    theirs: &Value,
    ours: Option<&Suggestion>,
) -> Result<(), String> {
    let cursor_uri = case.request.cursor.uri.as_str();
    let theirs_after = if theirs.is_null() {
        None
    } else {
        let uri = theirs["targetDocumentUri"].as_str().unwrap_or(cursor_uri);
        let text = case
            .text_now(uri)
            .ok_or_else(|| format!("chat-lib edits {uri}, which is not among the documents"))?;
        let start = theirs["range"]["start"].as_u64().unwrap_or(0) as usize;
        let end = theirs["range"]["endExclusive"].as_u64().unwrap_or(0) as usize;
        let new = theirs["newText"].as_str().unwrap_or_default();
        let after = apply(text, start, end, new).map_err(|e| format!("chat-lib's edit: {e}"))?;
        (after != text).then(|| (uri.to_owned(), after))
    };
    let ours_after = match ours {
        None => None,
        Some(s) => {
            let text = case.text_now(&s.uri).ok_or_else(|| {
                format!(
                    "pilotfish edits {}, which is not among the documents",
                    s.uri
                )
            })?;
            let after = apply(text, s.start, s.end, &s.text)
                .map_err(|e| format!("pilotfish's edit: {e}"))?;
            (after != text).then(|| (s.uri.clone(), after))
        }
    };
    if theirs_after == ours_after {
        return Ok(());
    }
    let describe_theirs = if theirs.is_null() {
        "no edit".to_owned()
    } else {
        format!(
            "[{}, {}) of {} → {:?}",
            theirs["range"]["start"],
            theirs["range"]["endExclusive"],
            theirs["targetDocumentUri"],
            clip(theirs["newText"].as_str().unwrap_or_default(), 300)
        )
    };
    let describe_ours = ours.map_or("no edit".to_owned(), |s| {
        format!(
            "[{}, {}) of {} → {:?}",
            s.start,
            s.end,
            s.uri,
            clip(&s.text, 300)
        )
    });
    let mut out = format!(
        "  answer: {:?}\n  chat-lib:  {describe_theirs}\n  pilotfish: {describe_ours}\n",
        clip(answer, 400)
    );
    let now = case.cursor_text();
    let a = theirs_after.as_ref().map_or(now, |(_, t)| t.as_str());
    let b = ours_after.as_ref().map_or(now, |(_, t)| t.as_str());
    if a != b {
        out.push_str("  the documents after the edit:\n");
        out.push_str(&first_difference(a, b).1);
    }
    Err(out)
}

/// `text` with its UTF-16 range `[start, end)` replaced by `new`.
fn apply(text: &str, start: usize, end: usize, new: &str) -> Result<String, String> {
    let byte = |units: usize| {
        nes::history::byte_offset(text, units)
            .map_err(|u| format!("offset {u} splits a surrogate pair"))
    };
    let len = text.encode_utf16().count();
    if start > end || end > len {
        return Err(format!("range [{start}, {end}) is outside the {len} units"));
    }
    let (s, e) = (byte(start)?, byte(end)?);
    let mut out = text.to_owned();
    out.replace_range(s..e, new);
    Ok(out)
}

/// Agreement counted per kind, and the first difference of each kind and of each part of the
/// prompt, for one readable failure.
struct Report {
    what: &'static str,
    /// What is counted: cases, or answers.
    unit: &'static str,
    /// Per kind: cases, those in which chat-lib sends a request, those that differ.
    kinds: BTreeMap<Kind, (usize, usize, usize)>,
    /// Per part of the prompt that differs first: how many, and the first case's kind and
    /// account.
    sections: BTreeMap<String, (usize, Kind, String)>,
    /// The first account of each kind.
    first_of_kind: BTreeMap<Kind, String>,
    dump: Option<String>,
}

impl Report {
    fn new(what: &'static str, unit: &'static str) -> Report {
        Report {
            what,
            unit,
            kinds: BTreeMap::new(),
            sections: BTreeMap::new(),
            first_of_kind: BTreeMap::new(),
            dump: std::env::var("PILOTFISH_DUMP_MISMATCHES").ok(),
        }
    }

    fn agree(&mut self, kind: Kind, sent: bool) {
        let k = self.kinds.entry(kind).or_default();
        k.0 += 1;
        k.1 += usize::from(sent);
    }

    fn differ(&mut self, case: &Case, section: String, detail: String, requests: &[Value]) {
        let k = self.kinds.entry(case.kind).or_default();
        k.0 += 1;
        k.2 += 1;
        let mut account = format!("== {}\n{detail}", case.description);
        if !account.ends_with('\n') {
            account.push('\n');
        }
        let line = requests
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n");
        match &self.dump {
            Some(dir) => {
                let name = format!(
                    "{dir}/nes-{}-{}-{}.jsonl",
                    self.what.replace(' ', "-"),
                    case.kind.name().replace(' ', "-"),
                    case.seed
                );
                // Several answers of one case go to one file, one line each.
                let mut old = std::fs::read_to_string(&name).unwrap_or_default();
                old.push_str(&line);
                old.push('\n');
                std::fs::write(&name, old).expect("the dump folder is writable");
                account.push_str(&format!("  request: {name}\n"));
            }
            None => account.push_str(&format!(
                "  request: {}\n",
                clip(&line, 600).to_owned() + if line.len() > 600 { "…" } else { "" }
            )),
        }
        let entry = self
            .sections
            .entry(section)
            .or_insert_with(|| (0, case.kind, account.clone()));
        entry.0 += 1;
        self.first_of_kind.entry(case.kind).or_insert(account);
    }

    fn finish(self) {
        let total: usize = self.kinds.values().map(|k| k.0).sum();
        let differ: usize = self.kinds.values().map(|k| k.2).sum();
        let mut table = String::new();
        for (kind, (n, sent, bad)) in &self.kinds {
            table.push_str(&format!(
                "  {:<13} {n:>4} {}, chat-lib sends {sent:>4}, {bad:>4} differ\n",
                kind.name(),
                self.unit
            ));
        }
        eprintln!(
            "{}: {total} {}, {differ} differ\n{table}",
            self.what, self.unit
        );
        if differ == 0 {
            return;
        }
        let mut out = format!(
            "{}: {differ} of {total} {} differ\n{table}\nwhere they first differ:\n",
            self.what, self.unit
        );
        for (section, (n, _, _)) in &self.sections {
            out.push_str(&format!("  {n:>4}  {section}\n"));
        }
        // Each part's first case, then the first case of each kind not shown yet.
        let mut shown: Vec<Kind> = Vec::new();
        for (section, (_, kind, account)) in &self.sections {
            out.push_str(&format!("\n[{section}]\n{account}"));
            shown.push(*kind);
        }
        for (kind, account) in &self.first_of_kind {
            if !shown.contains(kind) {
                out.push_str(&format!("\n[first of kind `{}`]\n{account}", kind.name()));
            }
        }
        panic!("{out}");
    }
}

/// How much of chat-lib's prompt the cases reach, so that a generator that stops reaching a
/// part fails here rather than proving nothing.
#[derive(Default)]
struct Coverage {
    sent: usize,
    not_sent: BTreeMap<Kind, usize>,
    snippets: usize,
    truncated_snippets: usize,
    clipped_current_file: usize,
    full_history: usize,
    crlf: usize,
    non_ascii: usize,
    relative_path: usize,
}

impl Coverage {
    fn count(&mut self, case: &Case, v: &Value) {
        if v["url"].is_null() {
            *self.not_sent.entry(case.kind).or_default() += 1;
            return;
        }
        self.sent += 1;
        let user = v["messages"][1]["content"].as_str().unwrap_or_default();
        if user.contains("<|recently_viewed_code_snippet|>") {
            self.snippets += 1;
        }
        if user.contains(" (truncated)\n") {
            self.truncated_snippets += 1;
        }
        let current = section(
            user,
            "<|current_file_content|>",
            "<|/current_file_content|>",
        );
        // The path line, then the lines shown; the document's lines are those after the edits.
        if current.split('\n').count().saturating_sub(1) < case.cursor_text().split('\n').count() {
            self.clipped_current_file += 1;
        }
        let history = section(user, "<|edit_diff_history|>", "<|/edit_diff_history|>");
        if history.matches("\n--- ").count() + usize::from(history.starts_with("--- ")) >= 25 {
            self.full_history += 1;
        }
        if case.cursor_text().contains('\r') {
            self.crlf += 1;
        }
        if !user.is_ascii() {
            self.non_ascii += 1;
        }
        // A current file in the workspace folder is shown by its relative path.
        if case.request.workspace_root.is_some()
            && user.contains("\ncurrent_file_path: ")
            && !user.contains("\ncurrent_file_path: /")
        {
            self.relative_path += 1;
        }
    }

    fn check(&self) {
        eprintln!(
            "NES prompt coverage: chat-lib sends {} requests; nothing for {:?}; {} with snippets ({} truncated), {} with the current file clipped, {} with 25 history entries, {} CRLF, {} not ASCII, {} with a path relative to the workspace folder",
            self.sent,
            self.not_sent,
            self.snippets,
            self.truncated_snippets,
            self.clipped_current_file,
            self.full_history,
            self.crlf,
            self.non_ascii,
            self.relative_path
        );
        let not_sent = |k: Kind| self.not_sent.get(&k).copied().unwrap_or(0);
        for (what, n, min) in [
            ("requests sent", self.sent, 150),
            ("prompts with snippets", self.snippets, 20),
            (
                "prompts with truncated snippets",
                self.truncated_snippets,
                5,
            ),
            (
                "prompts with the current file clipped",
                self.clipped_current_file,
                15,
            ),
            ("prompts with 25 history entries", self.full_history, 4),
            ("CRLF prompts", self.crlf, 10),
            ("prompts with text not ASCII", self.non_ascii, 15),
            (
                "prompts with a path relative to the workspace folder",
                self.relative_path,
                30,
            ),
            ("long-line cases sent nothing", not_sent(Kind::LongLines), 3),
            ("no-edit cases sent nothing", not_sent(Kind::NoEdits), 8),
            (
                "cursor-at-0 cases sent nothing",
                not_sent(Kind::CursorAtZero),
                2,
            ),
        ] {
            assert!(
                n >= min,
                "only {n} {what} (want {min}): the generator misses a path"
            );
        }
    }
}

/// The text between the line `open` and the line `close` in `text`, or nothing.
fn section<'a>(text: &'a str, open: &str, close: &str) -> &'a str {
    let Some(s) = text.find(open) else {
        return "";
    };
    let rest = &text[s + open.len()..];
    let inner = rest.find(close).map_or(rest, |e| &rest[..e]);
    let inner = inner.strip_prefix('\n').unwrap_or(inner);
    inner.strip_suffix('\n').unwrap_or(inner)
}
