"""The batch gate: ``--fail-if "survival_rate < 0.9"`` conditions, parsed, never ``eval``-ed.

Grammar (whitespace between tokens is free; keywords are lower case)::

    expression := clause ("or" clause)*
    clause     := comparison ("and" comparison)*
    comparison := METRIC OP NUMBER
    OP         := "<" | "<=" | ">" | ">=" | "==" | "!="
    NUMBER     := ["-"] digits ["." digits] ["%"]        ("90%" is 0.9)

``and`` binds tighter than ``or``; there are no parentheses, function calls or names other
than the metrics of :data:`METRICS`. An expression describes *failure*: a group fails the
gate when the expression is true for it. A metric with no value in a group (no run
produced telemetry, or a confidence bound that the sample is too small to give) makes its
comparison true: a gate must not pass on evidence it does not have.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

OPERATORS = ("<=", ">=", "==", "!=", "<", ">")

_FIGURES = ("mean", "p50", "p90", "p99")
_DISTRIBUTIONS = ("hits", "peak_alive")

#: Every metric a gate may name, with one line each (also shown in error messages).
METRICS: dict[str, str] = {
    "runs": "cells of the group that produced telemetry",
    "errors": "cells of the group whose last attempt is an error row",
    "error_rate": "errors / cells of the group",
    "survival_rate": "completed runs / runs (0..1)",
    "survival_low": "lower bound of the Wilson 95% interval of survival_rate",
    "survival_high": "upper bound of the Wilson 95% interval of survival_rate",
}
for _dist in _DISTRIBUTIONS:
    _what = "player hits per run" if _dist == "hits" else "peak alive bullets per run"
    for _fig in _FIGURES:
        METRICS[f"{_dist}_{_fig}"] = f"{_fig} of {_what}"
        METRICS[f"{_dist}_{_fig}_low"] = f"lower bound of the 95% interval of {_dist}_{_fig}"
        METRICS[f"{_dist}_{_fig}_high"] = f"upper bound of the 95% interval of {_dist}_{_fig}"

_TOKEN = re.compile(r"\s*(?:(?P<op><=|>=|==|!=|<|>)|(?P<num>-?\d+(?:\.\d+)?%?)"
                    r"|(?P<word>[A-Za-z_][A-Za-z0-9_]*)|(?P<bad>\S))")


class GateSyntaxError(ValueError):
    """An expression outside the grammar; the message points at the offending token."""

    def __init__(self, expression: str, position: int, message: str) -> None:
        self.expression = expression
        self.position = position
        self.reason = message
        caret = " " * position + "^"
        super().__init__(f"{message}\n  {expression}\n  {caret}")


@dataclass(frozen=True)
class Comparison:
    metric: str
    op: str
    value: float

    def text(self) -> str:
        return f"{self.metric} {self.op} {self.value:g}"

    def holds(self, metrics: dict[str, Any]) -> bool:
        actual = metrics.get(self.metric)
        if actual is None or (isinstance(actual, float) and math.isnan(actual)):
            return True  # unknown counts as failing (see the module docstring)
        a, b = float(actual), self.value
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[self.op]


@dataclass(frozen=True)
class Condition:
    """``clauses`` is a disjunction of conjunctions: [[c1, c2], [c3]] = (c1 and c2) or c3."""

    source: str
    clauses: tuple[tuple[Comparison, ...], ...]

    def holds(self, metrics: dict[str, Any]) -> bool:
        return any(all(c.holds(metrics) for c in clause) for clause in self.clauses)

    def metrics(self) -> list[str]:
        return [c.metric for clause in self.clauses for c in clause]

    def canonical(self) -> str:
        return " or ".join(" and ".join(c.text() for c in clause) for clause in self.clauses)


def _tokens(text: str) -> list[tuple[str, str, int]]:
    out: list[tuple[str, str, int]] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = _TOKEN.match(text, pos)
        assert match is not None  # the pattern ends with a catch-all
        kind = match.lastgroup or "bad"
        start = match.start(kind)
        out.append((kind, match.group(kind), start))
        pos = match.end()
    return out


def parse_condition(text: str) -> Condition:
    """Parse one ``--fail-if`` expression; raise :class:`GateSyntaxError` if it is not one."""
    if not isinstance(text, str) or not text.strip():
        raise GateSyntaxError(str(text), 0, "empty condition; write for example 'survival_rate < 0.9'")
    if len(text) > 500:
        raise GateSyntaxError(text[:40] + "...", 0, "condition longer than 500 characters")
    tokens = _tokens(text)
    clauses: list[tuple[Comparison, ...]] = []
    current: list[Comparison] = []
    i = 0
    while True:
        if i >= len(tokens):
            raise GateSyntaxError(text, len(text), "expected a metric name")
        kind, value, pos = tokens[i]
        if kind != "word" or value in ("and", "or"):
            raise GateSyntaxError(text, pos, f"expected a metric name, found {value!r}")
        if value not in METRICS:
            close = [m for m in METRICS if m.startswith(value.split("_")[0])][:6] or list(METRICS)[:6]
            raise GateSyntaxError(text, pos, f"unknown metric {value!r}; for example: {', '.join(close)} "
                                             f"(all {len(METRICS)} in docs/batch.md)")
        if i + 1 >= len(tokens) or tokens[i + 1][0] != "op":
            where = tokens[i + 1][2] if i + 1 < len(tokens) else len(text)
            found = repr(tokens[i + 1][1]) if i + 1 < len(tokens) else "the end"
            raise GateSyntaxError(text, where, f"expected a comparison ({' '.join(OPERATORS)}) after "
                                               f"{value!r}, found {found}")
        op = tokens[i + 1][1]
        if i + 2 >= len(tokens) or tokens[i + 2][0] != "num":
            where = tokens[i + 2][2] if i + 2 < len(tokens) else len(text)
            found = repr(tokens[i + 2][1]) if i + 2 < len(tokens) else "the end"
            raise GateSyntaxError(text, where, f"expected a number after {op!r}, found {found}")
        number = tokens[i + 2][1]
        threshold = float(number[:-1]) / 100 if number.endswith("%") else float(number)
        current.append(Comparison(value, op, threshold))
        i += 3
        if i >= len(tokens):
            clauses.append(tuple(current))
            break
        kind, joiner, pos = tokens[i]
        if kind != "word" or joiner not in ("and", "or"):
            raise GateSyntaxError(text, pos, f"expected 'and', 'or' or the end, found {joiner!r}")
        if joiner == "or":
            clauses.append(tuple(current))
            current = []
        i += 1
    if sum(len(c) for c in clauses) > 16:
        raise GateSyntaxError(text, 0, "at most 16 comparisons per condition")
    return Condition(text.strip(), tuple(clauses))


@dataclass(frozen=True)
class GateRule:
    """A condition and the groups it applies to (``None`` = every player / config)."""

    condition: Condition
    players: tuple[str, ...] | None = None
    configs: tuple[str, ...] | None = None
    origin: str = "--fail-if"

    def applies(self, group: dict[str, Any]) -> bool:
        if self.players is not None and group["player"] not in self.players:
            return False
        if self.configs is not None and not ({group["config_label"], group["config_hash"]} & set(self.configs)):
            return False
        return True


@dataclass
class GateResult:
    passed: bool
    rules: list[dict[str, Any]]
    failures: list[dict[str, Any]] = field(default_factory=list)
    evaluated: int = 0
    # every (rule, group) judged, failing or not, in order: what a CI test tab lists
    # (gcv.evidence.junit); not in ``as_dict``, so summary.json keeps its form
    evaluations: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "rules": self.rules, "evaluated_groups": self.evaluated,
                "failures": self.failures}


def evaluate_gate(rules: Iterable[GateRule], groups: Iterable[dict[str, Any]]) -> GateResult:
    """Evaluate every rule on every group it applies to. ``groups`` are summary dicts with
    ``config_label``, ``config_hash``, ``player``, ``engine`` and ``metrics``."""
    rules = list(rules)
    groups = list(groups)
    failures: list[dict[str, Any]] = []
    evaluations: list[dict[str, Any]] = []
    for rule in rules:
        for group in groups:
            if not rule.applies(group):
                continue
            judged = {
                "config_label": group["config_label"], "config_hash": group["config_hash"],
                "player": group["player"], "engine": group["engine"],
                "condition": rule.condition.source, "origin": rule.origin,
                "values": {m: group["metrics"].get(m) for m in dict.fromkeys(rule.condition.metrics())},
            }
            failed = rule.condition.holds(group["metrics"])
            evaluations.append({**judged, "failed": failed})
            if failed:
                failures.append(judged)
    described = [{"condition": r.condition.source, "origin": r.origin,
                  "players": list(r.players) if r.players is not None else None,
                  "configs": list(r.configs) if r.configs is not None else None} for r in rules]
    return GateResult(passed=not failures, rules=described, failures=failures, evaluated=len(evaluations),
                      evaluations=evaluations)
