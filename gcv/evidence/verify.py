"""``verify_bundle``: does a bundle hold together, and (with replay) does it reproduce?

Named checks, in order; the first failing one names what is wrong:

integrity (the bytes are the bytes that were exported)
    integrity.archive      the zip/folder is readable and safe (``gcv.store.safezip``)
    integrity.manifest     manifest.json is an in-toto Statement v1 with our predicate
    integrity.files        no file missing, none extra (beside manifest.json / manifest.dsse.json)
    integrity.digests      every subject's sha256
    integrity.merkle_root  the RFC 6962 root over the subjects equals predicate.merkle_root
    integrity.signature    the DSSE envelope, when present ("unsigned" otherwise)
    integrity.event_chain  seq, prev_hash and hash of every event; head matches the manifest

consistency (the files agree with each other)
    consistency.state_schema the state matches schemas/workflow_state.schema.json
    consistency.index        index.json names existing files and every payload file
    consistency.events       the state agrees with its hash-chained event log
    consistency.configs      config, goal, intent, request and decision hashes match the state; the
                             intent is what the goal asks for (recomputed)
    consistency.validation   every candidate re-validates to its recorded report
    consistency.diffs        every diff is diff_configs(baseline, candidate)
    consistency.runs         run requests compile from their configs; telemetry and frames
                             belong to their requests
    consistency.evaluations  evaluation files match the state's scores and fingerprints
    consistency.populations  bot-population summaries match the state and give its checks
    consistency.fairness     fair-fight reports match the state's hashes and verdicts
    consistency.agents       agent call records match the state's hashes and usage
    consistency.reviews      review and repair records match the state
    consistency.verdict      the terminal status follows from the final evaluation, gate and decision
    consistency.manifest     the manifest's predicate says what the state says

replay (``replay=True``; see ``gcv.evidence.replay``)
    replay.runs, replay.populations, replay.loop (the loop re-run on the recorded inputs),
    replay.report

Integrity alone proves only that nothing changed since the manifest was written. Anyone
can rewrite a bundle and its manifest; a signature (with a key you trust) or the replay
checks are what tie the content to what really happened. See docs/evidence.md.
"""

from __future__ import annotations

import functools
import json
import re
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from pydantic import ValidationError

from engine_runners.protocol import RunRequest
from gcv.batch.population import PopulationSummary, evaluate_population
from gcv.contract.canonical import canonical_json, content_hash, sha256_hex
from gcv.contract.goal import Goal, with_targets
from gcv.contract.request_intent import request_intent
from gcv.contract.models import BulletHellConfig
from gcv.contract.status import HUMAN_DECISIONS, LOOP_END, Reason, Status
from gcv.evaluation.models import Evaluation
from gcv.evidence.checks import CheckResult, Outcome, Skip, first_difference, run_check, short
from gcv.evidence.collect import (ENVELOPE_NAME, EVENTS_NAME, INDEX_NAME, MANIFEST_NAME, REPORT_NAME, EvidenceError,
                                  REQUEST_NAME, STATE_NAME, Evidence, as_json, as_json_value, repair_record,
                                  review_record, run_label)
from gcv.evidence.index import RunFiles
from gcv.evidence.manifest import PREDICATE_TYPE, STATEMENT_TYPE, subject_pairs
from gcv.evidence.merkle import merkle_root
from gcv.evidence.replay import REPLAY_CHECKS, replay_checks
from gcv.evidence.signing import TrustStatement, trust_statement, verify_envelope
from gcv.evidence.versions import evidence_version
from gcv.sim.players import player_label
from gcv.sim.program import compile_program, program_hash
from gcv.sim.telemetry_model import Telemetry
from gcv.store.logs import GENESIS, event_hash, jsonl_lines
from gcv.store.safezip import LIMITS, BundleReadError, Limits, read_bundle
from gcv.validation.diff import diff_configs
from gcv.validation.validate import validate
from gcv.workflow.events import CreatedEvent, HistoryError, trace_lines, transitions
from gcv.workflow.state import (STATE_SCHEMA_FILE, FairnessRecord, PopulationRecord, RunRecord, WorkflowState,
                                state_json_schema)
from gcv.workflow.states import DECISION_TARGET, IllegalTransition, check_transition

@functools.lru_cache(maxsize=1)
def state_validator() -> Draft202012Validator:
    return Draft202012Validator(state_json_schema())


def _failed_checks(evaluation: dict[str, Any]) -> str:
    failed = [c.get("name") for c in [*evaluation.get("checks", []), *evaluation.get("intent_checks", [])]
              if not c.get("passed")]
    return ", ".join(str(n) for n in failed) or "no check failed, yet passed is false"


HEX64 = re.compile(r"^[0-9a-f]{64}$")


