//! Seed 004's loop: the model's tool calls are run and their results sent back until it answers
//! without calling a tool, the round limit is reached or the user cancels. The loop does no I/O
//! itself: it is driven through traits for the model, the workspace's tools, the user's
//! approvals and whoever watches the run, so the terminal agent, the ACP agent and the tests run
//! this same loop.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::conversation::{Answer, Message, Outcome, ToolCall, ToolSpec};

/// Why asking the model gave no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// The user cancelled while the model was answering.
    #[error("cancelled")]
    Cancelled,
    /// The server failed; the message says how, for the user.
    #[error("{0}")]
    Failed(String),
}

/// The model: sends the conversation and streams the answer's words to `on_text`.
pub trait Model {
    fn chat(
        &mut self,
        messages: &[Message],
        tools: &[ToolSpec],
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Answer, ModelError>;
}

/// What a call needs before it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Permission {
    /// It may run.
    Granted,
    /// It never runs (the user's rules forbid it); the reason is for the model.
    Refused(String),
    /// The user is asked; the text says what would be done.
    Ask(String),
    /// The user is asked, and may answer "always": then [`Tools::remember`] keeps the answer
    /// (a git-ignored file the agent may read from now on in this workspace).
    AskOrRemember(String),
}

/// The workspace's tools.
pub trait Tools {
    /// What `call` needs before it runs: reading and editing inside the workspace need nothing,
    /// commands and other programs' tools are judged by the user's rules.
    fn permission(&mut self, call: &ToolCall) -> Permission;
    /// Runs a call (its permission settled).
    fn run(&mut self, call: &ToolCall) -> Outcome;
    /// Keeps the user's "always" for a call asked about with [`Permission::AskOrRemember`].
    fn remember(&mut self, _call: &ToolCall) {}
}

/// The user's answer to a question about a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Allow,
    Reject,
    /// The user cancelled the whole turn while being asked.
    Cancelled,
}

/// The user, asked before a call that needs it.
pub trait Approvals {
    fn ask(&mut self, call: &ToolCall, question: &str) -> Decision;
    /// Asks with "always" among the answers; the flag is true when the user chose it. Without
    /// a way to say "always", the plain question.
    fn ask_or_remember(&mut self, call: &ToolCall, question: &str) -> (Decision, bool) {
        (self.ask(call, question), false)
    }
}

