"""The workflow use cases: submit, answer, authorize, resume, decide (and reject the runs).

Each takes the workflow's lock for its whole work (:func:`writer`; re-entrant in one thread,
so a command that chains several use cases can hold it around all of them), returns a typed
result and raises a :class:`~gcv.service.errors.Refusal`. The loop stays the authority on
every rule; a use case checks first only what it must type (which workflow, which status,
which input), so that no interface has to read a message to know what went wrong.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard, overload

from pydantic import ValidationError

from engine_runners.build_agents import CONFIG_FILE as BUILD_AGENTS_FILE
from engine_runners.build_agents import BuildAgentsConfigError, dispatched
from engine_runners.registry import UnknownEngineError, unavailable_reason
from gcv.agents.doctor import agents_report
from gcv.agents.requirement import get_requirement_provider
from gcv.contract.models import BulletHellConfig
from gcv.contract.policies import DEFAULT_FAIRNESS_POLICY, POLICY_WORDS, FairnessPolicy
from gcv.contract.status import NEEDS, Status
from gcv.repair.scope import whole_fight
from gcv.service.errors import (Conflict, Damaged, InvalidInput, Locked, NotFound, Refusal, WorkspaceRefusal,
                                WrongState)
from gcv.service.results import Answered, Authorized, Chosen, Decided, Rerun, Resubmitted, Resumed, Submitted
from gcv.service.evidence import finish
from gcv.store.catalog import Workspace
from gcv.store.errors import DamagedRecord, StoreError, WorkflowLocked
from gcv.workflow.baselines import active_baseline
from gcv.workflow.loop import WorkflowError, WorkflowLoop
from gcv.workflow.state import Budgets, BuildAgents, Settings, WorkflowState
from gcv.workflow.states import NOTE_REQUIRED, IllegalTransition


# ---------------------------------------------------------------------- refusals, typed
def refusal_of(exc: Exception) -> Refusal:
    """The typed refusal for what the loop or the store raised (by type; the loop wraps a
    store error it met while reading in a ``WorkflowError``, whose context keeps the type)."""
    if isinstance(exc, Refusal):
        return exc
    if isinstance(exc, WorkflowLocked):
        return Locked(str(exc))
    if isinstance(exc, DamagedRecord):
        return Damaged(str(exc), origin=exc)
    if isinstance(exc, StoreError):
        return WorkspaceRefusal(str(exc), origin=exc)
    if isinstance(exc, IllegalTransition):
        return WrongState(str(exc))
    if isinstance(exc, WorkflowError):
        cause = exc.__cause__ or exc.__context__
        if isinstance(cause, (DamagedRecord, ValidationError)):
            return Damaged(str(exc))
        if isinstance(cause, WorkflowLocked):
            return Locked(str(exc))
        if isinstance(cause, StoreError):
            return WorkspaceRefusal(str(exc))
        return Conflict(str(exc))
    raise TypeError(f"not a refusal: {type(exc).__name__}")  # a bug: let it be one


@contextmanager
def refusals() -> Iterator[None]:
    """Inside: whatever the loop or the store refuses comes out as a typed refusal."""
    try:
        yield
    except (WorkflowError, IllegalTransition, StoreError) as exc:
        raise refusal_of(exc) from None


def find(loop: WorkflowLoop, wf_id: str) -> None:
    """Refuse an id that names no workflow here (``NotFound``; the id is not echoed when it is
    not one: it came from outside)."""
    try:
        d = loop.ws.workflow_dir(wf_id)
    except StoreError:
        raise NotFound("no such workflow (ids are letters, digits, '-' and '_')") from None
    if not os.path.lexists(d.state_path):  # something else there is damage, refused naming it
        raise NotFound(f"no workflow {wf_id!r} in this workspace; see `gcv list`")


@contextmanager
def writer(loop: WorkflowLoop, wf_id: str) -> Iterator[None]:
    """Hold the workflow's lock (one writer: a second is refused at once with ``Locked``), and
    type every refusal raised inside."""
    find(loop, wf_id)
    with refusals():
        lock = loop.lock(wf_id)
        lock.acquire()
    try:
        with refusals():
            yield
    finally:
        lock.release()


def load(loop: WorkflowLoop, wf_id: str) -> WorkflowState:
    """The workflow's state, read only: ``NotFound`` or ``Damaged`` when it cannot be."""
    find(loop, wf_id)
    with refusals():
        return loop.load(wf_id)[1]


