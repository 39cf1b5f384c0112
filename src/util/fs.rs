//! Reading files that a user or an export names, without being stalled or misled by them: only
//! regular files are opened (a FIFO would block `open()` forever, a device would never end), and
//! never more than a size bound.

use std::io::Read;
use std::path::Path;

/// The largest configuration, policy, lexicon or golden file read (far above any real one; a
/// bigger file is a mistake or an attack, and reading it would only waste memory).
pub const MAX_CONFIG_BYTES: u64 = 16 << 20;
/// The largest single export file read (a Slack day file, a Notion page, a tools dump).
pub const MAX_DATA_BYTES: u64 = 512 << 20;

fn refused(what: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, what)
}

/// What kind of thing `meta` is, in words, when it is not a regular file.
fn not_regular(meta: &std::fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_socket() {
            return Some("a socket");
        }
        if t.is_block_device() || t.is_char_device() {
            return Some("a device");
        }
    }
    Some("not a regular file")
}

/// Opens `path` for reading if it is a regular file (following links), without blocking on a
/// FIFO: the type is checked before `open()`, and the file is opened non-blocking and checked
/// again, so a FIFO swapped in between cannot stall the caller either.
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    let meta = std::fs::metadata(path)?;
    if let Some(kind) = not_regular(&meta) {
        return Err(refused(format!("it is {kind}, not a regular file")));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if let Some(kind) = not_regular(&meta) {
        return Err(refused(format!("it is {kind}, not a regular file")));
    }
    Ok(file)
}

/// Reads a regular file of at most `max` bytes, as bytes.
pub fn read_bytes(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    let len = file.metadata()?.len();
    if len > max {
        return Err(refused(format!(
            "it is {} MB, more than the {} MB sagasu reads",
            len >> 20,
            max >> 20
        )));
    }
    let mut data = Vec::with_capacity(len as usize);
    file.take(max + 1).read_to_end(&mut data)?;
    if data.len() as u64 > max {
        return Err(refused(format!("it grew past the {} MB sagasu reads", max >> 20)));
    }
    Ok(data)
}

/// Reads a regular file of at most `max` bytes as UTF-8.
pub fn read_regular(path: &Path, max: u64) -> std::io::Result<String> {
    String::from_utf8(read_bytes(path, max)?)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "stream did not contain valid UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(unix)]
    fn a_fifo_is_refused_at_once_not_opened() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("policy.yaml");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_regular(&fifo, MAX_CONFIG_BYTES).unwrap_err();
        assert!(e.to_string().contains("FIFO"), "{e}");
    }

    #[test]
    fn folders_and_oversized_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            read_regular(dir.path(), MAX_CONFIG_BYTES)
                .unwrap_err()
                .to_string()
                .contains("folder")
        );
        let big = dir.path().join("big.yaml");
        std::fs::write(&big, vec![b'a'; 2048]).unwrap();
        assert!(read_regular(&big, 1024).unwrap_err().to_string().contains("more than"));
        assert_eq!(read_regular(&big, 4096).unwrap().len(), 2048);
    }
}
