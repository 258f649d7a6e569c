"""Every public estimator on an accelerator and on the CPU: do they fit, agree, and how long do they take?

``run`` mode fits every public pujax estimator (its defaults, ``random_state=0``, the true prior where it takes one)
on the breast-cancer PU set of ``python -m pujax`` (the 80 % training split, 455 rows x 30, as U plus 50 labeled
positives, 505 rows; 114 test rows) on the default JAX backend of the process, and writes a JSON file with, per
estimator, the first fit (compilation included), a warm refit, the first predict, the test accuracy, the predicted
labels and the scores (``decision_function`` or ``predict_proba[:, 1]``; FSCPU: the selected features).
``compare`` mode reads two such files (e.g. one made with ``JAX_PLATFORMS=cpu`` and one on a GPU) and writes a
markdown table: label agreement, the largest score difference relative to the score range, both accuracies and
both fit times.

    JAX_PLATFORMS=cpu python -m benchmarks.accelerator run --json cpu.json
    python -m benchmarks.accelerator run --json gpu.json            # on a GPU machine
    python -m benchmarks.accelerator compare cpu.json gpu.json --out accelerator.md
"""
from __future__ import annotations

import argparse
import inspect
import json
import pathlib
import sys
import time
import traceback

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._common import RESULTS, header  # noqa: E402


def _data():
    from sklearn.model_selection import train_test_split

    from pujax.data import make_case_control
    from pujax.datasets import load

    X, y = load("breast_cancer")
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)
    X_pu, s, prior = make_case_control(0, X_tr, y_tr, 50)
    return np.asarray(X_pu), np.asarray(s), float(prior), np.asarray(X_te), np.asarray(y_te)


def _estimator_classes(names):
    from sklearn.base import BaseEstimator

    import pujax

    out = []
    for name in sorted(pujax._ESTIMATORS):
        obj = getattr(pujax, name)
        if isinstance(obj, type) and issubclass(obj, BaseEstimator) and (not names or name in names):
            out.append(obj)
    return sorted(out, key=lambda cls: (hasattr(cls, "get_support"), cls.__name__))  # classifiers first


def _scores(est, X):
    if hasattr(est, "decision_function"):
        return np.asarray(est.decision_function(X), float)
    return np.asarray(est.predict_proba(X), float)[:, 1]


def run(json_path: str, names: list[str]) -> None:
    import jax

    from pujax.compilation import count_compilations

    dev = jax.devices()[0]
    X, s, prior, X_te, y_te = _data()
    result = {"backend": f"{dev.platform} ({getattr(dev, 'device_kind', '')})", "jax": jax.__version__,
              "estimators": {}}
    for cls in _estimator_classes(names):
        name = cls.__name__
        params = inspect.signature(cls).parameters
        kwargs = {"random_state": 0} if "random_state" in params else {}
        if "prior" in params:
            kwargs["prior"] = prior
        rec = {}
        try:
            est = cls(**kwargs)
            with count_compilations() as c:
                t0 = time.perf_counter()
                est.fit(X, s)
                rec["first_fit"] = time.perf_counter() - t0
            rec["compilations"] = c.count
            t0 = time.perf_counter()
            est.fit(X, s)
            rec["warm_fit"] = time.perf_counter() - t0
            if hasattr(est, "get_support"):  # a feature selector
                rec["support"] = np.flatnonzero(est.get_support()).tolist()
            else:
                t0 = time.perf_counter()
                pred = np.asarray(est.predict(X_te))
                rec["predict"] = time.perf_counter() - t0
                rec["accuracy"] = float(np.mean(pred == y_te))
                rec["labels"] = pred.astype(int).tolist()
                rec["scores"] = _scores(est, X_te).tolist()
        except Exception as exc:  # report, go on with the next estimator
            rec["error"] = f"{type(exc).__name__}: {exc}"[:300]
            traceback.print_exc()
        result["estimators"][name] = rec
        print(name, {k: v for k, v in rec.items() if k not in ("labels", "scores")}, flush=True)
        pathlib.Path(json_path).write_text(json.dumps(result))


def compare(a_path: str, b_path: str, out: str) -> str:
    a, b = (json.loads(pathlib.Path(p).read_text()) for p in (a_path, b_path))
    lines = [header(f"pujax estimators on {b['backend']} vs {a['backend']} (breast-cancer PU set, 505 x 30)"),
             f"- A: {a['backend']}, JAX {a['jax']}; B: {b['backend']}, JAX {b['jax']}",
             "- defaults, random_state=0, the true prior where the estimator takes one; label agreement on the 114 "
             "test rows; score difference = max |score_A - score_B| / (max - min of score_A)\n",
             "| estimator | label agreement | score difference | accuracy A | accuracy B | first fit A s | "
             "first fit B s | warm fit A s | warm fit B s |", "|---|---|---|---|---|---|---|---|---|"]
    for name in sorted(set(a["estimators"]) | set(b["estimators"])):
        ra, rb = a["estimators"].get(name, {}), b["estimators"].get(name, {})
        if "error" in ra or "error" in rb or not ra or not rb:
            lines.append(f"| {name} | error: A {ra.get('error', 'ok')}; B {rb.get('error', 'ok')} | | | | | | | |")
            continue
        if "support" in ra:
            agree = f"{len(set(ra['support']) & set(rb['support']))} of {len(ra['support'])} features shared"
            diff, acc_a, acc_b = "", "", ""
        else:
            agree = f"{100 * np.mean(np.asarray(ra['labels']) == np.asarray(rb['labels'])):.1f} %"
            sa, sb = np.asarray(ra["scores"]), np.asarray(rb["scores"])
            span = max(float(np.ptp(sa)), 1e-12)
            diff = f"{float(np.max(np.abs(sa - sb))) / span:.1e}"
            acc_a, acc_b = f"{100 * ra['accuracy']:.2f}", f"{100 * rb['accuracy']:.2f}"
        lines.append(f"| {name} | {agree} | {diff} | {acc_a} | {acc_b} | {ra['first_fit']:.2f} | "
                     f"{rb['first_fit']:.2f} | {ra['warm_fit']:.3f} | {rb['warm_fit']:.3f} |")
    text = "\n".join(lines) + "\n"
    path = RESULTS / out if "/" not in out else pathlib.Path(out)
    path.write_text(text)
    print(text)
    return text


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    p_run = sub.add_parser("run")
    p_run.add_argument("--json", required=True)
    p_run.add_argument("--estimators", nargs="*", default=[])
    p_cmp = sub.add_parser("compare")
    p_cmp.add_argument("a")
    p_cmp.add_argument("b")
    p_cmp.add_argument("--out", default="accelerator.md")
    args = parser.parse_args(argv)
    if args.mode == "run":
        run(args.json, args.estimators)
    else:
        compare(args.a, args.b, args.out)


if __name__ == "__main__":
    main()
