//! Edit application on fixtures: each case is the file before, the model's edit, and the file
//! after (or the refusal it must get). Python, JavaScript, TypeScript, Rust, Markdown and CRLF
//! files; markers at the start, middle and end; new methods; ambiguous anchors.

use agent::edit::{EditError, apply_lazy_edit, replace_string};
use proptest::prelude::*;

enum Want {
    File(&'static str),
    Refused(&'static str),
}

struct Case {
    name: &'static str,
    before: &'static str,
    edit: &'static str,
    want: Want,
}

const PY: &str = "import math\n\n\nclass Cart:\n    def __init__(self):\n        self.items = []\n\n    def add(self, item):\n        self.items.append(item)\n\n    def total(self):\n        return sum(i.price for i in self.items)\n\n\ndef area(r):\n    return math.pi * r * r\n";

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "python: one function replaced between markers",
            before: PY,
            edit: "# ...existing code...\ndef area(r):\n    return math.pi * r ** 2\n",
            want: Want::File(
                "import math\n\n\nclass Cart:\n    def __init__(self):\n        self.items = []\n\n    def add(self, item):\n        self.items.append(item)\n\n    def total(self):\n        return sum(i.price for i in self.items)\n\n\ndef area(r):\n    return math.pi * r ** 2\n",
            ),
        },
        Case {
            name: "python: a method body changed, markers around",
            before: PY,
            edit: "# ...existing code...\n    def total(self):\n        return round(sum(i.price for i in self.items), 2)\n# ...existing code...\n",
            want: Want::File(
                "import math\n\n\nclass Cart:\n    def __init__(self):\n        self.items = []\n\n    def add(self, item):\n        self.items.append(item)\n\n    def total(self):\n        return round(sum(i.price for i in self.items), 2)\n\n\ndef area(r):\n    return math.pi * r * r\n",
            ),
        },
        Case {
            name: "python: a new method after an existing one",
            before: PY,
            edit: "class Cart:\n    # ...existing code...\n    def total(self):\n        return sum(i.price for i in self.items)\n\n    def count(self):\n        return len(self.items)\n# ...existing code...\n",
            want: Want::File(
                "import math\n\n\nclass Cart:\n    def __init__(self):\n        self.items = []\n\n    def add(self, item):\n        self.items.append(item)\n\n    def total(self):\n        return sum(i.price for i in self.items)\n\n    def count(self):\n        return len(self.items)\n\n\ndef area(r):\n    return math.pi * r * r\n",
            ),
        },
        Case {
            name: "python: marker at the start, change at the very end",
            before: "a = 1\nb = 2\nc = 3\n",
            edit: "# ...existing code...\nb = 2\nc = 4\n",
            want: Want::File("a = 1\nb = 2\nc = 4\n"),
        },
        Case {
            name: "python: change at the start, marker at the end",
            before: "a = 1\nb = 2\nc = 3\n",
            edit: "a = 0\nb = 2\n# ...existing code...\n",
            want: Want::File("a = 0\nb = 2\nc = 3\n"),
        },
        Case {
            name: "javascript: two changes, three markers",
            before: "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n\nfunction c() {\n  return 3;\n}\n",
            edit: "// ...existing code...\nfunction a() {\n  return 10;\n}\n// ...existing code...\nfunction c() {\n  return 30;\n}\n// ...existing code...\n",
            want: Want::File(
                "function a() {\n  return 10;\n}\n\nfunction b() {\n  return 2;\n}\n\nfunction c() {\n  return 30;\n}\n",
            ),
        },
        Case {
            name: "typescript: a field added to a class (seed 004's Person example)",
            before: "class Person {\n  name: string;\n  constructor(name: string) {\n    this.name = name;\n  }\n}\n",
            edit: "class Person {\n  // ...existing code...\n  age: number;\n  // ...existing code...\n  getAge() {\n    return this.age;\n  }\n}\n",
            want: Want::Refused("none of the lines around"),
        },
        Case {
            name: "typescript: a field added with an anchor line",
            before: "class Person {\n  name: string;\n  constructor(name: string) {\n    this.name = name;\n  }\n}\n",
            edit: "class Person {\n  name: string;\n  age: number;\n  // ...existing code...\n",
            want: Want::File(
                "class Person {\n  name: string;\n  age: number;\n  constructor(name: string) {\n    this.name = name;\n  }\n}\n",
            ),
        },
        Case {
            name: "rust: a function replaced whole, braces at its end",
            before: "use std::fmt;\n\nfn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n\nfn main() {\n    println!(\"{}\", add(1, 2));\n}\n",
            edit: "// ...existing code...\nfn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n// ...existing code...\n",
            want: Want::File(
                "use std::fmt;\n\nfn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\nfn main() {\n    println!(\"{}\", add(1, 2));\n}\n",
            ),
        },
        Case {
            name: "rust: similar functions, an anchor that fits both is refused",
            before: "fn one() {\n    let x = 1;\n    done();\n}\n\nfn two() {\n    let x = 1;\n    done();\n}\n",
            edit: "// ...existing code...\n    let x = 1;\n    let y = 2;\n    done();\n// ...existing code...\n",
            want: Want::Refused("lines 1, 6 (0-based)"),
        },
        Case {
            name: "markdown: a section rewritten",
            before: "# Title\n\nIntro.\n\n## Install\n\nRun make.\n\n## Use\n\nRun it.\n",
            edit: "<!-- ...existing code... -->\n## Install\n\nRun `cargo install`.\n\n## Use\n<!-- ...existing code... -->\n",
            want: Want::File(
                "# Title\n\nIntro.\n\n## Install\n\nRun `cargo install`.\n\n## Use\n\nRun it.\n",
            ),
        },
        Case {
            name: "crlf: line endings kept",
            before: "x = 0\r\na = 1\r\nb = 2\r\nc = 3\r\nd = 4\r\n",
            edit: "# ...existing code...\na = 1\nb = 20\nc = 3\n# ...existing code...\n",
            want: Want::File("x = 0\r\na = 1\r\nb = 20\r\nc = 3\r\nd = 4\r\n"),
        },
        Case {
            name: "a marker then new lines then an anchor: inserted before the anchor",
            before: "a = 1\nb = 2\nc = 3\n",
            edit: "# ...existing code...\nb2 = 5\nc = 3\n",
            want: Want::File("a = 1\nb = 2\nb2 = 5\nc = 3\n"),
        },
        Case {
            name: "no marker: the whole file",
            before: "old\n",
            edit: "new\ncontent\n",
            want: Want::File("new\ncontent\n"),
        },
        Case {
            name: "white space differs in the anchor",
            before: "def f():\n    x = 1   \n    return x\n",
            edit: "# ...existing code...\n    x = 1\n    y = 2\n    return x + y\n",
            want: Want::File("def f():\n    x = 1\n    y = 2\n    return x + y\n"),
        },
        Case {
            name: "a forgotten final marker would delete the rest: refused",
            before: PY,
            edit: "import math\nimport os\n",
            want: Want::File("import math\nimport os\n"),
        },
        Case {
            name: "a forgotten final marker after an anchored change: refused",
            before: PY,
            edit: "# ...existing code...\nclass Cart:\n    def __init__(self):\n        self.items = list()\n",
            want: Want::Refused("lines"),
        },
    ]
}

