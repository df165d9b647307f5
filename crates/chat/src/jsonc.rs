//! VS Code's settings files are JSON with comments and trailing commas: both are removed (outside
//! strings) before the JSON is parsed.

/// Parses JSON that may contain `//` and `/* */` comments and trailing commas.
pub fn parse(text: &str) -> Result<serde_json::Value, serde_json::Error> {
    serde_json::from_str(&strip(text))
}

fn strip(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let c = bytes[i];
        if in_string {
            let ch = text[i..].chars().next().unwrap_or('\0');
            out.push(ch);
            if c == b'\\' && i + 1 < bytes.len() {
                let next = text[i + 1..].chars().next().unwrap_or('\0');
                out.push(next);
                i += 1 + next.len_utf8();
                continue;
            }
            if c == b'"' {
                in_string = false;
            }
            i += ch.len_utf8();
            continue;
        }
        match c {
            b'"' => {
                in_string = true;
                out.push('"');
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                    i += 1;
                }
                i = (i + 2).min(bytes.len());
            }
            b',' => {
                // A comma followed (after white space and comments) by a closing bracket.
                let rest = strip_leading(&text[i + 1..]);
                if !(rest.starts_with('}') || rest.starts_with(']')) {
                    out.push(',');
                }
                i += 1;
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or('\0');
                out.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    out
}

/// `s` without leading white space and comments.
fn strip_leading(mut s: &str) -> &str {
    loop {
        let t = s.trim_start();
        if let Some(r) = t.strip_prefix("//") {
            s = r.split_once('\n').map_or("", |(_, rest)| rest);
        } else if let Some(r) = t.strip_prefix("/*") {
            s = r.split_once("*/").map_or("", |(_, rest)| rest);
        } else {
            return t;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn comments_and_trailing_commas() {
        let v =
            parse("{\n // a comment\n \"a\": \"x // not a comment\", /* b */ \"b\": [1, 2,],\n}")
                .unwrap();
        assert_eq!(v["a"], "x // not a comment");
        assert_eq!(v["b"], serde_json::json!([1, 2]));
        assert!(
            parse("{\"a\": \"\\\"quoted\\\" /* no */\"}").unwrap()["a"]
                .as_str()
                .unwrap()
                .contains("/* no */")
        );
        assert!(parse("{\"a\": }").is_err());
    }

    proptest! {
        #[test]
        fn never_panics(text in ".{0,120}") {
            let _ = parse(&text);
        }
    }
}
