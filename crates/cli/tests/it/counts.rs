//! The module wrappers a bundle holds, counted from its text by a counter of its own, apart
//! from pilotfish's recognisers, so that the corpus tests can tell how many of them pilotfish
//! recovered. A small lexer skips strings, template literals, comments and regular
//! expressions and knows the bracket depth of each token; on it:
//!
//! - **helper wrappers** (esbuild, Bun, rolldown): the helpers are found by the shape of their
//!   source, `NAME=(a,b)=>()=>...{exports:{}}...` (`__commonJS`) and
//!   `NAME=(a,b)=>()=>...(a=0)...` (`__esm`), also inside esbuild's `__name(...)` (kept
//!   names), defined in the file or imported from another
//!   file of the set (`import{x as y}from"./chunk.js"`, `const {__commonJS} = require(...)`);
//!   then each `= NAME(` at the helper's own depth whose argument is a module function or an
//!   object holding one is a wrapper;
//! - **rollup's lazy wrappers** (`@rollup/plugin-commonjs`): a top-level
//!   `function NAME(){if(FLAG)return X;FLAG=1` (or `if(FLAG=1,`, `return FLAG?X:(FLAG=1,`
//!   or `return FLAG||(FLAG=1,`);
//! - **rollup 2's eager wrappers** (`@rollup/plugin-commonjs` before its lazy ones): the
//!   helper `function NAME(F,...){return M={...exports:{}...},F(M,M.exports),M.exports}`
//!   defined at the top level, then each `NAME(function` outside every bracket but the
//!   statement's own;
//! - **webpack modules**: the entries of the outermost object literals whose entries are all
//!   functions of at most three parameters keyed by numbers or by quoted paths, at least three
//!   of them (webpack's module table) or any number after `exports.modules =` (a split
//!   chunk's) or as the first variable of a function (`(()=>{var t={975:...}`, the runtime's).
//!
//! A bundle inside another's module is kept whole by pilotfish, and not counted here: helper
//! calls inside another helper call or inside a webpack table, tables inside a helper call.

use std::collections::HashMap;

/// Wrappers of each kind.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counts {
    /// esbuild's, Bun's and rolldown's `__commonJS` wrappers.
    pub commonjs: usize,
    /// rollup's lazy `requireX` wrappers (`@rollup/plugin-commonjs`).
    pub rollup: usize,
    /// The `__esm` wrappers.
    pub esm: usize,
    pub webpack: usize,
    /// Parcel 2's `parcelRequire.register("id", function(module, exports) {...})` modules.
    pub parcel: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    Ident,
    Num,
    Str,
    Punct,
}

/// A token: its kind, where it starts and ends in the text, and the bracket depth before it.
#[derive(Debug, Clone, Copy)]
struct Token {
    kind: Tok,
    start: usize,
    end: usize,
    depth: usize,
}

