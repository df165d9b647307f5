//! The run as one self-contained HTML page: the summary, then each case with its expected text
//! and, side by side, what each strategy sent (the inspector's parts: every part as sent and
//! every element considered), what the model answered and how it scored.

use std::fmt::Write;

use prompt::html::{escape, page_start, prompt_parts};

use crate::report::{CaseResult, Run, Summary, table};

/// Columns side by side, each as wide as the others.
const STYLE: &str = ".cols{display:flex;gap:1rem;align-items:flex-start}.col{flex:1;min-width:0;overflow-x:auto}.col table{font-size:.85em}\
.case{border-top:2px solid #d0d7de;margin-top:1.5rem}.score{font-size:.9em;color:#57606a}";

/// The page for a run described by `title` (the repository and the model).
pub fn render(title: &str, summary: &Summary, results: &[CaseResult]) -> String {
    let mut out = page_start(&format!("pilotfish eval: {title}"));
    let _ = write!(out, "<style>{STYLE}</style>");
    let _ = write!(
        out,
        "<h2>Summary</h2><pre data-part=summary>{}</pre>",
        escape(&table(summary))
    );
    for (i, r) in results.iter().enumerate() {
        case(&mut out, i + 1, r);
    }
    out.push_str("</body></html>\n");
    out
}

fn case(out: &mut String, n: usize, r: &CaseResult) {
    let c = &r.case;
    let _ = write!(
        out,
        "<section class=case data-case={n} id=case-{n}><h2>{n}. {}:{}:{} <span class=tok>{}</span></h2>",
        escape(&c.file),
        c.line,
        c.column,
        c.kind.name()
    );
    let _ = write!(
        out,
        "<p>expected</p><pre data-part=expected>{}</pre>",
        escape(&c.expected)
    );
    if let Some(id) = &c.identifier {
        let _ = write!(out, "<p>needed identifier: <code>{}</code></p>", escape(id));
    }
    if let Some(line) = c.copy_from {
        let _ = write!(
            out,
            "<p>the expected text is also on line {line} of the file: counted apart</p>"
        );
    }
    out.push_str("<div class=cols>");
    for run in &r.runs {
        column(out, run);
    }
    out.push_str("</div></section>");
}

fn column(out: &mut String, run: &Run) {
    let _ = write!(
        out,
        "<div class=col data-strategy=\"{s}\"><h2>{s}</h2>",
        s = escape(&run.strategy)
    );
    if let Some(e) = &run.error {
        let _ = write!(out, "<p>failed: {}</p>", escape(e));
    }
    if let Some(why) = &run.empty {
        let _ = write!(out, "<p class=score>no answer: {}</p>", escape(why));
    }
    let _ = write!(
        out,
        "<p>answer</p><pre data-part=answer>{}</pre>",
        escape(&run.answer)
    );
    let identifier = run
        .scores
        .identifier
        .map_or(String::new(), |v| format!(", identifier {v:.0}"));
    let first = run
        .timings
        .first_token_ms
        .map_or("none".to_owned(), |t| format!("{t:.0} ms"));
    let _ = write!(
        out,
        "<p class=score>exact {:.0}{identifier}, similarity {:.3}; {} of {} tokens, {}; first token {first}, answer {:.0} ms</p>",
        run.scores.exact,
        run.scores.similarity,
        run.prompt_tokens,
        run.budget,
        if run.fim {
            "fill-in-the-middle"
        } else {
            "prefix-only"
        },
        run.timings.total_ms,
    );
    match &run.assembled {
        Some(p) => out.push_str(&prompt_parts(p)),
        None => {
            for (i, block) in run.prompt.context.iter().enumerate() {
                let _ = write!(
                    out,
                    "<pre data-part=\"context-{}\">{}</pre>",
                    i + 1,
                    escape(block)
                );
            }
            let _ = write!(
                out,
                "<pre data-part=prefix>{}</pre><pre data-part=suffix>{}</pre>",
                escape(&run.prompt.prefix),
                escape(&run.prompt.suffix)
            );
        }
    }
    out.push_str("</div>");
}