@dataclass
class VerifyReport:
    bundle: str
    replay: bool
    checks: list[CheckResult] = field(default_factory=list)
    unreadable: bool = False
    signature: dict[str, Any] | None = None
    workflow_id: str | None = None
    status: str | None = None
    merkle_root: str | None = None

    @property
    def ok(self) -> bool:
        return not self.unreadable and all(c.status != "failed" for c in self.checks)

    @property
    def first_failure(self) -> CheckResult | None:
        return next((c for c in self.checks if c.status == "failed"), None)

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else (2 if self.unreadable else 1)

    @property
    def trust(self) -> str:
        """unsigned | integrity (signed with a key inside the bundle) | trusted (a key you hold) | none."""
        return (self.signature or {}).get("trust") or "none"

    def trust_statement(self) -> TrustStatement:
        """The words ``gcv verify`` prints and the console's review page shows."""
        return trust_statement(self.trust, (self.signature or {}).get("keyid"))

    def check(self, name: str) -> CheckResult | None:
        return next((c for c in self.checks if c.name == name), None)

    def failed(self) -> list[str]:
        return [c.name for c in self.checks if c.status == "failed"]

    def as_dict(self) -> dict[str, Any]:
        first = self.first_failure
        return {"bundle": self.bundle, "ok": self.ok, "exit_code": self.exit_code, "replay": self.replay,
                "workflow_id": self.workflow_id, "status": self.status, "merkle_root": self.merkle_root,
                "signature": self.signature, "trust": self.trust, "first_failure": first.name if first else None,
                "unreadable": self.unreadable, "checks": [asdict(c) for c in self.checks]}


# ---------------------------------------------------------------------- integrity
class _Integrity:
    def __init__(self, files: dict[str, bytes], environ: Mapping[str, str] | None, require_signature: bool) -> None:
        self.files = files
        self.environ = environ
        self.require_signature = require_signature
        self.manifest: dict[str, Any] | None = None
        self.signature: dict[str, Any] | None = None

    def manifest_check(self) -> Outcome:
        if MANIFEST_NAME not in self.files:
            return "", ["manifest.json is missing"]
        m = json.loads(self.files[MANIFEST_NAME])
        problems = []
        if not isinstance(m, dict):
            return "", ["manifest.json is not a JSON object"]
        if m.get("_type") != STATEMENT_TYPE:
            problems.append(f"_type is {m.get('_type')!r}, not {STATEMENT_TYPE!r}")
        if m.get("predicateType") != PREDICATE_TYPE:
            problems.append(f"predicateType is {m.get('predicateType')!r}, not {PREDICATE_TYPE!r}")
        subjects = m.get("subject")
        if not isinstance(subjects, list) or not subjects:
            problems.append("subject is not a non-empty list")
        else:
            names = set()
            for s in subjects:
                ok = (isinstance(s, dict) and isinstance(s.get("name"), str) and isinstance(s.get("digest"), dict)
                      and isinstance(s["digest"].get("sha256"), str) and HEX64.match(s["digest"]["sha256"]))
                if not ok:
                    problems.append(f"malformed subject {short(s)}")
                    continue
                if s["name"] in names:
                    problems.append(f"subject {s['name']} is listed twice")
                names.add(s["name"])
        pred = m.get("predicate")
        if not isinstance(pred, dict) or not isinstance(pred.get("merkle_root"), str):
            problems.append("predicate.merkle_root is missing")
        if not problems:
            self.manifest = m
        return f"in-toto Statement v1, {len(subjects or [])} subjects, predicate {PREDICATE_TYPE}", problems

    def _need_manifest(self) -> dict[str, Any]:
        if self.manifest is None:
            raise Skip("no valid manifest to check against")
        return self.manifest

    def files_check(self) -> Outcome:
        m = self._need_manifest()
        listed = {s["name"] for s in m["subject"]}
        present = {n for n in self.files if n not in (MANIFEST_NAME, ENVELOPE_NAME)}
        problems = [f"{n} is listed in the manifest but missing from the bundle" for n in sorted(listed - present)]
        problems += [f"{n} is in the bundle but not listed in the manifest" for n in sorted(present - listed)]
        return f"{len(listed)} files, none missing, none extra", problems

    def digests_check(self) -> Outcome:
        m = self._need_manifest()
        problems = []
        for s in m["subject"]:
            data = self.files.get(s["name"])
            if data is not None and sha256_hex(data) != s["digest"]["sha256"]:
                problems.append(f"{s['name']}: sha256 {sha256_hex(data)[:16]}... does not match the manifest's "
                                f"{s['digest']['sha256'][:16]}...")
        return f"{len(m['subject'])} sha256 digests match", problems

    def merkle_check(self) -> Outcome:
        m = self._need_manifest()
        root = merkle_root(subject_pairs(m["subject"]))
        pred = m["predicate"]
        problems = []
        if root != pred["merkle_root"]:
            problems.append(f"Merkle root of the subjects is {root[:16]}..., the manifest says "
                            f"{str(pred['merkle_root'])[:16]}...")
        elif (pred.get("merkle") or {}).get("root", root) != root:
            problems.append("predicate.merkle.root and predicate.merkle_root disagree")
        return f"Merkle root {root} (RFC 6962, {len(m['subject'])} leaves)", problems

    def signature_check(self) -> Outcome:
        if MANIFEST_NAME not in self.files:
            raise Skip("no manifest.json")
        result = verify_envelope(self.files.get(ENVELOPE_NAME), self.files[MANIFEST_NAME], self.environ)
        self.signature = result.as_dict()
        if result.status == "unsigned":
            if not result.ok:
                return "", [result.message]
            if self.require_signature:
                return "", ["the bundle is unsigned but a signature is required (--require-signature)"]
            return "unsigned (no manifest.dsse.json); integrity rests on the manifest alone", []
        if not result.ok:
            return "", [f"signature {result.status}: {result.message}"]
        return result.message, []

    def chain_check(self) -> Outcome:
        if EVENTS_NAME not in self.files:
            return "", [f"{EVENTS_NAME} is missing"]
        lines = [line for line in jsonl_lines(self.files[EVENTS_NAME]) if line.strip()]
        events = [json.loads(line) for line in lines]
        redacted: set[int] = set()
        if INDEX_NAME in self.files:
            redacted = set((json.loads(self.files[INDEX_NAME]).get("redactions") or {}).get("events", []))
        prev = GENESIS
        for i, ev in enumerate(events):
            if ev.get("seq") != i:
                return "", [f"event {i}: sequence number {ev.get('seq')} out of order"]
            if ev.get("prev_hash") != prev:
                return "", [f"event {i}: prev_hash does not match the previous event's hash"]
            if i not in redacted and event_hash(ev) != ev.get("hash"):
                return "", [f"event {i}: hash does not match its content"]
            prev = ev.get("hash")
        problems = []
        head = (self.manifest or {}).get("predicate", {}).get("event_chain") or {}
        if self.manifest is not None:
            if head.get("head") != (events[-1]["hash"] if events else None) or head.get("events") != len(events):
                problems.append(f"the event log ends at {len(events)} events / {prev[:12]}..., the manifest says "
                                f"{head.get('events')} / {str(head.get('head'))[:12]}...")
        note = f" ({len(redacted)} redacted: links checked, content hashes not)" if redacted else ""
        return f"{len(events)} events chained from genesis to {prev[:12]}...{note}", problems

    def run(self) -> list[CheckResult]:
        return [run_check("integrity.manifest", self.manifest_check),
                run_check("integrity.files", self.files_check),
                run_check("integrity.digests", self.digests_check),
                run_check("integrity.merkle_root", self.merkle_check),
                run_check("integrity.signature", self.signature_check),
                run_check("integrity.event_chain", self.chain_check)]


