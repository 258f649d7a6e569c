"""The compilation package (pujax._compile): the private JAX it reads fails loudly when JAX changes; the role table
maps role x backend x rows to options, with the option sets this XLA knows; pujax's jit equals jax.jit, inlines
inside traces and switches options by the declared rows; the executable store keys calls by everything that
changes the program and lets a later process run them without compiling."""
import dataclasses
import json
import os
import subprocess
import sys
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import pujax._compile as C
from pujax._compile import jax_internals, roles
from pujax._compile.store import STORE, CallKey, ExecutableStore, static_text


def _f(x, k, *, scale):
    return jnp.tanh(x) * k + scale


_f.__module__ = "pujax._test_store"  # the store keys only pujax's functions (their source is in the key)


def _version(v):
    return tuple(int(p) for p in v.split(".")[:2])


# ----------------------------------------------------------------------------------------------- JAX internals


def test_inside_trace_tells_top_level_from_every_kind_of_trace():
    seen = []

    def probe(x):
        seen.append(jax_internals.inside_trace())
        return x

    assert not jax_internals.inside_trace()
    x = jnp.ones(4)
    jax.jit(probe)(x)
    jax.vmap(probe)(x)
    jax.grad(lambda v: probe(v).sum())(x)
    jax.eval_shape(lambda v: probe(v) + 1, x)  # (probe alone: the trace jit cached)
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]), ("i",))
    jax.shard_map(probe, mesh=mesh, in_specs=jax.sharding.PartitionSpec(), out_specs=jax.sharding.PartitionSpec())(x)
    assert seen == [True] * 5 and not jax_internals.inside_trace()


def test_trace_context_changes_with_tracing_configuration_only():
    a, b = jax_internals.trace_context(), jax_internals.trace_context()
    assert a == b and " at 0x" not in a
    with jax.default_matmul_precision("highest"):
        c = jax_internals.trace_context()
    assert c != a and jax_internals.trace_context() == a


def test_a_changed_jax_internal_fails_loudly(monkeypatch):
    from jax._src import core

    monkeypatch.delattr(core, "trace_state_clean")
    with pytest.raises(jax_internals.JaxInternalsChanged, match="trace_state_clean"):
        jax_internals.inside_trace()


# ---------------------------------------------------------------------------------------------------- roles


def test_role_table_gives_options_by_backend_and_rows():
    """On XLA:CPU the roles get their option sets (the classic emitters only where this XLA has them: jaxlib up to
    0.10); on GPU / TPU none; the size switch at the role's limit."""
    import jaxlib

    classic = _version(jaxlib.__version__) < (0, 11)
    assert roles.supported("classic_emitters") == classic  # a new XLA that drops / adds it fails here
    assert roles.supported("no_llvm_optimisation")
    emit = (("xla_cpu_use_fusion_emitters", False),) if classic else ()
    no_opt = (("xla_backend_optimization_level", 0),)
    R = roles.ROLES
    assert roles.compiler_options(R["kernel"], "cpu") == emit
    assert roles.compiler_options(R["heavy"], "cpu") == ()
    assert roles.compiler_options(R["setup"], "cpu") == no_opt
    limit = R["metric"].limit
    assert roles.compiler_options(R["metric"], "cpu", limit) == tuple(sorted(emit + no_opt))
    assert roles.compiler_options(R["metric"], "cpu", limit + 1) == emit
    assert roles.compiler_options(R["pass"], "cpu", R["pass"].limit) == emit
    assert roles.compiler_options(R["pass"], "cpu", R["pass"].limit + 1) == ()
    for name in R:
        assert roles.compiler_options(R[name], "gpu", 10) == roles.compiler_options(R[name], "tpu", 10**9) == ()


def test_jit_declares_a_known_role_and_its_rows():
    with pytest.raises(ValueError, match="unknown role 'fast'"):
        C.jit("fast", lambda x: x)
    with pytest.raises(ValueError, match="name the argument that holds the rows"):
        C.jit("metric", lambda x: x)
    with pytest.raises(ValueError, match="rows='y' is not an argument"):
        C.jit("metric", lambda x: x, rows="y")


