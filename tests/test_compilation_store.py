"""The executable store (pujax.compilation_store): keys that change with everything that changes the program,
programs loaded in a later process without compiling, and the same results as plain jax.jit."""
import json
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np

import pujax.compilation as C
from pujax.compilation_store import CallKey, static_text


def _f(x, k, *, scale):
    return jnp.tanh(x) * k + scale


_f.__module__ = "pujax._test_store"  # the store keys only pujax's functions (their source is in the key)


def test_call_key_changes_with_the_program_and_refuses_what_it_cannot_key():
    key = CallKey(_f, (), {"static_argnames": ("k",)})
    x = np.ones(4, np.float32)
    digest, dyn_args, dyn_kwargs = key((x, 2), {"scale": 1.0})
    assert len(dyn_args) == 1 and dyn_args[0] is x and dyn_kwargs == {"scale": 1.0}  # the static k is left out
    assert key((x + 5, 2), {"scale": 3.0})[0] == digest  # values do not matter
    assert key((x.astype(np.float64), 2), {"scale": 1.0})[0] == digest  # float64 is float32 without x64, as in jit
    others = [key((np.ones(5, np.float32), 2), {"scale": 1.0}), key((x, 3), {"scale": 1.0}),
              key((x, 2.0), {"scale": 1.0}), key((x, True), {"scale": 1.0}),
              key((x, 2), {"scale": np.float32(1.0)}),  # not weakly typed
              key((x.astype(np.int32), 2), {"scale": 1.0}), key((x[None], 2), {"scale": 1.0}),
              key((x,), {"k": 2, "scale": 1.0}),  # k by name: another call signature, another entry
              CallKey(_f, (("opt", True),), {"static_argnames": ("k",)})((x, 2), {"scale": 1.0})]
    digests = [o[0] for o in others]
    assert digest not in digests and len(set(digests)) == len(digests)
    assert key((x, {"a": 1}), {"scale": 1.0}) is None  # a static argument that is not a plain value
    assert key((x, 2), {"scale": object()}) is None  # an argument jit would reject
    assert jax.jit(lambda v: jnp.asarray(key((v, 2), {"scale": 1.0}) is None))(x)  # a tracer
    with jax.disable_jit():
        assert key((x, 2), {"scale": 1.0}) is None

    def closure(v):
        return v * digest.count("a")
    closure.__module__ = "pujax._test_store"
    for fun in (closure, lambda v: v, np.tanh, jnp.tanh):
        assert CallKey(fun, (), {})((x,), {}) is None
    outside = CallKey(_f, (), {"static_argnames": ("k",)})
    outside._usable = CallKey(lambda v: v, (), {})._usable  # a function of another package is never keyed
    assert outside((x, 2), {"scale": 1.0}) is None


def test_static_text_of_plain_values_meshes_and_dataclasses():
    import dataclasses

    from pujax.devices import device_mesh

    @dataclasses.dataclass(frozen=True)
    class Cfg:
        a: int
        b: tuple

    assert static_text(Cfg(1, (2.0, "x"))) != static_text(Cfg(1, (2.0, "y")))
    assert static_text((1, 2)) != static_text([1, 2]) != static_text((1.0, 2))
    assert static_text(np.int32(3)) != static_text(np.int64(3)) != static_text(3)
    assert static_text(device_mesh(1)) is not None  # the default device alone: one program, one device
    assert static_text(Cfg(1, (object(),))) is None and static_text(np.ones(2)) is None


def test_stored_program_runs_in_a_new_function_object_without_compiling(tmp_path, monkeypatch):
    """A program compiled and stored by one jit function object is loaded by a fresh one (as in a new process):
    no compilation, the same result; a damaged entry is compiled again and replaced."""
    monkeypatch.setattr(C._store, "directory", str(tmp_path))
    x = np.linspace(-2, 2, 8, dtype=np.float32)
    want = np.asarray(jax.jit(_f, static_argnames=("k",))(x, 3, scale=0.5))
    saved, loaded = C._store.saved, C._store.loaded
    first = C.quick_jit(_f, static_argnames=("k",))
    np.testing.assert_array_equal(first(x, 3, scale=0.5), want)
    np.testing.assert_allclose(first(x + 1, 3, scale=0.5), np.tanh(x + 1.0) * 3 + 0.5, rtol=1e-6)
    entries = sorted(tmp_path.rglob("*.exe"))
    assert len(entries) == 1 and C._store.saved == saved + 1
    with C.count_compilations() as c:
        np.testing.assert_array_equal(C.quick_jit(_f, static_argnames=("k",))(x, 3, scale=0.5), want)
    assert c.count == 0 and C._store.loaded == loaded + 1
    entries[0].write_bytes(b"damaged")
    np.testing.assert_array_equal(C.quick_jit(_f, static_argnames=("k",))(x, 3, scale=0.5), want)
    assert entries[0].stat().st_size > 100 and C._store.saved == saved + 2 and C._store.loaded == loaded + 1
    assert C.jit(_f, static_argnames=("k",))(x, 3, scale=0.5) is not None
    assert len(list(tmp_path.rglob("*.exe"))) == 2  # other compiler options: another program


