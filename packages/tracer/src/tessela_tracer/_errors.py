"""Exception classes raised while tracing, under the names JAX users know."""

from __future__ import annotations

from typing import Any

__all__ = [
    "ConcretizationTypeError",
    "JAXTypeError",
    "NonConcreteBooleanIndexError",
    "TracerArrayConversionError",
    "TracerBoolConversionError",
    "TracerIntegerConversionError",
    "UnexpectedTracerError",
    "conversion_context",
]

_DOCS = "https://docs.jax.dev/en/latest/errors.html#jax.errors."


def _see(name: str) -> str:
    return f"See {_DOCS}{name}"


def _shape_of(tracer: Any) -> str:
    aval = getattr(tracer, "aval", None)
    return aval.str_short() if aval is not None else repr(tracer)


def _provenance(tracer: Any) -> str:
    trace = getattr(tracer, "_trace", None)
    describe = getattr(trace, "describe_provenance", None)
    text: str = describe(tracer) if describe is not None else ""
    return text


class JAXTypeError(TypeError):
    """Base class of the tracing errors that are also ``TypeError``."""


class ConcretizationTypeError(JAXTypeError):
    """A traced (abstract) value was used where a concrete Python value is needed.

    Typical fixes: mark the argument static (``static_argnums``) or use
    structured control flow (``lax.cond``, ``lax.while_loop``).
    """

    def __init__(self, tracer: Any, context: str = "") -> None:
        self.tracer = tracer
        parts = [
            "Abstract tracer value encountered where concrete value is expected: "
            f"traced array with shape {_shape_of(tracer)}"
        ]
        if context:
            parts.append(context)
        prov = _provenance(tracer)
        if prov:
            parts.append(prov)
        parts.append("\n" + _see("ConcretizationTypeError"))
        super().__init__("\n".join(parts))


def conversion_context(fn: str) -> str:
    """The hint for ``int(x)`` / ``float(x)`` / ``complex(x)`` on a traced value."""
    return (
        f"The problem arose with the `{fn}` function. If trying to convert the data type "
        f"of a value, try using `x.astype({fn})` or `tnp.array(x, {fn})` instead."
    )


class TracerBoolConversionError(ConcretizationTypeError):
    """``bool(x)`` (``if x:``, ``and``/``or``, ``while x:``) on a traced value."""

    def __init__(self, tracer: Any) -> None:
        self.tracer = tracer
        msg = f"Attempted boolean conversion of traced array with shape {_shape_of(tracer)}."
        prov = _provenance(tracer)
        if prov:
            msg += "\n" + prov
        TypeError.__init__(self, msg + "\n" + _see("TracerBoolConversionError"))


class TracerIntegerConversionError(JAXTypeError):
    """``int(x)``, ``x.__index__()`` or use as a Python index on a traced value."""

    def __init__(self, tracer: Any, method: str = "__index__") -> None:
        self.tracer = tracer
        msg = f"The {method}() method was called on traced array with shape {_shape_of(tracer)}"
        prov = _provenance(tracer)
        if prov:
            msg += "\n" + prov
        super().__init__(msg + "\n" + _see("TracerIntegerConversionError"))


class TracerArrayConversionError(JAXTypeError):
    """``np.asarray(x)`` on a traced value: NumPy needs concrete data."""

    def __init__(self, tracer: Any) -> None:
        self.tracer = tracer
        msg = (
            "The numpy.ndarray conversion method __array__() was called on traced "
            f"array with shape {_shape_of(tracer)}"
        )
        prov = _provenance(tracer)
        if prov:
            msg += "\n" + prov
        msg += (
            "\nUse the tessela_numpy functions instead of NumPy's on traced values, "
            "or mark the argument static."
        )
        super().__init__(msg + "\n" + _see("TracerArrayConversionError"))


class NonConcreteBooleanIndexError(IndexError):
    """Boolean-mask indexing (``x[x < 0]``) on a traced mask under a transformation."""

    def __init__(self, tracer: Any) -> None:
        self.tracer = tracer
        msg = f"Array boolean indices must be concrete; got {_shape_of(tracer)}\n"
        super().__init__(msg + "\n" + _see("NonConcreteBooleanIndexError"))


class UnexpectedTracerError(Exception):
    """A tracer escaped its transformation (saved to a global, a closure, ...)."""

    def __init__(self, tracer: Any) -> None:
        self.tracer = tracer
        trace = getattr(tracer, "_trace", None)
        kind = type(tracer).__name__
        where = getattr(trace, "describe_function", lambda: "")()
        msg = (
            "Encountered an unexpected tracer. A function transformed by Tessela had a "
            "side effect, allowing for a reference to an intermediate value with type "
            f"{_shape_of(tracer)} wrapped in a {kind} to escape the scope of the "
            "transformation.\nTransformations require that functions explicitly return "
            "their outputs, and disallow saving intermediate values to global state."
        )
        if where:
            msg += f"\nThe function being traced when the value leaked was {where}."
        msg += "\nTo fix, return the value from the transformed function instead of storing it."
        super().__init__(msg + "\n" + _see("UnexpectedTracerError"))
