//! What sagasu's MCP servers and its MCP client both speak beyond MCP itself: the shapes of
//! results and the capabilities that sagasu's own servers add. Both sides depend on this
//! module; it depends on neither.

pub mod rocketchat;

/// The experimental capability in which an offline server says what it left out of its export
/// (`{"unreadable": 3}`), so that answers can say so; see `sources::Connection::unreadable`.
pub const EXPORT_CAPABILITY: &str = "sagasu/export";
