"""Evidence bundles: layout, manifest and Merkle root, determinism, scrubbing, signing, CLI."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import zipfile
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from gcv.evidence.bundle import export_bundle
from gcv.evidence.collect import EvidenceError
from gcv.evidence.finalize import finalize_evidence
from gcv.evidence.merkle import merkle_root
from gcv.evidence.signing import PAYLOAD_TYPE, Ed25519Signer, HmacSigner, pae
from gcv.evidence.verify import verify_bundle
from tests.support.evidenceutil import dump, load, read_zip, rehash_manifest, run_workflow, write_plain_zip

FAKE_KEY = "sk-ant-api03-FAKE-test-key-0123456789abcdef"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("home")


@pytest.fixture(scope="module")
def workflow(tmp_path_factory: pytest.TempPathFactory, home: Path):
    """A real workflow in a workspace inside a fake $HOME (so paths under $HOME are in play)."""
    ws, wf_id = run_workflow(home / "gcv-home")
    return ws, wf_id


@pytest.fixture(scope="module")
def bundle(workflow, home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws, wf_id = workflow
    mp = pytest.MonkeyPatch()
    mp.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    mp.setenv("HOME", str(home))
    for name in ("GCV_SIGNING_KEY_HMAC", "GCV_SIGNING_KEY_ED25519"):
        mp.delenv(name, raising=False)
    try:
        return export_bundle(ws, wf_id, tmp_path_factory.mktemp("out") / "evidence.zip")
    finally:
        mp.undo()


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GCV_SIGNING_KEY_HMAC", "GCV_SIGNING_KEY_ED25519", "GCV_VERIFY_KEY_ED25519"):
        monkeypatch.delenv(name, raising=False)


# ---------------------------------------------------------------------- layout and manifest
def test_bundle_has_readable_names_for_every_part(bundle: Path) -> None:
    names = set(read_zip(bundle))
    expected = {
        "manifest.json", "index.json", "report.html", "request.txt", "goal.json",
        "workflow/state.json", "workflow/events.jsonl", "configs/baseline.json", "configs/candidate_1.json",
        "configs/candidate_2.json", "diffs/candidate_1.json", "validation/candidate_2.json",
        "runs/baseline/request.json", "runs/baseline/telemetry.json", "runs/baseline/frames/tick_000600.png",
        "runs/candidate_2/frames/tick_001800.png", "runs/candidate_1/telemetry.json",
        "evaluations/candidate_1.json", "evaluations/candidate_2.json", "agents/requirement.json",
        "agents/review_round_1.json", "agents/review_round_2.json", "reviews/round_1.json",
        "reviews/round_2.json", "repairs/round_1.json",
    }
    assert expected <= names, sorted(expected - names)
    assert "manifest.dsse.json" not in names  # no key configured


def test_agent_runs_carry_provider_model_prompt_latency_usage_and_raw_output(bundle: Path) -> None:
    files = read_zip(bundle)
    record = load(files, "agents/review_round_1.json")
    call = record["calls"][0]
    for key in ("provider", "model", "prompt_id", "latency_ms", "usage", "raw_output"):
        assert key in call
    assert json.loads(call["raw_output"])["intent"] == record["verdict"]["intent"]
    review = load(files, "reviews/round_1.json")
    assert review["gate"]["outcome"] == "repair" and review["allowed"]["intents"]
    repair = load(files, "repairs/round_1.json")
    assert repair["ok"] and repair["changes"] and repair["to_candidate"]


def test_manifest_is_an_in_toto_statement_over_every_file(bundle: Path) -> None:
    files = read_zip(bundle)
    m = load(files, "manifest.json")
    assert m["_type"] == "https://in-toto.io/Statement/v1"
    assert m["predicateType"] == "https://gcv.dev/evidence-bundle/v1"
    listed = {s["name"]: s["digest"]["sha256"] for s in m["subject"]}
    assert set(listed) == set(files) - {"manifest.json"}
    assert all(hashlib.sha256(files[n]).hexdigest() == d for n, d in listed.items())
    assert [s["name"] for s in m["subject"]] == sorted(listed)
    p = m["predicate"]
    state = load(files, "workflow/state.json")
    assert p["workflow"]["id"] == state["id"] and p["workflow"]["status"] == "evidence_ready"
    assert p["workflow"]["terminal_reason"] == "accepted_by_review"
    assert p["engine"]["runs"][0]["name"] == "python-sim" and p["engine"]["runs"][0]["version"]
    assert p["seed"] == 1 and p["players"]["labels"] == ["scripted"]
    assert p["budgets"]["max_candidate_runs"] == 3 and p["usage"]["candidate_runs"] == 2
    assert p["final_decision"]["final_candidate_hash"] == state["final_candidate_hash"]
    assert p["tool"]["name"] == "gcv" and p["tool"]["version"]
    assert p["merkle_root"] == p["merkle"]["root"] == _rfc6962_root(m["subject"])


def _rfc6962_root(subject: list[dict]) -> str:
    """An independent RFC 6962 implementation (iterative, as the RFC's reference)."""
    leaves = [hashlib.sha256(b"\x00" + s["name"].encode() + b"\x00" + bytes.fromhex(s["digest"]["sha256"])).digest()
              for s in sorted(subject, key=lambda s: s["name"].encode())]

    def mth(nodes: list[bytes]) -> bytes:
        if len(nodes) == 1:
            return nodes[0]
        k = 1 << ((len(nodes) - 1).bit_length() - 1)
        return hashlib.sha256(b"\x01" + mth(nodes[:k]) + mth(nodes[k:])).digest()

    return mth(leaves).hex() if leaves else hashlib.sha256(b"").hexdigest()


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 7, 8, 9])
def test_merkle_root_follows_rfc6962_for_every_tree_shape(n: int) -> None:
    subject = [{"name": f"f{i}", "digest": {"sha256": hashlib.sha256(bytes([i])).hexdigest()}} for i in range(n)]
    pairs = [(s["name"], s["digest"]["sha256"]) for s in subject]
    assert merkle_root(pairs) == _rfc6962_root(subject)
    assert merkle_root(list(reversed(pairs))) == merkle_root(pairs)  # order-independent input


