"""A workflow's engine runs on build agents: Dask workers that have the engines (issue 33 item 1).

The workspace names the cluster in ``<workspace>/build_agents.toml``::

    scheduler = "tcp://build-scheduler.studio.test:8786"  # a running `dask scheduler`
    engines = ["unity", "ue5"]          # whose runs go to the agents (the rest run here)
    platform = "windows"                # optional: only agents that declare windows=1
    connect_timeout_seconds = 10        # reaching the scheduler, 0.5..300
    run_timeout_seconds = 3600          # one run on an agent, queue and transfer included, 1..604800
    agent_wait_seconds = 60             # how long a run waits when no connected agent offers its engine, 0..3600

An agent is ``dask worker SCHEDULER --resources "ue5=1,windows=1"`` on a machine whose own
environment configures the engine (``GCV_UE_EDITOR_CMD``, ``GCV_UNITY_PLAYER``, a harness ...;
``docs/engines.md``) with GCV importable. The driving host needs no engine.

:class:`AgentRunner` is an engine runner (the same ``run(request, deadline=)`` and
:class:`~engine_runners.protocol.RunResult` as a local one), so the loop records an agent's run
exactly as a local run. One run:

1. the request goes out content-addressed (:func:`engine_runners.agent_work.request_payload`);
   the task's key and the name it is published under on the scheduler come from its sha256;
2. before anything is submitted the scheduler's workers are read (bounded by the connect
   timeout): no worker offering ``{engine: 1}`` (and the platform) is ``no_agent`` at once,
   never a task that waits forever;
3. the task (:func:`engine_runners.agent_work.run_on_agent`) is submitted with those resources
   and *published* under its name (``Client.publish_dataset``): a published task lives on the
   scheduler when the driving process dies, so a ``gcv resume`` after a kill finds it by the same
   name and collects its result (it is not run again);
4. while it runs, the driver watches which worker has it: a worker that disappears mid-run costs
   one retry on another worker (the scheduler reschedules it; with ``allowed-failures`` 0 the
   driver resubmits it once); a second lost worker ends the run ``agent_lost``, naming both; a
   run whose worker died and that no connected agent can take ends ``no_agent`` after
   ``agent_wait_seconds``;
5. the parcel that comes back is checked (every file's sha256, the telemetry against the request)
   before its files are written into the run's folder; ``run.log`` gains ``[gcv-agent]`` lines
   naming the worker, its host and platform, and any lost worker.
"""

from __future__ import annotations

import logging
import time
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field, ValidationError, field_validator

from engine_runners.agent_work import (AGENT_LOG_PREFIX, Parcel, TransferError, request_payload, run_on_agent,
                                       unpack)
from engine_runners.base import Capabilities, EnvironmentStatus, check_telemetry, write_json_atomic
from engine_runners.protocol import FRAMES_DIR, LOG_FILE, TELEMETRY_FILE, RunRequest, RunResult
from engine_runners.registry import runner_names
from engine_runners.run_lock import RunFolderBusy, RunFolderLock
from gcv.contract.base import GcvModel

CONFIG_FILE = "build_agents.toml"
PLATFORMS = ("linux", "windows", "macos")
MAX_RETRIES = 1          # a run survives one lost worker; the second ends it
LOG = logging.getLogger(__name__)  # progress for a long run: which agent has it
POLL_SECONDS = 0.5       # how often the driver asks the scheduler where its run is
CONFIG_BYTES = 64 * 1024
DATASET_PREFIX = "gcv-run-"  # what a dispatched run is published under on the scheduler (with its address)
INSTALL_HINT = "the build agents need the 'distributed' package: pip install 'gcv[dask]'"


class BuildAgentsConfigError(ValueError):
    """``build_agents.toml`` cannot be used; the message names the file, the field and what is allowed."""


