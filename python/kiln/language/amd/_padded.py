"""``amd.cdna4.compute_efficient_padded_shared_layout`` (Gluon's name after Triton 3.6): the
padded shared layout Triton's AMD backend picks for an mfma operand that direct-to-LDS copies
fill, so that the wave's LDS reads of it hit distinct banks.

The choice, as Triton makes it (the same bases, interval and padding for the same inputs):

* The read instruction decides the banks and the padding. K contiguous with 16-byte k_width
  reads ``ds_read_b128`` (64 banks; padding 2 k_width for 16-row mfma, k_width for 32-row);
  K strided with 8 or more k_width bytes reads ``ds_read_b64_tr`` (64 banks; padding 16 or
  32 elements); anything else reads 8 bytes a lane over 32 banks (padding 8 bytes).
* Offsets run first along the contiguous dimension, so a row is contiguous. The interval is
  one wave's worth of 16-byte vectors (64 lanes x 16 bytes): every such block of rows is
  shifted by the padding. Within it, rows are ordered so that the ``wrap`` rows read together
  (as many as a bank row holds paddings, at most 16 where the block is tall enough) fall one
  padding apart: the rows strided by ``wrap`` come first, then the rows below ``wrap``, then
  the rest.
* Two fix-ups: 16-row mfma reading 16 bytes a lane with ``ds_read_b64_tr`` swaps the rows
  for 8 and 16 bytes (its lane groups wrap at 8 bytes); 32-row mfma with ``ds_read_b128``
  and the 16-row wrap, on a K under 256 bytes, swaps the bank row's offset basis with the
  16th row's.
* None where this does not apply: k_width outside {4, 8, 16}, elements other than 4, 8 or
  16 bits, an mfma other than 16 or 32 rows, rows wider than a bank row's paddings allow, or
  blocks too short for the staggering (any bank conflict for ``ds_read_b128``, more than
  two-way otherwise).
"""

from __future__ import annotations

from .._layouts import PaddedSharedLayout

_WAVE = 64


def _log2(n: int) -> int:
    return n.bit_length() - 1


def efficient_padded_layout(op_index, k_width, nonk_instr, elem_bits, shape, k_contig):
    """The layout (or None) for operand ``op_index`` (0: A [M, K], 1: B [K, N]) of ``shape``
    whose mfma covers ``nonk_instr`` rows of the non-K dimension per instruction."""
    if len(shape) != 2 or op_index not in (0, 1) or elem_bits not in (4, 8, 16):
        return None
    elem_bytes = max(elem_bits // 8, 1)
    if nonk_instr not in (16, 32) or k_width not in (4, 8, 16):
        return None
    k_dim = 1 if op_index == 0 else 0
    k, nonk = shape[k_dim], shape[1 - k_dim]
    k_width_bytes = k_width * elem_bytes
    vector = 16 // elem_bytes
    contig, rows = (k, nonk) if k_contig else (nonk, k)

    b128 = k_contig and k_width_bytes == 16
    b64_tr = not k_contig and k_width_bytes >= 8
    banks = 64 if (b128 or b64_tr) else 32
    bank_row = banks * 4 // elem_bytes  # elements in one row of banks
    if b128:
        padding = k_width * 2 if nonk_instr == 16 else k_width
    elif b64_tr:
        padding = 16 if nonk_instr == 16 else 32
    else:
        padding = 8 // elem_bytes

    lanes_per_row = contig // vector
    wrap = min(contig, bank_row) // padding
    if wrap == 0 or lanes_per_row == 0:
        return None
    needed_rows = _WAVE // lanes_per_row * wrap
    conflicts = 1 if rows >= needed_rows else _log2(needed_rows // rows) + 1
    if (b128 and conflicts > 1) or conflicts > 2:
        return None
    if conflicts > 1:
        wrap >>= conflicts - 1
        if wrap == 0:
            return None
    tall = False
    if rows >= _WAVE // lanes_per_row * 16 and wrap < 16:
        tall, wrap = True, 16

    # Bases as (contiguous, row) moves, one per offset bit.
    bases = [(1 << i, 0) for i in range(_log2(contig))]
    interval = _WAVE * vector
    row = _log2(wrap)
    while len(bases) < _log2(interval):
        bases.append((0, 1 << row))
        row += 1
    bases += [(0, 1 << i) for i in range(_log2(wrap))]
    bases += [(0, 1 << i) for i in range(row, _log2(rows))]

    if b64_tr and nonk_instr == 16 and k_width_bytes == 16:
        eight = next((i for i, b in enumerate(bases) if b[1] == 8 // elem_bytes), None)
        sixteen = next((i for i, b in enumerate(bases) if b[1] == 16 // elem_bytes), None)
        if eight is None or sixteen is None:  # too few rows to hold both
            return None
        bases[eight], bases[sixteen] = bases[sixteen], bases[eight]
    if b128 and nonk_instr == 32 and tall and k < 256 // elem_bytes:
        wide = k_width == 16 // elem_bytes
        offset_index = _log2(256 if wide else 128)
        row16_index = _log2(contig)
        if max(offset_index, row16_index) >= len(bases):
            return None
        bases[offset_index], bases[row16_index] = bases[row16_index], bases[offset_index]

    # To the tensor's dimensions: the contiguous one is K when K is contiguous.
    contig_dim = k_dim if k_contig else 1 - k_dim
    offsets = [[c, r] if contig_dim == 0 else [r, c] for c, r in bases]
    return PaddedSharedLayout([[interval, padding]], offsets, [], list(shape))