# ---------------------------------------------------------------------- submit
@dataclass(frozen=True)
class Submission:
    """A designer's request with what it runs on. ``offered_providers_only``: the provider must
    be one a person may pick for a new request (the console's picker: usable, and not
    ``replay``, which belongs to ``gcv verify --replay``); otherwise any registered provider
    (``gcv run --provider replay:BUNDLE``). ``baseline``: the config and where it came from
    (``gcv run --baseline FILE``); None is the registry's active version."""

    request: str
    engine: str = "python-sim"
    provider: str = "offline"
    seed: int = 1
    budgets: Budgets = field(default_factory=Budgets)
    population: dict[str, Any] | None = None
    baseline: tuple[BulletHellConfig, str] | None = None
    actor: str | None = None
    offered_providers_only: bool = False
    fairness_policy: str = DEFAULT_FAIRNESS_POLICY
    resubmitted_from: str | None = None  # the workflow this one edits and resubmits (:func:`resubmit`)


def _is_policy(policy: str) -> TypeGuard[FairnessPolicy]:
    return policy in POLICY_WORDS


@overload
def check_fairness_policy(policy: str) -> FairnessPolicy: ...
@overload
def check_fairness_policy(policy: None) -> None: ...
def check_fairness_policy(policy: str | None) -> FairnessPolicy | None:
    """A fair-fight policy of the one vocabulary (gcv.contract.policies), or InvalidInput."""
    if policy is None or _is_policy(policy):
        return policy
    raise InvalidInput(f"fairness policy {policy!r} is not a policy; allowed: "
                       + "; ".join(f"{name} ({words})" for name, words in POLICY_WORDS.items()),
                       field="fairness_policy")


REPAIR_SCOPES = ("request", "fight")


def offered_providers() -> list[dict[str, Any]]:
    """The providers a person may pick for a new request: what ``gcv agents`` reports usable,
    less ``replay`` (it needs a recording and belongs to ``gcv verify --replay``)."""
    return [p for p in agents_report()["providers"] if p["usable"] and "usage" not in p]


def build_agents_for(workspace: Path, engine: str) -> BuildAgents | None:
    """Whether the workspace sends ``engine``'s runs to build agents (its ``build_agents.toml``),
    as the workflow's settings record it; ``InvalidInput`` names the file and field of a bad file."""
    try:
        config = dispatched(workspace, engine)
    except BuildAgentsConfigError as exc:
        raise InvalidInput(str(exc), field=BUILD_AGENTS_FILE, hint="docs/engines.md, 'Runs on build agents'") from None
    return None if config is None else BuildAgents(platform=config.platform)


def check_submission(submission: Submission, workspace: Path | None = None) -> BuildAgents | None:
    """Refuse, before anything is proposed, authorized or recorded, a request that cannot run.
    With the ``workspace``, an engine whose runs go to its build agents needs no engine here
    (returned: what the settings record)."""
    if not submission.request.strip():
        raise InvalidInput("the request is empty; describe the change in plain language", field="request")
    check_fairness_policy(submission.fairness_policy)
    try:
        agents = build_agents_for(workspace, submission.engine) if workspace is not None else None
        reason = None if agents is not None and not submission.population else unavailable_reason(submission.engine)
    except UnknownEngineError as exc:
        raise InvalidInput(str(exc), field="engine") from None
    if reason is not None and agents is not None:  # a population's fights run on this host
        raise InvalidInput(f"{reason}; a bot population runs on this host, not on the build agents",
                           field="population", hint="drop --population, or configure the engine here")
    if reason is not None:
        raise InvalidInput(reason, field="engine", hint="see `gcv engines`; configure it or choose another --engine")
    if submission.offered_providers_only:
        offered = [p["name"] for p in offered_providers()]
        if submission.provider not in offered:
            raise InvalidInput(f"{submission.provider!r} is not usable here; usable: {', '.join(offered)} (see "
                               "`gcv agents`)", field="provider")
        return agents
    try:
        get_requirement_provider(submission.provider)
    except (ValueError, KeyError, ImportError) as exc:
        raise InvalidInput(f"provider {submission.provider!r} is not available: {exc}", field="provider") from None
    return agents


