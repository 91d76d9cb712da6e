"""The node registry: which Python types are pytree nodes, and how to take them apart.

Every type is classified once into a small integer *kind* and the answer is
cached in ``_KIND``, a dict keyed by exact type, so the flattening loops pay
one dict lookup per value. Tuples, lists, dicts, ``None`` and namedtuples have
dedicated kinds handled inline by the traversals; every other node type
(OrderedDict, defaultdict, dataclasses, user registrations) is ``CUSTOM`` and
goes through its ``_NodeDef``. ``HANDLERS`` and ``MAP_HANDLERS`` hold the
generated per-type flatten and map functions (``_handlers``, ``_maps``);
every registration clears them. A flatten handler ``h(x, leaves)`` appends
the leaves of node ``x`` and returns its treedef node (None for leaf types).
"""

from __future__ import annotations

import dataclasses
import keyword
import operator
from collections.abc import Callable, Hashable, Iterable, Sequence
from inspect import CO_VARARGS, CO_VARKEYWORDS
from types import FunctionType
from typing import Any, TypeVar

from ._keys import GetAttrKey

__all__ = [
    "is_tree_node",
    "register_dataclass",
    "register_pytree_node",
    "register_pytree_node_class",
    "register_pytree_with_keys",
    "register_pytree_with_keys_class",
    "register_static",
]

T = TypeVar("T")
Typ = TypeVar("Typ", bound=type[Any])

LEAF = 0
TUPLE = 1
LIST = 2
DICT = 3
NONE = 4
NAMEDTUPLE = 5
CUSTOM = 6

_NoneType = type(None)


class _NodeDef:
    """How one registered type flattens and unflattens.

    For ``register_dataclass`` types, ``fields`` holds ``(data, meta)``, the
    field names, so that the traversals can read the attributes directly. For
    the built-in registrations whose children's keys follow from the aux data
    alone (OrderedDict, defaultdict, static types), ``aux_keys(aux)`` gives
    those keys, so key paths can be derived from the structure.
    """

    __slots__ = (
        "aux_keys",
        "fields",
        "flatten",
        "flatten_with_keys",
        "is_dataclass",
        "type",
        "unflatten",
    )

    def __init__(
        self,
        nodetype: type[Any],
        flatten: Callable[[Any], tuple[Iterable[Any], Any]],
        unflatten: Callable[[Any, Iterable[Any]], Any],
        flatten_with_keys: Callable[[Any], tuple[Iterable[tuple[Any, Any]], Any]] | None,
        is_dataclass: bool,
        fields: tuple[tuple[str, ...], tuple[str, ...]] | None = None,
        aux_keys: Callable[[Any], Iterable[Any]] | None = None,
    ) -> None:
        self.type = nodetype
        self.flatten = flatten
        self.unflatten = unflatten
        self.flatten_with_keys = flatten_with_keys
        self.is_dataclass = is_dataclass
        self.fields = fields
        self.aux_keys = aux_keys


class _KindTable(dict[type[Any], int]):
    """``_KIND``: exact type to kind; a missing type is classified on lookup."""

    def __missing__(self, t: type[Any]) -> int:
        return classify(t)


REGISTRY: dict[type[Any], _NodeDef] = {}
_KIND: dict[type[Any], int] = _KindTable()
_BUILTIN_KINDS: dict[type[Any], int] = {tuple: TUPLE, list: LIST, dict: DICT, _NoneType: NONE}
_CACHE_LIMIT = 4096


class _HandlerTable(dict[type[Any], Any]):
    """``MAP_HANDLERS``: exact type to its map handler (None for leaves).

    The map module installs ``make``, which builds the handler of a type on
    first lookup; every registration clears the table.
    """

    make: Callable[[type[Any]], Any] | None = None

    def __missing__(self, t: type[Any]) -> Any:
        if len(self) > _CACHE_LIMIT:
            self.clear()
        handler = self[t] = self.make(t)  # type: ignore[misc]
        return handler


