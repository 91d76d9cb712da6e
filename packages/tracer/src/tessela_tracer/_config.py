"""Process-wide configuration flags.

One :class:`Config` object holds every flag. Sibling packages define their own
flags on the same object with :meth:`Config.define_bool` (or
:meth:`Config.define`), so users set everything through ``config.update``.
"""

from __future__ import annotations

import itertools
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any

__all__ = [
    "TRACE_KEY_FLAGS", "Config", "FlagState", "check_rank_promotion", "config", "derived_names",
]  # fmt: skip

TRACE_KEY_FLAGS = (
    "jax_enable_x64",
    "jax_numpy_rank_promotion",
    "jax_numpy_dtype_promotion",
    "jax_default_matmul_precision",
)
"""The flags whose values change what tracing produces: ``config.trace_key`` holds them."""

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


def derived_names(name: str, /) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The aliases and environment variables a flag gets unless its definition names them.

    The rule: a flag ``jax_<suffix>`` (or any other name, taken whole as the
    suffix) is also ``tessela_<suffix>``, and reads the environment variables
    ``TESSELA_<SUFFIX>`` then ``JAX_<SUFFIX>``. A definition that passes
    ``aliases`` or ``env`` overrides the rule for that flag.

    Args:
      name: the flag's canonical name.

    Returns:
      ``(aliases, env)``.

    Example:
        >>> derived_names("jax_enable_x64")
        (('tessela_enable_x64',), ('TESSELA_ENABLE_X64', 'JAX_ENABLE_X64'))
        >>> derived_names("jax2tf_associative_scan_reductions")[0]
        ('tessela_jax2tf_associative_scan_reductions',)
    """
    suffix = name.removeprefix("jax_")
    upper = suffix.upper()
    return (f"tessela_{suffix}",), (f"TESSELA_{upper}", f"JAX_{upper}")


class FlagState:
    """One flag's holder: ``state.value`` reads the flag without a name lookup.

    Code that reads a flag on a hot path keeps its state
    (``config.state("jax_numpy_dtype_promotion")``), as JAX's code reads
    ``config.numpy_dtype_promotion.value``.

    Example:
        >>> from tessela_tracer import config
        >>> config.state("jax_numpy_rank_promotion").value
        'allow'
    """

    __slots__ = ("aliases", "default", "env", "help", "name", "on_change", "validator", "value")

    def __init__(
        self,
        name: str,
        default: Any,
        validator: Callable[[Any], Any],
        help: str,
        on_change: Callable[[Any], None] | None,
        *,
        aliases: tuple[str, ...] = (),
        env: tuple[str, ...] = (),
    ) -> None:
        self.name = name
        self.aliases = aliases
        self.env = env
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

    _flags: dict[str, FlagState]
    _aliases: dict[str, str]
    _x64: FlagState | None  # the jax_enable_x64 flag, once defined
    _trace_names: list[str]  # the flags in ``trace_key``, in order

    def __init__(self) -> None:
        object.__setattr__(self, "_flags", {})
        object.__setattr__(self, "_aliases", {})
        object.__setattr__(self, "_x64", None)
        object.__setattr__(self, "x64_enabled", False)
        object.__setattr__(self, "trace_key", ())
        object.__setattr__(self, "_trace_names", list(TRACE_KEY_FLAGS))

    def define(
        self,
        name: str,
        default: Any,
        *,
        aliases: tuple[str, ...] | None = None,
        env: tuple[str, ...] | None = None,
        validator: Callable[[Any], Any] | None = None,
        parse_env: Callable[[str, str], Any] | None = None,
        help: str = "",
        on_change: Callable[[Any], None] | None = None,
    ) -> None:
        """Define a new flag.

        Args:
          name: the flag's canonical name.
          default: its value when neither ``update`` nor the environment set it.
          aliases: other names accepted by ``update`` and attribute access;
            None (the default) takes them from :func:`derived_names`.
          env: environment variables read once at definition, first set wins;
            None (the default) takes them from :func:`derived_names` when
            ``aliases`` is None too, and means none when ``aliases`` is given
            (names given by hand are the whole list).
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
        if aliases is None:
            aliases, derived_env = derived_names(name)
            env = derived_env if env is None else env
        elif env is None:
            env = ()
        check = validator if validator is not None else (lambda v: v)
        flag = FlagState(name, default, check, help, on_change, aliases=aliases, env=env)
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
        aliases: tuple[str, ...] | None = None,
        env: tuple[str, ...] | None = None,
        help: str = "",
        on_change: Callable[[Any], None] | None = None,
    ) -> None:
        """Define a boolean flag, read from the environment as 1/0 or true/false.

        Args:
          name, default, aliases, env, help, on_change: as :meth:`define`.

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

    def define_enum(
        self,
        name: str,
        default: str | None,
        choices: Sequence[str],
        *,
        optional: bool = False,
        aliases: tuple[str, ...] | None = None,
        env: tuple[str, ...] | None = None,
        help: str = "",
        on_change: Callable[[Any], None] | None = None,
    ) -> None:
        """Define a flag taking one of ``choices`` (or None when ``optional``), as JAX's enum flags.

        Args:
          name, default, aliases, env, help, on_change: as :meth:`define`.
          choices: the accepted strings.
          optional: whether None is accepted too.

        Returns:
          None.

        Raises:
          ValueError: (from ``update``) a value outside ``choices``, with JAX's text.
        """
        allowed = tuple(choices)

        def validate(value: Any) -> str | None:
            if value is None and optional:
                return None
            if not isinstance(value, str) or value not in allowed:
                none = "None or " if optional else ""
                raise ValueError(
                    f"new enum value must be {none}in {list(allowed)}, got {value} of type "
                    f"{type(value)}."
                )
            return value

        self.define(
            name, default, aliases=aliases, env=env, validator=validate, help=help,
            on_change=on_change,
        )  # fmt: skip

    def define_int(
        self,
        name: str,
        default: int | None,
        *,
        aliases: tuple[str, ...] | None = None,
        env: tuple[str, ...] | None = None,
        help: str = "",
        on_change: Callable[[Any], None] | None = None,
    ) -> None:
        """Define an integer flag (None accepted), read from the environment as an integer.

        Args:
          name, default, aliases, env, help, on_change: as :meth:`define`.

        Returns:
          None.
        """

        def validate(value: Any) -> int | None:
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise ValueError(
                    f"new int config value must be None or of type int, got {value} of type "
                    f"{type(value)}"
                )
            return value

        def parse(flag_name: str, text: str) -> int | None:
            # A malformed variable leaves the default: the package that reads the
            # flag reports it (importing the tracer never fails on it).
            try:
                return int(text)
            except ValueError:
                return default

        self.define(
            name, default, aliases=aliases, env=env, validator=validate, parse_env=parse,
            help=help, on_change=on_change,
        )  # fmt: skip

    def state(self, name: str, /) -> FlagState:
        """The holder of a flag, whose ``.value`` is the flag's current value.

        Args:
          name: the flag's name or an alias.

        Returns:
          Its :class:`FlagState`.

        Example:
            >>> from tessela_tracer import config
            >>> config.state("jax_enable_x64").value
            False
        """
        return self._flag(name)

    def parse_flags_with_absl(self) -> None:
        """Set flags from the ``--jax_*`` command-line arguments, as JAX's method of that name.

        Reads ``sys.argv`` up to a lone ``--``: ``--jax_name=value``,
        ``--jax_name value``, ``--jax_name`` (True) and ``--nojax_name``
        (False) for boolean flags. Unknown ``--jax_*`` names are left alone
        (as absl's ``known_only``); ``absl`` itself is not needed.

        Returns:
          None.

        Example:
            >>> from tessela_tracer import config
            >>> config.parse_flags_with_absl()
        """
        argv = list(itertools.takewhile(lambda a: a != "--", sys.argv[1:]))
        for i, arg in enumerate(argv):
            if not arg.startswith(("--jax_", "--nojax_")):
                continue
            key, eq, text = arg[2:].partition("=")
            negated = key.startswith("no") and key[2:] in self._aliases
            if negated:
                key = key[2:]
            if key not in self._aliases:
                continue
            flag = self._flag(key)
            if isinstance(flag.default, bool):
                value: Any = (not negated) if not eq else _parse_bool(key, text)
            else:
                if not eq:
                    if i + 1 >= len(argv):
                        raise ValueError(f"flag --{key} needs a value: --{key}=VALUE")
                    text = argv[i + 1]
                value = int(text) if isinstance(flag.default, int) else text
            self.update(key, value)

    def _flag(self, name: str) -> FlagState:
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
        if flag.name in self._trace_names:
            self._refresh_trace_key()
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

    def include_in_trace_key(self, name: str, /) -> None:
        """Make a defined flag one of those whose values ``trace_key`` holds.

        A flag that changes what tracing a function produces (the PRNG's
        counter layout, say) must be in the key of every cache of traced or
        compiled functions, as JAX's ``include_in_jit_key`` flags are: a
        change then traces again instead of reusing a stale program.

        Args:
          name: the flag's name or an alias.

        Returns:
          None.

        Example:
            >>> from tessela_tracer import Config
            >>> cfg = Config()
            >>> cfg.define("my_layout", "rows")
            >>> cfg.include_in_trace_key("my_layout")
            >>> cfg.update("my_layout", "columns"); cfg.trace_key
            ('columns',)
        """
        flag = self._flag(name)
        if flag.name not in self._trace_names:
            self._trace_names.append(flag.name)
        self._refresh_trace_key()

    def _refresh_trace_key(self) -> None:
        flags = self._flags
        key = tuple(flags[n].value for n in self._trace_names if n in flags)
        object.__setattr__(self, "trace_key", key)

    # ``trace_key`` is a plain attribute too: the values of the flags that change
    # what tracing a function produces (``TRACE_KEY_FLAGS``), which caches of
    # traced functions add to their keys (as JAX's jit keys hold its trace
    # context), so that ``with numpy_dtype_promotion("strict"):`` retraces.
    trace_key: tuple[Any, ...]

    # ``x64_enabled`` (whether 64-bit types are enabled) is a plain attribute,
    # kept equal to the ``jax_enable_x64`` flag by ``update``: the dispatch fast
    # paths read it on every call, and a property costs about 50 ns more.
    x64_enabled: bool


config = Config()
config.define_bool(
    "jax_enable_x64",
    False,
    # The exception to the naming rule: the bare ``enable_x64`` is an alias too.
    aliases=("tessela_enable_x64", "enable_x64"),
    env=("TESSELA_ENABLE_X64", "JAX_ENABLE_X64"),
    help="Enable 64-bit types (int64, float64, complex128) by default.",
)
object.__setattr__(config, "_x64", config._flag("jax_enable_x64"))
object.__setattr__(config, "x64_enabled", config.read("jax_enable_x64"))


def _dtype_promotion(value: Any) -> str:
    if value not in ("standard", "strict"):
        raise ValueError(f"{value!r} is not a valid NumpyDtypePromotion")
    return str(value)


config.define_enum(
    "jax_numpy_rank_promotion",
    "allow",
    ("allow", "warn", "raise"),
    help="Whether NumPy-style implicit rank promotion is allowed, warned about or refused.",
)
config.define(
    "jax_numpy_dtype_promotion",
    "standard",
    validator=_dtype_promotion,
    help="'standard' promotes dtypes on JAX's lattice; 'strict' promotes only weak types.",
)
config.define_bool(
    "jax_check_tracer_leaks",
    False,
    help="After each transformation, raise if one of its tracers is still referenced.",
)
config.define_bool(
    "jax_no_tracing",
    False,
    help="Raise RuntimeError when a jitted function is traced (a jit cache miss).",
)
config.define_bool(
    "jax_enable_checks",
    False,
    help="Type-check every jaxpr that jit, make_jaxpr and eval_shape trace (check_jaxpr).",
)
config.define_bool(
    "jax_allow_f16_reductions",
    True,
    help=(
        "If False, reduce_sum over float16 or bfloat16 operands raises ValueError (for "
        "programs traced and compiled after the change)."
    ),
)
_MATMUL_PRECISIONS = (
    "default", "high", "highest", "bfloat16", "tensorfloat32", "float32",
    "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY",
    "ANY_F8_ANY_F8_ANY_FAST_ACCUM", "F16_F16_F16", "F16_F16_F32", "BF16_BF16_BF16",
    "BF16_BF16_F32", "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9",
    "TF32_TF32_F32", "TF32_TF32_F32_X3", "F32_F32_F32", "F64_F64_F64",
)  # fmt: skip
config.define_enum(
    "jax_default_matmul_precision",
    None,
    _MATMUL_PRECISIONS,
    optional=True,
    help="The precision of matmuls and convolutions whose precision argument is None.",
)
config.define_enum(
    "jax_traceback_filtering",
    "auto",
    ("off", "tracebackhide", "remove_frames", "quiet_remove_frames", "auto"),
    help="How tracebacks of errors raised inside transformations are filtered.",
)
_PRNG_IMPLS = ("threefry2x32", "threefry4x32", "rbg", "unsafe_rbg", "philox2x32", "philox4x32")


def _prng_impl(value: Any) -> str:
    if value not in _PRNG_IMPLS:
        raise ValueError(
            f"new enum value must be in {list(_PRNG_IMPLS)}, got {value} of type {type(value)}."
        )
    if value != "threefry2x32":
        raise NotImplementedError(
            f"jax_default_prng_impl={value!r}: Tessela's PRNG implements threefry2x32 only "
            "(bit-identical to JAX's); keep the default 'threefry2x32'."
        )
    return str(value)


config.define(
    "jax_default_prng_impl",
    "threefry2x32",
    validator=_prng_impl,
    help="The PRNG implementation of new keys (Tessela implements threefry2x32).",
)
config.define_int(
    "jax_num_cpu_devices",
    -1,
    help="How many CPU devices the CPU backend exposes (-1: XLA's choice); set before first use.",
)

config._refresh_trace_key()
_rank_promotion = config.state("jax_numpy_rank_promotion")
_RANK_DOC = "https://docs.jax.dev/en/latest/rank_promotion_warning.html"


def check_rank_promotion(fun_name: str, shapes: Sequence[tuple[int, ...]], /) -> None:
    """Apply ``jax_numpy_rank_promotion`` to an implicit broadcast of ``shapes``.

    NumPy-style functions call this before they prepend size-1 axes to bring
    their operands to a common rank. Nothing happens under ``'allow'`` or when
    the non-scalar operands already share one rank (scalars always
    broadcast); under ``'warn'`` it warns and under ``'raise'`` it raises, with
    JAX's texts.

    Args:
      fun_name: the public function's name (``"add"``).
      shapes: the operands' shapes.

    Returns:
      None.

    Raises:
      ValueError: the flag is ``'raise'`` and the operands' ranks differ.

    Example:
        >>> check_rank_promotion("add", [(3,), (2, 3)])
        >>> config.update("jax_numpy_rank_promotion", "raise")
        >>> try:
        ...     check_rank_promotion("add", [(3,), (2, 3)])
        ... except ValueError as e:
        ...     print(str(e).split(" and ")[0])
        Operands could not be broadcast together for add on shapes (3,) (2, 3)
        >>> config.update("jax_numpy_rank_promotion", "allow")
    """
    mode = _rank_promotion.value
    if mode == "allow" or len({len(s) for s in shapes if s}) < 2:
        return
    listed = " ".join(map(str, shapes))
    if mode == "warn":
        warnings.warn(
            f"Following NumPy automatic rank promotion for {fun_name} on shapes {listed}. "
            "Set the jax_numpy_rank_promotion config option to 'allow' to disable this "
            f"warning; for more information, see {_RANK_DOC}.",
            stacklevel=3,
        )
        return
    raise ValueError(
        f"Operands could not be broadcast together for {fun_name} on shapes {listed} and "
        f"with the config option jax_numpy_rank_promotion='raise'. For more information, "
        f"see {_RANK_DOC}."
    )
