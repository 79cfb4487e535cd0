"""Tab switching and key bursts in the explorer: what each switch costs, and whether it stays.

The explorer (``AgxApp`` on ``samples/s6_2_bad_loop.py::bad_loop``, headless ``run_test`` at
160x45, its own ``Worker``) is driven as a user drives it: the tab keys 1-9 in turn, each
posted to the app as the terminal driver posts it (``events.Key``), the next one once the tab
is shown with its widget focused and a further ``PACE_S`` (0.35 s: the tab underline's 0.3 s
slide and the footer's recompose after the refresh) has passed. Every 100 switches: the UI
process's CPU time for them (``time.process_time``; the worker is another process) and its
RSS after a ``gc.collect()`` (``/proc/self/statm``), and the live ``FooterKey`` widgets
(counted through ``gc``). Then a burst: 500 tab keys posted at once; settled = the last key's
tab shown, its widget focused, and every widget of the screen has handled its messages
(``pilot.pause()``); the time and CPU until then.

Side by side, each in a fresh process: the explorer as shipped, and the same explorer with
Textual's ``Footer`` and ``TabbedContent`` as they come (``textual_patches.install_footer`` and
``install_tab_focus`` left out: every footer key composed stays alive), over fewer switches
(it is slow). The burst's coalescing (keys.py) is in both.

Goals (issue 21): RSS flat over 1,000 switches (growth per 100 switches printed; the stock
footer grew about 1.2 MB a switch), a burst of 500 keys settled within 2 s. Timings are
printed, never asserted.

Run: ``python benchmarks/bench_tab_switching.py [--quick]`` (``--quick``: 300 and 100
switches instead of 1,000 and 300)
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import time

from _common import private_state_home

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

SAMPLE, FUNCTION = os.path.join(ROOT, "samples", "s6_2_bad_loop.py"), "bad_loop"
SIZE = (160, 45)
PACE_S = 0.35
BURST = 500
GOAL_BURST_S = 2.0
TABS = "123456789"


def rss_mb() -> float:
    """The process's resident memory, in MiB."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def live(cls: type) -> int:
    """Objects of ``cls`` still alive, after a full collection."""
    gc.collect()
    return sum(isinstance(obj, cls) for obj in gc.get_objects())


async def wait_until(condition, seconds: float = 60.0) -> None:
    deadline = time.perf_counter() + seconds
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("the explorer did not get there")
        await asyncio.sleep(0.01)


def shown(app, tab: str) -> bool:
    """Is ``tab`` the open tab, with the focus in it?"""
    panels = app.panes.panels
    focused = app.focused
    return panels.active == tab and focused is not None and \
        panels.get_pane(tab) in focused.ancestors_with_self


async def measure(switches: int) -> dict:
    from textual import events
    from textual.widgets._footer import FooterKey

    from agexplorer.tui.app import AgxApp
    from agexplorer.tui.keys import TABS as TAB_IDS
    from agexplorer.worker.client import Worker
    from agexplorer.worker.protocol import PingRequest

    worker = Worker(timeout=120)
    worker.start()
    worker.request(PingRequest(), timeout=180)
    app = AgxApp([SAMPLE], FUNCTION, worker=worker)
    rows = []
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(lambda: app.state.report is not None, 180)
            app.query_one("#picker").focus()
            for key in TABS:  # every tab once (the Passes and HLO tabs ask the worker)
                app.post_message(events.Key(key, key))
                await wait_until(lambda key=key: shown(app, TAB_IDS[int(key) - 1][0]))
                await asyncio.sleep(1.0)
            await pilot.pause()
            rows.append({"switches": 0, "cpu_s": 0.0, "rss_mb": rss_mb(),
                         "footer_keys": live(FooterKey)})
            cpu = time.process_time()
            for done in range(1, switches + 1):
                key = TABS[done % len(TABS)]
                app.post_message(events.Key(key, key))
                await wait_until(lambda key=key: shown(app, TAB_IDS[int(key) - 1][0]))
                await asyncio.sleep(PACE_S)
                if done % 100 == 0:
                    now = time.process_time()
                    rows.append({"switches": done, "cpu_s": now - cpu, "rss_mb": rss_mb(),
                                 "footer_keys": live(FooterKey)})
                    cpu = time.process_time()
            await pilot.pause()
            start, cpu = time.perf_counter(), time.process_time()
            for k in range(BURST):
                key = TABS[k % len(TABS)]
                app.post_message(events.Key(key, key))
            last = TAB_IDS[int(TABS[(BURST - 1) % len(TABS)]) - 1][0]
            await wait_until(lambda: shown(app, last))
            await pilot.pause()
            burst_s, burst_cpu = time.perf_counter() - start, time.process_time() - cpu
            burst_ok = shown(app, last)
    finally:
        worker.close()
    return {"rows": rows, "burst_s": burst_s, "burst_cpu_s": burst_cpu, "burst_ok": burst_ok}


