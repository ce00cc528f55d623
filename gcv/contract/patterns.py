"""The pattern-kind vocabulary, defined once: which kinds there are and what each one does.

A phase's ``pattern.type`` names one of these kinds. Every module that asks a question of a
kind ("does it rotate?", "is it aimed?", "how are its slots laid out?") reads the answer
here instead of spelling its own list of names: the config model and its schema, the
compiler (``gcv.sim.program``), the program model's names and codes, the goal applier, the
validation rules, the repair calculators and the offline requirement reader.
``tests/contract/test_patterns.py`` holds that no other module spells a list of kinds.

What the properties mean (the compiler is their one reader that decides simulation
semantics; changing one changes every core's input, so it needs new golden vectors):

- ``code``: the kind's ``pattern_code`` in the sim program, its index in ``PATTERN_NAMES``
  (the C# and C++ cores read these names from their generated tables);
- ``rotates``: ``rotation_per_wave_deg`` turns the wave; the other kinds compile it to 0;
- ``aims``: the wave is centred on the player (the engine adds the boss-to-player angle);
- ``draws``: each bullet's offset draws from the RNG over ``[0, spread)`` (``scatter_span``);
- ``slots``: how the compiler lays out one wave's slots: ``arc`` (evenly over the spread,
  from straight down), ``petal`` (an arc with a wobble and faster outer layers), ``fan``
  (from one edge of the spread to the other, centred on the aim) or ``scatter`` (the left
  edge of the spread; the draw adds the rest);
- ``min_layers``: the fewest ``layer_count`` the kind means anything with;
- ``label``: the kind's name in a sentence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

PatternKind = Literal["ring", "spiral", "aimed_fan", "petal", "scatter"]
SlotLayout = Literal["arc", "petal", "fan", "scatter"]


@dataclass(frozen=True)
class PatternKindSpec:
    """One pattern kind and its properties (see the module docstring for their meaning)."""

    name: PatternKind
    code: int
    label: str
    rotates: bool
    aims: bool
    draws: bool
    slots: SlotLayout
    min_layers: int


PATTERN_NAMES: tuple[PatternKind, ...] = get_args(PatternKind)

_SPECS = (
    PatternKindSpec("ring", 0, "ring", rotates=False, aims=False, draws=False, slots="arc", min_layers=1),
    PatternKindSpec("spiral", 1, "spiral", rotates=True, aims=False, draws=False, slots="arc", min_layers=1),
    PatternKindSpec("aimed_fan", 2, "aimed fan", rotates=False, aims=True, draws=False, slots="fan",
                    min_layers=1),
    PatternKindSpec("petal", 3, "petal", rotates=True, aims=False, draws=False, slots="petal", min_layers=2),
    PatternKindSpec("scatter", 4, "scatter", rotates=False, aims=True, draws=True, slots="scatter",
                    min_layers=1),
)

PATTERNS: dict[str, PatternKindSpec] = {spec.name: spec for spec in _SPECS}
if tuple(PATTERNS) != PATTERN_NAMES or [s.code for s in _SPECS] != list(range(len(_SPECS))):
    raise AssertionError("gcv.contract.patterns: one record per kind, in PatternKind's order, code = index")

ROTATING_KINDS: tuple[str, ...] = tuple(s.name for s in _SPECS if s.rotates)
NON_ROTATING_KINDS: tuple[str, ...] = tuple(s.name for s in _SPECS if not s.rotates)
AIMED_KINDS: tuple[str, ...] = tuple(s.name for s in _SPECS if s.aims)


def pattern_kind(name: str) -> PatternKindSpec:
    """The record of one kind (a KeyError names a kind no config may hold)."""
    return PATTERNS[name]


def kinds_phrase(names: tuple[str, ...], joiner: str = "or") -> str:
    """``spiral or petal``: kinds in a sentence, by their labels."""
    labels = [PATTERNS[n].label for n in names]
    return labels[0] if len(labels) == 1 else f"{', '.join(labels[:-1])} {joiner} {labels[-1]}"