# ---------------------------------------------------------------------- consistency
class _Consistency:
    def __init__(self, files: dict[str, bytes], manifest: dict[str, Any] | None) -> None:
        self.files = files
        self.manifest = manifest
        self._ev: Evidence | None = None

    @property
    def ev(self) -> Evidence:
        if self._ev is None:
            for name in (INDEX_NAME, STATE_NAME):
                if name not in self.files:
                    raise ValueError(f"{name} is missing")
            self._ev = Evidence(self.files)
        return self._ev

    @property
    def state(self) -> WorkflowState:
        """The bundle's state, typed; a check that needs it is skipped when it is not a workflow
        state (consistency.state_schema names what is wrong)."""
        try:
            return self.ev.state
        except EvidenceError as exc:
            raise Skip(str(exc)) from None

    def _rh(self, digest: Any) -> Any:
        """A workspace hash named in the event log, as the bundle names it."""
        return self.ev.index.rehashed.get(digest, digest)

    def _configs(self) -> tuple[Any, dict[int, Any], Any]:
        ev = self.ev
        baseline = BulletHellConfig.model_validate(ev.baseline_config())
        cands = {e.round: ev.json(e.config) for e in ev.rounds()}
        goal = Goal.model_validate(ev.goal()) if ev.goal() is not None else None
        return baseline, cands, goal

    def state_schema_check(self) -> Outcome:
        if STATE_NAME not in self.files:
            return "", [f"{STATE_NAME} is missing"]
        data = json.loads(self.files[STATE_NAME])
        errors = sorted(state_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
        problems = [f"{STATE_NAME} at $.{'.'.join(str(p) for p in e.absolute_path)}: {e.message}" for e in errors[:5]]
        return f"{STATE_NAME} matches the workflow-state schema ({STATE_SCHEMA_FILE})", problems

    def index_check(self) -> Outcome:
        ev = self.ev
        try:
            idx = ev.index
        except EvidenceError as exc:
            return "", [str(exc)]
        problems = []
        referenced = {INDEX_NAME, STATE_NAME, EVENTS_NAME, REQUEST_NAME, REPORT_NAME}

        def ref(name: Any, what: str) -> None:
            if name is None:
                return
            referenced.add(name)
            if name not in self.files:
                problems.append(f"index.json names {name} ({what}) but the bundle has no such file")

        state = self.state
        if idx.workflow_id != state.id:
            problems.append(f"index.json is for {idx.workflow_id!r}, the state for {state.id!r}")
        ref(idx.goal, "goal")
        ref(idx.intent, "intent")
        ref(idx.baseline.config, "baseline config")
        for name in idx.requirement.all() if idx.requirement else []:
            ref(name, "requirement agent")
        ref(idx.baseline.population, "baseline population")
        ref(idx.baseline.fairness, "baseline fair-fight analysis")
        state_rounds = [r.round for r in state.rounds]
        if [e.round for e in ev.rounds()] != state_rounds:
            problems.append(f"index.json rounds {[e.round for e in ev.rounds()]} are not the state's {state_rounds}")
        if state_rounds != list(range(1, len(state_rounds) + 1)):
            problems.append(f"the state's rounds are numbered {state_rounds}, not 1..{len(state_rounds)}")
        for e in ev.rounds():
            for key, file in e.named():
                ref(file, f"round {e.round} {key}")
        for label, run in idx.runs():
            if run:
                ref(run.request, f"{label} request")
                ref(run.telemetry, f"{label} telemetry")
                ref(run.log, f"{label} log")
                for frame in run.frames:
                    ref(frame, f"{label} frame")
        for name in sorted(self.files):
            if name not in referenced and name not in (MANIFEST_NAME, ENVELOPE_NAME):
                problems.append(f"{name} is not referenced by index.json")
        return f"index.json maps {len(referenced)} files to {len(state_rounds)} round(s)", problems

    def events_check(self) -> Outcome:
        ev = self.ev
        try:
            events = ev.history()
        except HistoryError as exc:
            return "", [f"{EVENTS_NAME}: {exc} (not an event GCV writes)"]
        state = self.state
        problems: list[str] = []
        if not events or not isinstance(events[0], CreatedEvent):
            return "", ["the event log does not start with a 'created' event"]
        created = events[0].data
        problems += self._history_problems(state, ev.events())
        if self._rh(created.baseline_hash) != state.baseline_hash:
            problems.append("the state's baseline is not the one the 'created' event names")
        if created.request != state.request:
            problems.append("the state's request text is not the one the 'created' event records")
        if created.resubmitted_from != state.resubmitted_from:
            problems.append("the state's resubmitted_from is not the one the 'created' event records")
        if created.actor != state.submitted_by:
            problems.append("the state's submitted_by is not the actor the 'created' event records")
        for key in ("engine", "provider", "seed", "player"):
            if getattr(created.settings, key) != getattr(state.settings, key):
                problems.append(f"settings.{key} differs between the state and the 'created' event")
        rounds = {r.round: r for r in state.rounds}
        current: Status = events[0].target
        reason = None
        for e in transitions(events):
            src, dst, data = e.source, e.target, e.data
            if src != current:
                problems.append(f"event {e.seq}: transition from {str(src)!r} but the workflow was {str(current)!r}")
            try:
                check_transition(src, dst)
            except IllegalTransition as exc:
                problems.append(f"event {e.seq}: {exc}")
            current = dst
            if data.answer is not None:  # an answer takes the workflow out of needs_clarification: no reason left
                reason = None
            if data.terminal_reason is not None:
                reason = data.terminal_reason
            n = data.round
            r = rounds.get(n) if n is not None else None
            if dst == Status.AWAITING_AUTHORIZATION and 1 in rounds and \
                    self._rh(data.candidate_hash) != rounds[1].candidate_hash:
                problems.append(f"event {e.seq}: the proposed candidate is not the state's round 1 candidate")
            if dst == Status.AUTHORIZED and data.authorization != state.authorization:
                problems.append(f"event {e.seq}: the authorization differs from the state's")
            if dst == Status.RUNNING_CANDIDATE and src == Status.RUNNING_BASELINE and \
                    self._rh(data.baseline_telemetry) != (state.baseline_run.telemetry_hash
                                                          if state.baseline_run else None):
                problems.append(f"event {e.seq}: the baseline telemetry is not the state's")
            if dst == Status.RUNNING_CANDIDATE and src == Status.REPAIRING:
                if r is None or self._rh(data.candidate_hash) != r.candidate_hash:
                    problems.append(f"event {e.seq}: the repaired candidate of round {n} is not the state's")
            if dst == Status.REVIEWING:
                if r is None or self._rh(data.evaluation_hash) != r.evaluation_hash or data.passed != r.passed:
                    problems.append(f"event {e.seq}: the evaluation of round {n} is not the state's")
            if dst == Status.REPAIRING:
                gate = r.gate if r is not None else None
                if data.intent != (gate.intent if gate else None) or data.phase_id != (gate.phase_id if gate else None):
                    problems.append(f"event {e.seq}: the repair intent of round {n} is not the state's gate result")
            if dst in (Status.ACCEPTED, Status.REVISION_REQUESTED, Status.ROLLED_BACK) and \
                    data.decision != state.human_decision:
                problems.append(f"event {e.seq}: the human decision differs from the state's")
        if current != state.status:
            problems.append(f"the event log ends in {str(current)!r}, the state says {str(state.status)!r}")
        state_reason = str(state.terminal_reason) if state.terminal_reason is not None else None
        if reason != state_reason:
            problems.append(f"the event log's terminal reason is {reason!r}, the state says {state_reason!r}")
        it = iter(trace_lines(events))
        if not all(any(line == t for t in it) for line in state.trace):
            problems.append("the state's trace lines are not in the event log (in order)")
        return f"state agrees with {len(events)} events (status {current})", problems

    @staticmethod
    def _history_problems(state: WorkflowState, events: list[dict[str, Any]]) -> list[str]:
        """The event log reaches exactly as far as the state says (a bundle carries the events its
        state includes, no more, no fewer); states written before ``history`` name ``event_seq``."""
        includes = state.event_seq + 1
        mark = state.history.events if state.history else None
        if len(events) < includes or (mark is not None and len(events) != includes):
            return [f"the event log holds {len(events)} events, the state includes {includes} (event_seq)"]
        if mark is None:  # an older bundle may carry the events of a step that never finished
            return []
        if mark.count != len(events) or mark.hash != (events[-1]["hash"] if events else None):
            return [f"the state's history reaches {mark.count} events / {str(mark.hash)[:12]}..., the "
                    f"event log {len(events)} / {str(events[-1].get('hash') if events else None)[:12]}..."]
        return []

    def _intent_problems(self) -> list[str]:
        """The recorded intent is the file the state names, and exactly what the goal asks for
        (``request_intent`` of goal.json, recomputed here)."""
        ev, req = self.ev, self.state.requirement
        digest = req.intent_hash if req is not None else None
        if digest is None:
            return ["intent.json is in the bundle but the state names no intent"] if ev.index.intent else []
        recorded = ev.intent()
        if recorded is None or content_hash(recorded) != digest:
            return ["intent.json does not hash to the state's requirement.intent_hash"]
        try:
            recomputed = request_intent(Goal.model_validate(ev.goal())).model_dump(mode="json")
        except ValidationError as exc:
            return [f"goal.json is not a goal, so its intent cannot be recomputed ({exc.errors()[0]['msg']})"]
        if recomputed != recorded:
            return ["intent.json is not what goal.json asks for (recomputed with gcv.contract.request_intent): "
                    + str(first_difference(recorded, recomputed))]
        return []

    def configs_check(self) -> Outcome:
        ev = self.ev
        state = self.state
        problems = []
        if content_hash(ev.baseline_config()) != state.baseline_hash:
            problems.append("configs/baseline.json does not hash to the state's baseline_hash")
        if ev.text(REQUEST_NAME).rstrip("\n") != state.request:
            problems.append("request.txt is not the state's request")
        if state.goal_hash and (ev.goal() is None or content_hash(ev.goal()) != state.goal_hash):
            problems.append("goal.json does not hash to the state's goal_hash")
        problems += self._intent_problems()
        if state.requirement:
            agent = ev.json(ev.index.requirement.agent if ev.index.requirement else None)
            if agent is None or content_hash(agent.get("decision")) != state.requirement.hash:
                problems.append("the requirement decision does not hash to the state's requirement.hash")
        hashes = {}
        for e in ev.rounds():
            r = ev.state_round(e.round)
            cfg = ev.json(e.config)
            hashes[e.round] = content_hash(cfg)
            if r is None or hashes[e.round] != r.candidate_hash:
                problems.append(f"{e.config} does not hash to round {e.round}'s candidate_hash "
                                f"(swapped or edited config)")
        final = state.final_candidate_hash
        if final is not None:
            best = state.best_round
            if best not in hashes or hashes[best] != final:
                problems.append(f"final_candidate_hash is not the candidate of best_round {best}")
        return f"baseline + {len(hashes)} candidate config(s), goal and request match their hashes", problems

    def validation_check(self) -> Outcome:
        ev = self.ev
        if not ev.rounds():
            raise Skip("no candidate in this bundle")
        baseline, cands, goal = self._configs()
        problems = []
        for e in ev.rounds():
            r = ev.state_round(e.round)
            recorded = ev.json(e.validation)
            if r is None or recorded is None or content_hash(recorded) != r.validation_hash:
                problems.append(f"validation/{run_label(e.round)}.json does not hash to the state's validation_hash")
                continue
            # a target the designer raised by a choice in an earlier round is theirs from then on
            held = with_targets(goal, self.state.chosen_targets(e.round)) if goal is not None else None
            again = validate(baseline, cands[e.round], held).model_dump(mode="json")
            diff = first_difference(recorded, again)
            if diff:
                problems.append(f"candidate {e.round} re-validates differently: {diff}")
        return f"{len(ev.rounds())} candidate(s) re-validate to their recorded reports (4 layers)", problems

    def diffs_check(self) -> Outcome:
        ev = self.ev
        if not ev.rounds():
            raise Skip("no candidate in this bundle")
        baseline, cands, _ = self._configs()
        problems = []
        for e in ev.rounds():
            r = ev.state_round(e.round)
            recorded = ev.json(e.diff)
            if r is None or recorded is None or content_hash(recorded) != r.diff_hash:
                problems.append(f"diffs/{run_label(e.round)}.json does not hash to the state's diff_hash")
                continue
            again = [c.model_dump(mode="json") for c in diff_configs(baseline, cands[e.round])]
            diff = first_difference(recorded, again)
            if diff:
                problems.append(f"the diff of candidate {e.round} is not diff_configs(baseline, candidate): {diff}")
        return f"{len(ev.rounds())} diff(s) recomputed from the configs", problems

    def runs_check(self) -> Outcome:
        ev = self.ev
        state = self.state
        settings = state.settings
        base = ev.index.baseline
        runs: list[tuple[str, RunRecord | None, str, Any, RunFiles | None]] = [
            ("baseline", state.baseline_run, state.baseline_hash, ev.baseline_config(), base.run),
            ("baseline_prescreen", state.baseline_prescreen, state.baseline_hash, ev.baseline_config(),
             base.prescreen)]
        for e in ev.rounds():
            r = ev.state_round(e.round)
            if r is None:
                continue  # consistency.index names the round the state lacks
            label = run_label(e.round)
            runs.append((label, r.run, r.candidate_hash, ev.json(e.config), e.run))
            runs.append((label + "_prescreen", r.prescreen, r.candidate_hash, ev.json(e.config), e.prescreen))
        problems = []
        count = 0
        for label, record, cfg_hash, cfg, files in runs:
            if record is None:
                continue
            count += 1
            entry = files or RunFiles(run_id=record.run_id)
            req_data = ev.json(entry.request)
            if req_data is None or content_hash(req_data) != record.request_hash:
                problems.append(f"runs/{label}/request.json does not hash to the run record's request_hash")
                continue
            req = RunRequest.model_validate(req_data)
            if req.run_id != record.run_id or req.output_dir != f"runs/{req.run_id}":
                problems.append(f"runs/{label}/request.json names run {req.run_id!r} / {req.output_dir!r}, "
                                f"not {record.run_id!r}")
            if req.config_hash != cfg_hash:
                problems.append(f"runs/{label}/request.json runs config {req.config_hash[:12]}..., "
                                f"not {label}'s {str(cfg_hash)[:12]}...")
            compiled = compile_program(BulletHellConfig.model_validate(cfg))
            if program_hash(compiled) != req.program_hash or program_hash(req.program) != req.program_hash:
                problems.append(f"runs/{label}/request.json's program is not compile_program({label} config)")
            if req.seed != settings.seed or req.player.model_dump() != settings.player:
                problems.append(f"runs/{label} used seed {req.seed} / player {req.player.model_dump()}, the workflow "
                                f"{settings.seed} / {settings.player}")
            if not record.ok:
                continue
            tel = ev.json(entry.telemetry)
            if tel is None or content_hash(tel) != record.telemetry_hash:
                problems.append(f"runs/{label}/telemetry.json does not hash to the run record's telemetry_hash")
                continue
            Telemetry.model_validate(tel)
            for key, want in (("config_hash", req.config_hash), ("program_hash", req.program_hash),
                              ("seed", req.seed), ("player", player_label(req.player.model_dump())),
                              ("run_id", req.run_id)):
                if tel.get(key) != want:
                    problems.append(f"runs/{label}/telemetry.json {key} {short(tel.get(key))} is not the request's "
                                    f"{short(want)}")
            bundled = sorted(Path(f).name for f in entry.frames)
            recorded = sorted(Path(f).name for f in record.frames)
            if bundled != recorded:
                problems.append(f"runs/{label} frames {bundled} are not the recorded {recorded}")
        if not count:
            raise Skip("no engine run in this bundle")
        return f"{count} run(s): requests compile from their configs, telemetry and frames match", problems

    def evaluations_check(self) -> Outcome:
        ev = self.ev
        problems = []
        count = 0
        for e in ev.rounds():
            r = ev.state_round(e.round)
            if r is None or not r.evaluation_hash:
                continue
            count += 1
            data = ev.json(e.evaluation)
            if data is None or content_hash(data) != r.evaluation_hash:
                problems.append(f"evaluations/{run_label(e.round)}.json does not hash to the state's "
                                "evaluation_hash")
                continue
            model = Evaluation.model_validate(data)
            if (model.miss_score, model.passed, model.fingerprint()) != (r.miss_score, r.passed, r.fingerprint):
                problems.append(f"round {e.round}: miss score / passed / fingerprint in the state differ from "
                                f"the evaluation")
        if not count:
            raise Skip("no evaluation in this bundle")
        return f"{count} evaluation(s) match the state", problems

    def populations_check(self) -> Outcome:
        ev = self.ev
        state = self.state
        spec = state.settings.population
        records: list[tuple[str, PopulationRecord | None, Any]] = [
            ("baseline", state.baseline_population, ev.index.baseline.population)]
        for e in ev.rounds():
            r = ev.state_round(e.round)
            records.append((run_label(e.round), r.population if r else None, e.population))
        records = [r for r in records if r[1] or r[2]]
        if not records:
            raise Skip("no bot population in this workflow")
        problems = []
        targets = [dict(t, basis=spec.get("basis", "point")) for t in spec["targets"]] if spec else []
        for label, record, name in records:
            summary = ev.json(name)
            if record is None or summary is None or content_hash(summary) != record.summary_hash:
                problems.append(f"populations/{label}.json does not hash to the state's population summary_hash")
                continue
            diff = first_difference(record.checks,
                                    evaluate_population(PopulationSummary.model_validate(summary), targets))
            if diff:
                problems.append(f"the population checks of {label} are not those of its summary: {diff}")
        return f"{len(records)} population summaries match the state and give its checks", problems

    def fairness_check(self) -> Outcome:
        ev = self.ev
        state = self.state
        records: list[tuple[str, int | None, FairnessRecord]] = []
        if state.baseline_fairness is not None:
            records.append(("baseline", None, state.baseline_fairness))
        records += [(run_label(r.round), r.round, r.fairness) for r in state.rounds if r.fairness is not None]
        if not records:
            raise Skip("no fair-fight analysis in this workflow")
        problems = []
        for label, n, record in records:
            report = ev.fairness(n)
            if report is None or content_hash(report) != record.report_hash:
                problems.append(f"analysis/{label}_fairness.json does not hash to the state's report_hash")
            elif report.get("verdict") != record.verdict:
                problems.append(f"the fair-fight verdict of {label} differs between the report and the state")
        return f"{len(records)} fair-fight report(s) match the state", problems

    def agents_check(self) -> Outcome:
        ev = self.ev
        state = self.state
        records = []
        problems = []
        for name in ev.index.requirement.all() if ev.index.requirement else []:
            req = ev.json(name)
            if req is not None:
                records.append(req)
        for e in ev.rounds():
            rec = ev.json(e.agent)
            if rec is not None:
                records.append(rec)
                r = ev.state_round(e.round)
                if canonical_json(rec.get("verdict")) != canonical_json(as_json(r.verdict) if r else None):
                    problems.append(f"agents/review_round_{e.round}.json verdict differs from the state's")
        calls = [c for rec in records for c in rec.get("calls", [])]
        hashes = [content_hash(c) for c in calls]
        if hashes != state.agent_calls:
            problems.append(f"the {len(calls)} recorded agent call(s) do not hash to the state's agent_calls "
                            f"({len(state.agent_calls)})")
        tokens = sum(int((c.get("usage") or {}).get(k, 0)) for c in calls for k in (
            "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
        # calls that read the designer's answers are counted apart (usage.clarification_calls, issue 27)
        counted = state.usage.model_calls + state.usage.clarification_calls
        if len(calls) != counted or tokens != state.usage.tokens:
            problems.append(f"usage says {counted} calls / {state.usage.tokens} tokens, "
                            f"the call records {len(calls)} / {tokens}")
        return f"{len(calls)} agent call(s) match the state's hashes and usage ({tokens} tokens)", problems

    def reviews_check(self) -> Outcome:
        ev = self.ev
        rounds = self.state.rounds
        problems = []
        count = 0
        for i, e in enumerate(ev.rounds()):
            r = ev.state_round(e.round)
            if r is None:
                continue  # consistency.index names the round the state lacks
            review = ev.json(e.review)
            if (r.allowed is not None or r.gate is not None) != (review is not None):
                problems.append(f"round {e.round}: review record present in one of state / bundle only")
            if review is not None:
                count += 1
                recorded = review_record(r)
                for key in ("passed", "miss_score", "fingerprint", "allowed", "verdict", "gate"):
                    if canonical_json(review.get(key)) != canonical_json(recorded[key]):
                        problems.append(f"reviews/round_{e.round}.json {key} differs from the state")
            repair = ev.json(e.repair)
            if (r.repair is not None) != (repair is not None):
                problems.append(f"round {e.round}: repair record present in one of state / bundle only")
            if repair is not None:
                nxt = rounds[i + 1].candidate_hash if i + 1 < len(rounds) else None
                diff = first_difference(repair_record(r, nxt), repair)
                if diff:
                    problems.append(f"repairs/round_{e.round}.json differs from the state: {diff}")
        return f"{count} review(s) and their gate results / repairs match the state", problems

    def verdict_check(self) -> Outcome:
        """The verdict follows from what is recorded: the final evaluation, the gate, the decision.

        Replay re-derives all of it; this check needs no replay, so a bundle whose verdict was
        edited (with events, state and manifest re-hashed to match) fails plain ``verify`` too.
        """
        ev = self.ev
        state = self.state
        status = str(state.status)
        reason = as_json_value(state.terminal_reason)
        human = state.human_decision
        problems: list[str] = []
        loop_status: str | None = status
        if human:
            want = DECISION_TARGET.get(human.decision)
            if want != status:
                problems.append(f"the decision {human.decision!r} leads to {want}, the state says {status!r}")
            decided = [e for e in transitions(ev.history()) if e.data.decision is not None]
            loop_status = str(decided[-1].source) if decided else None
            if loop_status is None:
                problems.append("a human decision is recorded but no decision event")
        elif status in HUMAN_DECISIONS:
            problems.append(f"status {status!r} needs a recorded human decision")
        if loop_status in LOOP_END:
            if state.terminal_reason is None:
                problems.append(f"the loop ended {loop_status!r} with no known terminal reason ({reason!r})")
            elif (led := state.terminal_reason.status) != loop_status:
                problems.append(f"terminal reason {reason!r} leads to {led}, not to {loop_status!r}")
        if loop_status == Status.EVIDENCE_READY or status == Status.ACCEPTED:
            best = state.best_round
            rnd = ev.state_round(best) if best is not None else None
            evaluation = ev.evaluation(best) if best is not None else None
            if rnd is None or evaluation is None:
                problems.append("evidence_ready names no evaluated final round")
            else:
                if evaluation.get("passed") is not True:
                    problems.append(f"evidence_ready, but the final evaluation (round {best}) did not pass: "
                                    f"{_failed_checks(evaluation)}")
                if rnd.gate is None or rnd.gate.outcome != "accept":
                    problems.append(f"evidence_ready, but the policy gate of round {best} did not accept")
                if state.final_candidate_hash != rnd.candidate_hash:
                    problems.append(f"the final candidate is not round {best}'s")
            if reason != Reason.ACCEPTED_BY_REVIEW:
                problems.append(f"evidence_ready needs terminal reason accepted_by_review, not {reason!r}")
        if status == Status.ACCEPTED and loop_status != Status.EVIDENCE_READY:
            problems.append(f"accepted from {loop_status!r}: only evidence_ready can be accepted")
        return f"status {status} ({reason}) follows from the recorded evaluation, gate and decision", problems

    def manifest_check(self) -> Outcome:
        if self.manifest is None:
            raise Skip("no valid manifest")
        p = self.manifest["predicate"]
        state = self.state
        want = {
            "workflow.id": state.id, "workflow.status": str(state.status),
            "workflow.terminal_reason": as_json_value(state.terminal_reason), "workflow.request": state.request,
            "seed": state.settings.seed, "budgets": as_json(state.settings.budgets), "usage": as_json(state.usage),
            "engine.requested": state.settings.engine, "provider": state.settings.provider,
            "final_decision.final_candidate_hash": state.final_candidate_hash,
            "final_decision.best_round": state.best_round,
            "final_decision.human_decision": as_json(state.human_decision),
        }
        if "evidence_version" in p:  # bundles written before versions have none
            want["evidence_version"] = evidence_version(self.ev.history(), str(state.status)).as_dict()
        problems = []
        for path, value in want.items():
            got: Any = p
            for part in path.split("."):
                got = got.get(part) if isinstance(got, dict) else None
            if canonical_json(got) != canonical_json(value):
                problems.append(f"predicate.{path} is {short(got)}, the state says {short(value)}")
        return "the manifest's predicate agrees with the state", problems

    def run(self) -> list[CheckResult]:
        return [run_check("consistency.state_schema", self.state_schema_check),
                run_check("consistency.index", self.index_check),
                run_check("consistency.events", self.events_check),
                run_check("consistency.configs", self.configs_check),
                run_check("consistency.validation", self.validation_check),
                run_check("consistency.diffs", self.diffs_check),
                run_check("consistency.runs", self.runs_check),
                run_check("consistency.evaluations", self.evaluations_check),
                run_check("consistency.populations", self.populations_check),
                run_check("consistency.fairness", self.fairness_check),
                run_check("consistency.agents", self.agents_check),
                run_check("consistency.reviews", self.reviews_check),
                run_check("consistency.verdict", self.verdict_check),
                run_check("consistency.manifest", self.manifest_check)]


# ---------------------------------------------------------------------- entry point
def verify_files(files: dict[str, bytes], *, bundle: str = "bundle", replay: bool = False,
                 require_signature: bool = False, environ: Mapping[str, str] | None = None) -> VerifyReport:
    report = VerifyReport(bundle=bundle, replay=replay)
    report.checks.append(CheckResult("integrity.archive", "passed", f"{len(files)} files read safely"))
    integrity = _Integrity(files, environ, require_signature)
    report.checks += integrity.run()
    report.signature = integrity.signature
    if integrity.manifest:
        report.merkle_root = integrity.manifest["predicate"].get("merkle_root")
    consistency = _Consistency(files, integrity.manifest)
    report.checks += consistency.run()
    try:
        report.workflow_id = consistency.ev.raw_state.get("id")  # said even when the state is not valid
        report.status = consistency.ev.raw_state.get("status")
    except Exception:  # noqa: BLE001 - the checks above already say what is wrong
        pass
    if replay:

        if any(c.status == "failed" for c in report.checks if c.group == "integrity"):
            why = "integrity failed; replaying altered evidence proves nothing"
            report.checks += [CheckResult(name, "skipped", why) for name in REPLAY_CHECKS]
        else:
            report.checks += replay_checks(consistency.ev, manifest=integrity.manifest)
    return report


def verify_bundle(path: Path | str, *, replay: bool = False, require_signature: bool = False,
                  environ: Mapping[str, str] | None = None, limits: Limits = LIMITS) -> VerifyReport:
    """Verify the bundle (zip or folder) at ``path``. Never raises for bad input: the report says."""
    path = Path(path)
    with tempfile.TemporaryDirectory(prefix="gcv-verify-") as tmp:
        try:
            files = read_bundle(path, workdir=Path(tmp), limits=limits)
        except BundleReadError as exc:
            report = VerifyReport(bundle=path.name, replay=replay, unreadable=True)
            report.checks.append(CheckResult("integrity.archive", "failed", str(exc)))
            return report
    return verify_files(files, bundle=path.name, replay=replay, require_signature=require_signature,
                        environ=environ)
