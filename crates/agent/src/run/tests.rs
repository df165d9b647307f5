//! The loop against fakes: a scripted model (a fake: it plays the answers a test chooses, in
//! order), tools that record what ran, and a user whose answers are scripted too. Each case
//! checks the conversation the loop leaves and what it reported.

use std::{
    cell::RefCell,
    collections::VecDeque,
    rc::Rc,
    sync::atomic::{AtomicBool, Ordering},
};

use super::*;

/// A fake model: answers from a script; `Err` entries fail or cancel. It keeps every
/// conversation it was sent.
struct ScriptedModel {
    script: VecDeque<Result<Answer, ModelError>>,
    seen: Rc<RefCell<Vec<Vec<Message>>>>,
}

impl Model for ScriptedModel {
    fn chat(
        &mut self,
        messages: &[Message],
        _tools: &[ToolSpec],
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Answer, ModelError> {
        self.seen.borrow_mut().push(messages.to_vec());
        let answer = self
            .script
            .pop_front()
            .unwrap_or(Err(ModelError::Failed("the script ran out".into())))?;
        // Words arrive in two pieces, as a stream would give them.
        let cut = answer.content.len() / 2;
        if cut > 0 {
            on_text(&answer.content[..cut]);
            on_text(&answer.content[cut..]);
        }
        Ok(answer)
    }
}

/// Fake tools: `run_in_terminal` needs the user's leave, `forbidden` is refused, anything else
/// runs and answers with its arguments.
#[derive(Default)]
struct RecordingTools {
    ran: Vec<String>,
}

impl Tools for RecordingTools {
    fn permission(&mut self, call: &ToolCall) -> Permission {
        match call.name.as_str() {
            "run_in_terminal" => Permission::Ask(format!("run {}", call.arguments)),
            "forbidden" => Permission::Refused("the rules forbid it".into()),
            _ => Permission::Granted,
        }
    }

