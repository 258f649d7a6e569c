"""Worker of the multi-process tests: ``python -m tests._workers.multiprocess PID N PORT OUT JOB...``.

Starts one of ``N`` local JAX processes (2 CPU devices each, gloo collectives, coordinator on localhost:PORT), runs
the named jobs with every device of every process, and (process 0) writes the results to ``OUT`` (npz).
A job is a function of this module named ``job_<name>`` returning a dict of arrays; with ``N = 1`` the same jobs
run in one process on its local devices, which is the reference.
"""
from __future__ import annotations

import sys


def _init(pid: int, n: int, port: int, local_devices: int):
    import jax

    jax.config.update("jax_num_cpu_devices", local_devices)
    if n > 1:
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
        jax.distributed.initialize(f"127.0.0.1:{port}", num_processes=n, process_id=pid)
    return jax


def _problem(n=400, d=6, seed=0):
    import numpy as np

    r = np.random.default_rng(seed)
    y = (r.random(n) < 0.4).astype(int)
    X = r.normal(size=(n, d)) + 1.5 * y[:, None] * (np.arange(d) < 3)
    s = ((y == 1) & (r.random(n) < 0.5)).astype(int)
    return X.astype(np.float32), s, y


def job_psum():
    """A row-sharded sum over every device of every process (the mechanism all methods use)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import shard_map
    from jax.sharding import PartitionSpec as P

    from pujax.devices import AXIS, device_mesh, padded_size, shard_rows, to_host

    mesh = device_mesh()
    X, _, _ = _problem()
    n = padded_size(X.shape[0], mesh.size)
    Xp = np.zeros((n, X.shape[1]), np.float32)
    Xp[: X.shape[0]] = X
    f = jax.jit(shard_map(lambda a: jax.lax.psum(jnp.sum(a, axis=0), AXIS), mesh=mesh, in_specs=P(AXIS),
                          out_specs=P()))
    sharded = shard_rows(mesh, Xp)
    return {"colsum": to_host(f(sharded)), "rows": to_host(sharded), "n_devices": np.array(mesh.size)}


def job_adapu():
    """Ada-PU with rows sharded over every device, and on one device (the reference)."""
    import numpy as np

    from pujax import AdaPUClassifier

    X, s, _ = _problem()
    out = {}
    for name, devices in (("all", None), ("one", 1)):
        est = AdaPUClassifier(n_estimators=30, learning_rate=0.5, prior=0.4, random_state=0, devices=devices)
        est.fit(X, s)
        out[f"decision_{name}"] = est.decision_function(X)
        out[f"features_{name}"] = est.features_
    out["n_devices"] = np.array(len(__import__("jax").devices()))
    return out


def job_nnpu():
    """nnPU fit_many with 4 seeds split over every device, and on one device (the reference)."""
    from pujax import NNPUClassifier

    X, s, _ = _problem()
    out = {}
    import jax

    for name, devices in (("all", None), ("one", jax.local_devices()[:1])):
        est = NNPUClassifier("mlp", model_kwargs=dict(hidden_sizes=(16,)), epochs=5, batch_size=100, prior=0.4,
                             n_seeds=4, random_state=0, devices=devices).fit(X, s)
        out[f"scores_{name}"] = est.seed_decision_function(X)
    return out


def job_forest():
    """PU Extra Trees on every device (whole trees per device, the batches exchanged between the processes), on one
    device (the reference), and grown with every level's rows sharded over every device."""
    import jax
    import numpy as np

    from pujax import PUExtraTreesClassifier
    from pujax.trees.binning import fit_bins
    from pujax.trees.builder import grow_forest

    X, s, _ = _problem()
    out = {}
    for name, devices in (("all", None), ("one", jax.local_devices()[:1])):
        est = PUExtraTreesClassifier(n_estimators=4, max_candidates=2, prior=0.4, random_state=0, devices=devices)
        est.fit(X, s)
        out[f"proba_{name}"] = est.predict_proba(X)[:, 1]
        out[f"feature_{name}"] = est.forest_.feature
        out[f"threshold_{name}"] = est.forest_.threshold
    n0, n1 = int((s == 0).sum()), int(s.sum())
    kw = dict(seed=3, risk="nnpu", loss="quadratic", wu=1.0 / n0, rho=0.4 * n0 / n1, sigma=1.0, max_features=2,
              n_thresholds=2, mode="random", max_depth=None, min_samples_split=2)
    binned, rows = fit_bins(X, 256), [np.arange(len(s))] * 3
    for name, devices, spread in (("rows", tuple(jax.devices()), "rows"), ("one", jax.local_devices()[:1], None)):
        f = grow_forest(binned, s.astype(np.uint8), rows, devices=devices, spread=spread, **kw)
        out[f"grown_{name}"] = np.concatenate([f.feature, f.code, f.left, f.c1, f.c0])
    out["n_devices"] = np.array(len(jax.devices()))
    return out


def job_svm():
    """RESVM with its base models split over every device, and on one device (the reference)."""
    import jax

    from pujax import RESVMClassifier

    X, s, _ = _problem()
    out = {}
    for name, devices in (("all", None), ("one", jax.local_devices()[:1])):
        est = RESVMClassifier(n_estimators=8, max_samples=100, prior=0.4, random_state=0, devices=devices)
        out[f"decision_{name}"] = est.fit(X, s).decision_function(X)
    return out


def job_hnc():
    """2-HNC with kNN row blocks and lambda lanes over every device, and on one device (the reference)."""
    import jax

    from pujax import TwoHNC

    X, s, _ = _problem()
    out = {}
    for name, devices in (("all", None), ("one", jax.local_devices()[:1])):
        est = TwoHNC(prior=0.4, n_neighbors=5, feature_weights=None, lambdas=[0.0, 0.05, 0.1, 0.2], n_lanes=4,
                     random_state=0, devices=devices).fit(X, s)
        out[f"labels_{name}"] = est.transductive_labels_
        out[f"predict_{name}"] = est.predict(X[:50])
    return out


def job_prior():
    """Prior bootstraps (BBE and TIcE) with the resamples split over every device, and on one device."""
    import jax
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    from pujax.prior import estimate_prior

    X, s, _ = _problem()
    out = {}
    for name, devices in (("all", None), ("one", jax.local_devices()[:1])):
        for method in ("bbe", "tice"):
            est = estimate_prior(X, s, method, classifier=LogisticRegression(), n_bootstrap=12, random_state=0,
                                 devices=devices)
            out[f"{method}_{name}"] = np.r_[est.prior, est.interval, est.diagnostics["bootstrap_std"]]
    return out


def main(argv):
    pid, n, port, out = int(argv[0]), int(argv[1]), int(argv[2]), argv[3]
    jobs = argv[4:]
    _init(pid, n, port, 2 if n > 1 else 4)
    import numpy as np

    results = {}
    for name in jobs:
        for key, value in globals()[f"job_{name}"]().items():
            results[f"{name}.{key}"] = np.asarray(value)
    if pid == 0:
        np.savez(out, **results)
    import jax

    if n > 1:
        jax.distributed.shutdown()


if __name__ == "__main__":
    main(sys.argv[1:])
