"""AutoGraph's converted code for a function, with a map from each converted line to the user's line."""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from dataclasses import dataclass
from typing import Any, Literal

from agexplorer.engine import tf_internals
from agexplorer.model.errors import AgxError
from agexplorer.model.report import Conversion
from agexplorer.model.text import file_line

# Constructs AutoGraph refuses that have a known rewrite: a loop's ``else:`` clause, an
# assignment expression (``if (s := f(x)) > 0:``: AutoGraph asserts on gast's NamedExpr).
Construct = Literal["loop-else", "walrus", "match", "autograph-off"]
_NAMED_EXPR = re.compile(r"^\(<gast(?:\.gast)?\.NamedExpr object>, \(?(.*?)\)?\)$")


def _construct(why: str) -> Construct | None:
    """The construct AutoGraph's reason names ("for/else statement not yet supported")."""
    if re.search(r"\b(for|while)/else\b", why):
        return "loop-else"
    return "walrus" if why.startswith("an assignment expression") else None


def _readable(why: str) -> str:
    """AutoGraph's reason in words where it is a bare assertion: gast's NamedExpr node and
    its text become "an assignment expression `s := f(x)` (:=), which AutoGraph does not
    convert"."""
    named = _NAMED_EXPR.match(why)
    if named:
        return (f"an assignment expression `{named.group(1)}` (:=), which AutoGraph does not "
                "convert")
    return why


@dataclass(frozen=True)
class ConversionFailure:
    """AutoGraph refused a function: the error to show, and its reason in a few words."""

    error: AgxError
    why: str  # e.g. "for/else statement not yet supported"
    construct: Construct | None = None  # what AutoGraph refused, where a fix is known


def convert(function: Any, path: str, def_line: int) -> Conversion:
    """Convert ``function`` (a plain Python function) the way ``tf.function`` does; AgxError
    when AutoGraph cannot (see :func:`attempt_conversion`)."""
    conversion, failure = attempt_conversion(function, path, def_line)
    if failure is not None:
        raise failure.error
    assert conversion is not None
    return conversion


def attempt_conversion(function: Any, path: str, def_line: int, features: Any = None
                       ) -> tuple[Conversion | None, ConversionFailure | None]:
    """Convert ``function`` the way ``tf.function`` does: (the conversion, None), or (None,
    why not). ``tf.function`` itself goes on after a refusal, running the function as written.

    This is ``tf.autograph.to_code`` without converting twice: ``to_code`` is
    the dedented source of ``to_graph``'s result, whose ``ag_source_map`` keys
    are lines of the generated module file.
    """
    from agexplorer.engine.tfenv import import_tf

    tf = import_tf()
    _forget_cached_conversion(function)
    try:
        converted = tf.autograph.to_graph(function, experimental_optional_features=features)
        raw = inspect.getsource(converted)
    except Exception as exc:  # noqa: BLE001 - AutoGraph raises many types here
        name = getattr(function, "__qualname__", "?")
        matched = _first_match(function)
        if matched is not None:  # AutoGraph asserts somewhere inside; the construct is clear
            line, fix = matched
            error = AgxError("conversion-failed", f"{file_line(path, line)}: AutoGraph could "
                             f"not transform {name}: {MATCH_WHY}", advice=fix, line=line,
                             exit_code=1)
            return None, ConversionFailure(error, MATCH_WHY, "match")
        why = _readable(re.sub(r"^\w+(Error|Exception): ", "", _cause(exc)))
        return None, ConversionFailure(conversion_error(exc, path, def_line, name), why,
                                       _construct(why))
    code = textwrap.dedent(raw)
    first = converted.__code__.co_firstlineno
    generated = converted.__code__.co_filename
    pairs = set()
    for loc, origin in converted.ag_source_map.items():
        if loc.filename == generated and origin.loc.filename == path:
            pairs.add((loc.lineno - first + 1, origin.loc.lineno))
    return Conversion(code=code, source_map=sorted(pairs)), None


def _cause(exc: BaseException) -> str:
    """AutoGraph's reason, from its exception's last line: "for/else statement not yet
    supported"."""
    text = str(exc).strip()
    cause = text.splitlines()[-1] if text else type(exc).__name__
    cause = re.sub(r"^converting <[^>]*>: ", "", cause)
    return re.sub(r" at 0x[0-9a-f]+", "", cause.split(". ")[0]).rstrip(".")