/// Words after which a `/` starts a regular expression.
const BEFORE_REGEX: [&str; 14] = [
    "return",
    "typeof",
    "case",
    "do",
    "else",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "instanceof",
    "yield",
    "await",
];

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// The tokens of `text`, strings and template literals as one token each (with the code of
/// their `${}` parts as tokens of their own), comments and regular expressions left out.
fn tokens(text: &str) -> Vec<Token> {
    let s = text.as_bytes();
    let mut out: Vec<Token> = Vec::with_capacity(s.len() / 4);
    // Open brackets; `b'`'` marks a template literal's `${`.
    let mut stack: Vec<u8> = Vec::new();
    // A `#!` line first is for the shell.
    let mut i = if text.starts_with("#!") {
        text.find('\n').unwrap_or(s.len())
    } else {
        0
    };
    while i < s.len() {
        let c = s[i];
        let depth = stack.len();
        let push = |out: &mut Vec<Token>, kind, start, end| {
            out.push(Token {
                kind,
                start,
                end,
                depth,
            })
        };
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'/' if s.get(i + 1) == Some(&b'/') => {
                while i < s.len() && s[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if s.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..]
                    .find("*/")
                    .map_or(s.len(), |at| i + 2 + at + 2);
            }
            b'/' if regex_may_start(text, out.last()) => i = skip_regex(s, i),
            b'\'' | b'"' => {
                let start = i;
                i += 1;
                while i < s.len() && s[i] != c {
                    i += if s[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                push(&mut out, Tok::Str, start, i.min(s.len()));
            }
            b'`' => {
                let start = i;
                i = skip_template(s, i + 1, &mut stack);
                push(&mut out, Tok::Str, start, i.min(s.len()));
            }
            b'}' if stack.last() == Some(&b'`') => {
                stack.pop();
                let start = i;
                i = skip_template(s, i + 1, &mut stack);
                out.push(Token {
                    kind: Tok::Str,
                    start,
                    end: i.min(s.len()),
                    depth: stack.len(),
                });
            }
            b'{' | b'(' | b'[' => {
                push(&mut out, Tok::Punct, i, i + 1);
                stack.push(c);
                i += 1;
            }
            b'}' | b')' | b']' => {
                stack.pop();
                out.push(Token {
                    kind: Tok::Punct,
                    start: i,
                    end: i + 1,
                    depth: stack.len(),
                });
                i += 1;
            }
            b'0'..=b'9' => {
                let start = i;
                while i < s.len() && (is_ident(s[i]) || s[i] == b'.') {
                    i += 1;
                }
                push(&mut out, Tok::Num, start, i);
            }
            _ if is_ident(c) => {
                let start = i;
                while i < s.len() && is_ident(s[i]) {
                    i += 1;
                }
                push(&mut out, Tok::Ident, start, i);
            }
            _ => {
                push(&mut out, Tok::Punct, i, i + 1);
                i += 1;
            }
        }
    }
    out
}

/// Whether a `/` after `last` starts a regular expression rather than dividing.
fn regex_may_start(text: &str, last: Option<&Token>) -> bool {
    let Some(last) = last else { return true };
    let word = &text[last.start..last.end];
    match last.kind {
        Tok::Num | Tok::Str => false,
        Tok::Ident => BEFORE_REGEX.contains(&word),
        Tok::Punct => !matches!(word, ")" | "]" | "}"),
    }
}

fn skip_regex(s: &[u8], mut i: usize) -> usize {
    i += 1;
    let mut class = false;
    while i < s.len() && s[i] != b'\n' {
        match s[i] {
            b'\\' => i += 1,
            b'[' => class = true,
            b']' => class = false,
            b'/' if !class => break,
            _ => {}
        }
        i += 1;
    }
    // Not a regular expression after all (a line ended first): on from the line's end.
    if i >= s.len() || s[i] == b'\n' {
        return i;
    }
    i += 1;
    while i < s.len() && s[i].is_ascii_alphabetic() {
        i += 1;
    }
    i
}

/// Skips a template literal's text from `i` to its closing backquote (returns the position
/// after it) or to a `${` (returns the position after it, with a mark on the stack).
fn skip_template(s: &[u8], mut i: usize, stack: &mut Vec<u8>) -> usize {
    while i < s.len() {
        match s[i] {
            b'\\' => i += 2,
            b'`' => return i + 1,
            b'$' if s.get(i + 1) == Some(&b'{') => {
                stack.push(b'`');
                return i + 2;
            }
            _ => i += 1,
        }
    }
    i
}

/// The text of `t`.
fn word<'a>(text: &'a str, t: &Token) -> &'a str {
    &text[t.start..t.end]
}

/// Up to `n` characters of `text` from `at`, without white space.
fn compact(text: &str, at: usize, n: usize) -> String {
    text[at..]
        .chars()
        .filter(|c| !c.is_whitespace())
        .take(n)
        .collect()
}

/// The words of up to `n` tokens from `toks[0]`, joined: the code without its white space
/// and comments.
fn joined(text: &str, toks: &[Token], n: usize) -> String {
    toks.iter().take(n).map(|t| word(text, t)).collect()
}

/// The helpers a file defines: name, kind (`true` for `__esm`) and depth.
fn helpers_defined(text: &str, toks: &[Token]) -> Vec<(String, bool, usize)> {
    let mut found = Vec::new();
    for (i, w) in toks.windows(4).enumerate() {
        let [name, eq, next, after] = w else { continue };
        // Kept names wrap the helper: `NAME = __name((a, b) => ..., "NAME")`.
        let open = if next.kind == Tok::Ident && word(text, after) == "(" {
            toks.get(i + 4).unwrap_or(after)
        } else {
            next
        };
        if name.kind != Tok::Ident || word(text, eq) != "=" || word(text, open) != "(" {
            continue;
        }
        let shape = compact(text, open.start, 120);
        let Some((params, body)) = shape.strip_prefix('(').and_then(|s| s.split_once(")=>")) else {
            continue;
        };
        let first = params.split(',').next().unwrap_or("");
        if first.is_empty()
            || params.len() > 12
            || !params.bytes().all(|b| is_ident(b) || b == b',')
        {
            continue;
        }
        if !(body.starts_with("()=>") || body.starts_with("function")) {
            continue;
        }
        let helper = word(text, name).to_owned();
        // The ES module helper first: its text may run on into the CommonJS one's.
        if shape.contains(&format!("({first}=0)")) {
            found.push((helper, true, name.depth));
        } else if shape.contains("{exports:{}}") {
            found.push((helper, false, name.depth));
        }
    }
    found
}

