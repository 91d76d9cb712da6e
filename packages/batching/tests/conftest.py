from hypothesis import HealthCheck, settings

try:
    import tessela_lowering  # noqa: F401  (eager execution of primitives)
    import tessela_numpy  # noqa: F401  (array operators on tracers)
except ImportError:  # installed without the eager runtime: jaxpr-level tests only
    collect_ignore = [
        "test_rules.py",
        "test_control_and_api.py",
        "test_seeds.py",
        "test_rules_linalg.py",
        "test_rules_conv.py",
    ]

settings.register_profile(
    "batching",
    max_examples=8,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("batching")
