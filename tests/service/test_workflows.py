"""The workflow use cases: each returns its typed result, refuses with a typed refusal (a
kind a machine reads, never a message to match), and holds the workflow's lock throughout."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from gcv.contract.status import Status
from gcv.service import workflows
from gcv.service.errors import Conflict, Damaged, InvalidInput, Locked, NotFound, WorkspaceRefusal, WrongState
from gcv.service.results import Answered, Authorized, Decided, Resumed, Submitted
from gcv.store.errors import DamagedRecord, StoreError, WorkflowLocked
from gcv.workflow.loop import WorkflowError, WorkflowLoop
from gcv.workflow.state import Budgets
from gcv.workflow.states import IllegalTransition
from tests.service.conftest import REQUEST, VAGUE


# ---------------------------------------------------------------------- submit
def test_submit_creates_and_proposes_up_to_the_authorization(loop: WorkflowLoop) -> None:
    heard: list[tuple[str, str]] = []
    result = workflows.submit(loop, workflows.Submission(request=REQUEST, actor="dana"),
                              on_created=lambda wf, source: heard.append((wf, source)))
    assert isinstance(result, Submitted) and result.status == Status.AWAITING_AUTHORIZATION
    assert heard == [(result.wf_id, "registry v1")] and result.baseline_source == "registry v1"
    assert loop.ws.list_workflows(5)[0]["actor"] == "dana"


@pytest.mark.parametrize("submission, field", [
    (workflows.Submission(request="  \n"), "request"),
    (workflows.Submission(request=REQUEST, engine="frostbite"), "engine"),
    (workflows.Submission(request=REQUEST, provider="nobody"), "provider"),
    (workflows.Submission(request=REQUEST, provider="replay:/etc", offered_providers_only=True), "provider"),
])
def test_a_submission_that_cannot_run_is_refused_before_anything_is_recorded(
        loop: WorkflowLoop, submission: workflows.Submission, field: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        workflows.submit(loop, submission)
    assert caught.value.field == field and caught.value.kind == "invalid_input"
    assert loop.ws.count_workflows() == 0


# ---------------------------------------------------------------------- answer
def test_answer_with_text_or_with_a_choice_of_the_question(loop: WorkflowLoop, submitted: Callable[[str], str]) -> None:
    typed, chosen = submitted(VAGUE), submitted(VAGUE)
    asks = workflows.questions(loop.ws, workflows.load(loop, chosen))
    assert asks and asks[0]["choices"][1]["answer"] == "phase 2"
    by_text = workflows.answer(loop, typed, text="phase 2", actor="dana")
    by_choice = workflows.answer(loop, chosen, actor="dana", choice=2)
    assert isinstance(by_choice, Answered) and by_choice.text == "phase 2"
    assert by_text.status == by_choice.status == Status.AWAITING_AUTHORIZATION
    assert by_choice.state.answers[-1].text == "phase 2"


@pytest.mark.parametrize("kwargs, field", [
    ({"text": "", "actor": "dana"}, "text"),
    ({"text": "phase 2", "actor": " "}, "actor"),
    ({"actor": "dana", "choice": 9}, "choice"),
    ({"actor": "dana", "choice": 0}, "choice"),
    ({"text": "phase 2", "actor": "dana", "choice": 1}, "choice"),
])
def test_a_bad_answer_is_invalid_input_naming_the_field(loop: WorkflowLoop, submitted: Callable[[str], str],
                                                        kwargs: dict[str, Any], field: str) -> None:
    wf = submitted(VAGUE)
    with pytest.raises(InvalidInput) as caught:
        workflows.answer(loop, wf, **kwargs)
    assert caught.value.field == field
    assert workflows.load(loop, wf).status == Status.NEEDS_CLARIFICATION  # nothing recorded


def test_answering_a_workflow_that_asks_nothing_is_the_wrong_state(loop: WorkflowLoop,
                                                                   submitted: Callable[[str], str]) -> None:
    wf = submitted(REQUEST)
    with pytest.raises(WrongState) as caught:
        workflows.answer(loop, wf, text="phase 2", actor="dana")
    assert caught.value.kind == "wrong_state" and isinstance(caught.value, Conflict)


@pytest.mark.parametrize("wf_id", ["wf-nope", "../etc", "a/b"])
def test_an_unknown_workflow_is_not_found(loop: WorkflowLoop, wf_id: str) -> None:
    for case in (lambda: workflows.answer(loop, wf_id, text="x", actor="a"),
                 lambda: workflows.authorize(loop, wf_id, actor="a"), lambda: workflows.resume(loop, wf_id),
                 lambda: workflows.decide(loop, wf_id, decision="accept", actor="a", note="ok"),
                 lambda: workflows.load(loop, wf_id)):
        with pytest.raises(NotFound):
            case()


# ---------------------------------------------------------------------- authorize
def test_authorize_merges_the_overrides_into_the_workflow_s_budgets(loop: WorkflowLoop,
                                                                    submitted: Callable[[str], str]) -> None:
    wf = submitted(REQUEST)
    result = workflows.authorize(loop, wf, actor="omar", via="test",
                                 overrides=workflows.BudgetOverrides(max_candidate_runs=2, deadline_seconds=90))
    assert isinstance(result, Authorized) and result.status == Status.AUTHORIZED
    b = result.authorization.budgets
    assert (b.max_candidate_runs, b.deadline_seconds, b.max_model_calls) == (2, 90, Budgets().max_model_calls)
    assert result.authorization.actor == "omar" and result.authorization.via == "test"


def test_the_one_budget_merge_refuses_an_override_out_of_range() -> None:
    with pytest.raises(InvalidInput) as caught:
        workflows.merged_budgets(Budgets(), workflows.BudgetOverrides(max_candidate_runs=99))
    assert caught.value.field == "max_candidate_runs"
    assert workflows.merged_budgets(Budgets(), None) == Budgets()


def test_authorizing_twice_is_the_wrong_state(loop: WorkflowLoop, submitted: Callable[[str], str]) -> None:
    wf = submitted(VAGUE)
    with pytest.raises(WrongState, match="cannot go from 'needs_clarification'"):
        workflows.authorize(loop, wf, actor="omar")
    with pytest.raises(InvalidInput):
        workflows.answer(loop, wf, text="phase 2", actor="")


# ---------------------------------------------------------------------- resume, decide, reject
def test_resume_decide_and_their_evidence(loop: WorkflowLoop, submitted: Callable[[str], str]) -> None:
    wf = submitted(REQUEST)
    with pytest.raises(WrongState, match="nothing to resume"):
        workflows.resumable(loop, wf)  # it waits for a person
    workflows.authorize(loop, wf, actor="omar")
    assert workflows.resumable(loop, wf).status == Status.AUTHORIZED
    resumed = workflows.resume(loop, wf)
    # the only passing repair moves what the request did not name: the designer chooses (issue 26)
    assert isinstance(resumed, Resumed) and resumed.status == Status.AWAITING_CHOICE
    offered = workflows.tradeoffs(resumed.state)
    assert offered is not None and len(offered) >= 2
    with pytest.raises(InvalidInput, match="trade-off 9 is not offered"):
        workflows.choose(loop, wf, number=9, actor="dana")
    chosen = workflows.choose(loop, wf, number=1, actor="dana")
    assert chosen.status == Status.EVIDENCE_READY and chosen.state.rounds[0].choice.actor == "dana"
    assert workflows.finish(loop.ws, chosen.state).version == 1
    for decision, note in (("accept", ""), ("accept", " \n\t"), ("rollback", "")):  # say why (issue 31.1)
        with pytest.raises(InvalidInput) as refused:
            workflows.decide(loop, wf, decision=decision, actor="rita", note=note)
        assert refused.value.field == "note" and "--note" in refused.value.message
    assert workflows.load(loop, wf).status == Status.EVIDENCE_READY and workflows.load(loop, wf).human_decision is None
    decided = workflows.decide(loop, wf, decision="accept", actor="rita", note="ok")
    assert isinstance(decided, Decided) and decided.status == Status.ACCEPTED and decided.decision.actor == "rita"
    assert decided.evidence.written and decided.evidence.version == 2 and decided.evidence.as_dict()["bundle"]
    with pytest.raises(Conflict, match="already decided"):
        workflows.decide(loop, wf, decision="revise", actor="rita", note="")


def test_reject_rolls_back_only_a_workflow_awaiting_authorization(loop: WorkflowLoop,
                                                                  submitted: Callable[[str], str]) -> None:
    waiting, asking = submitted(REQUEST), submitted(VAGUE)
    decided = workflows.reject(loop, waiting, actor="omar", note=" ")
    assert decided.status == Status.ROLLED_BACK and decided.decision.note == "runs not authorized"
    with pytest.raises(WrongState, match="not awaiting authorization"):
        workflows.reject(loop, asking, actor="omar")


# ---------------------------------------------------------------------- the lock
def _held_elsewhere(loop: WorkflowLoop, wf: str) -> tuple[threading.Event, threading.Event]:
    """Another writer (a thread is one) holds the workflow's lock until ``release`` is set."""
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with loop.lock(wf):
            held.set()
            release.wait(30)

    threading.Thread(target=hold, daemon=True).start()
    assert held.wait(10)
    return held, release


