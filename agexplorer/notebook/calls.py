"""A call written as in Python (``f(x, y=2)``), its parts evaluated in the session's namespace.

``%agx f(x, y)`` names the function and the arguments with the session's own variables;
the call itself is never made here: its function and each argument expression are
evaluated (with ``*args`` and ``**kwargs`` spread as Python spreads them), and the
explanation traces the call. What cannot be read is one sentence.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


class CallError(Exception):
    """The written call cannot be used: the sentence says why and what to write."""


@dataclass(frozen=True)
class WrittenCall:
    """One call as written, and its parts evaluated."""

    text: str
    fn: Any
    args: tuple[Any, ...]
    kwargs: dict[str, Any]

    @property
    def arguments_text(self) -> str:
        """The argument list as written (``x, y=2``): how the reports name the call."""
        node = ast.parse(self.text, mode="eval").body
        assert isinstance(node, ast.Call)
        return ", ".join([ast.unparse(a) for a in node.args]
                         + [ast.unparse(k) for k in node.keywords])


def parse_calls(text: str) -> list[ast.Call]:
    """The calls of ``f(a); f(b)`` (one or more, ``;`` or new lines between them)."""
    try:
        module = ast.parse(text.strip())
    except SyntaxError as exc:
        raise CallError(f"`{text.strip()}` is not Python ({exc.msg}): write a call, "
                        "e.g. f(x, y).") from None
    calls = []
    for statement in module.body:
        if not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Call):
            raise CallError(f"`{ast.unparse(statement)}` is not a call: write the function "
                            "and its arguments, e.g. f(x, y).")
        calls.append(statement.value)
    if not calls:
        raise CallError("no call given: write the function and its arguments, e.g. f(x, y).")
    return calls


def evaluate(call: ast.Call, user_globals: dict[str, Any],
             user_locals: Mapping[str, Any]) -> WrittenCall:
    """The function and the arguments of ``call``, each evaluated in the session's
    namespace; the call itself is not made."""
    def value(node: ast.expr) -> Any:
        code = compile(ast.Expression(body=node), "<agx call>", "eval")
        try:
            return eval(code, user_globals, user_locals)  # the user's own expression
        except Exception as exc:  # noqa: BLE001 - whatever the user's expression raises
            first = (str(exc).strip().splitlines() or [""])[0]
            raise CallError(f"evaluating `{ast.unparse(node)}` raised {type(exc).__name__}"
                            f"{': ' + first if first else ''}.") from None

    fn = value(call.func)
    args: list[Any] = []
    for arg in call.args:
        if isinstance(arg, ast.Starred):
            spread = value(arg.value)
            try:
                args.extend(spread)
            except TypeError:
                raise CallError(f"`{ast.unparse(arg)}` spreads a {type(spread).__name__}, "
                                "which is not iterable.") from None
        else:
            args.append(value(arg))
    kwargs: dict[str, Any] = {}
    for keyword in call.keywords:
        if keyword.arg is not None:
            kwargs[keyword.arg] = value(keyword.value)
            continue
        spread = value(keyword.value)
        try:
            kwargs.update(spread)
        except (TypeError, ValueError):
            raise CallError(f"`**{ast.unparse(keyword.value)}` spreads a "
                            f"{type(spread).__name__}, which is not a mapping.") from None
    return WrittenCall(ast.unparse(call), fn, tuple(args), kwargs)
