#!/usr/bin/env python3
"""Checks two rules of the house on the Rust sources of `crates/*/src`:

1. No function is longer than 100 lines, counted from the line of its `fn` keyword to the
   line of its closing brace, comments and blank lines included (clippy's `too_many_lines`
   skips comments and blank lines, so it lets longer functions through).
2. No two files of a crate import each other, directly or around a longer circle.

Tests are left aside: files under `tests/`, `benches/` or `examples/` folders, files named
`tests.rs`, modules declared `#[cfg(test)] mod NAME;` (their files), the bodies of
`#[cfg(test)] mod NAME { ... }` and functions marked `#[test]`.

What counts as an import of file B by file A: a `use` declaration or a path in code
(`crate::b::f()`, `super::X`, `self::m::Y`) that names an item of the module that file B
holds (or of a module inline in it). A module's own `mod b;` declaration is no import.
From a module to its own descendants (a parent and its child, `lib.rs` and any module) only
a private `use` of the descendant's items counts: a `pub use` only publishes the
descendant's API, and a path in code (`child::f()`) is a module calling into its own parts,
which is what it has them for. From a descendant to its ancestors, both count as with any
other file. So a parent and its child count as a circle only when they import each other's
items by `use`, and siblings whenever each names the other.

Usage: python3 tools/code-shape/check.py [--limit N] [ROOT]
ROOT is the repository (default: the one holding this script). Prints one line per
finding, `path:line: ...`, and exits with 1 when there is any.
"""

import argparse
import os
import sys

LIMIT = 100


# ---------------------------------------------------------------------------------------
# Lexing: Rust text into tokens, with comments, strings and characters out of the way.


class Token:
    __slots__ = ("kind", "text", "line")

    def __init__(self, kind, text, line):
        # kind: "ident", "punct" (one character, or `::`, `->`, `=>`), "lit", "lifetime"
        self.kind = kind
        self.text = text
        self.line = line

    def __repr__(self):
        return f"{self.kind}:{self.text}@{self.line}"


def is_ident_start(c):
    return c.isalpha() or c == "_"


def is_ident_char(c):
    return c.isalnum() or c == "_"


def lex(src):
    """The tokens of Rust source `src`. Lines count from 1."""
    tokens = []
    i, n, line = 0, len(src), 1

    def raw_string_at(j):
        """If a raw string (`r"..."`, `r#"..."#`, `br##"..."##`, `cr"..."`) starts at `j`,
        the index just after it; else None."""
        k = j
        if src[k] in "bc" and k + 1 < n and src[k + 1] == "r":
            k += 1
        if src[k] != "r":
            return None
        k += 1
        hashes = 0
        while k < n and src[k] == "#":
            hashes += 1
            k += 1
        if k >= n or src[k] != '"':
            return None
        close = '"' + "#" * hashes
        end = src.find(close, k + 1)
        return n if end < 0 else end + len(close)

    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif src.startswith("//", i):
            end = src.find("\n", i)
            i = n if end < 0 else end
        elif src.startswith("/*", i):
            # Block comments nest in Rust.
            depth, i = 1, i + 2
            while i < n and depth:
                if src.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif src.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    if src[i] == "\n":
                        line += 1
                    i += 1
        elif c in "rbc" and (i == 0 or not is_ident_char(src[i - 1])) and raw_string_at(i):
            end = raw_string_at(i)
            tokens.append(Token("lit", src[i:end], line))
            line += src.count("\n", i, end)
            i = end
        elif c == '"':
            start, i = i, i + 1
            while i < n and src[i] != '"':
                i += 2 if src[i] == "\\" else 1
            i = min(i + 1, n)
            tokens.append(Token("lit", src[start:i], line))
            line += src.count("\n", start, i)
        elif c == "'":
            # A character literal (`'x'`, `'\n'`, `'\u{7b}'`, `'{'`) or a lifetime or label
            # (`'a`, `'outer`).
            if i + 1 < n and src[i + 1] == "\\":
                j = i + 3  # past the backslash and the character it escapes
                while j < n and src[j] != "'" and src[j] != "\n":
                    j += 1
                tokens.append(Token("lit", src[i : j + 1], line))
                i = j + 1
            elif i + 2 < n and src[i + 2] == "'":
                tokens.append(Token("lit", src[i : i + 3], line))
                i += 3
            else:
                j = i + 1
                while j < n and is_ident_char(src[j]):
                    j += 1
                tokens.append(Token("lifetime", src[i:j], line))
                i = max(j, i + 1)
        elif is_ident_start(c) or c.isdigit():
            j = i
            if src.startswith("r#", i) and i + 2 < n and is_ident_start(src[i + 2]):
                j = i + 2  # a raw identifier, `r#type`
            while j < n and is_ident_char(src[j]):
                j += 1
            text = src[i:j]
            if c.isdigit():
                tokens.append(Token("lit", text, line))
            else:
                tokens.append(Token("ident", text.removeprefix("r#"), line))
            i = j
        else:
            two = src[i : i + 2]
            if two in ("::", "->", "=>"):
                tokens.append(Token("punct", two, line))
                i += 2
            else:
                tokens.append(Token("punct", c, line))
                i += 1
    return tokens