USE_CASES: dict[str, Callable[[WorkflowLoop, str], Any]] = {
    "answer": lambda loop, wf: workflows.answer(loop, wf, text="phase 2", actor="dana"),
    "authorize": lambda loop, wf: workflows.authorize(loop, wf, actor="omar"),
    "resume": lambda loop, wf: workflows.resume(loop, wf),
    "decide": lambda loop, wf: workflows.decide(loop, wf, decision="rollback", actor="rita", note="no"),
    "reject": lambda loop, wf: workflows.reject(loop, wf, actor="omar"),
}
STARTS = {"answer": VAGUE, "authorize": REQUEST, "resume": REQUEST, "decide": REQUEST, "reject": REQUEST}


@pytest.mark.parametrize("case", sorted(USE_CASES))
def test_a_second_writer_is_refused_as_locked(loop: WorkflowLoop, submitted: Callable[[str], str], case: str) -> None:
    wf = submitted(STARTS[case])
    before = workflows.load(loop, wf)
    _, release = _held_elsewhere(loop, wf)
    try:
        with pytest.raises(Locked) as caught:
            USE_CASES[case](loop, wf)
        assert caught.value.kind == "locked" and "in use by" in caught.value.message
    finally:
        release.set()
    assert workflows.load(loop, wf).event_seq == before.event_seq  # nothing was written