#[test]
fn edit_fixtures() {
    let mut passed = 0;
    let all = cases();
    for case in &all {
        let got = apply_lazy_edit(case.before, case.edit);
        match (&case.want, &got) {
            (Want::File(want), Ok(file)) => assert_eq!(file, want, "{}", case.name),
            (Want::Refused(why), Err(e)) => {
                assert!(e.to_string().contains(why), "{}: {e}", case.name)
            }
            (_, got) => panic!("{}: {got:?}", case.name),
        }
        passed += 1;
    }
    assert_eq!(passed, all.len());
    eprintln!("edit fixtures: {passed} of {} as expected", all.len());
}

#[test]
fn replace_string_ladder() {
    let file = "def f():\n    x = 1\n    return x\n\ndef g():\n    x = 1\n    return x + 1\n";
    // Exact and unique.
    assert_eq!(
        replace_string(file, "    return x + 1", "    return x + 2").unwrap(),
        file.replace("x + 1", "x + 2")
    );
    // Several matches: refused with the lines.
    let err = replace_string(file, "    x = 1\n", "    x = 2\n").unwrap_err();
    assert!(matches!(err, EditError::Ambiguous(_)), "{err}");
    // White space ignored.
    assert!(replace_string(file, "def g():\n  x = 1", "def g():\n    x = 3").is_ok());
    // Nearly the same text (one character off) above the threshold.
    let long = "    total = sum(item.price * item.quantity for item in self.items)\n";
    let text = format!("class C:\n    def t(self):\n{long}        return total\n");
    let typo = "    total = sum(item.price * item.quantiy for item in self.items)";
    assert!(
        replace_string(&text, typo, "    total = 0")
            .unwrap()
            .contains("    total = 0\n")
    );
    // Not there at all.
    assert!(matches!(
        replace_string(file, "nothing like it", "x"),
        Err(EditError::NotFound(_))
    ));
    // CRLF files keep their endings.
    let crlf = "a\r\nb\r\nc\r\n";
    assert_eq!(
        replace_string(crlf, "b\nc", "B\nC").unwrap(),
        "a\r\nB\r\nC\r\n"
    );
}

