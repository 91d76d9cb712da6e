"""NumPy-style array API over Tessela's tracer (the ``jax.numpy`` names)."""

__all__: list[str] = []
