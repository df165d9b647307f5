//! Which `push([...])` calls are taken for webpack's JSONP chunks, one fixture per case in
//! `tests/pushes/`: its first line says what the unbundler must find, `// expect: ID ID ...`
//! (the module ids split) or `// expect: not a bundle`.

use std::path::Path;

#[test]
fn pushes_are_chunks_only_where_webpack_would_have_written_them() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pushes");
    let mut fixtures: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "js"))
        .collect();
    fixtures.sort();
    assert!(fixtures.len() >= 5, "fixtures in {}", dir.display());
    for path in fixtures {
        let text = std::fs::read_to_string(&path).unwrap();
        let expect = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("// expect: "))
            .unwrap_or_else(|| panic!("{} has no `// expect:` line", path.display()));
        let name = path.file_name().unwrap().to_str().unwrap();
        let got = unbundle::unbundle(&[unbundle::Input { name, text: &text }]);
        if expect == "not a bundle" {
            assert!(
                matches!(got, Err(unbundle::UnbundleError::NotABundle { .. })),
                "{name}: {:?}",
                got.map(|o| ids(&o).join(" "))
            );
            continue;
        }
        let out = got.unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut want: Vec<&str> = expect.split_whitespace().collect();
        want.sort_unstable();
        assert_eq!(ids(&out), want, "{name}");
    }
}

fn ids(out: &unbundle::Output) -> Vec<&str> {
    let mut ids: Vec<&str> = out.manifest.modules.iter().map(|m| m.id.as_str()).collect();
    ids.sort_unstable();
    ids
}