def test_jit_equals_jax_jit_and_inlines_inside_traces():
    def f(x, *, k):
        return jnp.tanh(x) * k + jnp.log1p(jnp.abs(x))

    plain = jax.jit(f, static_argnames=("k",))
    x = np.linspace(-3, 3, 7, dtype=np.float32)
    for role in ("kernel", "heavy", "setup"):
        fn = partial(C.jit, role, static_argnames=("k",))(f)
        np.testing.assert_allclose(fn(x, k=2), plain(x, k=2), rtol=1e-6)
        np.testing.assert_allclose(jax.jit(lambda v: fn(v, k=3))(x), plain(x, k=3), rtol=1e-6)  # no options nested
        np.testing.assert_allclose(jax.vmap(partial(fn, k=2))(x[:, None])[:, 0], plain(x, k=2), rtol=1e-6)
        np.testing.assert_allclose(jax.grad(lambda v: fn(v, k=2).sum())(x), jax.grad(lambda v: plain(v, k=2).sum())(x),
                                   rtol=1e-6)
        assert fn.__name__ == "f" and fn.role == role and "tanh" in fn.lower(x, k=2).as_text()
        assert fn.lower(x, k=2).compile() is not None  # lower() carries the role's options to compile()


def test_sized_roles_switch_options_at_the_declared_rows(monkeypatch):
    """A "metric" program compiles calls with at most `limit` rows in its rows argument with the small options and
    larger ones with the large options, whichever argument is largest."""
    monkeypatch.setitem(roles.ROLES, "metric", dataclasses.replace(roles.ROLES["metric"], limit=100))
    f = C.jit("metric", lambda w, v: w.sum() * v.sum(), rows="v")
    small, large = f.options(np.ones(3), np.ones(100)), f.options(np.ones(3), np.ones(101))
    assert small != large and ("xla_backend_optimization_level", 0) in small
    np.testing.assert_allclose(f(np.ones(1000, np.float32), np.ones(100, np.float32)), 100_000.0)
    assert f._jit(small)._cache_size() == 1 and f._jit(large)._cache_size() == 0
    np.testing.assert_allclose(f(np.ones(3, np.float32), v=np.ones(101, np.float32)), 303.0)
    assert f._jit(large)._cache_size() == 1
    np.testing.assert_allclose(jax.jit(f)(np.ones(3, np.float32), np.ones(300, np.float32)), 900.0)


def test_metrics_and_draws_give_the_same_bits_from_small_and_large_programs():
    """The metrics and the case-control draw ("metric" programs) give the same results from the program of small
    inputs and the one of large inputs (draws and sums bit for bit; a formula such as pu_accuracy's
    1 - pi - q + 2 pi R may round its last bit differently)."""
    import pujax.metrics.classification as mc
    import pujax.metrics.pu as mp
    from pujax.data import splits

    rng = np.random.default_rng(0)
    n = 300
    t, p = (rng.random(n) < 0.4).astype(np.float32), (rng.random(n) < 0.5).astype(np.float32)
    x, w = rng.normal(size=n).astype(np.float32), rng.random(n).astype(np.float32)
    x[::7] = x[0]  # ties
    prior = np.float32(0.3)
    calls = [(mc._counts, (t, p, w), {}), (mc._accuracy, (t, p, w), {}), (mc._precision, (t, p, w), {}),
             (mc._recall, (t, p, w), {}), (mc._f1, (t, p, w), {}), (mc._balanced_accuracy, (t, p, w), {}),
             (mc._roc_auc, (t, x, w), {}), (mc._average_precision, (t, x, w), {}), (mc._mann_whitney, (x, t, w), {}),
             (mp._rates, (t, p, w), {}), (mp._lee_liu, (t, p, w), {}), (mp._zero_one, (t, p, w, prior), {}),
             (mp._corrected_auc, (t, x, w, prior), {}), (mp._lift_auc, (t, x, w), {"scenario": "censoring"})]
    calls += [(mp._population_metric, (t, p, w, prior), {"scenario": sc, "metric": m})
              for sc in ("case-control", "censoring") for m in mp._FORMULAS]
    calls += [(splits._draw, (jax.random.key_data(jax.random.PRNGKey(1)), np.arange(n, dtype=np.int32)),
               {"k": 90, "replace": r}) for r in (False, True)]
    metric = roles.ROLES["metric"]
    small_options = roles.compiler_options(metric, "cpu", 1)
    large_options = roles.compiler_options(metric, "cpu", metric.limit + 1)
    for fn, args, kwargs in calls:
        assert fn.role == "metric", fn
        small, large = fn._jit(small_options)(*args, **kwargs), fn._jit(large_options)(*args, **kwargs)
        for a, b in zip(jax.tree.leaves(small), jax.tree.leaves(large)):
            a, b = np.asarray(a), np.asarray(b)
            if np.issubdtype(a.dtype, np.floating):
                np.testing.assert_array_max_ulp(a, b, maxulp=1)
            else:
                np.testing.assert_array_equal(a, b)


