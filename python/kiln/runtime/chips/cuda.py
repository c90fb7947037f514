"""NVIDIA: the CUDA driver library and the compute capabilities Kiln compiles for."""

LIBRARY = "libcuda.so.1"

# Compute capability major -> Kiln target.
_BY_MAJOR = {9: "cuda:sm_90a", 8: "cuda:sm_80"}
TARGETS = tuple(_BY_MAJOR.values())


def target_for(info):
    """(Kiln target or None, how the chip is described) for device_info() ``info``."""
    return (_BY_MAJOR.get(info["major"]),
            f"compute capability {info['major']}.{info['minor']}")