def submit(loop: WorkflowLoop, submission: Submission, *,
           on_created: Callable[[str, str], None] | None = None) -> Submitted:
    """``gcv run`` / "New change": create the workflow and propose, up to where a person is
    needed (authorization, an answer) or to the end (out of scope, no change). ``on_created``
    hears the new id and the baseline's source before the agents work."""
    agents = check_submission(submission, loop.ws.root)
    with refusals():
        base, source = submission.baseline or active_baseline(loop.ws, loop.clock())
        settings = Settings(engine=submission.engine, provider=submission.provider, seed=submission.seed,
                            budgets=submission.budgets, population=submission.population,
                            fairness_policy=check_fairness_policy(submission.fairness_policy), record_intent=True,
                            build_agents=agents)
        wf_id = loop.create(submission.request, base, settings, baseline_source=source, actor=submission.actor,
                            resubmitted_from=submission.resubmitted_from)
    if on_created is not None:
        on_created(wf_id, source)
    with writer(loop, wf_id):
        return Submitted(loop.advance(wf_id), baseline_source=source)


# ---------------------------------------------------------------------- answer
def questions(ws: Workspace, state: WorkflowState) -> list[dict[str, Any]] | None:
    """The typed questions (kind, choices) of a workflow that waits for answers; None otherwise."""
    if state.status != Status.NEEDS_CLARIFICATION or state.requirement is None:
        return None
    decision = ws.workflow_dir(state.id).get(state.requirement.hash) or {}
    return list(decision.get("asks") or [])


def answer(loop: WorkflowLoop, wf_id: str, *, text: str = "", actor: str, choice: int | None = None) -> Answered:
    """``gcv answer``: record the answer and send the same request back to the requirement
    agent. ``choice`` (1-based) picks one of the choices the first question offers instead of
    typing its answer."""
    with writer(loop, wf_id):
        _, state = loop.load(wf_id)
        if state.status != Status.NEEDS_CLARIFICATION:
            raise WrongState(f"{wf_id} is {state.status}; only a workflow that needs clarification takes answers")
        if choice is not None:
            if text.strip():
                raise InvalidInput("give an answer or a choice, not both", field="choice")
            asks = questions(loop.ws, state) or []
            offered = list(asks[0].get("choices") or []) if asks else []
            if not 1 <= choice <= len(offered):
                raise InvalidInput(f"choice {choice} is not offered; the question offers "
                                   f"{len(offered) or 'no'} choice(s)", field="choice")
            text = str(offered[choice - 1]["answer"])
        if not text.strip():
            raise InvalidInput("the answer is empty; answer the questions in plain language", field="text")
        if not actor.strip():
            raise InvalidInput("an answer needs an actor name (--actor)", field="actor")
        loop.answer(wf_id, text=text, actor=actor)
        return Answered(loop.advance(wf_id), text=text)


# ---------------------------------------------------------------------- authorize
@dataclass(frozen=True)
class BudgetOverrides:
    """What an operator changes while authorizing (None keeps the workflow's own budget)."""

    max_candidate_runs: int | None = None
    max_model_calls: int | None = None
    max_tokens: int | None = None
    deadline_seconds: float | None = None


def merged_budgets(current: Budgets, overrides: BudgetOverrides | None) -> Budgets:
    """The one merge of an authorization's overrides into the workflow's budgets (validated:
    an override out of range is ``InvalidInput`` naming it)."""
    data = current.model_dump()
    for key, value in vars(overrides or BudgetOverrides()).items():
        if value is not None:
            data[key] = value
    try:
        return Budgets.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "budgets"
        raise InvalidInput(f"{where}: {first['msg']}", field=where) from None


