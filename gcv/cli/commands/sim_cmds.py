"""``gcv sim`` (one run of the reference simulator) and ``gcv engines`` (what can run here)."""

from __future__ import annotations

import os
import re
from dataclasses import asdict
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape
from rich.text import Text

from gcv.cli.tables import Col, print_table
from gcv.cli.failures import environment_errno_in

from gcv.cli.output import EXIT_INVALID, console, emit_json, fail_usage

MAX_SEED = (1 << 63) - 1


def _capture_ticks(text: str | None, json_mode: bool) -> list[int]:
    if not text:
        return []
    ticks = []
    for part in text.split(","):
        part = part.strip()
        try:
            seconds = float(part)
        except ValueError:
            fail_usage(f"--capture: {part!r} is not a number of seconds", json_mode=json_mode,
                       hint="use seconds separated by commas, for example --capture 10,20,30")
        if not 0 <= seconds <= 600:
            fail_usage(f"--capture: {part} s is outside 0..600 s", json_mode=json_mode)
        ticks.append(round(seconds * 60))
    from engine_runners.protocol import MAX_CAPTURE_TICKS  # lazy: start-up time

    ticks = sorted(set(ticks))
    if len(ticks) > MAX_CAPTURE_TICKS:
        fail_usage(f"--capture: {len(ticks)} distinct ticks; at most {MAX_CAPTURE_TICKS} frames per run",
                   json_mode=json_mode, hint="capture fewer moments, for example --capture 10,20,30")
    return ticks


app = typer.Typer()


