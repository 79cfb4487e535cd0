"""The differential corpus at scale: N generated programs, each traced by plain tf.function
(the oracle reads every op's own traceback) and reported by agexplorer, compared fact by fact.

In one process (TensorFlow imported once), for seeds ``--seed`` .. ``--seed + --programs - 1``
(see tests/differential/corpus.py; a seed names its program for good):

- each program is traced by ``tf.function(f).get_concrete_function(...)`` alone, and the
  oracle (tests/differential/oracle.py) says, per if/for/while, what the ops show: staged,
  run in Python or not reached, how often, unrolled how many times, which branch, the ops
  made under it; and per line, the ops made there;
- agexplorer's ``build_report`` runs on the same file and call; its report is pickled (the
  worker's pipe), written as JSON and rendered as text (``--no-render`` skips the last);
- every fact the oracle knows is compared with the report's.

Printed: programs (compared, skipped because tf.function refused them, internal errors),
statements compared (by the oracle's verdict), facts compared, agreements, disagreements,
facts the oracle left out (by reason), constructs covered, elapsed time. The exit status is
1 if any internal error or disagreement, each shown with its program.

Run: ``python benchmarks/bench_differential.py --programs 500 --seed 0 [--json] [--no-render]``
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIFFERENTIAL = os.path.join(ROOT, "tests", "differential")
for folder in (ROOT, DIFFERENTIAL):
    if folder not in sys.path:
        sys.path.insert(0, folder)


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=500, help="how many programs (500)")
    parser.add_argument("--seed", type=int, default=0, help="the first program's seed (0)")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    parser.add_argument("--no-render", action="store_true",
                        help="do not render each report as text (faster)")
    args = parser.parse_args(argv)
    if args.programs < 1:
        parser.error("--programs must be 1 or more")
    return args


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    from benchmarks._common import private_state_home

    private_state_home()
    from agexplorer.engine.tfenv import import_tf

    tf = import_tf()
    from comparison import run
    from corpus import generate

    folder = tempfile.mkdtemp(prefix="agx-differential-")
    counts: Counter = Counter()
    verdicts: Counter = Counter()
    unknown: Counter = Counter()
    skipped: Counter = Counter()
    features: Counter = Counter()
    failures = []
    started = time.perf_counter()
    try:
        for seed in range(args.seed, args.seed + args.programs):
            program = generate(seed)
            features.update(program.features)
            outcome = run(program, folder, tf, render=not args.no_render)
            counts[outcome.status] += 1
            if outcome.status == "skipped":
                skipped[outcome.reason] += 1
            counts["statements"] += outcome.statements
            counts["facts"] += len(outcome.checks)
            counts["disagreements"] += len(outcome.disagreements)
            unknown.update(outcome.unknown)
            verdicts.update(c.want for c in outcome.checks if c.what == "verdict")
            if outcome.status == "internal-error" or outcome.disagreements:
                failures.append(outcome)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    elapsed = time.perf_counter() - started
    result = {
        "programs": args.programs, "first_seed": args.seed,
        "compared": counts["compared"], "skipped": counts["skipped"],
        "skipped_reasons": dict(skipped), "internal_errors": counts["internal-error"],
        "statements": counts["statements"], "statement_verdicts": dict(verdicts),
        "facts": counts["facts"], "agreements": counts["facts"] - counts["disagreements"],
        "disagreements": counts["disagreements"], "left_out": dict(unknown.most_common()),
        "constructs": dict(sorted(features.items())), "elapsed_s": round(elapsed, 1),
    }
    for outcome in failures:
        print(outcome.explain(), end="\n\n", file=sys.stderr)
    print(json.dumps(result, indent=2) if args.json else _table(result))
    return 1 if failures else 0


def _table(r: dict) -> str:
    lines = [
        f"programs            {r['programs']} (seeds {r['first_seed']}.."
        f"{r['first_seed'] + r['programs'] - 1})",
        f"  compared          {r['compared']}",
        f"  skipped           {r['skipped']}"
        + "".join(f"\n    {n} x {why}" for why, n in r["skipped_reasons"].items()),
        f"  internal errors   {r['internal_errors']}",
        f"statements compared {r['statements']} ("
        + ", ".join(f"{n} {v}" for v, n in sorted(r["statement_verdicts"].items(),
                                                  key=lambda kv: str(kv[0]))) + ")",
        f"facts compared      {r['facts']}",
        f"  agreements        {r['agreements']}",
        f"  disagreements     {r['disagreements']}",
        "facts left out      " + (", ".join(f"{n} x {why}" for why, n in r["left_out"].items())
                                  or "none"),
        "constructs          " + ", ".join(f"{k} {n}" for k, n in r["constructs"].items()),
        f"elapsed             {r['elapsed_s']} s",
    ]
    ok = not (r["internal_errors"] or r["disagreements"])
    lines.append(f"RESULT: {'PASS' if ok else 'FAIL'} {r['agreements']}/{r['facts']} facts agree, "
                 f"{r['internal_errors']} internal errors over {r['compared']} programs")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