/// `local -> exported` for `export{a as b,c}`; `import {b as y} from "./F"` as `(F, b, y)`.
fn exports_of(text: &str, toks: &[Token]) -> HashMap<String, String> {
    let mut map = HashMap::new();
    for (i, t) in toks.iter().enumerate() {
        if t.depth != 0
            || word(text, t) != "export"
            || toks.get(i + 1).is_none_or(|n| word(text, n) != "{")
        {
            continue;
        }
        for (local, exported) in names_in_braces(text, &toks[i + 1..]) {
            map.insert(exported, local);
        }
    }
    // A CommonJS chunk's `exports.m=s`.
    for w in toks.windows(5) {
        if w[0].depth == 0
            && word(text, &w[0]) == "exports"
            && word(text, &w[1]) == "."
            && word(text, &w[3]) == "="
            && w[4].kind == Tok::Ident
        {
            map.insert(word(text, &w[2]).to_owned(), word(text, &w[4]).to_owned());
        }
    }
    map
}

/// A CommonJS chunk's `const e=require("./F")` at its top level: `(F, e)`.
fn required_chunks(text: &str, toks: &[Token]) -> Vec<(String, String)> {
    toks.windows(6)
        .filter(|w| {
            w[0].depth == 0
                && matches!(word(text, &w[0]), "const" | "let" | "var")
                && word(text, &w[2]) == "="
                && word(text, &w[3]) == "require"
                && word(text, &w[4]) == "("
                && w[5].kind == Tok::Str
        })
        .map(|w| {
            let file = word(text, &w[5]).trim_matches(['"', '\'', '`']);
            let file = file.rsplit('/').next().unwrap_or(file).to_owned();
            (file, word(text, &w[1]).to_owned())
        })
        .collect()
}

/// The `a as b` pairs (or `a`, as `a as a`) of a `{...}` list starting at `toks[0]`.
fn names_in_braces(text: &str, toks: &[Token]) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    let mut i = 1;
    while i < toks.len() && word(text, &toks[i]) != "}" {
        let t = &toks[i];
        if t.kind == Tok::Ident || t.kind == Tok::Str {
            let name = word(text, t).trim_matches(['"', '\'']).to_owned();
            if toks.get(i + 1).is_some_and(|n| word(text, n) == "as") {
                let alias = toks.get(i + 2).map_or("", |a| word(text, a)).to_owned();
                pairs.push((name, alias));
                i += 3;
                continue;
            }
            pairs.push((name.clone(), name));
        }
        i += 1;
    }
    pairs
}

/// The names a file imports from other files of the set: `(file name, imported, local)`,
/// from `import{...}from"./F"` and `const {...} = require("./F")`.
fn imports_of(text: &str, toks: &[Token]) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.depth != 0 || word(text, t) != "{" || i == 0 {
            continue;
        }
        let before = word(text, &toks[i - 1]);
        // `import{...}`, `import d,{...}`, `const {...} = require(...)`.
        let default_first = before == "," && i >= 3 && word(text, &toks[i - 3]) == "import";
        if !default_first && !matches!(before, "import" | "const" | "var" | "let") {
            continue;
        }
        let pairs = names_in_braces(text, &toks[i..]);
        let Some(close) = toks[i..].iter().position(|t| word(text, t) == "}") else {
            continue;
        };
        let from = toks[i + close + 1..]
            .iter()
            .take(4)
            .find(|t| t.kind == Tok::Str);
        let Some(from) = from else { continue };
        let file = word(text, from).trim_matches(['"', '\'']);
        let file = file.rsplit('/').next().unwrap_or(file).to_owned();
        for (imported, local) in pairs {
            // `const { a: b } = require(...)` reads as `a as b` only by `:`; plain names suffice.
            out.push((file.clone(), imported, local));
        }
    }
    out
}

