exports.summary = (doc) => `summary: ${doc.name} with ${doc.fish.length} fish`;
