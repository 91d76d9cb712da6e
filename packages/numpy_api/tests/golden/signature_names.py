"""The ``jax.numpy`` functions whose parameter names and kinds Tessela matches exactly.

JAX code may pass any of their parameters by keyword (``jnp.concatenate(arrays=...)``,
``jnp.reshape(a, shape=...)``); ``generate_signatures.py`` records JAX's.
"""

SIGNATURE_NAMES = (
    "astype", "broadcast_to", "can_cast", "concatenate", "expand_dims", "flip", "fmax",
    "fmin", "gcd", "hstack", "lcm", "moveaxis", "ravel", "reshape", "roll", "split",
    "squeeze", "swapaxes", "tile", "transpose", "vstack", "where",
)  # fmt: skip