_FITS = r"""
import json, sys
import numpy as np
from sklearn.datasets import load_breast_cancer
import pujax
from pujax import compilation as C
if sys.argv[1] != "-":
    C.enable_compilation_cache(sys.argv[1])
X, y = load_breast_cancer(return_X_y=True)
rng = np.random.default_rng(0)
s = np.zeros(455, int)
s[rng.choice(np.flatnonzero(y[:455] == 1), 70, replace=False)] = 1
out, counts = {}, {}
for name, kw in [("PUExtraTreesClassifier", {"n_estimators": 20}), ("AdaPUClassifier", {"n_estimators": 20}),
                 ("RESVMClassifier", {"n_estimators": 5}), ("TwoHNC", {"n_neighbors": 5}),
                 ("NNPUClassifier", {"epochs": 3, "model": "linear"})]:
    est = getattr(pujax, name)(prior=0.6, random_state=0, **kw)
    with C.count_compilations() as c:
        est.fit(X[:455], s)
        out[name] = np.asarray(est.decision_function(X[455:])).tolist()
    counts[name] = c.count
print("RESULT", json.dumps({"out": out, "counts": counts, "saved": C._store.saved, "loaded": C._store.loaded}))
"""


def _fits(cache):
    proc = subprocess.run([sys.executable, "-c", _FITS, cache], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "JAX_PLATFORMS": "cpu"})
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and line, proc.stderr[-3000:]
    return json.loads(line[0][len("RESULT "):])


def test_second_process_loads_every_program_and_gets_the_same_models(tmp_path):
    """Fits of PU ET, Ada-PU, RESVM, 2-HNC and nnPU: the second process with the same cache directory loads every
    program the first stored and compiles none of them; with the store's folder deleted (JAX's cache kept: its
    executables cannot be serialised again) a third process stores the programs anew and a fourth loads them;
    decisions are bit for bit those of plain jax.jit."""
    import shutil

    first, second, plain = _fits(str(tmp_path)), _fits(str(tmp_path)), _fits("-")
    assert first["saved"] > 10 and first["loaded"] == 0
    assert second["loaded"] == first["saved"] and second["saved"] == 0
    assert len(list((tmp_path / "pujax-executables").rglob("*.exe"))) == first["saved"]
    assert sum(second["counts"].values()) < sum(first["counts"].values()) // 4, (first["counts"], second["counts"])
    shutil.rmtree(tmp_path / "pujax-executables")
    third, fourth = _fits(str(tmp_path)), _fits(str(tmp_path))
    assert third["saved"] == first["saved"] and fourth["loaded"] == first["saved"] and fourth["saved"] == 0
    for name, values in plain["out"].items():
        assert all(run["out"][name] == values for run in (first, second, third, fourth)), name


_TWO_DEVICES = r"""
import json, sys
import jax
jax.config.update("jax_num_cpu_devices", 2)
import numpy as np
from pujax import compilation as C
from pujax.metrics import roc_auc
from pujax.trees import PUExtraTreesClassifier
C.enable_compilation_cache(sys.argv[1])
rng = np.random.default_rng(0)
X = rng.normal(size=(300, 4)).astype(np.float32)
s = (X[:, 0] + rng.normal(size=300) > 1.2).astype(int)
auc = float(roc_auc(s, X[:, 0]))
loaded = C._store.loaded
with jax.default_device(jax.devices()[1]):  # not keyed: runs on the second device, neither loaded nor stored
    other = roc_auc(s, X[:, 0])
assert other.devices() == {jax.devices()[1]} and C._store.loaded == loaded
p = {k: PUExtraTreesClassifier(n_estimators=10, prior=0.3, random_state=0, devices=k).fit(X, s).predict_proba(X)
     for k in (1, 2)}
print("RESULT", json.dumps({"auc": auc, "other": float(other), "p1": p[1][:, 1].tolist(), "p2": p[2][:, 1].tolist(),
                            "saved": C._store.saved, "loaded": C._store.loaded}))
"""


