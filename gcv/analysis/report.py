"""What a fairness analysis says: the typed report and the check the loop's gate reads.

The report keeps three stories apart, like a run keeps ``died`` apart from ``timed_out``:

* ``fair``: a witness exists and was replayed through the simulator with no hit;
* ``unfair``: the sound reachable-set bound emptied (only for fights whose bullets do not
  depend on the player); the tick, the phase and the wave are named;
* ``undetermined``: neither, with the effort spent and why (budget, an aimed phase, a bound
  too coarse to close, a search that ran out of ideas).

Per-tick figures are integers or thousandths so a report is stable across machines; only
``effort``'s timings (wall-clock seconds) vary between runs of the same analysis: its work
units, the verdict and the witness do not (the budget is counted work).
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import ConfigDict, Field

from gcv.contract.base import GcvModel
from gcv.contract.policies import POLICY_WORDS, FairnessPolicy

FAIRNESS_ID: Final = "gcv.fairness/1"
CHECK_NAME = "fair_fight"
Verdict = Literal["fair", "unfair", "undetermined"]
CurveBasis = Literal["player_independent", "witness_path", "search_path"]


class _Model(GcvModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ReplayCheck(_Model):
    """The proof of a witness: one python-sim run with the trace as the player."""

    engine: Literal["python-sim"] = "python-sim"
    player: str = Field(description="the telemetry's player label (inputs:<hash>)")
    player_hits: int
    status: str
    end_reason: str
    ticks: int
    grazes: int
    state_hash: str


class WitnessInfo(_Model):
    trace: dict[str, Any] = Field(description="a gcv.inputs/1 trace (schemas/inputs_trace.schema.json)")
    trace_hash: str = Field(description="content hash of the trace")
    ticks: int = Field(description="ticks the trace covers (the whole fight)")
    runs: int = Field(description="run-length runs in the trace")
    replay: ReplayCheck


class WaveBlame(_Model):
    """One wave's share of the positions that were still reachable at the unfair tick."""

    phase_id: str
    phase_index: int
    wave_index: int = Field(description="the wave's number within its phase, from 0")
    spawn_tick: int
    covered: int = Field(description="reachable cells (or positions) this wave's bullets hit")
    share_milli: int = Field(description="covered / reachable, in thousandths (shares of waves may overlap)")


class UnfairInfo(_Model):
    tick: int = Field(description="first tick at which every reachable position is hit")
    seconds: float
    active_phase_id: str = Field(description="the phase firing at that tick")
    responsible_phase_id: str = Field(description="the phase whose bullets cover most of the reachable set")
    responsible_wave: WaveBlame
    contributors: list[WaveBlame] = Field(description="every wave that covers part of it, largest first (at most 8)")
    reachable: int = Field(description="what was reachable at that tick before its bullets were tested")
    reachable_kind: Literal["positions", "cells"] = Field(
        description="positions: the exact opening enumerated them; cells: the cell bound")
    bullets_alive: int


class GridInfo(_Model):
    columns: int
    rows: int
    cell_width_units: float = Field(description="world units per cell side")
    cells_per_step: str = Field(description="den/num: cells per player step (the largest axis move per tick)")
    move_offsets: int = Field(description="distinct cell displacements one move can cause")


class PhaseSafeArea(_Model):
    phase_id: str
    start_tick: int
    end_tick: int = Field(description="exclusive")
    min_milli: int = Field(description="smallest safe share of the arena, thousandths")
    min_tick: int
    mean_milli: int
    ticks_considered: int = Field(description="ticks that count: those after the opening spread (warm-up), "
                                              "or the whole phase if it ends before the spread does; "
                                              "never ticks after an unfair tick")
    measured_against: Literal["arena", "opening"] = Field(
        default="arena", description="arena: thousandths of the arena; opening: the phase ends before the "
                                     "opening spread does, so its figures are thousandths of what the bound "
                                     "reaches at that tick with no bullets at all (tick 0 is not 0%)")


class SafeArea(_Model):
    """The share of the arena reachable and not hit, per tick (an upper bound: the cells of
    the reachable-set bound), and per phase its minimum after the opening spread."""

    basis: CurveBasis
    basis_note: str
    warmup_ticks: int = Field(description="ticks before the bound could cover the arena even with no bullets; "
                                          "excluded from the per-phase minima")
    curve_milli: list[int] = Field(description="per tick, thousandths of the arena (measured ticks only)")
    measured_ticks: int = Field(description="ticks the curve covers: the whole fight unless the budget cut it short")
    phases: list[PhaseSafeArea]
    tightest_tick: int | None = None
    tightest_phase_id: str | None = None
    tightest_milli: int | None = None
    grid: GridInfo


