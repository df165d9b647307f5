//! Cases picked from fixture repositories: their kinds, their documents, their neighbours,
//! what is never a case, and the cases marked `copy_from`.

use eval::{Kind, Options, pick};

use crate::{line_of, repository};

const MONEY: &str = "\
from dataclasses import dataclass


@dataclass
class Money:
    cents: int

    def plus(self, other):
        return Money(self.cents + other.cents)


def format_amount(amount):
    whole, cents = divmod(amount.cents, 100)
    return f\"{whole}.{cents:02d}\"
";

const ACCOUNTS: &str = "\
from .money import Money, format_amount


class Account:
    def __init__(self, name, opening):
        self.name = name
        self.balance = opening

    def deposit(self, amount):
        self.balance = self.balance.plus(amount)
        # format_amount(self.balance) in a comment is no case
        label = \"format_amount(self.balance) in a string\"

    def describe(self):
        return self.name + \" \" + format_amount(self.balance)
";

const REPORT: &str = "\
from .accounts import Account


def richest(accounts):
    return max(accounts, key=lambda account: account.balance.cents)
";

fn ledger() -> eval::Repository {
    repository(&[
        ("ledger/accounts.py", ACCOUNTS),
        ("ledger/report.py", REPORT),
        ("ledger/money.py", MONEY),
        (
            "README.md",
            "# ledger\n\nformat_amount(self.balance) is how it prints.\n",
        ),
    ])
}

#[test]
fn fixture_cases_come_out_as_expected() {
    let cases = pick(&ledger(), Options { cases: 4, seed: 46 }).unwrap();
    let got: Vec<(String, usize, usize, Kind, String)> = cases
        .iter()
        .map(|c| (c.file.clone(), c.line, c.column, c.kind, c.expected.clone()))
        .collect();
    // Every case is one the rules allow, in file and line order.
    assert_eq!(got.len(), 4, "{got:#?}");
    let mut sorted = got.clone();
    sorted.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    assert_eq!(got, sorted);
    for c in &cases {
        let original = [ACCOUNTS, REPORT, MONEY][match c.file.as_str() {
            "ledger/accounts.py" => 0,
            "ledger/report.py" => 1,
            _ => 2,
        }];
        let line = line_of(original, c.line);
        let at: usize = line.chars().take(c.column - 1).map(char::len_utf8).sum();
        assert_eq!(&line[at..], c.expected, "{c:?}");
        match c.kind {
            Kind::CrossFile => {
                let id = c.identifier.as_deref().unwrap();
                assert!(c.expected.starts_with(id), "{c:?}");
                assert!(
                    ["Money", "format_amount", "Account"].contains(&id) || id == "plus",
                    "{c:?}"
                );
            }
            Kind::SameFile => assert!(c.expected.starts_with(c.identifier.as_deref().unwrap())),
            Kind::WholeLine => {
                assert!(line_of(original, c.line - 1).trim().is_empty(), "{c:?}");
                assert_eq!(c.expected, line.trim_start());
            }
        }
    }
    // A cross-file case at the call of `plus`, which only money.py defines.
    let all = pick(
        &ledger(),
        Options {
            cases: 50,
            seed: 46,
        },
    )
    .unwrap();
    assert!(
        all.iter()
            .any(|c| c.kind == Kind::CrossFile && c.expected == "plus(amount)" && c.line == 10),
        "{all:#?}"
    );
}

#[test]
fn imports_comments_and_strings_are_never_cases() {
    for seed in 0..20 {
        for c in pick(&ledger(), Options { cases: 50, seed }).unwrap() {
            let line = line_of(
                match c.file.as_str() {
                    "ledger/accounts.py" => ACCOUNTS,
                    "ledger/report.py" => REPORT,
                    _ => MONEY,
                },
                c.line,
            );
            let trimmed = line.trim_start();
            assert!(
                !trimmed.starts_with("from ")
                    && !trimmed.starts_with("import ")
                    && !trimmed.starts_with('#'),
                "{c:?}"
            );
            assert!(
                !line.contains("in a string") && !line.contains("in a comment"),
                "{c:?}"
            );
            assert!(c.file.ends_with(".py"), "only code files: {c:?}");
        }
    }
}

#[test]
fn each_document_is_its_file_with_the_expected_text_taken_out() {
    let repo = ledger();
    for c in pick(
        &repo,
        Options {
            cases: 50,
            seed: 46,
        },
    )
    .unwrap()
    {
        let original = &repo.files.iter().find(|f| f.path == c.file).unwrap().text;
        let mut rebuilt = c.document.clone();
        rebuilt.insert_str(c.offset, &c.expected);
        assert_eq!(&rebuilt, original, "{c:?}");
        let request = c.request(&repo, "/w", true);
        assert_eq!(request.document.text, c.document);
        assert_eq!(request.document.path, format!("/w/{}", c.file));
        assert_eq!(
            (request.position.line, request.position.character),
            (c.line - 1, c.column - 1)
        );
        assert!(
            c.request(&repo, "/w", false).open_documents.is_empty(),
            "none: the file alone"
        );
        // The workspace a strategy reads holds the case's file as the editor has it.
        let files = eval::CaseFiles::new(&repo, &c);
        assert_eq!(
            syntax::WorkspaceFiles::read(&files, &c.file).as_deref(),
            Some(c.document.as_str())
        );
    }
}

