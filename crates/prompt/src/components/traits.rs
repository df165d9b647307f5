//! Traits: facts about the project a language service supplies (`name: value`).

use super::{Part, WEIGHT_TRAITS};
use crate::{ElementKind, request};

pub(crate) fn traits(traits: &[request::Trait]) -> Option<Part> {
    if traits.is_empty() {
        return None;
    }
    let mut values = vec![("Consider this related information:\n".to_owned(), None)];
    values.extend(
        traits
            .iter()
            .map(|t| (format!("{}: {}", t.name, t.value), None)),
    );
    Some(Part {
        kind: ElementKind::Trait,
        path: None,
        score: None,
        weight: WEIGHT_TRAITS,
        values,
        context_index: 0,
    })
}
