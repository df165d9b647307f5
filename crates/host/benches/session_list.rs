//! `session/list` over 200 saved conversations: from the listing file (`Store::list`) against
//! reading every conversation (`Store::list_by_reading`), in the same run on the same folder.
//! Each conversation is a typical agent session: a system prompt, a few prompts, and 30 rounds
//! of tool calls with results of about 2 KB.

use std::path::Path;

use agent::conversation::{Message, ToolCall};
use criterion::{Criterion, criterion_group, criterion_main};
use host::session_store::{Limits, Saved, Store};

fn conversation(id: &str, cwd: &Path) -> Saved {
    let mut saved = Saved::new(id, cwd);
    saved
        .messages
        .push(Message::new("system", &"You are an agent. ".repeat(200)));
    saved
        .messages
        .push(Message::new("user", "fix the failing test in calc.py"));
    saved.prompted(1, "fix the failing test in calc.py");
    for round in 0..30 {
        let call = ToolCall {
            id: format!("call_{round}"),
            name: "read_file".into(),
            arguments: format!(
                r#"{{"filePath": "src/mod{round}.py", "startLineNumberBaseZero": 0, "endLineNumberBaseZero": 80}}"#
            ),
        };
        saved.messages.push(Message {
            role: "assistant".into(),
            content: "Let me look at the next file.".into(),
            tool_calls: vec![call],
            tool_call_id: None,
        });
        saved.messages.push(Message {
            role: "tool".into(),
            content: "def add(a, b):\n    return a + b\n".repeat(60),
            tool_calls: Vec::new(),
            tool_call_id: Some(format!("call_{round}")),
        });
    }
    saved
}

fn bench(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("pilotfish-bench-sessions-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let store = Store::at(
        dir.clone(),
        Limits {
            max_age_days: 30,
            max_count: 200,
        },
    );
    let workspaces = [Path::new("/work/a"), Path::new("/work/b")];
    for i in 0..200 {
        let mut saved = conversation(&format!("s-{i:03}"), workspaces[i % 2]);
        store
            .save(&mut saved)
            .expect("the bench's folder is writable");
    }
    let cwd = Some(workspaces[0]);
    assert_eq!(
        store.list(cwd).unwrap(),
        store.list_by_reading(cwd).unwrap()
    );
    let mut group = c.benchmark_group("session_list_200");
    group.bench_function("listing_file", |b| b.iter(|| store.list(cwd).unwrap()));
    group.bench_function("reading_every_session", |b| {
        b.iter(|| store.list_by_reading(cwd).unwrap())
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