class BuildAgentsConfig(GcvModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    scheduler: str = Field(pattern=r"^(tcp|tls)://[^\s/]+:[0-9]{1,5}$", max_length=300,
                           description="the Dask scheduler's address, tcp://HOST:PORT or tls://HOST:PORT")
    engines: tuple[str, ...] = Field(min_length=1, max_length=8, description="the engines whose runs go to agents")
    platform: Literal["linux", "windows", "macos"] | None = Field(
        default=None, description="only agents that declare this platform as a resource run them")
    connect_timeout_seconds: float = Field(default=10.0, ge=0.5, le=300)
    run_timeout_seconds: float = Field(default=3600.0, ge=1, le=7 * 86400)
    agent_wait_seconds: float = Field(default=60.0, ge=0, le=3600)

    @field_validator("engines")
    @classmethod
    def _known(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        known = runner_names()
        for name in value:
            if name not in known:
                raise ValueError(f"{name!r} is not an engine; allowed: {', '.join(known)}")
        if len(set(value)) != len(value):
            raise ValueError("an engine is named twice")
        return value


def resources(engine: str, platform: str | None) -> dict[str, float]:
    """The Dask worker resources a run of ``engine`` needs (one slot of it, and the platform)."""
    return {engine: 1.0, **({platform: 1.0} if platform else {})}


def config_path(workspace: Path) -> Path:
    return Path(workspace) / CONFIG_FILE


def load_config(workspace: Path) -> BuildAgentsConfig | None:
    """The workspace's build agents, or None without a ``build_agents.toml``."""
    path = config_path(workspace)
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):  # no file, or no workspace (the store says so)
        return None
    except OSError as exc:
        raise BuildAgentsConfigError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    if len(raw) > CONFIG_BYTES:
        raise BuildAgentsConfigError(f"{path}: {len(raw)} bytes; at most {CONFIG_BYTES}")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise BuildAgentsConfigError(f"{path}: not valid TOML: {exc}") from None
    try:
        return BuildAgentsConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(the file)"
        message = str(first["msg"]).removeprefix("Value error, ")
        if first["type"] == "extra_forbidden":
            message += "; fields: " + ", ".join(BuildAgentsConfig.model_fields)
        elif first["type"] == "missing":
            message = "required (the scheduler's address and the engines whose runs go to agents)"
        elif where == "scheduler":
            message = "must be tcp://HOST:PORT or tls://HOST:PORT (a running `dask scheduler`)"
        raise BuildAgentsConfigError(f"{path}: field {where}: {message}") from None


def dispatched(workspace: Path, engine: str) -> BuildAgentsConfig | None:
    """The build agents that run ``engine`` for this workspace, or None when it runs here."""
    config = load_config(workspace)
    return config if config is not None and engine in config.engines else None


def _client(config: BuildAgentsConfig) -> Any:
    """A client of the scheduler (ImportError without distributed, OSError when unreachable)."""
    from distributed import Client  # the optional dependency (gcv[dask]); a driver without agents never needs it

    return Client(config.scheduler, timeout=config.connect_timeout_seconds, set_as_default=False)


def _workers(client: Any) -> dict[str, dict[str, Any]]:
    info = client.scheduler_info(n_workers=-1)
    return {addr: {"address": addr, "name": str(w.get("name", addr)), "host": w.get("host"),
                   "nthreads": w.get("nthreads"), "resources": dict(w.get("resources") or {})}
            for addr, w in info.get("workers", {}).items()}


def _offering(workers: dict[str, dict[str, Any]], needed: dict[str, float]) -> list[str]:
    return [addr for addr, w in workers.items()
            if all(float(w["resources"].get(k, 0)) >= v for k, v in needed.items())]


def _declared(workers: dict[str, dict[str, Any]]) -> str:
    if not workers:
        return "the scheduler has no workers"
    return "; ".join(f"{w['name']} ({w['address']}): " + (",".join(f"{k}={v:g}" for k, v in sorted(w["resources"]
                                                                                                     .items()))
                                                          or "no resources")
                     for w in workers.values())


def _deaths(client: Any, key: str) -> int:
    """How many workers died while running the task ``key``: the scheduler's own count (a worker
    that died between two of the driver's looks is counted too); 0 when it cannot say."""
    def suspicious(dask_scheduler: Any, key: str) -> int:  # runs on the scheduler, pickled by value
        task = dask_scheduler.tasks.get(key)
        return 0 if task is None else int(task.suspicious)

    try:
        return int(client.run_on_scheduler(suspicious, key=key))
    except Exception:  # noqa: BLE001 - a scheduler that refuses pickled functions: the driver's looks alone
        return 0


def cluster_status(config: BuildAgentsConfig) -> dict[str, Any]:
    """What ``gcv engines`` shows: the scheduler, reachable or not, its workers and what they declare,
    and which workers can take each dispatched engine's runs."""
    status: dict[str, Any] = {"scheduler": config.scheduler, "engines": list(config.engines),
                              "platform": config.platform, "reachable": False, "error": None, "workers": [],
                              "offered": {}}
    try:
        client = _client(config)
    except ImportError:
        status["error"] = INSTALL_HINT
        return status
    except (OSError, TimeoutError) as exc:
        status["error"] = f"cannot reach the scheduler within {config.connect_timeout_seconds:g} s: {exc}"
        return status
    try:
        workers = _workers(client)
        waiting = [str(n) for n in client.list_datasets() if str(n).startswith(DATASET_PREFIX)]
    finally:
        client.close()
    status.update(reachable=True, uncollected_runs=len(waiting), workers=sorted(workers.values(), key=lambda w: str(w["name"])),
                  offered={e: sorted(workers[a]["name"] for a in _offering(workers, resources(e, config.platform)))
                           for e in config.engines})
    return status


class AgentRunner:
    """An engine runner that sends each request to a build agent (see the module's docstring)."""

    def __init__(self, engine: str, config: BuildAgentsConfig | None, *, platform: str | None = None,
                 problem: str | None = None) -> None:
        self.name = engine
        self.engine = engine
        self.config = config
        self.platform = platform
        self.problem = problem if problem is not None or config is not None else "no build agents are configured"

    def capabilities(self) -> Capabilities:
        return Capabilities(renders_frames=False, measures_frame_times=False, out_of_process=True,
                            implementation="agent",
                            description=f"{self.engine} on a build agent (what it can do is the agent's)")

    def check(self) -> EnvironmentStatus:
        """The configuration only (no connection: ``gcv engines`` asks the scheduler)."""
        if self.problem is not None or self.config is None:
            return EnvironmentStatus(self.engine, "misconfigured", self.problem or "no build agents")
        return EnvironmentStatus(self.engine, "available", f"on build agents through {self.config.scheduler}",
                                 {"resources": resources(self.engine, self.platform)})

    def _fail(self, request: RunRequest, kind: str, message: str, notes: list[str] | None = None) -> RunResult:
        return RunResult(run_id=request.run_id, engine=self.engine, ok=False, error_kind=kind, error=message,
                         phase="launch" if kind in ("no_agent", "agent_unreachable", "agents_misconfigured") else None,
                         notes=list(notes or []))

    def run(self, request: RunRequest, *, timeout: float | None = None, deadline: float | None = None) -> RunResult:
        if self.problem is not None or self.config is None:
            return self._fail(request, "agents_misconfigured", self.problem or "no build agents are configured")
        if deadline is not None and time.time() >= deadline:
            return self._fail(request, "deadline", "the deadline had passed before the run was sent to a build agent")
        out = Path(request.output_dir)
        folder = RunFolderLock(out)
        try:
            out.mkdir(parents=True, exist_ok=True)
            notes = folder.acquire()
        except RunFolderBusy as exc:
            return self._fail(request, "run_folder_busy", str(exc))
        except OSError as exc:
            return self._fail(request, "output_error", f"cannot prepare {out}: {exc.strerror}")
        try:
            write_json_atomic(out / "request.json", request.model_dump(mode="json"))
            return self._run(request, self.config, timeout, deadline, notes)
        except OSError as exc:
            return self._fail(request, "output_error", f"cannot write into {out}: {exc.strerror or exc}")
        finally:
            folder.release()

    # ------------------------------------------------------------------ one dispatch
    def _run(self, request: RunRequest, config: BuildAgentsConfig, timeout: float | None, deadline: float | None,
             notes: list[str]) -> RunResult:
        started = time.monotonic()
        limit = time.time() + (timeout if timeout is not None else config.run_timeout_seconds)
        if deadline is not None:
            limit = min(limit, deadline)
        payload, digest = request_payload(request)
        name = f"{DATASET_PREFIX}{self.engine}-{self.platform or 'any'}-{digest}"
        needed = resources(self.engine, self.platform)
        try:
            client = _client(config)
        except ImportError:
            return self._fail(request, "agents_misconfigured", INSTALL_HINT)
        except (OSError, TimeoutError) as exc:
            return self._fail(request, "agent_unreachable", f"cannot reach the build agents' scheduler "
                                                            f"{config.scheduler} within "
                                                            f"{config.connect_timeout_seconds:g} s: {exc}")
        try:
            outcome = self._dispatch(client, request, name, payload, digest, needed, limit, deadline, notes)
            if isinstance(outcome, RunResult):  # nothing came back: the log says what the driver saw
                log = Path(request.output_dir) / LOG_FILE
                log.write_text("".join(f"{AGENT_LOG_PREFIX}{line}\n" for line in [
                    *outcome.notes, f"{outcome.error_kind}: {outcome.error}"]), encoding="utf-8")
                return outcome.model_copy(update={"log_path": str(log)})
            return self._deliver(request, outcome, digest, config, notes, started)
        finally:
            client.close(timeout=config.connect_timeout_seconds)

    def _submit(self, client: Any, name: str, attempt: int, payload: bytes, digest: str, needed: dict[str, float],
                limit: float, deadline: float | None) -> Any:
        future = client.submit(run_on_agent, self.engine, payload, digest, timeout=max(1.0, limit - time.time()),
                               deadline=deadline, key=f"{name}-a{attempt}", resources=needed, pure=False)
        if attempt > 1:
            try:
                client.unpublish_dataset(name)
            except KeyError:
                pass
        client.publish_dataset(future, name=name)  # outlives this process: a resume collects it
        return future

    def _forget(self, client: Any, name: str, future: Any) -> None:
        """Nobody will collect this run: release its name and cancel it (best effort)."""
        try:
            client.unpublish_dataset(name)
        except (KeyError, OSError, TimeoutError):
            pass
        try:
            client.cancel([future])
        except (OSError, TimeoutError):
            pass

    def _dispatch(self, client: Any, request: RunRequest, name: str, payload: bytes, digest: str,
                  needed: dict[str, float], limit: float, deadline: float | None, notes: list[str]
                  ) -> Parcel | RunResult:
        from distributed import KilledWorker  # with the client above

        wanted = ",".join(f"{k}={v:g}" for k, v in needed.items())
        future = client.get_dataset(name, default=None)
        attempt = 1
        if future is not None:
            notes.append(f"found request {digest[:12]}... already on the build agents, sent by an earlier gcv process "
                         "(interrupted or killed): collected that run; it was not sent again")
        else:
            workers = _workers(client)
            if not _offering(workers, needed):
                return self._fail(request, "no_agent", f"no build agent offers {wanted} ({_declared(workers)}); "
                                                       f"start one with `dask worker {self.config.scheduler if self.config else 'SCHEDULER'} "
                                                       f"--resources \"{wanted}\"` on a machine with the engine")
            future = self._submit(client, name, attempt, payload, digest, needed, limit, deadline)
        seen: list[str] = []
        lost: list[str] = []     # the lost workers the driver saw running it
        earlier = 0              # deaths counted against attempts before this one
        waiting_since: float | None = None

        def lost_run(why: str, count: int) -> RunResult:
            self._forget(client, name, future)
            unseen = count - len(lost)
            named = ", ".join(lost) + (f"{' and ' if lost else ''}{unseen} the driver did not see" if unseen > 0 else "")
            return self._fail(request, "agent_lost", f"{why}; the run was given up after {MAX_RETRIES} retry "
                                                     f"on another worker (lost: {named})", notes)

        while True:
            remaining = limit - time.time()
            if remaining <= 0:
                self._forget(client, name, future)
                kind = "deadline" if deadline is not None and limit >= deadline else "timeout"
                return self._fail(request, kind, f"the run on a build agent did not finish in time ({kind} passed "
                                                 "while it was queued or running); it was cancelled", notes)
            try:
                raw = future.result(timeout=min(POLL_SECONDS, remaining))
            except TimeoutError:
                if not future.done():
                    workers = _workers(client)
                    where = [w for w, keys in client.processing().items() if future.key in keys]
                    for w in seen:
                        if w not in workers and w not in lost:
                            lost.append(w)
                            notes.append(f"build agent {w} was lost while it ran the request")
                    count = max(len(lost), earlier + _deaths(client, future.key))
                    if count > MAX_RETRIES:
                        return lost_run(f"{count} build agents died while running it", count)
                    if where:
                        if where[0] not in seen:
                            seen.append(where[0])
                            LOG.info("request %s... is running on build agent %s", digest[:12], where[0])
                        waiting_since = None
                    elif not _offering(workers, needed):
                        waiting_since = waiting_since or time.monotonic()
                        if time.monotonic() - waiting_since > (self.config.agent_wait_seconds if self.config else 0):
                            self._forget(client, name, future)
                            return self._fail(request, "no_agent",
                                              f"no connected build agent offers {wanted} any more "
                                              f"({_declared(workers)}); waited "
                                              f"{self.config.agent_wait_seconds if self.config else 0:g} s", notes)
                    continue
            except KilledWorker as exc:
                gone = getattr(getattr(exc, "last_worker", None), "address", None) or "?"
                if gone not in lost:
                    lost.append(gone)
                    notes.append(f"build agent {gone} was lost while it ran the request")
                count = max(len(lost), earlier + max(1, getattr(exc, "allowed_failures", 0) + 1))
                if count > MAX_RETRIES or attempt > MAX_RETRIES:
                    return lost_run("the scheduler gave the run up: every worker that took it died", count)
                earlier = count
                attempt += 1
                notes.append(f"sent the request again (attempt {attempt})")
                future = self._submit(client, name, attempt, payload, digest, needed, limit, deadline)
                continue
            except Exception as exc:  # noqa: BLE001 - the task's own failure, or a cancelled run: recorded
                self._forget(client, name, future)
                if future.status == "cancelled":
                    return self._fail(request, "agent_lost", "the scheduler dropped the run (restarted, or someone "
                                                             "cancelled it)", notes)
                return self._fail(request, "agent_error", f"the run failed on the build agent: "
                                                          f"{type(exc).__name__}: {exc}", notes)
            try:
                client.unpublish_dataset(name)
            except (KeyError, OSError, TimeoutError):
                pass
            try:
                parcel = unpack(raw, request, digest)
            except TransferError as exc:
                return self._fail(request, "transfer_corrupt", str(exc), notes)
            # a retry that finished between two looks: the worker seen running it is gone all the same
            workers = _workers(client)
            for w in seen:
                if w != parcel.worker.address and w not in workers and w not in lost:
                    lost.append(w)
                    notes.append(f"build agent {w} was lost while it ran the request")
            return parcel

    # ------------------------------------------------------------------ the files, checked
    def _deliver(self, request: RunRequest, parcel: Parcel, digest: str, config: BuildAgentsConfig,
                 notes: list[str], started: float) -> RunResult:
        out = Path(request.output_dir)
        (out / TELEMETRY_FILE).unlink(missing_ok=True)
        if (out / FRAMES_DIR).is_dir():
            for old in (out / FRAMES_DIR).glob("*.png"):
                old.unlink()
        files = dict(parcel.files)
        missing = [f for f in parcel.result.get("frames") or [] if f not in files]
        if missing:
            return self._fail(request, "transfer_corrupt", f"the agent names {len(missing)} frame(s) it did not send: "
                                                           f"{missing[:5]}", notes)
        lines = list(notes)
        lines.append(f"received request {digest[:12]}... through the scheduler {config.scheduler}: "
                     f"{len(parcel.files)} file(s), each sha256 checked ({parcel.seconds:g} s on the agent)")
        files.setdefault(LOG_FILE, b"")
        for rel, data in sorted(files.items()):
            if rel == LOG_FILE:
                data += "".join(f"{AGENT_LOG_PREFIX}{line}\n" for line in lines).encode()
            path = out / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_bytes(data)
            tmp.replace(path)
        result = RunResult.model_validate(parcel.result)
        update: dict[str, Any] = {"log_path": str(out / LOG_FILE), "frames": [str(out / f) for f in result.frames],
                                  "notes": [*result.notes, *notes, f"ran on build agent {parcel.worker.words()}"],
                                  "duration_ms": int((time.monotonic() - started) * 1000)}
        if result.ok:
            telemetry, kind, message = check_telemetry(request, out / TELEMETRY_FILE)
            if telemetry is None:
                return self._fail(request, kind or "bad_telemetry", f"the agent's telemetry: {message}", notes)
            if telemetry != result.telemetry:
                return self._fail(request, "transfer_corrupt", "the agent's result and its telemetry.json differ",
                                  notes)
            update.update(telemetry=telemetry, telemetry_path=str(out / TELEMETRY_FILE))
        return result.model_copy(update=update)


def agent_runner(workspace: Path, engine: str, platform: str | None) -> AgentRunner:
    """The runner of a workflow whose settings send its runs to build agents: the workspace's
    ``build_agents.toml`` as it is now (a missing or invalid file fails each run, naming it)."""
    try:
        config = load_config(workspace)
    except BuildAgentsConfigError as exc:
        return AgentRunner(engine, None, platform=platform, problem=str(exc))
    if config is None:
        return AgentRunner(engine, None, platform=platform,
                           problem=f"this workflow's runs go to build agents, but {config_path(workspace)} does "
                                   "not exist")
    return AgentRunner(engine, config, platform=platform)


__all__ = ["AgentRunner", "BuildAgentsConfig", "BuildAgentsConfigError", "CONFIG_FILE", "PLATFORMS", "agent_runner",
           "cluster_status", "config_path", "dispatched", "load_config", "resources"]
