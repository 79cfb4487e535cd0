"""Reading and writing a user's files safely: bounded reads, Python's decoding rules, atomic writes.

Every file agexplorer reads (a source, a recorded log, a golden file, the head of an ``-o``
target) goes through :func:`read_bounded`, and every file it writes through one atomic
replacement (:func:`write_source`, :func:`begin_replacement`).
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import io
import os
import re
import stat
import tempfile
import tokenize
from dataclasses import dataclass

from agexplorer.model.errors import AgxError, ErrorKind

MAX_SOURCE_BYTES = 10 * 1024 * 1024
MAX_LOG_BYTES = 100 * 1024 * 1024  # a long training run's traces; read whole into memory
MAX_GOLDEN_BYTES = 20 * 1024 * 1024  # about 100,000 statements' snapshots

_BOM = codecs.BOM_UTF8
# PEP 263: the coding line is a comment on line 1 or 2 (line 2 only after a blank or comment line).
_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_BLANK_OR_COMMENT = re.compile(r"^[ \t\f]*(?:[#\r\n]|$)")


@dataclass(frozen=True)
class SourceFile:
    """A source file as Python reads it: ``text`` decoded (BOM stripped, newlines as on disk)."""

    path: str
    text: str
    encoding: str
    bom: bool
    newline: str


@dataclass(frozen=True)
class Readable:
    """What a file is read as: its name and size limit in sentences, and the advice that ends
    each refusal (after "X is a FIFO, not a regular file; ", "X is a folder, ", "X: no such
    file; ")."""

    noun: str
    limit: int
    regular_only: str
    folder: str
    missing: str
    folder_kind: ErrorKind = "not-a-regular-file"


SOURCE = Readable("source file", MAX_SOURCE_BYTES,
                  "agexplorer reads only regular .py files, so name one",
                  "not a Python file; name a .py file inside it",
                  "check the path (run `agexplorer list PATH` to see what a file holds)",
                  folder_kind="not-python")  # the kind a folder has always had (JSON contract)
LOG = Readable("log", MAX_LOG_BYTES, "agexplorer reads logs only from regular files, so pass "
               "one written by `agexplorer record`",
               "not a log; pass a log written by `agexplorer record`",
               "record one with `agexplorer record -o LOG SCRIPT.py`")
GOLDEN = Readable("golden file", MAX_GOLDEN_BYTES, "agexplorer reads golden files only from "
                  "regular files, so pass a JSON file (check --update writes one)",
                  "not a golden file; pass a JSON file, e.g. agexplorer.golden.json inside it",
                  "run the check with --update to write it")


def _size(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB"


def _first_newline(text: str) -> str:
    match = re.search(r"\r\n|\r|\n", text)
    return match.group(0) if match else "\n"


def kind_of(mode: int) -> str | None:
    """What a non-regular file is, in words (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISFIFO(mode):
        return "named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def _not_regular(path: str, what: str, kind: Readable = SOURCE) -> AgxError:
    if what == "folder":
        return AgxError(kind.folder_kind, f"{path} is a folder, {kind.folder}.")
    return AgxError("not-a-regular-file", f"{path} is a {what}, not a regular file",
                    advice=f"{kind.regular_only}.")


def _open_error(path: str, exc: OSError, kind: Readable) -> AgxError:
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return AgxError("missing-file", f"{path}: no such file", advice=f"{kind.missing}.")
    if isinstance(exc, PermissionError):
        return AgxError("unreadable", f"{path} cannot be read (permission denied)",
                        advice="give yourself read permission (chmod u+r) or copy the file.")
    if exc.errno == errno.ENXIO:  # opening a Unix socket
        return _not_regular(path, "socket", kind)
    if exc.errno == errno.EISDIR:
        return _not_regular(path, "folder", kind)
    return AgxError("unreadable", f"{path} cannot be read ({exc.strerror or exc})",
                    advice="check the path and the file.")


def read_bounded(path: str, kind: Readable = SOURCE, head: int | None = None) -> bytes:
    """The bytes of a regular file, at most ``kind.limit`` of them (or only its first ``head``
    bytes, whatever its size); a FIFO, a device, a socket, a folder, a missing, unreadable or
    too big file is refused at once in one sentence (AgxError, exit 2), never waited on."""
    # O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever. The checks use
    # fstat on the opened descriptor, so the file cannot be swapped between check and read.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise _open_error(path, exc, kind) from None
    limit = kind.limit if head is None else head
    try:
        info = os.fstat(fd)
        what = kind_of(info.st_mode)
        if what is not None:
            raise _not_regular(path, what, kind)
        if head is None and info.st_size > limit:
            raise _too_big(path, info.st_size, kind)
        chunks: list[bytes] = []
        total = 0
        while total <= limit:  # the file may grow after fstat: bound the read itself
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            if head is not None:
                return b"".join(chunks)[:head]
            raise _too_big(path, max(total, os.fstat(fd).st_size), kind)
        return b"".join(chunks)
    except OSError as exc:
        raise _open_error(path, exc, kind) from None
    finally:
        os.close(fd)


def _too_big(path: str, size: int, kind: Readable) -> AgxError:
    return AgxError("too-big", f"{path} is {_size(size)}", advice=f"agexplorer reads {kind.noun}s up to "
                    f"{kind.limit // (1024 * 1024)} MB.")


def _not_python(path: str, why: str) -> AgxError:
    return AgxError("not-python", f"{path} is not a Python source file ({why})", advice="open a .py file.")


def decode_source(path: str, data: bytes) -> SourceFile:
    """Decode bytes as Python does (BOM, PEP 263 coding line), without translating newlines."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # an unknown coding, a BOM against the coding line, or binary
        msg = str(exc.msg or exc)
        why = ("its coding line names an encoding Python does not know" if "unknown encoding" in msg
               else "its UTF-8 BOM contradicts its coding line" if "encoding problem" in msg
               else "it is binary or not UTF-8 text")
        raise _not_python(path, why) from None
    bom = encoding == "utf-8-sig"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError:
        named = "UTF-8" if encoding in ("utf-8", "utf-8-sig") else encoding
        raise _not_python(path, f"it is binary or not {named} text") from None
    if "\x00" in text:
        raise _not_python(path, "it is binary: it contains NUL bytes")
    return SourceFile(path=path, text=text, encoding="utf-8" if bom else encoding, bom=bom,
                      newline=_first_newline(text))


def read_source_file(path: str) -> SourceFile:
    """Read a Python file as Python would, turning every way it can be unreadable into one sentence."""
    return decode_source(path, read_bounded(path))


def coding_of(text: str) -> str | None:
    """The encoding a PEP 263 coding line in ``text`` declares (as written there), or None."""
    lines = text.splitlines()[:2]
    for i, line in enumerate(lines):
        match = _COOKIE.match(line)
        if match:
            return match.group(1)  # as written: messages name it as the user spelt it
        if i == 0 and not _BLANK_OR_COMMENT.match(line):
            break
    return None


def encode_source(text: str, encoding: str = "utf-8", bom: bool = False) -> bytes:
    """``text`` as file bytes: in ``encoding``, with a UTF-8 BOM in front when ``bom``."""
    try:
        codec = codecs.lookup(encoding).name
    except LookupError:
        raise AgxError("unencodable", f"the coding line names '{encoding}', which Python does not "
                       "know", advice="fix the coding line.") from None
    try:
        data = text.encode(codec)
    except UnicodeEncodeError as exc:
        line = text.count("\n", 0, exc.start) + 1
        raise AgxError("unencodable", f"{text[exc.start]!r} on line {line} cannot be written in "
                       f"{encoding} (the file's encoding)", advice="change the character or the coding line.",
                       line=line) from None
    if bom and codec == "utf-8" and not data.startswith(_BOM):
        data = _BOM + data
    return data


def _existing_bom(path: str) -> bool:
    """Whether the file on disk starts with a UTF-8 BOM (a bounded read: never waits on a FIFO)."""
    with contextlib.suppress(AgxError):
        return read_bounded(path, head=3) == _BOM
    return False


def _write_error(path: str, exc: OSError, doing: str = "write") -> AgxError:
    reason = exc.strerror or str(exc)
    if exc.errno == errno.EPERM or exc.errno == errno.EROFS:
        hint = (" (the file or its folder may be immutable: see lsattr)" if exc.errno == errno.EPERM
                else " (the file system is mounted read-only)")
        return AgxError("read-only", f"could not {doing} {path}: {reason}{hint}",
                        advice="the file is unchanged.")
    return AgxError("write-failed", f"could not {doing} {path}: {reason}", advice="the file is unchanged.")


def write_source(path: str, text: str, like: SourceFile | None = None) -> str:
    """Write ``text`` to ``path`` atomically and return the real path written.

    The bytes go to a temporary file in the target's folder, are flushed and fsync'd, get the
    original's mode bits, extended attributes (and owner where permitted), then are renamed
    over the target, so a crash or a full disk leaves either the old file or the new one,
    never a truncated one. A symlink is written through to its real target (the link stays a
    link). The encoding is what Python will decode the new text with: its own coding line (so
    ``like``'s while the text keeps the line it was read with), else UTF-8; the BOM comes from
    ``like`` (or from the file on disk when ``like`` is None), for UTF-8 only. Newlines are
    written as they are in ``text``. Any failure leaves the original untouched, removes the
    temporary file and raises AgxError ("write-failed" or "read-only") in one sentence.
    """
    real, info = _writable(path)
    # The text's own coding line decides (it is what Python will decode with); when the text
    # keeps the coding line ``like`` was read with, this is ``like``'s encoding. Without one,
    # Python reads UTF-8, so UTF-8 it is, whatever the file was before.
    encoding = coding_of(text) or "utf-8"
    bom = like.bom if like is not None else (info is not None and _existing_bom(real))
    bom = bom and _is_utf8(encoding)  # a BOM beside another coding line is a SyntaxError
    try:
        data = encode_source(text, encoding, bom)
    except AgxError as exc:
        raise AgxError("write-failed", f"could not write {real}: {exc.message[:-1]}", advice="the file is "
                       "unchanged.", line=exc.line) from None
    new = _begin(real, info)
    try:
        try:
            view = memoryview(data)
            while view:  # os.write may write less than asked
                view = view[os.write(new.fd, view):]
        except OSError as exc:
            new.discard()
            raise _write_error(real, exc) from None
        new.commit()
    finally:
        os.close(new.fd)
    return real


def _is_utf8(encoding: str) -> bool:
    try:
        return codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False  # encode_source says why


def _writable(path: str) -> tuple[str, os.stat_result | None]:
    """(the real path, its stat or None when new), once it may be replaced: a regular file
    with a write bit, in a folder with one. The mode bits are checked here, not left to the
    kernel: root bypasses permissions and would overwrite a read-only file or folder."""
    real = os.path.realpath(os.path.abspath(os.path.expanduser(path)))
    try:
        info: os.stat_result | None = os.stat(real)
    except FileNotFoundError:
        info = None  # deleted on disk (or new): written again with the default mode
    except OSError as exc:
        raise _write_error(real, exc) from None
    if info is not None:
        what = kind_of(info.st_mode)
        if what is not None:
            raise AgxError("write-failed", f"could not write {real}: it is a {what}, not a regular "
                           "file", advice="the file is unchanged.")
        if not info.st_mode & _WRITE_BITS:
            raise AgxError("read-only", f"{real} is read-only (mode {stat.S_IMODE(info.st_mode):o}), so "
                           "it was not overwritten", advice="make it writable (chmod u+w) and try again.")
    folder = os.path.dirname(real)
    with contextlib.suppress(OSError):  # a folder that cannot be stat'ed: mkstemp says why
        mode = os.stat(folder).st_mode
        if not mode & _WRITE_BITS:
            raise AgxError("read-only", f"{folder} is read-only (mode {stat.S_IMODE(mode):o}), so "
                           f"{real} was not written", advice="make the folder writable (chmod u+w) and "
                           "try again.")
    return real, info


_WRITE_BITS = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH


@dataclass
class Replacement:
    """A new version of ``real`` being written to ``tmp`` beside it (open as ``fd``, which the
    caller closes); :meth:`commit` renames it over ``real`` in one step."""

    real: str
    tmp: str
    fd: int

    def commit(self) -> None:
        """Flush to disk and rename over the target; AgxError (the target unchanged) on failure."""
        try:
            os.fsync(self.fd)
        except OSError as exc:
            self.discard()
            raise _write_error(self.real, exc) from None
        try:
            os.replace(self.tmp, self.real)
        except OSError as exc:
            self.discard()
            raise _write_error(self.real, exc, "replace") from None
        _fsync_folder(os.path.dirname(self.real))

    def discard(self) -> None:
        """Remove the temporary file (the target stays as it was)."""
        with contextlib.suppress(OSError):
            os.unlink(self.tmp)


def begin_replacement(path: str) -> Replacement:
    """The atomic write of :func:`write_source` for a file written as it goes (a record log):
    the same checks, a temporary file beside the target with its mode, owner and extended
    attributes; write to ``fd``, then ``commit``. AgxError in one sentence when refused."""
    return _begin(*_writable(path))


def _begin(real: str, info: os.stat_result | None) -> Replacement:
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(real)}.", suffix=".agx-tmp",
                                   dir=os.path.dirname(real))
    except OSError as exc:
        raise _write_error(real, exc) from None
    try:
        if info is not None:
            os.fchmod(fd, stat.S_IMODE(info.st_mode))
            if (info.st_uid, info.st_gid) != (os.getuid(), os.getgid()):
                with contextlib.suppress(OSError):  # only root may give a file away
                    os.fchown(fd, info.st_uid, info.st_gid)
            _copy_xattrs(real, fd)  # after fchown, which may clear some
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.fchmod(fd, 0o666 & ~umask)
    except OSError as exc:
        os.close(fd)
        Replacement(real, tmp, fd).discard()
        raise _write_error(real, exc) from None
    return Replacement(real, tmp, fd)


def _copy_xattrs(real: str, fd: int) -> None:
    """The replaced file's extended attributes (tags, ACLs, labels) onto the new one, best
    effort: a file system without them, or an attribute only root may set, is skipped."""
    if not hasattr(os, "listxattr"):
        return
    try:
        names = os.listxattr(real)
    except OSError:
        return
    for name in names:
        with contextlib.suppress(OSError):
            os.setxattr(fd, name, os.getxattr(real, name))


def _fsync_folder(folder: str) -> None:
    """Make the rename itself durable; some file systems cannot fsync a folder, which is fine."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def package_of(path: str) -> tuple[str | None, str]:
    """The dotted package a file sits in, by its folders' ``__init__.py`` files
    (``src/mypkg/sub/train.py`` -> ``mypkg.sub``), and the folder that holds the topmost
    one (``src``), from which ``python -m mypkg.sub.train`` would run it; (None, its own
    folder) for a file outside any package."""
    folder = os.path.dirname(os.path.abspath(path))
    parts: list[str] = []
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        parts.insert(0, os.path.basename(folder))
        folder = parent
    if not parts or not all(part.isidentifier() for part in parts):
        return None, os.path.dirname(os.path.abspath(path))
    return ".".join(parts), folder