@app.command("sim")
def sim(
    config_path: Path = typer.Argument(..., metavar="CONFIG", help="a gcv.bullet_hell/1 config"),
    seed: int = typer.Option(1, "--seed", min=0, max=MAX_SEED, help="the run's seed"),
    player: str = typer.Option("scripted", "--player",
                               help="scripted | bot:novice|average|expert | inputs:FILE"),
    capture: Optional[str] = typer.Option(None, "--capture", help="seconds to save frames at, e.g. 10,20,30"),
    out: Optional[Path] = typer.Option(None, "--out", help="output folder (default: the workspace)"),
    json_mode: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Run the reference simulator once and print its telemetry (and write frames)."""
    from gcv.contract.loading import GcvInputError, load_json_file  # lazy: start-up time
    from engine_runners.python_sim import PythonSimRunner
    from engine_runners.requests import build_request
    from gcv.contract.models import BulletHellConfig
    from gcv.store.paths import workspace_root
    from gcv.sim.players import PlayerSpecError, parse_player
    from gcv.validation.validate import validate

    try:
        data = load_json_file(config_path)
    except GcvInputError as exc:
        fail_usage(exc.message, json_mode=json_mode, file=str(config_path), detail=exc.path_in_doc,
                   role="config")
    from gcv.contract.loading import default_baseline_path, load_config  # lazy: start-up time
    from gcv.validation.schema_layer import check_schema

    try:  # the config is its own baseline; one that fails the schema is judged against the default one
        base: Any = data if check_schema(data)[1] is not None else load_config(default_baseline_path())
    except GcvInputError as exc:
        fail_usage(exc.message, json_mode=json_mode, file=exc.file, detail=exc.path_in_doc, role="baseline")
    report = validate(base, data)
    if not report.ok:
        if json_mode:
            emit_json({"error": "the config is invalid; nothing was simulated",
                       "validation": report.model_dump(mode="json"), "exit_code": EXIT_INVALID})
        else:
            err = console(stderr=True)
            err.print(f"[bold red]refused:[/] {config_path} does not validate; nothing was simulated")
            for layer in report.layers:
                for issue in layer.errors:
                    err.print(f"  {layer.layer} {issue.rule_id} {issue.path}: {issue.message}", markup=False)
        raise typer.Exit(EXIT_INVALID)
    try:
        player_spec = parse_player(player)
    except PlayerSpecError as exc:
        fail_usage(str(exc), json_mode=json_mode)
    ticks = _capture_ticks(capture, json_mode)
    config = BulletHellConfig.model_validate(data)
    from gcv.contract.canonical import config_hash

    label = re.sub(r"[^A-Za-z0-9_.-]", "-", player)[:30]
    run_id = f"sim-{config_hash(config)[:10]}-{seed}-{label}"
    out_dir = out or workspace_root() / "sims" / run_id
    request = build_request(config, seed=seed, player=player_spec, output_dir=out_dir,
                            run_id=run_id, capture_ticks=ticks)
    result = PythonSimRunner("inprocess").run(request)
    if not result.ok:
        disk = environment_errno_in(result.error) if result.error_kind == "output_error" else None
        if disk is not None:  # a full or read-only disk is the environment's failure: exit 70
            raise OSError(disk, os.strerror(disk), str(out_dir))
        fail_usage(result.error or "the run failed", json_mode=json_mode, file=str(out_dir))
    tel = result.telemetry or {}
    missing = [t for t in ticks if t >= tel["ticks"]]
    if json_mode:
        emit_json({"telemetry": tel, "frames": result.frames, "output_dir": str(out_dir),
                   "capture_ticks_after_end": missing, "exit_code": 0})
        return
    con = console()
    con.print(f"[bold]{config.name}[/]  seed {seed}  player {tel['player']}  engine python-sim")
    status = "[green]completed[/]" if tel["status"] == "completed" else "[red]died[/]"
    con.print(f"{status} ({tel['end_reason']}) after {tel['ticks']} ticks ({tel['ticks'] / 60:.2f} s)")
    print_table(con, [Col("figure"), Col("value", "id")], [
        (key, str(value)) for key, value in (("peak alive bullets", tel["peak_alive_bullets"]),
                       ("bullets spawned", tel["total_bullets_spawned"]),
                       ("player hits", f"{tel['player_hits']} at ticks {tel['hit_ticks']}"),
                       ("grazes", tel["grazes"]), ("survival", f"{tel['survival_ticks'] / 60:.2f} s"),
                       ("boss health left", tel["boss_health_remaining"]),
                       ("FPS (modeled)", f"average {tel['average_fps']}, 1% low {tel['low_fps']}"),
                       ("state hash", tel["state_hash"][:16]))], show_header=False, box=None)
    rows = []
    for ph in tel["phase_results"]:
        if ph["reached"]:
            rows.append([ph["phase_id"], f"{ph['start_tick']}-{ph['end_tick']}", ph["bullets_spawned"],
                         ph["peak_alive_bullets"], ph["mean_alive_bullets"], ph["player_hits"], ph["grazes"]])
        else:
            rows.append([ph["phase_id"], "not reached", "-", "-", "-", "-", "-"])
    print_table(con, [Col("phase", "id"), Col("ticks", "num"), Col("spawned", "num"), Col("peak alive", "num"),
                      Col("mean alive", "num"), Col("hits", "num"), Col("grazes", "num")], rows)
    for frame in result.frames:
        con.print(f"frame: {frame}", markup=False)
    for t in missing:
        con.print(f"[yellow]no frame at tick {t}: the fight ended at tick {tel['ticks']}[/]")
    con.print(f"telemetry: {result.telemetry_path}", markup=False)

@app.command("engines")
def engines(json_mode: bool = typer.Option(False, "--json", help="print one JSON object")) -> None:
    """List the engine runners, whether each can run here, and what was checked before any
    budget is spent (licence, rendering, plugin, start-up budget, one editor per project)."""
    from engine_runners import native  # which path python-sim's batches take (never builds here)
    from engine_runners.registry import all_runners

    rows = []
    for runner in all_runners():
        status = runner.check()
        rows.append({**status.as_dict(), "capabilities": asdict(runner.capabilities())})
        if runner.name == "python-sim":
            path = native.status()
            rows[-1].update(batch_path=path.as_dict(), reason=f"{status.reason}; batches: {path.line()}")
    agents = _build_agents()
    for row in rows:
        if agents.get("reachable") is not None and row["engine"] in agents["engines"]:
            row["runs_on"] = "build agents"
    if json_mode:
        emit_json({"engines": rows, "build_agents": agents})
        return
    table = []
    for row in rows:
        colour = {"available": "green", "not_installed": "yellow"}.get(row["status"], "red")
        caps = row["capabilities"]
        table.append([row["engine"], Text(row["status"], style=colour), row["reason"],
                      "yes" if caps["renders_frames"] else "no",
                      "yes" if caps["measures_frame_times"] else "no (modeled)"])
    con = console()
    print_table(con, [Col("engine", "id"), Col("status", "id"), Col("reason"), Col("renders", optional=True),
                      Col("measures FPS", optional=True)], table)
    for row in rows:
        for check in row["details"].get("checks", []):
            mark = "[green]ok[/]" if check["ok"] else "[yellow]warning[/]"
            con.print(f"{row['engine']}: {mark} {escape(check['check'])}: {escape(check['detail'])}", soft_wrap=True)
    _print_build_agents(con, agents)


def _build_agents() -> dict[str, Any]:
    """The workspace's build agents (``build_agents.toml``): the scheduler, reachable or not, its
    workers and their resources; ``configured: false`` without the file."""
    from engine_runners.build_agents import BuildAgentsConfigError, cluster_status, config_path, load_config
    from gcv.store.paths import workspace_root  # lazy, as above

    root = workspace_root()
    try:
        config = load_config(root)
    except BuildAgentsConfigError as exc:
        return {"configured": True, "file": str(config_path(root)), "error": str(exc), "reachable": None,
                "engines": []}
    if config is None:
        return {"configured": False, "file": str(config_path(root)), "engines": []}
    return {"configured": True, "file": str(config_path(root)), **cluster_status(config)}


def _print_build_agents(con, agents: dict[str, Any]) -> None:
    if not agents["configured"]:
        con.print(f"build agents: none (every run is on this machine; {escape(agents['file'])} would name a Dask "
                  "scheduler)", soft_wrap=True)
        return
    if agents.get("reachable") is None:
        con.print(f"[red]build agents: misconfigured[/]: {escape(agents['error'])}", soft_wrap=True)
        return
    state = "[green]reachable[/]" if agents["reachable"] else "[red]unreachable[/]"
    where = f" on {agents['platform']}" if agents.get("platform") else ""
    con.print(f"build agents: scheduler {escape(agents['scheduler'])} {state}; runs of "
              f"{escape(', '.join(agents['engines']))}{where} go there", soft_wrap=True)
    if agents.get("error"):
        con.print(f"  {escape(agents['error'])}", soft_wrap=True)
        return
    table = [[w["name"], w["address"], ",".join(f"{k}={v:g}" for k, v in sorted(w["resources"].items())) or "none"]
             for w in agents["workers"]]
    if table:
        print_table(con, [Col("worker", "id"), Col("address", "id"), Col("resources")], table)
    if agents.get("uncollected_runs"):
        con.print(f"  {agents['uncollected_runs']} dispatched run(s) wait on the scheduler for their workflow to "
                  "collect them (`gcv resume`)", soft_wrap=True)
    for engine, names in agents["offered"].items():
        words = escape(", ".join(names)) if names else "[yellow]no worker offers it: its runs fail no_agent[/]"
        con.print(f"  {escape(engine)}: {words}", soft_wrap=True)
