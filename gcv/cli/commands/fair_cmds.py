"""``gcv fair``: can this fight be survived without a hit? A replayed witness, or where it cannot.

Exit codes: 0 fair (a witness trace replays hit-free), 1 unfair (no movement avoids a hit;
the tick, phase and wave are named), 3 undetermined (neither within the budget; the effort
is reported), 2 bad input (unreadable or invalid config, bad option, unusable output folder).

The budget is ``--budget-work`` work units (deterministic: the same verdict and witness on any
machine and load); ``--budget-seconds`` is only a safety stop, and when it fires the verdict is
undetermined and says "stopped by time".

Writes to ``--out`` or the workspace (``$GCV_HOME/fair/<config>-seed<N>/``): ``report.json``,
``witness.inputs.json`` (replay it with ``gcv sim CONFIG --player inputs:FILE``),
``safe_area.svg``, and PNG frames of the unfair tick and of the tightest tick.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.markup import escape
from gcv.cli.tables import Col, print_table
from gcv.cli.failures import raise_if_environment

from gcv.cli.output import EXIT_USAGE, console, emit_json, fail_usage
from gcv.contract.exits import ExitCode

EXIT_FAIR = ExitCode.OK
EXIT_UNFAIR = ExitCode.INVALID
EXIT_UNDETERMINED = ExitCode.ATTENTION
VERDICT_EXIT = {"fair": EXIT_FAIR, "unfair": EXIT_UNFAIR, "undetermined": EXIT_UNDETERMINED}
MAX_SEED = (1 << 63) - 1
# Mirrors of gcv.analysis.budget (not imported here: `gcv --help` stays fast); a test holds them equal.
DEFAULT_BUDGET_WORK = 100_000_000
DEFAULT_SAFETY_SECONDS = 600.0
MAX_BUDGET_WORK = 10**12

app = typer.Typer()


def _write(path: Path, data: bytes) -> None:
    """Atomically: a reader never sees half a file."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


