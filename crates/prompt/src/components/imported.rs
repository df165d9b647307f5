//! Imported files: declarations of the names the document imports from the workspace.

use crate::OpenFirst;
use crate::request::RequestJson;

/// The declarations the document imports from workspace files.
pub(crate) fn imported(
    request: &RequestJson,
    language_id: &str,
    files: &OpenFirst<'_>,
) -> Vec<syntax::ImportedDeclarations> {
    let Some(lang) = syntax::Lang::from_language_id(language_id) else {
        return Vec::new();
    };
    let path = files.relative(&request.document.path);
    syntax::imported_declarations(lang, &path, &request.document.text, files)
}
