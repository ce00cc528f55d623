"""Read contract documents from disk, strictly, and say exactly where a file is broken.

Why stricter than ``json.load``: Python's parser accepts ``NaN``/``Infinity`` tokens, turns
``1e400`` into ``inf`` and silently keeps the last of two duplicate keys. None of these is
JSON that an engine, a C# or C++ port or a reviewer's script would read the same way, so
each is refused here with the file, the line/column and (when known) the JSON path.
Integers too large for a double are refused for the same reason. Lone UTF-16 surrogate
escapes (``"\\ud800"``) are refused because they are not Unicode text.

A UTF-8 byte order mark is tolerated (editors on Windows write one); any other byte that is
not UTF-8 is refused with its byte offset.
"""

from __future__ import annotations

import json
import json.decoder
import math
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from gcv.contract.environment import BASELINE_ENV
from gcv.contract.goal import Goal
from gcv.contract.models import BulletHellConfig

# CPython's JSON string scanner (used by the duplicate-key pass below); typeshed's json.decoder
# declares only JSONDecoder and JSONDecodeError, so the name is typed here by hand.
scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]

DEFAULT_BASELINE = Path("artifacts") / "baselines" / "shrine_trial.json"
_BOM = b"\xef\xbb\xbf"

_MiB = 1 << 20
# The largest file GCV reads for each kind of input (bytes). One table, stated in
# docs/reliability.md: a bigger file is refused before it is read, so a 1 GiB file (or
# /dev/zero) costs nothing. Each cap is far above any real document of its kind.
INPUT_CAPS: dict[str, int] = {
    "config": 16 * _MiB,        # a valid config is a few KB (at most 6 phases)
    "goal": 1 * _MiB,
    "inputs trace": 8 * _MiB,   # one run per input change; a 10-minute fight is well under 1 MiB
    "request set": 16 * _MiB,   # per .jsonl file
    "recording": 64 * _MiB,     # eval-requests --provider replay:PATH
    "batch spec": 1 * _MiB,
    "batch result": 64 * _MiB,  # gcv compare: a batch's summary.json
    "users": 1 * _MiB,          # gcv serve --users
    "telemetry": 32 * _MiB,     # written by an engine; a real one is tens of KB
    "bundle": 272 * _MiB,       # a zip: the reader's 256 MiB content limit plus zip overhead
}


class GcvInputError(Exception):
    """A file that cannot be used as input: unreadable, not strict JSON, or not a contract.

    ``file`` names the input (a path, or a role such as ``baseline`` for in-memory data),
    ``message`` says what is wrong and where, ``path_in_doc`` is a JSON path when known.
    """

    def __init__(self, file: str, message: str, path_in_doc: str | None = None) -> None:
        self.file = str(file)
        self.message = message
        self.path_in_doc = path_in_doc
        where = f" (at {path_in_doc})" if path_in_doc else ""
        super().__init__(f"{self.file}: {message}{where}")

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "message": self.message, "path_in_doc": self.path_in_doc}


class _Refused(ValueError):
    """Raised from a json hook; located afterwards by ``_locate``."""

    def __init__(self, kind: str, token: str = "") -> None:
        super().__init__(kind)
        self.kind = kind
        self.token = token


def _parse_constant(token: str) -> Any:
    raise _Refused("constant", token)


def _parse_float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise _Refused("overflow", token)
    return value


def _parse_int(token: str) -> int:
    value = int(token)
    try:
        float(value)
    except OverflowError:
        raise _Refused("overflow", token) from None
    return value


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Refused("duplicate", key)
        out[key] = value
    return out


def _has_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(v) for v in value)
    return False


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return line, col


def json_path(parts: list[str | int] | tuple[str | int, ...]) -> str:
    """``["phases", 1, "pattern"]`` -> ``$.phases[1].pattern`` (odd keys are quoted)."""
    out = "$"
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part):
            out += f".{part}"
        else:
            out += "[" + json.dumps(part, ensure_ascii=False) + "]"
    return out


_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_CONSTANT = re.compile(r"-?Infinity|NaN")


