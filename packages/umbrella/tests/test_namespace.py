"""The umbrella re-exports the siblings' own objects under JAX's names."""

from __future__ import annotations

import tessela as tx
import tessela.numpy as tnp
import tessela_autodiff
import tessela_batching
import tessela_lowering
import tessela_numpy
import tessela_pytree
import tessela_tracer

TOP_LEVEL = {
    "jit": tessela_lowering.jit,
    "grad": tessela_autodiff.grad,
    "value_and_grad": tessela_autodiff.value_and_grad,
    "jvp": tessela_autodiff.jvp,
    "vjp": tessela_autodiff.vjp,
    "linearize": tessela_autodiff.linearize,
    "jacfwd": tessela_autodiff.jacfwd,
    "jacrev": tessela_autodiff.jacrev,
    "jacobian": tessela_autodiff.jacobian,
    "hessian": tessela_autodiff.hessian,
    "vmap": tessela_batching.vmap,
    "make_jaxpr": tessela_tracer.make_jaxpr,
    "eval_shape": tessela_tracer.eval_shape,
    "custom_jvp": tessela_tracer.custom_jvp,
    "custom_vjp": tessela_tracer.custom_vjp,
    "checkpoint": tessela_tracer.checkpoint,
    "checkpoint_policies": tessela_tracer.checkpoint_policies,
    "devices": tessela_lowering.devices,
    "device_put": tessela_lowering.device_put,
    "device_get": tessela_lowering.device_get,
    "default_device": tessela_lowering.default_device,
    "Array": tessela_tracer.typing.Array,
    "ShapeDtypeStruct": tessela_tracer.ShapeDtypeStruct,
    "process_index": tessela_lowering.process_index,
    "process_count": tessela_lowering.process_count,
    "local_device_count": tessela_lowering.local_device_count,
    "device_count": tessela_lowering.device_count,
    "clear_caches": tessela_lowering.clear_caches,
}


def test_every_name_is_the_siblings_object() -> None:
    for name, obj in TOP_LEVEL.items():
        assert getattr(tx, name) is obj, name
        assert name in tx.__all__, name


def test_all_lists_only_existing_names() -> None:
    for name in tx.__all__:
        assert hasattr(tx, name), name
    assert callable(tx.block_until_ready)


def test_checkpoint_policies_has_jax_names() -> None:
    cp = tx.checkpoint_policies
    for name in [
        "everything_saveable",
        "nothing_saveable",
        "dots_saveable",
        "checkpoint_dots",
        "dots_with_no_batch_dims_saveable",
        "checkpoint_dots_with_no_batch_dims",
        "save_anything_except_these_names",
        "save_any_names_but_these",
        "save_only_these_names",
    ]:
        assert callable(getattr(cp, name)), name
    assert cp.checkpoint_dots is cp.dots_saveable


def test_submodules_reexport_sibling_namespaces() -> None:
    for module, sibling in [
        (tx.tree_util, tessela_pytree),
        (tx.tree, tessela_pytree.tree),
        (tx.errors, tessela_tracer.errors),
    ]:
        assert list(module.__all__) == list(sibling.__all__)
        for name in module.__all__:
            assert getattr(module, name) is getattr(sibling, name), (module.__name__, name)
    assert tnp is tx.numpy


def test_numpy_is_tessela_numpy_plus_the_vmap_helpers() -> None:
    assert sorted(tnp.__all__) == sorted([*tessela_numpy.__all__, "apply_along_axis", "vectorize"])
    for name in tessela_numpy.__all__:
        assert getattr(tnp, name) is getattr(tessela_numpy, name), name
    assert not hasattr(tessela_numpy, "vectorize")


def test_arrays_are_tessela_arrays_on_a_device() -> None:
    x = tnp.arange(5)
    assert isinstance(x, tx.Array)
    assert x.devices() == {tx.devices()[0]}
    assert tx.block_until_ready({"x": x})["x"] is x
    assert tx.device_get(x).tolist() == [0, 1, 2, 3, 4]


def test_lax_holds_the_collectives_and_the_tracer_lax() -> None:
    tlax = tx.lax
    for name in ["psum", "pmean", "pmax", "pmin", "all_gather", "axis_index"]:
        assert getattr(tlax, name) is getattr(tessela_batching, name), name
        assert name in tlax.__all__, name
    for name in tessela_tracer.lax.__all__:
        assert getattr(tlax, name) is getattr(tessela_tracer.lax, name), name
    x = tnp.arange(4.0)
    normalised = tx.vmap(lambda v: v / tlax.psum(v, "i"), axis_name="i")(x)
    assert normalised.tolist() == (x / x.sum()).tolist()
    ranks = tx.vmap(lambda v: tlax.axis_index("i"), axis_name="i")(x)
    assert ranks.tolist() == [0, 1, 2, 3]


def test_jax_top_level_helpers_and_submodules_exist() -> None:
    for name in [
        "disable_jit", "ensure_compile_time_eval", "named_call", "named_scope",
        "print_environment_info", "dtypes", "typing", "ops", "scipy",
    ]:  # fmt: skip
        assert name in tx.__all__ and hasattr(tx, name), name
    import tessela.scipy.special
    import tessela.scipy.stats.norm

    assert tessela.scipy.stats.norm.logpdf is tx.scipy.stats.norm.logpdf
    for module in [tx.scipy, tx.scipy.special, tx.scipy.stats, tx.ops, tx.dtypes, tx.typing]:
        for name in module.__all__:
            assert hasattr(module, name), (module.__name__, name)
    for name in ["canonicalize_dtype", "float0", "bfloat16", "finfo", "iinfo", "result_type"]:
        assert getattr(tx.dtypes, name) is getattr(tessela_tracer.dtypes, name), name