def _forget_cached_conversion(function: Any) -> None:
    """Make AutoGraph convert ``function`` afresh.

    AutoGraph caches conversions by code object, and code objects compare equal
    when only their file differs: the same function text in a second file (or a
    reloaded one) would get the first file's conversion, whose source map points
    at the wrong file.
    """
    tf_internals.evict_conversion(function)  # where it cannot, check_support has said so


AUTOGRAPH_OFF_WHY = "its tf.function has autograph=False"
AUTOGRAPH_OFF_FIX = ("remove autograph=False from its tf.function, so that AutoGraph converts "
                     "it: an if on a tensor then becomes a tf.cond, and a loop over a tensor "
                     "(tf.range(n)) or on a tensor condition a tf.while_loop (or write them "
                     "with tf.cond and tf.while_loop yourself).")


def autograph_off(name: str, path: str, def_line: int) -> ConversionFailure:
    """The explored function's own tf.function was made with ``autograph=False``: nothing is
    converted, and tf.function traces it as written (as the user's calls do)."""
    error = AgxError("conversion-failed", f"{file_line(path, def_line)}: {name}'s tf.function "
                     "has autograph=False, so AutoGraph does not convert it",
                     advice=AUTOGRAPH_OFF_FIX, line=def_line, exit_code=1)
    return ConversionFailure(error, AUTOGRAPH_OFF_WHY, "autograph-off")


MATCH_WHY = "a `match` statement (Python 3.10), which AutoGraph does not convert"
MATCH_FIX = ("write the `match` as `if`/`elif` (each `case` a comparison with its subject, a "
             "`case _:` the `else:`), so that AutoGraph converts the function and can stage "
             "its branches (a tensor condition becomes a tf.cond).")


def _first_match(function: Any) -> tuple[int, str] | None:
    """The file line of the first ``match`` statement in ``function``'s source and its fix,
    in the code's own words where its first case compares a value (``if mode == "a":``)."""
    try:
        lines, first = inspect.getsourcelines(function)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError, ValueError):
        return None
    found = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Match)),
                   key=lambda n: (n.lineno, n.col_offset))
    if not found:
        return None
    node = found[0]
    fix = MATCH_FIX
    pattern = node.cases[0].pattern if node.cases else None
    if isinstance(pattern, ast.MatchValue):
        test = f"{ast.unparse(node.subject)} == {ast.unparse(pattern.value)}"
        fix = MATCH_FIX.replace("(each `case` a comparison with its subject",
                                f"(`if {test}:` for its first `case`, and so on", 1)
    return first + node.lineno - 1, fix


LOOP_ELSE_FIX = ("rewrite the loop without its `else:` (set a flag before `break`, test it "
                 "after the loop) so that AutoGraph converts the function and can stage its "
                 "loops.")
WALRUS_FIX = ("assign the value on a line of its own just before the statement that holds "
              "the `:=` (`s = f(x)`, then `if s > 0:`), so that AutoGraph converts the "
              "function and can stage its if/for/while.")


def conversion_error(exc: BaseException, path: str, def_line: int, name: str) -> AgxError:
    """AutoGraph's "could not transform" as one sentence at the user's line."""
    text = str(exc).strip()
    line = def_line
    match = re.search(r'File "([^"]+)", line (\d+)', text)
    if match and match.group(1) == path:
        line = int(match.group(2))
    cause = _cause(exc)
    readable = _readable(re.sub(r"^\w+(Error|Exception): ", "", cause))
    if "could not get source code" in text or isinstance(exc, OSError):
        hint = "AutoGraph needs the function's source: define it in a .py file with def."
    elif _construct(readable) == "walrus":
        cause, hint = readable, WALRUS_FIX
    elif _construct(readable) == "loop-else":
        hint = LOOP_ELSE_FIX
    else:  # do_not_convert runs it as written: no staged if/for/while, so TensorFlow's
        # advice to mark it so fits only code whose control flow is on Python values.
        hint = ("rewrite that construct so that AutoGraph converts the function (marked "
                "@tf.autograph.experimental.do_not_convert it runs as written, which suits it "
                "only where no if/for/while in it depends on a tensor).")
    where = file_line(path, line)
    return AgxError("conversion-failed", f"{where}: AutoGraph could not transform "
                    f"{name}: {cause}", advice=hint, line=line or None, exit_code=1)
