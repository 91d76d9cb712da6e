"""Public exception classes (``tessela_tracer.errors``), named as in ``jax.errors``."""

from tessela_tracer._dtypes import TypePromotionError
from tessela_tracer._errors import (
    ConcretizationTypeError,
    JAXTypeError,
    NonConcreteBooleanIndexError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
    UnexpectedTracerError,
)

__all__ = [
    "ConcretizationTypeError",
    "JAXTypeError",
    "NonConcreteBooleanIndexError",
    "TracerArrayConversionError",
    "TracerBoolConversionError",
    "TracerIntegerConversionError",
    "TypePromotionError",
    "UnexpectedTracerError",
]
