//! Peak resident memory of this process, shared by the examples that report it.

/// Peak resident set size of this process in KiB (Linux VmHWM: since the
/// program started, not counting the memory of the process that started it).
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
