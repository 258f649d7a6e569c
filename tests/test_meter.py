"""The transfer meter of tests/_meter.py counts what it claims to (it reads a private JAX property; this test is
what fails when JAX changes it)."""
import jax
import jax.numpy as jnp
import numpy as np
from _meter import transfer_meter


def test_meter_counts_host_to_device_transfers_and_bytes():
    x = np.ones((100, 3), np.float32)
    f = jax.jit(lambda a, b: a * 2 + b.sum())
    f(x, np.ones(5, np.int32)).block_until_ready()
    with transfer_meter() as m:
        a = jax.device_put(x)  # 1,200 bytes
        b = jnp.asarray(np.arange(10, dtype=np.int32))  # 40 bytes
        f(np.zeros((100, 3), np.float32), np.ones(5, np.int32)).block_until_ready()  # two untyped transfers
        f(a, b).block_until_ready()  # already on the device: nothing
    assert (m.h2d, m.h2d_untyped, m.h2d_bytes) == (4, 2, 1200 + 40)


def test_meter_counts_first_reads_of_device_values():
    z = jax.jit(lambda a: a * 2)(np.ones(7, np.float32))
    w = jnp.arange(4, dtype=jnp.int32) + 1
    with transfer_meter() as m:
        np.asarray(z)
        np.asarray(z)  # the host copy is kept: no second read
        w.tolist()
        float(jnp.sum(w))
    assert (m.d2h, m.d2h_bytes) == (3, 28 + 16 + 4)
    with transfer_meter() as m:
        pass
    assert (m.h2d, m.d2h) == (0, 0)
