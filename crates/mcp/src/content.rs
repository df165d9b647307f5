//! A tool's result as the text a model reads: text blocks as they are, everything else (images,
//! audio, embedded resources, links) as a short mention or its text, in order.

use serde_json::Value;

use crate::CallResult;

/// Turns a `tools/call` result into text; Err says what is wrong with a malformed one.
pub(crate) fn call_result(result: &Value) -> Result<CallResult, String> {
    let Value::Object(result) = result else {
        return Err(format!("the result is {result}, not an object"));
    };
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let blocks = match result.get("content") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(blocks)) => blocks.as_slice(),
        Some(_) => return Err("its `content` is not a list".into()),
    };
    let mut text: Vec<String> = blocks.iter().map(block_text).collect();
    // Structured content should come with its text in a block too; a server that sends it
    // alone still has its answer read.
    if text.is_empty()
        && let Some(structured) = result.get("structuredContent")
    {
        text.push(structured.to_string());
    }
    Ok(CallResult {
        is_error,
        text: text.join("\n"),
    })
}

fn block_text(block: &Value) -> String {
    let field = |name: &str| block.get(name).and_then(Value::as_str);
    let kind = field("type").unwrap_or("unknown");
    match kind {
        "text" => field("text").unwrap_or_default().to_owned(),
        "image" | "audio" => {
            format!("[{kind}: {}]", field("mimeType").unwrap_or("unknown type"))
        }
        "resource" => {
            let resource = block.get("resource").unwrap_or(&Value::Null);
            let part = |name: &str| resource.get(name).and_then(Value::as_str);
            match (part("text"), part("uri")) {
                (Some(text), _) => text.to_owned(),
                (None, uri) => format!(
                    "[resource: {} ({})]",
                    uri.unwrap_or("no uri"),
                    part("mimeType").unwrap_or("binary")
                ),
            }
        }
        "resource_link" => match field("name") {
            Some(name) => format!("[resource link: {name} <{}>]", field("uri").unwrap_or("")),
            None => format!("[resource link: <{}>]", field("uri").unwrap_or("")),
        },
        other => format!("[{other} content]"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn results_as_text() {
        let cases = [
            (
                json!({"content": [{"type": "text", "text": "Echo: hi"}]}),
                Ok((false, "Echo: hi")),
            ),
            (
                json!({"content": [{"type": "text", "text": "no such file"}], "isError": true}),
                Ok((true, "no such file")),
            ),
            (
                json!({"content": [
                    {"type": "text", "text": "Here:"},
                    {"type": "image", "data": "iVBO", "mimeType": "image/png"},
                    {"type": "audio", "data": "UklG"},
                    {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "contents of a"}},
                    {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAAA", "mimeType": "application/gzip"}},
                    {"type": "resource_link", "uri": "demo://r/1", "name": "Resource 1"},
                    {"type": "resource_link", "uri": "demo://r/2"},
                    {"type": "hologram"},
                ]}),
                Ok((
                    false,
                    "Here:\n[image: image/png]\n[audio: unknown type]\ncontents of a\n[resource: file:///b.bin (application/gzip)]\n[resource link: Resource 1 <demo://r/1>]\n[resource link: <demo://r/2>]\n[hologram content]",
                )),
            ),
            (
                json!({"content": [], "structuredContent": {"temperature": 21}}),
                Ok((false, "{\"temperature\":21}")),
            ),
            (json!({}), Ok((false, ""))),
            (json!([1]), Err("the result is [1], not an object")),
            (json!({"content": "hi"}), Err("its `content` is not a list")),
        ];
        for (result, want) in cases {
            let got = call_result(&result);
            let got = got
                .as_ref()
                .map(|r| (r.is_error, r.text.as_str()))
                .map_err(String::as_str);
            assert_eq!(got, want, "{result}");
        }
    }
}