# ``HANDLERS`` is an exact dict (subscripting a dict subclass costs about 10 ns
# more per lookup, and flattening looks up every child): a missing type raises
# ``KeyError``, and each lookup site calls ``_handlers.handler_of`` then.
HANDLERS: dict[type[Any], Any] = {}
# The same for ``tree_map`` of one tree: ``h(f, x)`` returns the mapped node.
MAP_HANDLERS: dict[type[Any], Any] = _HandlerTable()
# Root type to ``(spec, node, hash, map_treedef, treedef)``: ``spec(tree)`` returns the
# leaves of a tree of that root type whose structure is ``node``, else None,
# or (once a flatten function has run) the ``(leaves, node)`` of the generic
# path; ``hash`` is the hash of a treedef of ``node``; ``map_treedef`` one
# kept for ``tree_map`` where ``node`` has only built-in containers, else
# None; ``treedef`` the one treedef of ``node`` that ``tree_flatten`` returns
# (see ``_specialize``).
SPECS: dict[type[Any], tuple[Callable[[Any], Any], Any, int, Any, Any]] = {}


def _reset_kinds() -> None:
    _KIND.clear()
    _KIND.update(_BUILTIN_KINDS)
    for t in REGISTRY:
        _KIND[t] = CUSTOM
    HANDLERS.clear()
    MAP_HANDLERS.clear()
    SPECS.clear()


def classify(t: type[Any]) -> int:
    """The kind of values of exact type ``t`` (slow path; caches the answer)."""
    kind = _KIND.get(t)
    if kind is not None:
        return kind
    if t in REGISTRY:
        kind = CUSTOM
    elif issubclass(t, tuple) and hasattr(t, "_fields"):
        kind = NAMEDTUPLE
    else:
        kind = LEAF
    if len(_KIND) > _CACHE_LIMIT:
        _reset_kinds()
    _KIND[t] = kind
    return kind


def is_tree_node(typ: type[Any], /) -> bool:
    """Tells whether a type is a pytree node type (built in, registered, or namedtuple).

    Args:
      typ: the type to check.

    Returns:
      True if values of exactly this type are pytree nodes, not leaves.

    Example:
      >>> from tessela_pytree import is_tree_node
      >>> is_tree_node(dict), is_tree_node(int)
      (True, False)
    """
    return classify(typ) != LEAF


def _add(
    nodetype: type[Any],
    flatten: Callable[[Any], tuple[Iterable[Any], Any]],
    unflatten: Callable[[Any, Iterable[Any]], Any],
    flatten_with_keys: Callable[[Any], tuple[Iterable[tuple[Any, Any]], Any]] | None,
    *,
    is_dataclass: bool = False,
    fields: tuple[tuple[str, ...], tuple[str, ...]] | None = None,
    aux_keys: Callable[[Any], Iterable[Any]] | None = None,
) -> None:
    if not isinstance(nodetype, type):
        raise TypeError(
            f"nodetype must be a class, got {nodetype!r}; register the type "
            "itself, e.g. register_pytree_node(MyClass, flatten, unflatten)."
        )
    if nodetype in REGISTRY or nodetype in _BUILTIN_KINDS:
        what = "dataclass " if is_dataclass else ""
        raise ValueError(f"Duplicate custom {what}PyTreeDef type registration for {nodetype}.")
    REGISTRY[nodetype] = _NodeDef(
        nodetype, flatten, unflatten, flatten_with_keys, is_dataclass, fields, aux_keys
    )
    _KIND[nodetype] = CUSTOM
    HANDLERS.clear()
    MAP_HANDLERS.clear()
    SPECS.clear()


