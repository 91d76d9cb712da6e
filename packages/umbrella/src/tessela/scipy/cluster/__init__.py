"""``tessela.scipy.cluster``: the ``vq`` submodule, as ``jax.scipy.cluster``."""

from . import vq

__all__ = ["vq"]