def authorize(loop: WorkflowLoop, wf_id: str, *, actor: str, via: str = "gcv authorize",
              overrides: BudgetOverrides | None = None, fairness_policy: str | None = None,
              repair_scope: str = "request") -> Authorized:
    """Allow the engine runs (nothing runs before this), within the merged budgets, under the
    fair-fight policy, and with the repair scope: ``request`` (the default: repairs may move
    only what the request changed; anything else becomes trade-offs for the designer) or
    ``fight`` (repairs may move any phase and field, as an operator explicitly allows)."""
    policy = check_fairness_policy(fairness_policy)
    if repair_scope not in REPAIR_SCOPES:
        raise InvalidInput(f"repair scope {repair_scope!r}; allowed: request (what the request changed) or fight "
                           "(any phase and field)", field="repair_scope")
    with writer(loop, wf_id):
        d, state = loop.load(wf_id)
        if state.status != Status.AWAITING_AUTHORIZATION:
            raise WrongState(str(IllegalTransition(state.status, Status.AUTHORIZED)))
        if not actor.strip():
            raise InvalidInput("authorization needs an actor name (--actor)", field="actor")
        budgets = merged_budgets(state.settings.budgets, overrides)
        scope = (whole_fight(BulletHellConfig.model_validate(d.get(state.baseline_hash)))
                 if repair_scope == "fight" else None)
        return Authorized(loop.authorize(wf_id, actor=actor, via=via, budgets=budgets,
                                         fairness_policy=policy,
                                         repair_scope=scope))


# ---------------------------------------------------------------------- choose
def tradeoffs(state: WorkflowState) -> list[dict[str, Any]] | None:
    """The trade-offs of a workflow awaiting the designer's choice; None otherwise."""
    if state.status != Status.AWAITING_CHOICE or not state.rounds or not state.rounds[-1].tradeoffs:
        return None
    return [t.model_dump(mode="json") for t in state.rounds[-1].tradeoffs]


def choose(loop: WorkflowLoop, wf_id: str, *, number: int, actor: str, advance: bool = True) -> Chosen:
    """``gcv answer WF --choose N``: the designer picks trade-off N; its candidate runs next and
    the loop goes on to evidence (or to another choice). ``advance=False`` records the choice
    only (the console runs the loop in the background, as after an authorization)."""
    with writer(loop, wf_id):
        _, state = loop.load(wf_id)
        if state.status != Status.AWAITING_CHOICE:
            raise WrongState(f"{wf_id} is {state.status}; only a workflow awaiting the designer's choice takes one")
        if not actor.strip():
            raise InvalidInput("a choice needs an actor name (--actor)", field="actor")
        offered = tradeoffs(state) or []
        if not any(t["number"] == number for t in offered):
            raise InvalidInput(f"trade-off {number} is not offered; offered: "
                               + (", ".join(str(t["number"]) for t in offered) or "none"), field="choose")
        with refusals():
            chosen = loop.choose(wf_id, number=number, actor=actor)
            return Chosen(loop.advance(wf_id) if advance else chosen, number=number)


# ---------------------------------------------------------------------- resume
def resumable(loop: WorkflowLoop, wf_id: str) -> WorkflowState:
    """The state of a workflow the loop can go on with (one left between two of its steps);
    ``WrongState`` for one that waits for a person or is final."""
    state = load(loop, wf_id)
    if not state.status.running:
        raise WrongState(f"{wf_id} is {state.status} ({state.status.title}); there is nothing to resume")
    return state


def resume(loop: WorkflowLoop, wf_id: str) -> Resumed:
    """``gcv resume``: run the loop from its last recorded transition until it waits for a
    person or is final (an interrupted step is redone from its recorded activities)."""
    with writer(loop, wf_id):
        return Resumed(loop.advance(wf_id))


