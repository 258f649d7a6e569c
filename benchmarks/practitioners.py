"""Every PU classifier with its defaults on the sets of issue 45 (no silent wrong answers): predicted positive share
and accuracy on unseen rows, and the warnings a fit raises.

Sets: breast cancer (scikit-learn's copy; ``train_test_split(test_size=0.2, random_state=0)``; the 455 training rows
as U, 10 or 50 of their positives as P (``make_case_control(0, ...)``); test share of positives 0.59) and the easy
case-control set of ``tests/test_practitioners.py`` (40 P, 500 U, 30 % positive, 4 features shifted by 2.5; 2,000
test rows). The true prior is passed wherever the estimator takes one; ``random_state=0`` where it has one. The
supervised baselines (NaivePUET, SupervisedET, DecisionStumpClassifier) are left out.

    python -m benchmarks.practitioners [--label after] [--out benchmarks/results/practitioners_after.json]
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time
import warnings

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

SKIP = ("NaivePUET", "SupervisedET", "DecisionStumpClassifier", "FSCPU")


def sets():
    """The sets of the positive-share test (``tests/test_practitioners.py``): breast cancer with 10 and 50 labeled
    positives and the easy case-control set."""
    from test_practitioners import _share_sets

    return _share_sets()


def main(argv=None):
    import pujax

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--label", default="after")
    ap.add_argument("--only", default=None, help="comma list of class names")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    out = pathlib.Path(args.out or ROOT / "benchmarks" / "results" / f"practitioners_{args.label}.json")
    rows = []
    names = sorted(n for n in pujax._ESTIMATORS if isinstance(getattr(pujax, n), type) and n not in SKIP
                   and hasattr(getattr(pujax, n), "predict"))
    if args.only:
        names = [n for n in names if n in args.only.split(",")]
    for name in names:
        cls = getattr(pujax, name)
        for set_name, X, s, prior, Xt, yt in sets():
            params = cls().get_params()
            kw = ({"prior": prior} if "prior" in params else {}) | ({"random_state": 0} if "random_state" in params
                                                                     else {})
            t0 = time.perf_counter()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                est = cls(**kw).fit(X, s)
            pred = est.predict(Xt) == est.classes_[1]
            msgs = sorted({f"{w.category.__name__}: {str(w.message)[:90]}" for w in caught
                           if not issubclass(w.category, (DeprecationWarning, FutureWarning))})
            rows.append(dict(estimator=name, set=set_name, share=float(pred.mean()), truth=float(yt.mean()),
                             accuracy=float(np.mean(pred == (yt == 1))), seconds=time.perf_counter() - t0,
                             warnings=msgs))
            print(f"{name:26s} {set_name:20s} share {pred.mean():.2f} (truth {yt.mean():.2f}) accuracy "
                  f"{np.mean(pred == (yt == 1)):.3f} {msgs}", flush=True)
            out.write_text(json.dumps(dict(label=args.label, rows=rows), indent=1))


if __name__ == "__main__":
    main()
