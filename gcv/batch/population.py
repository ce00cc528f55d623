"""Bot populations, the API the workflow calls: run one config against many seeds of each
bot skill and judge the population against targets.

``run_population`` runs ``skills x seeds`` cells through the same executors and checks as
``gcv batch`` (python-sim cells through a batch API: the native C++ core where this machine
has it, else the simulator's), but writes no table:
it returns a :class:`PopulationSummary`. ``evaluate_population`` turns targets such as
"the average bot survives in >= 90% of seeds" or "p90 hits <= 3" into check dicts.

Defaults (all keyword arguments) are the one default population,
``gcv.evaluation.population.DEFAULT_POPULATION`` (what ``gcv run --population default`` runs and
docs/batch.md section 8 lists):

* ``skills``: ``("average",)``; ``seeds``: 32 (seeds 0..31; ``seed_start``
  moves the window); ``engine``: ``python-sim``; ``workers``: 1 (inline, deterministic
  order; results do not depend on it); ``retries``: 1; ``timeout``: 600 s per run (engines
  other than python-sim); ``output_dir``: a temporary folder, removed afterwards (only
  engines other than python-sim write files).
* a target compares the **point estimate** (``basis="point"``); ``basis="interval"``
  compares the conservative end of its 95% interval instead (the low end for ``>=``/``>``,
  the high end for ``<=``/``<``), so a small population cannot pass by luck. A figure with
  no value (no run produced telemetry, or a bound the sample is too small for) fails.
* statistics are those of :mod:`gcv.batch.stats` (Wilson interval for survival, exact
  order-statistic intervals for quantiles, a seeded bootstrap for the mean).
"""

from __future__ import annotations

import operator
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Final, Iterable, Literal

from pydantic import ConfigDict, Field

from gcv.contract.base import GcvModel
from engine_runners import native
from gcv.batch.executors import LocalExecutor, iter_rows
from gcv.batch.matrix import expand
from gcv.batch.results import final_rows
from gcv.batch.stats import group_metrics
from gcv.contract.models import BulletHellConfig
from gcv.evaluation.population import DEFAULT_POPULATION
from gcv.sim.players import BOT_SKILL_NAMES
from gcv.sim.program import compile_program

POPULATION_ID: Final = "gcv.population/1"
# One definition of the default population (gcv.evaluation.population), read here and by the CLI.
DEFAULT_SKILLS: tuple[str, ...] = tuple(DEFAULT_POPULATION["skills"])
DEFAULT_SEEDS: int = DEFAULT_POPULATION["seeds"]
DEFAULT_TARGETS: list[dict[str, Any]] = [dict(t) for t in DEFAULT_POPULATION["targets"]]
_OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq,
        "!=": operator.ne}
Interval = tuple[float | None, float | None]


