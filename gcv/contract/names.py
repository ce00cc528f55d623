"""Names and units a person reads for the contract's fields.

JSON keeps its paths (``$.phases[1].pattern.bullets_per_wave``: tools read them); wherever a
person reads (the CLI's human output, the console, the report) a field is named by
:func:`field_label` ("Phase 2 · bullets per wave") and a value shown with its unit by
:func:`value_with_unit` ("595 ms", "2.34 units/s"). Phases are counted from 1, as designers
and the phase ids (``phase_2``) count them; a phase whose id is not ``phase_N`` for its
position also shows its id. The units are the contract's own (``gcv.contract.models``: speeds
in units per second, times in seconds unless the name says ``_ms``, angles in degrees).

Each function takes ``tr``, the words' translator of a caller that speaks another language
(the console passes its catalog's ``gettext``; the words of ``FIELDS`` and ``SECTIONS`` are in
its catalog): the default keeps them English.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

# field -> (words, unit); a field not listed is named from its key (underscores as spaces,
# the unit suffix taken off and shown as the unit)
FIELDS: dict[str, tuple[str, str | None]] = {
    "type": ("pattern", None),
    "bullets_per_wave": ("bullets per wave", None),
    "wave_interval_ms": ("wave interval", "ms"),
    "bullet_speed": ("bullet speed", "units/s"),
    "bullet_lifetime_seconds": ("bullet lifetime", "s"),
    "rotation_per_wave_deg": ("rotation per wave", "°"),
    "spread_angle_deg": ("spread angle", "°"),
    "layer_count": ("layers", None),
    "bidirectional": ("both directions", None),
    "trigger_boss_hp_below": ("starts below boss health", "ratio"),
    "title": ("title", None),
    "phase_id": ("id", None),
    "move_speed": ("move speed", "units/s"),
    "focus_multiplier": ("focus speed factor", None),
    "hit_radius": ("hit radius", "units"),
    "graze_radius": ("graze radius", "units"),
    "max_health": ("health", None),
    "invulnerability_seconds": ("invulnerability after a hit", "s"),
    "auto_fire_damage": ("damage per shot", None),
    "auto_fire_interval_seconds": ("time between shots", "s"),
    "duration_seconds": ("fight length", "s"),
    "arena_width": ("arena width", "units"),
    "arena_height": ("arena height", "units"),
    "max_alive_bullets": ("max alive bullets", None),
    "min_low_fps": ("min 1% low FPS", "FPS"),
    "max_player_hits": ("max player hits", None),
    "min_survival_seconds": ("min survival", "s"),
    "require_all_phases": ("every phase reached", None),
    "require_dodgeable": ("proven dodgeable", None),
}
SECTIONS = {"scenario": "Scenario", "player": "Player", "boss": "Boss", "limits": "Limits", "targets": "Targets"}
Words = Callable[[str], str]


def _same(text: str) -> str:
    return text


_SUFFIXES = (("_ms", "ms"), ("_seconds", "s"), ("_deg", "°"))
_PATH = re.compile(r"^\$?\.?(?P<rest>.*)$")
_PHASE = re.compile(r"^phases\[(?P<index>\d+|\*)\](?:\.(?P<rest>.*))?$")


def _words(key: str) -> tuple[str, str | None]:
    if key in FIELDS:
        return FIELDS[key]
    for suffix, unit in _SUFFIXES:
        if key.endswith(suffix):
            return key[: -len(suffix)].replace("_", " "), unit
    return key.replace("_", " "), None


def field_unit(path: str) -> str | None:
    """The unit of the field at ``path`` (``None`` for counts, flags and names)."""
    key = path.rsplit(".", 1)[-1]
    return _words(key)[1]


def phase_name(index: int, phase_ids: Sequence[str] | None = None, tr: Words = _same) -> str:
    """``Phase 2`` for index 1; with the phase's id when it is not ``phase_2``."""
    name = tr("Phase %(number)s") % {"number": index + 1}
    if phase_ids is not None and index < len(phase_ids) and phase_ids[index] != f"phase_{index + 1}":
        name += f" ({phase_ids[index]})"
    return name


def field_label(path: str, phase_ids: Sequence[str] | None = None, tr: Words = _same) -> str:
    """A JSON path of the contract as a person reads it:
    ``$.phases[1].pattern.bullets_per_wave`` -> ``Phase 2 · bullets per wave``,
    ``$.player.move_speed`` -> ``Player · move speed``. A path it does not know comes back as
    it is (never a wrong name)."""
    rest = _PATH.match(path.strip())
    text = rest["rest"] if rest else path
    phase = _PHASE.match(text)
    if phase is not None:
        inner = phase["rest"]
        # ``phases[*]``: a rule or an issue about the field in every phase
        head = tr("Every phase") if phase["index"] == "*" else phase_name(int(phase["index"]), phase_ids, tr)
        if not inner:
            return head
        key = inner.removeprefix("pattern.")
        if "." in key or "[" in key:
            return path
        return f"{head} · {tr(_words(key)[0])}"
    section, _, key = text.partition(".")
    if section in SECTIONS and key and "." not in key:
        return f"{tr(SECTIONS[section])} · {tr(_words(key)[0])}"
    if section in SECTIONS and key.startswith(("position.", "start_position.")):
        where, _, axis = key.partition(".")
        return f"{tr(SECTIONS[section])} · {tr(where.replace('_', ' '))} {axis}"
    if text == "name":
        return tr("Name")
    return path


_IN_TEXT = re.compile(r"\$\.[A-Za-z_][A-Za-z0-9_]*(?:\[(?:\d+|\*)\]|\.[A-Za-z_][A-Za-z0-9_]*)*")


def names_in(text: str, tr: Words = _same) -> str:
    """Every contract path in a sentence (a trace line, a trade-off's title) as its name:
    ``REDUCE_BULLET_SPEED on phase_2: $.phases[1].pattern.bullet_speed 3.6 -> 2.34`` reads
    ``... phase_2: Phase 2 · bullet speed 3.6 -> 2.34``; a path without a name stays."""
    return _IN_TEXT.sub(lambda m: field_label(m.group(0), tr=tr), text)


def value_with_unit(path: str, value: Any, tr: Words = _same) -> str:
    """``595`` at a ``wave_interval_ms`` path is ``595 ms``; flags are ``yes`` / ``no``."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return tr("yes") if value else tr("no")
    unit = field_unit(path)
    if isinstance(value, float):
        shown = f"{value:.6g}"
    else:
        shown = str(value)
    if unit is None or not isinstance(value, (int, float)):
        return shown
    if unit == "ratio":
        return f"{value * 100:.4g}%"
    return f"{shown}°" if unit == "°" else f"{shown} {tr(unit)}"



def figure_text(value: Any) -> str:
    """A figure as a comparison shows it: '-' for none, lower-case booleans, 4 significant digits."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def signed_text(value: Any) -> str:
    """A difference as a comparison shows it: '-' for none, '0', else signed to 4 digits."""
    return "-" if value is None else ("0" if value == 0 else f"{value:+.4g}")

__all__ = ["names_in", "figure_text", "signed_text", "field_label", "field_unit", "value_with_unit", "phase_name", "FIELDS"]