def child(variant: str, switches: int) -> None:
    """One variant in this process: print its figures as one JSON line."""
    private_state_home()
    if variant == "stock":  # Textual's Footer and TabbedContent as they come
        from agexplorer.tui import textual_patches

        textual_patches._footer_installed = textual_patches._tab_focus_installed = True
    result = asyncio.run(measure(switches))
    print(json.dumps(result))


def run_child(variant: str, switches: int) -> dict:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", variant,
                          str(switches)], capture_output=True, text=True, env=env, check=False)
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if out.returncode or not lines:
        raise RuntimeError(f"{variant} run failed:\n{out.stderr[-3000:]}")
    return json.loads(lines[-1])


def report(name: str, result: dict) -> tuple[float, float]:
    """Print one variant's table; return (RSS growth per 100 switches, median CPU per 100)."""
    rows = result["rows"]
    print(f"\n{name}: {rows[-1]['switches']} switches, a key every {PACE_S:g} s after the tab shows")
    print(f"  {'switches':>8} {'CPU s /100':>10} {'RSS MiB':>8} {'FooterKeys alive':>17}")
    for row in rows:
        cpu = f"{row['cpu_s']:.2f}" if row["switches"] else "-"
        print(f"  {row['switches']:>8} {cpu:>10} {row['rss_mb']:>8.1f} {row['footer_keys']:>17}")
    # Growth from the first hundred on (the first hundred still warms caches up).
    first, last = rows[1], rows[-1]
    hundreds = (last["switches"] - first["switches"]) / 100 or 1
    growth = (last["rss_mb"] - first["rss_mb"]) / hundreds
    cpu = statistics.median(row["cpu_s"] for row in rows[1:])
    print(f"  RSS growth {growth:+.2f} MiB per 100 switches (after the first 100); CPU per 100 "
          f"switches, median {cpu:.2f} s ({cpu * 10:.0f} ms a switch)")
    print(f"  burst of {BURST} keys: settled in {result['burst_s']:.2f} s (CPU "
          f"{result['burst_cpu_s']:.2f} s), last key's tab shown and focused: {result['burst_ok']}")
    return growth, cpu


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        child(argv[1], int(argv[2]))
        return 0
    quick = "--quick" in argv
    shipped_n, stock_n = (300, 100) if quick else (1000, 300)
    shipped = run_child("shipped", shipped_n)
    stock = run_child("stock", stock_n)
    growth, cpu = report("as shipped (agexplorer's footer and tab focus workarounds)", shipped)
    stock_growth, stock_cpu = report("Textual's Footer and TabbedContent as they come", stock)
    print(f"\nper 100 switches, shipped vs stock: RSS {growth:+.2f} vs {stock_growth:+.2f} MiB, "
          f"CPU {cpu:.2f} vs {stock_cpu:.2f} s ({cpu / stock_cpu:.2f}x)")
    print(f"RESULT tab_switching rss_mib_per_100={growth:+.2f} cpu_s_per_100={cpu:.2f} "
          f"burst_{BURST}_s={shipped['burst_s']:.2f} goal<={GOAL_BURST_S:g} "
          f"stock_rss_mib_per_100={stock_growth:+.2f} stock_cpu_s_per_100={stock_cpu:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