# ---------------------------------------------------------------------- decide
def decide(loop: WorkflowLoop, wf_id: str, *, decision: str, actor: str, note: str,
           promote: bool = False) -> Decided:
    """``gcv decide``: the human decision (final), and the evidence version that records it,
    written under the same lock. Accepting and rolling back need a note saying why
    (``InvalidInput`` on ``note``, before the workflow is touched)."""
    if decision in NOTE_REQUIRED and not note.strip():
        raise InvalidInput(f"{decision} needs a note saying why (--note TEXT); it is recorded with the decision",
                           field="note")
    with writer(loop, wf_id):
        state = loop.decide(wf_id, decision=decision, actor=actor, note=note, promote=promote)
        return Decided(state, evidence=finish(loop.ws, state))


def reject(loop: WorkflowLoop, wf_id: str, *, actor: str, note: str = "") -> Decided:
    """An operator refuses the runs of a workflow awaiting authorization: it is rolled back,
    as ``gcv decide WF rollback`` would (only this state takes a rollback from an operator)."""
    with writer(loop, wf_id):
        _, state = loop.load(wf_id)
        if state.status != Status.AWAITING_AUTHORIZATION:
            raise WrongState(f"{wf_id} is not awaiting authorization")
        return decide(loop, wf_id, decision="rollback", actor=actor, note=note.strip() or "runs not authorized")


# ---------------------------------------------------------------------- a way back
# The ends a person may start again from (issue 31 item 3): a reviewer asked for a revision,
# the loop was blocked, or it ran out of budget. The state machine leaves none of them but to a
# decision (gcv.workflow.states), so going on is a *new* workflow linked to the old one: the
# new state records ``resubmitted_from``, the catalog finds the old one superseded by it.
RESUBMITTABLE = frozenset({Status.REVISION_REQUESTED, Status.BLOCKED, Status.BUDGET_EXHAUSTED})


def resubmissions(loop: WorkflowLoop, wf_id: str) -> list[str]:
    """The workflows that resubmit ``wf_id`` (it is superseded by them), oldest first."""
    with refusals():
        return loop.ws.resubmissions_of(wf_id)


def check_resubmittable(loop: WorkflowLoop, wf_id: str) -> WorkflowState:
    """The state of a workflow that may be resubmitted; ``WrongState`` for any other status,
    ``Conflict`` for one already resubmitted (resubmit the newer one)."""
    state = load(loop, wf_id)
    if state.status not in RESUBMITTABLE:
        ends = ", ".join(sorted(str(s) for s in RESUBMITTABLE))
        raise WrongState(f"{wf_id} is {state.status} ({state.status.title}); only a workflow that ended {ends} "
                         "can be edited and resubmitted")
    later = resubmissions(loop, wf_id)
    if later:
        raise Conflict(f"{wf_id} was already resubmitted as {later[-1]}; edit and resubmit that one")
    return state


def resubmit(loop: WorkflowLoop, wf_id: str, request: str, *, actor: str | None = None,
             on_created: Callable[[str, str], None] | None = None) -> Resubmitted:
    """``gcv resubmit WF "edited request"`` / the console's "Edit and resubmit": a new workflow
    of the edited request on the old one's baseline, engine, provider, seed, budgets, population
    and fair-fight policy, recording ``resubmitted_from``; proposed as :func:`submit` does. The old
    workflow is left as it is (its history and evidence stay final); its lock is held while the
    new one is created, so two resubmissions of one workflow cannot both succeed."""
    with writer(loop, wf_id):
        d, _ = loop.load(wf_id)
        old = check_resubmittable(loop, wf_id)
        s = old.settings
        base = BulletHellConfig.model_validate(d.get(old.baseline_hash))
        submission = Submission(request=request.strip(), engine=s.engine, provider=s.provider, seed=s.seed,
                                budgets=s.budgets, population=s.population, baseline=(base, old.baseline_source),
                                actor=actor, fairness_policy=s.fairness_policy, resubmitted_from=wf_id)
        submitted = submit(loop, submission, on_created=on_created)
        return Resubmitted(submitted.state, baseline_source=submitted.baseline_source, old=old)