    fn run(&mut self, call: &ToolCall) -> Outcome {
        self.ran.push(call.name.clone());
        Outcome::done(format!("{} ran with {}", call.name, call.arguments))
    }
}

/// A fake user answering questions from a script (`Reject` once it runs out).
struct ScriptedUser(VecDeque<Decision>);

impl Approvals for ScriptedUser {
    fn ask(&mut self, _call: &ToolCall, _question: &str) -> Decision {
        self.0.pop_front().unwrap_or(Decision::Reject)
    }
}

#[derive(Default)]
struct Log(Vec<String>);

impl Observer for Log {
    fn event(&mut self, event: Event<'_>) {
        self.0.push(match event {
            Event::Text(t) => format!("text {t}"),
            Event::Answer(a) => format!("answer {}", a.tool_calls.len()),
            Event::ToolStart(c) => format!("start {}", c.name),
            Event::ToolRunning(c) => format!("running {}", c.name),
            Event::ToolEnd(c, o) => format!("end {} {}", c.name, o.ok),
            Event::Note(_) => "note".into(),
        });
    }
}

fn words(text: &str) -> Result<Answer, ModelError> {
    Ok(Answer {
        content: text.into(),
        ..Answer::default()
    })
}

fn calls(list: &[(&str, &str)]) -> Result<Answer, ModelError> {
    Ok(Answer {
        content: String::new(),
        tool_calls: list
            .iter()
            .enumerate()
            .map(|(i, (name, args))| ToolCall {
                id: format!("c{i}"),
                name: (*name).into(),
                arguments: (*args).into(),
            })
            .collect(),
        finish_reason: Some("tool_calls".into()),
    })
}

/// What a run left: how it stopped, the conversation, the tools that ran, the events, what
/// the model saw each round.
struct Ran {
    stop: Result<Stop, Failed>,
    messages: Vec<Message>,
    ran: Vec<String>,
    log: Vec<String>,
    seen: Vec<Vec<Message>>,
}

fn run_with(
    script: Vec<Result<Answer, ModelError>>,
    user: Vec<Decision>,
    subagents: &[Subagent],
    max_rounds: u32,
    max_tokens: usize,
) -> Ran {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let mut model = ScriptedModel {
        script: script.into(),
        seen: seen.clone(),
    };
    let mut tools = RecordingTools::default();
    let mut log = Log::default();
    let cancel = AtomicBool::new(false);
    let catalogue = vec![ToolSpec {
        name: "read_file".into(),
        description: String::new(),
        parameters: serde_json::json!({}),
    }];
    let count = |t: &str| t.len() / 4;
    let mut messages = vec![Message::new("system", "sys"), Message::new("user", "task")];
    let stop = Loop {
        model: &mut model,
        tools: &mut tools,
        approvals: &mut ScriptedUser(user.into()),
        observer: &mut log,
        cancel: &cancel,
        subagents,
        catalogue: &catalogue,
        result_chars: 60,
        max_tokens,
        count: &count,
    }
    .run(&mut messages, &catalogue, max_rounds);
    let seen = seen.borrow().clone();
    Ran {
        stop,
        messages,
        ran: tools.ran,
        log: log.0,
        seen,
    }
}

fn run(script: Vec<Result<Answer, ModelError>>, user: Vec<Decision>) -> Ran {
    run_with(script, user, &[], 10, 100_000)
}

fn roles(messages: &[Message]) -> Vec<&str> {
    messages.iter().map(|m| m.role.as_str()).collect()
}

#[test]
fn calls_run_and_their_results_go_back_until_the_model_answers_in_words() {
    let r = run(
        vec![
            calls(&[("read_file", "{\"a\":1}"), ("list_dir", "{}")]),
            words("done!"),
        ],
        vec![],
    );
    assert_eq!(
        r.stop,
        Ok(Stop::Answered {
            rounds: 2,
            cut: false
        })
    );
    assert_eq!(
        roles(&r.messages),
        ["system", "user", "assistant", "tool", "tool", "assistant"]
    );
    assert_eq!(r.messages[3].tool_call_id.as_deref(), Some("c0"));
    assert_eq!(r.messages[3].content, "read_file ran with {\"a\":1}");
    assert_eq!(r.ran, ["read_file", "list_dir"]);
    assert_eq!(
        r.log,
        [
            "answer 2",
            "start read_file",
            "running read_file",
            "end read_file true",
            "start list_dir",
            "running list_dir",
            "end list_dir true",
            "text do",
            "text ne!",
            "answer 0"
        ]
    );
    // The second round saw the first round's calls and results.
    assert_eq!(r.seen[1].len(), 5);
}

#[test]
fn the_user_decides_what_asks_for_leave_and_the_rules_refuse_without_asking() {
    let r = run(
        vec![
            calls(&[
                ("run_in_terminal", "rm"),
                ("forbidden", "{}"),
                ("run_in_terminal", "ls"),
            ]),
            words("ok"),
        ],
        vec![Decision::Reject, Decision::Allow],
    );
    assert_eq!(r.ran, ["run_in_terminal"], "only the allowed command ran");
    assert!(
        r.messages[3].content.contains("the user declined"),
        "{}",
        r.messages[3].content
    );
    assert_eq!(r.messages[4].content, "the rules forbid it");
    assert_eq!(r.messages[5].content, "run_in_terminal ran with ls");
    // Only the call that ran was shown running, after its start and before its end.
    let shown: Vec<&str> = r
        .log
        .iter()
        .filter(|e| e.starts_with("start") || e.starts_with("running") || e.starts_with("end"))
        .map(String::as_str)
        .collect();
    assert_eq!(
        shown,
        [
            "start run_in_terminal",
            "end run_in_terminal false",
            "start forbidden",
            "end forbidden false",
            "start run_in_terminal",
            "running run_in_terminal",
            "end run_in_terminal true"
        ]
    );
    assert_eq!(
        r.stop,
        Ok(Stop::Answered {
            rounds: 2,
            cut: false
        })
    );
}

#[test]
fn a_cancelled_question_ends_the_turn_and_every_call_still_gets_an_answer() {
    let r = run(
        vec![
            calls(&[("run_in_terminal", "make"), ("read_file", "{}")]),
            words("never asked"),
        ],
        vec![Decision::Cancelled],
    );
    assert_eq!(r.stop, Ok(Stop::Cancelled { rounds: 1 }));
    assert!(r.ran.is_empty());
    assert_eq!(
        roles(&r.messages),
        ["system", "user", "assistant", "tool", "tool"]
    );
    assert!(r.messages[4].content.contains("cancelled"));
    assert_eq!(r.seen.len(), 1, "the model was not asked again");
}

#[test]
fn how_runs_end() {
    type Script = Vec<Result<Answer, ModelError>>;
    let cases: Vec<(Script, u32, Result<Stop, Failed>)> = vec![
        (
            vec![Err(ModelError::Cancelled)],
            5,
            Ok(Stop::Cancelled { rounds: 1 }),
        ),
        (
            vec![
                calls(&[("read_file", "{}")]),
                Err(ModelError::Failed("500".into())),
            ],
            5,
            Err(Failed {
                round: 2,
                message: "500".into(),
            }),
        ),
        (
            vec![calls(&[("read_file", "{}")]), calls(&[("read_file", "{}")])],
            2,
            Ok(Stop::RoundLimit { rounds: 2 }),
        ),
        (
            vec![Ok(Answer {
                content: "cut sho".into(),
                tool_calls: vec![],
                finish_reason: Some("length".into()),
            })],
            5,
            Ok(Stop::Answered {
                rounds: 1,
                cut: true,
            }),
        ),
    ];
    for (script, max_rounds, want) in cases {
        let r = run_with(script, vec![], &[], max_rounds, 100_000);
        assert_eq!(r.stop, want);
    }
}

#[test]
fn results_are_cut_to_the_budget() {
    let long = format!("{{\"x\":\"{}\"}}", "a".repeat(500));
    let r = run(vec![calls(&[("read_file", &long)]), words("ok")], vec![]);
    let content = &r.messages[3].content;
    assert!(content.chars().count() < 200, "{content}");
    assert!(content.contains("cut from the middle"), "{content}");
}

#[test]
fn old_rounds_are_dropped_with_a_note_when_the_budget_is_full() {
    let big = format!("{{\"x\":\"{}\"}}", "a".repeat(400));
    let r = run_with(
        vec![
            calls(&[("read_file", &big)]),
            calls(&[("read_file", &big)]),
            calls(&[("read_file", &big)]),
            words("ok"),
        ],
        vec![],
        &[],
        10,
        200,
    );
    assert!(r.log.contains(&"note".to_owned()), "{:?}", r.log);
    let last = r.seen.last().unwrap();
    assert!(
        last.iter().any(|m| m.content.starts_with("[pilotfish] ")),
        "the model is told what was dropped"
    );
    assert_eq!(last[0].content, "sys", "the head stays");
    assert_eq!(last[1].content, "task");
}

#[test]
fn subagents_run_with_their_own_prompt_and_cannot_start_another() {
    let helper = Subagent {
        name: "helper".into(),
        body: "You help.".into(),
        tools: vec!["read_file".into()],
    };
    let r = run_with(
        vec![
            calls(&[(
                "runSubagent",
                r#"{"agentName": "helper", "prompt": "look", "description": "d"}"#,
            )]),
            calls(&[(
                "runSubagent",
                r#"{"agentName": "helper", "prompt": "again", "description": "d"}"#,
            )]),
            words("found it"),
            calls(&[(
                "runSubagent",
                r#"{"agentName": "nobody", "prompt": "x", "description": "d"}"#,
            )]),
            words("done"),
        ],
        vec![],
        &[helper],
        10,
        100_000,
    );
    // The subagent's first request: its own system prompt and task.
    assert_eq!(r.seen[1][0].content, "You help.");
    assert_eq!(r.seen[1][1].content, "look");
    let sub_refusal = &r.seen[2].last().unwrap().content;
    assert!(
        sub_refusal.contains("cannot start another subagent"),
        "{sub_refusal}"
    );
    assert_eq!(r.messages[3].content, "found it");
    assert!(
        r.messages[5].content.starts_with("there is no agent named"),
        "{}",
        r.messages[5].content
    );
    assert!(r.messages[5].content.contains("helper"));
    assert_eq!(
        r.stop,
        Ok(Stop::Answered {
            rounds: 3,
            cut: false
        })
    );
}

#[test]
fn a_cancel_set_before_a_round_stops_it() {
    let cancel = AtomicBool::new(true);
    let mut model = ScriptedModel {
        script: VecDeque::from(vec![words("no")]),
        seen: Rc::default(),
    };
    let count = |t: &str| t.len();
    let mut messages = vec![Message::new("user", "task")];
    let stop = Loop {
        model: &mut model,
        tools: &mut RecordingTools::default(),
        approvals: &mut ScriptedUser(VecDeque::new()),
        observer: &mut Log::default(),
        cancel: &cancel,
        subagents: &[],
        catalogue: &[],
        result_chars: 100,
        max_tokens: 1000,
        count: &count,
    }
    .run(&mut messages, &[], 3);
    assert_eq!(stop, Ok(Stop::Cancelled { rounds: 0 }));
    assert!(cancel.load(Ordering::SeqCst));
    assert_eq!(messages.len(), 1);
}