class _Progress:
    """Progress of the long stages on stderr: a live bar on a terminal, a line per stage otherwise."""

    LABELS = {"reach": "reachable-set bound", "viable": "backward bound", "search": "witness search"}

    def __init__(self) -> None:
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self.err = console(stderr=True)
        self.live = self.err.is_terminal
        self.seen: set[str] = set()
        self.progress = Progress(TextColumn("{task.description:<22}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                                 TimeElapsedColumn(), console=self.err, transient=True) if self.live else None
        self.tasks: dict[str, Any] = {}

    def __enter__(self) -> "_Progress":
        if self.progress is not None:
            self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()

    def __call__(self, stage: str, done: int, total: int) -> None:
        label = self.LABELS.get(stage, stage)
        if self.progress is None:
            if stage not in self.seen:
                self.seen.add(stage)
                self.err.print(f"{label}: {total} ticks ...", markup=False, highlight=False)
            return
        if stage not in self.tasks:
            self.tasks[stage] = self.progress.add_task(label, total=total)
        self.progress.update(self.tasks[stage], completed=done, total=total)


def _print_summary(report: Any, files: dict[str, str], config_path: Path) -> None:
    from gcv.analysis.frames import sparkline

    out = console()
    colour = {"fair": "green", "unfair": "bold red", "undetermined": "yellow"}[report.verdict]
    out.print(f"[bold]{escape(report.config_name)}[/]  seed {report.seed}  {report.fight_ticks} ticks "
              f"({report.fight_ticks / 60:.2f} s)")
    out.print(f"[{colour}]{report.verdict.upper()}[/]: {escape(report.reason)}")
    if report.witness is not None:
        r = report.witness.replay
        out.print(f"witness: {escape(files['witness'])} ({report.witness.runs} runs); replay on {r.engine}: "
                  f"{r.player_hits} hits, {r.status} ({r.end_reason}), {r.grazes} grazes")
        out.print(f"  replay it: gcv sim {escape(str(config_path))} --player inputs:{escape(files['witness'])}")
    if report.unfair is not None:
        u = report.unfair
        out.print(f"unfair at tick {u.tick} ({u.seconds:.2f} s) during {escape(u.active_phase_id)}: "
                  f"{u.reachable} reachable {u.reachable_kind}, all hit; {u.bullets_alive} bullets alive")
        print_table(out, [Col("phase", "id"), Col("wave", "num"), Col("fired at tick", "num"), Col("covers", "num")],
                    [[w.phase_id, w.wave_index, w.spawn_tick, f"{w.share_milli / 10:.1f}%"] for w in u.contributors])
    if report.player_dependent:
        out.print(f"aimed phases (bullets depend on the player): {escape(', '.join(report.aimed_phase_ids))}")
    sa = report.safe_area
    out.print(f"safe area (reachable and not hit, % of the arena; basis: {sa.basis}; grid {sa.grid.columns}x"
              f"{sa.grid.rows}, {sa.grid.cell_width_units:g} units per cell):")
    floor = (min((ph.min_milli for ph in sa.phases if ph.ticks_considered), default=0) // 100) * 100
    rows = []
    for ph in sa.phases:
        lo = ph.end_tick - ph.ticks_considered  # after the opening spread
        curve = sa.curve_milli[lo:min(ph.end_tick, sa.measured_ticks)]
        if ph.ticks_considered:
            rows.append([ph.phase_id, f"{ph.start_tick}-{ph.end_tick}", f"{ph.min_milli / 10:.1f}%",
                         ph.min_tick, f"{ph.mean_milli / 10:.1f}%", sparkline(curve, 24, floor)])
        else:
            rows.append([ph.phase_id, f"{ph.start_tick}-{ph.end_tick}", "-", "-", "-", "not measured"])
    print_table(out, [Col("phase", "id"), Col("ticks", "num"), Col("min", "num"), Col("at tick", "num"),
                      Col("mean", "num"), Col(f"curve {floor // 10}-100%", "id", optional=True)], rows)
    opening = [ph.phase_id for ph in sa.phases if ph.ticks_considered and ph.measured_against == "opening"]
    if opening:
        out.print(f"({escape(', '.join(opening))} ends before the opening spread ({sa.warmup_ticks} ticks): its "
                  "figures are % of what a player could reach by then with no bullets at all)")
    if sa.tightest_tick is not None:
        out.print(f"tightest: {sa.tightest_milli / 10:.1f}% at tick {sa.tightest_tick} "
                  f"({sa.tightest_tick / 60:.2f} s, {escape(sa.tightest_phase_id or '')})")
    for note in report.notes:
        out.print(f"[yellow]note:[/] {escape(note)}")
    e = report.effort
    stop = {"complete": "", "work": "; the work budget ran out",
            "time": "; STOPPED BY TIME (the safety stop, not a verdict)"}[e.stopped_by]
    out.print(f"effort: {e.work_units} of {e.budget_work} work units{stop}; {e.elapsed_seconds:.2f} s "
              f"(safety stop {e.budget_seconds:g} s); bound {e.reach_ticks} ticks; search "
              f"{e.search.nodes_expanded} nodes, {e.search.restarts} restarts, stopped by {e.search.stopped_by}")
    if e.cheap is not None and (e.cheap.found or e.cheap.seed):
        what = f"witness: {e.cheap.found}" if e.cheap.found else f"search seeded by {e.cheap.seed} ({e.cheap.seed_ticks} ticks)"
        out.print(f"cheap witnesses: {e.cheap.candidates} tried, {e.cheap.replays} replayed; {escape(what)}")
    for name, path in files.items():
        out.print(f"{name}: {escape(path)}")


@app.command("fair")
def fair(
    config_path: Annotated[Optional[Path], typer.Argument(metavar="CONFIG", show_default=False,
                                                          help="a gcv.bullet_hell/1 config")] = None,
    seed: Annotated[int, typer.Option("--seed", min=0, max=MAX_SEED,
                                      help="the run's seed (scatter phases draw from it)")] = 1,
    budget_work: Annotated[int, typer.Option("--budget-work", min=1, max=MAX_BUDGET_WORK,
                                             help="work units the analysis may spend (deterministic: the same "
                                                  "verdict on any machine; docs/analysis.md section 6)")
                           ] = DEFAULT_BUDGET_WORK,
    budget_seconds: Annotated[float, typer.Option("--budget-seconds", min=0.5, max=3600.0,
                                                  help="safety stop in seconds: if it fires first the verdict "
                                                       "is undetermined (stopped by time), never fair or unfair")
                              ] = DEFAULT_SAFETY_SECONDS,
    out: Annotated[Optional[Path], typer.Option("--out", help="output folder (default: the workspace)")] = None,
    json_mode: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
) -> None:
    """Prove the fight can be survived without a hit (a replayable witness), or show the moment it cannot.

    Exit codes: 0 fair, 1 unfair, 3 undetermined, 2 bad input.
    """
    from gcv.contract.loading import GcvInputError, load_json_file  # lazy: start-up time
    # Imported here, not at the top: `gcv --help` and the other commands stay fast.
    from gcv.analysis import run_analysis
    from gcv.analysis.frames import png_bytes, safe_area_svg
    from gcv.contract.canonical import config_hash
    from gcv.contract.models import BulletHellConfig
    from gcv.store.paths import workspace_root
    from gcv.validation.validate import validate

    if config_path is None:
        fail_usage("missing argument CONFIG (the config to analyse)", json_mode=json_mode,
                   hint="gcv fair CONFIG.json [--seed N] [--budget-work N] [--budget-seconds S] [--out DIR] [--json]")
    try:
        data = load_json_file(config_path)
    except GcvInputError as exc:
        fail_usage(exc.message, json_mode=json_mode, file=str(config_path), detail=exc.path_in_doc, role="config")
    report = validate(data, data)
    if not report.ok:
        if json_mode:
            emit_json({"error": "the config is invalid; nothing was analysed", "file": str(config_path),
                       "validation": report.model_dump(mode="json"), "exit_code": EXIT_USAGE})
        else:
            err = console(stderr=True)
            err.print(f"[bold red]error:[/] {escape(str(config_path))} does not validate; nothing was analysed")
            for layer in report.layers:
                for issue in layer.errors:
                    err.print(f"  {layer.layer} {issue.rule_id} {issue.path}: {issue.message}", markup=False)
        raise typer.Exit(EXIT_USAGE)
    config = BulletHellConfig.model_validate(data)
    out_dir = out if out is not None else workspace_root() / "fair" / f"{config_hash(config)[:12]}-seed{seed}"
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        probe = out_dir / ".write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise_if_environment(exc, out_dir)  # a full or read-only disk: exit 70
        fail_usage(f"cannot write to the output folder: {exc.strerror or exc}", json_mode=json_mode,
                   file=str(out_dir), role="--out")

    if json_mode:
        analysis = run_analysis(config, seed=seed, budget_work=budget_work, budget_seconds=budget_seconds)
    else:
        with _Progress() as progress:
            analysis = run_analysis(config, seed=seed, budget_work=budget_work, budget_seconds=budget_seconds,
                                    progress=progress)
    result = analysis.report
    files: dict[str, str] = {}
    if result.witness is not None:
        path = out_dir / "witness.inputs.json"
        _write(path, (json.dumps(result.witness.trace, indent=1) + "\n").encode("utf-8"))
        files["witness"] = str(path)
    frame = analysis.unfair_frame()
    if frame is not None and result.unfair is not None:
        path = out_dir / f"unfair_tick_{result.unfair.tick:06d}.png"
        _write(path, png_bytes(frame))
        files["unfair_frame"] = str(path)
    frame = analysis.tightest_frame()
    if frame is not None and result.safe_area.tightest_tick is not None:
        path = out_dir / f"tightest_tick_{result.safe_area.tightest_tick:06d}.png"
        _write(path, png_bytes(frame))
        files["tightest_frame"] = str(path)
    chart = out_dir / "safe_area.svg"
    _write(chart, safe_area_svg(result).encode("utf-8"))
    files["chart"] = str(chart)
    report_path = out_dir / "report.json"
    _write(report_path, (result.model_dump_json(indent=2) + "\n").encode("utf-8"))
    files["report"] = str(report_path)
    code = VERDICT_EXIT[result.verdict]
    if json_mode:
        emit_json({"report": result.model_dump(mode="json"), "files": files, "output_dir": str(out_dir),
                   "exit_code": code})
    else:
        _print_summary(result, files, config_path)
    raise typer.Exit(code)
