"""Promise 6: a file is decoded as Python decodes it (PEP 263 coding line, UTF-8 BOM), and line
numbers stay right: in reports, in the unsaved-buffer (shadow) path and in the doctor's rewrites."""

import pytest

from agexplorer.doctor.trial import apply_fix
from agexplorer.source.files import read_source_file
from agexplorer.worker.protocol import ReportRequest, TryFixRequest

pytestmark = pytest.mark.tf

BODY = '''import tensorflow as tf


@tf.function
def f(n):
    label = "é"; print(label, n)
    s = tf.constant(0)
    for i in range(n):
        s += i
    return s


AGX_CALLS = {"f": "3"}
'''
LATIN = "# -*- coding: latin-1 -*-\n" + BODY


def write(tmp_path, kind: str) -> tuple[str, int]:
    """The file in one form, and the line of its `for`."""
    path = tmp_path / f"{kind}.py"
    if kind == "latin1":
        path.write_bytes(LATIN.encode("latin-1"))
        return str(path), 9
    if kind == "latin1-crlf":
        path.write_bytes(LATIN.replace("\n", "\r\n").encode("latin-1"))
        return str(path), 9
    path.write_bytes(b"\xef\xbb\xbf" + BODY.encode("utf-8"))
    return str(path), 8


KINDS = ["latin1", "bom", "latin1-crlf"]


@pytest.mark.parametrize("kind", KINDS)
def test_read_source_file_decodes_as_python_does(tmp_path, kind):
    path, for_line = write(tmp_path, kind)
    src = read_source_file(path)
    assert src.text.replace("\r\n", "\n") == (BODY if kind == "bom" else LATIN)
    assert (src.encoding, src.bom) == (("utf-8", True) if kind == "bom" else ("iso-8859-1", False))
    assert src.newline == ("\r\n" if kind.endswith("crlf") else "\n")
    assert src.text.splitlines()[for_line - 1] == "    for i in range(n):"


def verdicts(answer) -> list[tuple]:
    report = answer["report"]
    assert report.error is None, report.error
    return [(s.kind, s.line, s.verdict, s.iterations) for s in report.statements], report.output


@pytest.mark.parametrize("kind", KINDS)
def test_report_lines_and_text_are_right(worker, tmp_path, kind):
    """The trace prints the string from inside the converted function: AutoGraph re-read the
    file from disk, so a wrong decoding would print mojibake."""
    path, for_line = write(tmp_path, kind)
    stmts, output = verdicts(worker.request(ReportRequest(f"{path}::f", no_run=True)))
    assert stmts == [("for", for_line, "python", 3)]
    assert output == "é 3\n"


@pytest.mark.parametrize("kind", KINDS)
def test_an_unsaved_buffer_keeps_its_lines_and_its_characters(worker, tmp_path, kind):
    """The shadow file is written in the buffer's declared encoding: two lines added above the
    function move the verdict by two, and the latin-1 `é` (and a new `ü`) survive."""
    path, for_line = write(tmp_path, kind)
    text = read_source_file(path).text
    nl = "\r\n" if kind.endswith("crlf") else "\n"
    edited = text.replace(f"@tf.function{nl}", f"GREETING = 'grüß'{nl}{nl}@tf.function{nl}", 1)
    edited = edited.replace('label = "é"', 'label = "éü"')
    stmts, output = verdicts(worker.request(ReportRequest(f"{path}::f", no_run=True,
                                                          source=edited)))
    assert stmts == [("for", for_line + 2, "python", 3)]
    assert output == "éü 3\n"


@pytest.mark.parametrize("kind", KINDS)
def test_the_doctors_rewrite_lands_right_after_non_ascii_text(worker, tmp_path, kind):
    """gast gives UTF-8 byte columns; `é` (two bytes in UTF-8, one in latin-1) sits before the
    rewritten `print` on its line. Applied, the file keeps its encoding, BOM and endings."""
    path, _ = write(tmp_path, kind)
    before = read_source_file(path)
    trial = worker.request(TryFixRequest(f"{path}::f", fix="AGX001", run=False))
    new_line = '    label = "é"; tf.print(label, n)'
    assert trial.rewrite.new_text == before.text.replace('    label = "é"; print(label, n)',
                                                         new_line)
    apply_fix(path, trial.rewrite)
    after = read_source_file(path)
    assert after.text == trial.rewrite.new_text
    assert (after.encoding, after.bom, after.newline) == (before.encoding, before.bom,
                                                          before.newline)