_PROBE = r"""
import numpy as np
import pujax._compile as C
f = C.jit("kernel", lambda v: v * 2.0)
with C.count_compilations() as c:
    f(np.ones(3, np.float32))
print("COUNT", c.count)
"""


def test_probing_the_options_of_this_xla_is_not_counted():
    proc = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("COUNT ")]
    assert proc.returncode == 0 and line == ["COUNT 1"], (proc.stdout, proc.stderr[-2000:])


# ------------------------------------------------------------------------------------------- executable store


def test_call_key_changes_with_the_program_and_refuses_what_it_cannot_key():
    key = CallKey(_f, {"static_argnames": ("k",)})
    x = np.ones(4, np.float32)
    digest, dyn_args, dyn_kwargs = key((), (x, 2), {"scale": 1.0})
    assert len(dyn_args) == 1 and dyn_args[0] is x and dyn_kwargs == {"scale": 1.0}  # the static k is left out
    assert key((), (x + 5, 2), {"scale": 3.0})[0] == digest  # values do not matter
    assert key((), (x.astype(np.float64), 2), {"scale": 1.0})[0] == digest  # float64 is float32 without x64
    others = [key((), (np.ones(5, np.float32), 2), {"scale": 1.0}), key((), (x, 3), {"scale": 1.0}),
              key((), (x, 2.0), {"scale": 1.0}), key((), (x, True), {"scale": 1.0}),
              key((), (x, 2), {"scale": np.float32(1.0)}),  # not weakly typed
              key((), (x.astype(np.int32), 2), {"scale": 1.0}), key((), (x[None], 2), {"scale": 1.0}),
              key((), (x,), {"k": 2, "scale": 1.0}),  # k by name: another call signature, another entry
              key((("opt", True),), (x, 2), {"scale": 1.0})]  # other compiler options
    with jax.default_matmul_precision("highest"):
        others.append(key((), (x, 2), {"scale": 1.0}))
    digests = [o[0] for o in others]
    assert digest not in digests and len(set(digests)) == len(digests)
    assert key((), (x, {"a": 1}), {"scale": 1.0}) is None  # a static argument that is not a plain value
    assert key((), (x, 2), {"scale": object()}) is None  # an argument jit would reject
    assert jax.jit(lambda v: jnp.asarray(key((), (v, 2), {"scale": 1.0}) is None))(x)  # a tracer
    with jax.disable_jit():
        assert key((), (x, 2), {"scale": 1.0}) is None

    def closure(v):
        return v * digest.count("a")
    closure.__module__ = "pujax._test_store"
    for fun in (closure, lambda v: v, np.tanh, jnp.tanh):
        assert CallKey(fun, {})((), (x,), {}) is None
    assert CallKey(closure, {}, name="named closure")((), (x,), {}) is not None


def test_static_text_of_plain_values_meshes_and_dataclasses():
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
    """A program compiled and stored by one jit function object is loaded by a fresh one (as in a new process): no
    compilation, the same result; a damaged entry is compiled again and replaced."""
    monkeypatch.setattr(STORE, "directory", str(tmp_path))
    x = np.linspace(-2, 2, 8, dtype=np.float32)
    want = np.asarray(jax.jit(_f, static_argnames=("k",))(x, 3, scale=0.5))
    saved, loaded = STORE.saved, STORE.loaded
    make = partial(C.jit, "kernel", static_argnames=("k",))
    first = make(_f)
    np.testing.assert_array_equal(first(x, 3, scale=0.5), want)
    np.testing.assert_allclose(first(x + 1, 3, scale=0.5), np.tanh(x + 1.0) * 3 + 0.5, rtol=1e-6)
    entries = sorted(tmp_path.rglob("*.exe"))
    assert len(entries) == 1 and STORE.saved == saved + 1
    with C.count_compilations() as c:
        np.testing.assert_array_equal(make(_f)(x, 3, scale=0.5), want)
    assert c.count == 0 and STORE.loaded == loaded + 1
    entries[0].write_bytes(b"damaged")
    np.testing.assert_array_equal(make(_f)(x, 3, scale=0.5), want)
    assert entries[0].stat().st_size > 100 and STORE.saved == saved + 2 and STORE.loaded == loaded + 1
    assert C.jit("setup", _f, static_argnames=("k",))(x, 3, scale=0.5) is not None
    assert len(list(tmp_path.rglob("*.exe"))) == 2  # other compiler options: another program


