//! `pilotfish unbundle`: reads a bundle's files, has the `unbundle` crate split them, and
//! writes the result into a new folder all at once (into a temporary folder beside it,
//! renamed into place), so that a failure leaves nothing half-written.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The bundle's files in load order: the runtime first, then its chunks.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The folder to write: created, and refused when it exists and is not empty.
    #[arg(short = 'o', long = "out")]
    out: PathBuf,
    /// Replace the output folder's contents when it is not empty.
    #[arg(long)]
    force: bool,
    /// Module names and paths by id: `{"12781": {"name": "stream", "path": "node/stream.js"}}`.
    #[arg(long)]
    names: Option<PathBuf>,
    /// Leave the minifier's syntax as it is for one transform (repeatable): sequences,
    /// logical, conditional, declarations, booleans, void0, export-names, calls,
    /// plain-exports; `all` for every one.
    #[arg(long = "no-transform", value_name = "NAME")]
    no_transform: Vec<String>,
    /// The first file's source map, when it is not `FILE.map` beside it (a `FILE.map` beside
    /// any input is read without this): modules are written under their original paths.
    #[arg(long = "source-map", value_name = "MAP")]
    source_map: Option<PathBuf>,
    /// `text` (a summary for a person) or `json` (the manifest).
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    format: String,
}

pub(crate) fn run(args: Args) -> Result<()> {
    let mut texts = Vec::with_capacity(args.files.len());
    let names_of = input_names(&args.files)?;
    for (path, name) in args.files.iter().zip(names_of) {
        let bytes =
            std::fs::read(path).with_context(|| format!("could not read {}", path.display()))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            anyhow::anyhow!(
                "{} is not UTF-8 text (invalid byte at offset {}): a bundle is JavaScript source",
                path.display(),
                e.utf8_error().valid_up_to()
            )
        })?;
        texts.push((name, text));
    }
    let names = match &args.names {
        Some(path) => read_names(path)?,
        None => unbundle::Names::default(),
    };
    let mut transforms = unbundle::Transforms::ALL;
    for name in &args.no_transform {
        if name == "all" {
            transforms = unbundle::Transforms::NONE;
        } else if !transforms.switch_off(name) {
            bail!(
                "unknown transform `{name}`: use one of {}, or all",
                unbundle::Transforms::NAMES.join(", ")
            );
        }
    }
    check_out(&args.out, args.force)?;
    let inputs: Vec<unbundle::Input> = texts
        .iter()
        .map(|(name, text)| unbundle::Input { name, text })
        .collect();
    let source_maps = read_source_maps(&args.files, &texts, args.source_map.as_deref())?;
    let output = unbundle::unbundle_with(
        &inputs,
        &unbundle::Options {
            names,
            transforms,
            source_maps,
        },
    )?;
    write_all(&args.out, &output.files)?;
    if args.format == "json" {
        println!("{}", serde_json::to_string_pretty(&output.manifest)?);
    } else {
        let entry = args.out.join(&output.manifest.entry);
        let run = if args.files.len() == 1 {
            format!("run it with `node {}`", entry.display())
        } else if inputs.iter().all(|i| i.name != output.manifest.entry) {
            // A browser bundle's entry is the page: it runs the page's files in order.
            format!(
                "run it with `node {}`, which runs the page's files in order as the page did (or load the same files in a page)",
                entry.display()
            )
        } else {
            // A node bundle's runtime loads its chunks.
            format!("run it as the bundle ran: `node {}`", entry.display())
        };
        println!(
            "{}: {} modules from {} file(s); {run}",
            args.out.display(),
            output.manifest.modules.len(),
            args.files.len(),
        );
        println!("{}", wrappers_line(&output.manifest));
        let written = |path: &str| output.files.iter().any(|f| f.path == path);
        if written("unbundle-loader.cjs") {
            println!(
                "files: pilotfish's CommonJS files are .cjs (the loader, esbuild's runtime, module files named by id), so the output runs the same under a package.json that says \"type\": \"module\""
            );
        }
        let c = output.changes;
        println!(
            "transforms: {} sequences split, {} logical and {} conditional statements made ifs, {} declarations split, {} booleans, {} void 0, {} variables named after their export, {} after their module, {} (0, x.f) calls given their receiver, {} getters made plain exports, {} webpack helper calls written out, {} calls of esbuild's wrappers written as requires of their files",
            c.sequences,
            c.logical,
            c.conditional,
            c.declarations,
            c.booleans,
            c.void0,
            c.export_names,
            c.module_names,
            c.calls,
            c.plain_exports,
            c.helpers,
            c.requires
        );
        for note in &output.notes {
            println!("note: {note}");
        }
    }
    Ok(())
}

