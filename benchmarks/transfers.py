"""Host<->device traffic of a warm PU Extra Trees fit (issue 43), counted by the meter of ``tests/_meter.py``.

    python -m benchmarks.transfers [--sets synthetic,breast_cancer,mnist] [--out PATH]

Cases: ``PUExtraTreesClassifier(100, prior=..., random_state=0, devices=1)`` on the 21,000 x 20 synthetic set of
``benchmarks/scaling.py``'s forest case (make_classification(25000, 20, n_informative=10, random_state=0), 1,000
labeled positives + 20,000 unlabeled), the breast-cancer PU set of ``benchmarks/accelerator.py`` (505 x 30) and
MNIST (61,000 x 784, P = 1000, ``benchmarks/trees.py``). One untimed fit first (compilation), then the metered warm
fit; the table gives host->device transfers and MB, device->host reads and MB, and the warm fit's wall time (on a
CPU the "transfers" copy little; the counts are what a GPU would pay a PCIe round trip for).
"""
from __future__ import annotations

import argparse
import sys
import time

from benchmarks._common import REPO, RESULTS, header, load_average


def _cases(names):
    """(name, X, s, estimator factory) per set."""
    from benchmarks.accelerator import _data
    from benchmarks.scaling import _forest
    from benchmarks.trees import load_sets
    from pujax.trees import PUExtraTreesClassifier

    def factory(prior):
        return lambda: PUExtraTreesClassifier(n_estimators=100, prior=prior, random_state=0, devices=1)

    for name in names:
        if name == "synthetic":
            X, s, _, make, _ = _forest(None, 1)
            yield name, X, s, lambda make=make: make(devices=1)
        elif name == "breast_cancer":
            X, s, prior, _, _ = _data()
            yield name, X, s, factory(prior)
        else:
            for set_name, (Xpu, s, prior, *_rest) in load_sets([name]).items():
                yield set_name, Xpu, s, factory(prior)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="synthetic,breast_cancer,mnist")
    parser.add_argument("--out", default=str(RESULTS / "transfers.md"))
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO / "tests"))
    from _meter import transfer_meter

    rows = []
    for name, X, s, make in _cases([x.strip() for x in args.sets.split(",") if x.strip()]):
        make().fit(X, s)
        clf = make()
        with transfer_meter() as m:
            t0 = time.perf_counter()
            clf.fit(X, s)
            warm = time.perf_counter() - t0
        rows.append(f"| {name} | {X.shape[0]:,} x {X.shape[1]} | {m.h2d} | {m.h2d_bytes / 1e6:.2f} | {m.d2h} | "
                    f"{m.d2h_bytes / 1e6:.2f} | {warm:.2f} | {clf.forest_.n_nodes:,} |")
        print(rows[-1], flush=True)
    lines = [header("Host<->device traffic of a warm PU Extra Trees fit"),
             "Protocol: see the docstring of benchmarks/transfers.py.\n",
             "| data | rows x features | host->device transfers | MB | device->host reads | MB | warm fit s | nodes |",
             "|" + " --- |" * 8, *rows, "", f"- load average at end (1/5/15 min): {load_average()}"]
    text = "\n".join(lines) + "\n"
    with open(args.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
