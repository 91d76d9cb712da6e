"""``tessela.experimental.mesh_utils``: device grids for meshes, as ``jax.experimental.mesh_utils``.

Example:
    >>> import tessela as tx
    >>> from tessela.experimental import mesh_utils
    >>> mesh_utils.create_device_mesh((1,), tx.devices()[:1]).shape
    (1,)
"""

from tessela_lowering.mesh_utils import create_device_mesh, create_hybrid_device_mesh

__all__ = ["create_device_mesh", "create_hybrid_device_mesh"]
