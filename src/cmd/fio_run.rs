//! Runs a fio invocation's plan: lands with the multi-job session (replaced at merge).

/// Refuses until the session runs several jobs at once.
///
/// # Errors
/// Always, a usage error.
pub fn run(invocation: crate::fio::FioInvocation) -> anyhow::Result<std::process::ExitCode> {
    let _ = invocation;
    Err(crate::usage!(
        "running fio jobs lands with the multi-job session; use --parse-only or --showcmd"
    ))
}
