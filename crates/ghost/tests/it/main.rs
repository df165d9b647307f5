//! The pipeline end to end: a scripted model server on loopback (named a fake: it replays
//! OpenAI's `/v1/completions` stream with answers the test chooses) for behaviour that needs a
//! known answer, and the real llama-server for the path a user takes.

mod llama;
mod pipeline;
mod team;
