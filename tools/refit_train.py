#!/usr/bin/env python3
"""Refit the training model's fitted constants and measure leave-one-source-out (LOSO).

The constants live in data/kernels.json "fit"; a --data-dir kernels.json holding a "fit"
object replaces them, so this script needs no rebuild: it writes such a file per trial and runs
gpuplan-validate on the train_throughput cases of validation/*.jsonl.

  tools/refit_train.py BUILD/tools/validate/gpuplan-validate [validation] [--rows OUT.json]

Prints the all-data fit, then for each source the constants refitted without it and that
source's errors, then the pooled LOSO figures (median, p90 of |error|, p10/p90 of the signed
error: the range data/kernels.json carries). Coordinate descent over a small grid; the
objective is median |error| + 0.3 x p90 + 0.2 x the excess of any group's median signed error
beyond 10%. Standard library only (python3).
"""
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile

GRID = {
    "gemm_train_fraction": [0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0],
    "attn_train_fraction": [0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.85, 1.0],
    "attn_train_fraction_cudnn": [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2],
    "layer_overhead_us": [0, 200, 400, 600, 800, 1200],
    "gemm_half_dim": [0, 50, 100, 150, 200, 300],
}


def source(case_id):
    """The source a case comes from (its id prefix)."""
    if case_id.startswith("mpt-h100"):
        return "mpt-h100"
    if case_id.startswith("nemo25"):
        return "nemo-docs"
    return case_id.split("-")[0]


class Runner:
    def __init__(self, binary, cases, workdir):
        self.binary, self.cases, self.workdir, self.cache = binary, cases, workdir, {}

    def rows(self, fit):
        key = json.dumps(fit, sort_keys=True)
        if key not in self.cache:
            d = tempfile.mkdtemp(dir=self.workdir)
            with open(os.path.join(d, "kernels.json"), "w") as f:
                json.dump({"fit": fit}, f)
            out = subprocess.run([self.binary, "--cases", self.cases, "--data-dir", d, "--json"],
                                 capture_output=True, text=True, check=False).stdout
            self.cache[key] = [r for r in json.loads(out)["rows"] if r["category"] == "train_throughput"]
        return self.cache[key]


def stats(rows):
    e = sorted(abs(r["error_pct"]) for r in rows)
    return statistics.median(e), e[int(0.9 * (len(e) - 1))]


def score(rows, skip=None):
    rows = [r for r in rows if source(r["id"]) != skip]
    med, p90 = stats(rows)
    groups = collections.defaultdict(list)
    for r in rows:
        groups[source(r["id"])].append(r["error_pct"])
    excess = sum(max(0.0, abs(statistics.median(v)) - 10.0) for v in groups.values() if len(v) >= 5)
    return med + 0.3 * p90 + 0.2 * excess


def descend(run, fit, skip=None, passes=3):
    best = score(run.rows(fit), skip)
    for _ in range(passes):
        changed = False
        for k, values in GRID.items():
            for v in values:
                if v == fit.get(k):
                    continue
                trial = dict(fit, **{k: v})
                s = score(run.rows(trial), skip)
                if s < best:
                    best, fit, changed = s, trial, True
        if not changed:
            break
    return fit


def main():
    args = sys.argv[1:]
    rows_out = None
    if "--rows" in args:
        i = args.index("--rows")
        rows_out = args[i + 1]
        del args[i:i + 2]
    if not args:
        sys.exit(__doc__)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    cases_dir = args[1] if len(args) > 1 else os.path.join(repo, "validation")
    with open(os.path.join(repo, "data", "kernels.json")) as f:
        base = json.load(f)["fit"]
    base = {k: v for k, v in base.items() if isinstance(v, (int, float))}
    with tempfile.TemporaryDirectory() as work:
        # only the training cases: faster runs
        cases = os.path.join(work, "cases")
        os.mkdir(cases)
        for name in sorted(os.listdir(cases_dir)):
            if name.endswith(".jsonl"):
                with open(os.path.join(cases_dir, name)) as src, open(os.path.join(cases, name), "w") as dst:
                    dst.writelines(l for l in src if '"train_throughput"' in l)
        run = Runner(args[0], cases, work)
        fit = descend(run, dict(base))
        print("all-data fit:", json.dumps(fit))
        groups = sorted({source(r["id"]) for r in run.rows(fit)})
        held = []
        for s in groups:
            f = descend(run, dict(base), skip=s)
            rows = [r for r in run.rows(f) if source(r["id"]) == s]
            held += rows
            med, _ = stats(rows)
            signed = statistics.median(r["error_pct"] for r in rows)
            print(f"held out {s:12s} {len(rows):4d} cases: median |error| {med:5.1f}%, signed {signed:+5.1f}%  fit {json.dumps(f)}")
        med, p90 = stats(held)
        signed = sorted(r["error_pct"] for r in held)
        print(f"LOSO: {len(held)} cases, median {med:.1f}%, p90 {p90:.1f}%, signed p10 {signed[int(0.1 * (len(signed) - 1))]:+.1f}%"
              f" p90 {signed[int(0.9 * (len(signed) - 1))]:+.1f}%")
        if rows_out:
            with open(rows_out, "w") as f:
                json.dump([{"id": r["id"], "error_pct": r["error_pct"]} for r in held], f)


if __name__ == "__main__":
    main()
