"""The semantic layer's shared-memory and asynchronous-copy ops (a part of ``Semantic``):
buffers and their views, local loads and stores, async copies, commit groups and waits."""

from __future__ import annotations

import math

from . import _core as core
from ._core import _unwrap, distributed_type, tensor
from ._layouts import AutoLayout, SharedLayout, SharedLinearLayout, shared_offset_bases


class SharedMemorySemantic:
    """Shared memory and async copies; mixed into ``Semantic`` (which provides ``_op``,
    ``as_tensor``, ``cast``, ``broadcast_all`` and the builder ``b``)."""

    # -- shared memory ------------------------------------------------------------------------

    def allocate_shared_memory(self, element_ty, shape, layout, value):
        if not isinstance(element_ty, (core.dtype, core.pointer_type)):
            raise TypeError(f"allocate_shared_memory: element_ty must be a dtype, got "
                            f"{element_ty!r}")
        if not isinstance(layout, SharedLayout):
            raise TypeError(f"allocate_shared_memory: layout must be a shared layout (e.g. "
                            f"kl.SwizzledSharedLayout(...)), got {layout!r}")
        shape = list(shape) if isinstance(shape, (list, tuple)) else [shape]
        if len(shape) < layout.rank:
            raise ValueError(f"allocate_shared_memory: {layout!r} has rank {layout.rank} but "
                             f"the shape {tuple(_unwrap(d) for d in shape)} has rank "
                             f"{len(shape)}")
        # The layout covers the trailing dimensions (powers of two); leading ones are ring
        # slots of any size.
        lead = len(shape) - layout.rank
        shape = ([self._slot_count(d, i) for i, d in enumerate(shape[:lead])]
                 + list(self.check_shape(shape[lead:], "allocate_shared_memory")))
        own = getattr(layout, "shape", None)
        if own and tuple(shape[lead:]) != tuple(own):
            raise ValueError(f"allocate_shared_memory: {layout!r} is for buffers of shape "
                             f"{list(own)}, but the shape's last {layout.rank} dimension(s) "
                             f"are {list(shape[lead:])}")
        self.check_cga(layout, "allocate_shared_memory")
        if getattr(layout, "scattered", False):
            return self._allocate_scattered(element_ty, shape, layout, value, lead)
        mdt = core.shared_memory_descriptor_type(element_ty, shape, layout)
        operands = []
        if value is not None:
            value = self._initial_value(value, shape, element_ty)
            problem = self.cta_part_mismatch(value.type.layout, value.type.shape, mdt,
                                             "allocate_shared_memory")
            hook = core.target_hook(self.target, "split_store") if problem else None
            if problem and hook is None:
                raise ValueError(problem)
            if hook is None:
                operands = [value]
        handle = self.b.create("tile.local_alloc", operands, [mdt])[0]
        smem = core.shared_memory_descriptor(handle, mdt)
        if value is not None and not operands:
            # Split differently from the buffer: into other CTAs' parts (distributed shared
            # memory), as a store after the allocation.
            hook(self, smem, value)
        return smem

    def _allocate_scattered(self, element_ty, shape, layout, value, lead):
        """A buffer whose CTA parts are no boxes (SharedLinearLayout.scattered): each CTA's
        part as one flat run of elements (element offset o at o), the runs split among the
        cluster's CTAs as the layout's block bases say; the buffer is a cluster view of it,
        whose loads and stores find each element's CTA and offset through the layout's
        inverse (the target's distributed shared memory)."""
        if lead:
            raise NotImplementedError(f"allocate_shared_memory: {layout!r} does not give each "
                                      f"CTA a box of the buffer; ring slots of such a buffer "
                                      f"are not supported")
        if core.target_hook(self.target, "split_load") is None:
            raise ValueError(f"allocate_shared_memory: {layout!r} places elements in other "
                             f"CTAs' parts by element; {self.target} cannot reach other "
                             f"CTAs' shared memory")
        # The runs as a [1, ..., 1, elements] buffer: of the buffer's rank, as the cross-CTA
        # accesses take every coordinate of every element (all 0 but the last).
        part = 1 << len(layout.offset_bases)
        pad = [0] * (len(shape) - 1)
        nonzero = 0
        blocks = []
        for b in layout.block_bases:
            blocks.append(pad + ([part << nonzero] if any(b) else [0]))
            nonzero += bool(any(b))
        flat = SharedLinearLayout([pad + [1 << k] for k in range(len(layout.offset_bases))],
                                  blocks, layout.alignment)
        runs = self.allocate_shared_memory(element_ty, [1] * len(pad) + [part << nonzero],
                                           flat, None)
        smem = core.cluster_view(runs, shape, (0,) * len(shape), layout=layout)
        if value is not None:
            self.local_store(smem, self._initial_value(value, shape, element_ty))
        return smem

    def _initial_value(self, value, shape, element_ty):
        """allocate_shared_memory's ``value=``, checked against the buffer."""
        value = self.as_tensor(value)
        if not value.type.is_block or tuple(value.type.shape) != tuple(shape) \
                or value.dtype != element_ty:
            raise ValueError(f"allocate_shared_memory: value {value.type} must be a "
                             f"tensor of shape {tuple(shape)} and type {element_ty}")
        return value

    def _plain_view(self, smem, what):
        """A cluster view (sliced along a split dimension) supports only some ops."""
        if isinstance(smem, core.cluster_view):
            raise NotImplementedError(
                f"{what} of a view of a buffer split among the CTAs of a cluster that crosses "
                f"the split (sliced along a split dimension) is not supported; such a view "
                f"supports {', '.join(core._CLUSTER_VIEW_OPS)}")

    def _slot_count(self, d, i) -> int:
        d = _unwrap(d)
        if isinstance(d, tensor) or not isinstance(d, int) or isinstance(d, bool) or d <= 0:
            raise TypeError(f"allocate_shared_memory: shape element {i} must be a positive "
                            f"constexpr int, got {d!r}")
        return d

    def memdesc_index(self, smem, index):
        if isinstance(smem, core.cluster_view) and smem.scattered:
            raise ValueError(f"index: the shared buffer {smem.type} has no leading dimension "
                             f"to index (its layout covers every dimension); use slice")
        if isinstance(smem, core.cluster_view):
            if smem.offsets[0]:
                index = self.binary("add", self.as_tensor(index),
                                    self.as_tensor(smem.offsets[0], core.int32))
            slot = self.memdesc_index(smem.whole, index)
            return core.cluster_view(slot, smem.type.shape[1:], smem.offsets[1:])
        st = smem.type
        if len(st.shape) <= st.layout.rank:
            raise ValueError(f"index: the shared buffer {st} has no leading dimension to "
                             f"index (its layout covers all {len(st.shape)} dimensions)")
        const = _unwrap(index)
        slots = st.shape[0]
        if isinstance(const, int) and not isinstance(const, bool) and not 0 <= const < slots:
            # A constant slot is checked here, at the user's line (the tile.memdesc_index
            # verifier says the same); a runtime one is the kernel's to keep in range.
            hint = (f"; {const} is not a slot counted from the end as in Python: it addresses "
                    f"memory before the buffer" if const < 0 else "")
            raise ValueError(f"index: slot {const} is out of range for a ring of {slots} "
                             f"{'slot' if slots == 1 else 'slots'} (valid: 0 to {slots - 1})"
                             f"{hint}")
        index = self.as_tensor(index)
        if index.type.is_block or not index.dtype.is_int() or index.dtype.primitive_bitwidth > 32:
            raise TypeError(f"index: the slot must be a scalar integer of at most 32 bits, "
                            f"got {index.type}")
        if index.dtype != core.int32:
            index = self.cast(index, core.int32)
        rt = core.shared_memory_descriptor_type(st.element_ty, st.shape[1:], st.layout,
                                                st.mutable, st.alloc_shape)
        handle = self.b.create("tile.memdesc_index", [smem, index], [rt])[0]
        return core.shared_memory_descriptor(handle, rt)

    def _constexpr_int(self, value, what: str) -> int:
        value = _unwrap(value)
        if isinstance(value, tensor) or isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{what} must be a constexpr int, got {value!r}")
        return value

    def memdesc_slice(self, smem, start, length, dim):
        st = smem.type
        rank = len(st.shape)
        start = self._constexpr_int(start, "slice: start")
        length = self._constexpr_int(length, "slice: length")
        dim = self._constexpr_int(dim, "slice: dim")
        if dim < 0:
            dim += rank
        if not 0 <= dim < rank:
            raise ValueError(f"slice: dim {dim} is out of range for the rank-{rank} buffer {st}")
        if length <= 0 or start < 0 or start + length > st.shape[dim]:
            raise ValueError(f"slice: [{start}, {start + length}) is outside dimension {dim} "
                             f"of size {st.shape[dim]}")
        if dim >= rank - st.layout.rank:
            if length & (length - 1):
                raise ValueError(f"slice: length {length} along dimension {dim} (covered by "
                                 f"the shared layout) must be a power of 2")
            if start % length:
                raise ValueError(f"slice: start {start} along dimension {dim} must be a "
                                 f"multiple of the length {length}")
        shape = list(st.shape)
        shape[dim] = length
        lead = rank - st.layout.rank
        split_dims = {lead + d for d, n in enumerate(st.layout.cga_split or ()) if n > 1}
        if isinstance(smem, core.cluster_view) or dim in split_dims:
            # Along a dimension the cluster splits: the view's elements lie in other CTAs'
            # parts, which no IR view of this CTA's part holds.
            offsets = list(getattr(smem, "offsets", (0,) * rank))
            offsets[dim] += start
            if isinstance(smem, core.cluster_view):
                return smem.view(shape, offsets)
            return core.cluster_view(smem, shape, offsets)
        offsets = [0] * rank
        offsets[dim] = start
        rt = core.shared_memory_descriptor_type(st.element_ty, shape, st.layout, st.mutable,
                                                st.alloc_shape)
        attrs = {"offsets": self.b.array_attr(offsets)}
        handle = self.b.create("tile.memdesc_subslice", [smem], [rt], attrs)[0]
        return core.shared_memory_descriptor(handle, rt)

    def memdesc_permute(self, smem, order):
        st = smem.type
        self._plain_view(smem, "permute")
        rank = len(st.shape)
        order = [self._constexpr_int(o, "permute: order element") for o in _unwrap(order)]
        if sorted(order) != list(range(rank)):
            raise ValueError(f"permute: order {order} must be a permutation of "
                             f"0..{rank - 1}")
        lead = rank - st.layout.rank
        if order[:lead] != list(range(lead)):
            raise ValueError(f"permute: the leading {lead} dimension(s) of {st} are ring "
                             f"slots outside the shared layout and must stay in place")
        layout = st.layout.permuted([o - lead for o in order[lead:]])
        if layout is None:
            raise ValueError(f"permute: {st.layout!r} cannot be seen with its dimensions "
                             f"permuted")
        extra = len(st.alloc_shape) - rank
        alloc = list(st.alloc_shape[:extra]) + [st.alloc_shape[extra + o] for o in order]
        rt = core.shared_memory_descriptor_type(st.element_ty, [st.shape[o] for o in order],
                                                layout, st.mutable, alloc)
        attrs = {"order": self.b.array_attr(order)}
        handle = self.b.create("tile.memdesc_permute", [smem], [rt], attrs)[0]
        return core.shared_memory_descriptor(handle, rt)

    def memdesc_reshape(self, smem, shape):
        st = smem.type
        self._plain_view(smem, "reshape")
        shape = [self._constexpr_int(d, "reshape: shape element") for d in
                 (_unwrap(shape) if isinstance(_unwrap(shape), (list, tuple)) else [shape])]
        whole = tuple(st.shape) == tuple(st.alloc_shape)
        # One slot of a ring (its leading dimensions indexed away) is a whole buffer too.
        slot = tuple(st.alloc_shape[len(st.alloc_shape) - len(st.shape):]) == tuple(st.shape)
        if not (whole or slot):
            raise ValueError(f"reshape: {st} is a part of a buffer; only whole buffers and "
                             f"slots of a ring can be reshaped")
        if any(d <= 0 for d in shape) or math.prod(shape) != math.prod(st.shape):
            raise ValueError(f"reshape: {tuple(shape)} does not hold the "
                             f"{math.prod(st.shape)} elements of {st}")
        # The layout covers the trailing dimensions that are powers of two.
        covered = 0
        while covered < len(shape) and not shape[-1 - covered] & (shape[-1 - covered] - 1):
            covered += 1
        if covered == 0:
            raise ValueError(f"reshape: the last dimension of {tuple(shape)} must be a power "
                             f"of 2")
        layout = st.layout.reshaped(st.shape[len(st.shape) - st.layout.rank:],
                                    shape[len(shape) - covered:])
        if layout is None:
            layout = self._reshaped_as_linear(st, shape[len(shape) - covered:])
        if layout is None:
            raise ValueError(f"reshape: {st.layout!r} cannot be seen under the shape "
                             f"{tuple(shape)}; only unpadded layouts (swizzled, NVMMA, linear) "
                             f"of a buffer the cluster's CTAs do not split can be (a padded "
                             f"layout's padding follows its own shape)")
        rt = core.shared_memory_descriptor_type(st.element_ty, shape, layout, st.mutable)
        if not whole or st.layout.reshape_as_reinterpret or layout.reshape_as_reinterpret:
            # The IR's memdesc_reshape takes whole allocations in layouts whose reshape it
            # knows. A slot, or a layout reshaped here only (NVMMA), is the same bytes in
            # the layout computed above: a reinterpret of the view's own bytes.
            handle = self.b.create("tile.memdesc_reinterpret", [smem], [rt])[0]
        else:
            handle = self.b.create("tile.memdesc_reshape", [smem], [rt])[0]
        return core.shared_memory_descriptor(handle, rt)

    def _reshaped_as_linear(self, st, new_shape):
        """A layout that cannot itself take ``new_shape`` (a swizzled buffer whose rows are
        split or merged), as Gluon does it: its map from offset to coordinates (the compiler's,
        as a SharedLinearLayout) reshaped; None where that does not exist."""
        if st.layout.cga_split and any(n > 1 for n in st.layout.cga_split):
            return None
        # Only layouts whose linear map is the element offset itself (a padded layout's map
        # leaves its padding out).
        if not st.layout.map_is_offset:
            return None
        dims = list(st.shape[len(st.shape) - st.layout.rank:])
        bases = shared_offset_bases(st.layout, dims, max(8, st.element_ty.primitive_bitwidth))
        if not bases:
            return None
        alignment = max(16, getattr(st.layout, "swizzle_byte_width", 0) * 8)
        return SharedLinearLayout(bases, [], alignment).reshaped(dims, new_shape)

    def memdesc_reinterpret(self, smem, dtype, shape, layout):
        st = smem.type
        self._plain_view(smem, "_reinterpret")
        if not isinstance(dtype, core.dtype):
            raise TypeError(f"_reinterpret: dtype must be a Kiln dtype, got {dtype!r}")
        if not isinstance(layout, SharedLayout):
            raise TypeError(f"_reinterpret: layout must be a shared layout, got {layout!r}")
        shape = [self._constexpr_int(d, "_reinterpret: shape element") for d in
                 (_unwrap(shape) if isinstance(_unwrap(shape), (list, tuple)) else [shape])]
        if any(d <= 0 for d in shape):
            raise ValueError(f"_reinterpret: shape {tuple(shape)} must be positive")
        if len(st.shape) != st.layout.rank and tuple(st.shape) != tuple(st.alloc_shape):
            # A whole ring is its slots one after another (Gluon reinterprets a multi-buffered
            # allocation as one buffer); a part of one is not.
            raise ValueError(f"_reinterpret: {st} is a part of a ring of buffers; reinterpret "
                             f"one slot or the whole ring")
        have = math.prod(st.shape) * st.element_ty.primitive_bitwidth // 8
        need = math.prod(shape) * max(8, dtype.primitive_bitwidth) // 8
        if need > have:
            raise ValueError(f"_reinterpret: {tuple(shape)} x {dtype} needs {need} bytes; the "
                             f"view {st} holds {have} (a reinterpreted view keeps to the "
                             f"view's own bytes: reaching into the next ring slots would run "
                             f"past the allocation from its last slot)")
        rt = core.shared_memory_descriptor_type(dtype, shape, layout, st.mutable)
        handle = self.b.create("tile.memdesc_reinterpret", [smem], [rt])[0]
        return core.shared_memory_descriptor(handle, rt)

    def local_load(self, smem, layout, synced_via_wait=False) -> tensor:
        """``synced_via_wait``: the caller asserts a wait orders this read after every async
        copy into its bytes (Gluon's ``load_shared_relaxed``)."""
        shape = smem.type.shape
        what = "load from shared memory"
        if isinstance(layout, AutoLayout):  # the layout its users give (Gluon's AutoLayout)
            layout = AutoLayout()
            if isinstance(smem, core.cluster_view):
                raise ValueError(f"{what}: a view crossing the cluster's split needs a "
                                 f"concrete layout")
        else:
            self.check_layout(layout, shape, what)
            problem = self.cta_part_mismatch(layout, shape, smem.type, what)
            if problem or isinstance(smem, core.cluster_view):
                # Elements in other CTAs' parts: the vendor's (distributed shared memory).
                hook = core.target_hook(self.target, "split_load")
                if hook is None:
                    raise ValueError(problem or f"{what}: {self.target} cannot reach other "
                                                f"CTAs' shared memory")
                return hook(self, smem, layout, distributed_type(smem.dtype, shape, layout))
        rt = distributed_type(smem.dtype, shape, layout)
        attrs = {"tile.synced_via_wait": "unit"} if synced_via_wait else None
        return self._op("tile.local_load", [smem], rt, attrs)

    def local_store(self, smem, value) -> None:
        value = self.as_tensor(value)
        if not value.type.is_block or tuple(value.type.shape) != smem.type.shape \
                or value.dtype != smem.dtype:
            raise ValueError(f"store to shared memory: value {value.type} must be a tensor of "
                             f"shape {smem.type.shape} and type {smem.dtype}")
        problem = self.cta_part_mismatch(value.type.layout, value.type.shape, smem.type,
                                         "store to shared memory")
        if problem or isinstance(smem, core.cluster_view):
            # Into other CTAs' parts: the vendor's (distributed shared memory).
            hook = core.target_hook(self.target, "split_store")
            if hook is None:
                raise ValueError(problem or f"store to shared memory: {self.target} cannot "
                                            f"reach other CTAs' shared memory")
            hook(self, smem, value)
            return None
        self.b.create("tile.local_store", [value, smem], [])
        return None

    # -- indexed accesses (Gluon's shared_memory_descriptor.gather / scatter / atomics) --------

    def _shared_indexed(self, smem, indices, axis, what):
        """The checks gather, scatter and the atomics share; returns (indices, axis)."""
        st = smem.type
        if not isinstance(indices, tensor) or not indices.type.is_block:
            raise TypeError(f"{what}: indices must be a tensor, got {indices!r}")
        axis = _unwrap(axis)
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"{what}: axis must be a constexpr int, got {axis!r}")
        rank = len(st.shape)
        if rank != st.layout.rank:
            raise ValueError(f"{what}: {st} has leading ring dimensions; index a slot "
                             f"first (.index(i))")
        if len(indices.type.shape) != rank:
            raise ValueError(f"{what}: indices of rank {len(indices.type.shape)} for the "
                             f"rank-{rank} buffer {st}: the ranks must match")
        if not 0 <= axis < rank:
            raise ValueError(f"{what}: axis {axis} is out of range for the rank-{rank} "
                             f"buffer {st}")
        if not indices.dtype.is_int() or indices.dtype.is_bool():
            raise TypeError(f"{what}: indices must be integers, got {indices.dtype}")
        hook = f"split_{'atomic' if what.startswith('atomic') else what}"
        if (st.layout.cga_split or
                any(any(b) for b in getattr(indices.type.layout, "cga_bases", ()))) and \
                not core.target_hook(self.target, hook):
            raise NotImplementedError(f"{what} of a buffer or tensor split among the CTAs of "
                                      f"a cluster is not supported yet")
        for d, (n, m) in enumerate(zip(indices.type.shape, st.shape)):
            if d != axis and n > m:
                raise ValueError(f"{what}: indices {list(indices.type.shape)} exceed the "
                                 f"buffer {list(st.shape)} along dimension {d}, which is "
                                 f"not the axis")
        return indices, axis

    def _split_gather_hook(self):
        """The target's gather from a buffer the CTAs of a cluster split (a vendor's
        ``split_gather`` hook: fn(semantic, smem, indices, axis, result_type)), or None."""
        return core.target_hook(self.target, "split_gather")

    def shared_gather(self, smem, indices, axis) -> tensor:
        indices, axis = self._shared_indexed(smem, indices, axis, "gather")
        if isinstance(indices.type.layout, AutoLayout):
            raise ValueError("gather: indices need a concrete layout (the result takes it)")
        rt = distributed_type(smem.dtype, indices.type.shape, indices.type.layout)
        split = smem.type.layout.cga_split or \
            any(any(b) for b in getattr(indices.type.layout, "cga_bases", ()))
        if split:  # other CTAs' parts: the vendor's (distributed shared memory)
            return self._split_gather_hook()(self, smem, indices, axis, rt)
        return self._op("tile.local_gather", [smem, indices], rt, {"axis": f"{axis} : i32"})

    def _scatter_operands(self, smem, values, indices, mask, what):
        values = self.as_tensor(values)
        if values.dtype != smem.dtype:
            raise TypeError(f"{what}: values of type {values.dtype} for a buffer of "
                            f"{smem.dtype}: the element types must match")
        if not smem.type.mutable:
            raise ValueError(f"{what}: the buffer {smem.type} is immutable")
        ops = [values, indices] + ([self.cast(self.as_tensor(mask), core.int1)]
                                   if mask is not None else [])
        ops = self.broadcast_all(ops, what)
        if isinstance(ops[0].type.layout, AutoLayout):
            raise ValueError(f"{what}: values and indices need a concrete layout")
        return ops

    def shared_scatter(self, smem, values, indices, axis) -> None:
        indices, axis = self._shared_indexed(smem, indices, axis, "scatter")
        values, indices = self._scatter_operands(smem, values, indices, None, "scatter")
        self._shared_indexed(smem, indices, axis, "scatter")
        if smem.type.layout.cga_split or \
                any(any(b) for b in getattr(indices.type.layout, "cga_bases", ())):
            # into other CTAs' parts: the vendor's (distributed shared memory)
            core.target_hook(self.target, "split_scatter")(self, smem, values, indices, axis)
            return None
        self.b.create("tile.local_scatter", [values, smem, indices], [],
                      {"axis": f"{axis} : i32"})
        return None

    def shared_atomic_scatter(self, smem, op, values, indices, axis, mask) -> tensor:
        what = f"atomic_scatter_{op}"
        indices, axis = self._shared_indexed(smem, indices, axis, what)
        ops = self._scatter_operands(smem, values, indices, _unwrap(mask), what)
        values, indices = ops[0], ops[1]
        self._shared_indexed(smem, indices, axis, what)
        elt = values.dtype
        if op == "add":
            kind = "fadd" if elt.is_floating() else "add"
        elif op == "xchg":
            kind = "xchg"
        elif elt.is_floating() or elt.is_bool():
            raise TypeError(f"{what} needs integer values, got {elt}")
        else:
            kind = {"max": "umax", "min": "umin"}.get(op, op) if elt.is_int_unsigned() else op
        if elt.is_bool() or elt.primitive_bitwidth not in (16, 32, 64):
            raise TypeError(f"{what}: shared-memory atomics take 16-, 32- or 64-bit "
                            f"elements, got {elt}")
        if smem.type.layout.cga_split or \
                any(any(b) for b in getattr(indices.type.layout, "cga_bases", ())):
            # on other CTAs' parts: the vendor's (distributed shared memory)
            return core.target_hook(self.target, "split_atomic")(
                self, smem, kind, values, indices, axis, ops[2] if len(ops) > 2 else None,
                what)
        return self._op("tile.local_atomic_rmw", [values, smem] + ops[1:], values.type,
                        {"kind": f'"{kind}"', "axis": f"{axis} : i32"})

    def local_dealloc(self, smem) -> None:
        self.b.create("tile.local_dealloc", [smem], [])
        return None

    # -- asynchronous copies -------------------------------------------------------------------

    def async_copy_global_to_local(self, smem, pointer, mask=None, cache_modifier="",
                                   eviction_policy="", volatile=False, other=None,
                                   cache_modifiers=("", ".ca", ".cg")) -> None:
        """``cache_modifiers``: the modifiers the caller's copy takes (Gluon's
        async_copy_global_to_shared: '', '.ca', '.cg'; a vendor's copy may take more)."""
        if not isinstance(smem, core.shared_memory_descriptor):
            raise TypeError(f"async_copy_global_to_shared: smem must be a shared memory "
                            f"descriptor (from allocate_shared_memory), got {smem!r}")
        pointer = self._ptr_tensor(pointer, "async_copy_global_to_shared")
        if tuple(pointer.type.shape) != smem.type.shape:
            raise ValueError(f"async_copy_global_to_shared: the pointer tensor's shape "
                             f"{tuple(pointer.type.shape)} must equal the buffer's "
                             f"{smem.type.shape}")
        if pointer.dtype.element_ty != smem.dtype:
            raise TypeError(f"async_copy_global_to_shared: the pointers point to "
                            f"{pointer.dtype.element_ty} but the buffer holds {smem.dtype}")
        cache_modifier = _unwrap(cache_modifier)
        if cache_modifier not in cache_modifiers:
            allowed = ", ".join(repr(c) for c in cache_modifiers[:-1])
            raise ValueError(f"async_copy_global_to_shared: cache_modifier must be {allowed} "
                             f"or {cache_modifiers[-1]!r}, got {cache_modifier!r}")
        # Accepted as in Gluon, and, as in Triton 3.6's cp.async lowering, without effect
        # (cp.async carries no eviction priority here, and the copy is never cached in
        # registers, so volatile changes nothing).
        eviction_policy = _unwrap(eviction_policy)
        if eviction_policy not in ("", None, "evict_first", "evict_last", "evict_normal"):
            raise ValueError(f"async_copy_global_to_shared: eviction_policy must be '', "
                             f"'evict_first', 'evict_last' or 'evict_normal', got "
                             f"{eviction_policy!r}")
        if not isinstance(_unwrap(volatile), bool):
            raise TypeError(f"async_copy_global_to_shared: volatile must be a constexpr bool, "
                            f"got {_unwrap(volatile)!r}")
        other = _unwrap(other)  # callers reject `other` without `mask` in their own words
        if mask is not None:
            mask = self.cast(self.as_tensor(mask), core.int1)
            parts = [pointer, mask]
            if other is not None:
                like = tensor(pointer.handle, pointer.type.with_element_ty(smem.dtype))
                other = other if isinstance(other, tensor) else self.literal_like(other, like)
                parts.append(self.cast(other, smem.dtype))
            parts = self.broadcast_all(parts, "async_copy_global_to_shared")
            pointer, mask = parts[0], parts[1]
            other = parts[2] if other is not None else None
            if tuple(pointer.type.shape) != smem.type.shape:
                raise ValueError(f"async_copy_global_to_shared: the mask broadcasts the "
                                 f"pointers to {tuple(pointer.type.shape)}, not the buffer's "
                                 f"shape {smem.type.shape}")
        operands = [pointer, smem] + [x for x in (mask, other) if x is not None]
        attrs = {"operandSegmentSizes": self.b.array_attr(
            [1, 1, mask is not None, other is not None])}
        if cache_modifier:
            attrs["cache_modifier"] = f'"{cache_modifier}"'
        tt = core.async_token_type()
        return tensor(self.b.create("tile.async_copy_global_to_local", operands, [tt],
                                    attrs)[0], tt)

    def async_commit_group(self) -> tensor:
        tt = core.async_token_type()
        return tensor(self.b.create("tile.async_commit_group", [], [tt])[0], tt)

    def async_wait_for(self, tokens) -> tensor:
        tokens = [_unwrap(t) for t in tokens]
        if not tokens or not all(isinstance(t, tensor) and isinstance(t.type, core.async_token_type)
                                 for t in tokens):
            raise TypeError(f"wait_for: takes the tokens that async_copy_global_to_shared or "
                            f"commit_group returned, got {tokens!r}")
        tt = core.async_token_type()
        return tensor(self.b.create("tile.async_wait", tokens, [tt])[0], tt)

    def async_wait(self, num_outstanding) -> None:
        num = _unwrap(num_outstanding)
        if isinstance(num, tensor) or not isinstance(num, int) or isinstance(num, bool) \
                or num < 0:
            raise TypeError(f"wait_group: num_outstanding must be a non-negative constexpr "
                            f"int, got {num!r}")
        if num >= 2 ** 31:
            raise ValueError(f"wait_group: num_outstanding {num} is too large")
        tt = core.async_token_type()
        return tensor(self.b.create("tile.async_wait", [], [tt],
                                    {"num": self.b.int_attr(num)})[0], tt)
