//! What the server benchmarks share: starting `sagasu serve --http` and reading where it
//! listens, and counting a process's file descriptors and the processes a run left behind.

use std::path::Path;

/// Starts `cmd` (a `sagasu serve --http` command) with stderr piped, and returns it with the
/// URL its startup line names; the rest of stderr is drained in the background.
pub async fn spawn_http(mut cmd: tokio::process::Command) -> (tokio::process::Child, String) {
    use tokio::io::AsyncBufReadExt;
    cmd.stderr(std::process::Stdio::piped()).kill_on_drop(true);
    let mut child = cmd.spawn().expect("start the server");
    let mut lines = tokio::io::BufReader::new(child.stderr.take().expect("stderr")).lines();
    let url = loop {
        let line = lines
            .next_line()
            .await
            .expect("stderr")
            .expect("the server said where it listens");
        if let Some(i) = line.find("http://") {
            break line[i..].split_whitespace().next().unwrap_or_default().to_string();
        }
    };
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, url)
}

/// Open file descriptors of `pid`.
pub fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0)
}

/// Processes whose command line mentions `marker`, or that run in it (sources run in the
/// configuration's folder).
pub fn processes_mentioning(marker: &Path) -> usize {
    let marker = marker.to_string_lossy().to_string();
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let in_cmdline = std::fs::read(e.path().join("cmdline"))
                .map(|c| String::from_utf8_lossy(&c).replace('\0', " ").contains(&marker))
                .unwrap_or(false);
            let in_folder =
                std::fs::read_link(e.path().join("cwd")).is_ok_and(|d| d.to_string_lossy().starts_with(&marker));
            in_cmdline || in_folder
        })
        .count()
}