def test_zip_is_deterministic_sorted_and_timestamp_free(workflow, tmp_path: Path, no_keys) -> None:
    ws, wf_id = workflow
    a = export_bundle(ws, wf_id, tmp_path / "a" / "evidence.zip")
    b = export_bundle(ws, wf_id, tmp_path / "b" / "evidence.zip")
    assert a.read_bytes() == b.read_bytes()
    with zipfile.ZipFile(a) as zf:
        infos = zf.infolist()
    assert [i.filename for i in infos] == sorted(i.filename for i in infos)
    assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
    assert {(i.external_attr >> 16) & 0o777 for i in infos} == {0o644}
    assert not [p for p in a.parent.iterdir() if p.name != "evidence.zip"]  # no temporary file left


def test_export_is_atomic_when_refused(workflow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_keys) -> None:
    ws, wf_id = workflow
    monkeypatch.setattr("gcv.evidence.scrub.Scrubber.leaks", lambda self, data: ["[redacted:TEST]"])
    out = tmp_path / "evidence.zip"
    with pytest.raises(EvidenceError, match="refusing"):
        export_bundle(ws, wf_id, out)
    assert list(tmp_path.iterdir()) == []


def test_folder_bundle_verifies_like_the_zip(workflow, tmp_path: Path, no_keys) -> None:
    ws, wf_id = workflow
    out = export_bundle(ws, wf_id, tmp_path / "bundle", as_dir=True)
    assert (out / "manifest.json").is_file()
    report = verify_bundle(out, replay=True)
    assert report.ok, report.first_failure


# ---------------------------------------------------------------------- nothing leaks
def test_no_secret_home_or_workspace_path_in_the_bundle(bundle: Path, workflow, home: Path) -> None:
    ws, _ = workflow
    data = bundle.read_bytes()
    files = read_zip(bundle)
    for needle in (FAKE_KEY, str(ws.root), str(ws.root.resolve()), str(home), os.getcwd()):
        assert needle.encode() not in data
        hits = [name for name, content in files.items() if needle.encode() in content]
        assert hits == [], (needle, hits)
    requests = [load(files, f"runs/{r}/request.json") for r in ("baseline", "candidate_1", "candidate_2")]
    assert all(not r["output_dir"].startswith("/") for r in requests)
    assert "os.environ" not in files["report.html"].decode() and "PATH=" not in files["report.html"].decode()


