//! Keeping an agent's conversation inside the prompt's budget: when the rounds no longer fit,
//! the oldest ones go first, whole (an assistant message and the tool results that answer it),
//! so that no tool result is left without the call it answers. The system prompt, the task and
//! the newest round always stay.

/// How many of the oldest rounds to drop so that the messages fit `budget` tokens. `roles` and
/// `tokens` describe the messages in order; the head (everything up to and including the first
/// `user` message) is never dropped, nor is the last round.
pub fn rounds_to_drop(roles: &[&str], tokens: &[usize], budget: usize) -> usize {
    let total: usize = tokens.iter().sum();
    if total <= budget {
        return 0;
    }
    let head = roles.iter().position(|r| *r == "user").map_or(0, |i| i + 1);
    // Round starts: assistant messages after the head.
    let starts: Vec<usize> = (head..roles.len())
        .filter(|&i| roles[i] == "assistant")
        .collect();
    let mut excess = total - budget;
    let mut dropped = 0;
    for w in starts.windows(2) {
        if excess == 0 {
            break;
        }
        let size: usize = tokens[w[0]..w[1]].iter().sum();
        excess = excess.saturating_sub(size);
        dropped += 1;
    }
    dropped
}

/// The index range of the messages that the oldest `rounds` rounds span.
pub fn dropped_range(roles: &[&str], rounds: usize) -> std::ops::Range<usize> {
    let head = roles.iter().position(|r| *r == "user").map_or(0, |i| i + 1);
    let starts: Vec<usize> = (head..roles.len())
        .filter(|&i| roles[i] == "assistant")
        .collect();
    if rounds == 0 || starts.is_empty() {
        return head..head;
    }
    let end = starts.get(rounds).copied().unwrap_or(roles.len());
    starts[0]..end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oldest_rounds_go_first_and_whole() {
        let roles = [
            "system",
            "user",
            "assistant",
            "tool",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "tool",
        ];
        let tokens = [100, 20, 10, 500, 500, 10, 300, 10, 50];
        // Everything fits.
        assert_eq!(rounds_to_drop(&roles, &tokens, 2000), 0);
        // The first round (1,010 tokens) must go.
        assert_eq!(rounds_to_drop(&roles, &tokens, 1000), 1);
        assert_eq!(dropped_range(&roles, 1), 2..5);
        // Even a tiny budget keeps the head and the last round.
        assert_eq!(rounds_to_drop(&roles, &tokens, 10), 2);
        assert_eq!(dropped_range(&roles, 2), 2..7);
    }
}