_FITS = r"""
import json, sys
import numpy as np
from sklearn.datasets import load_breast_cancer
import pujax
from pujax import compilation
from pujax._compile.store import STORE
if sys.argv[1] != "-":
    compilation.enable_compilation_cache(sys.argv[1])
X, y = load_breast_cancer(return_X_y=True)
rng = np.random.default_rng(0)
s = np.zeros(455, int)
s[rng.choice(np.flatnonzero(y[:455] == 1), 70, replace=False)] = 1
out, counts = {}, {}
for name, kw in [("PUExtraTreesClassifier", {"n_estimators": 20}), ("AdaPUClassifier", {"n_estimators": 20}),
                 ("RESVMClassifier", {"n_estimators": 5}), ("TwoHNC", {"n_neighbors": 5}),
                 ("NNPUClassifier", {"epochs": 3, "model": "linear"})]:
    est = getattr(pujax, name)(prior=0.6, random_state=0, **kw)
    with compilation.count_compilations() as c:
        est.fit(X[:455], s)
        out[name] = np.asarray(est.decision_function(X[455:])).tolist()
    counts[name] = c.count
print("RESULT", json.dumps({"out": out, "counts": counts, "saved": STORE.saved, "loaded": STORE.loaded}))
"""


def _run(script, *args):
    proc = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "JAX_PLATFORMS": "cpu"})
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and line, proc.stderr[-3000:]
    return json.loads(line[0][len("RESULT "):])


def test_second_process_loads_every_program_and_gets_the_same_models(tmp_path):
    """Fits of PU ET, Ada-PU, RESVM, 2-HNC and nnPU: the second process with the same cache directory loads every
    program the first stored and compiles none of them; with the store's folder deleted (JAX's cache kept) a third
    process stores the programs anew and a fourth loads them; decisions are bit for bit those of plain jax.jit."""
    import shutil

    first, second, plain = _run(_FITS, str(tmp_path)), _run(_FITS, str(tmp_path)), _run(_FITS, "-")
    assert first["saved"] > 10 and first["loaded"] == 0
    assert second["loaded"] == first["saved"] and second["saved"] == 0
    assert len(list((tmp_path / "pujax-executables").rglob("*.exe"))) == first["saved"]
    assert sum(second["counts"].values()) < sum(first["counts"].values()) // 4, (first["counts"], second["counts"])
    shutil.rmtree(tmp_path / "pujax-executables")
    third, fourth = _run(_FITS, str(tmp_path)), _run(_FITS, str(tmp_path))
    assert third["saved"] == first["saved"] and fourth["loaded"] == first["saved"] and fourth["saved"] == 0
    for name, values in plain["out"].items():
        assert all(run["out"][name] == values for run in (first, second, third, fourth)), name


_DAMAGED = r"""
import json, sys
import numpy as np
import jax.numpy as jnp
from pujax import compilation
from pujax._compile import jit
from pujax._compile.store import STORE

def f(x):
    return jnp.tanh(x) * 3.0

f.__module__ = "pujax._test_store"
compilation.enable_compilation_cache(sys.argv[1])
y = jit("kernel", f)(np.linspace(-1, 1, 5, dtype=np.float32))
print("RESULT", json.dumps({"y": np.asarray(y).tolist(), "saved": STORE.saved, "loaded": STORE.loaded}))
"""


