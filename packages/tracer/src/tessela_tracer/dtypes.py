"""``tessela_tracer.dtypes``: promotion, canonicalization and extended float types."""

from tessela_tracer._dtypes import (
    TypePromotionError,
    bfloat16,
    bool_,
    canonicalize_dtype,
    default_float_dtype,
    default_int_dtype,
    dtype,
    finfo,
    float0,
    float8_e4m3b11fnuz,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    iinfo,
    int4,
    is_weakly_typed,
    issubdtype,
    promote_types,
    result_type,
    short_dtype_name,
    uint4,
)

__all__ = [
    "TypePromotionError", "bfloat16", "bool_", "canonicalize_dtype", "default_float_dtype",
    "default_int_dtype", "dtype", "finfo", "float0", "float8_e4m3b11fnuz", "float8_e4m3fn",
    "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "iinfo", "int4", "is_weakly_typed",
    "issubdtype", "promote_types", "result_type", "short_dtype_name", "uint4",
]  # fmt: skip