def _larger(current: Budgets, overrides: BudgetOverrides) -> Budgets:
    """The merged budgets, refused unless one of them is larger than the old run's and none smaller."""
    merged = merged_budgets(current, overrides)
    keys = [k for k, v in vars(overrides).items() if v is not None]
    if any(getattr(merged, k) < getattr(current, k) for k in keys):
        smaller = next(k for k in keys if getattr(merged, k) < getattr(current, k))
        raise InvalidInput(f"{smaller}: {getattr(merged, smaller)} is smaller than the {getattr(current, smaller)} "
                           "the workflow ran out of; run again with a larger budget", field=smaller)
    if not any(getattr(merged, k) > getattr(current, k) for k in keys):
        raise InvalidInput("run again with a larger budget: raise at least one of max_candidate_runs, "
                           "max_model_calls, max_tokens, deadline_seconds", field="budgets")
    return merged


def rerun_with_larger_budget(loop: WorkflowLoop, wf_id: str, *, actor: str, overrides: BudgetOverrides,
                             via: str = "gcv console", advance: bool = True) -> Rerun:
    """An operator runs a ``budget_exhausted`` workflow again with a larger budget: the state
    machine takes no way out of that status but a decision, so this is a :func:`resubmit` of the
    same request, authorized at once by the operator with the larger budgets (under the old
    authorization's repair scope and fair-fight policy), then run (``advance=False``: authorized
    only; the console runs it in the background)."""
    if not actor.strip():
        raise InvalidInput("running again needs an actor name (--actor)", field="actor")
    old = load(loop, wf_id)
    if old.status != Status.BUDGET_EXHAUSTED:
        raise WrongState(f"{wf_id} is {old.status} ({old.status.title}); only a workflow whose budget is exhausted "
                         "runs again with a larger budget (edit and resubmit the others)")
    budgets = _larger(old.settings.budgets, overrides)
    scope = "request"
    if old.authorization is not None and old.authorization.repair_scope is not None:
        d = loop.ws.workflow_dir(wf_id)
        whole = whole_fight(BulletHellConfig.model_validate(d.get(old.baseline_hash)))
        got = old.authorization.repair_scope
        scope = "fight" if (got.phases, got.fields) == (whole.phases, whole.fields) else "request"
    resubmitted = resubmit(loop, wf_id, old.request, actor=actor)
    new_id = resubmitted.wf_id
    if resubmitted.status != Status.AWAITING_AUTHORIZATION:  # the same request stopped earlier this time
        return Rerun(resubmitted.state, old=resubmitted.old, budgets=budgets)
    authorized = authorize(loop, new_id, actor=actor, via=via,
                           overrides=BudgetOverrides(**{k: getattr(budgets, k) for k in vars(BudgetOverrides())}),
                           fairness_policy=old.settings.fairness_policy, repair_scope=scope)
    state = authorized.state
    if advance:
        state = resume(loop, new_id).state
    return Rerun(state, old=resubmitted.old, budgets=budgets)


# ---------------------------------------------------------------------- what needs me
# NEEDS (gcv.contract.status): what each role is waited for by.


def needed_by(roles: Iterable[str]) -> tuple[str, ...]:
    """The statuses that wait for a person with any of ``roles`` (``InvalidInput`` for a role
    that is not one)."""
    out: list[str] = []
    for role in roles:
        if role not in NEEDS:
            raise InvalidInput(f"role {role!r}; roles: {', '.join(NEEDS)}", field="needs")
        out += [str(s) for s in NEEDS[role] if str(s) not in out]
    return tuple(out)


__all__ = ["offered_providers", "Submission", "BudgetOverrides", "check_submission", "submit", "answer", "authorize", "resume",
           "resumable", "decide", "reject", "questions", "merged_budgets", "find", "load", "writer", "refusals",
           "refusal_of", "finish", "choose", "tradeoffs", "check_fairness_policy", "REPAIR_SCOPES",
           "RESUBMITTABLE", "resubmit", "resubmissions", "check_resubmittable", "rerun_with_larger_budget", "NEEDS",
           "needed_by"]
