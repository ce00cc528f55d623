"""Untrusted bundles: refused with a clear message, nothing written outside a temporary folder."""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path

import pytest

from gcv.store.safezip import BundleReadError, Limits, check_name, read_bundle
from gcv.evidence.verify import verify_bundle
from tests.support.evidenceutil import zip_bytes

GOOD = [("manifest.json", b"{}"), ("configs/baseline.json", b"{}")]


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Work from an empty folder with its own TMPDIR, so stray writes are visible."""
    work = tmp_path / "work"
    temp = tmp_path / "temp"
    work.mkdir()
    temp.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("TMPDIR", str(temp))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    return tmp_path


def _everything(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def _refused(sandbox: Path, data: bytes, *, match: str, limits: Limits | None = None) -> None:
    bundle = sandbox / "work" / "evil.zip"
    bundle.write_bytes(data)
    before = _everything(sandbox)
    report = verify_bundle(bundle, **({"limits": limits} if limits else {}))
    assert report.unreadable and report.exit_code == 2 and not report.ok
    assert report.first_failure.name == "integrity.archive"
    assert match in report.first_failure.message, report.first_failure.message
    assert _everything(sandbox) == before  # nothing extracted anywhere, temp folder cleaned up
    assert not list((sandbox / "temp").iterdir())


def test_truncated_zip_is_refused(sandbox: Path) -> None:
    data = zip_bytes(GOOD + [("report.html", os.urandom(4096))])
    _refused(sandbox, data[: len(data) // 2], match="truncated or corrupted")


def test_corrupted_entry_is_refused(sandbox: Path) -> None:
    payload = bytes(range(256)) * 64
    data = bytearray(zip_bytes([("manifest.json", payload)]))
    start = data.index(b"manifest.json") + len("manifest.json") + 10  # inside the deflate stream
    data[start] ^= 0xFF
    _refused(sandbox, bytes(data), match="corrupted")


def test_not_a_zip_is_refused(sandbox: Path) -> None:
    _refused(sandbox, b"PK\x03\x04 definitely not a zip", match="not a readable zip")


@pytest.mark.parametrize("name", ["../evil.txt", "configs/../../evil.txt", "a/../../../evil.txt"])
def test_parent_directory_entries_are_refused(sandbox: Path, name: str) -> None:
    _refused(sandbox, zip_bytes(GOOD + [(name, b"owned")]), match="path traversal")
    assert not list(sandbox.parent.glob("evil.txt")) and not (sandbox / "evil.txt").exists()


@pytest.mark.parametrize("name", ["/tmp/gcv-evil-absolute.txt", "C:/evil.txt", "\\evil.txt"])
def test_absolute_paths_are_refused(sandbox: Path, name: str) -> None:
    info = zipfile.ZipInfo("placeholder")
    info.filename = name  # ZipInfo normalizes some names; write the raw one
    _refused(sandbox, zip_bytes(GOOD + [(info, b"owned")]), match="absolute" if "\\" not in name else "backslash")
    assert not Path("/tmp/gcv-evil-absolute.txt").exists()


def test_symlink_entries_are_refused(sandbox: Path) -> None:
    info = zipfile.ZipInfo("configs/link.json")
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    _refused(sandbox, zip_bytes(GOOD + [(info, b"/etc/passwd")]), match="symbolic link")


def test_duplicate_names_are_refused(sandbox: Path) -> None:
    _refused(sandbox, zip_bytes(GOOD + [("Configs/Baseline.json", b"{}")]), match="duplicate")


def test_zip_bomb_by_ratio_is_refused(sandbox: Path) -> None:
    bomb = zip_bytes(GOOD + [("report.html", b"\0" * (48 << 20))])
    assert len(bomb) < 200_000
    _refused(sandbox, bomb, match="zip bomb")


def test_zip_bomb_by_total_size_is_refused(sandbox: Path) -> None:
    many = zip_bytes(GOOD + [(f"runs/r{i}.bin", os.urandom(64 << 10)) for i in range(8)])
    _refused(sandbox, many, match="zip bomb", limits=Limits(max_total_bytes=256 << 10))


def test_too_many_entries_are_refused(sandbox: Path) -> None:
    _refused(sandbox, zip_bytes([(f"f{i}", b"x") for i in range(30)]), match="entries",
             limits=Limits(max_entries=20))


def test_folder_bundle_with_a_symlink_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "bundle"
    (folder / "configs").mkdir(parents=True)
    (folder / "manifest.json").write_text("{}")
    (folder / "configs" / "baseline.json").symlink_to("/etc/hostname")
    report = verify_bundle(folder)
    assert report.unreadable and "symbolic link" in report.first_failure.message


def test_missing_input_is_unreadable(tmp_path: Path) -> None:
    report = verify_bundle(tmp_path / "nope.zip")
    assert report.exit_code == 2 and "does not exist" in report.first_failure.message


def test_extraction_stays_inside_the_work_folder(tmp_path: Path) -> None:
    work = tmp_path / "extract"
    work.mkdir()
    path = tmp_path / "ok.zip"
    path.write_bytes(zip_bytes(GOOD + [("runs/baseline/frames/tick_000600.png", b"\x89PNG")]))
    files = read_bundle(path, workdir=work)
    assert set(files) == {"manifest.json", "configs/baseline.json", "runs/baseline/frames/tick_000600.png"}
    assert {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()} == {
        "ok.zip", "extract/manifest.json", "extract/configs/baseline.json",
        "extract/runs/baseline/frames/tick_000600.png"}
    with pytest.raises(BundleReadError):
        read_bundle(tmp_path / "missing.zip", workdir=work)


@pytest.mark.parametrize("name, ok", [
    ("configs/baseline.json", True), ("a", True), ("", False), ("/abs", False), ("a/../b", False),
    ("a//b", False), ("./a", False), ("a\\b", False), ("a\x00b", False), ("D:x", False), ("dir/", True),
])
def test_entry_name_rules(name: str, ok: bool) -> None:
    assert (check_name(name) is None) == ok