@pytest.mark.slow
def test_a_secret_inside_the_content_is_scrubbed_and_the_bundle_still_verifies(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_keys) -> None:
    # the designer pasted something secret into the request; it is everywhere: request,
    # goal, the requirement agent's raw output, the first (hash-chained) event
    secret = "zqxj-kvbw-pfmt-rghy"
    ws, wf_id = run_workflow(tmp_path / "ws", "make phase 3 slower " + secret)
    monkeypatch.setenv("MY_SERVICE_TOKEN", secret)
    out = export_bundle(ws, wf_id, tmp_path / "evidence.zip")
    files = read_zip(out)
    assert not [n for n, d in files.items() if secret.encode() in d]
    assert "[redacted:MY_SERVICE_TOKEN]" in files["request.txt"].decode()
    index = load(files, "index.json")
    assert 0 in index["redactions"]["events"] and index["rehashed"]
    report = verify_bundle(out, replay=True)
    assert report.ok, (report.first_failure, report.failed())
    assert "redacted" in report.check("integrity.event_chain").message


# ---------------------------------------------------------------------- signing
def test_pae_matches_the_dsse_specification() -> None:
    assert pae("http://example.com/HelloWorld", b"hello world") == \
        b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"


def test_unsigned_bundle_is_reported_unsigned(bundle: Path, no_keys) -> None:
    report = verify_bundle(bundle)
    assert report.ok
    assert report.signature["status"] == "unsigned"
    assert "unsigned" in report.check("integrity.signature").message
    strict = verify_bundle(bundle, require_signature=True)
    assert strict.first_failure.name == "integrity.signature"


def test_hmac_signature_round_trip_and_tampering(workflow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 no_keys) -> None:
    ws, wf_id = workflow
    secret = "a-shared-secret-of-32-characters!"
    monkeypatch.setenv("GCV_SIGNING_KEY_HMAC", secret)
    out = export_bundle(ws, wf_id, tmp_path / "signed.zip")
    files = read_zip(out)
    envelope = load(files, "manifest.dsse.json")
    assert envelope["payloadType"] == PAYLOAD_TYPE
    assert base64.b64decode(envelope["payload"]) == files["manifest.json"]
    assert envelope["signatures"][0]["keyid"].startswith("hmac-sha256:")
    assert secret.encode() not in out.read_bytes()
    good = verify_bundle(out)
    assert good.ok and good.signature["status"] == "verified" and good.signature["trusted"]

    monkeypatch.setenv("GCV_SIGNING_KEY_HMAC", "another-secret-of-32-characters!!")
    assert verify_bundle(out).first_failure.name == "integrity.signature"
    monkeypatch.delenv("GCV_SIGNING_KEY_HMAC")
    missing = verify_bundle(out)
    assert missing.first_failure.name == "integrity.signature"
    assert missing.signature["status"] == "unverifiable" and "GCV_SIGNING_KEY_HMAC" in missing.first_failure.message

    monkeypatch.setenv("GCV_SIGNING_KEY_HMAC", secret)
    sig = bytearray(base64.b64decode(envelope["signatures"][0]["sig"]))
    sig[0] ^= 1
    envelope["signatures"][0]["sig"] = base64.b64encode(bytes(sig)).decode()
    tampered = write_plain_zip({**files, "manifest.dsse.json": dump(envelope)}, tmp_path / "tampered.zip")
    report = verify_bundle(tampered)
    assert report.first_failure.name == "integrity.signature" and "does not match" in report.first_failure.message


def _ed25519_pem(path: Path) -> tuple[Path, Path]:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    key = ed25519.Ed25519PrivateKey.generate()
    private = path.with_suffix(".key.pem")
    public = path.with_suffix(".pub.pem")
    private.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    public.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo))
    return private, public


