"""Terminal output escapes control characters taken from configs, requests, bundles and file
names: an ANSI escape, a carriage return, a bell or a bidirectional override in a phase title
or a config name is shown as text, never sent raw (docs/reliability.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Callable

from tests.hostile.conftest import BASELINE, Ran, baseline_data

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b[31m\r\u202e\x9b"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _no_raw_controls(ran: Ran) -> None:
    for stream, text in (("stdout", ran.stdout), ("stderr", ran.stderr)):
        found = RAW.findall(text)
        assert not found, f"raw control characters on {stream}: {found!r}\n{text[-1500:]!r}"


def _hostile_config(tmp_path: Path) -> Path:
    data = baseline_data()
    data["name"] = f"Shrine {HOSTILE}Trial"
    data["phases"][0]["title"] = f"Opening {HOSTILE}ring"
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(data))
    return path


def test_a_config_name_and_titles_are_escaped_in_sim_validate_and_diff(gcv: Callable[..., Ran],
                                                                       tmp_path: Path) -> None:
    config = _hostile_config(tmp_path)
    sim = gcv("sim", str(config)).clean(0)  # main: the name goes to the terminal raw
    _no_raw_controls(sim)
    assert "\\x1b]0;pwned\\x07" in sim.stdout  # shown, as text
    _no_raw_controls(gcv("validate", str(config)).clean(1))
    _no_raw_controls(gcv("diff", str(BASELINE), str(config)).clean(0))


def test_a_file_name_with_control_characters_is_escaped_in_the_error(gcv: Callable[..., Ran], tmp_path: Path) -> None:
    ran = gcv("validate", str(tmp_path / "no\x1b[2Jsuch\r.json")).clean(2)
    _no_raw_controls(ran)
    assert "\\x1b[2J" in ran.stderr


def test_a_request_with_control_characters_is_escaped(gcv: Callable[..., Ran]) -> None:
    ran = gcv("run", f"make phase 2 {HOSTILE} a denser spiral", "--yes", "--repair-scope", "fight").clean()
    _no_raw_controls(ran)
    listing = gcv("list").clean(0)
    _no_raw_controls(listing)


def test_json_output_carries_the_text_escaped_by_json(gcv: Callable[..., Ran], tmp_path: Path) -> None:
    ran = gcv("validate", str(_hostile_config(tmp_path)), "--json").clean(1)
    assert "\x1b" not in ran.stdout and "\\u001b" in ran.stdout  # JSON escapes controls itself
    actual = {e["path"]: e["actual"] for layer in ran.json()["layers"] for e in layer["errors"]}
    assert actual["$.name"] == f"Shrine {HOSTILE}Trial"  # the exact text, for machines
