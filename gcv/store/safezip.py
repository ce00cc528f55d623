"""Reading a bundle someone sent you, without trusting it.

A bundle is untrusted input until verified. ``read_bundle`` refuses, with a message that
says what and where, before anything is written:

* a file that is not a zip, or a truncated / corrupted one (bad central directory, bad
  CRC, broken deflate stream);
* entry names that are absolute (``/x``, ``C:x``, ``\\x``), contain ``..``, empty or ``.``
  components, backslashes or NUL, or that collide (also case-insensitively, which would
  overwrite each other on macOS and Windows);
* symbolic links (zip entries whose unix mode says so; in a folder bundle, any symlink)
  and anything that is not a regular file;
* encrypted entries;
* zip bombs: more than ``max_entries`` entries, a declared or actual total above
  ``max_total_bytes``, one entry above ``max_entry_bytes``, or an entry larger than 1 MiB
  that expands more than ``max_ratio`` times. Sizes are counted while decompressing too,
  so a header that lies about them does not help.

A zip is then extracted only inside the caller's (temporary) folder, each target path
re-checked to stay inside it, and read back into memory.
"""

from __future__ import annotations

import os
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from gcv.contract.loading import GcvInputError, check_input_file

CHUNK = 1 << 16


class BundleReadError(Exception):
    """The input cannot be read safely as a bundle (exit code 2 on the command line)."""


@dataclass(frozen=True)
class Limits:
    max_entries: int = 10_000
    max_total_bytes: int = 256 << 20
    max_entry_bytes: int = 128 << 20
    max_ratio: int = 100
    ratio_floor_bytes: int = 1 << 20  # smaller entries are not ratio-checked (JSON compresses well)


LIMITS = Limits()


def limit_problems(files: dict[str, bytes], limits: Limits = LIMITS, *, compresslevel: int = 9,
                   stored: tuple[str, ...] = (".png",)) -> list[str]:
    """What ``read_bundle`` would refuse in these files once zipped: the exporter applies the same
    limits, so every bundle GCV writes is one GCV can read."""
    problems = []
    if len(files) > limits.max_entries:
        problems.append(f"{len(files)} files (the reader's limit is {limits.max_entries})")
    total = sum(len(data) for data in files.values())
    if total > limits.max_total_bytes:
        problems.append(f"{total} bytes in all (the reader's limit is {limits.max_total_bytes})")
    for name, data in sorted(files.items()):
        if len(data) > limits.max_entry_bytes:
            problems.append(f"{name} has {len(data)} bytes (the reader's limit is {limits.max_entry_bytes})")
        elif len(data) > limits.ratio_floor_bytes and not name.endswith(stored):
            packed = zlib.compressobj(compresslevel, zlib.DEFLATED, -15)
            size = len(packed.compress(data)) + len(packed.flush())
            if len(data) > limits.max_ratio * max(size, 1):
                problems.append(f"{name} compresses {len(data) // max(size, 1)}x (the reader refuses more than "
                                f"{limits.max_ratio}x as a zip bomb)")
    return problems


def check_name(name: str) -> str | None:
    """Why ``name`` is not an acceptable bundle entry name, or None."""
    if not name:
        return "an empty entry name"
    if "\x00" in name:
        return "a NUL byte in the name"
    if "\\" in name:
        return "a backslash in the name (only / separates folders)"
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return "an absolute path"
    parts = name.rstrip("/").split("/")
    if any(p == ".." for p in parts):
        return "a '..' component (path traversal)"
    if any(p in ("", ".") for p in parts):
        return "an empty or '.' path component"
    return None


# the methods GCV writes (gcv.evidence.bundle); zipfile would raise NotImplementedError at open for
# most others, and bzip2/lzma are nothing GCV produces
READABLE_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)


def _refuse(path: Path, entry: str, why: str) -> BundleReadError:
    return BundleReadError(f"refusing {path.name}: entry {entry!r} has {why}")


def _check_entries(path: Path, infos: list[zipfile.ZipInfo], limits: Limits) -> list[zipfile.ZipInfo]:
    if len(infos) > limits.max_entries:
        raise BundleReadError(f"refusing {path.name}: {len(infos)} entries (limit {limits.max_entries})")
    seen: set[str] = set()
    total = 0
    files = []
    for info in infos:
        why = check_name(info.filename)
        if why:
            raise _refuse(path, info.filename, why)
        mode = info.external_attr >> 16
        if info.create_system == 3 and stat.S_ISLNK(mode):
            raise _refuse(path, info.filename, "a symbolic link type (links could point outside the folder)")
        file_type = stat.S_IFMT(mode)  # 0 when the writer recorded permissions only
        if info.create_system == 3 and file_type and file_type not in (stat.S_IFREG, stat.S_IFDIR):
            raise _refuse(path, info.filename, "a special file type")
        if info.flag_bits & 0x1:
            raise _refuse(path, info.filename, "encryption")
        if info.compress_type not in READABLE_METHODS:
            raise _refuse(path, info.filename, f"compression method {info.compress_type}; a bundle's entries are "
                                               "stored (0) or deflated (8)")
        key = info.filename.rstrip("/").lower()
        if key in seen:
            raise _refuse(path, info.filename, "a duplicate name (also case-insensitively)")
        seen.add(key)
        if info.is_dir():
            continue
        if info.file_size > limits.max_entry_bytes:
            raise BundleReadError(f"refusing {path.name}: entry {info.filename!r} expands to {info.file_size} bytes "
                                  f"(limit {limits.max_entry_bytes}); this looks like a zip bomb")
        if info.file_size > limits.ratio_floor_bytes and info.file_size > limits.max_ratio * max(info.compress_size, 1):
            raise BundleReadError(f"refusing {path.name}: entry {info.filename!r} expands "
                                  f"{info.file_size // max(info.compress_size, 1)}x (limit {limits.max_ratio}x); "
                                  "this looks like a zip bomb")
        total += info.file_size
        if total > limits.max_total_bytes:
            raise BundleReadError(f"refusing {path.name}: more than {limits.max_total_bytes} bytes uncompressed; "
                                  "this looks like a zip bomb")
        files.append(info)
    return files


