"""Tests of check.py: run with `python3 -m unittest discover -s tools/code-shape`.

Each test builds a small workspace (`crates/NAME/src/...`) in a temporary folder, from the
files in `fixtures/` and from texts written here, and runs the check on it. A small line
limit keeps the fixtures short.
"""

import contextlib
import io
import os
import shutil
import tempfile
import unittest

import check

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


class Workspace:
    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="code-shape-")

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def copy(self, fixture, rel):
        with open(os.path.join(FIXTURES, fixture), encoding="utf-8") as f:
            self.write(rel, f.read())

    def findings(self, limit=check.LIMIT):
        return check.check(self.root, limit)

    def close(self):
        shutil.rmtree(self.root)


class FunctionLength(unittest.TestCase):
    def setUp(self):
        self.ws = Workspace()

    def tearDown(self):
        self.ws.close()

    def functions(self, fixture):
        with open(os.path.join(FIXTURES, fixture), encoding="utf-8") as f:
            parsed = check.parse(f.read())
        return {f.name: (f.start, f.end) for f in parsed.functions}

    def test_braces_in_strings_chars_raw_strings_comments_and_lifetimes_do_not_count(self):
        self.assertEqual(
            self.functions("braces.rs"),
            {
                "strings": (4, 14),
                "lifetimes": (16, 25),
                "generic": (28, 35),
                "sides": (39, 41),
                "escaped_chars": (50, 52),
            },
        )

    def test_a_function_one_line_over_the_limit_is_reported_with_its_length(self):
        self.ws.copy("braces.rs", "crates/demo/src/lib.rs")
        self.assertEqual(
            self.ws.findings(limit=10),
            [("crates/demo/src/lib.rs", 4, "fn strings is 11 lines (limit 10)")],
        )
        self.assertEqual(self.ws.findings(limit=11), [])

    def test_comments_and_blank_lines_count(self):
        body = "".join("\n" if i % 2 else "    // a comment\n" for i in range(98))
        self.ws.write("crates/demo/src/lib.rs", "pub fn f() {\n" + body + "}\n")
        self.assertEqual(self.ws.findings(), [])
        self.ws.write("crates/demo/src/lib.rs", "pub fn f() {\n" + body + "\n}\n")
        self.assertEqual(
            self.ws.findings(),
            [("crates/demo/src/lib.rs", 1, "fn f is 101 lines (limit 100)")],
        )

    def test_test_code_is_left_aside(self):
        self.ws.copy("tests_aside.rs", "crates/demo/src/lib.rs")
        long = "pub fn long() {\n" + "    let _ = 1;\n" * 20 + "}\n"
        self.ws.write("crates/demo/src/helpers.rs", long)  # declared `#[cfg(test)] mod helpers;`
        self.ws.write("crates/demo/src/tests.rs", long)
        self.ws.write("crates/demo/src/run/tests/cases.rs", long)
        self.ws.write("crates/demo/tests/it/main.rs", long)
        self.ws.write("crates/demo/benches/speed.rs", long)
        self.assertEqual(self.ws.findings(limit=5), [])
        self.ws.write("crates/demo/src/other.rs", long)
        self.assertEqual(
            self.ws.findings(limit=5),
            [("crates/demo/src/other.rs", 1, "fn long is 22 lines (limit 5)")],
        )

    def test_the_command_prints_findings_and_fails(self):
        self.ws.copy("braces.rs", "crates/demo/src/lib.rs")
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            status = check.main([self.ws.root, "--limit", "10"])
        self.assertEqual(status, 1)
        self.assertEqual(
            out.getvalue(), "crates/demo/src/lib.rs:4: fn strings is 11 lines (limit 10)\n"
        )
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(check.main([self.ws.root]), 0)


