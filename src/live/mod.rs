//! Servers that stand in front of live backends (as opposed to `offline/`, which serves export
//! files): the RocketChat cross-room search over its REST API, and the tool catalog in front of
//! live upstream MCP servers.

pub mod rocketchat;
pub mod tools;
