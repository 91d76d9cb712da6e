import tessela_lowering  # noqa: F401  (eager execution of primitives)
import tessela_numpy  # noqa: F401  (array operators on tracers)
from hypothesis import HealthCheck, settings

settings.register_profile(
    "batching",
    max_examples=8,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("batching")
