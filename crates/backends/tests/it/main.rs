//! Backends against real servers on loopback: llama.cpp's own `llama-server` (built by
//! `tools/llama-server.sh` with a tiny random-weight model, so the text is nonsense but the
//! protocol is real), and, for the faults a healthy server never shows, a raw TCP server that
//! writes exactly the broken bytes under test (named `FaultyServer`, a fake by design).

mod chat;
mod fakes;
mod faults;
mod identity;
mod keep_alive;
mod llama;