class SearchEffort(_Model):
    nodes_expanded: int
    restarts: int
    widths: list[int]
    deepest_tick: int
    failure_ticks: list[int] = Field(description="ticks at which the beam died (first 20)")
    stopped_by: Literal["found", "budget", "time", "exhausted", "not_run"]
    used_viability: bool
    calm_ticks: int = Field(description="ticks passed standing still because no bullet could arrive")


class CheapEffort(_Model):
    """The cheap witnesses tried before any search (standing still, walks, each bot skill)."""

    candidates: int
    replays: int
    found: str | None = Field(default=None, description="the candidate that replayed hit-free, if any")
    seed: str | None = Field(default=None, description="the candidate whose hit-free start seeded the search")
    seed_ticks: int = 0


class Effort(_Model):
    budget_seconds: float = Field(description="the safety stop in seconds (never what decides a verdict)")
    budget_work: int = Field(default=0, description="the work budget (docs/analysis.md section 6: units)")
    work_units: int = Field(default=0, description="work spent; the same on every machine and load")
    work_by_stage: dict[str, int] = Field(default_factory=dict)
    stopped_by: Literal["complete", "work", "time"] = Field(
        default="complete", description="complete: nothing ran out; work: the work budget ran out "
                                        "(deterministic); time: the safety stop fired (the verdict is then "
                                        "undetermined and says so)")
    cheap: CheapEffort | None = None
    elapsed_seconds: float
    reach_ticks: int = Field(description="ticks the bound examined")
    reach_complete: bool
    search: SearchEffort
    reach_seconds: float
    search_seconds: float
    replay_seconds: float


class FairnessReport(_Model):
    report: Literal["gcv.fairness/1"] = FAIRNESS_ID
    verdict: Verdict
    reason: str = Field(description="one sentence a designer can read")
    config_name: str
    config_hash: str
    program_hash: str
    seed: int
    fight_ticks: int = Field(description="ticks the fight lasts (to the boss's death or time up)")
    player_dependent: bool = Field(description="some bullet reads the player's position (aimed phases)")
    aimed_phase_ids: list[str]
    witness: WitnessInfo | None = None
    unfair: UnfairInfo | None = None
    safe_area: SafeArea
    effort: Effort
    notes: list[str] = Field(default_factory=list)

    @property
    def failing_phase_id(self) -> str | None:
        return self.unfair.responsible_phase_id if self.unfair else None


class FairnessCheck(_Model):
    """A pass/fail record shaped like ``gcv.evaluation.models.Check`` (same fields), so the
    loop can add it to an evaluation; its name maps to the policy gate's ``danger`` family."""

    name: str = CHECK_NAME
    field: str = "fairness.verdict"
    op: Literal["=="] = "=="
    expected: str
    actual: str
    passed: bool
    hard: bool = True
    phase_id: str | None = None
    detail: str = ""
    miss: float = 0.0


def fairness_check(report: FairnessReport, *, require_proof: bool = False,
                   policy: FairnessPolicy | None = None) -> FairnessCheck:
    """The verdict as a hard check for the ``danger`` family, under an explicit policy.

    ``undetermined_allowed`` (the default, as before): only a proof of unfairness fails (an
    undetermined fight is not blamed for the analysis's limits). ``fair_required`` (or the
    older ``require_proof=True``): anything but a replayed witness fails. The policy is written
    into the check's detail whatever the verdict, so an undetermined fight that passes says it
    passed by policy, not silently. A failing check names the responsible phase (unfair) so a
    repair acts on it.
    """
    chosen: FairnessPolicy = policy or ("fair_required" if require_proof else "undetermined_allowed")
    if chosen not in POLICY_WORDS:
        raise ValueError(f"unknown fairness policy {chosen!r}; allowed: {', '.join(POLICY_WORDS)}")
    strict = chosen == "fair_required"
    passed = report.verdict == "fair" if strict else report.verdict != "unfair"
    expected = "fair" if strict else "fair|undetermined"
    if report.unfair is not None:
        u = report.unfair
        w = u.responsible_wave
        detail = (f"no hit-free path: every reachable position is hit at tick {u.tick} "
                  f"({u.seconds:.2f} s); phase {u.responsible_phase_id} wave {w.wave_index} "
                  f"(fired at tick {w.spawn_tick}) covers {w.share_milli / 10:.1f}% of it")
    elif report.witness is not None:
        detail = (f"witness trace {report.witness.trace_hash[:12]} replays with "
                  f"{report.witness.replay.player_hits} hits over {report.witness.replay.ticks} ticks")
    else:
        how = "passes by policy" if passed else "fails: the policy requires a witness"
        detail = f"undetermined, {how}: {report.reason}"
    detail += f" [policy {chosen}: {POLICY_WORDS[chosen]}]"
    return FairnessCheck(expected=expected, actual=report.verdict, passed=passed,
                         phase_id=None if passed else report.failing_phase_id, detail=detail,
                         miss=0.0 if passed else 1.0)
