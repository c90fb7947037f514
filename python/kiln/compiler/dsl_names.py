"""The compiler's messages in the words a kernel author wrote: the C++ passes name IR ops
(``'tile_nv.mbarrier_wait'``) and MLIR types (``tensor<128xi32, #tile.auto>``); a message that
reaches the user through Python names the DSL call (``mbarrier.wait``) and the type as
``kl`` prints it (``tensor [128] int32, AutoLayout``). ``kiln-opt`` keeps the IR names."""

from __future__ import annotations

import re

#: IR op -> the call a kernel author writes for it (Gluon's names; ``smem`` is a
#: shared_memory_descriptor, ``desc`` a tensor descriptor).
OPS = {
    "addptr": "pointer arithmetic", "arange": "arange", "assert": "device_assert",
    "assume": "assume", "async_commit_group": "async_copy.commit_group",
    "async_copy_global_to_local": "async_copy.async_copy_global_to_shared",
    "async_copy_mbarrier_arrive": "async_copy.mbarrier_arrive",
    "async_bulk_copy_global_to_local": "bulk.async_load",
    "async_shared_store": "hopper.async_store",
    "async_tma_copy_global_to_local": "tma.async_copy_global_to_shared",
    "async_tma_copy_local_to_global": "tma.async_copy_shared_to_global",
    "async_tma_reduce": "tma.async_atomic_*",  # _add, _min, ... by the op's kind
    "async_tma_store_wait": "tma.store_wait", "async_wait": "async_copy.wait_group",
    "atomic_cas": "atomic_cas", "atomic_rmw": "atomic", "atomic_load": "atomic_load",
    "atomic_store": "atomic_store",
    "barrier": "thread_barrier", "broadcast": "broadcast",
    "buffer_load": "buffer_load", "buffer_load_to_local": "buffer_load_to_shared",
    "buffer_store": "buffer_store", "convert_layout": "convert_layout", "dot_fma": "dot_fma",
    "expand_dims": "expand_dims", "extern_elementwise": "libdevice function",
    "extract_slice": "slice",
    "fence_async_shared": "fence_async_shared",
    "cluster_arrive": "cluster.arrive", "cluster_wait": "cluster.wait",
    "cluster_gather": "smem.gather", "cluster_scatter": "smem.scatter",
    "cluster_load": "smem.load", "cluster_store": "smem.store",
    "cluster_atomic_rmw": "smem.atomic_scatter",
    "fence_mbarrier_init_cluster": "mbarrier.fence_init_release_cluster",
    "gather": "gather", "hint": "hint", "histogram": "histogram",
    "inline_asm_elementwise": "inline_asm_elementwise", "inline_asm": "inline_asm",
    "load": "load",
    "local_alloc": "allocate_shared_memory", "local_dealloc": "shared buffer release",
    "local_load": "smem.load", "local_store": "smem.store",
    "local_gather": "smem.gather", "local_scatter": "smem.scatter",
    "local_atomic_rmw": "smem.atomic_scatter_<op>",
    "make_tensor_descriptor": "make_tensor_descriptor", "mbarrier_arrive": "mbarrier.arrive",
    "mbarrier_expect": "mbarrier.expect", "mbarrier_init": "mbarrier.init",
    "mbarrier_invalidate": "mbarrier.invalidate", "mbarrier_wait": "mbarrier.wait",
    "memdesc_index": "smem.index", "memdesc_permute": "smem.permute",
    "memdesc_reinterpret": "smem._reinterpret", "memdesc_reshape": "smem.reshape",
    "memdesc_subslice": "smem.slice", "mfma": "mfma", "mfma_scaled": "mfma_scaled",
    "warp_pipeline_border": "warp_pipeline_stage",
    "mma_v2": "mma_v2", "named_barrier_arrive": "named_barrier.arrive",
    "named_barrier_sync": "named_barrier.sync", "num_programs": "num_programs",
    "print": "device_print",
    "program_id": "program_id", "ptr_cast": "pointer bitcast",
    "reduce": "reduce", "reduce_return": "reduce combine",
    "reshape": "reshape", "trans": "permute", "split": "split", "join": "join",
    "scan": "associative_scan", "scan_return": "associative_scan combine",
    "set_auto_layout": "set_auto_layout", "splat": "splat", "store": "store",
    "warp_specialize": "warp_specialize", "warp_yield": "warp_specialize return",
    "warpgroup_dot": "warpgroup_mma", "warpgroup_dot_wait": "warpgroup_mma_wait",
}