def register_pytree_node(
    nodetype: type[T],
    flatten_func: Callable[[T], tuple[Iterable[Any], Hashable]],
    unflatten_func: Callable[[Any, Iterable[Any]], T],
    flatten_with_keys_func: Callable[[T], tuple[Iterable[tuple[Any, Any]], Hashable]] | None = None,
) -> None:
    """Makes a type a pytree node.

    Args:
      nodetype: the class to register. Exactly this class is affected, not its
        subclasses.
      flatten_func: takes an instance and returns ``(children, aux_data)``:
        an iterable of children (flattened further) and hashable static data.
      unflatten_func: takes ``(aux_data, children)`` and rebuilds an instance.
      flatten_with_keys_func: optional; like ``flatten_func`` but returns
        ``((key, child), ...)`` pairs so that key paths name the children.

    Returns:
      None.

    Raises:
      ValueError: if ``nodetype`` is already registered.

    Example:
      >>> from tessela_pytree import register_pytree_node, tree_structure
      >>> class Pair:
      ...     def __init__(self, a, b):
      ...         self.a, self.b = a, b
      >>> register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda _, c: Pair(*c))
      >>> tree_structure(Pair(1, [2, 3]))
      PyTreeDef(CustomNode(Pair[None], [*, [*, *]]))
    """
    _add(nodetype, flatten_func, unflatten_func, flatten_with_keys_func)


