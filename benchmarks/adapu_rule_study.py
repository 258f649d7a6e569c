"""How Ada-PU's label-free β rule was chosen: candidate rules computed from the same held-out fold fits.

Per run (the protocols of ``benchmarks/adapu_auto.py``: breast cancer random and fixed splits with 10 labeled
positives, mushroom and spambase random splits with 100, UNSW-NB15 with 1,000), one vmapped program fits Ada-PU
(100 rounds) for every β of ``LEARNING_RATES`` on the training rows of 5 independent partitions into 2 folds
(10 masks) and of 2 partitions into 5 folds, plus on all rows; the held-out decisions give every candidate rule's
risk without refitting:

* ``mean 0-1, R x F``: the mean over the first R partitions of the held-out unbiased PU 0-1 risk (eq. (6));
  argmin (ties: smaller β);
* ``1-SE small/large``: the smallest / largest β whose mean risk is within one standard error (over the R·F fold
  risks) of the minimum;
* ``linear margin``: the unbiased PU risk with the symmetric loss (1 - m)/2 of the vote margin
  m = F(x) / Σ|α_t| in [-1, 1] (continuous, so less noisy than 0-1).

No rule reads test labels; the test accuracy of each rule's β (of the fit on all rows from the same program) is
what is compared.  ``stability``: the mean rule over every choice of 3 of the 5 partitions (10 subsets) and over
each single partition.  Writes ``benchmarks/results/adapu_rule_study.md``.

    python benchmarks/adapu_rule_study.py [--seeds 10] [--unsw-seeds 2]
"""
from __future__ import annotations

import argparse
import functools
import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._common import header  # noqa: E402
from benchmarks.adapu import breast_cancer_runs, load, unsw_runs  # noqa: E402
from benchmarks.adapu_auto import breast_cancer_random_runs, random_split_runs  # noqa: E402

PARTITIONS = {(2, 5), (5, 2)}  # (folds, partitions) drawn per run


@functools.lru_cache
def _program():
    import jax
    import jax.numpy as jnp

    from pujax.boosting.adapu import _fit_jit, adapu_decision_function

    @functools.partial(jax.jit, static_argnames=("T",))
    def fits(key, X, s, prior, betas, cands, w, masks, Xte, *, T):
        weights = jnp.concatenate([masks, jnp.ones((1,) + masks.shape[1:], masks.dtype)]) * w
        nm, nb = masks.shape[0], betas.shape[0]
        fit = lambda b, ww: _fit_jit(key, X, s, prior, b, False, cands, ww, n_estimators=T,  # noqa: E731
                                     n_thresholds=1, threshold_range="paper")
        models = jax.vmap(fit)(jnp.tile(betas, nm + 1), jnp.repeat(weights, nb, axis=0))
        dec = jax.vmap(adapu_decision_function, in_axes=(0, None))(models, X)
        asum = jnp.sum(jnp.abs(models.alpha), axis=1)
        full = jax.tree_util.tree_map(lambda a: a[nm * nb:], models)
        te = jax.vmap(adapu_decision_function, in_axes=(0, None))(full, Xte)
        return dec[: nm * nb].reshape(nm, nb, -1), asum[: nm * nb].reshape(nm, nb), te

    return fits


def collect(run):
    """Held-out decisions of every (mask, β) fit and the test accuracy of every β (as ``AdaPUClassifier.fit``
    prepares the rows: standardised, deduplicated, padded to the bucket)."""
    from pujax import AdaPUClassifier
    from pujax.boosting.adapu import LEARNING_RATES, _fold_masks, adapu_candidates, deduplicate
    from pujax.compilation import bucket_size, pad_rows
    from pujax.preprocessing import standardize
    from pujax.random import as_key

    est = AdaPUClassifier(prior=run["prior"], random_state=run["seed"])
    X, s, sw, prior = est._validate_fit(run["X"], run["s"], None)
    key = as_key(run["seed"])
    Xd, sd, wd = deduplicate(X, s, sw)
    Xd, sd, wd = pad_rows(bucket_size(Xd.shape[0]), Xd, sd, wd, fill=["first_row", 0, 0])
    Xte = standardize(run["Xte"], est.mean_, est.scale_)
    out = dict(s=np.asarray(sd, float), w=np.asarray(wd, float), prior=prior, draws={})
    for F, R in sorted(PARTITIONS):
        masks = _fold_masks(key, np.asarray(sd), np.asarray(wd), F, Xd, n_repeats=R)
        dec, asum, te = _program()(key, Xd, sd, prior, np.asarray(LEARNING_RATES, np.float32),
                                   adapu_candidates(Xd), wd, masks, Xte, T=100)
        out["draws"][(F, R)] = (masks, np.asarray(dec), np.asarray(asum))
        out["acc"] = np.mean((np.asarray(te) > 0) == (run["yte"][None] == 1), axis=1)
    return out


