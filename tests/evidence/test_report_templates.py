"""The report from templates: autoescaped, the same bytes as the f-string renderer before it,
and macros another Jinja2 environment (the console's) can import.

``golden/`` holds two bundles whose report.html the f-string renderer wrote before the
templates replaced it (gcv 0.1.0): a real one (a workflow awaiting authorization, small: no
runs, so no frames) and the same evidence edited to reach the branches a real workflow
rarely does (terminal reasons, questions and issues, a human decision, prescreen failures,
overruled gates, refused repairs, validation errors, agent errors, redactions, ten extra
diffs, a candidate that changes 13 fields), with a hostile string in every text. The
templates rendered them byte for byte; since then the report changed on purpose three times
and the goldens' report.html were re-rendered each time: the pending decision names
``--note TEXT`` when accept or rollback needs a note, (no byte here, neither has one) the
second reading's section, and the timeline shows the history of steps, each with its start
and duration and its trace lines, in place of the bare trace (issue 31.7; re-rendered with
``evidenceutil.rerender_report`` and ``rehash_manifest``, unsigned as before), and (issue 31.2)
a person reads field names beside their paths, values and thresholds with units, ticks with
seconds, survival at most the fight, the review as the agent's ("review passed (agent)", a
person's decision "accepted by NAME") and the offline provider's model calls without tokens
(re-rendered the same way, the zip's member order kept). The edited one
lost an event kind GCV never writes (the typed history refuses it; its hostile text is in
every other field still), then its state became a workflow state (the report reads the typed
state, issue 30): the terminal reason, the verdict's verdict and intent are valid names again
(the hostile text moved to the verdict's reason and the decision's note), and the
authorization got its scope and budgets; the old renderer re-rendered its report.html from
that state and the typed one renders the same bytes.
``verify --replay`` compares a re-rendered report with the bundled one only under the same
gcv version, so the golden comparison renders under the version the bundle records. When
the report changes on purpose, these bundles are re-rendered with the new renderer and the
change is named here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jinja2 import Environment, PackageLoader
from markupsafe import Markup

import gcv
from gcv.evidence.bundle import export_bundle
from gcv.evidence.collect import Evidence
from gcv.evidence.report import environment, escape_value, render_report
from gcv.evidence.verify import verify_bundle
from tests.support.evidenceutil import read_zip, run_workflow

GOLDEN = Path(__file__).parent / "golden"
HOSTILE = 'make phase 2 denser <script>alert("x")</script> & \'q\' \u2028 end'


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GCV_SIGNING_KEY_HMAC", "GCV_SIGNING_KEY_ED25519", "GCV_VERIFY_KEY_ED25519"):
        monkeypatch.delenv(name, raising=False)


def _recorded(files: dict[str, bytes]) -> tuple[str, str]:
    predicate = json.loads(files["manifest.json"])["predicate"]
    return predicate["report"]["bundle_name"], predicate["tool"]["version"]


@pytest.mark.parametrize("name", ["awaiting_authorization", "hostile_edited"])
def test_templates_render_the_golden_bytes(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    files = read_zip(GOLDEN / f"{name}.evidence.zip")
    bundle_name, version = _recorded(files)
    monkeypatch.setattr(gcv, "__version__", version)  # the footer names the version that rendered it
    again = render_report(Evidence(files), bundle_name=bundle_name).encode("utf-8")
    old = files["report.html"]
    if again != old:
        i = next((k for k, (a, b) in enumerate(zip(old, again)) if a != b), min(len(old), len(again)))
        pytest.fail(f"first difference at byte {i}: old {old[max(0, i - 80):i + 80]!r}, "
                    f"new {again[max(0, i - 80):i + 80]!r}")


def test_the_edited_golden_reaches_the_rare_branches() -> None:
    page = read_zip(GOLDEN / "hostile_edited.evidence.zip")["report.html"].decode("utf-8")
    for text in ("Questions", "Issues", "Human decision", "pre-screened", "overruled", "What the evidence allowed",
                 "badge fail\">refused", "Scrubbed for sharing", "error: boom", "$.extra[9]", " and 5 more"):
        assert text in page, text
    assert "<script" not in page and "&lt;/script&gt;" in page


def test_a_bundle_made_before_the_templates_still_verifies_with_replay(no_keys) -> None:
    path = GOLDEN / "awaiting_authorization.evidence.zip"
    report = verify_bundle(path, replay=True)
    assert report.ok, (report.first_failure, report.failed())
    check = report.check("replay.report")
    if _recorded(read_zip(path))[1] == gcv.__version__:
        assert check.status == "passed" and "byte for byte" in check.message
    else:  # another version renders it: replay says the bytes are not comparable (the golden test compares them)
        assert check.status == "skipped"


@pytest.mark.slow
def test_a_hostile_request_is_escaped_and_its_bundle_replays(tmp_path: Path, no_keys) -> None:
    ws, wf_id = run_workflow(tmp_path / "ws", HOSTILE)
    out = export_bundle(ws, wf_id, tmp_path / "e.zip")
    page = read_zip(out)["report.html"].decode("utf-8")
    assert "<script" not in page
    escaped = "make phase 2 denser &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#x27;q&#x27; \u2028 end"
    assert f"<blockquote>{escaped}</blockquote>" in page  # the request section
    assert f"<dd>“{escaped}”</dd>" in page  # the verdict's "What was asked"
    report = verify_bundle(out, replay=True)
    assert report.ok, (report.first_failure, report.failed())
    assert report.check("replay.report").status == "passed"


def test_values_are_escaped_once_and_markup_passes() -> None:
    env = environment()
    page = env.from_string("{{ a }}|{{ b }}|{{ c }}|{{ n }}").render(a='<a href="x">\'', b=Markup("<svg/>"),
                                                                     c=3.5, n=None)
    assert page == "&lt;a href=&quot;x&quot;&gt;&#x27;|<svg/>|3.5|"
    assert escape_value(Markup("<b>")) == "<b>" and escape_value("<b>") == "&lt;b&gt;"
    assert env.autoescape("report.html") is True


def test_macros_render_the_same_in_a_plain_environment() -> None:
    """What the console would do: import _macros.html into its own environment (no joined lines,
    markupsafe's escaping). Without quotes in the values the output is the same."""
    plain = Environment(loader=PackageLoader("gcv.evidence", "report_templates"), autoescape=True)
    source = ('{% import "_macros.html" as m %}{{ m.status_pill("evidence_ready", "ok") }}{{ m.badge(true) }}'
              '{{ m.badge(none) }}{{ m.badge(false, "x < y") }}{{ m.layer_badge("skipped") }}{{ m.num(5, "final") }}'
              '{% call m.table(["a", "b"], head_classes=["", "final"]) %}<tr><td>1</td></tr>{% endcall %}'
              '{{ m.figure("a & b", "data:x") }}')
    expected = ('<span class="pill ok">evidence ready</span><span class="badge pass">PASS</span>'
                '<span class="badge skip">n/a</span><span class="badge fail">x &lt; y</span>'
                '<span class="badge skip">skipped</span><td class="num final">5</td>'
                '<table class=""><thead><tr><th>a</th><th class="final">b</th></tr></thead><tbody><tr><td>1</td></tr>'
                '</tbody></table><figure class="chart"><img alt="a &amp; b" src="data:x"><figcaption class="small muted">'
                'a &amp; b</figcaption></figure>')
    assert plain.from_string(source).render() == expected
    assert environment().from_string(source).render() == expected


def test_the_templates_ship_with_the_package(repo_root: Path) -> None:
    import tomllib

    data = tomllib.loads((repo_root / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = data["tool"]["setuptools"]["package-data"]["gcv.evidence"]
    root = repo_root / "gcv" / "evidence"
    shipped = {p for pattern in patterns for p in root.glob(pattern)}
    templates = {p for p in (root / "report_templates").rglob("*") if p.is_file()}
    assert templates and templates <= shipped, sorted(str(p) for p in templates - shipped)


def test_no_hand_escaping_left_in_the_report_module(repo_root: Path) -> None:
    source = (repo_root / "gcv" / "evidence" / "report.py").read_text(encoding="utf-8")
    assert source.count("html.escape(") == 1  # the environment's finalize, nowhere else
    assert "<td" not in source and "<span" not in source and "<div" not in source
