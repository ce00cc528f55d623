"""The offline Requirement Agent: a deterministic, rule-based reader of English and Chinese.

It is the product's default provider (no API key, no network) and the yardstick the model
providers are compared against, so it is deliberately conservative: it maps what it can map
exactly and asks about the rest instead of guessing. One file per idea:

* ``numbers.py``: number normalisation (full-width, Chinese numerals, units, approximations);
* ``spelling.py``: typos of the words the rules know;
* ``phrases.py``: the phrase tables (every phrasing the reader knows, by kind);
* ``state.py``: the parse state (``Reading``) and the helpers the handlers share;
* ``handlers/``: one handler per kind of thing a request says (phases, targets, patterns and
  switches, rotation, numbers of each form, qualitative words, pressure, scope, injections);
* ``reader.py``: the reader (clauses, the order of the handlers, answers in place);
* ``decision.py``: the decision (questions, blocks, the goal, the calculator's candidate);
* ``provider.py``: the provider and its recorded call.

The phrase tables are documented in ``docs/requirements-agent.md``.
"""

from gcv.agents.offline_requirement.decision import MAX_REQUEST_CHARS, decide, pending_question
from gcv.agents.offline_requirement.numbers import cn_to_int, normalize
from gcv.agents.offline_requirement.provider import MODEL_NAME, PROMPT_ID, PROVIDER_NAME, OfflineRequirementProvider
from gcv.agents.offline_requirement.reader import RequestReader
from gcv.agents.offline_requirement.state import MAX_QUESTIONS, Reading

__all__ = ["OfflineRequirementProvider", "RequestReader", "Reading", "decide", "normalize", "cn_to_int",
           "pending_question", "MAX_REQUEST_CHARS", "MAX_QUESTIONS", "PROVIDER_NAME", "MODEL_NAME", "PROMPT_ID"]
