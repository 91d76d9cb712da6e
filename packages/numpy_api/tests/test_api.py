"""The public surface: names, signatures and docstrings, and the method table."""

from __future__ import annotations

import inspect

import pytest
import tessela_numpy as tnp
from tessela_numpy._methods import method_table
from tessela_tracer import (
    ARRAY_METHOD_NAMES,
    ShapeDtypeStruct,
    make_jaxpr,
    registered_array_methods,
)

REQUIRED = [
    "array",
    "asarray",
    "zeros",
    "ones",
    "full",
    "empty",
    "zeros_like",
    "ones_like",
    "full_like",
    "empty_like",
    "arange",
    "linspace",
    "eye",
    "identity",
    "where",
    "clip",
    "sum",
    "prod",
    "mean",
    "var",
    "std",
    "max",
    "min",
    "argmax",
    "argmin",
    "all",
    "any",
    "cumsum",
    "cumprod",
    "reshape",
    "ravel",
    "transpose",
    "swapaxes",
    "moveaxis",
    "squeeze",
    "expand_dims",
    "broadcast_to",
    "broadcast_arrays",
    "concatenate",
    "stack",
    "hstack",
    "vstack",
    "split",
    "flip",
    "roll",
    "pad",
    "tile",
    "repeat",
    "dot",
    "matmul",
    "vdot",
    "inner",
    "outer",
    "tensordot",
    "einsum",
    "add",
    "subtract",
    "multiply",
    "divide",
    "power",
    "sin",
    "cos",
    "exp",
    "log",
    "sqrt",
    "tanh",
    "float32",
    "int32",
    "bfloat16",
    "dtype",
    "result_type",
]

FUNCTIONS = [
    n for n in tnp.__all__ if inspect.isfunction(getattr(tnp, n)) and not n.startswith("_")
]


def test_required_names_are_exported() -> None:
    missing = [n for n in REQUIRED if n not in tnp.__all__]
    assert not missing


@pytest.mark.parametrize("name", FUNCTIONS)
def test_public_functions_are_documented_and_annotated(name: str) -> None:
    fn = getattr(tnp, name)
    doc = inspect.getdoc(fn) or ""
    assert "Returns:" in doc and ">>>" in doc, name
    sig = inspect.signature(fn)
    assert sig.return_annotation is not inspect.Signature.empty, name
    for p in sig.parameters.values():
        assert p.annotation is not inspect.Parameter.empty, (name, p.name)


def test_method_table_is_registered_and_valid() -> None:
    table = method_table()
    assert set(table) <= ARRAY_METHOD_NAMES
    registered = registered_array_methods()
    for name in ("__add__", "__getitem__", "__setitem__", "at", "T", "sum", "reshape"):
        assert name in registered


def test_tracers_report_this_package_as_their_namespace() -> None:
    seen: list[object] = []

    def f(x: tnp.ndarray) -> tnp.ndarray:
        seen.append(x.__array_namespace__())
        with pytest.raises(ValueError, match=r"api_version='2021\.12' is not available"):
            x.__array_namespace__(api_version="2021.12")
        return x

    make_jaxpr(f)(ShapeDtypeStruct((2,), "float32"))
    assert seen == [tnp]