/// What happens during a run, for whoever shows it.
#[derive(Debug)]
pub enum Event<'a> {
    /// A piece of the model's words as it arrives.
    Text(&'a str),
    /// The model's whole answer in a round.
    Answer(&'a Answer),
    /// A call the model made, before its permission is settled.
    ToolStart(&'a ToolCall),
    /// A call whose permission is settled, now running (an editor shows it in progress).
    ToolRunning(&'a ToolCall),
    /// A call's result, as the model will see it.
    ToolEnd(&'a ToolCall, &'a Outcome),
    /// Something the user should know (old rounds dropped for the budget).
    Note(&'a str),
}

/// Watches a run.
pub trait Observer {
    fn event(&mut self, event: Event<'_>);
}

/// A custom agent a `runSubagent` call may start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subagent {
    pub name: String,
    /// Its system prompt.
    pub body: String,
    /// The tools it may use (all, when empty).
    pub tools: Vec<String>,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The model answered without calling a tool. `cut`: its answer hit the length limit.
    Answered { rounds: u32, cut: bool },
    /// The round limit was reached with the model still calling tools.
    RoundLimit { rounds: u32 },
    /// The user cancelled.
    Cancelled { rounds: u32 },
}

/// A run that could not go on: the model server failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the model server failed in round {round}: {message}")]
pub struct Failed {
    pub round: u32,
    pub message: String,
}

/// The most rounds a subagent may take.
pub const SUBAGENT_ROUNDS: u32 = 15;

/// One run's parts.
pub struct Loop<'a> {
    pub model: &'a mut dyn Model,
    pub tools: &'a mut dyn Tools,
    pub approvals: &'a mut dyn Approvals,
    pub observer: &'a mut dyn Observer,
    /// Set by the user to stop the run; the model's adapter and the tools watch it too.
    pub cancel: &'a AtomicBool,
    /// The custom agents `runSubagent` may start.
    pub subagents: &'a [Subagent],
    /// Every tool there is, from which a subagent's tools are chosen.
    pub catalogue: &'a [ToolSpec],
    /// The most characters a tool result may give the model (cut in the middle).
    pub result_chars: usize,
    /// The prompt's budget in tokens; older rounds are dropped to stay under it.
    pub max_tokens: usize,
    /// Counts a text's tokens.
    pub count: &'a dyn Fn(&str) -> usize,
}

impl std::fmt::Debug for Loop<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loop")
            .field("result_chars", &self.result_chars)
            .field("max_tokens", &self.max_tokens)
            .finish_non_exhaustive()
    }
}

impl Loop<'_> {
    /// Rounds until the model answers without a tool call. The model's final words are the
    /// last assistant message of `messages`, which holds the whole conversation afterwards.
    pub fn run(
        &mut self,
        messages: &mut Vec<Message>,
        tools: &[ToolSpec],
        max_rounds: u32,
    ) -> Result<Stop, Failed> {
        self.rounds(messages, tools, max_rounds, true)
    }

    fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::SeqCst)
    }

    fn rounds(
        &mut self,
        messages: &mut Vec<Message>,
        tools: &[ToolSpec],
        max_rounds: u32,
        main: bool,
    ) -> Result<Stop, Failed> {
        // Token counts of the messages so far, so a round counts only what it added.
        let mut counts: Vec<usize> = Vec::new();
        for round in 1..=max_rounds {
            if self.cancelled() {
                return Ok(Stop::Cancelled { rounds: round - 1 });
            }
            self.fit(messages, &mut counts);
            let observer = &mut *self.observer;
            let answer = match self.model.chat(messages, tools, &mut |piece| {
                observer.event(Event::Text(piece))
            }) {
                Ok(a) => a,
                Err(ModelError::Cancelled) => return Ok(Stop::Cancelled { rounds: round }),
                Err(ModelError::Failed(message)) => return Err(Failed { round, message }),
            };
            self.observer.event(Event::Answer(&answer));
            messages.push(Message {
                role: "assistant".into(),
                content: answer.content.clone(),
                tool_calls: answer.tool_calls.clone(),
                tool_call_id: None,
            });
            if answer.tool_calls.is_empty() {
                return Ok(Stop::Answered {
                    rounds: round,
                    cut: answer.finish_reason.as_deref() == Some("length"),
                });
            }
            for call in &answer.tool_calls {
                // Every call gets an answer, so the conversation stays well formed even when
                // the user cancels between calls.
                let outcome = if self.cancelled() {
                    Outcome::failed("the user cancelled the turn before this call ran")
                } else {
                    self.observer.event(Event::ToolStart(call));
                    let outcome = self.call(call, main);
                    self.observer.event(Event::ToolEnd(call, &outcome));
                    outcome
                };
                messages.push(Message {
                    role: "tool".into(),
                    content: outcome.content,
                    tool_calls: Vec::new(),
                    tool_call_id: Some(call.id.clone()),
                });
            }
            if self.cancelled() {
                return Ok(Stop::Cancelled { rounds: round });
            }
        }
        Ok(Stop::RoundLimit { rounds: max_rounds })
    }

    /// One call, asked about first when it needs that; its result cut to the budget.
    fn call(&mut self, call: &ToolCall, main: bool) -> Outcome {
        let mut outcome = if call.name == "runSubagent" {
            self.observer.event(Event::ToolRunning(call));
            self.subagent(&call.arguments, main)
        } else {
            match self.tools.permission(call) {
                Permission::Granted => self.running(call),
                Permission::Refused(why) => Outcome::failed(why),
                Permission::Ask(question) => {
                    let decision = self.approvals.ask(call, &question);
                    self.decided(call, &question, decision)
                }
                Permission::AskOrRemember(question) => {
                    let (decision, always) = self.approvals.ask_or_remember(call, &question);
                    if always && decision == Decision::Allow {
                        self.tools.remember(call);
                    }
                    self.decided(call, &question, decision)
                }
            }
        };
        outcome.content = crate::budget::cut_middle(&outcome.content, self.result_chars);
        outcome
    }

    /// Runs a call, or says why not, as the user decided.
    fn decided(&mut self, call: &ToolCall, question: &str, decision: Decision) -> Outcome {
        match decision {
            Decision::Allow => self.running(call),
            Decision::Reject => Outcome::failed(format!(
                "the user declined this call ({question}); do not make it again, find another way or ask"
            )),
            Decision::Cancelled => {
                self.cancel.store(true, Ordering::SeqCst);
                Outcome::failed("the user cancelled the turn")
            }
        }
    }

    /// Runs a call whose permission is settled, saying so first.
    fn running(&mut self, call: &ToolCall) -> Outcome {
        self.observer.event(Event::ToolRunning(call));
        self.tools.run(call)
    }

    /// Drops the oldest whole rounds when the conversation outgrows the budget, and says so
    /// (to the model, in a note where they were, and to the user).
    fn fit(&mut self, messages: &mut Vec<Message>, counts: &mut Vec<usize>) {
        let count = |m: &Message| {
            // A chat model's per-message overhead, as the chat prompt counts it.
            3 + (self.count)(&m.content)
                + m.tool_calls
                    .iter()
                    .map(|c| (self.count)(&c.arguments) + 3)
                    .sum::<usize>()
        };
        counts.truncate(messages.len());
        while counts.len() < messages.len() {
            counts.push(count(&messages[counts.len()]));
        }
        let roles: Vec<&str> = messages.iter().map(|m| m.role.as_str()).collect();
        let rounds = crate::history::rounds_to_drop(&roles, counts, self.max_tokens);
        if rounds == 0 {
            return;
        }
        let range = crate::history::dropped_range(&roles, rounds);
        let start = range.start;
        let calls: Vec<String> = messages[range.clone()]
            .iter()
            .flat_map(|m| m.tool_calls.iter().map(|c| c.name.clone()))
            .collect();
        messages.drain(range.clone());
        counts.drain(range);
        let note = format!(
            "{rounds} earlier tool round(s) ({}) were dropped to keep the conversation within {} tokens; call the tools again for anything you still need from them",
            calls.join(", "),
            self.max_tokens
        );
        self.observer.event(Event::Note(&note));
        let note = Message::new("user", &format!("[pilotfish] {note}"));
        counts.insert(start, count(&note));
        messages.insert(start, note);
    }

    /// `runSubagent`: the custom agent's body as the system prompt, its `tools` as its tools
    /// (never another subagent), the prompt as the task; its final answer is the result.
    fn subagent(&mut self, arguments: &str, main: bool) -> Outcome {
        let a = match crate::tools::parse("runSubagent", arguments) {
            Ok(crate::tools::Call::RunSubagent(a)) => a,
            Ok(_) => return Outcome::failed("runSubagent's arguments were not understood"),
            Err(e) => return Outcome::failed(e),
        };
        if !main {
            return Outcome::failed("a subagent cannot start another subagent");
        }
        let Some(found) = self.subagents.iter().find(|x| x.name == a.agent_name) else {
            let names: Vec<&str> = self.subagents.iter().map(|x| x.name.as_str()).collect();
            return Outcome::failed(format!(
                "there is no agent named {}; the workspace's agents are: {}",
                a.agent_name,
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            ));
        };
        let found = found.clone();
        let offered: Vec<ToolSpec> = self
            .catalogue
            .iter()
            .filter(|s| s.name != "runSubagent")
            .filter(|s| found.tools.is_empty() || found.tools.contains(&s.name))
            .cloned()
            .collect();
        let mut messages = vec![
            Message::new("system", &found.body),
            Message::new("user", &a.prompt),
        ];
        match self.rounds(&mut messages, &offered, SUBAGENT_ROUNDS, false) {
            Ok(Stop::Answered { .. }) => Outcome::done(
                messages
                    .last()
                    .map(|m| m.content.clone())
                    .unwrap_or_default(),
            ),
            Ok(Stop::RoundLimit { rounds }) => Outcome::failed(format!(
                "the subagent {} did not finish within {rounds} rounds",
                found.name
            )),
            Ok(Stop::Cancelled { .. }) => Outcome::failed("the user cancelled the subagent"),
            Err(e) => Outcome::failed(format!("the subagent {} did not finish: {e}", found.name)),
        }
    }
}

#[cfg(test)]
mod tests;
