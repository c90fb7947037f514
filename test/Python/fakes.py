"""What the fake compilers of the Python tests report as their target table: the fields
kiln.compiler reads from kiln._compiler.known_targets(), for one chip of each vendor."""

FAKE_TARGETS = [
    {"name": "cuda:sm_90a", "vendor": "nvidia", "warp_size": 32, "max_threads_per_block": 1024,
     "assembly": "ptx", "binary": "cubin", "tool_environment": ["KILN_PTXAS"]},
    {"name": "hip:gfx942", "vendor": "amd", "warp_size": 64, "max_threads_per_block": 1024,
     "assembly": "amdgcn", "binary": "hsaco", "tool_environment": ["KILN_LLD"],
     "pointer_range_bytes": 2**31 - 2},
]
