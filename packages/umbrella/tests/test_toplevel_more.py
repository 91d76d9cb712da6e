"""custom_batching, custom_gradient, closure_convert, fwd_and_bwd (against JAX golden data),
profiler, stages, the runtime helpers, the extra error classes and debug.log."""

from __future__ import annotations

import gzip
import json
import logging
import pathlib
from typing import Any

import numpy as np
import pytest
import tessela as tx
import tessela.numpy as tnp
from _golden import cases_module, load_npz
from tessela import custom_batching, errors, monitoring, profiler, stages
from tessela.custom_derivatives import linear_call

transforms_more_cases = cases_module("transforms_more_cases")
GOLDEN = load_npz("transforms_more_golden.npz")


@pytest.fixture(scope="module")
def ours() -> dict[str, Any]:
    """Every transform case's result here (run once, at first use)."""
    out: dict[str, Any] = transforms_more_cases.run(tx)
    return out


# JAX 0.10.2 runs an untransformed custom_vjp function on Python floats as
# Python (a float64 result); Tessela's custom_vjp returns a float32 array.
_DTYPE_DIFFERS = {"cg/value"}


def test_every_transform_case_was_recorded(ours: dict[str, Any]) -> None:
    assert sorted(ours) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_transform_case_matches_jax(ours: dict[str, Any], name: str) -> None:
    got, want = ours[name], GOLDEN[name]
    assert got.shape == want.shape
    assert got.dtype == want.dtype or name in _DTYPE_DIFFERS
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_custom_vmap_errors() -> None:
    @custom_batching.custom_vmap
    def f(x: Any) -> Any:
        return x * 2

    with pytest.raises(AttributeError, match="No batching rule defined for custom_vmap function f"):
        tx.vmap(f)(tnp.ones(3))

    @f.def_vmap
    def two_outputs(n: int, b: list[bool], xs: Any) -> Any:
        return (xs, xs), True

    with pytest.raises(ValueError, match="structure of output value and output batching"):
        tx.vmap(f)(tnp.ones(3))

    @f.def_vmap
    def wrong_shape(n: int, b: list[bool], xs: Any) -> Any:
        return xs[0], True

    with pytest.raises(ValueError, match=r"expected shape \(3,\)"):
        tx.vmap(f)(tnp.ones(3))
    assert "custom_vmap_call" in str(tx.make_jaxpr(f)(1.0))


def test_custom_vmap_keyword_arguments_and_unbatched_call() -> None:
    @custom_batching.custom_vmap
    def f(x: Any, y: Any = 1.0) -> Any:
        return x + y

    @f.def_vmap
    def rule(n: int, b: list[bool], x: Any, y: Any) -> Any:
        return x + y + 100.0, True

    assert float(f(1.0, y=2.0)) == 3.0
    # Under vmap with nothing batched, the function itself runs.
    out = tx.vmap(lambda z: f(1.0, y=2.0) + z)(tnp.zeros(2))
    np.testing.assert_allclose(np.asarray(out), [3.0, 3.0])


def test_custom_gradient_checks_cotangent_structure() -> None:
    @tx.custom_gradient
    def f(x: Any) -> Any:
        return (x, x), lambda ct: ct[0] + ct[1]

    assert float(tx.grad(lambda x: f(x)[0] + 2 * f(x)[1])(1.0)) == 3.0
    assert float(tx.grad(lambda x: (lambda o: o[0] * o[1])(f(x)))(2.0)) == 4.0


def test_closure_convert_rejects_other_structure() -> None:
    conv, consts = tx.closure_convert(lambda a, b: a + b, 1.0, 2.0)
    assert consts == []
    with pytest.raises(TypeError, match="same Pytree structure"):
        conv((1.0, 2.0))


def test_profiler_writes_a_trace_that_names_the_annotations(tmp_path: pathlib.Path) -> None:
    @profiler.annotate_function
    def step(x: Any) -> Any:
        return (x * 2).block_until_ready()

    with profiler.trace(tmp_path, create_perfetto_trace=True):
        for i in range(2):
            with (
                profiler.StepTraceAnnotation("train", step_num=i),
                profiler.TraceAnnotation("my_label"),
            ):
                step(tnp.ones(4))
    runs = list((tmp_path / "plugins" / "profile").iterdir())
    assert len(runs) == 1
    files = {p.name for p in runs[0].iterdir()}
    assert any(n.endswith(".xplane.pb") for n in files)
    assert "perfetto_trace.json.gz" in files
    (trace_file,) = runs[0].glob("*.trace.json.gz")
    names = {
        e.get("name") for e in json.loads(gzip.decompress(trace_file.read_bytes()))["traceEvents"]
    }
    assert {"my_label", step.__qualname__, "train"} <= names
    perfetto = json.loads(gzip.decompress((runs[0] / "perfetto_trace.json.gz").read_bytes()))
    assert "metadata" not in perfetto
    (xplane,) = runs[0].glob("*.xplane.pb")
    data = profiler.ProfileData.from_file(str(xplane))
    assert any(plane.name for plane in data.planes)