def test_ed25519_signature_round_trip_trust_and_tampering(workflow, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch, no_keys) -> None:
    ws, wf_id = workflow
    private, public = _ed25519_pem(tmp_path / "signer")
    monkeypatch.setenv("GCV_SIGNING_KEY_ED25519", str(private))
    out = export_bundle(ws, wf_id, tmp_path / "signed.zip")
    files = read_zip(out)
    entry = load(files, "manifest.dsse.json")["signatures"][0]
    assert entry["keyid"] == hashlib.sha256(base64.b64decode(entry["public_key"])).hexdigest()
    assert entry["keyid"] == Ed25519Signer.from_pem_file(private).keyid
    assert private.read_bytes() not in out.read_bytes()

    embedded = verify_bundle(out)  # no pinned key: the embedded one, honestly reported
    assert embedded.ok and embedded.signature["status"] == "verified" and not embedded.signature["trusted"]
    assert "not who signed" in embedded.check("integrity.signature").message
    assert embedded.trust == "integrity"  # anyone can make a key and sign: integrity only, never "trusted"

    monkeypatch.setenv("GCV_VERIFY_KEY_ED25519", str(public))
    pinned = verify_bundle(out)
    assert pinned.ok and pinned.signature["trusted"] and pinned.trust == "trusted"

    _, other_public = _ed25519_pem(tmp_path / "other")
    monkeypatch.setenv("GCV_VERIFY_KEY_ED25519", str(other_public))
    wrong = verify_bundle(out)
    assert wrong.first_failure.name == "integrity.signature" and "not by the key" in wrong.first_failure.message

    monkeypatch.delenv("GCV_VERIFY_KEY_ED25519")
    # a changed manifest (here: only its predicate, digests untouched) no longer matches the signature
    manifest = load(files, "manifest.json")
    manifest["predicate"]["tool"]["version"] = "9.9.9"
    changed = write_plain_zip({**files, "manifest.json": dump(manifest)}, tmp_path / "changed.zip")
    report = verify_bundle(changed)
    assert report.failed() == ["integrity.signature"]
    assert "not this bundle's manifest" in report.first_failure.message
    # a forger who re-signs with their own key gets "verified" only against the embedded key
    forged = rehash_manifest(dict(files))
    signer = Ed25519Signer.from_pem_file(_ed25519_pem(tmp_path / "forger")[0])
    from gcv.evidence.signing import envelope_bytes, sign_envelope

    forged["manifest.dsse.json"] = envelope_bytes(sign_envelope(forged["manifest.json"], signer))
    forged_zip = write_plain_zip(forged, tmp_path / "forged.zip")
    monkeypatch.setenv("GCV_VERIFY_KEY_ED25519", str(public))
    assert verify_bundle(forged_zip).first_failure.name == "integrity.signature"


def test_signer_objects_can_be_passed_explicitly(workflow, tmp_path: Path, no_keys) -> None:
    ws, wf_id = workflow
    out = export_bundle(ws, wf_id, tmp_path / "s.zip", signer=HmacSigner("explicit-secret-0123456789"))
    assert "manifest.dsse.json" in read_zip(out)
    unsigned = export_bundle(ws, wf_id, tmp_path / "u.zip", signer=False)
    assert "manifest.dsse.json" not in read_zip(unsigned)


# ---------------------------------------------------------------------- other outcomes, finalize, CLI
@pytest.mark.parametrize("request_text, status", [
    ("make it more fun", "needs_clarification"),
    ("make phase 2 harder", "budget_exhausted"),  # two engine runs are not enough for it
])
@pytest.mark.slow
def test_bundles_of_other_outcomes_verify_with_replay(tmp_path: Path, request_text: str, status: str, no_keys) -> None:
    from gcv.workflow.state import Budgets, Settings

    ws, wf_id = run_workflow(tmp_path / "ws", request_text, settings=Settings(budgets=Budgets(max_candidate_runs=2)))
    out = export_bundle(ws, wf_id, tmp_path / "e.zip")
    report = verify_bundle(out, replay=True)
    assert report.status == status
    assert report.ok, (report.first_failure, report.failed())


