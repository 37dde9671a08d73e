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
(same graph and n, or same thread count); for W7 the goal's reference is "Inject init + 3 resolves".

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

WORKLOAD_ORDER = ["W1", "W2", "W3", "W4", "W5", "W6", "W7"]
WIRING_ORDER = [HAND, NAIVE, "mutex dictionary", INJECT, "Inject init + 3 resolves", "Inject @Injected",
                SWINJECT, "Swinject synchronized"]


class Result:
    def __init__(self, name, workload, parameters, wiring, ops, wall_ns, mallocs):
        self.name = name
        self.workload = workload  # e.g. "W3 singleton"
        self.parameters = parameters  # e.g. ["heavy", "n=500"]
        self.wiring = wiring
        self.ops = ops
        self.wall_ns = wall_ns  # median per sample
        self.mallocs = mallocs  # median per sample, or None
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
        results.append(Result(name, workload, parameters, wiring, ops, wall_us * 1000.0,
                              median(secondary.get(MALLOC))))
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

    for r in results:
        if r.wiring != INJECT and r.code != "W7":
            continue
        if r.code == "W1" and r.tags.get("n") == "1000":
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
            text = ", ".join(t if ok else f"{t}: missed" for t, ok in parts)
            goals[r.name] = (text, all(ok for _, ok in parts))
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


def sort_key(r):
    code = WORKLOAD_ORDER.index(r.code) if r.code in WORKLOAD_ORDER else 99
    graph = {"light": 0, "heavy": 1}.get(r.tags.get("graph"), 2)
    n = int(r.tags.get("n", "0"))
    threads = int(r.tags.get("threads", "0"))
    wiring = WIRING_ORDER.index(r.wiring) if r.wiring in WIRING_ORDER else 99
    return (code, graph, n, threads, wiring)


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
    for line in flatness(results):
        print(line)
    met = sum(1 for _, ok in goals.values() if ok)
    print(f"- Goals met on {met} of {len(goals)} rows.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
