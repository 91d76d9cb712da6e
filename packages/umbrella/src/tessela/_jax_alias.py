"""The ``jax`` alias: run code written for JAX, unchanged, on Tessela.

:func:`install_jax_alias` puts a finder at the front of ``sys.meta_path`` that
answers ``import jax`` and ``import jax.<sub>`` with Tessela's modules
(``tessela`` and ``tessela.<sub>``). Each ``jax.*`` module is a thin module
object over its Tessela module: attribute reads are the Tessela objects
themselves (``jax.numpy.sum is tessela.numpy.sum``), and a name Tessela lacks
raises ``AttributeError`` (or ``ImportError`` for ``from jax... import``) that
names the JAX name. Nothing is stubbed.

The alias refuses to install when the real ``jax`` package is already imported
in the process: JAX and Tessela's XLA runtime both set process-wide state in
jaxlib, and code holding the real ``jax`` would silently mix the two.
``jaxlib`` itself is not aliased (Tessela runs on it).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

__all__ = ["JaxAliasError", "install_jax_alias", "jax_alias_installed", "uninstall_jax_alias"]

_ALIAS_ROOT = "jax"
_TARGET_ROOT = "tessela"


class JaxAliasError(RuntimeError):
    """The ``jax`` alias cannot be installed (the real ``jax`` is already imported)."""


class _AliasModule(ModuleType):
    """A ``jax.*`` module whose attributes are those of a Tessela module."""

    _tessela_module: ModuleType

    def __init__(self, name: str, target: ModuleType) -> None:
        super().__init__(name, target.__doc__)
        object.__setattr__(self, "_tessela_module", target)

    def __getattr__(self, attr: str) -> Any:
        target = self._tessela_module
        try:
            value = getattr(target, attr)
        except AttributeError:
            raise AttributeError(
                f"module {self.__name__!r} has no attribute {attr!r}: Tessela does not "
                f"provide JAX's {self.__name__}.{attr} ({target.__name__} has no {attr!r})",
                name=attr,
                obj=self,
            ) from None
        if attr.startswith("__"):
            return value
        if isinstance(value, ModuleType) and value.__name__.startswith(_TARGET_ROOT):
            value = importlib.import_module(f"{self.__name__}.{attr}")
        # Later reads find the attribute in the module's own dict.
        object.__setattr__(self, attr, value)
        return value

    def __dir__(self) -> list[str]:
        return sorted((set(dir(self._tessela_module)) | set(self.__dict__)) - {"_tessela_module"})

    def __repr__(self) -> str:
        return f"<module {self.__name__!r} (Tessela's {self._tessela_module.__name__})>"


def _target_of(fullname: str) -> ModuleType:
    """The Tessela module that answers ``fullname`` (``jax`` or ``jax.<sub>``)."""
    if fullname == _ALIAS_ROOT:
        return importlib.import_module(_TARGET_ROOT)
    parent_name, _, child = fullname.rpartition(".")
    parent = sys.modules.get(parent_name)
    if not isinstance(parent, _AliasModule):
        parent = importlib.import_module(parent_name)
    assert isinstance(parent, _AliasModule)
    parent_target = parent._tessela_module
    value = getattr(parent_target, child, None)
    if isinstance(value, ModuleType):
        return value
    candidate = f"{parent_target.__name__}.{child}"
    try:
        return importlib.import_module(candidate)
    except ModuleNotFoundError as err:
        if err.name != candidate:
            raise
    raise ModuleNotFoundError(
        f"No module named {fullname!r}: Tessela does not provide JAX's {fullname} "
        f"({parent_target.__name__} has no submodule {child!r})",
        name=fullname,
    )


class _AliasLoader(importlib.abc.Loader):
    """Creates the ``jax.*`` module over an already imported Tessela module."""

    def __init__(self, target: ModuleType) -> None:
        self._target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return _AliasModule(spec.name, self._target)

    def exec_module(self, module: ModuleType) -> None:
        return None


class JaxAliasFinder(importlib.abc.MetaPathFinder):
    """Maps ``jax`` and ``jax.<sub>`` to ``tessela`` and ``tessela.<sub>``."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        """Return a spec for a ``jax`` name, ``None`` for any other.

        Args:
            fullname: the module being imported.
            path: the parent package's ``__path__`` (unused).
            target: the module being reloaded, if any (unused).

        Returns:
            A spec whose loader gives the ``jax.*`` module, or ``None``.

        Raises:
            ModuleNotFoundError: ``fullname`` is a ``jax`` name that Tessela lacks.

        Example:
            >>> JaxAliasFinder().find_spec("numpy", None) is None
            True
        """
        if fullname != _ALIAS_ROOT and not fullname.startswith(_ALIAS_ROOT + "."):
            return None
        module = _target_of(fullname)
        return importlib.machinery.ModuleSpec(
            fullname, _AliasLoader(module), is_package=True, origin=None
        )


def _finder() -> JaxAliasFinder | None:
    for finder in sys.meta_path:
        if isinstance(finder, JaxAliasFinder):
            return finder
    return None


def jax_alias_installed() -> bool:
    """Whether :func:`install_jax_alias` is in effect.

    Returns:
        True when ``import jax`` resolves to Tessela.

    Example:
        >>> import tessela
        >>> tessela.jax_alias_installed() in (True, False)
        True
    """
    return _finder() is not None


def _real_jax_modules() -> list[str]:
    return sorted(
        name
        for name, module in list(sys.modules.items())
        if (name == _ALIAS_ROOT or name.startswith(_ALIAS_ROOT + "."))
        and module is not None
        and not isinstance(module, _AliasModule)
    )


def install_jax_alias() -> None:
    """Make ``import jax`` (and ``jax.numpy``, ``jax.lax``, ...) resolve to Tessela.

    Idempotent. Afterwards ``import jax.numpy as jnp`` gives a module whose
    names are ``tessela.numpy``'s, ``from jax import lax, random, tree_util``
    gives Tessela's modules and ``jax.config.update(...)`` sets Tessela's
    flags. A name Tessela lacks raises ``AttributeError`` / ``ImportError``
    naming the JAX name.

    Returns:
        None.

    Raises:
        JaxAliasError: the real ``jax`` package is already imported in this
            process (call this before anything imports ``jax``, or run the
            program with ``python -m tessela.as_jax``).

    Example:
        >>> import subprocess, sys
        >>> code = (
        ...     "import tessela; tessela.install_jax_alias(); "
        ...     "import jax, jax.numpy as jnp; print(jax.jit(jnp.sin)(0.0))"
        ... )
        >>> print(subprocess.run([sys.executable, "-c", code], capture_output=True,
        ...                      text=True, check=True).stdout.strip())
        0.0
    """
    if _finder() is not None:
        return
    real = _real_jax_modules()
    if real:
        raise JaxAliasError(
            f"the real JAX package is already imported in this process ({', '.join(real[:3])}"
            f"{', ...' if len(real) > 3 else ''}); Tessela's jax alias cannot replace it. "
            "Install the alias before anything imports jax (first line of the program), "
            "or run the program with `python -m tessela.as_jax script.py`."
        )
    sys.meta_path.insert(0, JaxAliasFinder())


def uninstall_jax_alias() -> None:
    """Remove the ``jax`` alias and forget the ``jax.*`` modules it created.

    Objects already taken from the alias keep working (they are Tessela's).

    Returns:
        None.

    Example:
        >>> import tessela
        >>> tessela.uninstall_jax_alias()
        >>> tessela.jax_alias_installed()
        False
    """
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, JaxAliasFinder)]
    for name, module in list(sys.modules.items()):
        if isinstance(module, _AliasModule):
            del sys.modules[name]