_ELEMENTS = {
    "i1": "int1", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "f16": "fp16", "bf16": "bf16", "f32": "fp32", "f64": "fp64",
    "f8E4M3FN": "fp8e4nv", "f8E5M2": "fp8e5", "f8E4M3FNUZ": "fp8e4b8", "f8E5M2FNUZ": "fp8e5b16",
}

_OP = re.compile(r"'(tile|tile_nv|tile_amd)\.(\w+)'( op)?")
_BLOCKED = re.compile(r"#tile\.blocked<\{sizePerThread = (\[[^\]]*\]), threadsPerWarp = "
                      r"(\[[^\]]*\]), warpsPerCTA = (\[[^\]]*\]), order = (\[[^\]]*\])"
                      r"(?:, [^}]*)?\}>")
_SIMPLE_LAYOUTS = {"#tile.auto": "AutoLayout", "#tile.coalesced": "CoalescedLayout"}


def _close(text: str, start: int) -> int:
    """The index after the '>' closing the '<' at ``start``."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "<":
            depth += 1
        elif text[i] == ">" and text[i - 1] != "-":
            depth -= 1
            if depth == 0:
                return i + 1
    return -1


def _split_top(inner: str):
    """``inner`` split at its top-level commas."""
    parts, depth, cur = [], 0, ""
    for ch in inner:
        depth += ch in "<[{(" and 1 or (ch in ">]})" and -1 or 0)
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return parts


def _element(text: str) -> str:
    if text.startswith("!tile.ptr<") and text.endswith(">"):
        return f"pointer<{_element(text[len('!tile.ptr<'):-1].split(',')[0].strip())}>"
    return _ELEMENTS.get(text, text)


def _layout(text: str) -> str:
    if text in _SIMPLE_LAYOUTS:
        return _SIMPLE_LAYOUTS[text]
    m = _BLOCKED.fullmatch(text)
    if m:
        return "BlockedLayout({}, {}, {}, {})".format(*m.groups())
    return text


def _shaped(kind: str, inner: str) -> str:
    parts = _split_top(inner)
    dims_elem = parts[0]
    # dims are the leading NxMx... before the element type (which may hold 'x' itself)
    m = re.match(r"((?:\d+x)*)(.*)", dims_elem)
    dims = [d for d in m.group(1).split("x") if d]
    text = f"{kind} [{', '.join(dims)}] {_element(m.group(2))}"
    if len(parts) > 1 and parts[1].startswith("#"):
        text += f", {_layout(parts[1])}"
    return text


def _types(message: str) -> str:
    out, i = [], 0
    while True:
        starts = [(message.find(p, i), p) for p in ("tensor<", "!tile.memdesc<")]
        starts = [(s, p) for s, p in starts if s >= 0]
        if not starts:
            out.append(message[i:])
            return "".join(out)
        s, p = min(starts)
        end = _close(message, s + len(p) - 1)
        if end < 0:
            out.append(message[i:])
            return "".join(out)
        inner = message[s + len(p):end - 1]
        kind = "tensor" if p == "tensor<" else "shared memory"
        try:
            out.append(message[i:s] + _shaped(kind, inner))
        except Exception:  # noqa: BLE001  (an unusual type: keep its IR text)
            out.append(message[i:end])
        i = end


def dsl_message(message: str) -> str:
    """``message`` with IR op names and types in the DSL's words: MLIR's ``'tile.x' op``
    prefix becomes ``x:``, an op named inside a sentence its call, a tensor or shared-memory
    type its shape, element type and layout."""
    def op(m):
        if m.group(2) not in OPS:
            return m.group(0)  # not an op ('tile.num_warps', an attribute): as written
        name = OPS[m.group(2)]
        return f"{name}:" if m.group(3) else name
    text = _types(_OP.sub(op, message))
    # A message that already names its call ("device_print: ...") keeps one prefix.
    m = re.match(r"([\w.]+): \1: ", text)
    if m:
        text = text[len(m.group(1)) + 2:]
    text = _BLOCKED.sub(lambda m: "BlockedLayout({}, {}, {}, {})".format(*m.groups()), text)
    for ir, name in _SIMPLE_LAYOUTS.items():
        text = re.sub(re.escape(ir) + r"\b", name, text)
    return text
