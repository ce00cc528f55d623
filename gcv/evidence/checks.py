"""Named checks: the shape every verify and replay check shares.

A check returns ``(message, problems)``; no problems is a pass, ``Skip`` means it does not
apply, and any exception while checking an untrusted bundle is a failure that names it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gcv.contract.canonical import canonical_json


@dataclass
class CheckResult:
    name: str
    status: str  # "passed" | "failed" | "skipped"
    message: str
    details: list[str] = field(default_factory=list)

    @property
    def group(self) -> str:
        return self.name.split(".", 1)[0]


class Skip(Exception):
    """Raised by a check that does not apply (status "skipped")."""


Outcome = tuple[str, list[str]]


def run_check(name: str, fn: Callable[[], Outcome]) -> CheckResult:
    """One named check; a bundle is untrusted, so any error while checking is a failure."""
    try:
        message, problems = fn()
    except Skip as exc:
        return CheckResult(name, "skipped", str(exc))
    except Exception as exc:  # noqa: BLE001 - malformed input may break any assumption
        return CheckResult(name, "failed", f"could not be checked: {type(exc).__name__}: {exc}")
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return CheckResult(name, "failed", problems[0] + more, problems)
    return CheckResult(name, "passed", message)


def first_difference(recorded: Any, other: Any, path: str = "$") -> str | None:
    """Where two JSON values first differ, as 'path: recorded X, got Y' (None when equal)."""
    if isinstance(recorded, dict) and isinstance(other, dict):
        for key in sorted(set(recorded) | set(other)):
            if key not in recorded:
                return f"{path}.{key}: not recorded, got {short(other[key])}"
            if key not in other:
                return f"{path}.{key}: recorded {short(recorded[key])}, missing"
            found = first_difference(recorded[key], other[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(other, list):
        for i, (a, b) in enumerate(zip(recorded, other)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
        if len(recorded) != len(other):
            return f"{path}: recorded {len(recorded)} items, got {len(other)}"
        return None
    if canonical_json(recorded) != canonical_json(other):
        return f"{path}: recorded {short(recorded)}, got {short(other)}"
    return None


def short(value: Any) -> str:
    text = canonical_json(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


__all__ = ["CheckResult", "Outcome", "Skip", "run_check", "first_difference", "short"]
