"""Opening a file of the workspace without trusting what is there.

The workspace is written by GCV, but anyone who can write the folder can put something else
in place of a file GCV reads or appends: a FIFO (``open`` blocks every writing command
forever), a symbolic link to ``/dev/zero`` (a read that never ends: the process grew to
22 GB), a link to a file outside the workspace (its content copied into an evidence bundle),
a directory. Files under ``GCV_HOME`` get the treatment inputs get (``gcv.contract.loading``):

* the path, every folder on the way resolved, must stay inside the workspace (a symbolic
  link that points inside it is followed, one that points out is refused);
* the last component is opened with ``O_NOFOLLOW`` (a link swapped in after the check is
  refused) and ``O_NONBLOCK`` (a FIFO swapped in cannot block), then checked on the open
  descriptor: a regular file, or it is refused naming what it is;
* a size cap per kind of file; reading stops at the cap plus one byte.

Each refusal is one :class:`UnsafeWorkspaceFile` naming the file: a damaged record (exit 2),
the same as a log line that is not an event.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from gcv.store.errors import DamagedRecord

_MiB = 1 << 20
# Bundles refuse an entry over 128 MiB (gcv.store.safezip.Limits): a workspace file bigger
# than that could not be exported anyway, so it is not what GCV wrote.
LOG_CAP = 128 * _MiB
ARTIFACT_CAP = 128 * _MiB
BASELINE_CAP = 16 * _MiB  # a stored baseline is a config: the cap of a config input (INPUT_CAPS)
SMALL_CAP = 1 * _MiB  # lock owner files, keys, stamps

_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
          | getattr(os, "O_NOCTTY", 0))
_SPECIAL = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
            (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"),
            (stat.S_ISLNK, "a symbolic link"))


class UnsafeWorkspaceFile(DamagedRecord):
    """A file of the workspace that is not a regular file GCV could have written."""

    def __init__(self, path: Path, why: str) -> None:
        self.why = why
        super().__init__(f"{path} {why}; GCV reads and appends only regular files inside the workspace, so the "
                         "file was replaced by something else. Move it away and restore it from a backup or an "
                         "evidence bundle (nothing was changed)", path)


def _what(mode: int) -> str:
    return next((label for test, label in _SPECIAL if test(mode)), "not a regular file")


def _inside(root: Path, target: Path) -> bool:
    return target == root or root in target.parents


def resolve_inside(path: Path, within: Path) -> Path | None:
    """``path`` with every symbolic link resolved, refused when that leaves ``within``.

    None when nothing is at ``path`` (a missing file is the caller's business)."""
    path = Path(path)
    try:
        os.lstat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise UnsafeWorkspaceFile(path, "is under something that is not a folder") from None
    except OSError as exc:
        raise UnsafeWorkspaceFile(path, f"cannot be examined ({exc.strerror or exc})") from None
    root = Path(os.path.realpath(within))
    real = Path(os.path.realpath(path))
    if not _inside(root, real):
        link = "is a symbolic link" if os.path.islink(path) else "is reached through a symbolic link"
        raise UnsafeWorkspaceFile(path, f"{link} to {real}, outside the workspace {root}")
    return real


def read_workspace_bytes(path: Path, *, within: Path, cap: int) -> bytes | None:
    """The bytes of a regular file of the workspace, at most ``cap``; None when it does not exist.

    Never blocks and never reads more than ``cap + 1`` bytes, whatever is at ``path``.
    """
    real = resolve_inside(path, within)
    if real is None:
        return None
    try:
        fd = os.open(real, _FLAGS)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):
            raise UnsafeWorkspaceFile(path, "became a symbolic link while it was opened") from None
        if exc.errno == errno.ENXIO:
            raise UnsafeWorkspaceFile(path, "is a socket or a device") from None
        raise  # EACCES, EIO...: the environment's failure, not the record's (exit 70)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeWorkspaceFile(path, f"is {_what(st.st_mode)}, not a regular file")
        if st.st_size > cap:
            raise UnsafeWorkspaceFile(path, f"is {st.st_size} bytes, more than the {cap} a file of its kind may be")
        chunks: list[bytes] = []
        total = 0
        while total <= cap:
            chunk = os.read(fd, min(1 << 20, cap + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    finally:
        os.close(fd)
    if total > cap:
        raise UnsafeWorkspaceFile(path, f"grew past {cap} bytes while it was read")
    return b"".join(chunks)


def check_workspace_file(path: Path, *, within: Path) -> bool:
    """Whether a regular file is at ``path`` (False when nothing is); anything else there, or
    a link out of ``within``, raises :class:`UnsafeWorkspaceFile`. Opens nothing."""
    real = resolve_inside(path, within)
    if real is None:
        return False
    st = os.lstat(real)
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeWorkspaceFile(path, f"is {_what(st.st_mode)}, not a regular file")
    return True


def open_workspace_append(path: Path, *, within: Path) -> int:
    """A descriptor for appending to a regular file of the workspace (created if missing).

    ``O_NOFOLLOW | O_NONBLOCK`` and a check on the descriptor, so a FIFO, a device or a link
    put there is refused instead of blocking or writing outside the workspace.
    """
    if resolve_inside(path, within) is None:
        real = Path(os.path.realpath(path.parent)) / path.name
        if not _inside(Path(os.path.realpath(within)), real):
            raise UnsafeWorkspaceFile(path, f"is in a folder outside the workspace {within}")
    else:
        real = Path(os.path.realpath(path))
    flags = (os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        fd = os.open(real, flags, 0o644)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):
            raise UnsafeWorkspaceFile(path, "became a symbolic link while it was opened") from None
        if exc.errno in (errno.ENXIO, errno.EISDIR):
            raise UnsafeWorkspaceFile(path, "is a FIFO, a socket, a device or a directory, not a regular file") \
                from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise UnsafeWorkspaceFile(path, f"is {_what(st.st_mode)}, not a regular file")
    return fd