def test_profiler_errors_and_server(tmp_path: pathlib.Path) -> None:
    with pytest.raises(RuntimeError, match="No profile started"):
        profiler.stop_trace()
    profiler.start_trace(tmp_path)
    try:
        with pytest.raises(RuntimeError, match="Only one profile may be run at a time"):
            profiler.start_trace(tmp_path)
    finally:
        profiler.stop_trace()
    with pytest.raises(ValueError, match="No active profiler server"):
        profiler.stop_server()
    profiler.start_server(9877)
    try:
        with pytest.raises(ValueError, match="Only one profiler server"):
            profiler.start_server(9878)
    finally:
        profiler.stop_server()
    opts = profiler.ProfileOptions()
    opts.host_tracer_level = 1
    with profiler.trace(tmp_path / "opts", profiler_options=opts):
        tnp.ones(2).block_until_ready()
    assert (tmp_path / "opts" / "plugins" / "profile").is_dir()


def test_device_memory_profile_is_gzipped_pprof(tmp_path: pathlib.Path) -> None:
    keep = tnp.ones((64, 64))
    raw = gzip.decompress(profiler.device_memory_profile())
    assert len(raw) > 0
    profiler.save_device_memory_profile(tmp_path / "mem.prof")
    assert gzip.decompress((tmp_path / "mem.prof").read_bytes())
    del keep


def test_stages_classes() -> None:
    f = tx.jit(lambda x: x * 2)
    traced = f.trace(tnp.ones(3))
    lowered = f.lower(tnp.ones(3))
    compiled = lowered.compile()
    assert isinstance(traced, stages.Traced)
    assert isinstance(lowered, stages.Lowered)
    assert isinstance(compiled, stages.Compiled)
    info = stages.ArgInfo(tx.typeof(tnp.ones((2, 3))), donated=True)
    assert info.shape == (2, 3) and info.dtype == np.float32 and info.donated
    assert info == stages.ArgInfo(tx.typeof(tnp.ones((2, 3))), True)
    with pytest.raises(TypeError, match="No shape attribute"):
        _ = stages.ArgInfo(object(), False).shape
    options: stages.CompilerOptions = {"xla_cpu_enable_fast_math": False}
    assert options


def test_runtime_helpers() -> None:
    x = tnp.arange(5.0)
    assert any(a is x for a in tx.live_arrays())
    assert any(a is x for a in tx.live_arrays("cpu"))
    assert tx.live_arrays("gpu") == [] or tx.default_backend() == "gpu"
    tree = {"a": x, "b": [1, "s"]}
    assert tx.copy_to_host_async(tree) is tree
    assert (tx.host_count(), tx.host_id(), tx.host_ids()) == (
        tx.process_count(),
        tx.process_index(),
        list(range(tx.process_count())),
    )


def test_transfer_guards_accept_allow_and_refuse_what_they_cannot_check() -> None:
    with tx.transfer_guard("allow"), tx.transfer_guard_host_to_device("allow"):
        assert tx.config.read("jax_transfer_guard_host_to_device") == "allow"
        np.testing.assert_allclose(np.asarray(tx.jit(lambda a: a + 1)(np.ones(2))), [2.0, 2.0])
    for level in ("log", "disallow", "log_explicit", "disallow_explicit"):
        with pytest.raises(NotImplementedError, match="does not watch"), tx.transfer_guard(level):
            pass
        with (
            pytest.raises(NotImplementedError, match="does not watch"),
            tx.transfer_guard_device_to_host(level),
        ):
            pass
    with pytest.raises(ValueError, match="level must be one of"), tx.transfer_guard("sometimes"):
        pass
    assert tx.config.read("jax_transfer_guard_device_to_host") == "allow"


def test_error_classes() -> None:
    assert issubclass(errors.KeyReuseError, errors.JAXTypeError)
    assert issubclass(errors.JAXIndexError, IndexError)
    assert issubclass(errors.JaxprTypeError, TypeError)
    assert issubclass(errors.InconclusiveDimensionOperation, Exception)


def test_debug_log_goes_to_the_logger_with_runtime_values(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="tessela.debug"):
        tx.jit(lambda x: tx.debug.log("x = {x}", x=x * 2))(tnp.arange(3.0))
        tx.debug.log("plain", 7)
        tx.effects_barrier()
    messages = [r.getMessage() for r in caplog.records if r.name == "tessela.debug"]
    assert messages == ["x = [0. 2. 4.]", "plain 7"]
    assert all(r.filename == pathlib.Path(__file__).name for r in caplog.records)


