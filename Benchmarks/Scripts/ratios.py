#!/usr/bin/env python3
"""Prints the Markdown table of the Inject benchmark suite: medians, ratios and goals.

Reads the JMH export of a run (package-benchmark's only single-file export that carries every benchmark's
percentiles), from the Benchmarks directory:

    swift package --allow-writing-to-package-directory benchmark --format jmh --path .benchmarkResults
    python3 Scripts/ratios.py .benchmarkResults            # a directory: its newest *.jmh.json
    python3 Scripts/ratios.py .benchmarkResults/current_run.jmh.json

Each benchmark is named "<workload>[, <parameter>...]: <wiring> (ops: <n>)", e.g.
"W2 resolve graph, heavy, n=500: Inject (ops: 19687)"; `ops` is how many operations one sample performs
(resolves, registrations, objects built), and every median is divided by it for the per-op columns.
Medians are the 50th percentile of the samples' wall clock (and malloc count). Ratios compare wirings measured
in the same run: "× hand-written" is this wiring's per-op median over the hand-written one's in the same group
(same graph and n, or same thread count); for W7 the goal's reference is "Inject init + 3 resolves". The goals of
the newer rows name their reference, and the ratio to it, in the Goal column: "Inject autowired" against "Inject"
in its group (W1, W4), "Inject argument" and W10 against W3's "Inject", W8's and W9's "Inject warmUp" against
"Inject one by one". W8's warm-up row also reads the two custom metrics that row records from warmUp()'s own
report (its speed-up × 1,000 and its serial time in µs), and compares the report's speed-up with the measured one.

Exit status: 0 whether or not the goals are met (the table says so); 2 when the input cannot be read.
"""

import glob
import json
import os
import re
import sys

WALL = "Time (wall clock)"
MALLOC = "Malloc (total)"
HAND = "hand-written"
INJECT = "Inject"
SWINJECT = "Swinject"
NAIVE = "naive dictionary"

AUTOWIRED = "Inject autowired"
ARGUMENT = "Inject argument"
WARM_UP = "Inject warmUp"
ONE_BY_ONE = "Inject one by one"
# Custom metrics of W8's warm-up row (W8WarmUp.swift): what warmUp()'s StartupReport said, per sample.
REPORT_SPEED_UP = "W8 report speed-up (x1000)"
REPORT_SERIAL = "W8 report serial (us)"

WORKLOAD_ORDER = ["W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8", "W9", "W10"]
WIRING_ORDER = [HAND, NAIVE, "mutex dictionary", INJECT, AUTOWIRED, ARGUMENT, "Inject init + 3 resolves",
                "Inject @Injected", ONE_BY_ONE, WARM_UP, SWINJECT, "Swinject synchronized"]


class Result:
    def __init__(self, name, workload, parameters, wiring, ops, wall_ns, mallocs, custom=None):
        self.name = name
        self.workload = workload  # e.g. "W3 singleton"
        self.parameters = parameters  # e.g. ["heavy", "n=500"]
        self.wiring = wiring
        self.ops = ops
        self.wall_ns = wall_ns  # median per sample
        self.mallocs = mallocs  # median per sample, or None
        self.custom = custom or {}  # median per sample of each custom metric this benchmark records
        self.tags = {}
        for p in parameters:
            if p in ("light", "heavy"):
                self.tags["graph"] = p
            elif p.startswith("n="):
                self.tags["n"] = p[2:]
            elif p.endswith(("thread", "threads")):
                self.tags["threads"] = p.split()[0]

    @property
    def code(self):
        return self.workload.split()[0]

    @property
    def per_op_ns(self):
        return self.wall_ns / self.ops

    @property
    def mallocs_per_op(self):
        return None if self.mallocs is None else self.mallocs / self.ops

    def group(self):
        """The comparison group: the workload and its parameters (everything but the wiring)."""
        return (self.workload,) + tuple(self.parameters)


