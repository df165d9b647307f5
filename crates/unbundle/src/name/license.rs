//! Package names from the license comments minifiers keep inside modules (`/*! ... */` and
//! `@license` comments): `/** @license Lodash <https://lodash.com/> */` names its module
//! `lodash`. Only a comment whose first line reads like a package's banner counts: a name
//! followed by a version (`React v17.0.2`), a link (`Lodash <https://...>`), or, after a
//! full stop, a license (`safe-buffer. MIT License.`); a sentence (`The buffer module from
//! node.js`) does not.

use oxc_ast::Comment;
use oxc_span::Span;

/// The package the first license comment inside `span` names, if one does. `comments`: the
/// file's comments, sorted by position.
pub(crate) fn package_in(text: &str, comments: &[Comment], span: Span) -> Option<String> {
    let from = comments.partition_point(|c| c.span.start < span.start);
    comments[from..]
        .iter()
        .take_while(|c| c.span.end <= span.end)
        .filter(|c| c.is_block())
        .find_map(|c| package_of(&text[c.span.start as usize..c.span.end as usize]))
}

/// The package a block comment's text (with its `/*` and `*/`) names, if it is a license
/// banner that names one.
pub(crate) fn package_of(comment: &str) -> Option<String> {
    let body = comment.strip_prefix("/*")?.strip_suffix("*/")?;
    let banner = body.starts_with('!');
    if !banner && !body.contains("@license") {
        return None;
    }
    let line = body
        .lines()
        .map(|l| {
            l.trim()
                .trim_start_matches(['*', '!'])
                .trim()
                .trim_start_matches("@license")
                .trim()
        })
        .find(|l| !l.is_empty())?;
    let (first, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let rest = rest.trim_start();
    // `https://mths.be/punycode v1.4.1`: the link's last part.
    let first = match first.split_once("://") {
        Some((_, path)) => path.trim_end_matches('/').rsplit('/').next()?,
        None => first,
    };
    let sentence_end = first.ends_with(['.', ',']);
    let name = first.trim_end_matches(['.', ',', ':']);
    let looks_like_package = name.len() >= 2
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '@')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '@' | '/' | '.' | '_' | '-'));
    let followed_by_banner = is_version(rest.split_whitespace().next().unwrap_or(""))
        || rest.starts_with("<http")
        || rest.starts_with("(http")
        || (sentence_end && rest.contains("icense"));
    (looks_like_package && followed_by_banner).then(|| name.to_ascii_lowercase())
}

/// `v17.0.2`, `4.17.21`, `1.4`.
fn is_version(word: &str) -> bool {
    let digits = word.strip_prefix('v').unwrap_or(word);
    let mut parts = digits.split('.');
    let numeric =
        |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
    numeric(parts.next()) && numeric(parts.next())
}

#[cfg(test)]
mod tests {
    use super::package_of;

    #[test]
    fn banners_name_their_package_and_sentences_do_not() {
        for (comment, name) in [
            (
                "/**\n * @license\n * Lodash <https://lodash.com/>\n * Copyright OpenJS Foundation\n */",
                Some("lodash"),
            ),
            (
                "/** @license React v17.0.2\n * react.production.min.js\n */",
                Some("react"),
            ),
            (
                "/*! safe-buffer. MIT License. Feross Aboukhadijeh <https://feross.org/opensource> */",
                Some("safe-buffer"),
            ),
            (
                "/*! https://mths.be/punycode v1.4.1 by @mathias */",
                Some("punycode"),
            ),
            ("/*! @scope/pkg 2.0.1 */", Some("@scope/pkg")),
            (
                "/*!\n * The buffer module from node.js, for the browser.\n */",
                None,
            ),
            (
                "/*! For license information please see main.js.LICENSE.txt */",
                None,
            ),
            ("/* lodash 4.17.21 */", None),
            ("/*!*/", None),
            ("/** @license */", None),
        ] {
            assert_eq!(package_of(comment).as_deref(), name, "{comment}");
        }
    }
}
