"""One workflow's evidence as a set of readable bundle files, collected from the workspace.

The workspace names everything by hash (``artifacts/<sha256>.json``); a reviewer wants
``configs/candidate_2.json``. ``collect`` reads a workflow and lays it out under readable
names, scrubbed of secrets and machine paths (``gcv.evidence.scrub``), together with
``index.json``, the map from the workflow's rounds to those files. The same in-memory
``Evidence`` is what the report renders and what ``verify`` rebuilds from a bundle, so a
report can be drawn from either.

Two rewrites keep the bundle free of machine paths while staying checkable:

* a run request's ``output_dir`` (an absolute path) becomes ``runs/<run_id>``, its path
  relative to the workflow directory. The request then hashes differently; the bundle's
  ``workflow/state.json`` names the bundle's hash, and ``index.json`` lists the rewrite.
* any other artifact whose content the scrubber had to change (a secret or a path found
  inside it) is renamed the same way, and ``index.json["rehashed"]`` maps the workspace
  hash to the bundle hash so the event log (which cannot be rewritten without breaking its
  hash chain) can still be compared with the state. An event that itself had to be
  scrubbed is listed in ``index.json["redactions"]["events"]``: its link in the chain is
  still checked, its own content hash cannot be.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from gcv.contract.activity_keys import requirement_key, review_key
from gcv.contract.canonical import canonical_json, content_hash
from gcv.evidence.index import (BaselineFiles, BundleIndex, Redactions, RequirementFiles, RoundFiles, RunFiles,
                                run_label)
from gcv.evidence.scrub import Scrubber
from gcv.store.catalog import Workspace
from gcv.store.errors import DamagedRecord, StoreError
from gcv.store.safe_open import ARTIFACT_CAP, check_workspace_file, read_workspace_bytes
from gcv.store.logs import jsonl_lines
from gcv.store.workflow_dir import WorkflowDir
from gcv.workflow.events import Event, parse_events
from gcv.workflow.state import Round, RunRecord, WorkflowState

BUNDLE_FORMAT = "gcv.evidence_bundle/1"
MANIFEST_NAME = "manifest.json"
ENVELOPE_NAME = "manifest.dsse.json"
INDEX_NAME = "index.json"
REPORT_NAME = "report.html"
STATE_NAME = "workflow/state.json"
EVENTS_NAME = "workflow/events.jsonl"
REQUEST_NAME = "request.txt"
GOAL_NAME = "goal.json"
INTENT_NAME = "intent.json"
# Engine logs go into a bundle whole up to LOG_CAP bytes; past it, the head and the tail.
LOG_CAP = 256 << 10
LOG_HEAD = 64 << 10
# Files that are not subjects of the manifest: the manifest itself and its signature.
NOT_SUBJECTS = frozenset({MANIFEST_NAME, ENVELOPE_NAME})


class EvidenceError(Exception):
    """The workflow cannot be turned into evidence (missing, corrupted, would leak).

    ``damaged`` says that a record of the workflow is missing or damaged (the workflow is
    unusable as it stands, as every command says: exit 2), rather than that writing failed."""

    def __init__(self, message: str, *, damaged: bool = False) -> None:
        self.damaged = damaged
        super().__init__(message)


def pretty_json(value: Any) -> bytes:
    return (json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def as_workspace(workspace: Workspace | Path | str) -> Workspace:
    return workspace if isinstance(workspace, Workspace) else Workspace(Path(workspace))


class Evidence:
    """A bundle's files in memory, with typed access to the parts a reader needs."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files
        # ``index.json`` and ``state.json`` as written: what the integrity and schema checks and a
        # replay's comparison read; ``index`` and ``state`` are the same, typed
        self.raw_index: dict[str, Any] = json.loads(files[INDEX_NAME])
        # ``state.json`` as written: what its schema check and a replay's comparison read
        self.raw_state: dict[str, Any] = json.loads(files[STATE_NAME])
        self.scrubber: Scrubber | None = None  # set by ``collect``: what the bundle must not contain

    @property
    def wf_id(self) -> str:
        return self.state.id

    def has(self, name: str | None) -> bool:
        return bool(name) and name in self.files

    def json(self, name: str | None) -> Any:
        if not name or name not in self.files:
            return None
        return json.loads(self.files[name])

    def text(self, name: str) -> str:
        return self.files[name].decode("utf-8")

    def events(self) -> list[dict[str, Any]]:
        """The event log's records as written (what the hash chain covers)."""
        return [json.loads(line) for line in jsonl_lines(self.files.get(EVENTS_NAME, b"")) if line.strip()]

    def history(self) -> list[Event]:
        """The event log, typed (gcv.workflow.events); ``HistoryError`` names a bad event and field."""
        return parse_events(self.events())

    @cached_property
    def state(self) -> WorkflowState:
        """``state.json``, typed; ``EvidenceError`` names the first field that is not a workflow state's."""
        try:
            return WorkflowState.model_validate(self.raw_state)
        except ValidationError as exc:
            raise EvidenceError(f"{STATE_NAME} is not a workflow state ({_first_error(exc)})", damaged=True) from None

    @cached_property
    def index(self) -> BundleIndex:
        """``index.json``, typed; ``EvidenceError`` names the first field that is not an index's."""
        try:
            return BundleIndex.model_validate(self.raw_index)
        except ValidationError as exc:
            raise EvidenceError(f"{INDEX_NAME} is not a bundle index ({_first_error(exc)})", damaged=True) from None

    # ---- convenience views (None when the workflow never got that far) ----------------
    def baseline_config(self) -> Any:
        return self.json(self.index.baseline.config)

    def goal(self) -> Any:
        return self.json(self.index.goal)

    def intent(self) -> Any:
        return self.json(self.index.intent)

    def rounds(self) -> list[RoundFiles]:
        return self.index.rounds

    def round_files(self, round_no: int) -> RoundFiles | None:
        return self.index.round_files(round_no)

    def fairness(self, round_no: int | None) -> Any:
        """The fair-fight report of the baseline (None) or a round, when the analysis ran."""
        if round_no is None:
            return self.json(self.index.baseline.fairness)
        entry = self.round_files(round_no)
        return self.json(entry.fairness) if entry else None

    def run_entry(self, round_no: int | None) -> RunFiles | None:
        return self.index.run_files(round_no)

    def telemetry(self, round_no: int | None) -> Any:
        run = self.run_entry(round_no)
        return self.json(run.telemetry) if run else None

    def evaluation(self, round_no: int) -> Any:
        entry = self.round_files(round_no)
        return self.json(entry.evaluation) if entry else None

    def state_round(self, round_no: int) -> Round | None:
        return next((r for r in self.state.rounds if r.round == round_no), None)

    def final_round(self) -> int | None:
        """The round whose candidate the workflow ended on (best, or the last evaluated)."""
        if self.state.best_round:
            return self.state.best_round
        evaluated = [r.round for r in self.state.rounds if r.evaluation_hash]
        return evaluated[-1] if evaluated else None


