//! The MCP servers sagasu runs: `serve` (the `ask` tool for assistants), the offline sources
//! over export files (`offline`), the tool catalog (`tools`), the live RocketChat search
//! (`live`), and what they share: `mcp` (serving and results), `http` (access and sessions) and
//! `stdio` (the line transport). `source` picks the server `sagasu source` runs.

pub mod http;
pub mod live;
pub mod mcp;
pub mod offline;
pub mod serve;
pub mod source;
pub mod stdio;
pub mod tools;
