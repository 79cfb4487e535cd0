"""Finding functions in a Python file: static listing, `PATH::QUALNAME` specs, loading and resolving."""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import itertools
import os
import sys
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from agexplorer.core.errors import AgxError, user_frames_message

_TF_FUNCTION_NAMES = {"tf.function", "function", "tensorflow.function"}
_module_counter = itertools.count()


@dataclass(frozen=True)
class FunctionInfo:
    """One explorable function as the static parse sees it (no code is run)."""

    qualname: str
    line: int
    end_line: int
    decorated: bool
    decorators: tuple[str, ...]
    is_method: bool
    params: tuple[str, ...]
    ready: bool = False  # callable without --call: AGX_CALLS entry, input_signature or no params

    def to_dict(self) -> dict:
        """JSON form used by ``agexplorer list --json``."""
        return {"qualname": self.qualname, "line": self.line, "end_line": self.end_line,
                "decorated": self.decorated, "decorators": list(self.decorators),
                "is_method": self.is_method, "params": list(self.params), "ready": self.ready}


@dataclass(frozen=True)
class TargetSpec:
    """A parsed ``PATH[::QUALNAME]``; ``path`` is absolute."""

    path: str
    qualname: str | None


def parse_spec(spec: str) -> TargetSpec:
    """Split ``PATH::QUALNAME`` (the function part is optional)."""
    path, _, qualname = spec.partition("::")
    if not path:
        raise AgxError("bad-target", f"'{spec}' names no file: write PATH::FUNCTION, "
                       "for example samples/s4_4_autograph.py::dynamic_loop.")
    return TargetSpec(os.path.abspath(os.path.expanduser(path)), qualname or None)


def read_source(path: str) -> str:
    """Read a Python file, turning every way it can be unreadable into one clear sentence."""
    if not os.path.exists(path):
        raise AgxError("missing-file", f"{path}: no such file; check the path "
                       "(run `agexplorer list PATH` to see what a file holds).")
    if os.path.isdir(path):
        raise AgxError("not-python", f"{path} is a folder, not a Python file; "
                       "name a .py file inside it.")
    with open(path, "rb") as fh:
        data = fh.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is None or "\x00" in text:
        raise AgxError("not-python", f"{path} is not a Python source file "
                       "(it is binary or not UTF-8 text); open a .py file.")
    return text


def parse_source(path: str, text: str) -> ast.Module:
    """Parse ``text``; a syntax error is reported as ``file:line`` with the offending line."""
    try:
        return ast.parse(text, filename=path)
    except SyntaxError as exc:
        line = exc.lineno or 0
        if not path.endswith(".py"):
            raise AgxError("not-python", f"{path} does not look like Python source "
                           f"(it fails to parse at line {line}); open a .py file.",
                           line=line) from None
        shown = (exc.text or "").strip()
        where = f"{path}:{line}"
        raise AgxError("syntax-error", f"{where}: syntax error: {exc.msg}"
                       + (f" in `{shown}`" if shown else "")
                       + "; fix the line and try again.", line=line) from None


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    return ast.unparse(target)


def sample_call_names(tree: ast.Module) -> set[str]:
    """The keys of a module-level ``AGX_CALLS = {...}`` literal (ready inputs of a sample)."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "AGX_CALLS"
                                                for t in node.targets):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                return set()
            return {str(k) for k in value} if isinstance(value, dict) else set()
    return set()


def list_functions(tree: ast.Module) -> list[FunctionInfo]:
    """Every function reachable by a qualname: top-level ones and methods of (nested) classes."""
    found: list[FunctionInfo] = []
    samples = sample_call_names(tree)

    def visit(body: list[ast.stmt], prefix: str, in_class: bool) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                decorators = tuple(_decorator_name(d) for d in node.decorator_list)
                params = tuple(a.arg for a in node.args.posonlyargs + node.args.args
                               + node.args.kwonlyargs)
                positional = node.args.posonlyargs + node.args.args
                required = len(positional) - len(node.args.defaults) - (1 if in_class else 0)
                required += sum(d is None for d in node.args.kw_defaults)
                signature = any("input_signature" in ast.unparse(d) for d in node.decorator_list)
                found.append(FunctionInfo(
                    qualname=prefix + node.name, line=node.lineno,
                    end_line=node.end_lineno or node.lineno,
                    decorated=any(d in _TF_FUNCTION_NAMES for d in decorators),
                    decorators=decorators, is_method=in_class, params=params,
                    ready=prefix + node.name in samples or signature or required <= 0))
            elif isinstance(node, ast.ClassDef):
                visit(node.body, prefix + node.name + ".", True)

    visit(tree.body, "", False)
    return found


def find_function_node(tree: ast.Module, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The ``def`` node for a dotted qualname (``Class.method``), or None."""
    parts = qualname.replace(".<locals>", "").split(".")
    body: list[ast.stmt] = tree.body
    node: ast.AST | None = None
    for i, part in enumerate(parts):
        node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                        ast.ClassDef)) and n.name == part), None)
        if node is None:
            return None
        if i < len(parts) - 1:
            body = node.body  # type: ignore[attr-defined]
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def load_module(path: str, text: str) -> ModuleType:
    """Run the file as a module (its ``if __name__ == "__main__"`` block does not run)."""
    name = f"agx_user_{next(_module_counter)}_{os.path.splitext(os.path.basename(path))[0]}"
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    # An explicit loader: spec_from_file_location gives up on names that do not end in .py.
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        code = compile(text, path, "exec")
        exec(code, module.__dict__)
    except BaseException as exc:  # user code may raise anything, even SystemExit
        sys.modules.pop(name, None)
        if isinstance(exc, KeyboardInterrupt):
            raise
        message, line = user_frames_message(exc, path)
        where = f"{path}:{line}" if line else path
        raise AgxError("load-error", f"{where}: loading the file as a module raised {message}; "
                       "fix the module-level code (agexplorer runs the file to find its "
                       "functions).", line=line, exit_code=1) from None
    return module


def resolve(module: ModuleType, qualname: str, available: list[FunctionInfo]) -> Any:
    """Follow ``a.b.c`` from the module; an unknown name lists what is there."""
    obj: Any = module
    for part in qualname.replace(".<locals>", "").split("."):
        if not hasattr(obj, part):
            names = ", ".join(f.qualname for f in available) or "none"
            raise AgxError("unknown-function", f"{module.__file__} has no function "
                           f"'{qualname}'; available: {names}.")
        obj = getattr(obj, part)
    return obj