/// The calls `= NAME(ARG` of a helper in `helpers` (at its depth) the file makes with a
/// module function or an object holding one as `ARG`: where each starts and ends in the
/// text, and whether it is `__esm`'s.
fn helper_calls(
    text: &str,
    toks: &[Token],
    helpers: &[(String, bool, usize)],
) -> Vec<(usize, usize, bool)> {
    let mut calls = Vec::new();
    for i in 0..toks.len().saturating_sub(3) {
        let name = &toks[i + 1];
        if name.kind != Tok::Ident {
            continue;
        }
        // `= NAME(`, or inside an interop call, `= m(NAME(` or `= m((NAME(`.
        let mut j = i;
        while j > 0 && word(text, &toks[j]) == "(" {
            j -= 1;
        }
        if j < i && toks[j].kind == Tok::Ident && j > 0 {
            j -= 1;
            while j > 0 && word(text, &toks[j]) == "(" {
                j -= 1;
            }
        }
        let eq = &toks[j];
        if eq.kind != Tok::Punct || word(text, eq) != "=" {
            continue;
        }
        // `= NAME(` or, through a CommonJS chunk's namespace, `= e.m(`.
        let (called, next) = match toks.get(i + 4) {
            Some(_) if word(text, &toks[i + 2]) == "." && toks[i + 3].kind == Tok::Ident => (
                format!("{}.{}", word(text, name), word(text, &toks[i + 3])),
                i + 4,
            ),
            _ => (word(text, name).to_owned(), i + 2),
        };
        // sucrase's rewrite of an imported helper's call (tsup): `= e.m.call(void 0, ...`.
        let through_call =
            toks.len() > next + 6 && joined(text, &toks[next..next + 6], 6) == ".call(void0,";
        let next = if through_call { next + 2 } else { next };
        let arg_at = if through_call { next + 4 } else { next + 1 };
        let (Some(open), Some(arg)) = (toks.get(next), toks.get(arg_at)) else {
            continue;
        };
        if word(text, open) != "(" {
            continue;
        }
        let depth = eq.depth;
        let Some(&(_, is_esm, _)) = helpers.iter().find(|h| h.0 == called && h.2 == depth) else {
            continue;
        };
        let a = word(text, arg);
        let near = compact(text, arg.start, 60);
        let arrow_of_one = near
            .split_once("=>")
            .is_some_and(|(p, _)| !p.is_empty() && p.bytes().all(is_ident));
        if a == "(" || a == "{" || a == "function" || a == "async" || arrow_of_one {
            let close = toks[arg_at..]
                .iter()
                .find(|t| t.depth == open.depth && word(text, t) == ")")
                .map_or(text.len(), |t| t.end);
            calls.push((open.start, close, is_esm));
        }
    }
    calls
}

/// rollup's lazy wrappers at the file's top level: where each starts and ends.
fn lazy_wrappers(text: &str, toks: &[Token]) -> Vec<(usize, usize)> {
    let end = |at: usize| {
        toks[at..]
            .iter()
            .skip_while(|t| word(text, t) != "{")
            .skip(1)
            .find(|t| t.depth == 0 && word(text, t) == "}")
            .map_or(text.len(), |t| t.end)
    };
    toks.windows(2)
        .enumerate()
        .filter(|(_, w)| {
            w[0].depth == 0 && word(text, &w[0]) == "function" && w[1].kind == Tok::Ident
        })
        .filter(|(i, _)| {
            let shape = joined(text, &toks[i + 2..], 24);
            let Some(body) = shape.strip_prefix("(){") else {
                return false;
            };
            if let Some(rest) = body.strip_prefix("if(") {
                let flag = rest.split(')').next().unwrap_or("");
                let after = &rest[flag.len()..];
                return !flag.is_empty()
                    && after.starts_with(")return")
                    && after.split_once(';').is_some_and(|(_, r)| {
                        r.starts_with(&format!("{flag}=1"))
                            || r.starts_with(&format!("if({flag}=1,"))
                    });
            }
            body.strip_prefix("return").is_some_and(|rest| {
                let flag = rest.split('?').next().unwrap_or("");
                let either = rest.split("||").next().unwrap_or("");
                (!flag.is_empty() && rest.contains(&format!(":({flag}=1,")))
                    || (!either.is_empty() && rest.starts_with(&format!("{either}||({either}=1,")))
            })
        })
        .map(|(i, w)| (w[0].start, end(i)))
        .collect()
}

/// rollup 2's eager wrappers (`createCommonjsModule(function (module, exports) {...})`): where
/// each call starts and ends. The helper is found by its text; a call is one at the top level
/// (depth 0, or 1 inside the call's own parentheses is the function).
fn eager_wrappers(text: &str, toks: &[Token]) -> Vec<(usize, usize)> {
    let helpers: Vec<&str> = toks
        .windows(4)
        .enumerate()
        .filter(|(_, w)| {
            w[0].depth == 0 && word(text, &w[0]) == "function" && word(text, &w[2]) == "("
        })
        .filter_map(|(i, w)| {
            let f = word(text, &w[3]);
            let shape = joined(text, &toks[i + 2..], 120);
            let m = [format!(",{f}("), format!("return{f}(")]
                .iter()
                .find_map(|p| shape.split_once(p.as_str()))?
                .1
                .split(',')
                .next()?;
            let call = format!("{f}({m},{m}.exports),{m}.exports");
            let object = [format!("return{m}={{"), format!("var{m}={{")];
            (!m.is_empty()
                && shape.contains("exports:{}")
                && shape.contains(&call)
                && object.iter().any(|o| shape.contains(o.as_str())))
            .then(|| word(text, &w[1]))
        })
        .collect();
    toks.windows(3)
        .filter(|w| {
            w[0].depth == 0
                && helpers.contains(&word(text, &w[0]))
                && word(text, &w[1]) == "("
                && word(text, &w[2]) == "function"
        })
        .map(|w| {
            let end = toks
                .iter()
                .skip_while(|t| t.start <= w[1].start)
                .find(|t| t.depth == 0 && word(text, t) == ")")
                .map_or(text.len(), |t| t.end);
            (w[0].start, end)
        })
        .collect()
}

