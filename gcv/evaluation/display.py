"""What a person reads of a check and a run: ticks with seconds, thresholds with units, and
survival never longer than the fight.

One helper for the CLI's human output, the evidence report and the console; JSON (``--json``,
the API, the stored evaluation) keeps the raw figures. Why survival needs the telemetry: the
simulator records ``survival_ticks`` as the fight's full ``duration_ticks`` when the run
completes, also when the boss died a few ticks before the end (``ticks`` 2155 of 2160). That
figure is the contract (three cores and the golden vectors hold it), so it stays in the data;
a person reads at most the ticks the fight lasted, and "the whole fight" when it completed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeGuard

from gcv.evaluation.models import Check

Words = Callable[[str], str]  # a caller's translator of these words (the console's catalog has them)


def _same(text: str) -> str:
    return text


# The simulation's fixed rate (``gcv.sim.fixed.TICK_HZ``, docs/simulation.md), spelt here so that
# reading a workflow (``gcv status``) imports no simulator; tests/evaluation/test_display.py holds
# the two equal.
TICK_HZ: Final = 60

# a check's name -> the unit of its expected and actual figures (survival is in ticks, below)
CHECK_UNITS: dict[str, str] = {
    "peak_alive_bullets": "bullets",
    "player_hits": "hits",
    "low_fps": "FPS",
    "phase_coverage": "phases",
    "intent.spawn_rate": "bullets/s",
    "intent.mean_alive": "bullets alive",
}
TICK_CHECKS = frozenset({"survival"})
END_WORDS = {"boss_defeated": "boss defeated", "time_up": "time up", "player_died": "player died"}


def _number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def seconds_text(ticks: int | float, tr: Words = _same) -> str:
    """Ticks at the simulation's fixed rate as seconds a person reads: 2155 -> ``35.9 s``."""
    return f"{ticks / TICK_HZ:.1f} {tr('s')}"


def ticks_text(ticks: Any, tr: Words = _same) -> str:
    """``2160 ticks (36.0 s)``; anything not a number as it is (``-`` for none)."""
    if not _number(ticks):
        return "-" if ticks is None else str(ticks)
    return tr("%(ticks)s ticks (%(seconds)s)") % {"ticks": f"{ticks:g}", "seconds": seconds_text(ticks, tr)}


def _figure(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def survived_ticks(tel: dict[str, Any] | None) -> int | None:
    """How long the player lasted, at most the ticks the fight ran (``min(survival_ticks, ticks)``)."""
    if not tel:
        return None
    surv, ran = tel.get("survival_ticks"), tel.get("ticks")
    if not _number(surv):
        return None
    return int(min(surv, ran)) if _number(ran) else int(surv)


def survival_text(tel: dict[str, Any] | None, tr: Words = _same) -> str:
    """Survival as a person reads it: ``the whole fight (boss defeated at 35.9 s)`` for a run
    that completed, else ``1234 ticks (20.6 s)`` (never more than the fight lasted)."""
    shown = survived_ticks(tel)
    if tel is None or shown is None:
        return "-"
    if tel.get("status") == "completed":
        ran = tel.get("ticks")
        how = tr(END_WORDS.get(str(tel.get("end_reason")), str(tel.get("end_reason") or "ended")))
        return (tr("the whole fight (%(how)s at %(when)s)") % {"how": how, "when": seconds_text(ran, tr)}
                if _number(ran) else tr("the whole fight"))
    return ticks_text(shown, tr)


def _data(check: Check | dict[str, Any]) -> dict[str, Any]:
    return check.model_dump() if isinstance(check, Check) else check


def check_unit(check: Check | dict[str, Any]) -> str | None:
    return CHECK_UNITS.get(str(_data(check)["name"]))


def _with_unit(name: str, value: Any) -> str:
    if name in TICK_CHECKS:
        return ticks_text(value)
    unit = CHECK_UNITS.get(name)
    return f"{_figure(value)} {unit}" if unit and _number(value) else _figure(value)


def expected_text(check: Check | dict[str, Any]) -> str:
    """The threshold with its unit: ``>= 2160 ticks (36.0 s)``, ``> 17.143 bullets/s``."""
    data = _data(check)
    return f"{data['op']} {_with_unit(str(data['name']), data.get('expected'))}"


def actual_text(check: Check | dict[str, Any], tel: dict[str, Any] | None = None) -> str:
    """The figure the check read, with its unit; survival from the run's telemetry ``tel``
    (:func:`survival_text`) when given, else its ticks with seconds."""
    data = _data(check)
    name = str(data["name"])
    if name in TICK_CHECKS and tel is not None and survived_ticks(tel) is not None:
        return survival_text(tel)
    return _with_unit(name, data.get("actual"))


def detail_text(check: Check | dict[str, Any], tel: dict[str, Any] | None = None) -> str:
    """The check's recorded detail; survival's is said again from the run's telemetry ``tel``
    (the recorded one counts the telemetry's ``survival_ticks``, which can pass the fight's end)."""
    data = _data(check)
    detail = str(data.get("detail") or "")
    if data["name"] in TICK_CHECKS and tel is not None and tel.get("status") == "completed" \
            and survived_ticks(tel) is not None:
        return f"survived {survival_text(tel)}; needs {ticks_text(data.get('expected'))}"
    return detail


__all__ = ["CHECK_UNITS", "actual_text", "detail_text", "check_unit", "expected_text", "seconds_text", "survival_text",
           "survived_ticks", "ticks_text"]