# ---------------------------------------------------------------------------------------
# Parsing: what the checks need of a file.


class Function:
    def __init__(self, name, start, end):
        self.name, self.start, self.end = name, start, end

    @property
    def lines(self):
        return self.end - self.start + 1


class Import:
    def __init__(self, scope, path, line, kind):
        # scope: the inline modules around the import inside its file; path: its segments,
        # starting with `crate`, `super`, `self` or a module name; kind: "use", "pub use" or
        # "code" (a path in code).
        self.scope, self.path, self.line, self.kind = scope, path, line, kind


class ModDecl:
    def __init__(self, scope, name, line, test, inline, path_attr):
        self.scope, self.name, self.line = scope, name, line
        self.test, self.inline, self.path_attr = test, inline, path_attr


class Parsed:
    def __init__(self):
        self.functions = []
        self.imports = []
        self.mods = []
        self.test_file = False


def matching(tokens, i, open_, close):
    """The index of the token closing the bracket opened at `i`."""
    depth = 0
    for j in range(i, len(tokens)):
        t = tokens[j]
        if t.kind == "punct":
            if t.text == open_:
                depth += 1
            elif t.text == close:
                depth -= 1
                if depth == 0:
                    return j
    return len(tokens) - 1


def attribute_words(tokens, i):
    """The tokens' texts inside the attribute `#[...]` starting at `i`, and the index after it."""
    j = i + 1
    if j < len(tokens) and tokens[j].text == "!":
        j += 1
    if j >= len(tokens) or tokens[j].text != "[":
        return None, i + 1
    end = matching(tokens, j, "[", "]")
    return [t.text for t in tokens[j + 1 : end]], end + 1


def function_end(tokens, i):
    """For the `fn` at `i`, the index of its body's closing brace, or None for a function
    without a body (a trait's declaration)."""
    paren = bracket = angle = 0
    for j in range(i + 1, len(tokens)):
        t = tokens[j]
        if t.kind != "punct":
            continue
        x = t.text
        if x == "(":
            paren += 1
        elif x == ")":
            paren -= 1
        elif x == "[":
            bracket += 1
        elif x == "]":
            bracket -= 1
        elif x == "<":
            angle += 1
        elif x == ">" and angle > 0:
            angle -= 1
        elif x == ";" and paren == 0 and bracket == 0:
            return None
        elif x == "{" and paren == 0 and bracket == 0 and angle == 0:
            return matching(tokens, j, "{", "}")
    return None


def use_paths(tokens, i, prefix, out):
    """Expands the use tree starting at `i` into full paths (lists of segments) appended to
    `out`; returns the index after the tree."""
    path = list(prefix)
    while i < len(tokens):
        t = tokens[i]
        if t.text == "::":
            i += 1
            continue
        if t.text == "{":
            end = matching(tokens, i, "{", "}")
            j = i + 1
            while j < end:
                j = use_paths(tokens, j, path, out)
                # On to the next tree of the list.
                while j < end and tokens[j].text != ",":
                    j = matching(tokens, j, "{", "}") + 1 if tokens[j].text == "{" else j + 1
                j += 1
            return end + 1
        if t.text == "*":
            out.append(path)
            return i + 1
        if t.kind == "ident":
            if t.text == "self" and path:
                out.append(path)  # `use a::{self, B}`: the module itself
                return i + 1
            path = path + [t.text]
            i += 1
            if i < len(tokens) and tokens[i].text == "::":
                i += 1
                continue
            out.append(path)
            if i < len(tokens) and tokens[i].text == "as":
                i += 2
            return i
        return i + 1
    return i