def _inside(root: Path, target: Path) -> bool:
    try:
        target.resolve().relative_to(root.resolve())
        return True
    except ValueError:
        return False


def _read_zip(path: Path, workdir: Path, limits: Limits, source: Any = None) -> dict[str, bytes]:
    try:
        zf = zipfile.ZipFile(source if source is not None else path)
    except (zipfile.BadZipFile, EOFError, ValueError) as exc:
        raise BundleReadError(f"{path.name} is not a readable zip archive (truncated or corrupted?): {exc}") from None
    with zf:
        try:
            infos = zf.infolist()
        except (zipfile.BadZipFile, ValueError) as exc:  # pragma: no cover - infolist is read at open
            raise BundleReadError(f"{path.name}: corrupted central directory: {exc}") from None
        entries = _check_entries(path, infos, limits)
        root = workdir.resolve()
        budget = limits.max_total_bytes
        for info in entries:
            target = root.joinpath(*PurePosixPath(info.filename).parts)
            if not _inside(root, target.parent) or target.parent.is_symlink():
                raise _refuse(path, info.filename, "a path that leaves the extraction folder")
            target.parent.mkdir(parents=True, exist_ok=True)
            if not _inside(root, target):
                raise _refuse(path, info.filename, "a path that leaves the extraction folder")
            written = 0
            try:
                flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                with zf.open(info) as src, os.fdopen(os.open(target, flags, 0o600), "wb") as dst:
                    while True:
                        chunk = src.read(CHUNK)
                        if not chunk:
                            break
                        written += len(chunk)
                        budget -= len(chunk)
                        if written > info.file_size or written > limits.max_entry_bytes or budget < 0:
                            raise BundleReadError(f"refusing {path.name}: entry {info.filename!r} expands beyond "
                                                  "its declared size or the limits; this looks like a zip bomb")
                        dst.write(chunk)
            except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
                raise BundleReadError(f"{path.name}: entry {info.filename!r} is corrupted or truncated: "
                                      f"{exc}") from None
            except FileExistsError:
                raise _refuse(path, info.filename, "a name that collides with another entry") from None
        files: dict[str, bytes] = {}
        for info in entries:
            files[info.filename] = root.joinpath(*PurePosixPath(info.filename).parts).read_bytes()
        return files


def _read_dir(path: Path, limits: Limits) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    total = 0
    root = path.resolve()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in sorted(dirnames + filenames):
            full = Path(dirpath) / name
            rel = full.relative_to(root).as_posix()
            st = full.lstat()
            if stat.S_ISLNK(st.st_mode):
                raise _refuse(path, rel, "a symbolic link (links could point outside the folder)")
            if stat.S_ISDIR(st.st_mode):
                continue
            if not stat.S_ISREG(st.st_mode):
                raise _refuse(path, rel, "a special file type")
            why = check_name(rel)
            if why:
                raise _refuse(path, rel, why)
            total += st.st_size
            if len(files) >= limits.max_entries or total > limits.max_total_bytes:
                raise BundleReadError(f"refusing {path.name}: the folder is larger than the bundle limits")
            files[rel] = full.read_bytes()
    return files


def read_bundle(path: Path, *, workdir: Path, limits: Limits = LIMITS) -> dict[str, bytes]:
    """All files of the bundle at ``path`` (zip or folder), by name. Raises BundleReadError."""
    path = Path(path)
    if not path.exists():
        raise BundleReadError(f"{path} does not exist")
    if path.is_dir():
        return _read_dir(path, limits)
    try:  # a zip must be a regular file under the bundle cap: a FIFO or /dev/zero would block or never end
        check_input_file(path, "bundle")
    except GcvInputError as exc:
        raise BundleReadError(f"cannot read {path.name}: {exc.message}") from None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):  # swapped after the check
                raise BundleReadError(f"cannot read {path.name}: not a regular file")
            return _read_zip(path, workdir, limits, fh)
    except OSError as exc:
        raise BundleReadError(f"cannot read {path.name}: {exc.strerror or exc}") from None