/// Parcel 2's registered modules, `R.register("ID",function(a,b){` or `(function(a,b){`, not
/// inside another one: where each call's arguments start and end.
fn parcel_registers(text: &str, toks: &[Token]) -> Vec<(usize, usize)> {
    let mut found: Vec<(usize, usize)> = Vec::new();
    for (i, w) in toks.windows(5).enumerate() {
        let shape = joined(text, &toks[i + 5..], 4);
        let function = shape.starts_with("function(") || shape.starts_with("(function(");
        if word(text, &w[0]) != "."
            || word(text, &w[1]) != "register"
            || word(text, &w[2]) != "("
            || w[3].kind != Tok::Str
            || word(text, &w[4]) != ","
            || !function
        {
            continue;
        }
        let open = &w[2];
        let close = toks[i + 3..]
            .iter()
            .find(|t| t.depth == open.depth && word(text, t) == ")")
            .map_or(text.len(), |t| t.end);
        if !found.iter().any(|f| f.0 < open.start && close <= f.1) {
            found.push((open.start, close));
        }
    }
    found
}

/// The outermost webpack module tables (see the module's comment): where each starts and
/// ends, and its modules.
fn webpack_tables(text: &str, toks: &[Token]) -> Vec<(usize, usize, usize)> {
    // Open objects and arrays: (index of `{` or `[`, modules, others, entry expected, where
    // rspack puts a table at a file's top level, see `rspack_top`).
    let mut open: Vec<(usize, usize, usize, bool, Option<Top>)> = Vec::new();
    let mut tables: Vec<(usize, usize, usize)> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let w = word(text, t);
        if let Some(top) = open.last_mut().filter(|o| t.depth == toks[o.0].depth + 1) {
            if top.3 && !matches!(w, "}" | "]" | ",") {
                top.3 = false;
                let array = word(text, &toks[top.0]) == "[";
                if (array && array_entry(text, &toks[i..]))
                    || (!array && module_entry(text, &toks[i..], top.4 == Some(Top::Added)))
                {
                    top.1 += 1;
                } else {
                    top.2 += 1;
                }
            }
            if w == "," {
                top.3 = true;
            }
        }
        match w {
            "{" | "[" if t.kind == Tok::Punct => open.push((
                i,
                0,
                0,
                true,
                (w == "{").then(|| rspack_top(text, toks, i)).flatten(),
            )),
            "]" if t.kind == Tok::Punct => {
                // webpack 4's table is an array handed to its runtime: `}([` or `)([`.
                let Some((start, modules, others, ..)) = open.pop() else {
                    continue;
                };
                let argument = start >= 2
                    && word(text, &toks[start - 1]) == "("
                    && matches!(word(text, &toks[start - 2]), "}" | ")");
                // ... or, in webpack 5's runtime unminified, `var __webpack_modules__ = ([`, or
                // minified, first in its runtime: `(()=>{var t=([`.
                let runtime = (start >= 4
                    && joined(text, &toks[start - 2..start], 2) == "=("
                    && word(text, &toks[start - 4]) == "var")
                    || (start >= 2 && {
                        let from = start.saturating_sub(13);
                        let before = joined(text, &toks[from..start], start - from);
                        let head = before.rsplit_once("var").map_or("", |(h, _)| h);
                        before.ends_with("=(") && head.ends_with("()=>{")
                    });
                if (argument || runtime) && modules >= 3 && others == 0 {
                    tables.push((toks[start].start, t.end, modules));
                }
            }
            "}" if t.kind == Tok::Punct => {
                if let Some((start, modules, others, _, top)) = open.pop() {
                    // A split chunk's table may hold one module: `exports.modules = {`.
                    let chunk =
                        start >= 3 && joined(text, &toks[start - 3..start], 3) == ".modules=";
                    // ... and a runtime's, first in its function: `(()=>{var t={`.
                    let runtime = start >= 12 && {
                        let before = joined(text, &toks[start - 12..start], 12);
                        let head = before.rsplit_once("var").map_or("", |(h, _)| h);
                        before.ends_with('=')
                            && (head.ends_with("()=>{")
                                || head.ends_with("function(){")
                                || head.ends_with("\"use strict\";"))
                    };
                    // ... and rspack's, at a file's top level (see `rspack_top`).
                    let top = top.is_some();
                    if (modules >= 3 || ((chunk || runtime || top) && modules > 0)) && others == 0 {
                        tables.push((toks[start].start, t.end, modules));
                    }
                }
            }
            _ => {}
        }
    }
    // The outermost tables only: one inside another's module is a nested bundle.
    tables.sort();
    let mut end = 0;
    let mut outermost = Vec::new();
    for (start, stop, modules) in tables {
        if start >= end {
            outermost.push((start, stop, modules));
            end = stop;
        }
    }
    outermost
}

