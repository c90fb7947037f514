"""``bank_conflicts`` (Gluon's): how many extra passes over the shared memory banks the
accesses of ``smem.load(layout)`` and ``smem.store(x)`` need.

The count is the compiler's (C++, ``countBankConflicts``): it replays the accesses the
lowering of local_load / local_store issues, with their vector width and addresses, over a
model of the banks (32 banks of 4 bytes). kiln.language imports nothing of kiln.compiler, so
the compiler installs the counter here when it loads (:func:`set_bank_conflicts_oracle`), as
it installs the layout oracle.
"""

from __future__ import annotations

from typing import Callable, Optional

from . import _cga
from ._core import _unwrap, builtin, constexpr, distributed_type, shared_memory_descriptor_type
from ._layouts import is_inferred

# ``oracle(tensor_type_text, memdesc_type_text, target) -> int``, raising ValueError with the
# reason when the lowering could not address the buffer with the tensor's layout.
_bank_oracle: Optional[Callable[[str, str, str], int]] = None


def set_bank_conflicts_oracle(oracle: Optional[Callable[[str, str, str], int]]) -> None:
    global _bank_oracle
    _bank_oracle = oracle


@builtin
def bank_conflicts(distr_ty, shared_ty, _semantic=None):
    """The bank conflicts of moving a tensor of type ``distr_ty`` (a :class:`distributed_type`)
    from or to a buffer of type ``shared_ty`` (a :class:`shared_memory_descriptor_type`) with
    ``load`` / ``store``: the passes over the shared memory banks that each wavefront of each
    load or store instruction needs beyond the first (a constexpr int; 0 is conflict-free).

    Shared memory is modelled as the target's banks of 4 bytes (its table's count: 32 or 64),
    word ``w`` in bank ``w % banks``; one pass serves the accesses of as many lanes as fill
    the banks with their vectors (on 32 banks: 8 lanes of 16-byte vectors, 16 of 8-byte ones,
    32 otherwise), consecutive lanes unless the target pairs others for 16-byte reads (its
    table's lane bits; docs/shared-memory.md names them); each bank delivers one word per pass
    (lanes reading or writing the same word share it). The accesses are the ones Kiln's
    lowering issues for the element-wise path: its vector width (consecutive registers in
    order, at most 16 bytes, within a padding interval) and its addresses, padding
    included. Where every instruction and wavefront do not need the same
    number (padded layouts), the count is the largest. Not counted: the warp-wide 8x8 matrix
    loads and stores some targets use instead for 16-bit tensors, and the wider accesses the
    code generator sometimes merges the lowering's into (docs/shared-memory.md).

    As in Gluon: TypeError when ``distr_ty`` or ``shared_ty`` has the wrong kind, ValueError
    when their shapes or element types differ, or when ``shared_ty`` is a subslice (its shape
    is not the trailing dimensions of its allocation's). Kiln also refuses automatic
    layouts."""
    distr_ty = _unwrap(distr_ty)
    shared_ty = _unwrap(shared_ty)
    if not isinstance(distr_ty, distributed_type):
        raise TypeError(f"bank_conflicts: distr_ty must be a distributed_type (a tensor's "
                        f"type), got {type(distr_ty).__name__} {distr_ty!r}")
    if not isinstance(shared_ty, shared_memory_descriptor_type):
        raise TypeError(f"bank_conflicts: shared_ty must be a shared_memory_descriptor_type "
                        f"(a buffer's type), got {type(shared_ty).__name__} {shared_ty!r}")
    if distr_ty.shape != shared_ty.shape:
        raise ValueError(f"bank_conflicts: the tensor's shape {list(distr_ty.shape)} and the "
                         f"buffer's shape {list(shared_ty.shape)} differ")
    if distr_ty.element_ty != shared_ty.element_ty:
        raise ValueError(f"bank_conflicts: the tensor's element type {distr_ty.element_ty} "
                         f"and the buffer's {shared_ty.element_ty} differ")
    rank = len(shared_ty.shape)
    if tuple(shared_ty.alloc_shape[len(shared_ty.alloc_shape) - rank:]) != shared_ty.shape:
        raise ValueError(f"bank_conflicts: subslices are not supported: the buffer's shape "
                         f"{list(shared_ty.shape)} is not the trailing dimensions of its "
                         f"allocation's {list(shared_ty.alloc_shape)}")
    layout = distr_ty.layout
    if is_inferred(layout):
        raise ValueError(f"bank_conflicts: the tensor's layout {layout!r} is chosen by the "
                         f"compiler later; give a concrete register layout")
    if _bank_oracle is None:  # pragma: no cover - the compiler installs it before compiling
        raise RuntimeError("bank_conflicts needs Kiln's compiler library")
    # One CTA's part: what the IR holds (the buffer's type already is).
    shape = distr_ty.shape
    if layout.cga_bases:
        shape = _cga.per_cta_shape(shape, layout.cga_bases, "bank_conflicts")
        layout = layout.without_cga()
    tensor_text = (f"tensor<{'x'.join(str(d) for d in shape)}x{distr_ty.element_ty.to_ir()}, "
                   f"{layout.to_ir()}>")
    return constexpr(_bank_oracle(tensor_text, shared_ty.to_ir(), _semantic.target))
