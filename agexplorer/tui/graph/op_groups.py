"""The Graph tab's data: each body's ops with repeats grouped by line and type, and a filter's view."""

from __future__ import annotations

from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field
from operator import attrgetter

from agexplorer.model.inventory import BodyInfo, Inventory, OpInfo

GROUP_AT = 4  # this many ops of one type from one line make a group; fewer read better one by one


@dataclass(eq=False)
class OpGroup:
    """Ops of one type that one line made in one body (an unrolled loop's repeats)."""

    type: str
    file: str | None
    line: int | None
    function: str
    ops: list[OpInfo] = field(default_factory=list)


Entry = OpInfo | OpGroup
Key = tuple


def key_of(entry: Entry | BodyInfo) -> Key:
    """A node's identity that outlives a refill (and a new report of the same function)."""
    if isinstance(entry, OpGroup):
        return ("group", entry.function, entry.file, entry.line, entry.type)
    if isinstance(entry, BodyInfo):
        return ("body", entry.name)
    return ("op", entry.function, entry.name)


@dataclass
class View:
    """What a filter keeps: each body's entries, how many ops match, the path to each line."""

    kept: dict[str, list[Entry]]
    matches: int
    auto: set[Key]  # containers and bodies opened to show the matches inside them
    first_at: dict[int, list[Key]]  # a line's first entry, after the keys of its ancestors


class GraphIndex:
    """An inventory indexed once for the tree: each body's entries and the bodies an op holds."""

    def __init__(self, inventory: Inventory, source_file: str | None = None) -> None:
        self.inventory = inventory
        self.source_file = source_file
        self.outer = inventory.bodies[0]
        self.total = len(inventory.ops)
        ops_in: dict[str, list[OpInfo]] = defaultdict(list)
        for op in inventory.ops:
            ops_in[op.function].append(op)
        waiting: dict[str | None, list[BodyInfo]] = defaultdict(list)
        for body in inventory.bodies[1:]:
            waiting[body.parent_op].append(body)
        self.held: dict[tuple[str, str], list[BodyInfo]] = {}
        self.entries: dict[str, list[Entry]] = {}
        self.types: Counter[str] = Counter()
        # Bodies name their op, not its body: each is claimed by the first op of that name
        # met from the outer body down, so that a name used twice cannot make a cycle.
        seen = {self.outer.name}
        queue = deque([self.outer.name])
        while queue:
            function = queue.popleft()
            ops = ops_in.get(function, [])
            for op in ops:
                if op.name in waiting:
                    claimed = [b for b in waiting.pop(op.name) if b.name not in seen]
                    if claimed:
                        self.held[(function, op.name)] = claimed
                        seen.update(b.name for b in claimed)
                        queue.extend(b.name for b in claimed)
            self.entries[function] = self._group(function, ops)
            self.types.update(map(attrgetter("type"), ops))

    def _group(self, function: str, ops: list[OpInfo]) -> list[Entry]:
        # Two passes, one tuple and one lookup an op each: this runs after every analysis.
        holders = {name for f, name in self.held if f == function}
        buckets: dict[tuple, list[OpInfo]] = {}
        for op in ops:
            if op.name in holders:  # an op holding bodies stands alone: its bodies hang on it
                continue
            where = (op.file, op.line, op.type)
            bucket = buckets.get(where)
            if bucket is None:
                buckets[where] = [op]
            else:
                bucket.append(op)
        entries: list[Entry] = []
        for op in ops:
            bucket = None if op.name in holders else buckets[(op.file, op.line, op.type)]
            if bucket is None or len(bucket) < GROUP_AT:
                entries.append(op)
            elif bucket[0] is op:
                entries.append(OpGroup(op.type, op.file, op.line, function, bucket))
        return entries

    def bodies_of(self, op: OpInfo) -> list[BodyInfo]:
        """The bodies ``op`` holds (a loop's cond and body, a branch)."""
        return self.held.get((op.function, op.name), [])

    def explored(self, entry: Entry) -> bool:
        """Whether ``entry`` was made by a line of the explored file (not a helper's)."""
        return (entry.line is not None
                and (self.source_file is None or entry.file in (self.source_file, None)))

    def view(self, type_filter: str = "") -> View:
        """The entries ``type_filter`` keeps (any case; empty keeps all); containers of matches
        stay, opened, so that a match inside a loop keeps its place."""
        wanted = type_filter.strip().lower()
        kept: dict[str, list[Entry]] = {}
        auto: set[Key] = set()

        def walk(function: str) -> bool:
            out: list[Entry] = []
            for entry in self.entries.get(function, []):
                hit = wanted in entry.type.lower()
                bodies = self.bodies_of(entry) if isinstance(entry, OpInfo) else []
                inner = [body for body in bodies if walk(body.name)]
                if wanted and inner:
                    auto.add(key_of(entry))
                    auto.update(key_of(body) for body in inner)
                if hit or inner:
                    out.append(entry)
            kept[function] = out
            return bool(out)

        walk(self.outer.name)
        matches = sum(n for t, n in self.types.items() if wanted in t.lower())
        return View(kept, matches, auto, self._first_at(kept))

    def _first_at(self, kept: dict[str, list[Entry]]) -> dict[int, list[Key]]:
        # Breadth first: a line's shallowest op, so that moving to it opens the fewest nodes.
        first: dict[int, list[Key]] = {}
        queue: deque[tuple[str, list[Key]]] = deque([(self.outer.name, [])])
        while queue:
            function, path = queue.popleft()
            for entry in kept.get(function, []):
                key = key_of(entry)
                if self.explored(entry) and entry.line is not None and entry.line not in first:
                    first[entry.line] = [*path, key]
                if isinstance(entry, OpInfo):
                    queue.extend((body.name, [*path, key, key_of(body)])
                                 for body in self.bodies_of(entry) if body.name in kept)
        return first