def parse(src):
    """Functions, imports and module declarations of one file, test code left out."""
    tokens = lex(src)
    parsed = Parsed()
    scope = []  # (name, index of the closing brace) of the inline modules we are in
    test_attr = False
    path_attr = None
    pub = False
    i = 0
    while i < len(tokens):
        while scope and i > scope[-1][1]:
            scope.pop()
        t = tokens[i]
        names = [s for s, _ in scope]
        if t.text == "#" and t.kind == "punct":
            inner = i + 1 < len(tokens) and tokens[i + 1].text == "!"
            words, after = attribute_words(tokens, i)
            if words is not None:
                if words == ["cfg", "(", "test", ")"]:
                    if inner and not scope:
                        parsed.test_file = True
                        return parsed
                    test_attr = True
                elif words == ["test"]:
                    test_attr = True
                elif words[:2] == ["path", "="] and len(words) == 3:
                    path_attr = words[2].strip('"')
                i = after
                continue
        if t.kind == "ident" and t.text == "pub":
            pub = True
            i += 1
            if i < len(tokens) and tokens[i].text == "(":
                i = matching(tokens, i, "(", ")") + 1
            continue
        if t.kind == "ident" and t.text == "mod" and i + 1 < len(tokens):
            name = tokens[i + 1].text
            after = tokens[i + 2].text if i + 2 < len(tokens) else ";"
            if after == "{":
                end = matching(tokens, i + 2, "{", "}")
                parsed.mods.append(ModDecl(names, name, t.line, test_attr, True, path_attr))
                if test_attr:
                    i = end + 1
                else:
                    scope.append((name, end))
                    i += 3
            else:
                parsed.mods.append(ModDecl(names, name, t.line, test_attr, False, path_attr))
                i += 2
            test_attr, path_attr, pub = False, None, False
            continue
        if t.kind == "ident" and t.text == "use" and not (i > 0 and tokens[i - 1].text == "$"):
            paths = []
            j = use_paths(tokens, i + 1, [], paths)
            if not test_attr:
                for p in paths:
                    parsed.imports.append(Import(names, p, t.line, "pub use" if pub else "use"))
            while j < len(tokens) and tokens[j].text != ";":
                j += 1
            i = j + 1
            test_attr, path_attr, pub = False, None, False
            continue
        if (
            t.kind == "ident"
            and t.text == "fn"
            and i + 1 < len(tokens)
            and tokens[i + 1].kind == "ident"
        ):
            end = function_end(tokens, i)
            if end is not None:
                if test_attr:
                    i = end + 1
                    test_attr, path_attr, pub = False, None, False
                    continue
                parsed.functions.append(Function(tokens[i + 1].text, t.line, tokens[end].line))
            test_attr, path_attr, pub = False, None, False
            i += 2
            continue
        if (
            t.kind == "ident"
            and t.text in ("crate", "super", "self")
            and i + 1 < len(tokens)
            and tokens[i + 1].text == "::"
            and not (i > 0 and tokens[i - 1].text in ("$", "::", "."))
        ):
            path, j = [t.text], i + 1
            while j + 1 < len(tokens) and tokens[j].text == "::" and tokens[j + 1].kind == "ident":
                path.append(tokens[j + 1].text)
                j += 2
            parsed.imports.append(Import(names, path, t.line, "code"))
            i = j
            continue
        if t.kind == "punct" and t.text in (";", "{", "}"):
            test_attr, path_attr, pub = False, None, False
        i += 1
    return parsed


# ---------------------------------------------------------------------------------------
# Which files to look at.