/// How many wrappers of each kind the bundle held and how many became files, so that a
/// partial recovery shows at once; or that no file held one, and what was written instead.
fn wrappers_line(manifest: &unbundle::Manifest) -> String {
    let w = &manifest.wrappers;
    let kinds = [
        (w.webpack, "webpack modules"),
        (
            w.commonjs,
            "esbuild-style (esbuild, Bun, rolldown) CommonJS wrappers",
        ),
        (w.esm, "esbuild-style ES module initializers"),
        (w.rollup, "rollup CommonJS wrappers"),
        (w.parcel, "Parcel modules"),
    ];
    let parts: Vec<String> = kinds
        .iter()
        .filter(|(c, _)| c.found > 0)
        .map(|(c, what)| format!("{} of {} {what}", c.split, c.found))
        .collect();
    let chunks = manifest
        .modules
        .iter()
        .filter(|m| m.kind == unbundle::ModuleKind::Chunk)
        .count();
    if parts.is_empty() && chunks > 0 && chunks == manifest.modules.len() {
        format!(
            "wrappers: none; no file held a module wrapper, so each of the {chunks} chunks (linked by their imports and requires) was written as a module of its own, under its own name, made readable"
        )
    } else if parts.is_empty() {
        "wrappers: none found (the bundle file's runtime only)".to_owned()
    } else {
        format!("wrappers split into files: {}", parts.join(", "))
    }
}

/// The source maps of the bundle's files, by file name: `--source-map` for the first, and
/// `FILE.map` beside any file.
fn read_source_maps(
    files: &[PathBuf],
    texts: &[(String, String)],
    given: Option<&Path>,
) -> Result<std::collections::BTreeMap<String, String>> {
    let mut maps = std::collections::BTreeMap::new();
    for (i, (path, (name, _))) in files.iter().zip(texts).enumerate() {
        let beside = PathBuf::from(format!("{}.map", path.display()));
        let map = match given {
            Some(given) if i == 0 => given.to_path_buf(),
            _ if beside.is_file() => beside,
            _ => continue,
        };
        let text = std::fs::read_to_string(&map)
            .with_context(|| format!("could not read the source map {}", map.display()))?;
        maps.insert(name.clone(), text);
    }
    Ok(maps)
}

/// Each file's name in the output: its path from the folder that holds all of them, so that
/// a chunk set spread over folders (`dist/index.mjs`, `dist/shared/x.mjs`) keeps the layout
/// its imports name (`./shared/x.mjs`); one file is named by its file name.
fn input_names(files: &[PathBuf]) -> Result<Vec<String>> {
    let absolute: Vec<PathBuf> = files
        .iter()
        .map(|f| std::path::absolute(f).with_context(|| format!("{} has no path", f.display())))
        .collect::<Result<_>>()?;
    let mut base = absolute
        .first()
        .and_then(|f| f.parent())
        .map(Path::to_path_buf)
        .unwrap_or_default();
    while !absolute.iter().all(|f| f.starts_with(&base)) {
        if !base.pop() {
            break;
        }
    }
    absolute
        .iter()
        .zip(files)
        .map(|(path, given)| {
            let relative = path.strip_prefix(&base).unwrap_or(path);
            let parts: Vec<&str> = relative
                .components()
                .filter_map(|c| c.as_os_str().to_str())
                .collect();
            if parts.is_empty() {
                bail!("{} has no file name", given.display());
            }
            Ok(parts.join("/"))
        })
        .collect()
}

fn read_names(path: &Path) -> Result<unbundle::Names> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("could not read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| {
        format!(
            "{} is not a names map: expected {{\"ID\": {{\"name\": \"...\", \"path\": \"...\"}}, ...}}",
            path.display()
        )
    })
}

/// Refuses an output folder that holds something, unless forced.
fn check_out(out: &Path, force: bool) -> Result<()> {
    match std::fs::read_dir(out) {
        Ok(mut entries) => {
            if entries.next().is_some() && !force {
                bail!(
                    "{} exists and is not empty: choose another folder, or give --force to replace its contents",
                    out.display()
                );
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            bail!("{} exists and is not a folder", out.display())
        }
        Err(e) => Err(e).with_context(|| format!("could not look into {}", out.display())),
    }
}

/// Writes every file into a temporary folder beside `out`, then puts it in `out`'s place.
fn write_all(out: &Path, files: &[unbundle::OutputFile]) -> Result<()> {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)
        .with_context(|| format!("could not create {}", parent.display()))?;
    let name = out.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let staging = parent.join(format!(".{name}.pilotfish-{}", std::process::id()));
    let written = (|| -> Result<()> {
        for file in files {
            let path = staging.join(&file.path);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("could not create {}", dir.display()))?;
            }
            std::fs::write(&path, &file.text)
                .with_context(|| format!("could not write {}", path.display()))?;
        }
        if out.exists() {
            std::fs::remove_dir_all(out)
                .with_context(|| format!("could not replace {}", out.display()))?;
        }
        std::fs::rename(&staging, out)
            .with_context(|| format!("could not move the output into {}", out.display()))
    })();
    if written.is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    written
}