def parse_name(raw):
    """"package.benchmark.<target>.<name, spaces as underscores>" -> (name, workload, parameters, wiring, ops)."""
    parts = raw.split(".", 3)
    name = parts[3] if len(parts) == 4 and parts[0] == "package" else raw
    name = name.replace("_", " ")
    ops = 1
    match = re.fullmatch(r"(.*?) \((.*)\)", name)
    base = name
    if match:
        base = match.group(1)
        for pair in match.group(2).split(", "):
            key, _, value = pair.partition(": ")
            if key == "ops":
                ops = int(value)
    group, _, wiring = base.rpartition(": ")
    pieces = group.split(", ")
    return name, pieces[0], pieces[1:], wiring, ops


def median(metric):
    if metric is None:
        return None
    return metric["scorePercentiles"]["50.0"]


def load(path):
    if os.path.isdir(path):
        files = sorted(glob.glob(os.path.join(path, "*.jmh.json")), key=os.path.getmtime)
        if not files:
            raise FileNotFoundError(f"no *.jmh.json in {path}")
        path = files[-1]
    with open(path, encoding="utf-8") as f:
        elements = json.load(f)
    results = []
    for element in elements:
        name, workload, parameters, wiring, ops = parse_name(element["benchmark"])
        secondary = element.get("secondaryMetrics") or {}
        wall_us = median(secondary.get(WALL))
        if wall_us is None:
            continue
        # package-benchmark 1.38.1's JMH export reuses one secondaryMetrics dictionary for every benchmark, so a
        # custom metric shows up under the benchmarks exported after the one that recorded it: read it only
        # where it belongs (W8's warm-up row).
        custom = {}
        if workload.startswith("W8 ") and wiring == WARM_UP:
            custom = {key: median(secondary.get(key)) for key in (REPORT_SPEED_UP, REPORT_SERIAL)
                      if secondary.get(key) is not None}
        results.append(Result(name, workload, parameters, wiring, ops, wall_us * 1000.0,
                              median(secondary.get(MALLOC)), custom))
    return path, results


def fmt_time(ns):
    if ns is None:
        return "–"
    if ns < 1_000:
        return f"{ns:.1f} ns" if ns < 100 else f"{ns:.0f} ns"
    if ns < 1_000_000:
        return f"{ns / 1_000:.1f} µs" if ns < 100_000 else f"{ns / 1_000:.0f} µs"
    return f"{ns / 1_000_000:.2f} ms"


def fmt_ratio(value):
    if value is None:
        return ""
    return f"{value:.2f}×" if value < 10 else f"{value:.0f}×"


def fmt_mallocs(value):
    if value is None:
        return "–"
    if 0 < value < 0.005:
        return "< 0.01"
    return f"{value:.0f}" if value == int(value) else f"{value:.2f}"


def describe_group(result):
    return ", ".join(result.group())


