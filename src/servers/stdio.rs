//! The stdio transport of every MCP server sagasu runs: newline-delimited JSON-RPC on stdin and
//! stdout, where a line that is not a message gets the error reply the JSON-RPC spec asks for
//! (rmcp alone drops such a line, and a client waits for ever):
//!
//! - not JSON (garbage, a truncated message, a lone surrogate): `-32700` parse error, id null;
//! - JSON but no request (no `method`, or not an object): `-32600` invalid request;
//! - a request whose params do not fit its method (`"arguments": "str"`): `-32602` invalid
//!   params, with the request's id.
//!
//! Every good line goes on to rmcp unchanged; replies and rmcp's own output share stdout one
//! whole line at a time.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

/// The longest line read (rmcp's own cap for one message).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// Bytes buffered between the line checker and rmcp, each way.
const PIPE_BYTES: usize = 1 << 20;

/// The error reply a bad line deserves, or `None` when the line goes on to the server (a good
/// message, a blank line, or a malformed notification, which gets no reply by the spec).
pub fn reply_to(line: &str) -> Option<Value> {
    let line = line.trim_start_matches('\u{feff}').trim();
    if line.is_empty() {
        return None;
    }
    let error = |id: Value, code: i64, message: String| {
        Some(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}))
    };
    let value: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return error(Value::Null, -32700, format!("parse error: {e}")),
    };
    // rmcp reads a `tools/call` whose params do not fit as a custom request and answers
    // "method not found": the caller deserves to hear what is wrong with its params.
    if let Some(obj) = value.as_object()
        && let Some(why) = tools_call_problem(obj)
        && matches!(obj.get("id"), Some(Value::String(_) | Value::Number(_)))
    {
        return error(obj["id"].clone(), -32602, format!("invalid params: {why}"));
    }
    if serde_json::from_value::<rmcp::model::ClientJsonRpcMessage>(value.clone()).is_ok() {
        return None;
    }
    let Some(obj) = value.as_object() else {
        return error(
            Value::Null,
            -32600,
            "invalid request: a message must be a JSON object".into(),
        );
    };
    let id = obj.get("id").cloned().unwrap_or(Value::Null);
    let valid_id = matches!(id, Value::String(_) | Value::Number(_));
    match obj.get("method").and_then(Value::as_str) {
        // A notification (no id) that does not parse is dropped, as the spec says.
        Some(_) if id.is_null() && !obj.contains_key("id") => None,
        Some(method) if valid_id => error(id, -32602, format!("invalid params: the params do not fit `{method}`")),
        Some(_) => error(
            Value::Null,
            -32600,
            "invalid request: `id` must be a string or a number".into(),
        ),
        // A response from the client (to a request of ours) that does not parse: nothing to
        // reply to.
        None if obj.contains_key("result") || obj.contains_key("error") => None,
        None => error(
            if valid_id { id } else { Value::Null },
            -32600,
            "invalid request: no `method`".into(),
        ),
    }
}

/// What is wrong with a `tools/call`'s params, said the way a caller fixes it.
fn tools_call_problem(obj: &serde_json::Map<String, Value>) -> Option<String> {
    if obj.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
    let params = obj.get("params")?;
    let Some(params) = params.as_object() else {
        return Some("`params` must be an object".into());
    };
    if !params.get("name").is_some_and(Value::is_string) {
        return Some("`params.name` must be the tool's name, a string".into());
    }
    match params.get("arguments") {
        None | Some(Value::Object(_)) => None,
        Some(_) => Some("`params.arguments` must be an object".into()),
    }
}

/// A transport over `input` and `output` (stdin and stdout in production, pipes in tests)
/// that answers bad lines itself and hands the rest to rmcp.
pub fn checked<R, W>(input: R, output: W) -> (tokio::io::DuplexStream, tokio::io::DuplexStream)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (mut to_server, server_in) = tokio::io::duplex(PIPE_BYTES);
    let (server_out, from_server) = tokio::io::duplex(PIPE_BYTES);
    let (replies, mut replies_rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        let mut lines = BufReader::new(input);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match read_line_capped(&mut lines, &mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let text = String::from_utf8_lossy(&buf);
            let reply = if buf.len() > MAX_LINE_BYTES {
                Some(json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700,
                    "message": format!("parse error: a message longer than {MAX_LINE_BYTES} bytes")}}))
            } else if std::str::from_utf8(&buf).is_err() {
                Some(json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700,
                    "message": "parse error: the message is not UTF-8"}}))
            } else {
                reply_to(&text)
            };
            match reply {
                Some(r) => {
                    if replies.send(r.to_string()).is_err() {
                        break;
                    }
                }
                None => {
                    let mut line = text.into_owned();
                    if !line.ends_with('\n') {
                        line.push('\n');
                    }
                    if to_server.write_all(line.as_bytes()).await.is_err() {
                        break;
                    }
                }
            }
        }
        // End of input: the server sees its stdin close.
        let _ = to_server.shutdown().await;
    });
    tokio::spawn(async move {
        let mut output = output;
        let mut from_server = BufReader::new(from_server);
        let mut line = Vec::new();
        let mut server_open = true;
        loop {
            tokio::select! {
                n = from_server.read_until(b'\n', &mut line), if server_open => {
                    match n {
                        Ok(0) | Err(_) => server_open = false,
                        Ok(_) => {
                            if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
                                break;
                            }
                            line.clear();
                        }
                    }
                }
                r = replies_rx.recv() => {
                    let Some(r) = r else {
                        if !server_open { break; }
                        continue;
                    };
                    if output.write_all(format!("{r}\n").as_bytes()).await.is_err() || output.flush().await.is_err() {
                        break;
                    }
                }
                else => break,
            }
            if !server_open && replies_rx.is_closed() && replies_rx.is_empty() {
                break;
            }
        }
    });
    (server_in, server_out)
}

/// Reads one line into `buf` (newline included), keeping at most `MAX_LINE_BYTES + 1` bytes of
/// it (the rest of an over-long line is read and thrown away). Returns the bytes read in all.
async fn read_line_capped<R: AsyncRead + Unpin>(r: &mut BufReader<R>, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let chunk = r.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(total);
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = (MAX_LINE_BYTES + 1).saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..take.min(room)]);
        r.consume(take);
        total += take;
        if done {
            return Ok(total);
        }
    }
}

/// The checked transport over this process's stdin and stdout.
pub fn stdio() -> (tokio::io::DuplexStream, tokio::io::DuplexStream) {
    checked(tokio::io::stdin(), tokio::io::stdout())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(line: &str) -> Option<i64> {
        reply_to(line).map(|r| r["error"]["code"].as_i64().unwrap())
    }

    #[test]
    fn bad_lines_get_the_json_rpc_error_they_deserve() {
        assert_eq!(code("garbage"), Some(-32700));
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":"ping""#),
            Some(-32700),
            "truncated"
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"\ud800"}}"#),
            Some(-32700),
            "a lone surrogate"
        );
        assert_eq!(code("[1,2]"), Some(-32600));
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":3}"#), Some(-32600));
        let r = reply_to(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask","arguments":"str"}}"#)
            .unwrap();
        assert_eq!(r["id"], 7);
        assert_eq!(r["error"]["code"], -32602);
        assert!(r["error"]["message"].as_str().unwrap().contains("arguments"), "{r}");
        // Good messages, blank lines and malformed notifications pass without a reply.
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), None);
        assert_eq!(code(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), None);
        assert_eq!(code("   "), None);
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":2,"method":"no/such/method"}"#),
            None,
            "rmcp answers -32601"
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}"#),
            None
        );
    }
}
