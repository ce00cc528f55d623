"""What an engine's raw exit code says (engine_runners.exit_codes): a description for the
message, never the verdict."""

from __future__ import annotations

import pytest

from engine_runners.exit_codes import describe_exit


@pytest.mark.parametrize("code,windows,text,crash", [
    (None, False, "no exit code (the process was ended by the runner)", False),
    (0, False, "exit code 0", False),
    (-11, False, "killed by SIGSEGV", True),
    (-9, False, "killed by SIGKILL", True),
    (139, False, "exit code 139 (a shell's report of SIGSEGV)", True),
    (0xC0000005, True, "Windows STATUS_ACCESS_VIOLATION (0xC0000005)", True),
    (-1073741819, True, "Windows STATUS_ACCESS_VIOLATION (0xC0000005)", True),  # the same code, signed
    (0xC000013A, True, "Windows STATUS_CONTROL_C_EXIT (0xC000013A): interrupted", True),
    (0xC0001234, True, "Windows NTSTATUS error 0xC0001234", True),
    (3, True, "exit code 3 (also what abort() exits with on Windows)", True),
    (3, False, "exit code 3", False),
    (139, True, "exit code 139", False),  # no shell convention on Windows
])
def test_describe_exit(code: int | None, windows: bool, text: str, crash: bool) -> None:
    described = describe_exit(code, windows=windows)
    assert (described.code, described.text, described.crash) == (code, text, crash)