def test_version_module() -> None:
    assert isinstance(tx.version.__version__, str)
    assert tx.version.__version_info__[:2] == tuple(
        int(p) for p in tx.version.__version__.split(".")[:2]
    )


def test_monitoring_listeners_receive_every_kind_of_event() -> None:
    got: list[tuple[Any, ...]] = []

    def on_event(event: str, **kw: Any) -> None:
        got.append(("event", event, kw))

    def on_duration(event: str, secs: float, **kw: Any) -> None:
        got.append(("duration", event, secs, kw))

    def on_span(event: str, start: float, end: float, **kw: Any) -> None:
        got.append(("span", event, start, end))

    def on_scalar(event: str, value: float, **kw: Any) -> None:
        got.append(("scalar", event, value))

    monitoring.register_event_listener(on_event)
    monitoring.register_event_duration_secs_listener(on_duration)
    monitoring.register_event_time_span_listener(on_span)
    monitoring.register_scalar_listener(on_scalar)
    try:
        monitoring.record_event("/a", step=1)
        monitoring.record_event_duration_secs("/b", 0.5, tag="x")
        monitoring.record_event_time_span("/c", 1.0, 2.0)
        monitoring.record_scalar("/d", 7)
        monitoring.unregister_event_listener(on_event)
        monitoring.record_event("/a")
        with pytest.raises(AssertionError):
            monitoring.unregister_event_listener(on_event)
    finally:
        monitoring.clear_event_listeners()
    monitoring.record_scalar("/d", 8)
    assert got == [
        ("event", "/a", {"step": 1}),
        ("duration", "/b", 0.5, {"tag": "x"}),
        ("span", "/c", 1.0, 2.0),
        ("scalar", "/d", 7),
    ]


def test_dlpack_round_trips_and_checks_its_argument() -> None:
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    arr = tx.dlpack.from_dlpack(host)
    assert isinstance(arr, tx.Array) and arr.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(arr), host)
    again = tx.dlpack.from_dlpack(arr, device=tx.devices()[0])
    np.testing.assert_array_equal(np.asarray(again), host)
    assert tx.dlpack.from_dlpack(np.arange(3)).dtype == np.int32  # x32, as JAX
    with pytest.raises(TypeError, match="must have __dlpack__ and __dlpack_device__"):
        tx.dlpack.from_dlpack([1, 2])
    assert tx.dlpack.is_supported_dtype(np.complex64)
    assert tx.dlpack.is_supported_dtype(tnp.bfloat16)
    assert not tx.dlpack.is_supported_dtype("float8_e4m3fn")
    with pytest.raises(TypeError, match="Expected a string or dtype-like object"):
        tx.dlpack.is_supported_dtype(None)


def test_linear_call_batches_and_checks_its_transpose() -> None:
    def g(x: Any) -> Any:
        return linear_call(lambda r, v: r * v, lambda r, ct: 10.0 * r * ct, 2.0, x)

    xs = tnp.arange(3.0)
    np.testing.assert_allclose(np.asarray(tx.vmap(g)(xs)), [0.0, 2.0, 4.0])
    np.testing.assert_allclose(np.asarray(tx.vmap(tx.grad(g))(xs)), [20.0] * 3)
    np.testing.assert_allclose(
        np.asarray(tx.grad(lambda v: tnp.sum(tx.vmap(g)(v)))(xs)), [20.0] * 3
    )
    with pytest.raises(ValueError, match="residual arguments"):
        tx.grad(lambda r: linear_call(lambda a, v: a * v, lambda a, ct: a * ct, r, 3.0))(2.0)

    def bad(x: Any) -> Any:
        return linear_call(lambda r, v: v[0] + v[1], lambda r, ct: ct, (), (x, x))

    assert float(bad(1.0)) == 2.0
    with pytest.raises(TypeError, match="transpose output pytree structure must match"):
        tx.grad(bad)(1.0)


def test_linear_call_keeps_no_traced_residual_after_its_trace() -> None:
    # The transpose's thunk outlives the call: holding the residuals, it kept
    # a jit argument's tracer alive (the leak checker reported it).
    def h(r: Any, x: Any) -> Any:
        return tx.grad(lambda v: linear_call(lambda a, w: a * w, lambda a, ct: a * ct, r, v))(x)

    before = tx.config.read("jax_check_tracer_leaks")
    tx.config.update("jax_check_tracer_leaks", True)
    try:
        assert float(tx.jit(h)(2.0, 3.0)) == 2.0
    finally:
        tx.config.update("jax_check_tracer_leaks", before)