def evaluate(results):
    """Returns {result name: (goal text, met: bool)} for the rows a goal applies to."""
    by_group = {}
    for r in results:
        by_group.setdefault(r.group(), {})[r.wiring] = r
    goals = {}

    def ref(r, wiring):
        return by_group.get(r.group(), {}).get(wiring)

    def w3_inject():
        return next((x for x in results if x.code == "W3" and x.wiring == INJECT), None)

    def verdict(parts):
        """[(text, ok)] -> (goal text with the misses marked, all met)."""
        return (", ".join(t if ok else f"{t}: missed" for t, ok in parts), all(ok for _, ok in parts))

    for r in results:
        if r.wiring == AUTOWIRED and r.code in ("W1", "W4"):
            closure = ref(r, INJECT)
            if closure:
                ratio = r.per_op_ns / closure.per_op_ns
                goals[r.name] = (f"≤ 1.1× Inject's closures ({fmt_ratio(ratio)})", ratio <= 1.1)
            continue
        if r.wiring == ARGUMENT and r.code == "W3":
            base = ref(r, INJECT)
            if base:
                ratio = r.per_op_ns / base.per_op_ns
                goals[r.name] = (f"≤ 4× W3 Inject ({fmt_ratio(ratio)})", ratio <= 4.0)
            continue
        if r.code == "W8" and r.wiring == WARM_UP:
            serial = ref(r, ONE_BY_ONE)
            if serial:
                ratio = r.wall_ns / serial.wall_ns
                parts = [(f"≤ 0.6× one by one ({fmt_ratio(ratio)})", ratio <= 0.6)]
                reported = r.custom.get(REPORT_SPEED_UP)
                if reported is not None:
                    measured = serial.wall_ns / r.wall_ns
                    reported /= 1000.0
                    parts.append((f"report's speed-up {reported:.2f}× vs measured {measured:.2f}× within 15%",
                                  abs(reported / measured - 1) <= 0.15))
                else:
                    parts.append((f"report's speed-up ({REPORT_SPEED_UP}) not in the export", False))
                goals[r.name] = verdict(parts)
            continue
        if r.code == "W9":
            if r.wiring == WARM_UP:
                goals[r.name] = ("≤ 50 ms", r.wall_ns <= 50_000_000)
            elif r.wiring == ONE_BY_ONE:
                goals[r.name] = ("≥ 1 s (the baseline)", r.wall_ns >= 1_000_000_000)
            continue
        if r.code == "W10" and r.wiring == INJECT:
            base = w3_inject()
            if base:
                ratio = r.per_op_ns / base.per_op_ns
                limit, what = (3.0, "≤ 3×") if "resolveAsync" in r.parameters else (1.1, "within noise (1.1×) of")
                goals[r.name] = verdict([(f"{what} W3 Inject ({fmt_ratio(ratio)})", ratio <= limit),
                                         ("0 mallocs", r.mallocs_per_op == 0)])
            continue
        if r.wiring != INJECT and r.code != "W7":
            continue
        if r.code == "W1" and r.tags.get("n") == "1000" and "graph" in r.tags:
            goals[r.name] = ("≤ 200 µs for 1,000", r.wall_ns <= 200_000)
        elif r.code in ("W2", "W4") or (r.code == "W5" and r.tags.get("threads") == "2"):
            hand = ref(r, HAND)
            if hand:
                limit = 3.5 if r.code == "W4" else 3.0
                ratio = r.per_op_ns / hand.per_op_ns
                goals[r.name] = (f"≤ {limit:g}× hand-written", ratio <= limit)
        elif r.code == "W3":
            parts = [("≤ 60 ns", r.per_op_ns <= 60), ("0 mallocs", r.mallocs_per_op == 0)]
            naive, swinject = ref(r, NAIVE), ref(r, SWINJECT)
            if naive:
                parts.append((f"< naive ({fmt_time(naive.per_op_ns)})", r.per_op_ns < naive.per_op_ns))
            if swinject:
                faster = swinject.per_op_ns / r.per_op_ns
                parts.append((f"≥ 20× faster than Swinject ({fmt_ratio(faster)})", faster >= 20))
            goals[r.name] = verdict(parts)
        elif r.code == "W6":
            goals[r.name] = ("≤ 20 ms", r.wall_ns <= 20_000_000)
        elif r.code == "W7" and r.wiring == "Inject @Injected":
            base = ref(r, "Inject init + 3 resolves")
            if base:
                ratio = r.per_op_ns / base.per_op_ns
                goals[r.name] = (f"≤ 2× init + 3 resolves ({fmt_ratio(ratio)})", ratio <= 2.0)
    return goals, by_group


