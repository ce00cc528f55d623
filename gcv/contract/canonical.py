"""Canonical JSON and content hashes.

Canonical form: UTF-8, keys sorted, no insignificant whitespace, numbers in the shortest
round-trip form written the way ECMAScript (and RFC 8785) writes them, so ``3.0`` and
``3`` hash the same and ``1e-06`` is written ``0.000001``. Every config, program and
artifact is named by the sha256 of this form.
"""

from __future__ import annotations

import hashlib
import json
import math
from decimal import Decimal
from typing import Any

from pydantic import BaseModel


def _number(value: float) -> str:
    if not math.isfinite(value):
        raise ValueError("NaN and Infinity have no canonical JSON form")
    if value == 0:
        return "0"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    sign, digits, exponent = Decimal(repr(value)).as_tuple()
    assert isinstance(exponent, int)
    text = "".join(map(str, digits)).rstrip("0") or "0"
    exponent += len("".join(map(str, digits))) - len(text)
    k, n = len(text), exponent + len(text)  # value = 0.text * 10^n
    if k <= n <= 21:
        out = text + "0" * (n - k)
    elif 0 < n <= 21:
        out = text[:n] + "." + text[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + text
    else:
        e = n - 1
        mant = text[0] + ("." + text[1:] if k > 1 else "")
        out = f"{mant}e{'+' if e > 0 else '-'}{abs(e)}"
    return ("-" if sign else "") + out


def _encode(value: Any, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        out.append(_number(value))
    elif isinstance(value, str):
        out.append(json.dumps(value, ensure_ascii=False))
    elif isinstance(value, dict):
        out.append("{")
        for i, key in enumerate(sorted(value)):
            if not isinstance(key, str):
                raise TypeError(f"object keys must be strings, got {type(key).__name__}")
            if i:
                out.append(",")
            out.append(json.dumps(key, ensure_ascii=False))
            out.append(":")
            _encode(value[key], out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _encode(item, out)
        out.append("]")
    else:
        raise TypeError(f"cannot encode {type(value).__name__} as canonical JSON")


def to_plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return value


def canonical_json(value: Any) -> str:
    out: list[str] = []
    _encode(to_plain(value), out)
    return "".join(out)


def canonical_bytes(value: Any) -> bytes:
    return canonical_json(value).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def content_hash(value: Any) -> str:
    """sha256 of the canonical JSON of ``value`` (a model or plain JSON data)."""
    return sha256_hex(canonical_bytes(value))


def config_hash(config: Any) -> str:
    return content_hash(config)
