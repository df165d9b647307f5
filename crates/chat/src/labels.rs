//! Workspace labels: the technologies a workspace uses, from the files at its folders' roots and
//! what they say (seed 000's `BasicWorkspaceLabels`): `package.json`, `tsconfig.json`,
//! `Cargo.toml`, `CMakeLists.txt`, `requirements.txt`, `pyproject.toml`, `go.mod`, `pom.xml`.

/// Labels for the root files given as (name, text), in a stable order without duplicates.
pub fn labels(root_files: &[(String, String)]) -> Vec<String> {
    let mut labels = Labels::default();
    for (name, text) in root_files {
        let lower = text.to_lowercase();
        match name.as_str() {
            "package.json" => package_json(&mut labels, text),
            "tsconfig.json" => labels.add("typescript"),
            "Cargo.toml" => cargo_toml(&mut labels, &lower),
            "CMakeLists.txt" => cmake_lists(&mut labels, &lower),
            "requirements.txt" | "pyproject.toml" => python(&mut labels, name, &lower),
            "go.mod" => {
                labels.add("go");
                labels.add("go.mod");
            }
            "pom.xml" => {
                labels.add("java");
                labels.add("maven");
                if lower.contains("spring-boot") {
                    labels.add("spring-boot");
                }
            }
            _ => {}
        }
    }
    labels.0
}

/// The labels found so far, in the order found, each once.
#[derive(Default)]
struct Labels(Vec<String>);

impl Labels {
    fn add(&mut self, label: &str) {
        if !self.0.iter().any(|o| o == label) {
            self.0.push(label.to_owned());
        }
    }

    /// Adds the label of each needle the (lowercased) text contains.
    fn add_found(&mut self, lower: &str, needles: &[(&str, &str)]) {
        for (needle, label) in needles {
            if lower.contains(needle) {
                self.add(label);
            }
        }
    }
}

/// `package.json`: JavaScript with npm, and the frameworks and tools among its dependencies.
fn package_json(labels: &mut Labels, text: &str) {
    labels.add("javascript");
    labels.add("npm");
    let deps = serde_json::from_str::<serde_json::Value>(text).ok();
    for key in ["dependencies", "devDependencies", "peerDependencies"] {
        let Some(map) = deps.as_ref().and_then(|d| d[key].as_object()) else {
            continue;
        };
        for dep in map.keys() {
            if let Some(label) = npm_label(dep) {
                labels.add(label);
            }
        }
    }
}

/// The label of an npm dependency worth naming.
fn npm_label(dep: &str) -> Option<&'static str> {
    Some(match dep {
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
        _ => return None,
    })
}

/// `Cargo.toml`: Rust with cargo, a workspace, and the crates worth naming.
fn cargo_toml(labels: &mut Labels, lower: &str) {
    labels.add("rust");
    labels.add("cargo");
    labels.add_found(
        lower,
        &[
            ("tokio", "tokio"),
            ("[workspace]", "cargo-workspace"),
            ("serde", "serde"),
        ],
    );
}

/// `CMakeLists.txt`: C++ with CMake, CUDA and Qt.
fn cmake_lists(labels: &mut Labels, lower: &str) {
    labels.add("c++");
    labels.add("cmake");
    if lower.contains("cuda") {
        labels.add("cuda");
    }
    if lower.contains("qt5") || lower.contains("qt6") {
        labels.add("qt");
    }
}

/// `requirements.txt` or `pyproject.toml`: Python, how it is packaged, and the libraries worth
/// naming.
fn python(labels: &mut Labels, name: &str, lower: &str) {
    labels.add("python");
    labels.add(if name == "requirements.txt" {
        "pip"
    } else {
        "pyproject"
    });
    if lower.contains("[tool.poetry]") {
        labels.add("poetry");
    }
    labels.add_found(
        lower,
        &[
            ("django", "django"),
            ("flask", "flask"),
            ("fastapi", "fastapi"),
            ("pytest", "pytest"),
            ("numpy", "numpy"),
            ("pandas", "pandas"),
            ("torch", "pytorch"),
        ],
    );
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