def register_pytree_with_keys(
    nodetype: type[T],
    flatten_with_keys: Callable[[T], tuple[Iterable[tuple[Any, Any]], Hashable]],
    unflatten_func: Callable[[Any, Iterable[Any]], T],
    flatten_func: Callable[[T], tuple[Iterable[Any], Hashable]] | None = None,
) -> None:
    """Makes a type a pytree node whose children have keys.

    Args:
      nodetype: the class to register.
      flatten_with_keys: takes an instance and returns
        ``(((key, child), ...), aux_data)``.
      unflatten_func: takes ``(aux_data, children)`` and rebuilds an instance.
      flatten_func: optional faster flattening without keys; must give the
        same children in the same order and the same ``aux_data``.

    Returns:
      None.

    Raises:
      ValueError: if ``nodetype`` is already registered.

    Example:
      >>> from tessela_pytree import GetAttrKey, keystr, register_pytree_with_keys
      >>> from tessela_pytree import tree_leaves_with_path
      >>> class Pt:
      ...     def __init__(self, x, y):
      ...         self.x, self.y = x, y
      >>> register_pytree_with_keys(
      ...     Pt,
      ...     lambda p: (((GetAttrKey("x"), p.x), (GetAttrKey("y"), p.y)), None),
      ...     lambda _, c: Pt(*c),
      ... )
      >>> [keystr(k) for k, _ in tree_leaves_with_path(Pt(1, 2))]
      ['.x', '.y']
    """
    if flatten_func is None:
        with_keys = flatten_with_keys

        def flatten_func(node: T) -> tuple[Iterable[Any], Hashable]:
            pairs, aux = with_keys(node)
            return [child for _, child in pairs], aux

    _add(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_node_class(cls: Typ, /) -> Typ:
    """Class decorator: registers a class with ``tree_flatten``/``tree_unflatten``.

    Args:
      cls: a class with a method ``tree_flatten(self) -> (children, aux)`` and
        a classmethod ``tree_unflatten(cls, aux, children)``.

    Returns:
      ``cls`` itself, registered.

    Example:
      >>> from tessela_pytree import register_pytree_node_class, tree_leaves
      >>> @register_pytree_node_class
      ... class Box:
      ...     def __init__(self, v):
      ...         self.v = v
      ...     def tree_flatten(self):
      ...         return (self.v,), None
      ...     @classmethod
      ...     def tree_unflatten(cls, aux, children):
      ...         return cls(*children)
      >>> tree_leaves([Box(1), Box((2, 3))])
      [1, 2, 3]
    """
    _add(cls, _method("tree_flatten"), cls.tree_unflatten, None)
    return cls


def register_pytree_with_keys_class(cls: Typ, /) -> Typ:
    """Class decorator: registers a class with ``tree_flatten_with_keys``.

    Args:
      cls: a class with a method ``tree_flatten_with_keys(self)`` returning
        ``(((key, child), ...), aux)``, a classmethod
        ``tree_unflatten(cls, aux, children)`` and optionally ``tree_flatten``.

    Returns:
      ``cls`` itself, registered.

    Example:
      >>> from tessela_pytree import GetAttrKey, register_pytree_with_keys_class
      >>> from tessela_pytree import tree_flatten_with_path
      >>> @register_pytree_with_keys_class
      ... class Named:
      ...     def __init__(self, w):
      ...         self.w = w
      ...     def tree_flatten_with_keys(self):
      ...         return ((GetAttrKey("w"), self.w),), None
      ...     @classmethod
      ...     def tree_unflatten(cls, aux, children):
      ...         return cls(*children)
      >>> tree_flatten_with_path(Named(5))[0]
      [((GetAttrKey(name='w'),), 5)]
    """
    flatten = _method("tree_flatten") if hasattr(cls, "tree_flatten") else None
    register_pytree_with_keys(cls, _method("tree_flatten_with_keys"), cls.tree_unflatten, flatten)
    return cls


def _method(name: str) -> Callable[[Any], Any]:
    def call(obj: Any) -> Any:
        return getattr(obj, name)()

    return call


def _fields_of(nodetype: type[Any]) -> list[tuple[str, bool, bool]] | None:
    """(name, init, static) for each field of a dataclass or attrs class."""
    if dataclasses.is_dataclass(nodetype):
        return [
            (f.name, f.init, bool(f.metadata.get("static", False)))
            for f in dataclasses.fields(nodetype)
        ]
    attrs_fields = getattr(nodetype, "__attrs_attrs__", None)
    if attrs_fields is not None:
        return [
            (a.name, a.init, bool((a.metadata or {}).get("static", False))) for a in attrs_fields
        ]
    return None


def register_dataclass(
    nodetype: Typ,
    data_fields: Sequence[str] | None = None,
    meta_fields: Sequence[str] | None = None,
    drop_fields: Sequence[str] = (),
) -> Typ:
    """Registers a dataclass (or attrs class) as a pytree node.

    Data fields become children; meta fields become static node data, part of
    the treedef. For dataclasses and attrs classes both lists may be omitted:
    fields whose metadata has ``static=True`` are meta fields, the rest data.

    Args:
      nodetype: the class to register.
      data_fields: names of the fields that hold children.
      meta_fields: names of the fields that hold static, hashable data.
      drop_fields: init fields to leave out of the pytree altogether.

    Returns:
      ``nodetype`` itself, so this works as a decorator.

    Raises:
      TypeError: if only one of ``data_fields``/``meta_fields`` is given, or
        neither is and ``nodetype`` is not a dataclass or attrs class.
      ValueError: if the fields do not cover the init fields exactly, overlap,
        or the type is already registered.

    Example:
      >>> import dataclasses
      >>> from tessela_pytree import register_dataclass, tree_flatten
      >>> @register_dataclass
      ... @dataclasses.dataclass
      ... class Layer:
      ...     w: float
      ...     name: str = dataclasses.field(default="dense", metadata={"static": True})
      >>> tree_flatten(Layer(0.5))
      ([0.5], PyTreeDef(CustomNode(Layer[('dense',)], [*])))
    """
    fields = _fields_of(nodetype)
    if data_fields is None or meta_fields is None:
        if (data_fields is None) != (meta_fields is None):
            raise TypeError(
                "register_dataclass: data_fields and meta_fields must both be "
                "specified when either is specified. Got "
                f"data_fields={data_fields!r} meta_fields={meta_fields!r}."
            )
        if fields is None:
            raise TypeError(
                "register_dataclass: data_fields and meta_fields are required "
                f"when nodetype is not a dataclass. Got nodetype={nodetype!r}."
            )
        data_fields = [n for n, _, static in fields if not static]
        meta_fields = [n for n, _, static in fields if static]
        data_fields = [n for n in data_fields if n not in drop_fields]
        meta_fields = [n for n in meta_fields if n not in drop_fields]
    data = tuple(data_fields)
    meta = tuple(meta_fields)
    if fields is not None:
        init = {n for n, is_init, _ in fields if is_init} - set(drop_fields)
        given = {*meta, *data}
        if given != init:
            msg = (
                "data_fields and meta_fields must include all dataclass fields "
                "with ``init=True`` and only them."
            )
            if missing := init - given:
                msg += (
                    f" Missing fields: {missing}. Add them to drop_fields to suppress this error."
                )
            if unexpected := given - init:
                msg += f" Unexpected fields: {unexpected}."
            raise ValueError(msg)
    if overlap := set(data) & set(meta):
        raise ValueError(
            f"data_fields and meta_fields must not overlap. Overlapping fields: {overlap}."
        )

    get_data = _tuple_getter(data)
    get_meta = _tuple_getter(meta)

    def flatten(obj: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        return get_data(obj), get_meta(obj)

    def flatten_with_keys(obj: Any) -> tuple[list[tuple[Any, Any]], tuple[Any, ...]]:
        pairs = [(GetAttrKey(n), getattr(obj, n)) for n in data]
        return pairs, tuple([getattr(obj, n) for n in meta])

    _add(
        nodetype,
        flatten,
        _dataclass_unflatten(nodetype, data, meta),
        flatten_with_keys,
        is_dataclass=True,
        fields=(data, meta),
    )
    return nodetype


def init_order(
    typ: type[Any], data: tuple[str, ...], meta: tuple[str, ...]
) -> tuple[list[str], list[str]] | None:
    """``typ.__init__``'s (positional, keyword-only) parameters when a call
    passing them so binds exactly as keywords would, with the data fields in
    their own order (so subtrees are still built in flattening order); else
    None. Only plain classes with a plain Python ``__init__`` qualify."""
    init: Any = typ.__init__
    new: Any = typ.__new__
    if type(typ) is not type or new is not object.__new__ or type(init) is not FunctionType:
        return None
    code = init.__code__
    if code.co_flags & (CO_VARARGS | CO_VARKEYWORDS) or code.co_posonlyargcount:
        return None
    pos = list(code.co_varnames[1 : code.co_argcount])
    kwonly = list(code.co_varnames[code.co_argcount : code.co_argcount + code.co_kwonlyargcount])
    params = pos + kwonly
    wanted = set(data) | set(meta)
    if len(params) != len(wanted) or set(params) != wanted:
        return None
    if [n for n in params if n in set(data)] != list(data):
        return None
    return pos, kwonly


def _dataclass_unflatten(
    nodetype: type[Any], data: tuple[str, ...], meta: tuple[str, ...]
) -> Callable[[Any, Iterable[Any]], Any]:
    """``unflatten(aux, children)`` calling ``nodetype(field=value, ...)``.

    When every field name is an identifier the call is compiled once with the
    names written out (no per-call dict); otherwise values go through ``**``.
    """
    names = meta + data
    if all(n.isidentifier() and not keyword.iskeyword(n) for n in names):
        aux_vars = "".join(f"m{i}, " for i in range(len(meta)))
        data_vars = "".join(f"d{i}, " for i in range(len(data)))
        values = {n: f"m{i}" for i, n in enumerate(meta)}
        values.update({n: f"d{i}" for i, n in enumerate(data)})
        order = init_order(nodetype, data, meta)
        if order is None:
            args = ", ".join(f"{n}={v}" for n, v in values.items())
        else:  # the same binding, passed positionally
            args = ", ".join([values[n] for n in order[0]] + [f"{n}={values[n]}" for n in order[1]])
        lines = ["def unflatten(aux, children):"]
        lines.append(f"    ({aux_vars}) = aux" if meta else "    () = tuple(aux)")
        lines.append(f"    ({data_vars}) = children" if data else "    () = tuple(children)")
        lines.append(f"    return nodetype({args})")
        namespace: dict[str, Any] = {"nodetype": nodetype}
        exec("\n".join(lines), namespace)
        fn: Callable[[Any, Iterable[Any]], Any] = namespace["unflatten"]
        fn.__qualname__ = f"register_dataclass.<unflatten {nodetype.__qualname__}>"
        return fn

    def unflatten(aux: tuple[Any, ...], children: Iterable[Any]) -> Any:
        return nodetype(**dict(zip(names, (*aux, *children), strict=True)))

    return unflatten


def _tuple_getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A C-level getter returning the named attributes as a tuple."""
    if len(names) >= 2:
        return operator.attrgetter(*names)
    if len(names) == 1:
        get_one = operator.attrgetter(names[0])
        return lambda obj: (get_one(obj),)
    return lambda obj: ()


def register_static(cls: Typ, /) -> Typ:
    """Registers a hashable class as a pytree node with no children.

    Its instances become part of the treedef (static data), never leaves.

    Args:
      cls: a hashable class.

    Returns:
      ``cls`` itself, so this works as a decorator.

    Example:
      >>> from tessela_pytree import register_static, tree_flatten
      >>> @register_static
      ... class Tag(str):
      ...     pass
      >>> tree_flatten([Tag("relu"), 1.0])
      ([1.0], PyTreeDef([CustomNode(Tag[relu], []), *]))
    """
    _add(cls, _static_flatten, _static_unflatten, _static_flatten, aux_keys=_no_keys)
    return cls


def _no_keys(aux: Any) -> tuple[()]:
    return ()


def _static_flatten(obj: Any) -> tuple[list[Any], Any]:
    return [], obj


def _static_unflatten(obj: Any, children: Iterable[Any]) -> Any:
    return obj


_SORT_ERROR = "Comparator raised exception while sorting pytree dictionary keys."


def _sorted_keys(d: dict[Any, Any]) -> tuple[Any, ...]:
    try:
        return tuple(sorted(d))
    except TypeError:
        raise ValueError(_SORT_ERROR) from None


def _one_value(key: Any) -> Callable[[Any], tuple[Any]]:
    get = operator.itemgetter(key)

    def values(d: Any) -> tuple[Any]:
        return (get(d),)

    return values


def _no_values(d: Any) -> tuple[()]:
    return ()


# Dict key tuples (in insertion order) to ``(order, values)``: ``order(keys)``
# is the keys tuple sorted, ``values(d)`` the dict's values in that order.
# Equal key tuples sort in the same order, so the entry serves any dict whose
# keys equal these (``order`` returns that dict's own key objects).
DICT_SORTS: dict[tuple[Any, ...], tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {}


def dict_sort(keys: tuple[Any, ...]) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    """The cached ``(order, values)`` pair of a dict whose keys are ``keys``.

    Raises:
      ValueError: if the keys cannot be sorted (JAX's message).
    """
    try:
        return DICT_SORTS[keys]
    except KeyError:
        pass
    n = len(keys)
    entry: tuple[Callable[[Any], Any], Callable[[Any], Any]]
    if n > 1:
        try:
            perm = sorted(range(n), key=keys.__getitem__)
        except TypeError:
            raise ValueError(_SORT_ERROR) from None
        values = operator.itemgetter(*[keys[i] for i in perm])
        # Keys already in order: ``tuple(keys)`` is ``keys`` itself.
        entry = (tuple if perm == list(range(n)) else operator.itemgetter(*perm), values)
    else:
        entry = (tuple, _one_value(keys[0]) if n else _no_values)
    if len(DICT_SORTS) >= _CACHE_LIMIT:
        DICT_SORTS.clear()
    DICT_SORTS[keys] = entry
    return entry


_reset_kinds()