def as_json(value: BaseModel | None) -> Any:
    """A part of the typed state as ``state.json`` writes it (None stays None)."""
    return None if value is None else value.model_dump(mode="json")


def as_json_value(value: StrEnum | None) -> str | None:
    """An enum of the typed state as ``state.json`` writes it (its value; None stays None)."""
    return None if value is None else str(value)


def review_record(rnd: Round) -> dict[str, Any]:
    """``reviews/round_N.json``: what the review of round ``rnd`` found and allowed."""
    return {"round": rnd.round, "passed": rnd.passed, "miss_score": rnd.miss_score, "fingerprint": rnd.fingerprint,
            "allowed": as_json(rnd.allowed), "verdict": as_json(rnd.verdict), "gate": as_json(rnd.gate)}


def repair_record(rnd: Round, to_candidate: str | None) -> dict[str, Any]:
    """``repairs/round_N.json``: the repair of round ``rnd`` (which must have one), from its candidate to the next."""
    assert rnd.repair is not None
    return {"round": rnd.round, "intent": rnd.gate.intent if rnd.gate else None,
            "phase_id": rnd.gate.phase_id if rnd.gate else None,
            "from_candidate": rnd.candidate_hash, "to_candidate": to_candidate, **as_json(rnd.repair)}


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    return f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"


