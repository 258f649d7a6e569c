"""Helpers shared by the benchmark scripts: machine description, data folder, timing."""
from __future__ import annotations

import datetime
import os
import pathlib
import platform
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"


def machine() -> str:
    """CPU model, core count and JAX backend, for the header of a results table."""
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        import jax

        dev = jax.devices()[0]
        backend = f"{dev.platform} ({getattr(dev, 'device_kind', '')})"
        jv = jax.__version__
    except Exception:  # pragma: no cover
        backend, jv = "unavailable", "?"
    return f"{cpu}, {os.cpu_count()} cores, JAX {jv} on {backend}, Python {platform.python_version()}"


def data_dir() -> pathlib.Path:
    """The real-data folder: ``$PUJAX_DATA`` or ``../shared/data`` next to the repository."""
    return pathlib.Path(os.environ.get("PUJAX_DATA", REPO.parent / "shared" / "data"))


def header(title: str) -> str:
    """Markdown header block with machine, command and date."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    prog = f"-m {spec.name}" if spec is not None and spec.name else pathlib.Path(sys.argv[0]).name
    cmd = "python " + " ".join([prog] + sys.argv[1:])
    today = datetime.date.today().isoformat()
    return (f"# {title}\n\n- machine: {machine()}\n- command: `{cmd}`\n- date: {today}\n"
            f"- load average at start (1/5/15 min): {load_average()}\n")


def load_average() -> str:
    """The host's load average, so a reader can tell whether timings were taken on a busy machine."""
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - not available on every platform
        return "unavailable"


def _cpu_ticks():
    """(total, steal) CPU ticks of the host since boot from /proc/stat, or None where unavailable."""
    try:
        with open("/proc/stat") as f:
            vals = [int(x) for x in f.readline().split()[1:9]]
        return sum(vals), vals[7]
    except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux
        return None


_TICKS_AT_IMPORT = _cpu_ticks()


def steal_since_start() -> str:
    """Share of CPU time the hypervisor gave to other guests since the benchmark started ("steal").

    On a shared virtual machine this is what makes the same run 20-50 % slower from one hour to the next; a
    results table states it next to the load average.
    """
    now = _cpu_ticks()
    if now is None or _TICKS_AT_IMPORT is None or now[0] <= _TICKS_AT_IMPORT[0]:
        return "unavailable"
    return f"{100.0 * (now[1] - _TICKS_AT_IMPORT[1]) / (now[0] - _TICKS_AT_IMPORT[0]):.1f} %"


def select_device(device: str) -> None:
    """Make ``--device gpu|cpu`` effective (must run before any JAX computation)."""
    import jax

    if device == "gpu":
        try:
            gpus = jax.devices("gpu")
        except RuntimeError:
            gpus = []
        if not gpus:
            raise SystemExit("--device gpu: no GPU visible to JAX (install jax[cuda12] on a GPU machine).")
        jax.config.update("jax_default_device", gpus[0])
    elif device == "cpu":
        jax.config.update("jax_default_device", jax.devices("cpu")[0])
    else:
        raise SystemExit(f"--device must be cpu or gpu, not {device!r}")


def best_time(fn, repeats: int = 3) -> float:
    """Best wall time of ``fn()`` over ``repeats`` calls (fn must block until its result is ready)."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def child_env(xla_flags: str = "") -> dict:
    """This process's environment with ``xla_flags`` appended to ``XLA_FLAGS``, for a benchmark's child process."""
    env = dict(os.environ)
    if xla_flags:
        env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " " + xla_flags).strip()
    return env
