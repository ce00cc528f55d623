"""The console's message catalogs, made from the code: what ``pybabel extract`` and ``pybabel
update`` do, through Babel's own functions, plus the vocabularies.

``python -m gcv.console.catalogs --write`` (``make catalogs``) extracts every message of the
files ``babel.cfg`` names (the templates with Jinja2's extractor, the Python files with
``_``, ``N_``, ``gettext``, ``ngettext`` and ``tr``), adds the **vocabularies** the pages show
but the code spells as data (status and reason titles, the contract's field names and units,
roles, pattern names, decisions, layer names...: :func:`vocabulary`), writes the template
``gcv/console/locale/messages.pot`` and updates each locale's ``messages.po`` (a new message
comes in untranslated, a message gone is dropped; no fuzzy guesses). Without ``--write`` it
only says whether the committed files are stale (exit 1 when they are).

The files carry no line numbers and a fixed date, so writing them twice gives the same bytes
and ``tests/console/test_i18n.py`` can hold them equal to the code.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from collections.abc import Iterable
from io import BytesIO
from pathlib import Path
from typing import get_args

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po, write_po

from gcv.agents.base import Decision
from gcv.agents.doctor import agents_report
from gcv.console import i18n
from gcv.console.users import ROLES
from gcv.contract.names import FIELDS, SECTIONS
from gcv.contract.patterns import PATTERNS
from gcv.contract.policies import POLICY_WORDS
from gcv.contract.status import Reason, Status
from gcv.evaluation.display import END_WORDS
from gcv.evidence.signing import TRUST_WORDS, trust_statement
from gcv.validation.report import LayerName, LayerStatus
from gcv.workflow.words import DECIDED, REVIEW_PASSED

ROOT = Path(__file__).resolve().parents[2]  # the repository (babel.cfg names its files from here)
MAPPING = ROOT / "babel.cfg"
TEMPLATE = i18n.LOCALE_DIR / f"{i18n.DOMAIN}.pot"
KEYWORDS = {**DEFAULT_KEYWORDS, "tr": None}
COMMENT_TAGS = ("TRANSLATORS:",)
# no date that moves: the files are made again byte for byte (the repository's history dates them)
FIXED_DATE = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
WIDTH = 100


def vocabulary() -> list[tuple[str, str]]:
    """(message, where it comes from) of the words the pages show that the code holds as data."""
    words: list[tuple[str, str]] = []

    def add(items: Iterable[str], where: str) -> None:
        words.extend((w, where) for w in items if w)

    add((s.title for s in Status), "gcv/contract/status.py Status.title")
    add((r.title for r in Reason), "gcv/contract/status.py Reason.title")
    add((w for w, _unit in FIELDS.values()), "gcv/contract/names.py FIELDS")
    add((u for _w, u in FIELDS.values() if u and u not in ("ratio", "°")), "gcv/contract/names.py FIELDS (units)")
    add(("position", "start position"), "gcv/contract/names.py field_label")
    add(SECTIONS.values(), "gcv/contract/names.py SECTIONS")
    add(ROLES, "gcv/console/users.py ROLES")
    add((p.label for p in PATTERNS.values()), "gcv/contract/patterns.py PATTERNS")
    add(POLICY_WORDS.values(), "gcv/contract/policies.py POLICY_WORDS")
    add(DECIDED, "gcv/workflow/states.py decisions")
    add(DECIDED.values(), "gcv/workflow/words.py DECIDED")
    add((REVIEW_PASSED,), "gcv/workflow/words.py REVIEW_PASSED")
    add(get_args(Decision), "gcv/agents/base.py Decision")
    add(get_args(LayerName), "gcv/validation/report.py LayerName")
    add(get_args(LayerStatus), "gcv/validation/report.py LayerStatus")
    add((*END_WORDS.values(), "ended"), "gcv/evaluation/display.py END_WORDS")
    add(TRUST_WORDS.values(), "gcv/evidence/signing.py TRUST_WORDS")
    add((trust_statement(level).explanation for level in TRUST_WORDS), "gcv/evidence/signing.py trust_statement")
    add(("registered", "promoted", "rolled_back"), "gcv/store/catalog.py baseline_activations.action")
    add((p["kind"] for p in agents_report()["providers"]), "gcv/agents/doctor.py agents_report")
    return words


def extracted(root: Path = ROOT) -> Catalog:
    """The template as the code says it now: Babel's extraction of ``babel.cfg``'s files, then
    the vocabularies."""
    with MAPPING.open(encoding="utf-8") as f:
        method_map, options_map = parse_mapping_cfg(f, str(MAPPING))
    template = Catalog(project="GCV console", domain=i18n.DOMAIN, creation_date=FIXED_DATE,
                       revision_date=FIXED_DATE, msgid_bugs_address="", copyright_holder="GCV",
                       charset="utf-8", fuzzy=False)
    for filename, _lineno, message, comments, context in extract_from_dir(
            str(root), method_map, options_map, keywords=KEYWORDS, comment_tags=COMMENT_TAGS,
            strip_comment_tags=True):
        template.add(message, None, [(filename, 0)], auto_comments=comments, context=context)
    for message, where in vocabulary():
        if message not in template:
            template.add(message, None, [(where.split(" ", 1)[0], 0)], auto_comments=[where])
    return template


def po_bytes(catalog: Catalog) -> bytes:
    out = BytesIO()
    write_po(out, catalog, width=WIDTH, include_lineno=False, sort_output=True, ignore_obsolete=True,
             include_previous=False)
    return out.getvalue()


def updated(template: Catalog, locale: str) -> Catalog:
    """``locale``'s catalog brought to ``template``: translations kept, new messages empty, the
    ones no longer in the code dropped (never a fuzzy guess)."""
    path = i18n.catalog_path(locale)
    with path.open("rb") as f:
        catalog = read_po(f, locale=locale, domain=i18n.DOMAIN)
    catalog.update(template, no_fuzzy_matching=True, update_header_comment=False, keep_user_comments=True,
                   update_creation_date=False)
    catalog.obsolete.clear()
    catalog.revision_date = FIXED_DATE
    return catalog


def stale(template: Catalog | None = None) -> list[Path]:
    """The committed files that differ from what the code makes of them."""
    template = template or extracted()
    out = []
    if not TEMPLATE.is_file() or TEMPLATE.read_bytes() != po_bytes(template):
        out.append(TEMPLATE)
    for locale in i18n.catalog_locales():
        path = i18n.catalog_path(locale)
        if path.read_bytes() != po_bytes(updated(template, locale)):
            out.append(path)
    return out


def write(template: Catalog | None = None) -> list[Path]:
    """Write the template and update every locale's catalog; the files that changed."""
    template = template or extracted()
    changed = []
    targets = [(TEMPLATE, po_bytes(template))]
    targets += [(i18n.catalog_path(loc), po_bytes(updated(template, loc))) for loc in i18n.catalog_locales()]
    for path, data in targets:
        if not path.is_file() or path.read_bytes() != data:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gcv.console.catalogs", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="write messages.pot and update each messages.po")
    args = parser.parse_args(argv)
    if args.write:
        for path in write():
            print(f"wrote {path.relative_to(ROOT)}")
        return 0
    old = stale()
    for path in old:
        print(f"stale: {path.relative_to(ROOT)} (python -m gcv.console.catalogs --write)")
    return 1 if old else 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["vocabulary", "extracted", "updated", "stale", "write", "po_bytes", "main", "TEMPLATE", "MAPPING"]
