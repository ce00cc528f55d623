"""Population checks: how a change behaves for many seeded bots, not one scripted path.

The workflow runs the baseline and every candidate against ``seeds`` seeds of the chosen
bot skills (``gcv.batch.population``) and adds one hard check per population target to the
candidate's evaluation, with its 95% interval in the detail. They belong to the ``danger``
family, so the policy gate and the repair calculators treat them like the scripted
player's hits and survival. Targets are the workflow settings' (defaults below); a
population that fails on the baseline already is reported, not hidden.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from gcv.evaluation.models import Check, Evaluation

DEFAULT_POPULATION: dict[str, Any] = {
    "skills": ["average"],
    "seeds": 32,
    "targets": [
        {"name": "population_survival_rate", "skill": "average", "field": "survival_rate", "op": ">=", "value": 0.9},
        {"name": "population_hits_p90", "skill": "average", "field": "hits_p90", "op": "<=", "value": 3},
    ],
    "basis": "point",
}


def default_population_markdown() -> str:
    """The default population as docs/batch.md shows it (the docs test holds the two equal)."""
    p = DEFAULT_POPULATION
    lines = [f"skills {', '.join(p['skills'])}; {p['seeds']} seeds (0..{p['seeds'] - 1}); basis {p['basis']}", "",
             "| target | skill | figure | must be |", "| --- | --- | --- | --- |"]
    lines += [f"| `{t['name']}` | {t['skill']} | `{t['field']}` | {t['op']} {t['value']:g} |" for t in p["targets"]]
    return "\n".join(lines)


_SKILLS = ("novice", "average", "expert")
_POPULATION_FORM = re.compile(r"(?P<skills>[a-z]+(?:\+[a-z]+)*)(?::(?P<seeds>[0-9]{1,7}))?")


def parse_population(text: str) -> dict[str, Any]:
    """``default`` or ``SKILL[+SKILL]:SEEDS`` (e.g. ``average:32``, ``novice+expert:64``).

    The whole string must have that form: no spaces, no empty or repeated skill, seeds in
    ASCII digits (``int()`` alone would take `` 32``, ``3_2``, ``+32`` or other scripts' digits).
    """
    if text == "default":
        return dict(DEFAULT_POPULATION)
    form = "SKILL[+SKILL...][:SEEDS], e.g. average:32 or novice+expert:64, or default"
    match = _POPULATION_FORM.fullmatch(text)
    if match is None:
        raise ValueError(f"population {text!r}: expected {form}; skills among {', '.join(_SKILLS)}, "
                         "seeds an integer 2..1000")
    skills = match["skills"].split("+")
    bad = [s for s in skills if s not in _SKILLS]
    if bad:
        raise ValueError(f"population {text!r}: unknown skill {bad[0]!r}; allowed: {', '.join(_SKILLS)}")
    repeated = sorted({s for s in skills if skills.count(s) > 1})
    if repeated:
        raise ValueError(f"population {text!r}: skill {repeated[0]!r} named twice")
    seeds = int(match["seeds"]) if match["seeds"] is not None else 32
    if not 2 <= seeds <= 1000:
        raise ValueError(f"population {text!r}: seeds = {seeds}; allowed 2..1000")
    targets = [dict(t, skill=skill, name=f"{t['name']}.{skill}") for skill in skills
               for t in DEFAULT_POPULATION["targets"]]
    return {"skills": skills, "seeds": seeds, "targets": targets, "basis": "point"}


def _miss(op: str, expected: float, actual: float | None) -> float:
    if actual is None:
        return 1.0
    scale = max(abs(expected), 1.0)
    if op in ("<=", "<"):
        return max(0.001, (actual - expected) / scale)
    return max(0.001, (expected - actual) / scale)


def with_population(evaluation: Evaluation, checks: list[dict[str, Any]], goal: Any) -> Evaluation:
    """Join population checks the one way the loop (and its replay) does: a failing population
    blames the goal's first target phase (the phase the designer changed), else the phase the
    scripted player was hurt in."""
    hits = evaluation.check("player_hits")
    culprit = (goal.target_phase_ids[0] if goal is not None and goal.target_phase_ids
               else (hits.phase_id if hits else None))
    return add_population_checks(evaluation, checks, culprit_phase=culprit)


def add_population_checks(evaluation: Evaluation, checks: list[dict[str, Any]], *,
                          culprit_phase: str | None) -> Evaluation:
    """A new evaluation with one hard check per population target appended."""
    extra = []
    for c in checks:
        low, high = (c.get("interval") or [None, None])[:2]
        extra.append(Check(
            name=f"population_{c['field']}", field=f"population.{c['skill']}.{c['field']}",
            op=c["op"], expected=c["expected"], actual=c["actual"], passed=c["passed"], hard=True,
            phase_id=None if c["passed"] else culprit_phase,
            detail=f"bot:{c['skill']} {c['field']} = {c['actual']} (95% interval {low}..{high}, basis {c['basis']})",
            miss=0.0 if c["passed"] else _miss(c["op"], float(c["expected"]), c["actual"])))
    miss = Fraction(str(evaluation.miss_score)) + sum(Fraction(str(c.miss)) for c in extra)
    return evaluation.model_copy(update={
        "checks": [*evaluation.checks, *extra],
        "passed": evaluation.passed and all(c.passed for c in extra),
        "miss_score": float(miss),
    })