/// Where rspack puts a table at a file's top level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Top {
    /// `var __webpack_modules__ = {` (rslib's CommonJS output).
    Bound,
    /// Handed to its runtime's `add` (`__webpack_require__.add({`, `moduleFactories.add({`),
    /// where an external module is a method named by the module's name.
    Added,
}

/// Whether the object opened at `toks[start]` is where rspack puts a table at a file's top
/// level, and which of those places.
fn rspack_top(text: &str, toks: &[Token], start: usize) -> Option<Top> {
    if start < 3 {
        return None;
    }
    if toks[start].depth == 0
        && word(text, &toks[start - 3]) == "var"
        && word(text, &toks[start - 1]) == "="
    {
        return Some(Top::Bound);
    }
    (toks[start - 1].depth == 0 && joined(text, &toks[start - 3..start], 3) == ".add(")
        .then_some(Top::Added)
}

/// Whether the array entry starting at `toks[0]` is `function(a,b,c){` or `(a,b,c)=>{`, also in
/// parentheses as webpack writes them unminified: a hole (`,`) is neither a module nor
/// anything else.
fn array_entry(text: &str, toks: &[Token]) -> bool {
    let shape = joined(text, toks, 12);
    let shape = shape.strip_prefix('(').unwrap_or(&shape);
    let params = |rest: &str, close: &str| {
        rest.split_once(close).is_some_and(|(p, _)| {
            p.split(',').filter(|x| !x.is_empty()).count() <= 3
                && p.bytes().all(|b| is_ident(b) || b == b',')
        })
    };
    shape
        .strip_prefix("function(")
        .is_some_and(|rest| params(rest, "){"))
        || shape
            .strip_prefix('(')
            .is_some_and(|rest| params(rest, ")=>{"))
}

/// Whether the object entry starting at `toks[0]` is `KEY: function(a,b,c){`, `KEY:(a,b)=>{`
/// or `KEY(a,b,c){`, its key a number or a quoted path; in a table handed to rspack's `add`
/// at a file's top level (`rspack`), also a method named by an external module's name (`"supports-color"(module)
/// {` or `process(module) {`).
fn module_entry(text: &str, toks: &[Token], rspack: bool) -> bool {
    let key = &toks[0];
    let method = rspack && toks.get(1).is_some_and(|t| word(text, t) == "(");
    let keyed = key.kind == Tok::Num
        || (key.kind == Tok::Str && word(text, key).contains('/'))
        || (method && matches!(key.kind, Tok::Str | Tok::Ident));
    if !keyed {
        return false;
    }
    let shape = joined(text, &toks[1..], 16);
    let params = |s: &str| -> bool {
        s.split_once(')').is_some_and(|(p, rest)| {
            p.split(',').filter(|x| !x.is_empty()).count() <= 3
                && p.bytes().all(|b| is_ident(b) || b == b',')
                && (rest.starts_with('{') || rest.starts_with("=>{"))
        })
    };
    if let Some(rest) = shape
        .strip_prefix(":function(")
        .or_else(|| shape.strip_prefix(":(function("))
    {
        return params(rest);
    }
    if let Some(rest) = shape
        .strip_prefix(":((")
        .or_else(|| shape.strip_prefix(":("))
    {
        return params(rest);
    }
    // A module's function has a body: `{1: (a, b) => [a, b]}` is a table of something else.
    if let Some((param, body)) = shape.strip_prefix(':').and_then(|s| s.split_once("=>")) {
        return !param.is_empty() && param.bytes().all(is_ident) && body.starts_with('{');
    }
    shape.strip_prefix('(').is_some_and(params)
}

