"""pujax: positive-unlabeled (PU) learning in JAX.

Submodules: ``pujax.risk`` (losses, uPU/nnPU risks, closed-form node risks), ``pujax.metrics``,
``pujax.data`` (PU splits), ``pujax.datasets`` (real-data loaders), ``pujax.validation``.
"""
__version__ = "0.1.0"

from pujax import risk, validation  # noqa: E402,F401
