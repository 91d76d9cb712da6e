"""The buffer-level methods of ``Array``: readiness, platform, sizes, bytes, layout, clones.

The values JAX 0.10.2 gives for the same arrays are in the umbrella's
``api_extra_golden.json``; here each method is checked against NumPy and jaxlib.
"""

from __future__ import annotations

import numpy as np
import pytest
import tessela_lowering as tl
from tessela_lowering._array_buffer import Format, Layout


def test_sizes_bytes_and_platform() -> None:
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = tl.device_put(host)
    assert x.platform() == "cpu"
    assert x.is_ready()
    assert x.on_device_size_in_bytes() == host.nbytes
    assert tl.device_put(np.ones(5, np.int8)).on_device_size_in_bytes() == 5
    assert x.tobytes() == host.tobytes()
    assert x.tobytes("F") == host.tobytes("F")
    assert x.unsafe_buffer_pointer() == x._buf.unsafe_buffer_pointer()
    assert x.copy_to_host_async() is None
    np.testing.assert_array_equal(np.asarray(x), host)


def test_clone_shares_the_buffer_and_keeps_the_placement() -> None:
    x = tl.device_put(np.arange(3, dtype=np.int32), tl.devices()[0])
    y = x.clone()
    assert y is not x and y.committed and y.aval == x.aval
    assert y.unsafe_buffer_pointer() == x.unsafe_buffer_pointer()


def test_to_device_commits_and_rejects_streams() -> None:
    x = tl.device_put(np.float32(2.0))
    assert not x.committed
    y = x.to_device(tl.devices()[0])
    assert y.committed and float(y) == 2.0
    assert x.to_device(tl.SingleDeviceSharding(tl.devices()[0])).committed
    with pytest.raises(NotImplementedError, match="stream"):
        x.to_device(tl.devices()[0], stream=0)


def test_format_is_the_layout_and_the_sharding() -> None:
    x = tl.device_put(np.ones((2, 3, 4), np.float32))
    fmt = x.format
    assert isinstance(fmt, Format)
    assert fmt.layout == Layout((0, 1, 2))
    assert fmt.sharding == x.sharding
    assert repr(fmt.layout) == (
        "Layout(major_to_minor=(0, 1, 2), tiling=(), sub_byte_element_size_in_bits=0)"
    )
    assert repr(fmt).startswith("Format(layout=Layout(major_to_minor=(0, 1, 2)")
    assert hash(fmt) == hash(Format(Layout((0, 1, 2)), x.sharding))


def test_deleted_arrays() -> None:
    x = tl.device_put(np.ones(2, np.float32))
    x.delete()
    assert x.format.layout is None
    for method in ("is_ready", "platform", "on_device_size_in_bytes", "unsafe_buffer_pointer",
                   "copy_to_host_async", "clone", "tobytes"):  # fmt: skip
        with pytest.raises(RuntimeError):
            getattr(x, method)()


def test_single_device_sharding_indices() -> None:
    sharding = tl.device_put(1.0).sharding
    device = tl.devices()[0]
    assert sharding.devices_indices_map((2, 3)) == {device: (slice(None), slice(None))}
    assert sharding.devices_indices_map(()) == {device: ()}
