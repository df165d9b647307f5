//! The completion cache, as Copilot keeps it: completions stored under the document prefix they
//! were asked for, found again when the user types through them (the new prefix extends the
//! old one by text the completion starts with, and the suffix is unchanged).
//!
//! Copilot keeps the prefixes in a radix trie of at most 100 entries, evicting the least
//! recently touched; finding and storing both touch. This is the same structure, so that what
//! is found and what is evicted are the same; a logical clock stands in for Copilot's
//! millisecond timestamps.

/// One cached completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cached {
    pub suffix: String,
    pub completion: String,
}

/// A completion found in the cache: the part not typed yet, and how much was typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub completion: String,
    /// Bytes of the completion the user has typed since it was cached.
    pub typed: usize,
}

#[derive(Debug, Clone)]
struct Node {
    /// Children in insertion order, by edge label (Copilot iterates a `Map`).
    children: Vec<(String, usize)>,
    parent: Option<(usize, String)>,
    value: Option<Vec<Cached>>,
    touched: u64,
}

/// Prefix → completions, at most `capacity` prefixes.
#[derive(Debug, Clone)]
pub struct CompletionsCache {
    nodes: Vec<Node>,
    /// Nodes holding values, in the order they became leaves (Copilot's `Set`).
    leaves: Vec<usize>,
    capacity: usize,
    clock: u64,
}

impl Default for CompletionsCache {
    fn default() -> Self {
        CompletionsCache::new(100)
    }
}

impl CompletionsCache {
    pub fn new(capacity: usize) -> CompletionsCache {
        let mut cache = CompletionsCache {
            nodes: Vec::new(),
            leaves: Vec::new(),
            capacity,
            clock: 0,
        };
        cache.new_node();
        cache
    }

    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    fn new_node(&mut self) -> usize {
        let touched = self.tick();
        self.nodes.push(Node {
            children: Vec::new(),
            parent: None,
            value: None,
            touched,
        });
        self.nodes.len() - 1
    }

    /// Reads a node's value, touching it (Copilot's getter touches).
    fn read(&mut self, node: usize) -> Option<Vec<Cached>> {
        self.nodes[node].touched = self.tick();
        self.nodes[node].value.clone()
    }

    fn write(&mut self, node: usize, value: Option<Vec<Cached>>) {
        self.nodes[node].touched = self.tick();
        self.nodes[node].value = value;
    }

    fn add_child(&mut self, parent: usize, edge: String, child: usize) {
        self.nodes[parent].children.push((edge.clone(), child));
        self.nodes[child].parent = Some((parent, edge));
    }

    fn remove_child(&mut self, parent: usize, edge: &str) {
        if let Some(pos) = self.nodes[parent]
            .children
            .iter()
            .position(|(e, _)| e == edge)
        {
            let (_, child) = self.nodes[parent].children.remove(pos);
            self.nodes[child].parent = None;
        }
    }

