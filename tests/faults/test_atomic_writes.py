"""Promise 2: every write of a user's file is atomic, keeps its bytes' form, and fails in one sentence.

We run as root, for whom permissions never fail: the failures here are injected in-process
(os functions monkeypatched to raise ENOSPC, EIO, EPERM or PermissionError).
"""

import errno
import os
import shutil
import stat

import pytest

from agexplorer.model.errors import AgxError
from agexplorer.source.files import read_source_file, write_source
from conftest import sample

ORIGINAL = b"def f(x):\n    return x\n"
NEW = "def f(x):\n    return x + 1\n"


def leftovers(folder) -> list[str]:
    """Files in ``folder`` other than the ones a test made itself (temp files left behind)."""
    return sorted(n for n in os.listdir(folder) if n.endswith(".agx-tmp"))


@pytest.fixture
def src(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(ORIGINAL)
    return path


def test_enospc_halfway_leaves_the_original_and_no_temp_file(src, monkeypatch):
    """The write gets half the bytes out, then the disk is full (injected)."""
    real_write = os.write
    calls = []

    def half_then_full(fd, data):
        calls.append(len(data))
        if len(calls) == 1:
            return real_write(fd, bytes(data[:len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with monkeypatch.context() as m:
        m.setattr(os, "write", half_then_full)
        with pytest.raises(AgxError) as err:
            write_source(str(src), NEW)
    assert len(calls) == 2  # it really was cut off halfway
    assert src.read_bytes() == ORIGINAL
    assert leftovers(src.parent) == []
    assert err.value.kind == "write-failed" and err.value.exit_code == 2
    assert err.value.message == (f"could not write {src}: No space left on device; "
                                 "the file is unchanged.")


def test_fsync_failure_leaves_the_original(src, monkeypatch):
    def broken(fd):
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    with monkeypatch.context() as m:
        m.setattr(os, "fsync", broken)
        with pytest.raises(AgxError, match="Input/output error; the file is unchanged"):
            write_source(str(src), NEW)
    assert src.read_bytes() == ORIGINAL and leftovers(src.parent) == []


def test_the_file_is_replaced_not_rewritten_in_place(src):
    """A rename over the target: a reader holding the old file keeps the old bytes."""
    with open(src, "rb") as held:
        assert write_source(str(src), NEW) == str(src)
        assert held.read() == ORIGINAL
    assert src.read_text() == NEW and leftovers(src.parent) == []


@pytest.mark.parametrize("mode", [0o640, 0o755, 0o600])
def test_mode_bits_are_kept(src, mode):
    os.chmod(src, mode)
    write_source(str(src), NEW)
    assert stat.S_IMODE(os.stat(src).st_mode) == mode and src.read_text() == NEW


def test_a_symlink_is_written_through_and_stays_a_link(tmp_path, src):
    link = tmp_path / "link.py"
    link.symlink_to(src)
    assert write_source(str(link), NEW) == str(src)
    assert link.is_symlink() and os.readlink(link) == str(src)
    assert src.read_text() == NEW and link.read_text() == NEW


@pytest.mark.parametrize("data", [
    "# -*- coding: latin-1 -*-\nname = 'café'\n".encode("latin-1"),
    b"\xef\xbb\xbfname = 'caf\xc3\xa9'\n",
    b"def f(x):\r\n    return x\r\n\r\ny = 1\r\n",
    "# -*- coding: latin-1 -*-\r\nname = 'é'\r\n".encode("latin-1"),
], ids=["latin-1", "bom", "crlf", "latin-1-crlf"])
def test_encoding_bom_and_line_endings_round_trip_byte_for_byte(tmp_path, data):
    path = tmp_path / "m.py"
    path.write_bytes(data)
    like = read_source_file(str(path))
    assert "\ufeff" not in like.text  # the BOM is not part of the text
    write_source(str(path), like.text, like=like)
    assert path.read_bytes() == data
    edited = like.text + ("z = 'é'" + like.newline)
    write_source(str(path), edited, like=like)
    again = read_source_file(str(path))
    assert (again.text, again.encoding, again.bom, again.newline) == \
        (edited, like.encoding, like.bom, like.newline)


def test_without_like_the_bom_on_disk_is_kept(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"\xef\xbb\xbfx = 1\n")
    write_source(str(path), "x = 2\n")
    assert path.read_bytes() == b"\xef\xbb\xbfx = 2\n"


def test_a_read_only_file_is_refused(src):
    """Mode 0444: root could overwrite it; agexplorer checks the mode bits and refuses."""
    os.chmod(src, 0o444)
    with pytest.raises(AgxError) as err:
        write_source(str(src), NEW)
    assert err.value.kind == "read-only" and err.value.exit_code == 2
    assert "is read-only (mode 444)" in err.value.message and "chmod u+w" in err.value.message
    assert src.read_bytes() == ORIGINAL and leftovers(src.parent) == []


def test_eperm_on_rename_an_immutable_file_is_a_sentence(src, monkeypatch):
    """chattr +i makes rename fail with EPERM (injected: the test cannot chattr)."""
    def immutable(a, b):
        raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))

    with monkeypatch.context() as m:
        m.setattr(os, "replace", immutable)
        with pytest.raises(AgxError) as err:
            write_source(str(src), NEW)
    assert err.value.kind == "read-only"
    assert err.value.message == (f"could not replace {src}: Operation not permitted (the file "
                                 "or its folder may be immutable: see lsattr); the file is "
                                 "unchanged.")
    assert src.read_bytes() == ORIGINAL and leftovers(src.parent) == []


def test_an_unwritable_folder_is_a_sentence(src, monkeypatch):
    """No write permission on the folder (injected: the temp file cannot be created)."""
    def denied(*args, **kwargs):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    with monkeypatch.context() as m:
        m.setattr("tempfile.mkstemp", denied)
        with pytest.raises(AgxError) as err:
            write_source(str(src), NEW)
    assert err.value.kind == "write-failed"
    assert err.value.message == f"could not write {src}: Permission denied; the file is unchanged."
    assert src.read_bytes() == ORIGINAL


def test_a_character_the_encoding_cannot_hold_is_a_sentence(tmp_path):
    path = tmp_path / "m.py"
    data = "# -*- coding: latin-1 -*-\nx = 'é'\n".encode("latin-1")
    path.write_bytes(data)
    like = read_source_file(str(path))
    with pytest.raises(AgxError) as err:
        write_source(str(path), like.text + "y = '€'\n", like=like)
    assert err.value.kind == "write-failed" and err.value.line == 3
    assert "'€' on line 3 cannot be written in latin-1" in err.value.message
    assert path.read_bytes() == data


def test_a_file_deleted_on_disk_is_written_again(tmp_path):
    path = tmp_path / "gone.py"
    assert write_source(str(path), NEW) == str(path)
    assert path.read_text() == NEW and leftovers(tmp_path) == []


def _apply(path, new_text: str) -> str:
    """What `doctor --try ... --apply` does once the trial is made: write the rewrite."""
    from agexplorer.doctor.trial import apply_fix
    from agexplorer.model.doctor import Rewrite, text_sha

    old = path.read_text()
    return apply_fix(str(path), Rewrite("AGX004", 2, "range -> tf.range", new_text, None,
                                        text_sha(old)))


def test_apply_keeps_extended_attributes(src):
    """Tags, ACLs and labels live in extended attributes: the new file gets the old one's
    (before, the rename dropped them)."""
    try:
        os.setxattr(src, "user.agx.reviewed", b"yes")
    except OSError:
        pytest.skip("this file system keeps no user extended attributes")
    assert _apply(src, NEW) == str(src)
    assert src.read_text() == NEW
    assert os.getxattr(src, "user.agx.reviewed") == b"yes"
    assert leftovers(src.parent) == []


def test_apply_refuses_a_read_only_folder_even_as_root(src):
    """Mode 0555 on the folder: root could create and rename in it; agexplorer checks the
    folder's mode bits as it does the file's, and refuses."""
    folder = src.parent
    os.chmod(folder, 0o555)
    try:
        with pytest.raises(AgxError) as err:
            _apply(src, NEW)
        assert leftovers(folder) == []
    finally:
        os.chmod(folder, 0o755)
    assert err.value.kind == "read-only" and err.value.exit_code == 2
    assert err.value.message == (f"{folder} is read-only (mode 555), so {src} was not written; "
                                 "make the folder writable (chmod u+w) and try again.")
    assert src.read_bytes() == ORIGINAL


@pytest.mark.tf
def test_doctor_try_apply_writes_atomically(worker, tmp_path, monkeypatch, capsys):
    """`doctor --try AGX004 --apply` end to end (in-process CLI, the module's worker): the
    rewrite lands through a symlink by a rename (a reader holding the old file keeps the old
    bytes), CRLF endings and mode bits kept. (Its failure path: test_clear_errors.py.)"""
    from agexplorer import cli
    from agexplorer.worker import client

    monkeypatch.setattr(client, "shared_worker", lambda *a, **k: worker)
    real = tmp_path / "real" / "loops.py"
    real.parent.mkdir()
    shutil.copy(sample("s6_2_bad_loop.py"), real)
    original = real.read_bytes().replace(b"\n", b"\r\n")
    real.write_bytes(original)
    os.chmod(real, 0o750)
    link = tmp_path / "loops.py"
    link.symlink_to(real)
    with open(real, "rb") as held:
        code = cli.main(["doctor", f"{link}::range_loop", "--try", "AGX004", "--apply",
                         "--budget", "0.05"])
        out, err = capsys.readouterr()
        assert code == 0, err
        assert held.read() == original
    assert f"wrote {real} (AGX004" in out
    # Only the rewrite changed: CRLF endings everywhere else, byte for byte.
    assert real.read_bytes() == original.replace(b"    for i in range(n):\r\n",
                                                 b"    for i in tf.range(n):\r\n")
    assert link.is_symlink() and stat.S_IMODE(os.stat(real).st_mode) == 0o750
    assert leftovers(real.parent) == []
