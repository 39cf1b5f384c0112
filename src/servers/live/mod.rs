//! Servers in front of live backends (as opposed to `offline/`, which serves export files): the
//! RocketChat cross-room search over its REST API. The tool catalog's live upstreams are in
//! `tools/upstream.rs`.

pub mod rocketchat;