def test_an_answered_clarification_bundles_and_verifies_with_replay(tmp_path: Path, no_keys) -> None:
    """The answer clears the terminal reason the clarification set: verify follows the log the
    same way (before: export refused, "the event log's terminal reason is
    'requirement_needs_clarification', the state says None")."""
    from gcv.workflow.loop import WorkflowLoop

    ws, wf_id = run_workflow(tmp_path / "ws", "make it harder")
    engine = WorkflowLoop(ws)
    assert engine.load(wf_id)[1].status == "needs_clarification"
    engine.answer(wf_id, text="phase 2", actor="designer")
    assert engine.advance(wf_id).status == "awaiting_authorization"
    report = verify_bundle(export_bundle(ws, wf_id, tmp_path / "e.zip"), replay=True)
    assert (report.status, report.ok) == ("awaiting_authorization", True), (report.first_failure, report.failed())


def test_an_agent_failure_is_a_verifiable_outcome(tmp_path: Path, no_keys) -> None:
    from gcv.workflow.state import Settings

    ws, wf_id = run_workflow(tmp_path / "a", "make phase 3 slower")
    recording = ws.workflow_dir(wf_id).root
    ws2, wf2 = run_workflow(tmp_path / "b", "make phase 3 slower please",
                            settings=Settings(provider=f"replay:{recording}"))
    report = verify_bundle(export_bundle(ws2, wf2, tmp_path / "e.zip"), replay=True)
    assert (report.status, report.ok) == ("failed", True), report.failed()
    assert "replay_mismatch" in report.check("replay.loop").message


@pytest.mark.slow
def test_population_evidence_is_bundled_and_replayed(tmp_path: Path, no_keys) -> None:
    from gcv.workflow.state import Settings

    population = {"skills": ["novice"], "seeds": 4, "basis": "point",
                  "targets": [{"name": "novice never hit", "skill": "novice", "field": "hits_mean", "op": "<=",
                               "value": 0.0}]}
    ws, wf_id = run_workflow(tmp_path / "ws", "make phase 3 much denser", settings=Settings(population=population))
    out = export_bundle(ws, wf_id, tmp_path / "e.zip")
    files = read_zip(out)
    assert "populations/baseline.json" in files and "populations/candidate_1.json" in files
    assert "Bot population" in files["report.html"].decode()
    report = verify_bundle(out, replay=True)
    assert report.ok, (report.first_failure, report.failed())
    assert "re-run" in report.check("replay.populations").message
    # a forged population figure that no target reads: only its re-run can tell
    summary = load(files, "populations/baseline.json")
    summary["skills"][0]["peak_alive_p90"] += 1
    files["populations/baseline.json"] = dump(summary)
    state = load(files, "workflow/state.json")
    from gcv.contract.canonical import content_hash

    state["baseline_population"]["summary_hash"] = content_hash(summary)
    files["workflow/state.json"] = dump(state)
    forged = write_plain_zip(rehash_manifest(files), tmp_path / "forged.zip")
    assert verify_bundle(forged).ok
    report = verify_bundle(forged, replay=True)
    assert report.first_failure.name == "replay.populations" and "peak_alive_p90" in report.first_failure.message


def test_finalize_evidence_writes_report_and_bundle(workflow, no_keys) -> None:
    ws, wf_id = workflow
    written = finalize_evidence(ws, wf_id)
    assert written.version.number == 1 and not written.version.interim
    assert written.bundle.name == f"{wf_id}.evidence.v1.zip" and written.report.name == "report.v1.html"
    assert written.latest_bundle.name == f"{wf_id}.evidence.zip" and written.latest_report.name == "report.html"
    assert written.report.read_bytes() == read_zip(written.bundle)["report.html"] == written.latest_report.read_bytes()
    assert written.latest_bundle.read_bytes() == written.bundle.read_bytes()
    assert f"gcv verify {wf_id}.evidence.v1.zip --replay" in written.report.read_text()
    assert verify_bundle(written.bundle).ok


@pytest.fixture
def cli(workflow, monkeypatch: pytest.MonkeyPatch, no_keys):
    from gcv.cli.commands import evidence_cmds

    ws, wf_id = workflow
    monkeypatch.setenv("GCV_HOME", str(ws.root))
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    app.add_typer(evidence_cmds.app)
    return CliRunner(), app, wf_id


