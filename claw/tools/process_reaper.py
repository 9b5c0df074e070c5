"""The launcher of an unsandboxed `exec` command: a subreaper that lets nothing the command started outlive it.

Run as a script, `python -I -S process_reaper.py TERM_GRACE QUICK_GRACE PARENT_PID [-u NAME]... [-s SPEC]
-- ARGV...` (standard library only, so it starts without claw on its path; `-u NAME` drops a variable that
Python's start-up added to the environment the command is to get; `-s SPEC` is what the command starts
with: its umask, resource limits and cgroup, see `apply_spec` and claw/tools/exec_limits.py).

A process group is not enough: `setsid` and `nohup … &` leave the group, and a killed shell's children
are re-parented to PID 1. As a child subreaper (`PR_SET_CHILD_SUBREAPER`) this process becomes the parent
of every orphan below it, so the tree under it is the command's whole tree, whatever sessions or groups its
members moved to. It then:

- waits for the command (ARGV) and reaps every orphan that ends meanwhile;
- when the command exits, ends what is left of the tree (SIGTERM, TERM_GRACE seconds, then SIGKILL until
  no child remains) and exits with the command's status (dying of the same signal, if it was killed);
- on SIGTERM (the gateway's timeout) does the same at once, without waiting for the command;
- on SIGINT or SIGHUP (an abort), and on its parent's death (`PR_SET_PDEATHSIG` sends SIGINT: the
  gateway was killed, even with SIGKILL), likewise, with QUICK_GRACE.

The process-table helpers at the bottom are also what `claw.tools.exec_records` uses to recognise a
process by its start time.
"""

from __future__ import annotations

# `_signal` and (in _prctl) `_ctypes` are the C modules behind `signal` and `ctypes`: the Python halves
# build enums and classes at import, which costs more than this whole process otherwise does (it starts
# for every unsandboxed command). Same functions; signals are plain ints.
import _signal as signal
import os
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
WAKE_SIGNALS = {signal.SIGCHLD, *STOP_SIGNALS}
DEFAULT_IN_CHILD = (signal.SIGPIPE, signal.SIGXFSZ)
"""Python ignores these; `subprocess` resets them for a child, and so must this."""
POLL_SECONDS = 0.01


def main(argv: list[str]) -> int:
    term_grace, quick_grace, parent = float(argv[0]), float(argv[1]), int(argv[2])
    split = argv.index("--")
    options = list(zip(argv[3:split:2], argv[4:split:2], strict=True))
    unset = {value for option, value in options if option == "-u"}  # what this interpreter added (PEP 538)
    spec = next((value for option, value in options if option == "-s"), "")
    command = argv[split + 1 :]
    env = {name: value for name, value in os.environ.items() if name not in unset}
    # Blocked, and taken with sigwaitinfo: no handler can interrupt the clean-up half-way, and a child's exit
    # wakes the wait at once (no polling, so a quick command costs no latency).
    signal.pthread_sigmask(signal.SIG_BLOCK, WAKE_SIGNALS)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_PDEATHSIG, signal.SIGINT)
    status: int | None = None
    child, grace = -1, quick_grace
    if os.getppid() == parent:  # else the gateway died before PR_SET_PDEATHSIG was in place
        child = _spawn(command, env, spec)
        _detach_output()
        status, stopped_by = _wait_for(child)
        grace = term_grace if stopped_by in (None, signal.SIGTERM) else quick_grace
    return _exit_like(end_tree(grace, status, child))


def _spawn(command: list[str], env: dict[str, str], spec: str) -> int:
    """Fork and exec `command` with default signal dispositions, nothing blocked and `spec` applied. (Not
    posix_spawn: glibc's leaves its two internal real-time signals ignored in the child, which `subprocess`
    does not.)"""
    pid = os.fork()
    if pid == 0:
        try:
            for sig in DEFAULT_IN_CHILD:
                signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, ())
            try:
                apply_spec(spec)
            except (OSError, ValueError) as exc:
                os.write(2, f"exec: cannot apply the command's limits ({spec}): {exc}\n".encode())
                os._exit(126)
            os.execvpe(command[0], command, env)
        except OSError as exc:
            os.write(2, f"exec: cannot run {command[0]}: {exc.strerror}\n".encode())
        os._exit(127)
    return pid


