//! The prompt as one self-contained HTML page, for people to read in a browser with no server:
//! every part exactly as sent with its tokens and the budget, then every element considered
//! (where it came from, its tokens, whether it went in, cut or dropped, and why), then whatever
//! the caller adds (the request, the timings). The page loads nothing: its styles are inline
//! and its content security policy forbids every request.

use std::fmt::Write;

use crate::{ElementKind, Prompt};

/// What the page shows besides the prompt itself.
#[derive(Debug, Clone, Default)]
pub struct PageFacts {
    /// What the page is about (the document and cursor, say).
    pub title: String,
    /// The prompt's budget in tokens, when known.
    pub budget: Option<usize>,
    /// Further sections of (label, value) rows: the request sent, the timings, the answer.
    pub sections: Vec<(String, Vec<(String, String)>)>,
}

/// The page's look, shared with the other inspector pages (the agent's last request).
pub const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem;color:#1d232a;background:#fafbfc}\
h1{font-size:1.25rem}h2{font-size:1rem;margin:1.2rem 0 .3rem}\
pre{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:.6rem;white-space:pre-wrap;word-break:break-all;margin:0}\
.part{margin-bottom:1rem}.tok{color:#57606a;font-weight:normal}\
.bar{height:.7rem;background:#d0d7de;border-radius:4px;overflow:hidden;max-width:40rem}\
.bar span{display:block;height:100%;background:#2f81f7}\
table{border-collapse:collapse;width:100%;background:#fff}td,th{border:1px solid #d0d7de;padding:.25rem .45rem;text-align:left;vertical-align:top}\
tr.dropped td{color:#8c959f}tr.cut td:first-child{color:#9a6700}.why{color:#57606a;font-size:.85em}";

/// Text made safe inside HTML elements and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// One part as sent: a heading with its tokens, and the text byte for byte.
fn part(out: &mut String, id: &str, title: &str, tokens: Option<usize>, text: &str) {
    let tokens = tokens.map_or(String::new(), |n| {
        format!(" <span class=tok>{n} tokens</span>")
    });
    let body = if text.is_empty() {
        "<em>(empty)</em>".to_owned()
    } else {
        escape(text)
    };
    let _ = write!(
        out,
        "<section class=part data-part=\"{id}\"><h2>{}{tokens}</h2><pre>{body}</pre></section>",
        escape(title)
    );
}

/// The page for `prompt`.
pub fn render_html(prompt: &Prompt, facts: &PageFacts) -> String {
    let mut out = String::new();
    let title = if facts.title.is_empty() {
        "the prompt".to_owned()
    } else {
        facts.title.clone()
    };
    out.push_str(&page_start(&format!("pilotfish prompt: {title}")));
    let used = prompt.prompt_tokens + prompt.suffix_tokens;
    match facts.budget {
        Some(budget) if budget > 0 => {
            let percent = (used * 100 / budget).min(100);
            let _ = write!(
                out,
                "<p data-budget={budget} data-used={used}>{used} of {budget} tokens used \
                 ({} prefix and context, {} suffix)</p><div class=bar><span style=\"width:{percent}%\"></span></div>",
                prompt.prompt_tokens, prompt.suffix_tokens
            );
        }
        _ => {
            let _ = write!(out, "<p data-used={used}>{used} tokens</p>");
        }
    }
    out.push_str(&prompt_parts(prompt));
    let mut notes: Vec<String> = prompt.notes.clone();
    if !prompt.trailing_whitespace.is_empty() {
        notes.push(format!(
            "{:?} of trailing white space was cut from the prefix",
            prompt.trailing_whitespace
        ));
    }
    if let Some(reason) = &prompt.copilot_skip_reason {
        notes.push(format!(
            "Copilot would not ask for a completion here: {reason}"
        ));
    }
    if !notes.is_empty() {
        out.push_str("<h2>Notes</h2><ul>");
        for n in &notes {
            let _ = write!(out, "<li>{}</li>", escape(n));
        }
        out.push_str("</ul>");
    }
    for (heading, rows) in &facts.sections {
        let _ = write!(out, "<h2>{}</h2><table>", escape(heading));
        for (label, value) in rows {
            let _ = write!(
                out,
                "<tr><th>{}</th><td><pre>{}</pre></td></tr>",
                escape(label),
                escape(value)
            );
        }
        out.push_str("</table>");
    }
    out.push_str("</body></html>\n");
    out
}

/// The start of a self-contained page titled `title`, up to its heading: the inspector's look
/// and a content security policy that forbids every request. The caller closes the page with
/// `</body></html>`.
pub fn page_start(title: &str) -> String {
    format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8>\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
         <title>{t}</title><style>{STYLE}</style></head><body><h1>{t}</h1>",
        t = escape(title)
    )
}

/// A prompt's parts exactly as sent (context blocks, prefix, suffix, the FIM string), then
/// every element considered: the inspector's page body, for pages that show several prompts.
pub fn prompt_parts(prompt: &Prompt) -> String {
    let mut out = String::new();
    let out = &mut out;
    out.push_str("<h2>As sent</h2>");
    for (i, block) in prompt.context.iter().enumerate() {
        let title = format!(
            "context {} of {} (sent apart from the prefix)",
            i + 1,
            prompt.context.len()
        );
        part(out, &format!("context-{}", i + 1), &title, None, block);
    }
    part(
        out,
        "prefix",
        "prefix (with the context where it is written into it)",
        Some(prompt.prompt_tokens),
        &prompt.prefix,
    );
    part(
        out,
        "suffix",
        "suffix",
        Some(prompt.suffix_tokens),
        &prompt.suffix,
    );
    if let Some(fim) = &prompt.fim_prompt {
        part(
            out,
            "fim",
            "the whole prompt as one fill-in-the-middle string",
            prompt.fim_template_tokens,
            fim,
        );
    }
    elements(out, prompt);
    std::mem::take(out)
}

/// Every element considered: included, cut or dropped, with where it came from and why.
fn elements(out: &mut String, prompt: &Prompt) {
    out.push_str(
        "<h2>Every element considered</h2><table><tr><th>status</th><th>kind</th><th>from</th>\
         <th>tokens</th><th>sent</th><th>score</th><th>what and why</th></tr>",
    );
    for e in &prompt.elements {
        let status = e.status();
        let what = match e.kind {
            ElementKind::Definition => e.text.lines().next().unwrap_or_default().trim().to_owned(),
            _ => String::new(),
        };
        let mut cell = escape(&what);
        if let Some(reason) = &e.reason {
            let _ = write!(cell, "<div class=why>{}</div>", escape(reason));
        }
        if !e.why.is_empty() {
            let _ = write!(cell, "<div class=why>why: {}</div>", escape(&e.why_text()));
        }
        let _ = write!(
            out,
            "<tr class={status}><td>{status}</td><td>{:?}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{cell}</td></tr>",
            e.kind,
            escape(e.path.as_deref().unwrap_or("")),
            e.tokens,
            e.included_tokens,
            e.score.map_or(String::new(), |s| format!("{s:.3}")),
        );
    }
    out.push_str("</table>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::RequestJson;

    fn prompt() -> Prompt {
        let request: RequestJson = serde_json::from_value(serde_json::json!({
            "document": {"path": "/w/app.py", "text": "from money import total\n\nif a < b and c > d:\n    x = total(\n"},
            "position": {"line": 3, "character": 14},
            "open_documents": [{"path": "/w/money.py", "text": "def total(items: list) -> int:\n    return 0\n"}],
            "workspace_root": "/w",
        }))
        .unwrap();
        crate::assemble(&request, &mut crate::Session::default()).unwrap()
    }

    #[test]
    fn every_part_is_on_the_page_escaped_and_nothing_is_loaded() {
        let p = prompt();
        let page = render_html(
            &p,
            &PageFacts {
                title: "app.py:4:15".into(),
                budget: Some(7692),
                sections: vec![(
                    "Request".into(),
                    vec![("endpoint".into(), "http://x/<infill>".into())],
                )],
            },
        );
        assert!(page.contains("default-src 'none'"), "{page}");
        assert!(!page.contains("src=") && !page.contains("href="), "{page}");
        assert!(page.contains("if a &lt; b and c &gt; d:"), "{page}");
        assert!(!page.contains("if a < b"), "{page}");
        assert!(page.contains("data-part=\"prefix\"") && page.contains("data-part=\"suffix\""));
        for (i, _) in p.context.iter().enumerate() {
            assert!(page.contains(&format!("data-part=\"context-{}\"", i + 1)));
        }
        // Every element has its row.
        assert_eq!(
            page.matches("<tr class=").count(),
            p.elements.len(),
            "{page}"
        );
        assert!(page.contains("def total(items: list) -&gt; int:"), "{page}");
        assert!(page.contains("http://x/&lt;infill&gt;"));
        assert!(page.contains(&format!("data-used={}", p.prompt_tokens + p.suffix_tokens)));
    }
}
