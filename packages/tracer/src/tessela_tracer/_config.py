"""Process-wide configuration flags.

One :class:`Config` object holds every flag. Sibling packages define their own
flags on the same object with :meth:`Config.define_bool` (or
:meth:`Config.define`), so users set everything through ``config.update``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

__all__ = ["Config", "config"]

_TRUE = frozenset({"1", "true", "yes", "on", "t", "y"})
_FALSE = frozenset({"0", "false", "no", "off", "f", "n", ""})


def _parse_bool(name: str, text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(
        f"environment variable for flag {name!r} must be a boolean such as 1/0 or "
        f"true/false, got {text!r}"
    )


class _Flag:
    __slots__ = ("default", "help", "name", "on_change", "validator", "value")

    def __init__(
        self,
        name: str,
        default: Any,
        validator: Callable[[Any], Any],
        help: str,
        on_change: Callable[[Any], None] | None,
    ) -> None:
        self.name = name
        self.default = default
        self.value = default
        self.validator = validator
        self.help = help
        self.on_change = on_change


class Config:
    """A registry of named flags with ``update`` and attribute access.

    Flags are reachable under their own name and under every alias given at
    definition, e.g. ``jax_enable_x64`` and ``tessela_enable_x64``.

    Example:
        >>> from tessela_tracer import config
        >>> config.jax_enable_x64
        False
    """

    _flags: dict[str, _Flag]
    _aliases: dict[str, str]
    _x64: _Flag | None  # the jax_enable_x64 flag, once defined

    def __init__(self) -> None:
        object.__setattr__(self, "_flags", {})
        object.__setattr__(self, "_aliases", {})
        object.__setattr__(self, "_x64", None)
        object.__setattr__(self, "x64_enabled", False)

    def define(
        self,
        name: str,
        default: Any,
        *,
        aliases: tuple[str, ...] = (),
        env: tuple[str, ...] = (),
        validator: Callable[[Any], Any] | None = None,
        parse_env: Callable[[str, str], Any] | None = None,
        help: str = "",
        on_change: Callable[[Any], None] | None = None,
    ) -> None:
        """Define a new flag.

        Args:
          name: the flag's canonical name.
          default: its value when neither ``update`` nor the environment set it.
          aliases: other names accepted by ``update`` and attribute access.
          env: environment variables read once at definition, first set wins.
          validator: maps a proposed value to the stored value or raises.
          parse_env: turns an environment string into a value.
          help: a one-line description.
          on_change: called with the new value after every change.

        Returns:
          None.
        """
        flags = self._flags
        aliases_map = self._aliases
        if name in aliases_map:
            raise ValueError(f"config flag {name!r} is already defined")
        check = validator if validator is not None else (lambda v: v)
        flag = _Flag(name, default, check, help, on_change)
        for var in env:
            text = os.environ.get(var)
            if text is not None:
                parser = parse_env if parse_env is not None else (lambda n, t: t)
                flag.value = check(parser(name, text))
                break
        flags[name] = flag
        for alias in (name, *aliases):
            aliases_map[alias] = name

    def define_bool(
        self,
        name: str,
        default: bool,
        *,
        aliases: tuple[str, ...] = (),
        env: tuple[str, ...] = (),
        help: str = "",
        on_change: Callable[[Any], None] | None = None,
    ) -> None:
        """Define a boolean flag, read from the environment as 1/0 or true/false.

        Args:
          name: the flag's canonical name.
          default: the default value.
          aliases: other accepted names.
          env: environment variables consulted at definition.
          help: a one-line description.
          on_change: called with the new value after every change.

        Returns:
          None.
        """

        def validate(value: Any) -> bool:
            if not isinstance(value, (bool, int)):
                raise TypeError(
                    f"config flag {name!r} takes a bool, got {value!r}; "
                    f"use config.update({name!r}, True)"
                )
            return bool(value)

        self.define(
            name,
            default,
            aliases=aliases,
            env=env,
            validator=validate,
            parse_env=_parse_bool,
            help=help,
            on_change=on_change,
        )

    def _flag(self, name: str) -> _Flag:
        aliases = self._aliases
        try:
            return self._flags[aliases[name]]
        except KeyError:
            known = ", ".join(sorted(aliases))
            raise AttributeError(
                f"Unrecognized config option: {name!r} (unrecognized config flag); check the "
                f"spelling (JAX's jax_* names work). Known flags: {known}"
            ) from None

    def update(self, name: str, value: Any, /) -> None:
        """Set a flag.

        Args:
          name: the flag's name or one of its aliases.
          value: the new value.

        Returns:
          None.

        Example:
            >>> from tessela_tracer import config
            >>> config.update("jax_enable_x64", False)
        """
        flag = self._flag(name)
        flag.value = flag.validator(value)
        if flag is self._x64:
            object.__setattr__(self, "x64_enabled", flag.value)
        if flag.on_change is not None:
            flag.on_change(flag.value)

    def read(self, name: str, /) -> Any:
        """Return a flag's current value.

        Args:
          name: the flag's name or an alias.

        Returns:
          The value.

        Example:
            >>> from tessela_tracer import config
            >>> config.read("tessela_enable_x64")
            False
        """
        return self._flag(name).value

    def flag_names(self) -> tuple[str, ...]:
        """Return the canonical names of all defined flags.

        Returns:
          A sorted tuple of names.

        Example:
            >>> from tessela_tracer import config
            >>> "jax_enable_x64" in config.flag_names()
            True
        """
        return tuple(sorted(self._flags))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self._flag(name).value

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(
            f"config flags are set with config.update({name!r}, value), not by assignment"
        )

    # ``x64_enabled`` (whether 64-bit types are enabled) is a plain attribute,
    # kept equal to the ``jax_enable_x64`` flag by ``update``: the dispatch fast
    # paths read it on every call, and a property costs about 50 ns more.
    x64_enabled: bool


config = Config()
config.define_bool(
    "jax_enable_x64",
    False,
    aliases=("tessela_enable_x64", "enable_x64"),
    env=("TESSELA_ENABLE_X64", "JAX_ENABLE_X64"),
    help="Enable 64-bit types (int64, float64, complex128) by default.",
)
object.__setattr__(config, "_x64", config._flag("jax_enable_x64"))
object.__setattr__(config, "x64_enabled", config.read("jax_enable_x64"))