#[test]
fn neighbours_are_imports_and_importers_most_recently_changed_first_at_most_eight() {
    let mut files: Vec<(String, String)> = (0..12)
        .map(|i| {
            (
                format!("pkg/user{i}.py"),
                format!("from .core import Engine\n\n\nx{i} = Engine().run_with_{i}()\n"),
            )
        })
        .collect();
    files.push((
        "pkg/core.py".to_owned(),
        "from .util import helper\n\n\nclass Engine:\n    def run(self):\n        return helper(self.value_of_the_engine)\n".to_owned(),
    ));
    files.push((
        "pkg/util.py".to_owned(),
        "def helper(v):\n    return v\n".to_owned(),
    ));
    files.push((
        "pkg/lonely.py".to_owned(),
        "def lonely():\n    return 1\n".to_owned(),
    ));
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let mut repo = repository(&borrowed);
    // git log: user11 changed last, then user10, ... and util.
    repo.recency = (0..12).rev().map(|i| format!("pkg/user{i}.py")).collect();
    repo.recency.insert(3, "pkg/util.py".to_owned());
    let cases = pick(
        &repo,
        Options {
            cases: 60,
            seed: 46,
        },
    )
    .unwrap();
    let core = cases
        .iter()
        .find(|c| c.file == "pkg/core.py")
        .expect("a case in core.py");
    assert_eq!(
        core.open,
        [
            "pkg/user11.py",
            "pkg/user10.py",
            "pkg/user9.py",
            "pkg/util.py",
            "pkg/user8.py",
            "pkg/user7.py",
            "pkg/user6.py",
            "pkg/user5.py"
        ]
    );
    let user = cases
        .iter()
        .find(|c| c.file.starts_with("pkg/user"))
        .expect("a case in a user");
    assert_eq!(user.open, ["pkg/core.py"]);
}

#[test]
fn a_case_whose_text_is_elsewhere_in_its_file_is_marked_copy_from() {
    let text = "from .money import Money\n\n\ndef a(x):\n    return Money(x.cents * 2)\n\n\ndef b(y):\n    return Money(x.cents * 2)\n";
    let repo = repository(&[
        ("m/user.py", text),
        ("m/money.py", "class Money:\n    pass\n"),
    ]);
    let cases = pick(
        &repo,
        Options {
            cases: 20,
            seed: 46,
        },
    )
    .unwrap();
    let copied: Vec<_> = cases
        .iter()
        .filter(|c| c.expected == "Money(x.cents * 2)")
        .collect();
    assert!(!copied.is_empty(), "{cases:#?}");
    for c in copied {
        assert_eq!(c.copy_from, Some(if c.line == 5 { 9 } else { 5 }), "{c:?}");
        assert!(!c.honest());
    }
    for c in cases.iter().filter(|c| c.honest()) {
        assert!(!c.document.contains(c.expected.trim()), "{c:?}");
    }
}

#[test]
fn text_found_in_another_file_is_never_a_case() {
    let repo = ledger();
    for c in pick(
        &repo,
        Options {
            cases: 50,
            seed: 46,
        },
    )
    .unwrap()
    {
        assert_ne!(
            c.expected, "format_amount(self.balance)",
            "the README holds it: {c:?}"
        );
        for f in repo.files.iter().filter(|f| f.path != c.file) {
            assert!(
                !f.text.contains(c.expected.trim()),
                "{c:?} is in {}",
                f.path
            );
        }
    }
}

#[test]
fn bad_input_is_refused_with_what_to_do() {
    assert_eq!(
        pick(&ledger(), Options { cases: 0, seed: 46 }),
        Err(eval::InputError::NoCases)
    );
    let words = repository(&[("notes.md", "# notes\n"), ("data.csv", "a,b\n")]);
    let e = pick(&words, Options::default()).unwrap_err();
    assert_eq!(e, eval::InputError::NoSourceFiles);
    assert!(e.to_string().contains("Python"), "{e}");
    let e = eval::parse_strategies("none,magic").unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown strategy `magic`: use none, copilot, outline"
    );
    assert_eq!(
        eval::parse_strategies("outline, none,outline").unwrap(),
        ["outline", "none"]
    );
}

#[test]
fn text_another_file_holds_across_lines_is_never_a_case() {
    // `outline` may send a signature over several lines as one line: the text is in that
    // file, white space aside.
    let user = "from .lib import combine\n\n\nvalue = combine(first_value, second_value)\n";
    let picked = |lib: &str| {
        let repo = repository(&[("p/user.py", user), ("p/lib.py", lib)]);
        pick(
            &repo,
            Options {
                cases: 10,
                seed: 46,
            },
        )
        .unwrap()
        .into_iter()
        .map(|c| c.expected)
        .collect::<Vec<_>>()
    };
    let wanted = "combine(first_value, second_value)".to_owned();
    let apart = picked("def combine(first_value,\n            second_value):\n    return 1\n");
    assert!(!apart.contains(&wanted), "{apart:?}");
    // The same line is a case where the other file does not hold its text.
    let elsewhere = picked("def combine(a, b):\n    return 1\n");
    assert!(elsewhere.contains(&wanted), "{elsewhere:?}");
}
