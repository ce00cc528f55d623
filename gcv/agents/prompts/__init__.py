"""The model prompts, versioned files beside this module, and their rendering.

Each prompt file starts with a header line ``prompt_id: <agent>/<name>-v<N>`` and a line
``---``; the rest is the template. Bump the version when the wording changes in a way a
reviewer should notice. The id recorded on every agent call is ``<prompt_id>@<sha12>``,
where ``sha12`` is the first 12 hex digits of the template's sha256, so two workflows that
say the same id were asked with the same text even if someone forgot to bump the version.

Placeholders are ``{{name}}``; :func:`render` refuses a template with a placeholder it was
not given a value for (a silently empty baseline would be a very confusing prompt).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

_HEADER = re.compile(r"\Aprompt_id:\s*(?P<id>[a-z0-9_]+/[a-z0-9_\-.]+)\s*\n---\s*\n", re.S)
_PLACEHOLDER = re.compile(r"\{\{([a-z_]+)\}\}")


class PromptError(ValueError):
    """A prompt file is missing, has no header, or a placeholder has no value."""


@dataclass(frozen=True)
class Prompt:
    name: str
    version_id: str  # from the header, e.g. "requirement/claude-v1"
    template: str
    sha256: str  # of the template text (without the header)

    @property
    def prompt_id(self) -> str:
        return f"{self.version_id}@{self.sha256[:12]}"

    def placeholders(self) -> list[str]:
        return sorted(set(_PLACEHOLDER.findall(self.template)))

    def render(self, **values: str) -> str:
        missing = [p for p in self.placeholders() if p not in values]
        if missing:
            raise PromptError(f"prompt {self.version_id}: no value for {', '.join(missing)}")
        return _PLACEHOLDER.sub(lambda m: values[m.group(1)], self.template)


@lru_cache(maxsize=None)
def load(name: str) -> Prompt:
    """The prompt ``<name>.md`` shipped with this package (e.g. ``load("requirement")``)."""
    try:
        text = (resources.files(__package__) / f"{name}.md").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError) as exc:
        raise PromptError(f"no prompt file {name}.md in {__package__}: {exc}") from None
    match = _HEADER.match(text)
    if match is None:
        raise PromptError(f"prompt file {name}.md must start with 'prompt_id: <agent>/<name>-vN' and '---'")
    template = text[match.end():]
    return Prompt(name=name, version_id=match.group("id"), template=template,
                  sha256=hashlib.sha256(template.encode("utf-8")).hexdigest())


__all__ = ["Prompt", "PromptError", "load"]