    /// The deepest node whose key is a prefix of `key`, and the path to it (deepest first).
    fn closest(&self, key: &str) -> (usize, Vec<(usize, usize)>) {
        let mut node = 0;
        let mut rest = 0;
        let mut stack = vec![(0, 0)];
        'down: while rest < key.len() {
            for (edge, child) in &self.nodes[node].children {
                if key[rest..].starts_with(edge.as_str()) {
                    rest += edge.len();
                    node = *child;
                    stack.insert(0, (node, rest));
                    continue 'down;
                }
            }
            break;
        }
        (node, stack)
    }

    /// The valued nodes whose keys are prefixes of `key`, deepest first, with how much of the
    /// key each consumed, touching nodes exactly as Copilot's lookup does: every node on the
    /// path once, and the valued ones a second time when their value is taken.
    fn lookup(&mut self, key: &str) -> Vec<(usize, usize, Vec<Cached>)> {
        let (_, stack) = self.closest(key);
        let mut out = Vec::new();
        for (node, consumed) in stack {
            if self.read(node).is_some()
                && let Some(value) = self.read(node)
            {
                out.push((node, consumed, value));
            }
        }
        out
    }

    /// Every completion cached under a prefix of `prefix` with the same `suffix` that starts
    /// with the text typed since, longest cached prefix first.
    pub fn find_all(&mut self, prefix: &str, suffix: &str) -> Vec<Found> {
        let mut out = Vec::new();
        for (_, consumed, entries) in self.lookup(prefix) {
            let typed = &prefix[consumed..];
            for c in entries {
                if c.suffix == suffix
                    && c.completion.starts_with(typed)
                    && c.completion.len() > typed.len()
                {
                    out.push(Found {
                        completion: c.completion[typed.len()..].to_owned(),
                        typed: typed.len(),
                    });
                }
            }
        }
        out
    }

    /// Caches `completion` for `prefix` and `suffix`, after those already cached for exactly
    /// that prefix.
    pub fn append(&mut self, prefix: &str, suffix: &str, completion: &str) {
        let entry = Cached {
            suffix: suffix.to_owned(),
            completion: completion.to_owned(),
        };
        let value = match self.lookup(prefix).into_iter().next() {
            Some((_, consumed, mut content)) if consumed == prefix.len() => {
                content.push(entry);
                content
            }
            _ => vec![entry],
        };
        self.set(prefix, value);
    }

    fn set(&mut self, key: &str, value: Vec<Cached>) {
        let (mut node, stack) = self.closest(key);
        let mut rest = key[stack[0].1..].to_owned();
        if !rest.is_empty() {
            let split = self.nodes[node]
                .children
                .iter()
                .find(|(edge, _)| edge.starts_with(rest.as_str()))
                .map(|(edge, child)| (edge.clone(), *child));
            if let Some((edge, child)) = split {
                let common = edge[..rest.len()].to_owned();
                let intermediate = self.new_node();
                self.remove_child(node, &edge);
                self.add_child(node, common.clone(), intermediate);
                self.add_child(intermediate, edge[common.len()..].to_owned(), child);
                node = intermediate;
                rest = rest[common.len()..].to_owned();
            }
            if !rest.is_empty() {
                let fresh = self.new_node();
                self.add_child(node, rest, fresh);
                node = fresh;
            }
        }
        self.write(node, Some(value));
        if !self.leaves.contains(&node) {
            self.leaves.push(node);
        }
        if self.leaves.len() > self.capacity {
            self.evict_least_recently_used();
        }
    }

    fn evict_least_recently_used(&mut self) {
        let mut least: Option<usize> = None;
        for &n in &self.leaves {
            if least.is_none_or(|l| self.nodes[n].touched < self.nodes[l].touched) {
                least = Some(n);
            }
        }
        if let Some(n) = least {
            self.delete_node(n);
        }
    }

    fn delete_node(&mut self, node: usize) {
        self.write(node, None);
        self.leaves.retain(|&n| n != node);
        let Some((parent, edge)) = self.nodes[node].parent.clone() else {
            return;
        };
        let children = self.nodes[node].children.len();
        if children > 1 {
            return;
        }
        if children == 1 {
            let (child_edge, child) = self.nodes[node].children[0].clone();
            self.remove_child(node, &child_edge);
            self.remove_child(parent, &edge);
            self.add_child(parent, format!("{edge}{child_edge}"), child);
            return;
        }
        self.remove_child(parent, &edge);
        let Some((grandparent, parent_edge)) = self.nodes[parent].parent.clone() else {
            return;
        };
        if self.read(parent).is_none() && self.nodes[parent].children.len() == 1 {
            let (child_edge, child) = self.nodes[parent].children[0].clone();
            self.remove_child(parent, &child_edge);
            self.remove_child(grandparent, &parent_edge);
            self.add_child(grandparent, format!("{parent_edge}{child_edge}"), child);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typing_through_a_completion_finds_the_rest() {
        let mut c = CompletionsCache::default();
        c.append("def f(", ")", "a, b):\n    return a + b");
        assert_eq!(
            c.find_all("def f(a, ", ")"),
            vec![Found {
                completion: "b):\n    return a + b".into(),
                typed: 3
            }]
        );
        assert!(
            c.find_all("def f(x", ")").is_empty(),
            "typed text the completion does not have"
        );
        assert!(c.find_all("def f(a, ", "]").is_empty(), "another suffix");
        assert!(
            c.find_all("def f(a, b):\n    return a + b", ")").is_empty(),
            "nothing left to show"
        );
    }

    #[test]
    fn the_least_recently_used_prefix_goes_first() {
        let mut c = CompletionsCache::new(2);
        c.append("a", "", "1x");
        c.append("b", "", "2x");
        assert_eq!(c.find_all("a", "").len(), 1);
        c.append("c", "", "3x");
        assert_eq!(c.find_all("a", "").len(), 1, "a was touched after b");
        assert!(c.find_all("b", "").is_empty(), "b was evicted");
    }
}