def apply_spec(spec: str) -> None:
    """Apply `umask=OCTAL`, `cgroup=PATH` (join it: PATH is its cgroup.procs) and `RLIMIT_X=SOFT:HARD` items,
    comma-separated, to this process; what it then runs inherits them all. Also run by the gateway in the
    child it forks for bwrap, before the exec: system calls only, and `resource` imported beforehand."""
    import resource

    for item in filter(None, spec.split(",")):
        name, _, value = item.partition("=")
        if name == "umask":
            os.umask(int(value, 8))
        elif name == "cgroup":
            with open(value, "w") as procs:
                procs.write("0")  # 0: the writer itself
        else:
            soft, _, hard = value.partition(":")
            resource.setrlimit(getattr(resource, name), (int(soft), int(hard)))


def end_tree(grace: float, status: int | None, child: int) -> int | None:
    """SIGTERM every descendant, wait up to `grace` seconds, then SIGKILL until no child is left to reap.
    Returns the wait status of `child` (as collected here, or `status` if it was collected before).

    Having no child means having no descendant: an orphan becomes this subreaper's child."""
    status = _reap(child, status)
    if not _has_children():
        return status
    for pid in descendants(os.getpid()):
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        time.sleep(POLL_SECONDS)
        status = _reap(child, status)
        if not _has_children():
            return status
    while True:  # a member that forks while being killed leaves an orphan, which becomes ours: go round again
        for pid in descendants(os.getpid()):
            _signal(pid, signal.SIGKILL)
        time.sleep(POLL_SECONDS)
        status = _reap(child, status)
        if not _has_children():
            return status


def _has_children() -> bool:
    """Whether any child, running or ended, is still to be reaped (without reaping it)."""
    try:
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return False
    return True


def _wait_for(child: int) -> tuple[int | None, int | None]:
    """Reap children (orphans included) until `child` ends (its wait status, None) or a stop signal comes
    (None, the signal)."""
    while True:
        status = _reap(child, None)
        if status is not None:
            return status, None
        signo = signal.sigwaitinfo(WAKE_SIGNALS).si_signo
        if signo != signal.SIGCHLD:
            return None, signo


def _reap(child: int, status: int | None) -> int | None:
    """Collect every child that has ended; the status of `child` if it was one of them."""
    while True:
        try:
            pid, found = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return status
        if pid == 0:
            return status
        if pid == child:
            status = found


def _exit_like(status: int | None) -> int:
    """Exit as the command did: its exit code, or death by its signal (so the gateway reports the signal)."""
    if status is None:
        return 128 + signal.SIGTERM
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig not in (signal.SIGKILL, signal.SIGSTOP):  # those two have no handler to reset
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})  # delivered here: this process ends
        return 128 + sig
    return os.waitstatus_to_exitcode(status)


def _detach_output() -> None:
    """Let go of the command's output pipe, so that it closes when the command's tree is gone."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)


def _prctl(option: int, value: int) -> None:
    """prctl(2) through libc, found and called with `_ctypes`' own primitives (what `ctypes.CDLL` wraps)."""
    import _ctypes

    # None: the program itself, as in `ctypes.CDLL(None)`; typeshed types the name as a str only.
    libc = _ctypes.dlopen(None, _ctypes.RTLD_LOCAL)  # type: ignore[arg-type]
    if _ctypes.call_function(_ctypes.dlsym(libc, "prctl"), (option, value, 0, 0, 0)) != 0:
        raise OSError(f"prctl({option}, {value}) failed: this kernel cannot keep the command's tree together")


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


# --- the process table (procfs) ---


def proc_stat(pid: int) -> list[bytes] | None:
    """The fields of /proc/PID/stat after the command name (state, ppid, pgrp, session, …), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            raw = handle.read()
    except OSError:
        return None
    return raw[raw.rfind(b")") + 2 :].split()


def start_time(pid: int) -> int | None:
    """When `pid` started, in clock ticks since boot: with the pid, it names one process for good."""
    fields = proc_stat(pid)
    return int(fields[19]) if fields and len(fields) > 19 else None


def all_pids() -> list[int]:
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]


def descendants(root: int) -> list[int]:
    """Every process below `root` in the process tree (by parent pid), nearest first."""
    children: dict[int, list[int]] = {}
    for pid in all_pids():
        fields = proc_stat(pid)
        if fields and len(fields) > 1:
            children.setdefault(int(fields[1]), []).append(pid)
    found, queue = [], list(children.get(root, ()))
    while queue:
        pid = queue.pop(0)
        found.append(pid)
        queue.extend(children.get(pid, ()))
    return found


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
