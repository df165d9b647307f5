//! Workspace labels: the technologies a workspace uses, from the files at its folders' roots and
//! what they say (seed 000's `BasicWorkspaceLabels`): `package.json`, `tsconfig.json`,
//! `Cargo.toml`, `CMakeLists.txt`, `requirements.txt`, `pyproject.toml`, `go.mod`, `pom.xml`.

/// Labels for the root files given as (name, text), in a stable order without duplicates.
pub fn labels(root_files: &[(String, String)]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |l: &str| {
        if !out.iter().any(|o| o == l) {
            out.push(l.to_owned());
        }
    };
    for (name, text) in root_files {
        let lower = text.to_lowercase();
        match name.as_str() {
            "package.json" => {
                add("javascript");
                add("npm");
                let deps = serde_json::from_str::<serde_json::Value>(text).ok();
                for key in ["dependencies", "devDependencies", "peerDependencies"] {
                    let Some(map) = deps.as_ref().and_then(|d| d[key].as_object()) else {
                        continue;
                    };
                    for dep in map.keys() {
                        let label = match dep.as_str() {
                            "typescript" => "typescript",
                            "react" => "react",
                            "vue" => "vue",
                            "@angular/core" => "angular",
                            "next" => "next.js",
                            "express" => "express",
                            "svelte" => "svelte",
                            "jest" => "jest",
                            "mocha" => "mocha",
                            "vitest" => "vitest",
                            "webpack" => "webpack",
                            "vite" => "vite",
                            "@vscode/chat-lib" | "vscode" | "@types/vscode" => "vscode-extension",
                            _ => continue,
                        };
                        add(label);
                    }
                }
            }
            "tsconfig.json" => add("typescript"),
            "Cargo.toml" => {
                add("rust");
                add("cargo");
                for (needle, label) in [
                    ("tokio", "tokio"),
                    ("[workspace]", "cargo-workspace"),
                    ("serde", "serde"),
                ] {
                    if lower.contains(needle) {
                        add(label);
                    }
                }
            }
            "CMakeLists.txt" => {
                add("c++");
                add("cmake");
                if lower.contains("cuda") {
                    add("cuda");
                }
                if lower.contains("qt5") || lower.contains("qt6") {
                    add("qt");
                }
            }
            "requirements.txt" | "pyproject.toml" => {
                add("python");
                add(if name == "requirements.txt" {
                    "pip"
                } else {
                    "pyproject"
                });
                if lower.contains("[tool.poetry]") {
                    add("poetry");
                }
                for (needle, label) in [
                    ("django", "django"),
                    ("flask", "flask"),
                    ("fastapi", "fastapi"),
                    ("pytest", "pytest"),
                    ("numpy", "numpy"),
                    ("pandas", "pandas"),
                    ("torch", "pytorch"),
                ] {
                    if lower.contains(needle) {
                        add(label);
                    }
                }
            }
            "go.mod" => {
                add("go");
                add("go.mod");
            }
            "pom.xml" => {
                add("java");
                add("maven");
                if lower.contains("spring-boot") {
                    add("spring-boot");
                }
            }
            _ => {}
        }
    }
    out
}

/// The root file names labels are read from.
pub const INDICATORS: &[&str] = &[
    "package.json",
    "tsconfig.json",
    "Cargo.toml",
    "CMakeLists.txt",
    "requirements.txt",
    "pyproject.toml",
    "go.mod",
    "pom.xml",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_contents() {
        let l = labels(&[
            (
                "package.json".into(),
                r#"{"dependencies": {"react": "18"}, "devDependencies": {"typescript": "5"}}"#
                    .into(),
            ),
            (
                "pyproject.toml".into(),
                "[tool.poetry]\n[tool.poetry.dependencies]\nfastapi = '*'\n".into(),
            ),
        ]);
        assert_eq!(
            l,
            [
                "javascript",
                "npm",
                "react",
                "typescript",
                "python",
                "pyproject",
                "poetry",
                "fastapi"
            ]
        );
        assert!(labels(&[("package.json".into(), "not json".into())]).contains(&"npm".to_owned()));
    }
}
