//! Ranking's signals, each on candidates that differ only in it.

use super::*;

fn candidate<'a>(name: &'a str, path: &'a str, terms: &'a [String]) -> Candidate<'a> {
    let name_terms = Box::leak(crate::search::terms(name).into_boxed_slice());
    Candidate {
        name,
        owner: None,
        path,
        terms,
        name_terms,
        field: false,
        private: false,
        local: false,
        test: false,
        type_def: false,
        function: false,
        method: false,
        value_def: false,
        owner_terms: &[],
        file_terms: &[],
        used_elsewhere: 0,
        file_use: 0.0,
        file_imported: false,
        name_imported: false,
        alias_near_cursor: false,
    }
}

#[test]
fn sub_tokens_and_the_suffix_lead() {
    let cursor = CursorContext::new(
        "src/app.py",
        "def run(order):\n    cancelled = order.cancel_all()\n    ",
        "\n    return CancelledError\n",
    );
    let t1 = terms("class CancelledError(Error):");
    let t2 = terms("def parse_header(line):");
    let t3 = terms("def _cancel_helper(x):");
    let mut c3 = candidate("_cancel_helper", "src/other/x.py", &t3);
    c3.private = true;
    let cands = [
        candidate("CancelledError", "src/errors.py", &t1),
        candidate("parse_header", "src/http.py", &t2),
        c3,
    ];
    let s = score_all(&cands, &cursor, &Weights::default());
    assert!(s[0].total > s[2].total && s[2].total > s[1].total, "{s:?}");
    assert!(
        s[0].parts
            .iter()
            .any(|p| p.signal == "name after the cursor")
    );
    assert!(
        s[2].parts
            .iter()
            .any(|p| p.signal == "private" && p.value < 0.0)
    );
}

#[test]
fn nearer_prefix_uses_count_more() {
    let far: String = "x = total_price()\n".to_owned() + &"pass\n".repeat(200);
    let cursor_far = CursorContext::new("a.py", &far, "");
    let cursor_near = CursorContext::new("a.py", "x = total_price()\n", "");
    let t = terms("def total_price():");
    let c = [candidate("total_price", "b.py", &t)];
    let w = Weights::default();
    assert!(score_all(&c, &cursor_near, &w)[0].total > score_all(&c, &cursor_far, &w)[0].total);
}

/// The part `signal` of the only candidate's score, the new signals weighing 1 (0 when absent).
fn part(c: &Candidate<'_>, cursor: &CursorContext, signal: &str) -> f64 {
    let ones = Weights {
        line_subtokens: 1.0,
        near_stems: 1.0,
        owner_words: 1.0,
        file_name: 1.0,
        method: 1.0,
        value: 1.0,
        used_elsewhere: 1.0,
        top_level_type: 1.0,
        top_level_function: 1.0,
        top_level_value: 1.0,
        ..Weights::default()
    };
    let s = score_all(std::slice::from_ref(c), cursor, &ones);
    s[0].parts
        .iter()
        .filter(|p| p.signal == signal)
        .map(|p| p.value)
        .sum()
}

#[test]
fn name_sub_tokens_on_the_cursor_line_count() {
    let t = terms("def parse_header(line):");
    let c = candidate("parse_header", "b.py", &t);
    let at = CursorContext::new("a.py", "x = 1\nheader = parse_", "");
    let above = CursorContext::new("a.py", "header = parse_\nx = ", "");
    let signal = "name sub-tokens at the cursor";
    assert!(part(&c, &at, signal) > 0.99, "{at:?}");
    assert!(part(&c, &above, signal) < part(&c, &at, signal));
}

#[test]
fn word_stems_near_the_cursor_meet_other_forms() {
    assert_eq!(stem("parsing"), stem("parse"));
    assert_eq!(stem("handlers"), stem("handler"));
    assert_eq!(stem("configs"), stem("config"));
    let t = terms("def parse_config(path):");
    let c = candidate("parse_config", "b.py", &t);
    let near = CursorContext::new("a.py", "# parsing the configs\n", "");
    let far = CursorContext::new("a.py", "# nothing here\n", "");
    let signal = "name word stems near the cursor";
    assert!(part(&c, &near, signal) > 0.99);
    assert_eq!(part(&c, &far, signal), 0.0);
}

#[test]
fn the_owner_type_words_near_the_cursor_count() {
    let t = terms("def add_item(self, item):");
    let owner = terms("ShoppingCart");
    let mut c = candidate("add_item", "b.py", &t);
    c.owner = Some("ShoppingCart");
    c.owner_terms = &owner;
    let near = CursorContext::new("a.py", "cart = new_cart()\nshopping = True\n", "");
    let signal = "its type's words near the cursor";
    assert!(part(&c, &near, signal) > 0.99);
    let half = CursorContext::new("a.py", "cart = new_cart()\n", "");
    let v = part(&c, &half, signal);
    assert!(v > 0.0 && v < 1.0, "{v}");
}

#[test]
fn the_file_name_near_the_cursor_counts() {
    let t = terms("def round_to(amount, places):");
    let file = terms("money");
    let mut c = candidate("round_to", "lib/money.py", &t);
    c.file_terms = &file;
    let near = CursorContext::new("a.py", "total = money.", "");
    let signal = "its file's name near the cursor";
    assert!(part(&c, &near, signal) > 0.99);
    assert_eq!(
        part(&c, &CursorContext::new("a.py", "x = ", ""), signal),
        0.0
    );
}

#[test]
fn methods_and_values_have_their_own_signals() {
    let t = terms("def size(self):");
    let cursor = CursorContext::new("a.py", "    x = ", "");
    let mut c = candidate("size", "b.py", &t);
    assert_eq!(part(&c, &cursor, "a method"), 0.0);
    c.method = true;
    assert_eq!(part(&c, &cursor, "a method"), 1.0);
    c.method = false;
    c.value_def = true;
    assert_eq!(part(&c, &cursor, "a value"), 1.0);
}

#[test]
fn use_in_other_files_counts_as_its_logarithm() {
    let t = terms("def size(self):");
    let cursor = CursorContext::new("a.py", "    x = ", "");
    let mut c = candidate("size", "b.py", &t);
    assert_eq!(part(&c, &cursor, "used in other files"), 0.0);
    c.used_elsewhere = 3;
    let v = part(&c, &cursor, "used in other files");
    assert!((v - 4f64.ln()).abs() < 1e-9, "{v}");
}

#[test]
fn top_level_signals_only_on_an_unindented_line() {
    let t = terms("class Cart:");
    let top = CursorContext::new("a.py", "import os\n", "");
    let inside = CursorContext::new("a.py", "def f():\n    ", "");
    let mut c = candidate("Cart", "b.py", &t);
    c.type_def = true;
    assert_eq!(part(&c, &top, "a type, at the top level"), 1.0);
    assert_eq!(part(&c, &inside, "a type, at the top level"), 0.0);
    c.type_def = false;
    c.function = true;
    assert_eq!(part(&c, &top, "a function, at the top level"), 1.0);
    assert_eq!(part(&c, &inside, "a function, at the top level"), 0.0);
    c.function = false;
    c.value_def = true;
    assert_eq!(part(&c, &top, "a value, at the top level"), 1.0);
    assert_eq!(part(&c, &inside, "a value, at the top level"), 0.0);
}
