"""Generated programs for the differential test: one small file per seed, with a function
``f(x, n, v)`` that ``tf.function`` can trace, helpers it calls, and the call to trace it with.

A program is drawn from ``random.Random(seed)``, so a seed names it for good. It mixes what
AutoGraph decides on while tracing: loops over ``range``, ``tf.range``, a Python list (of
floats, of tensors, of both), ``enumerate``/``zip``, a tensor and a dataset; ``while`` loops on
a Python int or a tensor; ``if`` on Python values and on tensors (``and``/``or``/``not``,
compares, a loop's index, a list's length), ``elif``; ``break``, ``continue`` and ``return``
inside loops; early returns; names a loop body creates and the code after it reads; Python
counters, lists appended in Python loops and ``tf.TensorArray`` writes in any loop; helpers
called with a Python or a tensor ``n``; all of it nested (corpus_loops.py writes the loops).

Every block starts with a *tick*, ``tf.constant(K.0)`` on a line of its own, and every
if/for/while has one before it: a tick makes the same ops each time it runs, so the oracle
counts how often Python ran a line from the ops the line left in the graphs.

The generator keeps to what tf.function accepts (a ``break`` or ``return`` in a Python loop
only under Python conditions, no ``return`` inside a staged loop or under a staged ``if`` but
the function's own top, a name read after its loop made on every path), so nearly every
program traces; one that does not is skipped, and counted.
"""

from __future__ import annotations

import itertools
import random
import re
from dataclasses import dataclass, field, replace

from corpus_loops import write_loop

CALL = "tf.constant(1.0), 3, tf.constant([0.5, 1.5, 2.5])"  # n is 3: Python conditions on it
MAX_DEPTH = 3
MAX_TICKS = 40  # about how many tick executions (Python iterations multiply them)
# (condition, a Python value when n is): {k} a small int; n is 3, so both branches occur.
PY_CONDS = ("n > {k}", "n >= {k}", "not n > {k}", "n > {k} and n < 9", "n < {k} or n > 8",
            "v.shape[0] > {k}", "x is not None and n != {k}")
TF_CONDS = ("x > {k}.0", "not x > {k}.0", "x > 0.0 and x < 1000.0", "tf.reduce_sum(v) > {k}.0",
            "x > 0.0 or n > {k}", "n > {k} and x > 0.0", "tf.size(v) > {k}")
_N = re.compile(r"\bn\b")


@dataclass(frozen=True)
class Program:
    """One generated file: its source, the call for ``f`` and the constructs it holds."""

    seed: int
    source: str
    features: frozenset[str]
    call: str = CALL
    function: str = "f"
    max_ticks: int = MAX_TICKS  # its size, as generate() was given it


@dataclass(frozen=True)
class Ctx:
    """Where a block sits: what the legality rules and the size estimate need."""

    depth: int = 0
    top: bool = True  # the function's own top block
    loops: tuple[str, ...] = ()  # "py" | "tf" for each enclosing loop, outermost first
    in_cond: bool = False  # under an if (or a staged guard): no name read after its loop
    py_since_loop: bool = True  # only Python conditions since the innermost loop
    py_since_top: bool = True  # only Python conditions since the function's top
    mult: int = 1  # how often a line here runs per trace (Python loops multiply)
    ran: bool = True  # surely runs: every Python loop around ran, no jump before it
    index: tuple[str, bool] | None = None  # innermost loop's index: name, a Python value
    acc: str | None = None  # a Python list the innermost loop appends to
    n_python: bool = True  # the function's n is a Python int (a helper may get a tensor)


# The jumps made in some code: (break or continue, return), each "" (none), "py" (under Python
# conditions only) or "tf" (under a tensor's): AutoGraph guards the code after them with
# ``if not break_:``, staged where the flag is a tensor.
Jumps = tuple[str, str]
NO_JUMP: Jumps = ("", "")
_ORDER = ("", "py", "tf")


def merge(a: Jumps, b: Jumps) -> Jumps:
    """Both sets of jumps (a tensor's wins)."""
    return (max(a[0], b[0], key=_ORDER.index), max(a[1], b[1], key=_ORDER.index))


