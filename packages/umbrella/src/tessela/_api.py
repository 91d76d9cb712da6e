"""Small pieces of the top-level namespace that no sibling owns.

``block_until_ready`` waits for every array in a pytree; ``plugins`` lists
the transformation plugins installed under the ``tessela.plugins`` entry
point group and loads them on request.
"""

from __future__ import annotations

import importlib
from typing import Any, TypeVar

from tessela_pytree import tree_leaves

__all__ = ["PLUGIN_GROUP", "block_until_ready", "load_plugins", "plugins"]

PLUGIN_GROUP = "tessela.plugins"
_T = TypeVar("_T")
_LOADED: dict[str, Any] = {}


def _entry_points() -> list[Any]:
    # importlib.metadata is imported by the first scan, not with `import tessela`.
    metadata: Any = importlib.import_module("importlib.metadata")
    return list(metadata.entry_points(group=PLUGIN_GROUP))


def block_until_ready(x: _T, /) -> _T:
    """Wait until every array in the pytree ``x`` is computed.

    Args:
        x: a pytree; leaves with a ``block_until_ready`` method are waited on.

    Returns:
        ``x`` itself.

    Example:
        >>> import tessela.numpy as tnp
        >>> out = block_until_ready({"w": tnp.ones(2)})
        >>> print(out["w"])
        [1. 1.]
    """
    for leaf in tree_leaves(x):
        wait = getattr(leaf, "block_until_ready", None)
        if callable(wait):
            wait()
    return x


def plugins() -> dict[str, str]:
    """List the installed plugins: entry points of the ``tessela.plugins`` group.

    A plugin distribution declares, in its ``pyproject.toml``::

        [project.entry-points."tessela.plugins"]
        my_plugin = "my_package"

    Returns:
        A mapping from plugin name to the object path it names
        (``"module"`` or ``"module:attr"``), sorted by name.

    Example:
        >>> isinstance(plugins(), dict)
        True
    """
    found = _entry_points()
    return {ep.name: ep.value for ep in sorted(found, key=lambda ep: ep.name)}


def load_plugins(*names: str) -> dict[str, Any]:
    """Import installed plugins (all of them when no name is given).

    Loading runs the plugin's registrations (its primitives and their rules).

    Args:
        *names: plugin names from :func:`plugins`.

    Returns:
        A mapping from plugin name to the loaded object.

    Raises:
        KeyError: for a name that no installed distribution provides; the
            message lists what is installed.

    Example:
        >>> load_plugins()  == {n: load_plugins(n)[n] for n in plugins()}
        True
    """
    available = {ep.name: ep for ep in _entry_points()}
    wanted = names or tuple(sorted(available))
    missing = [n for n in wanted if n not in available]
    if missing:
        raise KeyError(
            f"no tessela plugin named {missing[0]!r} is installed; installed plugins: "
            f"{sorted(available) or 'none'}. Install the plugin's distribution first."
        )
    for name in wanted:
        if name not in _LOADED:
            _LOADED[name] = available[name].load()
    return {name: _LOADED[name] for name in wanted}