proptest! {
    /// Lines outside the edited region are never changed: one unique line replaced between
    /// markers leaves every other line as it was.
    #[test]
    fn lines_outside_the_edit_never_change(
        lines in proptest::collection::vec("[a-z]{1,8}( [a-z]{1,8}){0,3}", 3..40),
        pick in 0usize..1000,
        new in "[A-Z]{1,10}",
    ) {
        // Unique lines, so the anchor is unambiguous.
        let lines: Vec<String> = lines.iter().enumerate().map(|(i, l)| format!("{l} {i}")).collect();
        let original = lines.join("\n") + "\n";
        let i = pick % lines.len();
        // Markers only where unchanged lines lie beyond the anchors: a marker says "what is
        // here stays", so one before the file's first line would mean an insertion.
        let mut edit = String::new();
        if i > 1 {
            edit += "# ...existing code...\n";
        }
        if i > 0 {
            edit += &format!("{}\n", lines[i - 1]);
        }
        edit += &format!("{new}\n");
        if i + 1 < lines.len() {
            edit += &format!("{}\n", lines[i + 1]);
        }
        if i + 2 < lines.len() {
            edit += "# ...existing code...\n";
        }
        let out = apply_lazy_edit(&original, &edit).unwrap();
        let got: Vec<&str> = out.lines().collect();
        prop_assert_eq!(got.len(), lines.len());
        for (k, l) in lines.iter().enumerate() {
            if k == i {
                prop_assert_eq!(got[k], new.as_str());
            } else {
                prop_assert_eq!(got[k], l.as_str());
            }
        }
    }

    #[test]
    fn no_input_panics(original in "(?s).{0,300}", edit in "(?s).{0,300}") {
        let _ = apply_lazy_edit(&original, &edit);
        let _ = replace_string(&original, &edit, "x");
        let marked = format!("{edit}\n# ...existing code...\n");
        for lang in [syntax::Lang::Python, syntax::Lang::Rust, syntax::Lang::TypeScript] {
            let _ = agent::edit::apply_lazy_edit_in(&original, &marked, Some(lang));
        }
    }
}

/// Where indentation misleads (a line at the function's own indentation inside it), the
/// syntax tree knows where the function ends.
#[test]
fn tree_sitter_finds_the_whole_function() {
    let before = "function a() {\n  if (x) {\n    y();\n  }\nreturn 1;\n}\n\nfunction b() {\n  return 2;\n}\n";
    let edit = "function a() {\n  return 10;\n}\n// ...existing code...\n";
    let want = "function a() {\n  return 10;\n}\n\nfunction b() {\n  return 2;\n}\n";
    assert_eq!(
        agent::edit::apply_lazy_edit_in(before, edit, Some(syntax::Lang::JavaScript)).unwrap(),
        want
    );
    // Without the language, indentation alone would have left the function's tail behind.
    assert_ne!(apply_lazy_edit(before, edit).unwrap(), want);
}
