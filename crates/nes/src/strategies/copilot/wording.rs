//! The two fixed texts of the `copilot` strategy's request: the system message and the
//! instructions after the prompt's sections. Copilot's own texts are not in pilotfish: the
//! caller reads them from Copilot's package where the user has fetched them
//! (`tools/copilot-texts.sh`), checks them, and hands them over as a [`Wording`]. Without them
//! the strategy sends pilotfish's own wording, which asks for the same thing in other words, so
//! next edits work either way and are byte-identical to Copilot's request only with Copilot's
//! texts.

/// What stands for the current file's path in the instructions.
const PATH: &str = "{path}";

/// The texts a `copilot` request is sent with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wording {
    system: String,
    /// The instructions, `{path}` in place of the current file's path.
    postscript: String,
    copilots: bool,
}

impl Wording {
    /// Pilotfish's own wording: what the model must know to answer as Copilot's model does (the
    /// sections it is shown, the marked lines to rewrite, the answer's form), in our words.
    pub fn pilotfish() -> Wording {
        Wording {
            system: "You are a code editor's next-edit model. From what a developer looked at, \
                     the file they are in and the edits they just made, you foresee their next \
                     edit and answer with code alone."
                .into(),
            postscript: "Above are the code the developer viewed lately \
                         (`recently_viewed_code_snippets`), the file `{path}` they are editing \
                         (`current_file_content`), their latest changes as diffs, oldest first \
                         (`edit_diff_history`), and the lines near the caret \
                         (`area_around_code_to_edit`), where `<|cursor|>` is the caret. Write the \
                         lines found between `<|code_to_edit|>` and `<|/code_to_edit|>` again, \
                         as they will read once the developer has made the edit that follows \
                         from their latest changes. Answer those lines only, each of them, \
                         changed or not, without the markers, line numbers or comments on them. \
                         Keep what the developer last changed unless it is clearly a slip."
                .into(),
            copilots: false,
        }
    }

    /// Copilot's texts, which the caller has read from Copilot's package and checked against
    /// the hash of the texts its library sends (`host::copilot_texts`); `{path}` in
    /// `postscript` stands for the current file's path.
    pub fn copilots(system: String, postscript: String) -> Wording {
        Wording {
            system,
            postscript,
            copilots: true,
        }
    }

    /// Whether these are Copilot's texts, so that the request is the one its library sends.
    pub fn is_copilots(&self) -> bool {
        self.copilots
    }

    /// The system message.
    pub(crate) fn system(&self) -> &str {
        &self.system
    }

    /// The instructions after the prompt's sections; `path` is the current file's path.
    pub(crate) fn postscript(&self, path: &str) -> String {
        self.postscript.replacen(PATH, path, 1)
    }
}

impl Default for Wording {
    fn default() -> Wording {
        Wording::pilotfish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pilotfishs_wording_names_the_path_once_and_every_tag() {
        let w = Wording::pilotfish();
        assert!(!w.is_copilots());
        let p = w.postscript("src/a.ts");
        assert_eq!(p.matches("src/a.ts").count(), 1);
        for tag in ["<|cursor|>", "<|code_to_edit|>", "<|/code_to_edit|>"] {
            assert!(p.contains(tag), "{tag}");
        }
    }
}
