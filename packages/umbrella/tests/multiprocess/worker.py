"""One process of a two-process job on this machine, for ``tests/test_distributed.py``.

Usage: ``worker.py MODE PORT PROCESS_ID`` with ``TESSELA_NUM_CPU_DEVICES`` set.
``compute`` checks the devices, a jitted psum, a sharded matmul and the
``multihost_utils`` functions across both processes and prints one JSON line
of results; ``die`` runs one collective, then process 1 exits abruptly while
process 0 keeps synchronising (the coordination service must end it).
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np
import tessela as tx

MODE, PORT, PID = sys.argv[1], sys.argv[2], int(sys.argv[3])
HEARTBEAT = 3 if MODE == "die" else 10
tx.distributed.initialize(
    f"127.0.0.1:{PORT}", 2, PID, initialization_timeout=20, heartbeat_timeout_seconds=HEARTBEAT
)

# isort: split
import tessela.numpy as tnp  # noqa: E402
from tessela.experimental import multihost_utils as mhu  # noqa: E402
from tessela.sharding import NamedSharding  # noqa: E402
from tessela.sharding import PartitionSpec as P  # noqa: E402


def shards(x: object) -> list[list[object]]:
    """(device id, index starts, values) of each addressable shard."""
    return [
        [s.device.id, [i.start for i in s.index], np.asarray(s.data).tolist()]
        for s in x.addressable_shards  # type: ignore[attr-defined]
    ]


def compute() -> dict[str, object]:
    out: dict[str, object] = {}
    n_local = tx.local_device_count()
    out["ids"] = [tx.process_index(), tx.process_count(), tx.device_count(), n_local]
    out["device_processes"] = [d.process_index for d in tx.devices()]
    out["local_ok"] = all(d.process_index == PID for d in tx.local_devices())
    # Unsharded values and computations stay on this process's first device.
    y = tx.jit(lambda v: v * 2)(np.arange(3.0, dtype=np.float32)) + tnp.ones(3)
    out["default"] = [y.device == tx.local_devices()[0], y.tolist()]
    mesh = tx.make_mesh((tx.device_count(),), ("x",))
    sharding = NamedSharding(mesh, P("x"))
    local = np.arange(n_local, dtype=np.float32) + n_local * PID + 1.0
    x = tx.make_array_from_process_local_data(sharding, local)
    out["x"] = [list(x.shape), x.is_fully_addressable, shards(x)]
    psum = tx.jit(
        tx.shard_map(lambda b: tx.lax.psum(b, "x"), mesh=mesh, in_specs=P("x"), out_specs=P())
    )
    total = psum(x)
    out["psum"] = shards(total)
    out["psum_value"] = [np.asarray(total).tolist(), str(total)]  # replicated: readable
    # A matmul over a 2x2 mesh whose rows are the two processes.
    mesh2 = tx.make_mesh((2, tx.device_count() // 2), ("a", "b"))
    a_host = np.arange(32, dtype=np.float32).reshape(4, 8) / 10
    b_host = np.linspace(-1, 1, 48, dtype=np.float32).reshape(8, 6)
    a = tx.make_array_from_callback(
        a_host.shape, NamedSharding(mesh2, P("a", "b")), lambda i: a_host[i]
    )
    parts = [
        tx.device_put(b_host[:, 3 * (d.id % 2) : 3 * (d.id % 2) + 3], d) for d in tx.local_devices()
    ]
    b = tx.make_array_from_single_device_arrays((8, 6), NamedSharding(mesh2, P(None, "b")), parts)
    c = tx.jit(lambda a, b: tnp.tanh(a @ b))(a, b)
    want = np.tanh(a_host @ b_host)
    out["matmul"] = all(
        np.allclose(np.asarray(s.data), want[s.index], atol=1e-5) for s in c.addressable_shards
    )
    out["matmul_gathered"] = bool(
        np.allclose(mhu.process_allgather(c, tiled=True), want, atol=1e-5)
    )
    try:
        np.asarray(c)
    except RuntimeError as err:
        out["asarray_error"] = "non-addressable" in str(err)
    out["repr"] = repr(c)
    out["allgather"] = mhu.process_allgather(np.array([PID, 10 + PID])).tolist()
    out["allgather_tiled"] = mhu.process_allgather(np.float32(PID), tiled=True).tolist()
    got = mhu.broadcast_one_to_all({"w": np.full(3, 5.0 + PID), "flag": np.bool_(PID == 0)})
    out["broadcast"] = [got["w"].tolist(), bool(got["flag"])]
    mhu.sync_global_devices("after broadcast")
    try:
        mhu.assert_equal(np.int32(PID), "ids differ")
        out["assert_equal_raised"] = False
    except AssertionError as err:
        out["assert_equal_raised"] = str(err).startswith("ids differ")
    mhu.assert_equal({"same": np.ones(2)})
    g = mhu.host_local_array_to_global_array(local, mesh, P("x"))
    back = mhu.global_array_to_host_local_array(g, mesh, P("x"))
    out["roundtrip"] = [list(g.shape), list(back.shape), np.asarray(back).tolist()]
    out["preemption"] = mhu.reached_preemption_sync_point(0)
    with mhu.live_devices(tx.devices()) as alive:
        out["live"] = len(alive)
    return out


def die() -> None:
    mhu.sync_global_devices("start")
    print("synced", flush=True)
    if PID == 1:
        os._exit(7)
    deadline = time.time() + 60
    while time.time() < deadline:  # the coordination service must stop this loop
        mhu.sync_global_devices("loop")
    print("still running", flush=True)


if MODE == "compute":
    print(json.dumps(compute()), flush=True)
else:
    die()
