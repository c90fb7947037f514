"""AMD: the HIP runtime library and the gfx architectures Kiln compiles for."""

LIBRARY = "libamdhip64.so"

_BY_ARCH = {"gfx908": "hip:gfx908", "gfx90a": "hip:gfx90a", "gfx942": "hip:gfx942",
            "gfx950": "hip:gfx950"}
TARGETS = tuple(_BY_ARCH.values())


def target_for(info):
    """(Kiln target or None, how the chip is described) for device_info() ``info``."""
    # gcnArchName carries feature suffixes: "gfx942:sramecc+:xnack-".
    arch = info["arch"].split(":")[0]
    return _BY_ARCH.get(arch), arch