def after_jumps(ctx: Ctx, jumps: Jumps) -> Ctx:
    """The context of the code after statements that jumped: under AutoGraph's guard, and
    not sure to run."""
    if "tf" in jumps:
        return replace(ctx, in_cond=True, py_since_loop=False, py_since_top=False, ran=False)
    return replace(ctx, ran=False) if "py" in jumps else ctx


@dataclass
class Writer:
    """Writes one program, line by line; ``lines`` is the function being written."""

    rng: random.Random
    max_ticks: int = MAX_TICKS
    lines: list[str] = field(default_factory=list)
    helpers: list[str] = field(default_factory=list)
    features: set[str] = field(default_factory=set)
    cost: int = 0

    def __post_init__(self) -> None:
        self.ids = itertools.count()
        self.ticks = itertools.count()

    def put(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def tick(self, indent: int, ctx: Ctx) -> None:
        if self.lines and self.lines[-1].startswith("    " * indent + "tf.constant("):
            return  # the tick before this statement is the block's own
        self.put(indent, f"tf.constant({next(self.ticks)}.0)")
        self.cost += ctx.mult

    def block(self, ctx: Ctx, indent: int, prefix: tuple[str, ...] = ()) -> Jumps:
        """A tick, ``prefix``, a line of arithmetic, then up to three statements; the jumps
        made in it."""
        self.tick(indent, ctx)
        for text in prefix:
            self.put(indent, text)
        self.put(indent, self.filler(ctx))
        made = NO_JUMP
        if ctx.depth >= MAX_DEPTH:
            return made
        for _ in range(self.rng.randint(2, 3) if ctx.depth == 0 else self.rng.randint(0, 2)):
            if self.cost > self.max_ticks:
                break
            self.tick(indent, ctx)
            choice, jumps = self.rng.random(), self.jumps(ctx)
            if jumps and choice < (0.25 if ctx.loops else 0.1):
                jumped = self.jump(ctx, indent, self.rng.choice(jumps))
                if self.rng.random() < 0.3:
                    return merge(made, jumped)  # a jump ends the block
            elif choice < 0.55:
                jumped = write_loop(self, ctx, indent)
            elif choice < 0.65 and ctx.depth < MAX_DEPTH - 1:
                jumped = self.call(ctx, indent)
            elif choice < 0.75:
                jumped = self.ternary(ctx, indent)
            else:
                jumped = self.if_(ctx, indent)
            made = merge(made, jumped)
            ctx = after_jumps(ctx, jumped)
        return made

    def filler(self, ctx: Ctx) -> str:
        if ctx.index and self.rng.random() < 0.5:
            name, python = ctx.index
            return f"x = x + {name}" if python else f"x = x * 1.5 + tf.cast({name}, tf.float32)"
        return self.rng.choice(["x = x * 1.5 + 1.0", "x = x - 0.5", "x = tf.sqrt(x * x + 1.0)"])

    # -- conditions and ifs ---------------------------------------------------------------

    def condition(self, ctx: Ctx) -> tuple[str, bool]:
        """A condition and whether it is a Python value for sure."""
        pool = [(c, True) for c in PY_CONDS] + [(c, False) for c in TF_CONDS]
        if ctx.index:
            name, python = ctx.index
            pool += [(f"{name} > 1", python), (f"{name} > 0 and x > 0.0", False)]
            if python:
                pool.append((f"{name} % 2 == 0", True))
        if ctx.acc:
            pool.append((f"len({ctx.acc}) > 1", True))
        text, python = self.rng.choice(pool)
        python = python and (ctx.n_python or not _N.search(text))
        self.features.add("cond_py" if python else "cond_tensor")
        if " and " in text or " or " in text:
            self.features.add("cond_and_or")
        if text.startswith("not "):
            self.features.add("cond_not")
        return text.format(k=self.rng.randint(1, 5)), python

    def inner(self, ctx: Ctx, python: bool) -> Ctx:
        """The context of a block under a condition."""
        return replace(ctx, depth=ctx.depth + 1, top=False, in_cond=True,
                       py_since_loop=ctx.py_since_loop and python,
                       py_since_top=ctx.py_since_top and python)

    def if_(self, ctx: Ctx, indent: int) -> Jumps:
        text, python = self.condition(ctx)
        if ctx.loops:
            self.features.add("if_in_loop")
        self.put(indent, f"if {text}:")
        made = self.block(self.inner(ctx, python), indent + 1)
        if self.rng.random() < 0.2:  # no tick can sit before an elif: the oracle reads its parent
            text, also = self.condition(ctx)
            python = python and also
            self.features.add("elif")
            self.put(indent, f"elif {text}:")
            made = merge(made, self.block(self.inner(ctx, python), indent + 1))
        if self.rng.random() < 0.5:
            self.put(indent, "else:")
            made = merge(made, self.block(self.inner(ctx, python), indent + 1))
        return made

    def ternary(self, ctx: Ctx, indent: int) -> Jumps:
        """``tD = (tf.constant(A) if COND else tf.constant(B))`` over three lines: each branch
        one Const of a value of its own, so the ops tell which one ran, and how often."""
        text, _ = self.condition(ctx)
        self.features.add("ternary")
        self.put(indent, f"t{next(self.ids)} = (tf.constant({next(self.ticks)}.0)")
        self.put(indent, f"      if {text}")
        self.put(indent, f"      else tf.constant({next(self.ticks)}.0))")
        self.cost += ctx.mult
        return NO_JUMP

    # -- break / continue / return --------------------------------------------------------

    def jumps(self, ctx: Ctx) -> list[str]:
        found = ["break", "continue"] if ctx.loops else []
        if "tf" not in ctx.loops and ctx.py_since_top:
            found.append("return")  # under a staged if, AutoGraph wants a return on each side
        return found

    def jump(self, ctx: Ctx, indent: int, what: str) -> Jumps:
        """``if COND: tick; JUMP``."""
        staged_loop = bool(ctx.loops) and ctx.loops[-1] == "tf"
        if what != "continue" and ctx.loops and not staged_loop and not ctx.py_since_loop:
            what = "continue"  # a break or return under a staged guard: AutoGraph refuses it
        text, python = self.condition(ctx)
        tensor_ok = what == "continue" or (what == "break" and staged_loop) \
            or (what == "return" and ctx.top)  # the rest of the function goes in its else
        if not python and not tensor_ok:
            text, python = f"v.shape[0] > {self.rng.randint(1, 5)}", True
        self.features.add(f"{what}_in_loop" if ctx.loops else "early_return")
        self.put(indent, f"if {text}:")
        self.tick(indent + 1, self.inner(ctx, python))
        self.put(indent + 1, "return x - 1.0" if what == "return" else what)
        kind = "py" if python and (ctx.py_since_top if what == "return"
                                   else ctx.py_since_loop) else "tf"
        return ("", kind) if what == "return" else (kind, "")

    # -- helpers --------------------------------------------------------------------------

    def call(self, ctx: Ctx, indent: int) -> Jumps:
        """``x = gD(x, n, v)``, with a helper of its own written after ``f``; its n is the
        caller's, or the innermost loop's index (a tensor in a staged loop)."""
        d = next(self.ids)
        n, n_python = "n", ctx.n_python
        if ctx.index and self.rng.random() < 0.5:
            n, n_python = ctx.index
            n_python = n_python and not ctx.index[0].startswith("e")  # an int, not a float
            if not n_python and ctx.index[0].startswith("e"):
                n = f"tf.cast({n}, tf.int32)"
        self.features.add("helper" if n_python else "helper_tensor_n")
        self.put(indent, f"x = g{d}(x, {n}, v)")
        outer = self.lines
        self.lines = ["", "", f"def g{d}(x, n, v):"]
        self.block(Ctx(depth=ctx.depth + 1, mult=ctx.mult, n_python=n_python), 1)
        self.put(1, "return x")
        self.helpers += self.lines
        self.lines = outer
        return NO_JUMP  # a helper's returns are its own


def generate(seed: int, max_ticks: int = MAX_TICKS) -> Program:
    """The program for ``seed`` (the same seed and size give the same program);
    ``max_ticks``: about how many tick executions it may hold (its size)."""
    writer = Writer(random.Random(seed), max_ticks)
    writer.lines += ["import tensorflow as tf", "", "", "def f(x, n, v):"]
    writer.block(Ctx(), 1)
    writer.put(1, "return x")
    source = "\n".join(writer.lines + writer.helpers) + "\n"
    return Program(seed, source, frozenset(writer.features), max_ticks=max_ticks)
