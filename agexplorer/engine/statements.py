"""The if/for/while statements of one function, found by a static parse (lines are the file's)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field


@dataclass
class Statement:
    """One control-flow statement of the user's function.

    ``parent`` is the index of the innermost enclosing statement (None at top
    level) and ``part`` says where inside it this one sits: ``body`` or
    ``orelse`` (the else branch of an if, the else clause of a loop).
    """

    kind: str  # "if" | "for" | "while"
    line: int
    end_line: int
    header: str  # e.g. "for i in range(n):"
    expr: str  # the iterable of a for, the test of an if or while
    names: tuple[str, ...]  # plain names read by ``expr``, in order
    parent: int | None = None
    part: str | None = None
    body_lines: tuple[int, int] = (0, 0)
    orelse_lines: tuple[int, int] | None = None
    children: list[int] = field(default_factory=list)

    def spans(self, line: int) -> bool:
        """Whether ``line`` lies inside this statement."""
        return self.line <= line <= self.end_line


def _names(expr: ast.expr) -> tuple[str, ...]:
    seen: list[str] = []
    for node in ast.walk(expr):
        if isinstance(node, ast.Name) and node.id not in seen:
            seen.append(node.id)
    return tuple(seen)


def _lines(body: list[ast.stmt]) -> tuple[int, int]:
    return body[0].lineno, body[-1].end_lineno or body[-1].lineno


def find_statements(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[Statement]:
    """Every if/for/while inside ``func`` (nested ones too), in source order."""
    found: list[Statement] = []

    def visit(nodes: list[ast.stmt], parent: int | None, part: str | None) -> None:
        for node in nodes:
            if isinstance(node, (ast.If, ast.For, ast.While)):
                kind = {ast.If: "if", ast.For: "for", ast.While: "while"}[type(node)]
                expr = node.iter if isinstance(node, ast.For) else node.test
                if isinstance(node, ast.For):
                    header = f"for {ast.unparse(node.target)} in {ast.unparse(node.iter)}:"
                else:
                    keyword = "while" if kind == "while" else "if"
                    header = f"{keyword} {ast.unparse(node.test)}:"
                stmt = Statement(kind=kind, line=node.lineno,
                                 end_line=node.end_lineno or node.lineno, header=header,
                                 expr=ast.unparse(expr), names=_names(expr), parent=parent,
                                 part=part, body_lines=_lines(node.body),
                                 orelse_lines=_lines(node.orelse) if node.orelse else None)
                index = len(found)
                found.append(stmt)
                if parent is not None:
                    found[parent].children.append(index)
                visit(node.body, index, "body")
                visit(node.orelse, index, "orelse")
            else:
                for name in ("body", "orelse", "finalbody", "handlers"):
                    inner = getattr(node, name, None)
                    if isinstance(inner, list):
                        visit([n for n in inner if isinstance(n, ast.stmt)]
                              + [s for h in inner if isinstance(h, ast.excepthandler)
                                 for s in h.body], parent, part)
                if isinstance(node, ast.Match):
                    for case in node.cases:
                        visit(case.body, parent, part)

    visit(func.body, None, None)
    return found