/// The wrappers of a bundle of one or several files (`(file name, text)`, the runtime first).
pub(crate) fn count(files: &[(String, String)]) -> Counts {
    let lexed: Vec<Vec<Token>> = files.iter().map(|(_, t)| tokens(t)).collect();
    let mut defined: HashMap<&str, Vec<(String, bool, usize)>> = HashMap::new();
    let mut exported: HashMap<&str, HashMap<String, String>> = HashMap::new();
    for ((name, text), toks) in files.iter().zip(&lexed) {
        defined.insert(name, helpers_defined(text, toks));
        exported.insert(name, exports_of(text, toks));
    }
    let mut counts = Counts::default();
    for ((name, text), toks) in files.iter().zip(&lexed) {
        let mut helpers = defined[name.as_str()].clone();
        for (file, imported, local) in imports_of(text, toks) {
            let Some(theirs) = defined.get(file.as_str()) else {
                continue;
            };
            let original = exported[file.as_str()]
                .get(&imported)
                .cloned()
                .unwrap_or(imported);
            if let Some(&(_, esm, _)) = theirs.iter().find(|h| h.0 == original) {
                helpers.push((local, esm, 0));
            }
        }
        for (file, namespace) in required_chunks(text, toks) {
            let Some(theirs) = defined.get(file.as_str()) else {
                continue;
            };
            for (exported, local) in &exported[file.as_str()] {
                if let Some(&(_, esm, _)) = theirs.iter().find(|h| &h.0 == local) {
                    helpers.push((format!("{namespace}.{exported}"), esm, 0));
                }
            }
        }
        // A bundle inside another's module is kept whole: wrappers inside a webpack table,
        // and tables inside another bundler's wrapper, are not counted.
        let tables = webpack_tables(text, toks);
        let inside_table = |at: usize| tables.iter().any(|t| (t.0..t.1).contains(&at));
        let all_calls = helper_calls(text, toks, &helpers);
        let lazy: Vec<(usize, usize)> = lazy_wrappers(text, toks)
            .into_iter()
            .chain(eager_wrappers(text, toks))
            .filter(|l| !inside_table(l.0))
            .collect();
        // A helper call inside another's module (or a lazy wrapper's) belongs to a bundle
        // nested there.
        let nested = |c: &(usize, usize, bool)| {
            all_calls.iter().any(|o| o.0 < c.0 && c.1 <= o.1)
                || lazy.iter().any(|l| l.0 < c.0 && c.1 <= l.1)
        };
        let calls: Vec<_> = all_calls
            .iter()
            .copied()
            .filter(|c| !inside_table(c.0) && !nested(c))
            .collect();
        let esm = calls.iter().filter(|c| c.2).count();
        counts.commonjs += calls.len() - esm;
        counts.rollup += lazy.len();
        // Parcel's registers inside another bundler's module belong to a bundle nested there.
        counts.parcel += parcel_registers(text, toks)
            .into_iter()
            .filter(|&(start, end)| !inside_table(start) && !nested(&(start, end, false)))
            .count();
        counts.esm += esm;
        counts.webpack += tables
            .iter()
            .filter(|t| !calls.iter().any(|c| (c.0..c.1).contains(&t.0)))
            .filter(|t| !lazy.iter().any(|l| (l.0..l.1).contains(&t.0)))
            .map(|t| t.2)
            .sum::<usize>();
    }
    counts
}