class _Frozen(GcvModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SkillSummary(_Frozen):
    skill: str
    player: str
    runs: int = Field(description="seeds that produced telemetry")
    errors: int = Field(description="seeds whose last attempt errored")
    survival_rate: float | None
    survival_interval: Interval = Field(description="Wilson 95%")
    hits_mean: float | None
    hits_mean_interval: Interval = Field(description="seeded bootstrap 95%")
    hits_p50: int | None
    hits_p50_interval: Interval = Field(description="exact order-statistic 95%")
    hits_p90: int | None
    hits_p90_interval: Interval
    peak_alive_p50: int | None
    peak_alive_p50_interval: Interval
    peak_alive_p90: int | None
    peak_alive_p90_interval: Interval
    error_kinds: dict[str, int] = Field(default_factory=dict)


class PopulationSummary(_Frozen):
    population: Literal["gcv.population/1"] = POPULATION_ID
    config_hash: str
    engine: str
    seed_start: int
    seeds: int
    skills: list[SkillSummary]

    def skill(self, name: str) -> SkillSummary:
        for s in self.skills:
            if s.skill == name:
                return s
        raise KeyError(f"no skill {name!r} in this population; skills: {', '.join(s.skill for s in self.skills)}")


class PopulationTarget(_Frozen):
    """``field op value`` for one skill (``skill=None``: every skill of the summary)."""

    field: Literal["survival_rate", "hits_mean", "hits_p50", "hits_p90", "peak_alive_p50", "peak_alive_p90"]
    op: Literal["<", "<=", ">", ">=", "==", "!="]
    value: float
    skill: str | None = None
    name: str | None = None
    basis: Literal["point", "interval"] = "point"


def _program(config_or_program: Any) -> dict[str, Any]:
    if isinstance(config_or_program, BulletHellConfig):
        return compile_program(config_or_program)
    if isinstance(config_or_program, dict) and config_or_program.get("program"):
        return config_or_program
    if isinstance(config_or_program, dict):
        return compile_program(BulletHellConfig.model_validate(config_or_program))
    raise TypeError("run_population needs a BulletHellConfig, a config dict or a compiled program")


def run_population(config_or_program: Any, *, skills: Iterable[str] = DEFAULT_SKILLS, seeds: int = DEFAULT_SEEDS,
                   engine: str = "python-sim", workers: int = 1, seed_start: int = 0, retries: int = 1,
                   timeout: float = 600.0, output_dir: Path | None = None,
                   on_fight: Callable[[int, int], None] | None = None) -> PopulationSummary:
    """Run ``seeds`` seeds of every bot skill on one config; summarize per skill.

    ``on_fight(done, total)`` is called as each fight (cell) reports its first result.

    python-sim cells run on the native C++ core where this machine has it (the same figures;
    ``engine_runners.native``), else in Python.
    """

    skills = list(dict.fromkeys(skills))
    unknown = [s for s in skills if s not in BOT_SKILL_NAMES]
    if unknown or not skills:
        raise ValueError(f"unknown bot skill(s) {unknown}; allowed: {', '.join(BOT_SKILL_NAMES)}")
    if not 1 <= seeds <= 100_000:
        raise ValueError(f"seeds = {seeds}; allowed 1..100000")
    program = _program(config_or_program)
    if engine == "python-sim":
        native.core()  # settle the fast path here, once, before any worker starts (a first build takes ~20 s)
    config = SimpleNamespace(config_hash=program["config_hash"], label="population", program=program)
    players = [SimpleNamespace(label=f"bot:{s}", spec={"kind": "bot", "skill": s},
                               seeds=list(range(seed_start, seed_start + seeds))) for s in skills]
    matrix = expand([config], players, [engine])
    with tempfile.TemporaryDirectory(prefix="gcv-population-") as tmp:
        out = output_dir or Path(tmp)
        rows, seen = [], set()
        for row in iter_rows(LocalExecutor(workers), matrix, matrix.cells, retries=retries, timeout=timeout,
                             output_dir=out):
            rows.append(row)
            if on_fight is not None and row["cell_id"] not in seen:
                seen.add(row["cell_id"])
                on_fight(len(seen), len(matrix.cells))
    finals = final_rows(rows)
    summaries = []
    for skill, player in zip(skills, players):
        mine = [finals[c.cell_id] for c in matrix.cells if c.player == player.label and c.cell_id in finals]
        m = group_metrics(mine, len(player.seeds))
        kinds: dict[str, int] = {}
        for row in mine:
            if row["status"] == "error":
                kinds[row["error_kind"]] = kinds.get(row["error_kind"], 0) + 1
        summaries.append(SkillSummary(
            skill=skill, player=player.label, runs=m["runs"], errors=m["errors"],
            survival_rate=m["survival_rate"], survival_interval=(m["survival_low"], m["survival_high"]),
            hits_mean=m["hits_mean"], hits_mean_interval=(m["hits_mean_low"], m["hits_mean_high"]),
            hits_p50=m["hits_p50"], hits_p50_interval=(m["hits_p50_low"], m["hits_p50_high"]),
            hits_p90=m["hits_p90"], hits_p90_interval=(m["hits_p90_low"], m["hits_p90_high"]),
            peak_alive_p50=m["peak_alive_p50"],
            peak_alive_p50_interval=(m["peak_alive_p50_low"], m["peak_alive_p50_high"]),
            peak_alive_p90=m["peak_alive_p90"],
            peak_alive_p90_interval=(m["peak_alive_p90_low"], m["peak_alive_p90_high"]),
            error_kinds=kinds))
    return PopulationSummary(config_hash=program["config_hash"], engine=engine, seed_start=seed_start,
                             seeds=seeds, skills=summaries)


def _interval_of(skill: SkillSummary, field: str) -> Interval:
    name = "survival_interval" if field == "survival_rate" else f"{field}_interval"
    return getattr(skill, name)


def evaluate_population(summary: PopulationSummary,
                        targets: Iterable[PopulationTarget | dict[str, Any]] = tuple(DEFAULT_TARGETS)
                        ) -> list[dict[str, Any]]:
    """One check dict per (target, skill it applies to):
    ``{name, skill, field, op, expected, actual, passed, interval, basis}``."""
    checks: list[dict[str, Any]] = []
    for raw in targets:
        target = raw if isinstance(raw, PopulationTarget) else PopulationTarget.model_validate(raw)
        skills = summary.skills if target.skill is None else [summary.skill(target.skill)]
        for skill in skills:
            point = getattr(skill, target.field)
            interval = _interval_of(skill, target.field)
            actual: float | None = point
            if target.basis == "interval":
                if target.op in (">=", ">"):
                    actual = interval[0]
                elif target.op in ("<=", "<"):
                    actual = interval[1]
            passed = actual is not None and bool(_OPS[target.op](actual, target.value))
            name = target.name or f"bot:{skill.skill} {target.field} {target.op} {target.value:g}"
            if target.name and target.skill is None:
                name = f"{target.name} (bot:{skill.skill})"
            checks.append({"name": name, "skill": skill.skill, "field": target.field, "op": target.op,
                           "expected": target.value, "actual": actual, "passed": passed,
                           "interval": list(interval), "basis": target.basis})
    return checks