@pytest.mark.parametrize("case", sorted(USE_CASES))
def test_the_lock_is_held_for_the_whole_use_case(loop: WorkflowLoop, submitted: Callable[[str], str],
                                                 case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Even between the loop's own steps (each takes the lock for itself), no other writer
    gets in: the use case holds it around all of them."""
    wf = submitted(STARTS[case])
    seen: list[str] = []
    for name in ("answer", "authorize", "advance", "decide"):
        real = getattr(WorkflowLoop, name)

        def probe(self: WorkflowLoop, *args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            outcome: list[str] = []

            def other_writer() -> None:
                try:
                    with self.lock(wf):
                        outcome.append("got the lock")
                except WorkflowLocked:
                    outcome.append("refused")

            t = threading.Thread(target=other_writer)
            t.start()
            t.join(10)
            seen.append(f"{_name}: {outcome[0]}")
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(WorkflowLoop, name, probe)
    USE_CASES[case](loop, wf)
    assert seen and all(s.endswith("refused") for s in seen), seen


# ---------------------------------------------------------------------- damaged records, typed
def test_a_damaged_state_is_damaged_for_every_use_case(loop: WorkflowLoop, submitted: Callable[[str], str]) -> None:
    wf = submitted(REQUEST)
    loop.ws.workflow_dir(wf).state_path.write_text("{\"id\": 1}", encoding="utf-8")
    for case in USE_CASES.values():
        with pytest.raises(Damaged):
            case(loop, wf)


@pytest.mark.parametrize("raised, kind", [
    (WorkflowLocked("in use by PID 1"), Locked),
    (DamagedRecord("state.json is truncated"), Damaged),
    (StoreError("the catalog is read-only"), WorkspaceRefusal),
    (IllegalTransition("accepted", "authorized"), WrongState),
    (WorkflowError("already decided"), Conflict),
])
def test_what_the_loop_and_the_store_raise_becomes_a_typed_refusal(raised: Exception, kind: type) -> None:
    refusal = workflows.refusal_of(raised)
    assert type(refusal) is kind
    # the store's own failure is kept for the CLI to report as every command does (2 or 70)
    assert (refusal.origin is raised) == (kind in (Damaged, WorkspaceRefusal))


def test_a_store_error_the_loop_wrapped_keeps_its_type() -> None:
    """The loop re-raises a store error as ``WorkflowError(...) from None``: its context still
    says what it was, so a damaged record is ``Damaged`` without reading the message."""
    def wrapped(inner: Exception) -> WorkflowError:
        try:
            try:
                raise inner
            except StoreError as exc:
                raise WorkflowError(str(exc)) from None
        except WorkflowError as outer:
            return outer

    damaged = workflows.refusal_of(wrapped(DamagedRecord("state.json is truncated")))
    assert type(damaged) is Damaged and damaged.origin is None  # the loop's words stand: exit 2, as before
    assert type(workflows.refusal_of(wrapped(WorkflowLocked("x")))) is Locked
    with pytest.raises(TypeError):
        workflows.refusal_of(RuntimeError("a bug stays a bug"))


# ---------------------------------------------------------------------- build agents
def _agents_file(loop: WorkflowLoop, text: str) -> None:
    loop.ws.root.mkdir(parents=True, exist_ok=True)
    (loop.ws.root / "build_agents.toml").write_text(text, encoding="utf-8")


def test_an_engine_the_workspace_sends_to_build_agents_needs_no_engine_here(
        loop: WorkflowLoop, monkeypatch: pytest.MonkeyPatch) -> None:
    from engine_runners.python_sim import PythonSimRunner

    monkeypatch.delenv("GCV_UE_HARNESS", raising=False)
    with pytest.raises(InvalidInput) as caught:  # without the file: ue5 must be configured here
        workflows.submit(loop, workflows.Submission(request=REQUEST, engine="ue5"))
    assert caught.value.field == "engine"
    _agents_file(loop, 'scheduler = "tcp://127.0.0.1:1"\nengines = ["ue5"]\nplatform = "windows"\n')
    asked: list[tuple[str, str | None]] = []

    def on_agents(engine: str, platform: str | None) -> PythonSimRunner:
        asked.append((engine, platform))
        return PythonSimRunner()  # stands in for the agent runner: the loop's choice is under test here

    loop.build_agents = on_agents
    wf = workflows.submit(loop, workflows.Submission(request=REQUEST, engine="ue5")).wf_id
    state = workflows.load(loop, wf)
    assert state.settings.build_agents is not None and state.settings.build_agents.platform == "windows"
    workflows.authorize(loop, wf, actor="dana")
    done = workflows.resume(loop, wf)
    assert asked and set(asked) == {("ue5", "windows")}  # every engine run went through the agents' runner
    assert done.state.baseline_run is not None and done.state.baseline_run.ok
    assert len(asked) == done.state.usage.engine_runs


def test_without_the_agents_runner_a_recorded_dispatch_runs_on_the_activities_runner(loop: WorkflowLoop) -> None:
    """verify --replay builds its loop so: the recorded runs are re-simulated, never sent anywhere."""
    _agents_file(loop, 'scheduler = "tcp://127.0.0.1:1"\nengines = ["python-sim"]\n')
    wf = workflows.submit(loop, workflows.Submission(request=REQUEST)).wf_id
    workflows.authorize(loop, wf, actor="dana")
    done = workflows.resume(loop, wf)
    assert done.state.settings.build_agents is not None and done.state.baseline_run is not None
    assert done.state.baseline_run.ok


@pytest.mark.parametrize("text, field, words", [
    ('scheduler = "tcp://127.0.0.1:1"\nengines = ["ue6"]', "build_agents.toml", "field engines: 'ue6' is not an engine"),
    ('scheduler = "tcp://127.0.0.1:1"\nengines = ["python-sim"]\nplatform = "beos"', "build_agents.toml",
     "field platform"),
])
def test_a_bad_build_agents_toml_refuses_the_submission_naming_it(loop: WorkflowLoop, text: str, field: str,
                                                                  words: str) -> None:
    _agents_file(loop, text)
    with pytest.raises(InvalidInput) as caught:
        workflows.submit(loop, workflows.Submission(request=REQUEST))
    assert caught.value.field == field and words in caught.value.message
    assert str(loop.ws.root / "build_agents.toml") in caught.value.message
    assert loop.ws.count_workflows() == 0


def test_a_population_of_an_engine_only_the_agents_have_is_refused(loop: WorkflowLoop,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GCV_UE_HARNESS", raising=False)
    _agents_file(loop, 'scheduler = "tcp://127.0.0.1:1"\nengines = ["ue5"]\n')
    population = {"skills": ["average"], "seeds": 2}
    with pytest.raises(InvalidInput) as caught:
        workflows.submit(loop, workflows.Submission(request=REQUEST, engine="ue5", population=population))
    assert caught.value.field == "population" and "runs on this host, not on the build agents" in caught.value.message
