//! The entry of a bundle made for a web page: a page runs every one of its script tags in
//! order, so `node` on the one entry file must run them all. [`scripts`] tells the page's
//! files from the async chunks the runtime loads itself; [`file`] writes `index.js`, which
//! runs them (and stands in for the little of a browser webpack's chunk loading needs).

use super::LOADER_FILE;
use crate::recognize::Role;
use crate::recognize::webpack::Chunk;

const PAGE: &str = include_str!("page.js");
const SCRIPTS: &str = "/* the page's scripts */ []";

/// The files the page loads, in the order given, when the bundle has JSONP chunks (`None`
/// otherwise: its first file runs the rest itself). A chunk is left to the runtime (an async
/// chunk) when something says what starts the program (a chunk's push, or a runtime that
/// holds its entry and names the chunks it waits for) and the chunk neither starts it nor is
/// waited for; when nothing says so, every file is loaded.
pub(crate) fn scripts<'a>(inputs: &[&'a str], roles: &[Role]) -> Option<Vec<&'a str>> {
    let chunks = || {
        roles.iter().filter_map(|r| match r {
            Role::Jsonp(chunk) => Some(chunk),
            _ => None,
        })
    };
    chunks().next()?;
    let waited: Vec<&String> = roles
        .iter()
        .flat_map(|r| match r {
            Role::Runs { waits_for } => waits_for.iter().collect(),
            _ => Vec::new(),
        })
        .chain(chunks().filter(|c| c.starts).flat_map(|c| &c.needs))
        .collect();
    let known = !waited.is_empty() || chunks().any(|c| c.starts);
    let loaded = |c: &Chunk| {
        !known || c.starts || c.ids.is_empty() || c.ids.iter().any(|id| waited.contains(&id))
    };
    Some(
        inputs
            .iter()
            .zip(roles)
            .filter(|(_, role)| match role {
                Role::Jsonp(chunk) => loaded(chunk),
                _ => true,
            })
            .map(|(input, _)| *input)
            .collect(),
    )
}

/// `index.js` (or a name no input file has), running `scripts` in order: its path and text.
pub(crate) fn file(scripts: &[&str], inputs: &[&str]) -> (String, String) {
    let mut name = "index.js".to_owned();
    while name == LOADER_FILE || inputs.contains(&name.as_str()) {
        name.insert_str(0, "page-");
    }
    let list: Vec<String> = scripts
        .iter()
        .map(|s| serde_json::to_string(s).expect("a string serializes"))
        .collect();
    (
        name,
        PAGE.replace(SCRIPTS, &format!("[{}]", list.join(", "))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    fn chunk(ids: &[&str], starts: bool, needs: &[&str]) -> Role {
        Role::Jsonp(Chunk {
            ids: strings(ids),
            starts,
            needs: strings(needs),
        })
    }

    fn runtime(waits_for: &[&str]) -> Role {
        Role::Runs {
            waits_for: strings(waits_for),
        }
    }

    #[test]
    fn the_page_loads_the_runtime_and_the_chunks_the_entry_waits_for_but_not_async_chunks() {
        let files = ["runtime.js", "vendors.js", "main.js", "3.js"];
        let chunks = [
            runtime(&[]),
            chunk(&["2"], false, &[]),
            chunk(&["0"], true, &["1", "2"]),
            chunk(&["3"], false, &[]),
        ];
        assert_eq!(
            scripts(&files, &chunks).unwrap(),
            ["runtime.js", "vendors.js", "main.js"]
        );
    }

    #[test]
    fn a_runtime_holding_its_entry_says_which_chunks_the_page_loads() {
        let files = ["vendors.js", "main.js", "245.js"];
        let chunks = [
            chunk(&["96"], false, &[]),
            runtime(&["96"]),
            chunk(&["245"], false, &[]),
        ];
        assert_eq!(scripts(&files, &chunks).unwrap(), ["vendors.js", "main.js"]);
    }

    #[test]
    fn any_order_is_kept_and_without_a_starting_chunk_every_file_loads() {
        let files = ["main.js", "vendors.js", "runtime.js"];
        let chunks = [
            chunk(&["0"], false, &[]),
            chunk(&["2"], false, &[]),
            runtime(&[]),
        ];
        assert_eq!(
            scripts(&files, &chunks).unwrap(),
            ["main.js", "vendors.js", "runtime.js"]
        );
        assert_eq!(scripts(&files[..1], &[runtime(&[])]), None);
    }

    #[test]
    fn the_entry_file_takes_a_name_no_input_has() {
        let files = ["index.js", "1.js"];
        let page = file(&["index.js", "1.js"], &files);
        assert_eq!(page.0, "page-index.js");
        assert!(page.1.contains(r#"const SCRIPTS = ["index.js", "1.js"];"#));
    }
}