class ImportCircles(unittest.TestCase):
    def setUp(self):
        self.ws = Workspace()
        self.ws.write("crates/demo/src/lib.rs", "mod a;\nmod b;\nmod p;\npub struct Root;\n")
        self.ws.write("crates/demo/src/p/mod.rs", "mod c;\npub struct Shared;\n")
        self.ws.write("crates/demo/src/p/c.rs", "pub struct Part;\n")

    def tearDown(self):
        self.ws.close()

    def circles(self):
        return [f for f in self.ws.findings() if "import circle" in f[2]]

    def test_siblings_importing_each_other_are_a_circle(self):
        self.ws.write("crates/demo/src/a.rs", "use crate::b::B;\npub struct A;\n")
        self.ws.write("crates/demo/src/b.rs", "\nuse crate::{a::A, Root};\npub struct B;\n")
        self.assertEqual(
            self.circles(),
            [
                (
                    "crates/demo/src/a.rs",
                    1,
                    "import circle: crates/demo/src/a.rs:1 imports crates/demo/src/b.rs; "
                    "crates/demo/src/b.rs:2 imports crates/demo/src/a.rs",
                )
            ],
        )

    def test_one_direction_is_no_circle(self):
        self.ws.write("crates/demo/src/a.rs", "use crate::b::B;\nuse super::Root;\n")
        self.ws.write("crates/demo/src/b.rs", "pub struct B;\n")
        self.assertEqual(self.circles(), [])

    def test_paths_in_code_and_super_paths_count(self):
        self.ws.write("crates/demo/src/a.rs", "pub fn f() { super::b::g(); }\n")
        self.ws.write("crates/demo/src/b.rs", "pub fn g() {}\npub fn h() { crate::a::f() }\n")
        self.assertEqual(len(self.circles()), 1)

    def test_a_longer_circle_is_shown_whole(self):
        self.ws.write("crates/demo/src/a.rs", "use crate::b::B;\n")
        self.ws.write("crates/demo/src/b.rs", "use crate::p::c::Part;\npub struct B;\n")
        self.ws.write("crates/demo/src/p/c.rs", "use crate::a;\npub struct Part;\n")
        self.assertEqual(
            [f[2] for f in self.circles()],
            [
                "import circle: crates/demo/src/a.rs:1 imports crates/demo/src/b.rs; "
                "crates/demo/src/b.rs:1 imports crates/demo/src/p/c.rs; "
                "crates/demo/src/p/c.rs:1 imports crates/demo/src/a.rs"
            ],
        )

    def test_a_parent_publishing_its_childs_items_is_no_circle(self):
        self.ws.write("crates/demo/src/p/mod.rs", "mod c;\npub use c::Part;\npub struct Shared;\n")
        self.ws.write("crates/demo/src/p/c.rs", "use super::Shared;\npub struct Part;\n")
        self.assertEqual(self.circles(), [])

    def test_a_parent_calling_into_its_child_is_no_circle(self):
        self.ws.write(
            "crates/demo/src/p/mod.rs", "mod c;\npub struct Shared;\nfn f() { c::make(); }\n"
        )
        self.ws.write("crates/demo/src/p/c.rs", "use super::Shared;\npub fn make() {}\n")
        self.assertEqual(self.circles(), [])

    def test_a_parent_and_child_importing_each_others_items_are_a_circle(self):
        self.ws.write(
            "crates/demo/src/p/mod.rs", "mod c;\npub struct Shared;\n\nuse c::make;\n"
        )
        self.ws.write("crates/demo/src/p/c.rs", "use super::Shared;\npub fn make() {}\n")
        self.assertEqual(
            [f[2] for f in self.circles()],
            [
                "import circle: crates/demo/src/p/c.rs:1 imports crates/demo/src/p/mod.rs; "
                "crates/demo/src/p/mod.rs:4 imports crates/demo/src/p/c.rs"
            ],
        )

    def test_the_crate_root_and_a_module_count_as_parent_and_child(self):
        self.ws.write("crates/demo/src/lib.rs", "mod a;\npub struct Root;\nuse a::A;\n")
        self.ws.write("crates/demo/src/a.rs", "pub struct A;\nfn f() -> crate::Root { todo!() }\n")
        self.assertEqual(len(self.circles()), 1)
        self.ws.write("crates/demo/src/lib.rs", "mod a;\npub struct Root;\npub use a::A;\n")
        self.assertEqual(self.circles(), [])

    def test_imports_in_test_code_and_in_strings_do_not_count(self):
        self.ws.write(
            "crates/demo/src/a.rs",
            'use crate::b::B;\nconst S: &str = "use crate::a::A;";\n'
            "#[cfg(test)]\nmod tests {\n    use crate::b::B;\n}\n",
        )
        self.ws.write(
            "crates/demo/src/b.rs",
            "pub struct B;\n// use crate::a::A;\n#[cfg(test)]\nuse crate::a::A;\n"
            "#[cfg(test)]\nmod tests {\n    use crate::a::A;\n}\n",
        )
        self.assertEqual(self.circles(), [])


if __name__ == "__main__":
    unittest.main()