def test_cli_bundle_verify_report(cli, tmp_path: Path) -> None:
    runner, app, wf_id = cli
    out = tmp_path / "e.zip"
    result = runner.invoke(app, ["bundle", wf_id, "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)
    assert info["bundle"] == str(out) and info["signed"] is False and len(info["merkle_root"]) == 64

    result = runner.invoke(app, ["verify", str(out), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["ok"] and data["first_failure"] is None and data["workflow_id"] == wf_id
    assert {c["name"] for c in data["checks"]} >= {"integrity.merkle_root", "consistency.validation"}

    result = runner.invoke(app, ["verify", str(out)])
    assert result.exit_code == 0 and "verified" in result.stdout
    assert "trust: unsigned" in result.stdout and "trusted" not in result.stdout  # never says trusted unsigned
    assert data["trust"] == "unsigned"

    files = read_zip(out)
    files["configs/candidate_1.json"], files["configs/candidate_2.json"] = (files["configs/candidate_2.json"],
                                                                           files["configs/candidate_1.json"])
    bad = write_plain_zip(rehash_manifest(files), tmp_path / "bad.zip")
    result = runner.invoke(app, ["verify", str(bad)])
    assert result.exit_code == 1
    assert "consistency.configs" in result.output

    (tmp_path / "junk.zip").write_bytes(b"not a zip at all")
    result = runner.invoke(app, ["verify", str(tmp_path / "junk.zip"), "--json"])
    assert result.exit_code == 2 and "not a readable zip" in json.loads(result.stdout)["error"]

    result = runner.invoke(app, ["report", wf_id, "-o", str(tmp_path / "r.html"), "--json"])
    assert result.exit_code == 0 and (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")

    result = runner.invoke(app, ["bundle", "wf-nope", "--json"])
    assert result.exit_code == 2 and "no workflow" in json.loads(result.stdout)["error"]

    result = runner.invoke(app, ["bundle", wf_id, "--dir"])
    assert result.exit_code == 0, result.output
    default_dir = Path(result.stdout.split("wrote ", 1)[1].splitlines()[0].strip())
    assert default_dir.is_dir() and default_dir.name == f"{wf_id}.evidence"


def test_a_noisy_engine_log_is_capped_so_the_bundle_stays_verifiable(workflow, tmp_path: Path, no_keys) -> None:
    ws, wf_id = workflow
    d = ws.workflow_dir(wf_id)
    log = d.runs / f"{wf_id}-baseline" / "run.log"  # what an out-of-process engine leaves beside its telemetry
    original = log.read_bytes() if log.exists() else None
    try:
        with open(log, "ab") as fh:  # a few MB of the same warning: compresses far past the reader's 100x
            fh.write(b"GCV-HELLO {}\n" + b"LogRenderer: Warning: texture streaming pool over budget\n" * 80_000)
        out = export_bundle(ws, wf_id, tmp_path / "noisy.zip")
        report = verify_bundle(out)
        assert report.ok, (report.first_failure, report.failed())
        files = read_zip(out)
        name = next(n for n in files if n.endswith("run.log") and b"left out" in files[n])
        assert len(files[name]) < 300_000 and b"bytes of this engine log left out" in files[name]
        noted = load(files, "manifest.json")["predicate"]["redactions"]["files"]
        assert any(f["file"] == name and "truncated" in f["reason"] for f in noted)
    finally:
        log.unlink() if original is None else log.write_bytes(original)


def test_a_corrupt_event_log_is_refused_by_the_exporter(tmp_path: Path, no_keys) -> None:
    ws, wf_id = run_workflow(tmp_path / "ws", "make phase 3 slower")
    events = ws.workflow_dir(wf_id).events_path
    lines = events.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].replace(b'"trace"', b'"trac3"')
    events.write_bytes(b"".join(lines))
    with pytest.raises(EvidenceError, match="line 3"):
        export_bundle(ws, wf_id, tmp_path / "e.zip")
    assert not (tmp_path / "e.zip").exists()
