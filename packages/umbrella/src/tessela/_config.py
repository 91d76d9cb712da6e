"""One configuration object over every Tessela package's flags.

The tracer's shared :data:`tessela_tracer.config` holds the flags of the
tracer and of the packages that define theirs on it (lowering, ...);
``tessela_prng`` keeps its own small config because it must work alone.
:class:`Config` routes each name to every package that knows it, so one
``tessela.config.update("jax_enable_x64", True)`` switches 64-bit mode for
the tracer and the PRNG together. JAX's names (``jax_*``) and Tessela's
(``tessela_*``) are both accepted.
"""

from __future__ import annotations

from typing import Any

import tessela_prng
import tessela_tracer

__all__ = ["Config", "config"]


def _knows(cfg: Any, name: str) -> bool:
    try:
        cfg.read(name)
    except (AttributeError, KeyError, ValueError):
        return False
    return True


class Config:
    """Every package's flags behind one ``update`` / ``read``.

    Example:
        >>> from tessela import config
        >>> config.jax_threefry_partitionable
        True
        >>> config.update("jax_enable_x64", False)
        >>> config.read("jax_enable_x64")
        False
    """

    __slots__ = ()

    @property
    def _targets(self) -> tuple[Any, ...]:
        return (tessela_tracer.config, tessela_prng.config)

    def update(self, name: str, value: Any, /) -> None:
        """Set flag ``name`` in every package that defines it.

        Args:
            name: a flag name, e.g. ``"jax_enable_x64"`` or
                ``"tessela_threefry_partitionable"``.
            value: the new value.

        Returns:
            None.

        Raises:
            AttributeError: when no package defines ``name``; the message
                lists the known flags.

        Example:
            >>> from tessela import config
            >>> config.update("jax_threefry_partitionable", True)
        """
        owners = [cfg for cfg in self._targets if _knows(cfg, name)]
        if not owners:
            raise AttributeError(
                f"Unrecognized config option: {name!r}; known options: "
                f"{', '.join(self.flag_names())}. Check the spelling (JAX's jax_* names work)."
            )
        for cfg in owners:
            cfg.update(name, value)

    def read(self, name: str, /) -> Any:
        """Return the current value of flag ``name``.

        Args:
            name: a flag name.

        Returns:
            The value held by the first package that defines it.

        Example:
            >>> from tessela import config
            >>> config.read("jax_disable_jit")
            False
        """
        for cfg in self._targets:
            if _knows(cfg, name):
                return cfg.read(name)
        raise AttributeError(
            f"Unrecognized config option: {name!r}; known options: {', '.join(self.flag_names())}."
        )

    def flag_names(self) -> tuple[str, ...]:
        """Return the JAX-style names of every flag.

        Returns:
            Sorted flag names.

        Example:
            >>> from tessela import config
            >>> "jax_enable_x64" in config.flag_names()
            True
        """
        names = set(tessela_tracer.config.flag_names())
        names.update(
            n for n in ("jax_threefry_partitionable", "jax_enable_x64")
            if _knows(tessela_prng.config, n)
        )  # fmt: skip
        return tuple(sorted(names))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self.read(name)

    def __repr__(self) -> str:
        return "tessela.config"


config = Config()