#[test]
fn the_counter_knows_each_shape_by_its_text() {
    let esbuild = "var __commonJS = (cb, mod) => function __require() { return mod || (0, cb[Object.keys(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports; };\n\
        var __esm = (fn, res) => function __init() { return fn && (res = (0, fn[Object.keys(fn)[0]])(fn = 0)), res; };\n\
        var require_a = __commonJS({ \"a.js\"(exports) { var s = '= __commonJS({'; exports.x = /=__esm(/.test(s); } });\n\
        var init_b = __esm({ \"b.js\"() { } });\n\
        function f(__commonJS) { var y = __commonJS({}); }";
    assert_eq!(
        count(&[("x.js".into(), esbuild.into())]),
        Counts {
            commonjs: 1,
            esm: 1,
            ..Counts::default()
        }
    );
    let rolldown = [
        ("rt.js".to_owned(), "var e=(e,t)=>()=>(t||e((t={exports:{}}).exports,t),t.exports);export{e as t};".to_owned()),
        ("main.js".to_owned(), "#!/usr/bin/env node\nimport d,{t as n}from\"./rt.js\";var a=n(((e,t)=>{t.exports=1})),b=n((e=>{}));".to_owned()),
    ];
    assert_eq!(count(&rolldown).commonjs, 2);
    let required = [
        rolldown[0].clone(),
        (
            "cli.cjs".to_owned(),
            "const e=require(\"./rt.js\");var a=e.t(((e,t)=>{}));".to_owned(),
        ),
    ];
    let required = [
        (
            required[0].0.clone(),
            required[0].1.replace("export{e as t};", "exports.t=e;"),
        ),
        required[1].clone(),
    ];
    assert_eq!(count(&required).commonjs, 1);
    let rollup = "var a;var hasA;function requireA () {\n\tif (hasA) return a;\n\thasA = 1;\n\ta = 1;\n\treturn a;\n}\nfunction r(){return n?t:(n=1,t=2)}\nfunction o(){return n||(n=1,t.a=2),t}\nfunction i(){if(n)return t;if(n=1,!g.D)t=1;return t}\nfunction g(){if(x)return;y=1}";
    assert_eq!(count(&[("r.js".into(), rollup.into())]).rollup, 4);
    let eager = "function c(fn,basedir,module){return module={path:basedir,exports:{}},fn(module,module.exports),module.exports}\nvar a=c(function(module,exports){exports.a=1});\nvar b=c(function(module){module.exports=function(){return c(function(){})}});\nf(c(function(){}));\nfunction d(fn){var m={exports:{}};return fn(m,m.exports),m.exports}\nvar e=d(function(module,exports){});";
    assert_eq!(count(&[("e.js".into(), eager.into())]).rollup, 3);
    let tsup = [
        ("c.js".to_owned(), "var __commonJS = (cb, mod) => function __require() { return mod || (0, cb[__getOwnPropNames(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports; };\nexports.__commonJS = __commonJS;".to_owned()),
        ("m.js".to_owned(), "var _c = require('./c.js');\nvar require_a = _c.__commonJS.call(void 0, { \"a.cjs\"(exports) { exports.a = 1; } });".to_owned()),
    ];
    assert_eq!(count(&tsup).commonjs, 1);
    let webpack = "(()=>{var e={12:(e,t,r)=>{t.a=`${{1:function(){}}}`},34(e){e.exports=require(\"fs\")},\"./src/x.js\":function(e,t,n){var k={1:function(a){},2:function(b){},3:function(c){}}}};})();";
    assert_eq!(count(&[("w.js".into(), webpack.into())]).webpack, 3);
    let webpack4 = "!function(e){var t={};function n(r){}}([function(e,t,n){e.exports=1},,function(e,t){},function(e){[function(a){},function(b){},function(c){}].map(String)}]);";
    assert_eq!(count(&[("w4.js".into(), webpack4.into())]).webpack, 3);
    let webpack4_plain = "(function(modules){})\n/******/ ([\n/* 0 */\n/***/ (function(module, exports, __webpack_require__) {}),\n/* 1 */\n/***/ (function(module) {}),\n/***/ (function() {})\n/******/ ]);";
    assert_eq!(
        count(&[("w4p.js".into(), webpack4_plain.into())]).webpack,
        3
    );
    // webpack 5's array, first in its runtime, each module in parentheses.
    let webpack5 = "(()=>{var __webpack_modules__=([(function(e,t){}),((e)=>{}),,(function(e,t,n){[function(a){},function(b){},function(c){}].map(String)})]);var c={};})();";
    assert_eq!(count(&[("w5.js".into(), webpack5.into())]).webpack, 3);
    let parcel = "var g=v.parcelRequire5de3;null==g&&((g=function(e){}).register=function(e,a){b[e]=a}),g.register(\"3ITin\",(function(e,a){a.x=1;g.register(\"in\",function(m){})})),g.register(\"jpRJy\",function(e,a){});";
    assert_eq!(count(&[("p.js".into(), parcel.into())]).parcel, 2);
    let parcel_in_esbuild = format!(
        "var __commonJS=(cb,mod)=>function(){{return mod||(0,cb[Object.keys(cb)[0]])((mod={{exports:{{}}}}).exports,mod),mod.exports}};var require_p=__commonJS({{\"p.js\"(exports,module){{{parcel}}}}});"
    );
    let counted = count(&[("pe.js".into(), parcel_in_esbuild)]);
    assert_eq!((counted.commonjs, counted.parcel), (1, 0));
    // rspack's tables of methods keyed by path, at a file's top level: bound to a variable
    // (CommonJS), or handed to the runtime's `add` (ES modules); not inside a function.
    let rspack = [
        ("i.cjs".to_owned(), "const u = 1;\nvar __webpack_modules__ = {\n\"../a/b.js\" (module) {\nmodule.exports = 1;\n}\n};".to_owned()),
        ("i.js".to_owned(), "import x from \"y\";\nvar m = {};\nr.add({\n\"./c.js\" (module, exports, r) {\n},\n\"./d.js\"(module) {},\n\"supports-color\"(module) {},\nprocess(module) {}\n});\nfunction f() { s.add({\"./e.js\"(m) {}}); var t = {\"./g.js\"(m) {}}; }\nexport {};".to_owned()),
    ];
    assert_eq!(count(&rspack).webpack, 5);
    let not_webpack =
        "var x = match(args, {3: (a, b, c) => [a, b, c], 2: (a, b) => [a, b, b], 1: a => [a]});";
    assert_eq!(count(&[("m.js".into(), not_webpack.into())]).webpack, 0);
}

/// What the counter finds in the files of `COUNT_FILES` (comma-separated paths, the runtime
/// first), for looking into a bundle: `COUNT_FILES=a.js,b.js cargo test -p cli --test it
/// counts::print -- --ignored --nocapture`.
#[test]
#[ignore]
fn print() {
    let files: Vec<(String, String)> = std::env::var("COUNT_FILES")
        .expect("COUNT_FILES: the files to count")
        .split(',')
        .map(|f| {
            (
                f.rsplit('/').next().unwrap().to_owned(),
                std::fs::read_to_string(f).unwrap(),
            )
        })
        .collect();
    for (name, text) in &files {
        let toks = tokens(text);
        eprintln!("{name}: helpers {:?}", helpers_defined(text, &toks));
        eprintln!(
            "{name}: {} lazy wrappers, webpack tables {:?}",
            lazy_wrappers(text, &toks).len(),
            webpack_tables(text, &toks)
        );
    }
    eprintln!("{:?}", count(&files));
}