def is_test_path(rel):
    parts = rel.replace(os.sep, "/").split("/")
    if parts[-1] == "tests.rs":
        return True
    return any(p in ("tests", "benches", "examples") for p in parts[:-1])


def source_files(root):
    """Every `.rs` file under `crates/*/src`, workspace-relative, tests aside."""
    crates = os.path.join(root, "crates")
    out = []
    for crate in sorted(os.listdir(crates)) if os.path.isdir(crates) else []:
        src = os.path.join(crates, crate, "src")
        for dirpath, dirnames, filenames in os.walk(src):
            dirnames.sort()
            for f in sorted(filenames):
                if f.endswith(".rs"):
                    rel = os.path.relpath(os.path.join(dirpath, f), root)
                    if not is_test_path(os.path.relpath(os.path.join(dirpath, f), src)):
                        out.append(rel)
    return out


# ---------------------------------------------------------------------------------------
# Check 1: function length.


def long_functions(root, files, parsed, limit):
    findings = []
    for rel in files:
        p = parsed[rel]
        if p.test_file:
            continue
        for f in p.functions:
            if f.lines > limit:
                findings.append((rel, f.start, f"fn {f.name} is {f.lines} lines (limit {limit})"))
    return findings


# ---------------------------------------------------------------------------------------
# Check 2: import circles.


def crate_roots(src):
    roots = [os.path.join(src, f) for f in ("lib.rs", "main.rs")]
    bin_dir = os.path.join(src, "bin")
    if os.path.isdir(bin_dir):
        for f in sorted(os.listdir(bin_dir)):
            p = os.path.join(bin_dir, f)
            roots.append(p if f.endswith(".rs") else os.path.join(p, "main.rs"))
    return [r for r in roots if os.path.isfile(r)]


class Tree:
    """The modules of one crate root: module path (a tuple) to the file holding it."""

    def __init__(self):
        self.file_of = {}
        self.test_files = set()


def module_tree(root, crate_root, parsed_of):
    tree = Tree()

    def visit(path_abs, module, is_mod_rs):
        rel = os.path.relpath(path_abs, root)
        if rel in tree.file_of.values() or not os.path.isfile(path_abs):
            return
        tree.file_of[module] = rel
        p = parsed_of(rel)
        if p.test_file:
            tree.test_files.add(rel)
        base = os.path.dirname(path_abs)
        if not is_mod_rs:
            base = os.path.join(base, os.path.splitext(os.path.basename(path_abs))[0])
        for m in p.mods:
            inner = module + tuple(m.scope) + (m.name,)
            if m.inline:
                tree.file_of.setdefault(inner, rel)
                continue
            folder = os.path.join(base, *m.scope)
            if m.path_attr:
                child = os.path.join(os.path.dirname(path_abs), m.path_attr)
                child_mod_rs = os.path.basename(child) == "mod.rs"
            elif os.path.isfile(os.path.join(folder, m.name + ".rs")):
                child, child_mod_rs = os.path.join(folder, m.name + ".rs"), False
            else:
                child, child_mod_rs = os.path.join(folder, m.name, "mod.rs"), True
            if m.test:
                tree.test_files.add(os.path.relpath(child, root))
                continue
            visit(child, inner, child_mod_rs)

    visit(crate_root, (), True)
    return tree


def resolve(tree, module, imp):
    """The module path an import names, as far as it is one of this crate's; else None."""
    here = module + tuple(imp.scope)
    path = imp.path
    head = path[0]
    if head == "crate":
        target, rest = (), path[1:]
    elif head in ("super", "self"):
        target = here
        k = 0
        while k < len(path) and path[k] in ("super", "self"):
            if path[k] == "super":
                if not target:
                    return None
                target = target[:-1]
            k += 1
        rest = path[k:]
    elif here + (head,) in tree.file_of:
        target, rest = here, path
    else:
        return None
    full = target + tuple(rest)
    # The longest prefix that is a module: the rest names items in it.
    for k in range(len(full), -1, -1):
        if full[:k] in tree.file_of:
            return full[:k]
    return None


