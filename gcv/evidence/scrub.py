"""What must never leave the machine: secrets, and the machine's own paths.

A bundle is meant to be mailed to a reviewer, attached to a ticket, archived. It must not
carry an API key, a signing secret, the operator's home directory or the workspace's
absolute location. The scrubber works on text (and on JSON values, string by string):

* the value of every environment variable whose *name* looks secret (``*KEY*``,
  ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``, ...; values shorter than 8 characters are
  ignored, they would match everywhere) becomes ``[redacted:NAME]``;
* absolute paths of the workflow directory, the workspace, the source tree, the Python
  prefix, the working directory and ``$HOME`` become relative forms or placeholders
  (``runs/...``, ``$GCV_HOME``, ``$GCV_SRC``, ``$PYTHON``, ``$CWD``, ``~``), longest first so
  nested paths keep their most specific name.

``leaks(data)`` is the last line of defence: the exporter refuses to write a bundle in
which any of those values still occurs, in any file, binary or not.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSW(OR)?D|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE)", re.I)
MIN_SECRET_LENGTH = 8
# Environment variables that hold secrets even though their names do not say so.
ALWAYS_SECRET = ("GCV_SIGNING_KEY_HMAC",)


def _forms(path: Path | str) -> list[str]:
    """The spellings of a path that may appear in text: as given and fully resolved."""
    out = {str(path).rstrip("/")}
    try:
        out.add(str(Path(path).resolve()).rstrip("/"))
    except (OSError, RuntimeError):
        pass
    return [p for p in out if len(p) > 1]


class Scrubber:
    def __init__(self, *, workflow_root: Path | None = None, workspace_root: Path | None = None,
                 environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        self.secrets: list[tuple[str, str]] = []
        for name, value in sorted(env.items()):
            if (SECRET_NAME.search(name) or name in ALWAYS_SECRET) and len(value) >= MIN_SECRET_LENGTH:
                self.secrets.append((value, f"[redacted:{name}]"))
        paths: list[tuple[str, str]] = []
        if workflow_root is not None:
            for form in _forms(workflow_root):
                paths.append((form + "/", ""))
                paths.append((form, "."))
        if workspace_root is not None:
            paths += [(form, "$GCV_HOME") for form in _forms(workspace_root)]
        src = Path(__file__).resolve().parents[2]
        paths += [(form, "$GCV_SRC") for form in _forms(src)]
        paths += [(form, "$PYTHON") for form in _forms(sys.prefix)]
        try:
            paths += [(form, "$CWD") for form in _forms(Path.cwd())]
        except OSError:
            pass
        home = env.get("HOME") or str(Path.home())
        paths += [(form, "~") for form in _forms(home)]
        # longest first: a path inside the workspace keeps the workspace's name, not "~"
        self.paths = sorted(set(paths), key=lambda p: (-len(p[0]), p[0], p[1]))
        self.replaced: dict[str, int] = {}

    def text(self, value: str) -> str:
        for secret, mark in self.secrets:
            if secret in value:
                self.replaced[mark] = self.replaced.get(mark, 0) + value.count(secret)
                value = value.replace(secret, mark)
        for path, mark in self.paths:
            if path in value:
                self.replaced["absolute path"] = self.replaced.get("absolute path", 0) + value.count(path)
                value = value.replace(path, mark)
        return value

    def value(self, obj: Any) -> Any:
        """The same JSON value with every string (keys included) scrubbed."""
        if isinstance(obj, str):
            return self.text(obj)
        if isinstance(obj, dict):
            return {self.text(k): self.value(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self.value(v) for v in obj]
        return obj

    def leaks(self, data: bytes) -> list[str]:
        """Which sensitive values still occur in ``data`` (names only, never the values)."""
        found = []
        for secret, mark in self.secrets:
            if secret.encode("utf-8") in data:
                found.append(mark)
        for path, mark in self.paths:
            if mark == "" or mark == ".":
                needle = path.rstrip("/")
            else:
                needle = path
            # a path followed by a separator or a quote is the path itself, not a prefix of a word
            if re.search(re.escape(needle.encode("utf-8")) + rb"(?=[/\"'\s\\]|$)", data):
                found.append(f"absolute path ({mark or 'workflow'})")
        return found
