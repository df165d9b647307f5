//! The server in process, spoken to through a pipe as a client would: lifecycle, documents,
//! both completion protocols, configuration, cancellation and bad input. The model is the
//! scripted loopback fake from `test-utils` where answers must be known.

mod client;
mod copilot;
mod inspect;
mod next_edit;
mod protocol;
mod robustness;
