"""What an engine's raw exit code can and cannot tell: a description, never a verdict.

A run's result is decided from what the engine *said* (the handshake, ``GCV-DONE`` or
``GCV-ERROR``, and schema-valid telemetry), never from the exit code alone, because the
code lies on real build machines:

* UE's graceful exit (``FPlatformMisc::RequestExitWithStatus``) drops the code on Windows,
  and a UE start-up failure exits 1, which is also our ``INTERNAL_ERROR``;
* ``abort()`` in an MSVC build exits 3, which is also our ``HASH_MISMATCH``;
* Unity exits 0 after some failures (a licence error in batch mode, for example);
* a POSIX process killed by a signal has a negative ``returncode`` in Python.

:func:`describe_exit` names the code for a person ("signal SIGSEGV", "Windows
STATUS_ACCESS_VIOLATION (0xC0000005)") and says whether it looks like a crash; the
runner uses it only to word the message of a run that already failed.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass

# NTSTATUS values a crashing Windows process exits with (as an unsigned 32-bit code).
WINDOWS_CRASH_CODES: dict[int, str] = {
    0xC0000005: "STATUS_ACCESS_VIOLATION",
    0xC000001D: "STATUS_ILLEGAL_INSTRUCTION",
    0xC0000094: "STATUS_INTEGER_DIVIDE_BY_ZERO",
    0xC00000FD: "STATUS_STACK_OVERFLOW",
    0xC0000135: "STATUS_DLL_NOT_FOUND",
    0xC0000139: "STATUS_ENTRYPOINT_NOT_FOUND",
    0xC0000142: "STATUS_DLL_INIT_FAILED",
    0xC0000374: "STATUS_HEAP_CORRUPTION",
    0xC0000409: "STATUS_STACK_BUFFER_OVERRUN (fail-fast)",
    0xC0000417: "STATUS_INVALID_CRUNTIME_PARAMETER",
    0x80000003: "STATUS_BREAKPOINT",
    0xE06D7363: "unhandled C++ exception",
}
WINDOWS_CTRL_C_EXIT = 0xC000013A
MSVC_ABORT_CODE = 3


@dataclass(frozen=True)
class ExitDescription:
    code: int | None
    text: str
    crash: bool  # the code itself says the process died abnormally


def describe_exit(code: int | None, *, windows: bool = False) -> ExitDescription:
    """Name an exit code for a message. ``windows`` selects the Windows reading of ``code``."""
    if code is None:
        return ExitDescription(None, "no exit code (the process was ended by the runner)", False)
    if code < 0 and not windows:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return ExitDescription(code, f"killed by {name}", True)
    unsigned = code & 0xFFFFFFFF
    if windows or unsigned >= 0x80000000:
        if unsigned in WINDOWS_CRASH_CODES:
            return ExitDescription(code, f"Windows {WINDOWS_CRASH_CODES[unsigned]} (0x{unsigned:08X})", True)
        if unsigned == WINDOWS_CTRL_C_EXIT:
            return ExitDescription(code, "Windows STATUS_CONTROL_C_EXIT (0xC000013A): interrupted", True)
        if unsigned >= 0xC0000000:
            return ExitDescription(code, f"Windows NTSTATUS error 0x{unsigned:08X}", True)
        if windows and code == MSVC_ABORT_CODE:
            return ExitDescription(code, "exit code 3 (also what abort() exits with on Windows)", True)
    if not windows and 128 < code < 128 + 65:
        try:
            name = signal.Signals(code - 128).name
        except ValueError:
            name = f"signal {code - 128}"
        return ExitDescription(code, f"exit code {code} (a shell's report of {name})", True)
    return ExitDescription(code, f"exit code {code}", False)