def import_circles(root, parsed_of):
    findings = []
    crates = os.path.join(root, "crates")
    for crate in sorted(os.listdir(crates)) if os.path.isdir(crates) else []:
        src = os.path.join(crates, crate, "src")
        for crate_root in crate_roots(src):
            tree = module_tree(root, crate_root, parsed_of)
            findings.extend(circles_in(tree, parsed_of))
    # One crate's files can sit under two roots (lib.rs and main.rs share none, but be safe).
    seen, unique = set(), []
    for f in findings:
        if f not in seen:
            seen.add(f)
            unique.append(f)
    return unique


def circles_in(tree, parsed_of):
    module_of = {}
    for module, rel in tree.file_of.items():
        if rel not in module_of or len(module) < len(module_of[rel]):
            module_of[rel] = module
    edges = {}  # file -> {file: first line importing it}
    for rel, module in module_of.items():
        if rel in tree.test_files or is_test_path(rel):
            continue
        for imp in parsed_of(rel).imports:
            target = resolve(tree, module, imp)
            if target is None:
                continue
            to = tree.file_of[target]
            if to == rel or to in tree.test_files:
                continue
            here = module + tuple(imp.scope)
            if target[: len(module)] == module and imp.kind != "use":
                # An ancestor publishing a descendant's items, or calling into its parts.
                continue
            edges.setdefault(rel, {}).setdefault(to, imp.line)
    findings = []
    for component in strongly_connected(edges):
        if len(component) < 2:
            continue
        cycle = a_cycle(edges, component)
        steps = []
        for a, b in zip(cycle, cycle[1:]):
            steps.append(f"{a}:{edges[a][b]} imports {b}")
        first = cycle[0]
        findings.append(
            (first, edges[first][cycle[1]], "import circle: " + "; ".join(steps))
        )
    return findings


def strongly_connected(edges):
    """Tarjan's strongly connected components of the import graph."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    nodes = sorted(set(edges) | {b for t in edges.values() for b in t})

    def connect(v):
        # Iterative, so that a long chain of imports cannot exhaust Python's stack.
        work = [(v, iter(sorted(edges.get(v, {}))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, children = work[-1]
            advanced = False
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, {})))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    component.append(w)
                    if w == node:
                        break
                out.append(sorted(component))

    for v in nodes:
        if v not in index:
            connect(v)
    return out


def a_cycle(edges, component):
    """A shortest cycle through the component's first file, as a list that ends where it
    starts."""
    members = set(component)
    start = component[0]
    previous = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges.get(v, {})):
            if w == start:
                path = [v]
                while previous[path[-1]] is not None:
                    path.append(previous[path[-1]])
                return list(reversed(path)) + [start]
            if w in members and w not in previous:
                previous[w] = v
                queue.append(w)
    return [start, start]


# ---------------------------------------------------------------------------------------


def check(root, limit=LIMIT):
    """Every finding, as (path, line, message), functions first."""
    cache = {}

    def parsed_of(rel):
        if rel not in cache:
            with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
                cache[rel] = parse(f.read())
        return cache[rel]

    files = source_files(root)
    for rel in files:
        parsed_of(rel)
    # Files declared `#[cfg(test)] mod x;` are test code too.
    crates = os.path.join(root, "crates")
    test_files = set()
    for crate in sorted(os.listdir(crates)) if os.path.isdir(crates) else []:
        for crate_root in crate_roots(os.path.join(crates, crate, "src")):
            test_files |= module_tree(root, crate_root, parsed_of).test_files
    files = [f for f in files if f not in test_files]
    return long_functions(root, files, cache, limit) + import_circles(root, parsed_of)


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(
        description="Fails when a function in crates/*/src passes the line limit or two "
        "files of a crate import each other."
    )
    parser.add_argument("root", nargs="?", default=os.path.dirname(os.path.dirname(here)))
    parser.add_argument("--limit", type=int, default=LIMIT)
    args = parser.parse_args(argv)
    findings = check(args.root, args.limit)
    for path, line, message in findings:
        print(f"{path}:{line}: {message}")
    if findings:
        print(
            f"{len(findings)} finding(s): split long functions along what they do, and move "
            "what two files share to a third",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