def _locate(text: str) -> tuple[int, list[str | int], str, str] | None:
    """Find the first refused token: (position, JSON path, kind, token).

    Only called after the parser refused something, so the text is valid JSON up to that
    point; this walks it with the same tokenization and tracks the path.
    """
    stack: list[dict[str, Any]] = []  # frames: {"kind": "obj"|"arr", "keys": set, "key"/"index"}
    path: list[str | int] = []
    pos, n = 0, len(text)
    expect_key = False
    while pos < n:
        ch = text[pos]
        if ch in " \t\r\n,:":
            if ch == "," and stack:
                frame = stack[-1]
                if frame["kind"] == "obj":
                    expect_key = True
                    if path:
                        path.pop()
                else:
                    frame["index"] += 1
                    path[-1] = frame["index"]
            pos += 1
            continue
        if ch == "{":
            stack.append({"kind": "obj", "keys": set()})
            expect_key = True
            pos += 1
            continue
        if ch == "[":
            stack.append({"kind": "arr", "index": 0})
            path.append(0)
            expect_key = False
            pos += 1
            continue
        if ch in "}]":
            frame = stack.pop()
            if frame["kind"] == "arr" or frame["keys"]:
                if path:
                    path.pop()
            expect_key = False
            pos += 1
            continue
        if ch == '"':
            try:
                value, end = scanstring(text, pos + 1)
            except ValueError:
                return None
            if expect_key and stack and stack[-1]["kind"] == "obj":
                frame = stack[-1]
                path.append(value)
                if value in frame["keys"]:
                    return pos, list(path), "duplicate", value
                frame["keys"].add(value)
                expect_key = False
            pos = end
            continue
        match = _CONSTANT.match(text, pos)
        if match:
            return pos, list(path), "constant", match.group()
        match = _NUMBER.match(text, pos)
        if match:
            token = match.group()
            try:
                _parse_float(token) if any(c in token for c in ".eE") else _parse_int(token)
            except _Refused:
                return pos, list(path), "overflow", token
            except ValueError:
                return pos, list(path), "overflow", token
            pos = match.end()
            continue
        for literal in ("true", "false", "null"):
            if text.startswith(literal, pos):
                pos += len(literal)
                break
        else:
            return None
    return None


def _describe(kind: str, token: str) -> str:
    if kind == "constant":
        return (f"'{token}' is not a JSON number (NaN and Infinity are not allowed; "
                "write a finite number)")
    if kind == "overflow":
        shown = token if len(token) <= 40 else token[:37] + "..."
        return f"number {shown} is too large for a 64-bit float (it would become Infinity)"
    if kind == "duplicate":
        return f"duplicate key {json.dumps(token, ensure_ascii=False)} (each key may appear once per object)"
    return kind


def parse_json_text(text: str, file: str) -> Any:
    """Strictly parse JSON text; raise ``GcvInputError`` naming ``file`` and the place."""
    try:
        data = json.loads(text, parse_constant=_parse_constant, parse_float=_parse_float,
                          parse_int=_parse_int, object_pairs_hook=_pairs)
    except json.JSONDecodeError as exc:
        raise GcvInputError(file, f"not valid JSON: {exc.msg} at line {exc.lineno}, "
                                  f"column {exc.colno}") from None
    except (_Refused, ValueError, RecursionError) as exc:
        kind = exc.kind if isinstance(exc, _Refused) else "invalid"
        token = exc.token if isinstance(exc, _Refused) else ""
        located = _locate(text) if not isinstance(exc, RecursionError) else None
        if located is not None:
            pos, parts, kind, token = located
            line, col = _line_col(text, pos)
            raise GcvInputError(file, f"{_describe(kind, token)} at line {line}, column {col}",
                                json_path(parts)) from None
        if kind in ("constant", "overflow", "duplicate"):
            raise GcvInputError(file, _describe(kind, token)) from None
        if isinstance(exc, RecursionError):
            raise GcvInputError(file, "not valid JSON: nested too deeply") from None
        raise GcvInputError(file, f"not valid JSON: {exc}") from None
    if _has_lone_surrogate(data):
        raise GcvInputError(file, "contains a lone UTF-16 surrogate escape (such as \\ud800); "
                                  "strings must be valid Unicode")
    return data


