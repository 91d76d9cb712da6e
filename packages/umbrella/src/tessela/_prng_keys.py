"""``tessela_prng``'s keys inside Tessela, registered by ``import tessela``.

``tessela.random`` is imported on first use, but keys can reach Tessela
without it: a ``tessela_prng.KeyArray`` passed to ``jit`` or ``vmap`` stays a
pytree of its ``uint32`` data, and ``tessela_prng``'s own functions take
Tessela's typed-key arrays (``random.key(0)``) as keys. Both registrations
live here, so a plain ``import tessela`` makes them.
"""

from __future__ import annotations

from typing import Any, TypeGuard

import tessela_lowering
import tessela_prng
from tessela_prng import KeyArray
from tessela_pytree import register_pytree_node
from tessela_tracer import Tracer
from tessela_tracer.dtypes import is_key_dtype
from tessela_tracer.extend import get_aval_of, random_unwrap
from tessela_tracer.typing import Array

__all__ = ["is_typed_key"]


def _flatten_key(k: KeyArray) -> tuple[tuple[Any], None]:
    return (tessela_prng.key_data(k),), None


def _unflatten_key(_aux: None, children: Any) -> KeyArray:
    return KeyArray(children[0])


# tessela_prng's own key arrays, when a user passes one, stay pytrees of their data.
register_pytree_node(KeyArray, _flatten_key, _unflatten_key)


def is_typed_key(x: object, /) -> TypeGuard[Array]:
    """Whether ``x`` is a Tessela array (or tracer) of typed PRNG keys.

    Args:
        x: any value.

    Returns:
        True for arrays and tracers whose dtype is a key dtype.

    Example:
        >>> import tessela.random as tr
        >>> is_typed_key(tr.key(0)), is_typed_key(tr.PRNGKey(0))
        (True, False)
    """
    if not isinstance(x, (tessela_lowering.Array, Tracer)):
        return False
    return is_key_dtype(get_aval_of(x).dtype)


def _registered_key_data(x: Any) -> Any:
    return random_unwrap(x) if is_typed_key(x) else None


# tessela_prng's functions, called directly, take Tessela's typed keys too.
tessela_prng.register_key_type(tessela_lowering.Array, _registered_key_data)
tessela_prng.register_key_type(Tracer, _registered_key_data)
