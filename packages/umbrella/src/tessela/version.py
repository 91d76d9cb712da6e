"""``tessela.version``: the version of the ``tessela`` distribution, as ``jax.version`` gives JAX's.

Example:
    >>> from tessela import version
    >>> version.__version__ == ".".join(map(str, version.__version_info__))
    True
"""

from __future__ import annotations

from importlib import metadata

from ._jaxlib import jaxlib_version as _jaxlib_version

__all__ = ["__version__", "__version_info__"]


def _installed() -> str:
    try:
        return metadata.version("tessela")
    except metadata.PackageNotFoundError:  # running from a source tree
        return "0.1.0"


__version__: str = _installed()
__version_info__: tuple[int, ...] = tuple(int(p) for p in __version__.split(".")[:3] if p.isdigit())
_version: str = __version__
# The jaxlib this Tessela runs on, as ``jax.version`` names the one JAX needs.
_minimum_jaxlib_version: str = "0.10.2"
_minimum_jaxlib_version_info: tuple[int, ...] = (0, 10, 2)
jaxlib_version: str = _jaxlib_version
