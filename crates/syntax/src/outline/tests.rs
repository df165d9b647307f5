//! Outlines of small files in every language, and the fallback.

use super::*;

fn sigs(lang: Lang, src: &str) -> Vec<(String, DefKind, Option<String>, String)> {
    outline(lang, src)
        .into_iter()
        .map(|d| (d.name, d.kind, d.owner, d.signature))
        .collect()
}

#[test]
fn python_keeps_lines_whole() {
    let src = "class Cart(Base):\n    RATE = 2\n\n    def add(self, item,\n            qty=1):  # type: ignore\n        self.items.append(item)\n\n    def _hidden(self):\n        def inner(x):\n            return x\n        return inner\n\ndef total(xs) -> int:\n    return sum(xs)\n";
    let d = outline(Lang::Python, src);
    let names: Vec<_> = d.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["Cart", "RATE", "add", "_hidden", "inner", "total"]);
    assert_eq!(d[0].signature, "class Cart(Base):");
    assert_eq!(d[1].kind, DefKind::Field);
    assert_eq!(
        d[2].signature,
        "    def add(self, item, qty=1):  # type: ignore"
    );
    assert_eq!(d[2].kind, DefKind::Method);
    assert_eq!(d[2].owner.as_deref(), Some("Cart"));
    assert!(d[3].private && !d[3].local);
    assert!(d[4].local);
    assert_eq!(d[5].signature, "def total(xs) -> int:");
    assert_eq!(d[5].container, None);
}

#[test]
fn rust_methods_belong_to_their_impl() {
    let src = "pub struct BStr {\n    bytes: [u8],\n}\n\nimpl<T> Wrap<T> {\n    pub fn new(x: T) -> Self {\n        Wrap(x)\n    }\n    fn get(&self) -> &T { &self.0 }\n}\n\nmacro_rules! some {\n    () => {};\n}\n\n#[cfg(test)]\nmod tests {\n    fn helper() {}\n}\n";
    let d = sigs(Lang::Rust, src);
    assert_eq!(d[0].3, "pub struct BStr {\n    bytes: [u8],\n}");
    assert_eq!(d[1].0, "Wrap");
    assert_eq!(d[1].3, "impl Wrap<T> {...}");
    assert_eq!(d[2].3, "    pub fn new(x: T) -> Self {...}");
    assert_eq!(d[2].1, DefKind::Method);
    assert_eq!(d[3].3, "    fn get(&self) -> &T { &self.0 }");
    assert_eq!(d[4].3, "macro_rules! some {...}");
    let all = outline(Lang::Rust, src);
    assert!(all.iter().find(|d| d.name == "helper").unwrap().test);
}

#[test]
fn typescript_exports_keep_their_keyword() {
    let src = "export function add<T>(\n  a: T,\n  b: T,\n): T {\n  return a;\n}\nexport const noop = () => {}\nexport const make = (x: number) => {\n  return x;\n}\nexport type Id = string | number\nexport class Store {\n  private items: string[] = [];\n  get(id: Id): string {\n    return '';\n  }\n}\n";
    let d = sigs(Lang::TypeScript, src);
    assert_eq!(d[0].3, "export function add<T>(a: T, b: T): T {...}");
    assert_eq!(d[1].3, "export const noop = () => {}");
    assert_eq!(d[2].3, "export const make = (x: number) => {...}");
    assert_eq!(d[3].3, "export type Id = string | number");
    assert_eq!(d[4].3, "export class Store {...}");
    assert_eq!(d[5].0, "items");
    assert_eq!(d[5].1, DefKind::Field);
    assert_eq!(d[6].3, "  get(id: Id): string {...}");
    assert_eq!(d[6].2.as_deref(), Some("Store"));
}

#[test]
fn go_and_java() {
    let d = sigs(
        Lang::Go,
        "package cart\n\ntype Cart struct {\n\tItems []int\n}\n\nfunc (c *Cart) Add(x int) {\n\tc.Items = append(c.Items, x)\n}\n\nfunc total() int { return 0 }\n",
    );
    assert_eq!(d[0].0, "Cart");
    assert_eq!(d[1].3, "func (c *Cart) Add(x int) {...}");
    assert_eq!(d[1].2.as_deref(), Some("Cart"));
    let d = sigs(
        Lang::Java,
        "public class Cart {\n  private int n;\n  public void add(int x) {\n    n += x;\n  }\n}\n",
    );
    assert_eq!(d[0].3, "public class Cart {...}");
    assert_eq!(d[2].3, "  public void add(int x) {...}");
}

#[test]
fn fallback_by_lines() {
    let d =
        outline_by_lines("local function helper(x)\n  return x\nend\nfunction M.run(a, b)\nend\n");
    assert_eq!(d.len(), 2);
    assert_eq!(d[0].name, "helper");
    assert_eq!(d[1].signature, "function M.run(a, b)");
}

#[test]
fn crlf_lines_end_before_the_return() {
    let d = outline(
        Lang::Rust,
        "pub const A: u8 = 1;\r\npub fn f() {\r\n    g();\r\n}\r\n",
    );
    assert_eq!(d[0].signature, "pub const A: u8 = 1;");
    assert_eq!(d[1].signature, "pub fn f() {...}");
}

#[test]
fn signatures_over_several_lines_are_one_line() {
    let src = "pub fn send<R, W>(\n    request: R, // what to send\n    writer: &mut W,\n) -> Result<(), Error>\nwhere\n    R: Into<Body>,\n    W: Write,\n{\n    todo!()\n}\n\nimpl<T: Clone> Pool<T>\nwhere\n    T: Send,\n{\n    pub fn get(&self) -> T {\n        todo!()\n    }\n}\n";
    let d = sigs(Lang::Rust, src);
    assert_eq!(
        d[0].3,
        "pub fn send<R, W>(request: R, writer: &mut W) -> Result<(), Error> {...}"
    );
    assert_eq!(d[1].3, "impl Pool<T> {...}");
    assert_eq!(d[2].3, "    pub fn get(&self) -> T {...}");
    // A comment at the end of a line that is not the last is left out, not joined in front
    // of the rest; `#` inside a string is not a comment.
    let d = sigs(
        Lang::Python,
        "def run(cmd,  # the command\n        sep='#',\n        *, check=True) -> int:\n    pass\n",
    );
    assert_eq!(d[0].3, "def run(cmd, sep='#', *, check=True) -> int:");
}

#[test]
fn a_where_clause_on_the_first_line_stays() {
    let d = sigs(
        Lang::Rust,
        "pub fn max<T>(a: T, b: T) -> T where T: Ord {\n    a\n}\n",
    );
    assert_eq!(d[0].3, "pub fn max<T>(a: T, b: T) -> T where T: Ord {...}");
}
