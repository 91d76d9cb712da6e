"""Primitives, traces and tracers: the stackless core.

The current trace lives in a ContextVar. ``Primitive.bind`` hands its operands
to the current trace's ``process_primitive``. Every trace has a parent (the
trace that was current when it started) and an identity tag; it treats values
that are not its own tracers as constants and runs rules under its parent.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # TypeIs needs typing_extensions 4.10; the package allows 4.8
    from typing_extensions import TypeIs

from tessela_tracer._avals import ShapedArray, get_aval
from tessela_tracer._errors import (
    ConcretizationTypeError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
    UnexpectedTracerError,
    conversion_context,
)
from tessela_tracer._leaks import check_no_leaks
from tessela_tracer._traced_array import TracedArray

__all__ = [
    "EvalTrace",
    "Primitive",
    "Trace",
    "Tracer",
    "abstract_eval_rule",
    "find_impl",
    "get_current_trace",
    "new_trace",
    "register_abstract_eval",
    "register_impl",
    "set_current_trace",
    "set_eager_backend",
    "trace_of",
]

AbstractEvalRule = Callable[..., Any]

_abstract_eval_rules: dict[Primitive, AbstractEvalRule] = {}
_impl_rules: dict[Primitive, Callable[..., Any]] = {}

EagerBackend = Callable[["Primitive", Sequence[Any], dict[str, Any]], Any]
"""``backend(prim, args, params)``: run ``prim`` on concrete operands."""

# The one backend that runs primitives without a registered implementation
# (tessela_lowering installs XLA here), and the test of which it can run.
_eager_backend: tuple[EagerBackend, Callable[[Primitive], bool]] | None = None


class Primitive:
    """An operation that transformations interpret by rule tables.

    Arrays are positional operands of :meth:`bind`; parameters are
    keyword-only static (hashable, or jaxpr-valued) values.

    Example:
        >>> p = Primitive("my_double")
        >>> p.name
        'my_double'
    """

    __slots__ = ("__weakref__", "multiple_results", "name")

    def __init__(self, name: str, *, multiple_results: bool = False) -> None:
        self.name = name
        self.multiple_results = multiple_results

    def __repr__(self) -> str:
        return self.name

    def bind(self, *args: object, **params: Any) -> Any:
        """Apply the primitive under the current trace.

        Args:
          *args: the operands: arrays, tracers, Python scalars, tokens, or any
            value a trace understands (a transformation's own values, such as
            symbolic zeros, reach its trace; the type is ``object`` for them).
          **params: static parameters.

        Returns:
          One output, or a list for ``multiple_results`` primitives (typed
          ``Any``: which of the two depends on the primitive).
        """
        return _current_trace.get().process_primitive(self, args, params)

    def abstract_eval(self, *avals_in: ShapedArray, **params: Any) -> Any:
        """Compute output avals from input avals with the registered rule.

        Args:
          *avals_in: input abstract values.
          **params: the primitive's parameters.

        Returns:
          One ShapedArray, or a list for ``multiple_results`` primitives.
        """
        try:
            rule = _abstract_eval_rules[self]
        except KeyError:
            raise NotImplementedError(
                f"primitive {self.name!r} has no abstract evaluation rule; "
                "register one with register_abstract_eval"
            ) from None
        return rule(*avals_in, **params)


def register_abstract_eval(prim: Primitive, rule: AbstractEvalRule, /) -> None:
    """Register the shape/dtype rule of a primitive.

    Args:
      prim: the primitive.
      rule: ``rule(*avals_in, **params)`` returning the output aval (or a list
        for ``multiple_results`` primitives).

    Returns:
      None.

    Example:
        >>> p = Primitive("ident_example")
        >>> register_abstract_eval(p, lambda x: x)
        >>> p.abstract_eval(ShapedArray((2,), "float32"))
        ShapedArray(float32[2])
    """
    _abstract_eval_rules[prim] = rule


def abstract_eval_rule(prim: Primitive, /) -> AbstractEvalRule | None:
    """Return the registered abstract-eval rule of ``prim``, if any.

    Args:
      prim: the primitive.

    Returns:
      The rule or None.

    Example:
        >>> abstract_eval_rule(Primitive("no_rule_example")) is None
        True
    """
    return _abstract_eval_rules.get(prim)


def register_impl(prim: Primitive, rule: Callable[..., Any], /) -> None:
    """Register the eager implementation of a primitive.

    A primitive has one owner of its eager implementation. Bound on concrete
    operands it runs, in this order: the rule registered here; else the eager
    backend (:func:`set_eager_backend`, installed by tessela-lowering, which
    compiles the one equation with XLA) when that backend can run it; else it
    raises. Registering a second, different rule for the same primitive is an
    error, so a plugin's implementation is never replaced silently.

    Args:
      prim: the primitive.
      rule: ``rule(*args, **params)`` computing concrete outputs.

    Returns:
      None.

    Raises:
      ValueError: ``prim`` already has a different implementation.

    Example:
        >>> p = Primitive("twice_example")
        >>> register_impl(p, lambda x: 2 * x)
        >>> p.bind(3)
        6
    """
    old = _impl_rules.get(prim)
    if old is not None and old is not rule:
        raise ValueError(
            f"primitive {prim.name!r} already has an eager implementation ({old!r}); "
            "a primitive has one owner of its implementation. Define a new primitive "
            "instead of replacing the implementation of an existing one."
        )
    _impl_rules[prim] = rule


def set_eager_backend(backend: EagerBackend, handles: Callable[[Primitive], bool], /) -> None:
    """Install the backend that runs primitives without their own implementation.

    tessela-lowering installs XLA here when imported: a primitive bound on
    concrete operands, with no :func:`register_impl` rule, is compiled as one
    equation when ``handles(prim)`` is true (it has a lowering rule).

    Args:
      backend: ``backend(prim, args, params)`` returning the outputs.
      handles: ``handles(prim)``, whether the backend can run ``prim``.

    Returns:
      None.
    """
    global _eager_backend
    _eager_backend = (backend, handles)


def find_impl(prim: Primitive, /) -> Callable[..., Any] | None:
    """Return the eager implementation of ``prim``, if registered.

    Args:
      prim: the primitive.

    Returns:
      The rule or None.

    Example:
        >>> find_impl(Primitive("none_example")) is None
        True
    """
    return _impl_rules.get(prim)


_tags = itertools.count()


class Trace:
    """Base class of traces: interprets primitives for one transformation.

    A transformation subclasses ``Trace`` and ``Tracer``. Its trace is made
    current with :func:`new_trace`; :meth:`Primitive.bind` then hands every
    primitive to its :meth:`process_primitive`, which unwraps the operands that
    are its own tracers (:meth:`owns`), treats every other value as a constant,
    applies its rule while its ``parent`` is current (``with
    set_current_trace(self.parent):``) and wraps the results in new tracers.

    Attributes:
      parent: the trace that was current when this one was created (None only
        for the root :class:`EvalTrace`).
      tag: an integer unique to this trace.
      valid: True until :func:`new_trace` exits; a tracer of an invalid trace
        raises :class:`~tessela_tracer.errors.UnexpectedTracerError` when used.
      tracer_name: the class attribute naming the transformation's tracers:
        a tracer prints as ``f"{tracer_name}<{aval.str_short()}>"``, e.g.
        ``JitTracer<float32[3]>``. The default ``"Tracer"`` names no
        transformation; set it in every subclass.

    Example:
        >>> class Nop(Trace):
        ...     tracer_name = "NopTracer"
        >>> t = Nop()
        >>> t.parent is get_current_trace(), t.valid
        (True, True)
    """

    __slots__ = ("parent", "tag", "valid")
    tracer_name = "Tracer"

    def __init__(self, parent: Trace | None = None) -> None:
        """Create a trace.

        Args:
          parent: the trace this one runs its rules under; by default the
            trace current at creation, which is what a transformation wants.
        """
        # With no parent given, the current trace is the parent; only the root
        # trace, made before the context variable exists, has none.
        if parent is None and "_current_trace" in globals():
            parent = _current_trace.get()
        self.parent = parent
        self.tag = next(_tags)
        self.valid = True

    def release(self) -> None:
        """Drop what the trace keeps for its own use, once its :func:`new_trace` exits.

        Called before the leak check (``jax_check_tracer_leaks``): a cache the
        trace keeps must not hold the user's functions or values past the
        trace's end. The default does nothing.

        Returns:
          None.
        """

    def owns(self, x: object, /) -> TypeIs[Tracer]:
        """Whether ``x`` is one of this trace's tracers.

        Everything else (arrays, Python scalars, tracers of other traces) is a
        constant to this trace.

        Args:
          x: any value.

        Returns:
          True when ``x`` is a :class:`Tracer` whose trace is ``self``.

        Example:
            >>> class Nop(Trace):
            ...     pass
            >>> t = Nop()
            >>> t.owns(Tracer(t)), t.owns(1.0), Nop().owns(Tracer(t))
            (True, False, False)
        """
        return isinstance(x, Tracer) and x._trace is self

    def process_primitive(
        self, prim: Primitive, args: Sequence[object], params: dict[str, Any]
    ) -> Any:
        """Interpret ``prim`` applied to ``args``.

        Args:
          prim: the primitive.
          args: operands (this trace's tracers or constants).
          params: the primitive's parameters.

        Returns:
          The outputs (a list for ``multiple_results`` primitives).
        """
        raise NotImplementedError

    def describe_function(self) -> str:
        """Name the function this trace is tracing, for error messages.

        The contract: ``""`` when unknown, else a phrase naming the function
        and the transformation (``"f at /path/file.py:12 traced for
        interval"``; :func:`~tessela_tracer.extend.debug_info_for` gives the
        parts) that completes the sentence "The function being traced when the
        value leaked was ..." of ``UnexpectedTracerError``. It must not raise.

        Returns:
          The description, or ``""``.

        Example:
            >>> Trace().describe_function()
            ''
        """
        return ""

    def describe_provenance(self, tracer: Tracer) -> str:
        """Explain where one of this trace's tracers comes from, for error messages.

        The contract: called with a tracer of this trace that cannot become a
        concrete value; ``""`` when there is nothing to say, else whole
        sentences ("The error occurred while tracing the function f at
        file.py:3 for interval.") appended on their own line to
        ``TracerBoolConversionError``, ``ConcretizationTypeError``,
        ``TracerIntegerConversionError`` and ``TracerArrayConversionError``.
        It must not raise.

        Args:
          tracer: a tracer of this trace.

        Returns:
          The explanation, or ``""``.

        Example:
            >>> t = Trace()
            >>> t.describe_provenance(Tracer(t))
            ''
        """
        return ""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(tag={self.tag})"


class EvalTrace(Trace):
    """The root trace: runs each primitive's registered eager implementation."""

    __slots__ = ()

    def process_primitive(
        self, prim: Primitive, args: Sequence[object], params: dict[str, Any]
    ) -> Any:
        for a in args:
            if isinstance(a, Tracer):
                raise UnexpectedTracerError(a)
        rule = _impl_rules.get(prim)
        if rule is not None:
            return rule(*args, **params)
        if _eager_backend is not None and _eager_backend[1](prim):
            return _eager_backend[0](prim, args, params)
        if _eager_backend is None:
            fix = (
                "Install tessela-lowering and `import tessela_lowering` (or `import tessela`) "
                "to run operations on concrete arrays, or trace the function with "
                "make_jaxpr / eval_shape instead."
            )
        else:
            fix = (
                "Give it an implementation with register_impl(prim, rule), or a lowering "
                "with tessela_lowering.register_lowering(prim, rule) so that XLA runs it."
            )
        raise NotImplementedError(
            f"no eager implementation is registered for primitive {prim.name!r}. {fix}"
        )


_root_trace = EvalTrace(parent=None)
_current_trace: ContextVar[Trace] = ContextVar("tessela_current_trace", default=_root_trace)


def get_current_trace() -> Trace:
    """Return the trace that ``bind`` currently dispatches to.

    Returns:
      The current trace (the root ``EvalTrace`` outside any transformation).

    Example:
        >>> isinstance(get_current_trace(), EvalTrace)
        True
    """
    return _current_trace.get()


TraceT = TypeVar("TraceT", bound=Trace)


@contextlib.contextmanager
def set_current_trace(trace: TraceT, /) -> Iterator[TraceT]:
    """Make ``trace`` current inside a ``with`` block.

    A trace's rules run under its parent: ``with set_current_trace(self.parent):``
    inside :meth:`Trace.process_primitive`.

    Args:
      trace: the trace to install.

    Returns:
      A context manager yielding ``trace`` (typed as the trace's own class).

    Example:
        >>> with set_current_trace(get_current_trace()) as t:
        ...     isinstance(t, EvalTrace)
        True
    """
    token = _current_trace.set(trace)
    try:
        yield trace
    finally:
        _current_trace.reset(token)


@contextlib.contextmanager
def new_trace(trace: TraceT, /) -> Iterator[TraceT]:
    """Run a block under a freshly created trace, invalidating it at exit.

    Tracers of ``trace`` that escape the block raise
    :class:`~tessela_tracer.errors.UnexpectedTracerError` when used later (with
    ``jax_check_tracer_leaks`` on, at the block's end when one is still held).
    The context manager yields ``trace`` with its own type, so
    ``with new_trace(MyTrace()) as t: t.my_method()`` type-checks.

    Args:
      trace: a trace whose parent is the current trace.

    Returns:
      A context manager yielding ``trace``.

    Example:
        >>> class Nop(Trace):
        ...     pass
        >>> with new_trace(Nop()) as t:
        ...     t.valid
        True
        >>> t.valid
        False
    """
    token = _current_trace.set(trace)
    try:
        yield trace
    finally:
        _current_trace.reset(token)
        trace.valid = False
        trace.release()
    check_no_leaks(trace, Tracer)  # with jax_check_tracer_leaks on


class Tracer(TracedArray):
    """Base class of tracers: stand-ins for arrays inside a transformation.

    A tracer belongs to one trace, given to ``Tracer.__init__`` (subclasses
    call ``super().__init__(trace)``) and read back with :func:`trace_of` or
    tested with :meth:`Trace.owns`. Subclasses provide :attr:`aval` and may
    override :meth:`to_concrete_value`. Operators, indexing and methods come
    from :class:`~tessela_tracer.typing.Array` and bind primitives, so they reach the current
    trace. Converting a tracer to a Python ``bool``/``int``/``float`` or a
    NumPy array raises the tracing errors, whose text names the
    transformation through ``trace.describe_provenance(tracer)``; it prints as
    ``f"{trace.tracer_name}<{aval.str_short()}>"``.

    Example:
        >>> import numpy as np
        >>> class Boxed(Tracer):
        ...     __slots__ = ("val",)
        ...     def __init__(self, trace, val):
        ...         super().__init__(trace)
        ...         self.val = val
        ...     @property
        ...     def aval(self):
        ...         return get_aval_of(self.val)
        >>> class BoxTrace(Trace):
        ...     tracer_name = "BoxTracer"
        >>> with new_trace(BoxTrace()) as t:
        ...     x = Boxed(t, np.ones(3, np.float32))
        ...     print(x, trace_of(x) is t, t.owns(x))
        BoxTracer<float32[3]> True True
    """

    __slots__ = ("_trace",)
    _trace: Trace

    def __init__(self, trace: Trace, /) -> None:
        """Make a tracer of ``trace``.

        Args:
          trace: the trace this tracer belongs to.
        """
        self._trace = trace

    @property
    def aval(self) -> ShapedArray:
        """The tracer's abstract value (shape, dtype, weak type); subclasses define it."""
        raise NotImplementedError

    def to_concrete_value(self) -> Any:
        """Return a concrete value when the trace knows one, else None.

        ``bool``, ``int``, ``float``, ``complex`` and ``__index__`` use it, so
        Python control flow works on values the transformation knows (a JVP
        tracer of a concrete primal). The default knows none.

        Returns:
          A concrete value (a NumPy value or a concrete array) or None.
        """
        return None

    def __repr__(self) -> str:
        return f"{self._trace.tracer_name}<{self.aval.str_short()}>"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return repr(self)

    def __bool__(self) -> bool:
        val = self.to_concrete_value()
        if val is not None:
            return bool(val)
        raise TracerBoolConversionError(self)

    def __index__(self) -> int:
        val = self.to_concrete_value()
        if val is not None:
            return int(val)
        raise TracerIntegerConversionError(self, "__index__")

    def __int__(self) -> int:
        val = self.to_concrete_value()
        if val is not None:
            return int(val)
        raise ConcretizationTypeError(self, conversion_context("int"))

    def __float__(self) -> float:
        val = self.to_concrete_value()
        if val is not None:
            return float(val)
        raise ConcretizationTypeError(self, conversion_context("float"))

    def __complex__(self) -> complex:
        val = self.to_concrete_value()
        if val is not None:
            return complex(val)
        raise ConcretizationTypeError(self, conversion_context("complex"))

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        raise TracerArrayConversionError(self)

    def __reduce__(self) -> Any:
        raise ConcretizationTypeError(self, "The problem arose with pickling a tracer.")


def trace_of(x: object, /) -> Trace | None:
    """Return the trace a tracer belongs to, or None for a value that is no tracer.

    Args:
      x: any value.

    Returns:
      The tracer's trace, or None.

    Example:
        >>> t = Trace()
        >>> trace_of(Tracer(t)) is t, trace_of(1.0)
        (True, None)
    """
    return x._trace if isinstance(x, Tracer) else None


def get_aval_of(x: object, /) -> ShapedArray:
    """``get_aval`` that also accepts tracers of any trace.

    Args:
      x: an array-like or tracer.

    Returns:
      Its ShapedArray.

    Example:
        >>> get_aval_of(2)
        ShapedArray(int32[], weak_type=True)
    """
    if isinstance(x, Tracer):
        return x.aval
    return get_aval(x)