def fold_risks(r, FR, loss="01"):
    """Held-out unbiased PU risks ``(n_masks, n_betas)`` with the 0-1 loss or the linear margin loss."""
    masks, dec, asum = r["draws"][FR]
    held = r["w"][None] * (1.0 - masks)
    wp, wu = held * r["s"], held * (1.0 - r["s"])
    if loss == "01":
        v = (dec > 0).astype(float)  # P(ŷ = +1) per row
    else:  # linear loss of the margin: l(m, +1) = (1 - m)/2, l(m, -1) = (1 + m)/2
        v = (1.0 + dec / np.maximum(asum, 1e-30)[..., None]) / 2.0
    pp = np.einsum("mbn,mn->mb", v, wp) / wp.sum(axis=1)[:, None]
    pu = np.einsum("mbn,mn->mb", v, wu) / wu.sum(axis=1)[:, None]
    return r["prior"] * (1.0 - pp) + pu - r["prior"] * pp


def choose(R, rule):
    mu = R.mean(axis=0)
    b = int(np.argmin(mu))
    if rule == "min":
        return b
    ok = np.flatnonzero(mu <= mu[b] + R.std(axis=0, ddof=1)[b] / np.sqrt(len(R)))
    return int(ok[0] if rule == "1se_small" else ok[-1])


RULES = [(f"mean 0-1, {r} x 2 folds", (2, 5), "01", "min", r) for r in (1, 2, 3, 5)]
RULES += [(f"1-SE {side}, 0-1, {r} x 2 folds", (2, 5), "01", f"1se_{side}", r)
          for r in (1, 3, 5) for side in ("small", "large")]
RULES += [(f"mean 0-1, {r} x 5 folds", (5, 2), "01", "min", r) for r in (1, 2)]
RULES += [(f"linear margin, {r} x 2 folds", (2, 5), "lin", "min", r) for r in (1, 3)]


def rule_table(data):
    names = list(data)
    lines = ["| rule | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    best = [np.max(np.mean([r["acc"] for r in runs], axis=0)) for runs in data.values()]
    lines.append("| best single β (chosen on the test rows) | " + " | ".join(f"{100 * b:.2f}" for b in best) + " |")
    for label, FR, loss, rule, reps in RULES:
        cells = []
        for runs in data.values():
            F = FR[0]
            ch = [choose(fold_risks(r, FR, loss)[: reps * F], rule) for r in runs]
            cells.append(f"{100 * np.mean([r['acc'][c] for r, c in zip(runs, ch)]):.2f} "
                         f"[{''.join(str(c) for c in ch)}]")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def stability(data):
    lines = ["| set | 3 of 5 partitions (10 subsets): mean / min / max | 1 partition (5): mean / min / max |",
             "|---|---|---|"]
    for name, runs in data.items():
        Rs = [fold_risks(r, (2, 5)) for r in runs]

        def acc(parts):
            idx = [2 * p + f for p in parts for f in range(2)]
            return 100 * np.mean([r["acc"][int(np.argmin(R[idx].mean(axis=0)))] for r, R in zip(runs, Rs)])

        three = [acc(sub) for sub in itertools.combinations(range(5), 3)]
        one = [acc((p,)) for p in range(5)]
        lines.append(f"| {name} | {np.mean(three):.2f} / {np.min(three):.2f} / {np.max(three):.2f} | "
                     f"{np.mean(one):.2f} / {np.min(one):.2f} / {np.max(one):.2f} |")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=10, help="random splits of breast cancer, mushroom, spambase")
    ap.add_argument("--unsw-seeds", type=int, default=2)
    args = ap.parse_args()
    sets = {"breast cancer (P=10)": lambda: breast_cancer_random_runs(args.seeds),
            "breast cancer fixed split (P=10)": lambda: breast_cancer_runs(5)[0],
            "mushroom (P=100)": lambda: random_split_runs(*load("mushroom"), args.seeds, 100),
            "spambase (P=100)": lambda: random_split_runs(*load("spambase"), args.seeds, 100)}
    if args.unsw_seeds:
        sets["UNSW-NB15 (P=1000)"] = lambda: unsw_runs(args.unsw_seeds)[0]
    data = {}
    for name, make in sets.items():
        t = time.perf_counter()
        data[name] = [collect(r) for r in make()]
        print(f"{name}: {len(data[name])} runs, {time.perf_counter() - t:.0f} s", flush=True)
    lines = header("Ada-PU: choosing the label-free β rule (held-out fold fits, no test labels)").splitlines()
    lines += ["", "Accuracy % on the test rows (mean over runs) of the β each rule picks; in brackets the index of the "
              "chosen β per run in LEARNING_RATES = (0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1).", ""]
    lines += rule_table(data) + ["", "## Stability of the mean 0-1 rule over which partitions are drawn", ""]
    lines += stability(data)
    out = Path(__file__).resolve().parent / "results" / "adapu_rule_study.md"
    out.write_text("\n".join(lines) + "\n")
    print(out.read_text())


if __name__ == "__main__":
    main()