def test_an_entry_lost_after_jaxs_cache_kept_its_program_is_stored_again_by_the_next_process(tmp_path):
    """JAX's persistent cache keeps the program of a damaged entry: the process that finds the damage runs JAX's
    cached program without storing it (it cannot be serialised again) and gives the folder a new salt; the next
    process compiles under the new name and stores it; the one after loads it."""
    first = _run(_DAMAGED, str(tmp_path))
    (entry,) = (tmp_path / "pujax-executables").rglob("*.exe")
    salt = (entry.parent / "salt").read_text()
    entry.write_bytes(b"damaged")
    runs = [_run(_DAMAGED, str(tmp_path)) for _ in range(3)]
    assert [(r["saved"], r["loaded"]) for r in [first] + runs] == [(1, 0), (0, 0), (1, 0), (0, 1)]
    assert (entry.parent / "salt").read_text() != salt and all(r["y"] == first["y"] for r in runs)


_TWO_DEVICES = r"""
import json, sys
import jax
jax.config.update("jax_num_cpu_devices", 2)
import numpy as np
from pujax import compilation
from pujax._compile.store import STORE
from pujax.metrics import roc_auc
from pujax.trees import PUExtraTreesClassifier
compilation.enable_compilation_cache(sys.argv[1])
rng = np.random.default_rng(0)
X = rng.normal(size=(300, 4)).astype(np.float32)
s = (X[:, 0] + rng.normal(size=300) > 1.2).astype(int)
auc = float(roc_auc(s, X[:, 0]))
loaded = STORE.loaded
with jax.default_device(jax.devices()[1]):  # not keyed: runs on the second device, neither loaded nor stored
    other = roc_auc(s, X[:, 0])
assert other.devices() == {jax.devices()[1]} and STORE.loaded == loaded
p = {k: PUExtraTreesClassifier(n_estimators=10, prior=0.3, random_state=0, devices=k).fit(X, s).predict_proba(X)
     for k in (1, 2)}
print("RESULT", json.dumps({"auc": auc, "other": float(other), "p1": p[1][:, 1].tolist(), "p2": p[2][:, 1].tolist(),
                            "saved": STORE.saved, "loaded": STORE.loaded}))
"""


def test_stored_programs_run_on_the_first_of_several_devices(tmp_path):
    """With two CPU devices, a second process loads the programs the first stored and runs them on the first device
    (a one-device forest and a forest over both devices); calls under jax.default_device(another) are not keyed."""
    first, second = _run(_TWO_DEVICES, str(tmp_path)), _run(_TWO_DEVICES, str(tmp_path))
    # the AUC, the one-device forest's growth programs (init, grow) and its predict program
    assert first["saved"] >= 4 and first["loaded"] == 0 and second["loaded"] == first["saved"]
    for run in (first, second):
        assert run["auc"] == run["other"] == first["auc"] and run["p1"] == run["p2"] == first["p1"]


def test_enable_compilation_cache_switches_the_store(tmp_path, monkeypatch):
    from pujax.compilation import enable_compilation_cache

    monkeypatch.setattr(STORE, "directory", None)
    monkeypatch.setattr(jax.config, "update", lambda *a: None)  # leave the process's JAX cache settings alone
    assert enable_compilation_cache(tmp_path, executables=False) == str(tmp_path)
    assert STORE.directory is None
    enable_compilation_cache(tmp_path)
    assert STORE.directory == str(tmp_path / "pujax-executables") and os.path.isdir(STORE.directory)


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

    import pujax._compile.program as program

    for i in range(6):  # folders of six earlier environments, the oldest first
        (tmp_path / f"old{i}").mkdir()
        (tmp_path / f"old{i}" / "x.exe").write_bytes(b"entry")
        os.utime(tmp_path / f"old{i}", (time.time() - 1000 + i, time.time() - 1000 + i))
    store = ExecutableStore()
    store.directory = str(tmp_path)
    x = np.ones(3, np.float32)
    monkeypatch.setattr(program, "STORE", store)
    np.testing.assert_array_equal(C.jit("heavy", _f, static_argnames=("k",))(x, 2, scale=1.0), np.tanh(x) * 2 + 1.0)
    kept = {p.name for p in tmp_path.iterdir()}
    current = kept - {"old3", "old4", "old5"}
    assert store.saved == 1 and len(kept) == 1 + ExecutableStore.KEEP_OTHER_ENVIRONMENTS and len(current) == 1
    assert list((tmp_path / current.pop()).glob("*.exe"))