def _replace_hashes(value: Any, rehash: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return rehash.get(value, value)
    if isinstance(value, dict):
        return {k: _replace_hashes(v, rehash) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_hashes(v, rehash) for v in value]
    return value


class _Collector:
    def __init__(self, ws: Workspace, d: WorkflowDir, environ: Mapping[str, str] | None) -> None:
        self.ws = ws
        self.d = d
        self.scrub = Scrubber(workflow_root=d.root, workspace_root=ws.root, environ=environ)
        self.files: dict[str, bytes] = {}
        self.rehash: dict[str, str] = {}  # workspace hash -> bundle hash, for the state
        self.published: dict[str, str] = {}  # the same for scrubbed artifacts (events may name them)
        self.redacted_files: list[dict[str, str]] = []

    def artifact(self, digest: str, what: str) -> Any:
        try:
            return self.d.get(digest)
        except StoreError as exc:
            raise EvidenceError(f"{what}: {exc}", damaged=isinstance(exc, DamagedRecord)) from None

    def put(self, name: str, value: Any, *, digest: str | None = None) -> str:
        clean = self.scrub.value(value)
        if digest is not None and clean != value:
            self.rehash[digest] = self.published[digest] = content_hash(clean)
            self.redacted_files.append({"file": name, "reason": "a secret or a machine path was scrubbed"})
        self.files[name] = pretty_json(clean)
        return name

    def put_artifact(self, name: str, digest: str | None, what: str) -> str | None:
        if not digest:
            return None
        return self.put(name, self.artifact(digest, what), digest=digest)

    def put_required(self, name: str, digest: str, what: str) -> str:
        """An artifact every bundle has (a config): its name; ``EvidenceError`` when it is missing."""
        if not digest:
            raise EvidenceError(f"{what}: the state names no hash", damaged=True)
        return self.put(name, self.artifact(digest, what), digest=digest)

    def run(self, label: str, record: RunRecord | None) -> RunFiles | None:
        if record is None:
            return None
        base = f"runs/{label}"
        entry = RunFiles(run_id=record.run_id)
        if record.request_hash:
            request = self.artifact(record.request_hash, f"run request of {label}")
            rewritten = dict(request)
            rewritten["output_dir"] = f"runs/{record.run_id}"  # workflows recorded before it was relative
            clean = self.scrub.value(rewritten)
            if clean != request:
                self.rehash[record.request_hash] = content_hash(clean)
                self.redacted_files.append({"file": f"{base}/request.json",
                                            "reason": "output_dir made relative to the workflow directory"})
            self.files[f"{base}/request.json"] = pretty_json(clean)
            entry.request = f"{base}/request.json"
        entry.telemetry = self.put_artifact(f"{base}/telemetry.json", record.telemetry_hash,
                                               f"telemetry of {label}")
        root = self.d.root.resolve()
        for rel in record.frames:
            path = (self.d.root / rel).resolve()
            if root not in path.parents:
                raise EvidenceError(f"frame path {rel!r} of {label} leaves the workflow directory")
            try:  # a regular file of the workflow (a FIFO or a device there never blocks the bundle)
                data = read_workspace_bytes(path, within=root, cap=ARTIFACT_CAP)
            except OSError as exc:
                raise EvidenceError(f"frame {rel} of {label} is missing: {exc.strerror}", damaged=True) from None
            if data is None:
                raise EvidenceError(f"frame {rel} of {label} is missing", damaged=True)
            name = f"{base}/frames/{Path(rel).name}"
            self.files[name] = data
            entry.frames.append(name)
        log = self.d.runs / record.run_id / "run.log"
        if record.run_id and check_workspace_file(log, within=root):  # no link out of the workflow
            self.files[f"{base}/run.log"] = self.scrub.text(self._capped_log(log, f"{base}/run.log")).encode()
            entry.log = f"{base}/run.log"
        return entry

    def _capped_log(self, path: Path, name: str) -> str:
        """The engine's log, or, when it is larger than LOG_CAP, its head and tail with a line
        saying what was left out (a log of repeated lines would otherwise make the bundle a
        "zip bomb" to its own reader). The cut is listed in index.json and the manifest."""
        size = path.stat().st_size
        if size <= LOG_CAP:
            return path.read_text(encoding="utf-8", errors="replace")
        with open(path, "rb") as fh:
            head = fh.read(LOG_HEAD)
            fh.seek(size - (LOG_CAP - LOG_HEAD))
            tail = fh.read()
        left_out = size - len(head) - len(tail)
        self.redacted_files.append({"file": name, "reason": f"engine log truncated: {size} bytes, the first "
                                                            f"{len(head)} and the last {len(tail)} kept"})
        return (head.decode("utf-8", errors="replace")
                + f"\n[gcv: {left_out} bytes of this engine log left out; the workspace keeps the whole log]\n"
                + tail.decode("utf-8", errors="replace"))

    def agent(self, name: str, key: str, result: Any, **extra: Any) -> str | None:
        if result is None:
            return None
        # the state names each call record (and the requirement decision) by its hash
        for value in [*result.get("calls", []), result.get("decision")]:
            if value is not None:
                clean = self.scrub.value(value)
                if clean != value:
                    self.rehash[content_hash(value)] = self.published[content_hash(value)] = content_hash(clean)
        before = dict(self.scrub.replaced)
        name = self.put(name, {"activity": key, **extra, **result})
        if self.scrub.replaced != before:
            self.redacted_files.append({"file": name, "reason": "a secret or a machine path was scrubbed"})
        return name


def collect(workspace: Workspace | Path | str, wf_id: str, *,
            environ: Mapping[str, str] | None = None) -> Evidence:
    """Lay out workflow ``wf_id`` as bundle files (without report and manifest)."""
    ws = as_workspace(workspace)
    if not ws.exists(wf_id):
        raise EvidenceError(f"no workflow {wf_id!r} in {ws.root}; see `gcv list`")
    d = ws.workflow_dir(wf_id)
    try:
        state = d.read_state()  # the JSON as written: scrubbed and re-hashed into the bundle below
        # a damaged, truncated, emptied or deleted log is refused here, never exported as if it
        # were the history
        d.check_history(state)
        activities = d.activities()
    except StoreError as exc:
        raise EvidenceError(f"workflow {wf_id} cannot be exported: {exc}",
                            damaged=isinstance(exc, DamagedRecord)) from None
    try:
        st = WorkflowState.model_validate(state)
    except ValidationError as exc:
        raise EvidenceError(f"workflow {wf_id} cannot be exported: its state.json is not a workflow state "
                            f"({_first_error(exc)})", damaged=True) from None
    # the events the state includes: any after them belong to a step that never finished
    events = d.events()[: st.event_seq + 1]
    c = _Collector(ws, d, environ)

    c.files[REQUEST_NAME] = (c.scrub.text(st.request) + "\n").encode("utf-8")
    goal = c.put_artifact(GOAL_NAME, st.goal_hash, "goal")
    intent = c.put_artifact(INTENT_NAME, st.requirement.intent_hash if st.requirement else None, "intent")
    baseline = BaselineFiles(
        config=c.put_required("configs/baseline.json", st.baseline_hash, "baseline config"),
        run=c.run("baseline", st.baseline_run),
        prescreen=c.run("baseline_prescreen", st.baseline_prescreen),
        population=c.put_artifact("populations/baseline.json",
                                  st.baseline_population.summary_hash if st.baseline_population else None,
                                  "population summary of the baseline"),
        fairness=c.put_artifact("analysis/baseline_fairness.json",
                                st.baseline_fairness.report_hash if st.baseline_fairness else None,
                                "fair-fight analysis of the baseline"))
    attempts: list[str] = []
    for attempt in range(1, len(st.answers) + 2):
        key = requirement_key(attempt)
        if key in activities:
            name = "agents/requirement.json" if attempt == 1 else f"agents/requirement_{attempt}.json"
            attempts.append(c.agent(name, key, activities[key], agent="requirement") or name)
    # ``agent`` is the decision the workflow went on with; ``attempts`` every one, in order
    requirement = RequirementFiles(agent=attempts[-1], attempts=attempts) if attempts else None
    rounds = st.rounds
    entries: list[RoundFiles] = []
    for i, rnd in enumerate(rounds):
        n = rnd.round
        label = run_label(n)
        entry = RoundFiles(
            round=n, origin=rnd.origin,
            config=c.put_required(f"configs/{label}.json", rnd.candidate_hash, f"config of {label}"),
            diff=c.put_artifact(f"diffs/{label}.json", rnd.diff_hash, f"diff of {label}"),
            validation=c.put_artifact(f"validation/{label}.json", rnd.validation_hash,
                                      f"validation report of {label}"),
            prescreen=c.run(f"{label}_prescreen", rnd.prescreen),
            run=c.run(label, rnd.run),
            evaluation=c.put_artifact(f"evaluations/{label}.json", rnd.evaluation_hash, f"evaluation of {label}"),
            population=c.put_artifact(f"populations/{label}.json",
                                      rnd.population.summary_hash if rnd.population else None,
                                      f"population summary of {label}"),
            fairness=c.put_artifact(f"analysis/{label}_fairness.json",
                                    rnd.fairness.report_hash if rnd.fairness else None,
                                    f"fair-fight analysis of {label}"),
            agent=c.agent(f"agents/review_round_{n}.json", review_key(n), activities.get(review_key(n)),
                          agent="review", round=n))
        if rnd.allowed is not None or rnd.gate is not None:
            entry.review = c.put(f"reviews/round_{n}.json", review_record(rnd))
        if rnd.repair is not None:
            nxt = rounds[i + 1].candidate_hash if i + 1 < len(rounds) else None
            entry.repair = c.put(f"repairs/round_{n}.json", repair_record(rnd, nxt))
        entries.append(entry)

    # the state, with every hash pointing at the bundle's (scrubbed) files
    clean_state = _replace_hashes(c.scrub.value(state), c.rehash)
    # the repair records name candidate hashes too
    for entry in entries:
        if entry.repair:
            c.files[entry.repair] = pretty_json(_replace_hashes(json.loads(c.files[entry.repair]), c.rehash))
    c.files[STATE_NAME] = pretty_json(clean_state)

    lines: list[str] = []
    redacted_events: list[int] = []
    for event in events:
        clean = c.scrub.value(event)
        if clean != event:
            redacted_events.append(int(event["seq"]))
        lines.append(canonical_json(clean))
    c.files[EVENTS_NAME] = ("".join(line + "\n" for line in lines)).encode("utf-8")

    index = BundleIndex(
        bundle_format=BUNDLE_FORMAT, workflow_id=wf_id, request=REQUEST_NAME, state=STATE_NAME, events=EVENTS_NAME,
        report=REPORT_NAME, goal=goal, intent=intent, requirement=requirement, baseline=baseline, rounds=entries,
        rehashed=dict(sorted(c.published.items())),
        redactions=Redactions(files=sorted(c.redacted_files, key=lambda f: f["file"]), events=redacted_events,
                              kinds=sorted(c.scrub.replaced)))
    c.files[INDEX_NAME] = pretty_json(index.to_json())
    evidence = Evidence(c.files)
    evidence.scrubber = c.scrub
    return evidence

