"""The workflow's history as types: one model per event kind of ``events.jsonl``.

The loop appends an event for every step it announces (``step``), every trace line
(``trace``), the workflow's creation (``created``) and every state transition
(``transition``); each carries ``seq``, ``at`` and its place in the hash chain
(``prev_hash``, ``hash``: gcv.store.logs). ``Event`` is their discriminated union (on
``type``); the loop builds each payload as a model and writes it, and every reader (verify,
replay, the console's live stream, notifications, the evidence version) reads the log back
through ``parse_events``, so which keys an event carries is written here once. Its JSON
Schema is ``schemas/workflow_event.schema.json`` (one line of the log).

The chain hash is computed over the record as written (gcv.store.workflow_dir), not over a
re-serialization of these models, so a reader's defaults never change a recorded hash.
A transition's payload holds only the keys its writer set (``TransitionData.record``): the
events written before these types existed read back unchanged.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, Iterable, Literal, Union

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError

from gcv.contract.base import GcvModel
from gcv.contract.schema_form import SCHEMA_BASE_URL, SCHEMA_DIALECT, normalize_schema
from gcv.contract.status import Status
from gcv.repair.models import Choice, TradeOff
from gcv.workflow.state import Answer, Authorization, HumanDecision, Settings

EVENT_SCHEMA_FILE = "workflow_event.schema.json"


class EventData(GcvModel):
    model_config = ConfigDict(extra="forbid")

    def record(self) -> dict[str, Any]:
        """The payload as the log holds it: the keys its writer set, nested models whole."""
        return self.model_dump(mode="json", include=set(self.model_fields_set))


class CreatedData(EventData):
    request: str = Field(description="the designer's words, as submitted")
    settings: Settings
    baseline_hash: str = Field(description="artifact hash of the baseline config")
    # recorded only when set (EventData.record), so logs written before them read back unchanged
    actor: str | None = Field(default=None, description="who submitted the request")
    resubmitted_from: str | None = Field(default=None, description="the workflow this one edits and resubmits")


class TransitionData(EventData):
    """What a transition records beside its source and target status. Which keys are present
    depends on the target: ``awaiting_authorization`` names the proposed candidate, ``authorized``
    the authorization, ``reviewing`` the round's evaluation, ``repairing`` the repair intent,
    ``running_candidate`` the candidate to run (after a repair, its intent; after a choice, the
    choice), ``awaiting_choice`` the offered trade-offs, a human decision its record, a stop its
    terminal reason and message."""

    round: int | None = Field(default=None, ge=0)
    candidate_hash: str | None = None
    baseline_telemetry: str | None = Field(default=None, description="telemetry hash of the baseline run")
    evaluation_hash: str | None = None
    passed: bool | None = None
    prescreen_failed: list[str] | None = None
    intent: str | None = Field(default=None, description="the repair intent")
    phase_id: str | None = None
    tradeoffs: list[TradeOff] | None = None
    choice: Choice | None = None
    authorization: Authorization | None = None
    answer: Answer | None = None
    decision: HumanDecision | None = None
    terminal_reason: str | None = None
    message: str | None = None


class TraceData(EventData):
    line: str


class StepData(EventData):
    step: str = Field(description="the work about to start (an activity key such as run:candidate:2)")


class _Event(GcvModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    at: float = Field(description="Unix time the loop's clock read for this event")
    seq: int = Field(ge=0, description="its place in the log, from 0")
    prev_hash: str = Field(description="the previous event's hash (the genesis value for the first)")
    hash: str = Field(description="sha256 of the canonical JSON of the event without 'hash'")


class CreatedEvent(_Event):
    type: Literal["created"]
    target: Literal[Status.PROPOSED] = Field(alias="to")
    data: CreatedData


class TransitionEvent(_Event):
    type: Literal["transition"]
    source: Status = Field(alias="from")
    target: Status = Field(alias="to")
    data: TransitionData


class TraceEvent(_Event):
    type: Literal["trace"]
    data: TraceData


class StepEvent(_Event):
    type: Literal["step"]
    data: StepData


Event = Annotated[Union[CreatedEvent, TransitionEvent, TraceEvent, StepEvent], Field(discriminator="type")]


@functools.cache
def _adapter() -> TypeAdapter[Event]:
    """One line of ``events.jsonl`` (built at first use, as the models are)."""
    return TypeAdapter(Event)


class HistoryError(ValueError):
    """An event of the log is not one GCV writes (which event, which field, what is wrong)."""

    def __init__(self, seq: int, where: str, message: str) -> None:
        super().__init__(f"event {seq}: {where}: {message}" if where else f"event {seq}: {message}")
        self.seq, self.where, self.detail = seq, where, message


def parse_event(record: dict[str, Any], position: int = 0) -> Event:
    """One recorded event, typed; ``HistoryError`` names the event and the field."""
    try:
        return _adapter().validate_python(record)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = [str(p) for p in first["loc"]]
        if loc and loc[0] in ("created", "transition", "trace", "step"):
            loc = loc[1:]  # the union's tag, already named by the record's type
        if first["type"] in ("union_tag_invalid", "union_tag_not_found"):
            loc = ["type"]
        raw_seq = record.get("seq") if isinstance(record, dict) else None
        seq = raw_seq if isinstance(raw_seq, int) else position
        raise HistoryError(seq, ".".join(loc), first["msg"]) from None


def parse_events(records: Iterable[dict[str, Any]]) -> list[Event]:
    """The whole log, typed, in order."""
    return [parse_event(r, i) for i, r in enumerate(records)]


def transitions(events: Iterable[Event]) -> list[TransitionEvent]:
    return [e for e in events if isinstance(e, TransitionEvent)]


def trace_lines(events: Iterable[Event]) -> list[str]:
    return [e.data.line for e in events if isinstance(e, TraceEvent)]


def last_step(events: Iterable[Event]) -> StepEvent | None:
    steps = [e for e in events if isinstance(e, StepEvent)]
    return steps[-1] if steps else None


def event_json_schema() -> dict[str, Any]:
    """The JSON Schema of one line of ``events.jsonl`` (``schemas/workflow_event.schema.json``)."""
    schema = normalize_schema(_adapter().json_schema())
    return {"$schema": SCHEMA_DIALECT, "$id": SCHEMA_BASE_URL + EVENT_SCHEMA_FILE, "title": "WorkflowEvent",
            "description": "One line of events.jsonl.", **schema}


__all__ = ["Event", "EventData", "CreatedEvent", "TransitionEvent", "TraceEvent", "StepEvent", "CreatedData", "TransitionData",
           "TraceData", "StepData", "HistoryError", "parse_event", "parse_events", "transitions",
           "trace_lines", "last_step", "event_json_schema", "EVENT_SCHEMA_FILE"]
