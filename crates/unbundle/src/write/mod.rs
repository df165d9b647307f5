//! What the output holds besides the module files: the loader that runs them for the
//! bundle's runtime (`loader.js`, written as `unbundle-loader.cjs`), the names it passes, and
//! for a bundle made for a web page the entry that runs the page's files ([`page`]).

pub(crate) mod page;
pub(crate) mod source_map;

/// The loader the output's bundle files require (see the module documentation).
pub(crate) const LOADER: &str = include_str!("loader.js");
/// `.cjs`, as every CommonJS file of the output: a `package.json` saying `"type": "module"`
/// beside or above the output changes nothing.
pub(crate) const LOADER_FILE: &str = "unbundle-loader.cjs";
pub(crate) const LOAD: &str = "__pilotfish_load";

/// The parameters `loader.js` gives an esbuild module file (or entry) before the bundle's
/// top-level names passed in (`COMMONJS` there): a bundle name passed in under one of these
/// would clash with it.
pub(crate) const LOADER_PARAMETERS: [&str; 11] = [
    "exports",
    "module",
    "require",
    "__node_module",
    "__node_exports",
    "__filename",
    "__dirname",
    crate::imports::META,
    crate::imports::IMPORT,
    crate::imports::FUNCTION,
    LOAD,
];

/// The names under which the loader passes the bundle file's own `module`, `exports` and
/// `require` (see `loader.js`): a module's free references to those are renamed to these.
pub(crate) fn outer_name(name: &str) -> String {
    format!("__node_{name}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_loader_parameters_are_the_loaders() {
        let list: Vec<String> = super::LOADER_PARAMETERS
            .iter()
            .map(|p| format!("{p:?}"))
            .collect();
        let line = format!("const COMMONJS = [{}];", list.join(", "));
        assert!(super::LOADER.contains(&line), "{line}");
    }
}
