#!/usr/bin/env python3
"""Checks a cluster description written by `oneflow-run --calibrate`
against docs/simulator.md: exactly the format's keys, positive figures,
efficiency points sorted by flops with fractions in (0, 1], one link level
covering every rank; "sources" says whether the link was measured.

  check_cluster.py FILE --ranks N [--timings FILE.jsonl]
      prints "ok" or the problems (exit 1); with --timings, also checks the
      file of --calibrate-timings: one line per product shape, the device
      line, and on 2+ ranks every collective with its fitted time.
"""

import argparse
import json
import os
import math
import sys


def problems(cluster, ranks):
    found = []

    def check(ok, what):
        if not ok:
            found.append(what)

    def positive(value):
        return (isinstance(value, (int, float)) and not isinstance(value, bool)
                and math.isfinite(value) and value > 0)

    check(list(cluster) == ["version", "name", "device", "links", "sources"],
          f"top-level keys {list(cluster)}")
    check(cluster.get("version") == 1, "version is not 1")
    check(isinstance(cluster.get("name"), str) and cluster["name"],
          "no name")
    device = cluster.get("device", {})
    # The switch on a shared CPU needs two ranks on the machine.
    check(list(device) == ["kind", "peak_flops", "gemm_efficiency",
                           "concurrent_ranks", "vector_flops",
                           "memory_bandwidth", "memory_capacity",
                           "kernel_overhead", "stream_handoff"] +
          (["shared_cpu_switch"] if ranks >= 2 else []),
          f"device keys {list(device)}")
    # The machine's usable cores over the threads per rank (1 here).
    ranks = device.get("concurrent_ranks")
    check(isinstance(ranks, int) and 1 <= ranks <= os.cpu_count(),
          f"concurrent_ranks {ranks} on {os.cpu_count()} cores")
    check(device.get("kind") == "cpu", "device.kind is not cpu")
    peaks = device.get("peak_flops", {})
    check(set(peaks) == {"f32", "f64"}, f"peak_flops keys {list(peaks)}")
    for key, value in peaks.items():
        check(positive(value), f"peak_flops.{key} = {value}")
    curve = device.get("gemm_efficiency", [])
    check(len(curve) >= 2, f"{len(curve)} efficiency points")
    for i, point in enumerate(curve):
        check(isinstance(point, list) and len(point) == 2, f"point {point}")
        flops, fraction = point
        check(positive(flops), f"point {i}: flops {flops}")
        check(positive(fraction) and fraction <= 1,
              f"point {i}: fraction {fraction}")
        if i:
            check(flops > curve[i - 1][0], f"point {i}: flops not increasing")
            check(fraction >= curve[i - 1][1],
                  f"point {i}: efficiency decreases")
    for key in ["vector_flops", "memory_bandwidth", "kernel_overhead"]:
        check(positive(device.get(key)), f"{key} = {device.get(key)}")
    capacity = device.get("memory_capacity")
    check(isinstance(capacity, int) and capacity > 0,
          f"memory_capacity = {capacity}")
    # Plausible magnitudes for a CPU core: a product beats the vector loop
    # per FLOP, a firing costs well under a millisecond.
    check(positive(peaks.get("f32")) and peaks["f32"] > 1e8,
          "f32 peak below 0.1 GFLOP/s")
    check(positive(device.get("kernel_overhead"))
          and device["kernel_overhead"] < 1e-3, "kernel overhead >= 1 ms")
    # A thread's wake-up: microseconds, not milliseconds.
    for key in ["stream_handoff"] + (["shared_cpu_switch"] if ranks >= 2
                                     else []):
        check(positive(device.get(key)) and device[key] < 1e-3,
              f"{key} = {device.get(key)}")
    links = cluster.get("links", [])
    check(len(links) == 1, f"{len(links)} link levels")
    for link in links:
        check(list(link) == ["name", "devices", "latency", "bandwidth"],
              f"link keys {list(link)}")
        check(link.get("name") == "shared memory", f"link {link.get('name')}")
        check(link.get("devices") == 0, "the link does not cover every rank")
        check(positive(link.get("latency")), f"latency {link.get('latency')}")
        check(positive(link.get("bandwidth")),
              f"bandwidth {link.get('bandwidth')}")
    sources = cluster.get("sources", "")
    check(isinstance(sources, str), "sources is not text")
    measured = "fitted to the ring formulas" in sources
    check(measured == (ranks >= 2),
          f"sources {'claim' if measured else 'deny'} a measured link on "
          f"{ranks} rank(s)")
    check(f"{ranks} rank" in cluster.get("name", ""),
          f"the name does not say {ranks} rank(s)")
    return found


def timing_problems(path, ranks):
    with open(path) as f:
        lines = [json.loads(line) for line in f]
    products = [x for x in lines if "gemm_f32" in x]
    device = [x for x in lines if "vector_flops_per_s" in x]
    links = [x for x in lines if "collective" in x]
    found = []
    if len(products) + len(device) + len(links) != len(lines):
        found.append("timings: unknown lines")
    if any(x["flops"] <= 0 or x["flops_per_s"] <= 0 for x in products):
        found.append("timings: a product without flops")
    if len(device) != 1:
        found.append(f"timings: {len(device)} device lines")
    kinds = {x["collective"] for x in links}
    if ranks >= 2 and kinds != {"ALL_REDUCE", "REDUCE_SCATTER", "ALL_GATHER",
                                "ALL_TO_ALL", "SEND"}:
        found.append(f"timings: collectives {sorted(kinds)}")
    if any(x["seconds"] <= 0 or x.get("fitted_seconds", 0) <= 0
           for x in links):
        found.append("timings: a collective without time or fit")
    if not found:
        print(f"timings: {len(products)} products, the device line, "
              f"{len(links)} collectives: ok")
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--timings")
    args = parser.parse_args()
    with open(args.file) as f:
        cluster = json.load(f)
    found = problems(cluster, args.ranks)
    if args.timings:
        found += timing_problems(args.timings, args.ranks)
    for problem in found:
        print("problem:", problem)
    if found:
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
