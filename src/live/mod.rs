//! Servers that stand in front of live backends (as opposed to `offline/`, which serves export
//! files): today the RocketChat cross-room search over its REST API.

pub mod rocketchat;