def flatness(results):
    """W2: Inject's time per built object at n = 1000 over n = 100, per graph (the goal: flat)."""
    lines = []
    for graph in ("light", "heavy"):
        rows = {r.tags.get("n"): r for r in results
                if r.code == "W2" and r.wiring == INJECT and r.tags.get("graph") == graph}
        if "100" in rows and "1000" in rows:
            per = {n: rows[n].per_op_ns for n in ("100", "500", "1000") if n in rows}
            spread = max(per.values()) / min(per.values())
            listing = ", ".join(f"n {n}: {fmt_time(v)}" for n, v in per.items())
            verdict = "met" if spread <= 1.25 else "**missed**"
            lines.append(f"- W2 {graph}, Inject time per built object: {listing}; "
                         f"max/min {spread:.2f} (flat = within 1.25×): {verdict}")
    return lines


def startup(results):
    """W8: the report's figures beside the measured ones (the goal compares the speed-ups)."""
    lines = []
    warm = next((r for r in results if r.code == "W8" and r.wiring == WARM_UP), None)
    serial = next((r for r in results if r.code == "W8" and r.wiring == ONE_BY_ONE), None)
    if warm and serial:
        line = (f"- W8 warm-up of {warm.ops:,} services: measured one by one {fmt_time(serial.wall_ns)}, "
                f"warmUp() {fmt_time(warm.wall_ns)}, speed-up {serial.wall_ns / warm.wall_ns:.2f}×")
        speed_up, serial_us = warm.custom.get(REPORT_SPEED_UP), warm.custom.get(REPORT_SERIAL)
        if speed_up is not None and serial_us is not None:
            line += (f"; warmUp()'s report: serial {fmt_time(serial_us * 1000)} (its builds' own times summed), "
                     f"speed-up {speed_up / 1000:.2f}×")
        lines.append(line)
    return lines


def sort_key(r):
    code = WORKLOAD_ORDER.index(r.code) if r.code in WORKLOAD_ORDER else 99
    graph = {"light": 0, "heavy": 1}.get(r.tags.get("graph"), 2)
    n = int(r.tags.get("n", "0"))
    threads = int(r.tags.get("threads", "0"))
    wiring = WIRING_ORDER.index(r.wiring) if r.wiring in WIRING_ORDER else 99
    return (code, graph, n, threads, tuple(r.parameters), wiring)


def table(results):
    goals, by_group = evaluate(results)
    out = ["| Workload | Wiring | Median / sample | Ops / sample | Median / op | Mallocs / op | × hand-written "
           "| Swinject ÷ this | Goal | Met |",
           "|---|---|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in sorted(results, key=sort_key):
        group = by_group[r.group()]
        hand = group.get(HAND)
        vs_hand = r.per_op_ns / hand.per_op_ns if hand and r is not hand else None
        swinject = group.get(SWINJECT) if r.code == "W3" else None
        vs_swinject = swinject.per_op_ns / r.per_op_ns if swinject and r is not swinject else None
        goal, met = goals.get(r.name, ("", None))
        out.append("| " + " | ".join([
            describe_group(r), r.wiring, fmt_time(r.wall_ns), f"{r.ops:,}", fmt_time(r.per_op_ns),
            fmt_mallocs(r.mallocs_per_op), fmt_ratio(vs_hand), fmt_ratio(vs_swinject), goal,
            "" if met is None else ("yes" if met else "**no**"),
        ]) + " |")
    return out, goals


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) == 2 else 2
    try:
        path, results = load(argv[1])
    except (OSError, ValueError, KeyError) as error:
        print(f"ratios.py: cannot read {argv[1]}: {error}", file=sys.stderr)
        return 2
    lines, goals = table(results)
    print(f"Source: `{os.path.basename(path)}`, {len(results)} benchmarks. Medians of the samples' wall clock; "
          "per op = divided by the benchmark's `ops` tag.\n")
    print("\n".join(lines))
    print()
    for line in flatness(results) + startup(results):
        print(line)
    met = sum(1 for _, ok in goals.values() if ok)
    print(f"- Goals met on {met} of {len(goals)} rows.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