def test_stored_programs_run_on_the_first_of_several_devices(tmp_path):
    """With two CPU devices, a second process loads the programs the first stored and runs them on the first device
    (a one-device forest and a forest over both devices); calls under jax.default_device(another) are not keyed."""
    runs = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", _TWO_DEVICES, str(tmp_path)], capture_output=True, text=True,
                              timeout=600, env={**os.environ, "JAX_PLATFORMS": "cpu"})
        line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
        assert proc.returncode == 0 and line, proc.stderr[-3000:]
        runs.append(json.loads(line[0][len("RESULT "):]))
    first, second = runs
    # the AUC, the one-device forest's two growth programs and its predict program
    assert first["saved"] >= 4 and first["loaded"] == 0 and second["loaded"] == first["saved"]
    for run in runs:
        assert run["auc"] == run["other"] == first["auc"] and run["p1"] == run["p2"] == first["p1"]


def test_enable_compilation_cache_switches_the_store(tmp_path, monkeypatch):
    monkeypatch.setattr(C._store, "directory", None)
    monkeypatch.setattr(jax.config, "update", lambda *a: None)  # leave the process's JAX cache settings alone
    assert C.enable_compilation_cache(tmp_path, executables=False) == str(tmp_path)
    assert C._store.directory is None
    C.enable_compilation_cache(tmp_path)
    assert C._store.directory == str(tmp_path / "pujax-executables") and os.path.isdir(C._store.directory)


def test_neural_programs_are_named_by_their_whole_configuration():
    """nnPU's programs are closures: the store names them by kind, epochs, minibatches and the configuration with
    the module's fields; a module, activation or loss from outside pujax is never stored."""
    import flax.linen as nn

    from pujax.neural.programs import store_name
    from pujax.neural.train import make_config

    base = make_config("mlp", n_features=5)
    name = store_name("epochs", base, 100, 1)
    assert name is not None
    others = [store_name("epochs", make_config("mlp", n_features=5, learning_rate=1e-4), 100, 1),
              store_name("epochs", make_config("mlp", n_features=5, model_kwargs={"hidden_sizes": (30,)}), 100, 1),
              store_name("epochs", make_config("linear", n_features=5), 100, 1),
              store_name("epochs", base, 99, 1), store_name("epochs", base, 100, 2),
              store_name("epochs_many", base, 100, 1)]
    assert None not in others and len({name, *others}) == len(others) + 1

    class Outside(nn.Module):
        @nn.compact
        def __call__(self, x, train=False, mask=None):
            return nn.Dense(1)(x)[..., 0]

    assert store_name("epochs", make_config(Outside(), n_features=5), 100, 1) is None
    assert store_name("epochs", make_config("mlp", n_features=5, model_kwargs={"activation": jnp.tanh}), 100,
                       1) is None


def test_store_keeps_the_newest_folders_of_other_environments(tmp_path, monkeypatch):
    """Entries live in one folder per environment (pujax's source, JAX versions, device); the first use in a
    process keeps the KEEP_OTHER_ENVIRONMENTS most recently used folders of other environments and removes the
    rest."""
    import time

    from pujax.compilation_store import ExecutableStore

    for i in range(6):  # folders of six earlier environments, the oldest first
        (tmp_path / f"old{i}").mkdir()
        (tmp_path / f"old{i}" / "x.exe").write_bytes(b"entry")
        os.utime(tmp_path / f"old{i}", (time.time() - 1000 + i, time.time() - 1000 + i))
    store = ExecutableStore()
    store.directory = str(tmp_path)
    x = np.ones(3, np.float32)
    monkeypatch.setattr(C, "_store", store)
    np.testing.assert_array_equal(C.jit(_f, static_argnames=("k",))(x, 2, scale=1.0), np.tanh(x) * 2 + 1.0)
    kept = {p.name for p in tmp_path.iterdir()}
    current = kept - {"old3", "old4", "old5"}
    assert store.saved == 1 and len(kept) == 1 + ExecutableStore.KEEP_OTHER_ENVIRONMENTS and len(current) == 1
    assert list((tmp_path / current.pop()).glob("*.exe"))
