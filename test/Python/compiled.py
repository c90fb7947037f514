"""What the tests that compile kernels share: ``compiler`` (kiln._compiler, or None),
``needs_compiler`` (skip, with the import error, when kiln._compiler is not built) and, on import, examples/ on sys.path so that
``from kernels import ...`` finds examples/kernels.py."""

import os
import sys

import pytest

_EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
if _EXAMPLES not in sys.path:
    sys.path.insert(0, _EXAMPLES)

try:
    from kiln import _compiler as compiler
except ImportError as e:  # pragma: no cover - depends on the build
    compiler, _ERR = None, str(e)
else:
    _ERR = None

needs_compiler = pytest.mark.skipif(compiler is None,
                                    reason=f"kiln._compiler is not built ({_ERR})")