_SPECIAL = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
            (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _not_regular(mode: int) -> str | None:
    if stat.S_ISDIR(mode):
        return "is a directory, expected a file"
    if stat.S_ISREG(mode):
        return None
    what = next((label for test, label in _SPECIAL if test(mode)), "not a regular file")
    return f"is {what}, not a regular file; GCV reads only regular files"


def _size(n: int) -> str:
    return f"{n / _MiB:.1f} MiB" if n >= _MiB else f"{n} bytes"


def input_cap(kind: str) -> int:
    """The size cap of one kind of input (``INPUT_CAPS``); KeyError names the known kinds."""
    try:
        return INPUT_CAPS[kind]
    except KeyError:
        raise KeyError(f"unknown input kind {kind!r}; known: {', '.join(INPUT_CAPS)}") from None


def check_input_file(path: str | os.PathLike[str], kind: str) -> int:
    """Stat ``path`` without opening it: a regular file under the cap of ``kind``.

    Returns its size; raises ``GcvInputError`` for a missing file, a directory, a FIFO, a
    device, a socket or a file over the cap. Nothing is opened, so a FIFO cannot block.
    """
    name = str(path)
    cap = input_cap(kind)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise GcvInputError(name, "file not found") from None
    except PermissionError:
        raise GcvInputError(name, "permission denied") from None
    except (OSError, ValueError) as exc:  # ENOTDIR, ELOOP, ENAMETOOLONG, an embedded NUL
        raise GcvInputError(name, f"cannot read file: {getattr(exc, 'strerror', None) or exc}") from None
    why = _not_regular(st.st_mode)
    if why:
        raise GcvInputError(name, why)
    if st.st_size > cap:
        raise GcvInputError(name, f"is {_size(st.st_size)}; a {kind} file may be at most {_size(cap)}")
    return st.st_size


def read_input_bytes(path: str | os.PathLike[str], kind: str) -> bytes:
    """The bytes of one input file: a regular file under the cap of ``kind`` (``INPUT_CAPS``).

    Checked by ``stat`` before opening; opened with ``O_NONBLOCK`` (a FIFO swapped in after
    the check cannot block) and checked again on the open descriptor; never reads more than
    the cap plus one byte (a file that grows meanwhile is refused). Every failure is a
    ``GcvInputError`` naming the file.
    """
    name = str(path)
    cap = input_cap(kind)
    check_input_file(path, kind)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except PermissionError:
        raise GcvInputError(name, "permission denied") from None
    except OSError as exc:
        raise GcvInputError(name, f"cannot read file: {exc.strerror or exc}") from None
    try:
        why = _not_regular(os.fstat(fd).st_mode)
        if why:
            raise GcvInputError(name, why)
        chunks: list[bytes] = []
        total = 0
        while total <= cap:
            chunk = os.read(fd, min(1 << 20, cap + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise GcvInputError(name, f"cannot read file: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if total > cap:
        raise GcvInputError(name, f"is larger than {_size(cap)}, the most a {kind} file may be")
    return b"".join(chunks)


def decode_utf8(raw: bytes, file: str) -> str:
    """UTF-8 text (a leading byte order mark is dropped); ``GcvInputError`` names the bad byte."""
    skip = len(_BOM) if raw.startswith(_BOM) else 0
    try:
        return raw[skip:].decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start + skip
        raise GcvInputError(file, f"not UTF-8 text: byte 0x{raw[offset]:02x} at byte offset "
                                  f"{offset} cannot be decoded") from None


def read_input_text(path: str | os.PathLike[str], kind: str) -> str:
    """``read_input_bytes`` decoded as UTF-8."""
    return decode_utf8(read_input_bytes(path, kind), str(path))


def load_json_file(path: str | os.PathLike[str], kind: str = "config") -> Any:
    """Read one strict-JSON file. Every failure is a ``GcvInputError``, never a traceback."""
    return parse_json_text(read_input_text(path, kind), str(path))


def json_kind(value: Any) -> str:
    """How a JSON value reads in a message: "an array", "a string", "null"..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return {dict: "an object", list: "an array", str: "a string", int: "a number",
            float: "a number"}.get(type(value), type(value).__name__)


def model_error(file: str, exc: ValidationError) -> GcvInputError:
    """Turn a pydantic error into one readable input error (first problem, count of others)."""
    errors = exc.errors(include_url=False)
    first = errors[0]
    loc = [part for part in first["loc"] if isinstance(part, (str, int))]
    more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
    return GcvInputError(file, f"{first['msg']}{more}", json_path(loc))


_M = TypeVar("_M", bound=BaseModel)


def _load_model(path: str | os.PathLike[str], model: type[_M], kind: str) -> _M:
    data = load_json_file(path, kind)
    if not isinstance(data, dict):
        raise GcvInputError(str(path), f"expected a JSON object, found {json_kind(data)}", "$")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise model_error(str(path), exc) from None


def load_config(path: str | os.PathLike[str]) -> BulletHellConfig:
    """A ``gcv.bullet_hell/1`` config that passes the field-level schema."""
    return _load_model(path, BulletHellConfig, "config")


def load_goal(path: str | os.PathLike[str]) -> Goal:
    """A structured goal (``gcv.goal/1``)."""
    return _load_model(path, Goal, "goal")


def find_repo_root(start: str | os.PathLike[str] | None = None) -> Path | None:
    """The directory holding ``artifacts/`` above the installed ``gcv`` package (or ``start``)."""
    here = Path(start) if start is not None else Path(__file__).resolve().parent
    for candidate in (here, *here.parents):
        if (candidate / "artifacts").is_dir() and (candidate / "gcv").is_dir():
            return candidate
    for candidate in (here, *here.parents):
        if (candidate / "artifacts").is_dir():
            return candidate
    return None


def default_baseline_path() -> Path:
    """``$GCV_BASELINE`` if set, else the committed baseline of the repository."""
    env = os.environ.get(BASELINE_ENV)
    if env:
        return Path(env)
    root = find_repo_root()
    return (root / DEFAULT_BASELINE) if root is not None else DEFAULT_BASELINE
