"""Every kind of error agexplorer raises is one of model.errors.KINDS, spelled one way, and
docs/errors.md lists exactly those: the JSON contract of "error": "kind" (no TensorFlow)."""

import ast
import pathlib
import re

import agexplorer
from agexplorer.model.errors import KINDS
from conftest import ROOT

PACKAGE = pathlib.Path(agexplorer.__file__).parent


def raised_kinds() -> dict[str, str]:
    """kind -> where, for each AgxError(KIND, ...) and user_code_error(..., kind=KIND) written
    with a literal kind, and each kind in a table typed with ErrorKind."""
    found: dict[str, str] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.AnnAssign) and "ErrorKind" in ast.unparse(node.annotation) \
                    and node.value is not None:  # a table of kinds: _FAILED = {"eager": ...}
                for part in ast.walk(node.value):
                    if isinstance(part, ast.Constant) and isinstance(part.value, str) \
                            and part.value in KINDS:
                        found[part.value] = f"{path.relative_to(PACKAGE)}:{node.lineno}"
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            values = []
            if name == "AgxError" and node.args:
                values.append(node.args[0])
            if name in ("AgxError", "user_code_error") or name.endswith("Limits"):
                values += [k.value for k in node.keywords if k.arg in ("kind", "folder_kind")]
            for value in values:
                where = f"{path.relative_to(PACKAGE)}:{node.lineno}"
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    found[value.value] = where
    return found


def test_every_kind_raised_is_listed_with_its_meaning():
    unknown = {k: w for k, w in raised_kinds().items() if k not in KINDS}
    assert not unknown, f"add these to model.errors.KINDS: {unknown}"


def test_every_kind_listed_is_raised_somewhere():
    raised = raised_kinds()
    # raised by name through a variable (the protocol's and the default of user_code_error)
    raised.update({"protocol-mismatch": "worker/protocol.py", "trace-failed": "model/errors.py"})
    assert sorted(set(KINDS) - set(raised)) == []


def test_one_spelling_for_each_meaning():
    assert "bad-argument" not in KINDS and "no-such-file" not in KINDS
    assert len(set(KINDS.values())) == len(KINDS)


def test_the_docs_list_exactly_the_kinds():
    text = (pathlib.Path(ROOT) / "docs" / "errors.md").read_text()
    listed = re.findall(r"^\| `([a-z-]+)` \|", text, re.M)
    assert listed == list(KINDS)


def test_the_kinds_type_is_the_list():
    """ErrorKind (what mypy holds every AgxError to) and KINDS (their meanings) agree."""
    from typing import get_args

    from agexplorer.model.errors import ErrorKind

    assert list(get_args(ErrorKind)) == list(KINDS)
