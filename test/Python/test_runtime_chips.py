"""The runtime's chip tables (kiln.runtime.chips.<backend>): what each vendor's driver
reports maps to a Kiln target there and nowhere else; the vendor-neutral driver asks them."""

import pytest

from kiln.runtime import chips
from kiln.runtime.driver import Driver
from kiln.runtime.errors import KilnRuntimeError


@pytest.mark.parametrize("backend,info,target", [
    ("cuda", {"major": 9, "minor": 0}, "cuda:sm_90a"),
    ("cuda", {"major": 8, "minor": 6}, "cuda:sm_80"),
    ("cuda", {"major": 7, "minor": 5}, None),
    ("hip", {"arch": "gfx942:sramecc+:xnack-"}, "hip:gfx942"),
    ("hip", {"arch": "gfx950"}, "hip:gfx950"),
    ("hip", {"arch": "gfx90a:sramecc+:xnack-"}, "hip:gfx90a"),
    ("hip", {"arch": "gfx908:sramecc+:xnack-"}, "hip:gfx908"),
    ("hip", {"arch": "gfx1100"}, None),
])
def test_target_for(backend, info, target):
    assert chips.vendor(backend).target_for(info)[0] == target


def test_every_backend_names_its_library_and_targets():
    assert chips.BACKENDS == ("cuda", "hip")
    assert chips.all_targets() == ["cuda:sm_80", "cuda:sm_90a", "hip:gfx908", "hip:gfx90a",
                                   "hip:gfx942", "hip:gfx950"]
    assert chips.vendor("cuda").LIBRARY == "libcuda.so.1"
    assert chips.vendor("hip").LIBRARY == "libamdhip64.so"
    with pytest.raises(ValueError, match="unknown backend 'metal'"):
        chips.vendor("metal")


class _FakeNative:
    def __init__(self, info):
        self.info = info

    def device_info(self, backend):
        return self.info


def test_unsupported_chip_names_the_supported_ones():
    d = Driver("cuda", _FakeNative({"name": "Tesla T4", "major": 7, "minor": 5}))
    with pytest.raises(KilnRuntimeError, match=r"unsupported GPU 'Tesla T4' \(compute "
                       r"capability 7\.5\); Kiln targets cuda:sm_80, cuda:sm_90a, hip:gfx908, "
                       r"hip:gfx90a, hip:gfx942"):
        d.current_target()
    assert Driver("hip", _FakeNative({"name": "MI300X", "arch": "gfx942:sramecc+"})) \
        .current_target() == "hip:gfx942"
