"""Independent checker of ``s_waitcnt vmcnt`` waits in AMDGCN assembly.

Usage: ``python3 -m kiln.tools.amdgcn_waits FILE.s|-`` (``--help`` for options).

It judges the waits in the final assembly (Kiln's wait-count pass plus whatever
LLVM added) by simulating the gfx9 vector-memory counter over the assembly. It
shares no code or arithmetic with the compiler.

Model (gfx9 family: gfx942 / gfx950, wave64)
--------------------------------------------
* Workgroup: ``--waves W``, else the kernel metadata's ``.reqd_workgroup_size``
  (product) or ``.max_flat_workgroup_size``, divided by 64; else 4 waves. Lanes
  past the workgroup size (last wave) start inactive, all others active.
  ``v0`` holds the work-item id: lane l of wave w has ``v0 = 64*w + l`` (with
  ``.amdhsa_system_vgpr_workitem_id`` > 0: the packed gfx90a+ form
  x | y << 10 | z << 20 from ``.reqd_workgroup_size``, else UNKNOWN). Every other
  register (SGPR kernel arguments, workgroup ids, M0, VCC, SCC) and every value
  loaded from memory is UNKNOWN.
* Values are 32-bit ints or UNKNOWN, per lane for VGPRs, per wave for SGPRs.
  Simulated: the integer scalar and vector ALU instructions that compute
  addresses (s_mov/movk/add/sub/mul/mul_hi/addk/mulk/shifts/logic/bfe/min/max/
  cselect/cmp/cmpk/bitcmp, 64-bit moves/logic/shifts, saveexec; v_mov,
  v_add/sub(_co), v_addc/subb, shifts, logic, v_lshl_add, v_add_lshl,
  v_lshl_or, v_and_or, v_or3, v_add3, v_mad_u32_u24, v_mul_lo/hi, v_bfe,
  v_bfi, v_alignbit, min/max/med3, v_cndmask, integer v_cmp/v_cmpx,
  v_readfirstlane, v_readlane, v_mbcnt_lo/hi, v_lshl_add_u64, 64-bit shifts,
  v_mad_u64_u32, accvgpr moves). Anything else, any DPP/SDWA form and any
  instruction with a modifier (clamp, op_sel, neg, abs, ...) makes whatever it
  may write UNKNOWN (its first operand, a carry-out, SCC, EXEC for v_cmpx and
  saveexec): never a guess. An UNKNOWN lane mask copied unchanged (s_mov_b64,
  saveexec, and with all-ones) keeps its identity, so a branch on the same mask
  is decided the same way again. Inactive lanes keep their values; with EXEC
  UNKNOWN lanes are assumed active for memory and keep only values that both
  outcomes agree on.
* vmcnt: every vector-memory instruction (global_*, buffer_*, flat_*,
  scratch_*, tbuffer_*, image_*: loads, stores, atomics and cache operations
  alike, and the LDS-DMA loads ``global_load_lds_*`` and ``buffer_load_* ...
  lds``) adds one to its wave's count at issue, even with EXEC zero; they retire
  in issue order. ``s_waitcnt vmcnt(N)`` (named, combined with other counters,
  or a raw immediate: vmcnt = imm[3:0] | imm[15:14] << 4) retires all but the N
  youngest; a wait without a vmcnt field (or with 63) constrains nothing. At
  most 63 are in flight (issue stalls). Nothing retires earlier than forced:
  that is the worst case every wait must cover.
* LDS-DMA bytes: active lane l writes [M0 + offset + l*size, +size) with size 4
  (dword), 12 (dwordx3), 16 (dwordx4); sub-dword forms get [M0 + offset +
  l*size, M0 + offset + 4*l + 4), covering both a packed and a dword-per-lane
  layout. UNKNOWN M0: all of LDS.
* LDS accesses: ds_read*/ds_write* (and the ds_load*/ds_store* spellings,
  read2/write2 and st64 forms, d16, the gfx950 ``_tr_`` reads, DS atomics):
  each active lane touches vaddr + offset (two addresses for the 2-address
  forms, offsets scaled by the element size, times 64 for st64) for the
  element size. UNKNOWN addresses, ds_*addtid* and unknown ds_* forms touch all
  of LDS; ds_swizzle/permute/bpermute/nop/gws/append/consume touch none.
  flat_* may address LDS: they touch all of it; buffer_store_lds_* reads all.
* Barriers: ``s_barrier`` ends a phase; all waves run the same path in lockstep
  by phase. Within one wave the assembly order holds.
* Control flow: labels, s_branch, s_cbranch_* and fall-through. A branch whose
  condition (SCC, VCC, EXEC) is known in every wave and agrees is followed;
  otherwise both successors are explored, all waves together (a branch known
  to diverge across waves is noted: lockstep is then an assumption). A back
  edge (a jump to the same or an earlier instruction) is taken at most
  ``--back-edges`` (2) times in trips that involved an unknown decision, and up
  to 256 times when every decision was known; so each loop body runs 1..3
  times (0..3 when guarded), inner loops restarting their count at each outer
  trip. A path that must stop there (limit hit on a known or unconditional
  back edge, indirect jump) is truncated: its violations still count, and
  copies in flight at its end are assumed needed later. At most
  ``--max-paths`` (2000) paths are explored; the output says so if the cap is
  hit.

Safety claim checked
--------------------
For a VMEM instruction C issued by wave A:
* every LDS access of A after C overlapping C's DMA bytes, and every later
  instruction of A mentioning a VGPR that C loads (another VMEM load writing
  the same VGPR excepted: loads return in order), comes after the wait of A
  that retires C;
* every LDS access of another wave B overlapping C's bytes happens in a phase
  after that wait (a barrier follows the wait in A and precedes the access in
  B), or in a phase before C's issue.
Each violation is printed with both lines, the bytes (or VGPR) and the vmcnt in
force; the exit status is then 1. Not checked: lgkmcnt (LDS reads finishing
before a barrier or a later DMA), expcnt, DMA-against-DMA write races, global
memory ordering.

Slack
-----
For each visit of a wait vmcnt(N) (each wave, each path), N* is the largest
count that keeps every check above when that wait alone is relaxed: a copy it
would no longer retire is then retired by the first later wait whose count
covers it (or s_endpgm), and matters if a conflicting access or VGPR use (same
wave, or another wave in a later phase) comes before that. slack = N* - N,
minimum over visits. A wait no copy needs "guards nothing" (it may still serve
global memory ordering, not modeled). Slack is per wait, the others held fixed:
two waits that make each other redundant both show it.

Summary line: ``vmcnt-check: kernel NAME: K waits, V violations, max slack S``,
plus ``, G guard nothing`` / ``, U not reached`` when there are such waits.
"""

from __future__ import annotations

import argparse
import bisect
import re
import struct
import sys
from collections import defaultdict

M32, M64, LANES = 0xFFFFFFFF, (1 << 64) - 1, 64
NONE64 = [None] * LANES
ALL_LDS = ((0, 1 << 32),)  # "all of LDS": the whole 32-bit LDS address space
VMCNT_MAX, CONCRETE_TRIPS, MAX_STEPS = 63, 256, 200_000
KEEP = object()  # "SCC unchanged"
EXEC, VCC = ('r', 's', ('exec_lo', 'exec_hi')), ('r', 's', ('vcc_lo', 'vcc_hi'))

# ------------------------------------------------------------------------------------------
# Parsing
# ------------------------------------------------------------------------------------------

_SPECIAL = {'vcc': VCC[2], 'exec': EXEC[2], 'm0': ('m0',), 'scc': ('scc',),
            'flat_scratch': ('flat_scratch_lo', 'flat_scratch_hi'),
            'xnack_mask': ('xnack_mask_lo', 'xnack_mask_hi')}
_SPECIAL.update({n: (n,) for n in ('vcc_lo', 'vcc_hi', 'exec_lo', 'exec_hi')})
_REG = re.compile(r'^(v|s|a|ttmp)(?:(\d+)|\[(\d+):(\d+)\])$')
_INT = re.compile(r'^-?(0x[0-9a-f]+|\d+)$')
_FLOAT = re.compile(r'^-?\d+\.\d*(e[-+]?\d+)?$')
# Modifier words that may stand alone where an operand would (e.g. "buffer_inv sc1").
_MODWORDS = {'glc', 'slc', 'dlc', 'sc0', 'sc1', 'nt', 'lds', 'offen', 'idxen', 'addr64',
             'tfe', 'lwe', 'da', 'd16', 'unorm', 'r128', 'a16', 'clamp', 'gds', 'nv'}
ALU, WAIT, BARRIER, END, BR, CBR, STOP, VMEM, LDS = range(9)
_SIZE = re.compile(r'(b128|b96|[biuf]64|[biuf]32|[biu]16|[biu]8)')
_DMA_SIZES = {'dword': 4, 'dwordx3': 12, 'dwordx4': 16, 'ubyte': 1, 'sbyte': 1,
              'ushort': 2, 'sshort': 2}


def parse_operand(tok):
    """('r', file, names) | ('i', int) | ('f', float) | ('off',) | ('?', text)."""
    t = tok.strip().lower()
    m = _REG.match(t)
    if m:
        lo = int(m.group(2) or m.group(3))
        hi = int(m.group(4)) if m.group(4) else lo
        f = 's' if m.group(1) == 'ttmp' else m.group(1)
        return ('r', f, tuple(f'{m.group(1)}{i}' for i in range(lo, hi + 1)))
    if t in _SPECIAL:
        return ('r', 's', _SPECIAL[t])
    if t in ('off', 'null'):
        return ('off',)
    if _INT.match(t):
        return ('i', int(t, 0))
    if _FLOAT.match(t):
        return ('f', float(t))
    return ('?', t)  # neg/abs/|x|/named constants: read as UNKNOWN


def _split_top(s, seps):
    """Split s at the characters in seps that are outside brackets/parentheses."""
    out, depth, cur = [], 0, ''
    for ch in s:
        depth += (ch in '[(') - (ch in '])')
        if ch in seps and depth == 0:
            out.append(cur)
            cur = ''
        else:
            cur += ch
    return [p.strip() for p in out + [cur] if p.strip()]


def decode_waitcnt(rest):
    """vmcnt of an s_waitcnt operand; None when it constrains nothing."""
    rest = rest.strip().lower()
    if _INT.match(rest):
        imm = int(rest, 0) & 0xFFFF
        v = (imm & 0xF) | ((imm >> 14) & 3) << 4  # gfx9: vmcnt split in two fields
    else:
        m = re.search(r'vmcnt(?:_sat)?\((\d+)\)', rest)
        if not m:
            return None
        v = int(m.group(1))
    return v if v < VMCNT_MAX else None


def _ds_info(m, mods):
    """(address operand index, byte offsets, size) of a DS instruction; 'all' when the
    bytes are unknown; None when it touches no LDS memory."""
    for a, b in (('load_2addr_stride64_', 'read2st64_'), ('load_2addr_', 'read2_'),
                 ('store_2addr_stride64_', 'write2st64_'), ('store_2addr_', 'write2_'),
                 ('ds_load_', 'ds_read_'), ('ds_store_', 'ds_write_')):
        m = m.replace(a, b)
    if m.startswith(('ds_swizzle', 'ds_permute', 'ds_bpermute', 'ds_nop', 'ds_gws',
                     'ds_append', 'ds_consume')):
        return None
    sz = _SIZE.search(m.split('_', 2)[-1])
    if 'addtid' in m or sz is None or 'gds' in mods:
        return 'all'
    size = int(re.sub(r'\D', '', sz.group(1))) // 8
    if m.startswith(('ds_read2', 'ds_write2')):
        scale = size * (64 if 'st64' in m else 1)
        offs = (mods.get('offset0', 0) * scale, mods.get('offset1', 0) * scale)
        return (1 if m.startswith('ds_read') else 0, offs, size)
    # ds_read: vdst, vaddr; ds_write and non-returning atomics: vaddr first.
    ai = 1 if m.startswith('ds_read') or '_rtn' in m else 0
    return (ai, (mods.get('offset', 0),), size)


class Inst:
    """One assembly instruction, decoded once."""
    __slots__ = ('line', 'text', 'mnem', 'enc', 'ops', 'mods', 'kind', 'vmcnt', 'target',
                 'dests', 'dma_size', 'lds', 'mentions', 'handler', 'vdst')

    def __init__(self, line, text):
        self.line, self.text = line, text
        head, _, rest = text.partition(' ')
        m, self.enc = head.lower(), ''
        for suf in ('_e64_dpp', '_e32', '_e64', '_sdwa', '_dpp'):
            if m.startswith('v_') and m.endswith(suf):
                m, self.enc = m[:-len(suf)], suf[1:]
                break
        self.mnem, self.mods, self.ops, self.dests = m, {}, [], ()
        self.vmcnt = self.target = self.dma_size = self.lds = None
        self.kind, self.handler, self.vdst = ALU, _nop, False
        if m == 's_waitcnt':
            self.vmcnt = decode_waitcnt(rest)
            self.kind = ALU if self.vmcnt is None else WAIT
            self.mentions = frozenset()
            return
        parts = _split_top(rest, ',')
        if parts:  # the last operand may carry space-separated modifiers
            tail = _split_top(parts[-1], ' \t')
            t0 = tail[0].lower()
            only_mods = t0 in _MODWORDS or (':' in t0 and not _REG.match(t0))
            parts[-1:], tail = ([], tail) if only_mods else ([tail[0]], tail[1:])
            for mod in tail:
                k, _, v = mod.lower().partition(':')
                self.mods[k] = int(v, 0) if _INT.match(v) else (v or True)
        self.ops = [parse_operand(p) for p in parts]
        self._classify(parts)
        self.mentions = frozenset(n for o in self.ops if o[0] == 'r' and o[1] in 'va'
                                  for n in o[2]) - frozenset(self.dests)

    def _classify(self, parts):
        m, ops = self.mnem, self.ops
        if m == 's_barrier':
            self.kind = BARRIER
        elif m in ('s_endpgm', 's_endpgm_saved', 's_endpgm_ordered_ps_done'):
            self.kind = END
        elif m == 's_branch' or m.startswith('s_cbranch_'):
            self.kind, self.target = (BR if m == 's_branch' else CBR), parts[0] if parts else None
        elif m in ('s_setpc_b64', 's_swappc_b64', 's_call_b64', 's_rfe_b64', 's_trap'):
            self.kind = STOP
        elif m.startswith(('global_', 'buffer_', 'flat_', 'scratch_', 'tbuffer_', 'image_')):
            self.kind = VMEM
            if m.startswith('global_load_lds_') or (m.startswith('buffer_load_')
                                                   and 'lds' in self.mods):
                self.dma_size = _DMA_SIZES.get(m.rsplit('_', 1)[-1], 4)
            elif ops and ops[0][0] == 'r' and ops[0][1] in 'va' and (
                    any(w in m for w in ('_load', '_sample', '_gather', '_get'))
                    or ('atomic' in m and ('glc' in self.mods or 'sc0' in self.mods))):
                self.dests = ops[0][2]  # the VGPRs it loads
            if m.startswith('flat_') or 'store_lds' in m:
                self.lds = 'all'
        elif m.startswith('ds_'):
            self.kind, self.lds = LDS, _ds_info(m, self.mods)
            self.vdst = m.startswith(('ds_read', 'ds_load', 'ds_swizzle', 'ds_permute',
                                      'ds_bpermute')) or '_rtn' in m
        else:
            self.handler = _handler_for(self)


def parse(text):
    """Kernels of an assembly text: [(name, [Inst], {label: index}, metadata)]."""
    funcs = set(re.findall(r'^\s*\.type\s+([\w.$]+)\s*,\s*@function', text, re.M))
    kernels, cur, meta_lines, in_meta, hsa, hsa_name = [], None, [], False, {}, None
    for ln, raw in enumerate(text.splitlines(), 1):
        s = raw.split(';', 1)[0].split('//', 1)[0].strip()
        if in_meta or s == '.amdgpu_metadata':
            in_meta = s != '.end_amdgpu_metadata'
            meta_lines.append(raw)
            continue
        lm = re.match(r'^([\w.$]+):(.*)$', s)
        if lm:  # a label, perhaps followed by an instruction
            name, s = lm.group(1), lm.group(2).strip()
            if name in funcs or (not funcs and cur is None and not name.startswith('.L')):
                cur = (name, [], {}, {})
                kernels.append(cur)
            elif cur is not None:
                cur[2][name] = len(cur[1])
        if s.startswith('.'):
            d = s.split()
            if d[0] == '.amdhsa_kernel' and len(d) > 1:
                hsa_name = d[1]
            elif d[0] == '.amdhsa_system_vgpr_workitem_id' and hsa_name:
                hsa.setdefault(hsa_name, {})['workitem_id'] = int(d[1], 0)
        elif re.match(r'^(s|v|ds|global|buffer|flat|scratch|tbuffer|image)_', s, re.I):
            if cur is None:
                cur = ('<input>', [], {}, {})
                kernels.append(cur)
            cur[1].append(Inst(ln, ' '.join(s.split())))
    for chunk in re.split(r'\n  - ', '\n'.join(meta_lines)):  # one chunk per kernel
        nm = re.search(r'^\s*\.name:\s+[\'"]?([\w.$]+)', chunk, re.M)
        if nm:
            d = hsa.setdefault(nm.group(1), {})
            mf = re.search(r'\.max_flat_workgroup_size:\s+(\d+)', chunk)
            if mf:
                d['max_flat'] = int(mf.group(1))
            rq = re.search(r'\.reqd_workgroup_size:\s*' + r'\s*-\s*(\d+)' * 3, chunk)
            if rq:
                d['reqd'] = tuple(int(x) for x in rq.groups())
    return [(n, insts, labels, hsa.get(n, {})) for n, insts, labels, _ in kernels]

# ------------------------------------------------------------------------------------------
# Wave state and ALU semantics
# ------------------------------------------------------------------------------------------


class Tok:
    """An UNKNOWN 64-bit lane mask with an identity: both halves of a register pair
    hold the same Tok. Branches on it are decided once per path."""
    __slots__ = ()


class Wave:
    """State of one wave: s maps SGPR names (and 'scc') to 32-bit ints or a Tok, v maps
    VGPR/AGPR names to 64 lane values (None = UNKNOWN), missing = UNKNOWN; q lists the
    VMEM instructions in flight and pr those retired in this barrier phase, as
    (instruction, DMA bytes, loaded VGPRs, sure) with None for the first three when
    only their count matters. q and pr only serve to recognize equal states."""
    __slots__ = ('s', 'v', 'q', 'pr')

    def __init__(self, s, v, q=(), pr=()):
        self.s, self.v, self.q, self.pr = s, v, list(q), list(pr)

    def copy(self):
        return Wave(dict(self.s), dict(self.v), self.q, self.pr)

    def key(self):
        return (frozenset(self.s.items()), frozenset((k, tuple(v)) for k, v in self.v.items()),
                tuple(self.q), tuple(self.pr))


def _s32(x):
    return (x & M32) - (1 << 32) if x >> 31 & 1 else x & M32


def _sext(x, bits):
    x &= (1 << bits) - 1
    return x - (1 << bits) if x >> (bits - 1) else x


def _int(v):
    return v if type(v) is int else None


def rs(w, o):
    """32-bit scalar value of an operand, or None."""
    if o[0] == 'r':
        return _int(w.s.get(o[2][0])) if o[1] == 's' else None
    if o[0] == 'i':
        return o[1] & M32
    return struct.unpack('<I', struct.pack('<f', o[1]))[0] if o[0] == 'f' else None


def rs64(w, o, tok=False):
    """64-bit scalar value of a register pair or literal; with tok, a Tok may be
    returned for an identified UNKNOWN mask."""
    if o[0] == 'r' and o[1] == 's' and len(o[2]) == 2:
        lo, hi = w.s.get(o[2][0]), w.s.get(o[2][1])
        if type(lo) is int and type(hi) is int:
            return lo | hi << 32
        return lo if tok and isinstance(lo, Tok) and lo is hi else None
    if o[0] == 'i' and (-(1 << 31) <= o[1] < (1 << 31) or o[1] >= 1 << 32):
        return o[1] & M64  # sign-extended; a literal in 2^31..2^32 is ambiguous
    return None


def ws(w, o, val, bits=32):
    """Write a scalar destination (None = UNKNOWN; a Tok fills both halves)."""
    if o[0] == 'r':
        for i, n in enumerate(o[2][:bits // 32]):
            if val is None:
                w.s.pop(n, None)
            else:
                w.s[n] = val if isinstance(val, Tok) else (val >> (32 * i)) & M32


def set_scc(w, v):
    if type(v) is int:
        w.s['scc'] = v
    else:
        w.s.pop('scc', None)


def exec_mask(w):
    return rs64(w, EXEC)


def rv(w, o):
    """Per-lane 32-bit values of an operand."""
    if o[0] == 'r' and o[1] in 'va':
        return w.v.get(o[2][0], NONE64)
    return [rs(w, o)] * LANES


def rv64(w, o):
    """Per-lane 64-bit values of a VGPR pair, SGPR pair or literal."""
    if o[0] == 'r' and o[1] in 'va' and len(o[2]) == 2:
        lo, hi = w.v.get(o[2][0], NONE64), w.v.get(o[2][1], NONE64)
        return [None if a is None or b is None else a | b << 32 for a, b in zip(lo, hi)]
    return [rs64(w, o)] * LANES


def wv(w, o, vec, part=0):
    """Write the lanes of VGPR destination o (register `part` of it), honouring EXEC."""
    if o[0] != 'r' or o[1] not in 'va' or part >= len(o[2]):
        return
    name, ex = o[2][part], exec_mask(w)
    if ex != M64:
        old = w.v.get(name, NONE64)
        if ex is None:  # unknown lanes: keep only what both outcomes agree on
            vec = [a if a == b else None for a, b in zip(vec, old)]
        else:
            vec = [vec[l] if ex >> l & 1 else old[l] for l in range(LANES)]
    if vec.count(None) == LANES:
        w.v.pop(name, None)
    else:
        w.v[name] = vec


def wv64(w, o, vec):
    wv(w, o, [None if x is None else x & M32 for x in vec], 0)
    wv(w, o, [None if x is None else x >> 32 & M32 for x in vec], 1)


def _lanes(fn, srcs, mask=M32):
    return [None if None in t else fn(*t) & mask for t in zip(*srcs)]


def _nz(r):
    return r & M32, int(r & M32 != 0)


def _bfe(a, off, width, signed):
    width &= 31
    r = (a >> (off & 31)) & ((1 << width) - 1)
    return _sext(r, width) & M32 if signed and width else r


def _and64(a, b):  # zero, all-ones and identity rules keep masks (and Toks) known
    if a == 0 or b == 0:
        return 0
    if a == M64 or b == M64:
        return b if a == M64 else a
    return a & b if type(a) is int and type(b) is int else None


def _or64(a, b):
    if a == M64 or b == M64:
        return M64
    if a == 0 or b == 0:
        return b if a == 0 else a
    return a | b if type(a) is int and type(b) is int else None


def _ints(f):  # lift a function of ints: UNKNOWN (or Tok) in, UNKNOWN out
    return lambda *a: f(*a) if all(type(x) is int for x in a) else None


# Scalar ALU: name -> (fn(srcs..., scc) -> (result, scc or KEEP), operand widths
# (destination first)). Sources are ints, or None/Tok where marked with Tok-aware fns.
_S = {
    's_add_u32': (lambda a, b, c: (a + b, (a + b) >> 32), (32, 32, 32)),
    's_addc_u32': (lambda a, b, c: (a + b + c, (a + b + c) >> 32), (32, 32, 32, 'scc')),
    's_sub_u32': (lambda a, b, c: (a - b, int(b > a)), (32, 32, 32)),
    's_subb_u32': (lambda a, b, c: (a - b - c, int(b + c > a)), (32, 32, 32, 'scc')),
    's_add_i32': (lambda a, b, c: (a + b, int((_s32(a) + _s32(b)) != _s32(a + b))), (32, 32, 32)),
    's_sub_i32': (lambda a, b, c: (a - b, int((_s32(a) - _s32(b)) != _s32(a - b))), (32, 32, 32)),
    's_mul_i32': (lambda a, b, c: (a * b, KEEP), (32, 32, 32)),
    's_mul_hi_u32': (lambda a, b, c: ((a * b) >> 32, KEEP), (32, 32, 32)),
    's_mul_hi_i32': (lambda a, b, c: ((_s32(a) * _s32(b)) >> 32, KEEP), (32, 32, 32)),
    's_lshl_b32': (lambda a, b, c: _nz(a << (b & 31)), (32, 32, 32)),
    's_lshr_b32': (lambda a, b, c: _nz(a >> (b & 31)), (32, 32, 32)),
    's_ashr_i32': (lambda a, b, c: _nz(_s32(a) >> (b & 31)), (32, 32, 32)),
    's_min_u32': (lambda a, b, c: (min(a, b), int(a < b)), (32, 32, 32)),
    's_max_u32': (lambda a, b, c: (max(a, b), int(a > b)), (32, 32, 32)),
    's_min_i32': (lambda a, b, c: (min(_s32(a), _s32(b)), int(_s32(a) < _s32(b))), (32, 32, 32)),
    's_max_i32': (lambda a, b, c: (max(_s32(a), _s32(b)), int(_s32(a) > _s32(b))), (32, 32, 32)),
    's_bfe_u32': (lambda a, b, c: _nz(_bfe(a, b, b >> 16 & 0x7F, False)), (32, 32, 32)),
    's_bfe_i32': (lambda a, b, c: _nz(_bfe(a, b, b >> 16 & 0x7F, True)), (32, 32, 32)),
    's_bfm_b32': (lambda a, b, c: (((1 << (a & 31)) - 1) << (b & 31), KEEP), (32, 32, 32)),
    's_absdiff_i32': (lambda a, b, c: _nz(abs(_s32(a) - _s32(b))), (32, 32, 32)),
    's_pack_ll_b32_b16': (lambda a, b, c: ((a & 0xFFFF) | b << 16, KEEP), (32, 32, 32)),
    's_pack_lh_b32_b16': (lambda a, b, c: ((a & 0xFFFF) | (b & 0xFFFF0000), KEEP), (32, 32, 32)),
    's_pack_hh_b32_b16': (lambda a, b, c: (a >> 16 | (b & 0xFFFF0000), KEEP), (32, 32, 32)),
    's_mov_b32': (lambda a, c: (a, KEEP), (32, 32)),
    's_movk_i32': (lambda a, c: (_sext(a, 16), KEEP), (32, 32)),
    's_not_b32': (lambda a, c: _nz(~a), (32, 32)),
    's_abs_i32': (lambda a, c: _nz(abs(_s32(a))), (32, 32)),
    's_sext_i32_i8': (lambda a, c: (_sext(a, 8), KEEP), (32, 32)),
    's_sext_i32_i16': (lambda a, c: (_sext(a, 16), KEEP), (32, 32)),
    's_bcnt1_i32_b32': (lambda a, c: _nz(bin(a).count('1')), (32, 32)),
    's_brev_b32': (lambda a, c: (int(f'{a:032b}'[::-1], 2), KEEP), (32, 32)),
    # destination read too (SOPK forms), scc read by the conditional moves
    's_addk_i32': (lambda d, k, c: (d + _sext(k, 16), int((_s32(d) + _sext(k, 16))
                                                          != _s32(d + _sext(k, 16)))), (32, 'd', 32)),
    's_mulk_i32': (lambda d, k, c: (d * _sext(k, 16), KEEP), (32, 'd', 32)),
    's_cmov_b32': (lambda d, a, c: (a if c else d, KEEP), (32, 'd', 32, 'scc')),
    's_cmovk_i32': (lambda d, a, c: (_sext(a, 16) if c else d, KEEP), (32, 'd', 32, 'scc')),
    's_lshl_b64': (lambda a, b, c: _nz64(a << (b & 63)), (64, 64, 32)),
    's_lshr_b64': (lambda a, b, c: _nz64(a >> (b & 63)), (64, 64, 32)),
    's_ashr_i64': (lambda a, b, c: _nz64(_sext(a, 64) >> (b & 63)), (64, 64, 32)),
    's_not_b64': (lambda a, c: _nz64(~a), (64, 64)),
    's_xor_b64': (lambda a, b, c: _nz64(a ^ b), (64, 64, 64)),
    's_andn2_b64': (lambda a, b, c: _nz64(a & ~b), (64, 64, 64)),
    's_orn2_b64': (lambda a, b, c: _nz64(a | ~b), (64, 64, 64)),
}
for _n, _f in (('and', lambda a, b: a & b), ('or', lambda a, b: a | b),
               ('xor', lambda a, b: a ^ b), ('andn2', lambda a, b: a & ~b),
               ('orn2', lambda a, b: a | ~b), ('nand', lambda a, b: ~(a & b)),
               ('nor', lambda a, b: ~(a | b)), ('xnor', lambda a, b: ~(a ^ b))):
    _S[f's_{_n}_b32'] = ((lambda f: lambda a, b, c: _nz(f(a, b)))(_f), (32, 32, 32))
for _n in (1, 2, 3, 4):
    _S[f's_lshl{_n}_add_u32'] = ((lambda n: lambda a, b, c: ((a << n) + b,
                                                              int((a << n) + b > M32)))(_n),
                                 (32, 32, 32))
# Tok-aware 64-bit forms (a mask copied or and-ed with all ones keeps its identity).
_S_TOK = {
    's_mov_b64': (lambda a, c: (a, KEEP), (64, 64)),
    's_and_b64': (lambda a, b, c: _tnz(_and64(a, b)), (64, 64, 64)),
    's_or_b64': (lambda a, b, c: _tnz(_or64(a, b)), (64, 64, 64)),
    's_cselect_b32': (lambda a, b, c: (_sel(a, b, c), KEEP), (32, 32, 32, 'scc')),
    's_cselect_b64': (lambda a, b, c: (_sel(a, b, c), KEEP), (64, 64, 64, 'scc')),
    's_cmov_b64': (lambda d, a, c: (_sel(a, d, c), KEEP), (64, 'd', 64, 'scc')),
}


def _nz64(r):
    return r & M64, int(r & M64 != 0)


def _tnz(r):
    return r, (None if r is None or isinstance(r, Tok) else int(r != 0))


def _sel(a, b, c):
    return (a if c else b) if type(c) is int else (a if a is b or a == b else None)


# Saveexec: exec = f(src, old exec); destination = old exec; SCC = exec != 0.
_SAVEEXEC = {'and': _and64, 'or': _or64, 'xor': _ints(lambda a, e: a ^ e),
             'andn2': _ints(lambda a, e: a & ~e), 'orn2': _ints(lambda a, e: a | ~e),
             'andn1': _ints(lambda a, e: ~a & e), 'orn1': _ints(lambda a, e: ~a | e),
             'nand': _ints(lambda a, e: ~(a & e)), 'nor': _ints(lambda a, e: ~(a | e)),
             'xnor': _ints(lambda a, e: ~(a ^ e))}
_CMP = {'eq': lambda a, b: a == b, 'lg': lambda a, b: a != b, 'ne': lambda a, b: a != b,
        'gt': lambda a, b: a > b, 'ge': lambda a, b: a >= b, 'lt': lambda a, b: a < b,
        'le': lambda a, b: a <= b, 't': lambda a, b: True, 'f': lambda a, b: False}

# Vector ALU on 32-bit lanes: name -> fn(*sources).
_V = {
    'v_mov_b32': lambda a: a, 'v_not_b32': lambda a: ~a, 'v_accvgpr_write_b32': lambda a: a,
    'v_accvgpr_read_b32': lambda a: a, 'v_accvgpr_mov_b32': lambda a: a,
    'v_bfrev_b32': lambda a: int(f'{a:032b}'[::-1], 2),
    'v_add_u32': lambda a, b: a + b, 'v_add_nc_u32': lambda a, b: a + b,
    'v_sub_u32': lambda a, b: a - b, 'v_subrev_u32': lambda a, b: b - a,
    'v_lshlrev_b32': lambda a, b: b << (a & 31), 'v_lshrrev_b32': lambda a, b: b >> (a & 31),
    'v_ashrrev_i32': lambda a, b: _s32(b) >> (a & 31),
    'v_and_b32': lambda a, b: a & b, 'v_or_b32': lambda a, b: a | b,
    'v_xor_b32': lambda a, b: a ^ b, 'v_xnor_b32': lambda a, b: ~(a ^ b),
    'v_mul_lo_u32': lambda a, b: a * b, 'v_mul_hi_u32': lambda a, b: (a * b) >> 32,
    'v_mul_lo_i32': lambda a, b: a * b, 'v_mul_hi_i32': lambda a, b: (_s32(a) * _s32(b)) >> 32,
    'v_mul_u32_u24': lambda a, b: (a & 0xFFFFFF) * (b & 0xFFFFFF),
    'v_mul_hi_u32_u24': lambda a, b: ((a & 0xFFFFFF) * (b & 0xFFFFFF)) >> 32,
    'v_mul_i32_i24': lambda a, b: _sext(a, 24) * _sext(b, 24),
    'v_mul_hi_i32_i24': lambda a, b: (_sext(a, 24) * _sext(b, 24)) >> 32,
    'v_min_u32': min, 'v_max_u32': max,
    'v_min_i32': lambda a, b: min(_s32(a), _s32(b)), 'v_max_i32': lambda a, b: max(_s32(a), _s32(b)),
    'v_bcnt_u32_b32': lambda a, b: bin(a).count('1') + b,
    'v_bfm_b32': lambda a, b: ((1 << (a & 31)) - 1) << (b & 31),
    'v_lshl_add_u32': lambda a, b, c: (a << (b & 31)) + c,
    'v_add_lshl_u32': lambda a, b, c: ((a + b) & M32) << (c & 31),
    'v_lshl_or_b32': lambda a, b, c: (a << (b & 31)) | c,
    'v_and_or_b32': lambda a, b, c: (a & b) | c, 'v_or3_b32': lambda a, b, c: a | b | c,
    'v_xor3_b32': lambda a, b, c: a ^ b ^ c, 'v_add3_u32': lambda a, b, c: a + b + c,
    'v_xad_u32': lambda a, b, c: (a ^ b) + c,
    'v_mad_u32_u24': lambda a, b, c: (a & 0xFFFFFF) * (b & 0xFFFFFF) + c,
    'v_mad_i32_i24': lambda a, b, c: _sext(a, 24) * _sext(b, 24) + c,
    'v_bfe_u32': lambda a, b, c: _bfe(a, b, c, False), 'v_bfe_i32': lambda a, b, c: _bfe(a, b, c, True),
    'v_bfi_b32': lambda a, b, c: (a & b) | (~a & c),
    'v_alignbit_b32': lambda a, b, c: ((a << 32) | b) >> (c & 31),
    'v_alignbyte_b32': lambda a, b, c: ((a << 32) | b) >> (8 * (c & 3)),
    'v_min3_u32': min, 'v_max3_u32': max, 'v_med3_u32': lambda a, b, c: sorted((a, b, c))[1],
    'v_min3_i32': lambda a, b, c: min(_s32(a), _s32(b), _s32(c)),
    'v_max3_i32': lambda a, b, c: max(_s32(a), _s32(b), _s32(c)),
    'v_med3_i32': lambda a, b, c: sorted((_s32(a), _s32(b), _s32(c)))[1],
}
_V_ARITY = {k: (3 if k in ('v_min3_u32', 'v_max3_u32') else f.__code__.co_argcount
                if hasattr(f, '__code__') else 2) for k, f in _V.items()}
# Carry forms (vdst, carry-out, a, b[, carry-in]): wide result; carry = bit 32 or borrow.
_VCARRY = {'v_add_co_u32': lambda a, b, c: a + b, 'v_sub_co_u32': lambda a, b, c: a - b,
           'v_subrev_co_u32': lambda a, b, c: b - a, 'v_addc_co_u32': lambda a, b, c: a + b + c,
           'v_subb_co_u32': lambda a, b, c: a - b - c, 'v_subbrev_co_u32': lambda a, b, c: b - a - c}
# 64-bit lane forms: name -> (fn, source readers); the destination is a VGPR pair.
_V64 = {'v_lshl_add_u64': (lambda a, s, b: (a << (s & 63)) + b, (rv64, rv, rv64)),
        'v_lshlrev_b64': (lambda s, a: a << (s & 63), (rv, rv64)),
        'v_lshrrev_b64': (lambda s, a: a >> (s & 63), (rv, rv64)),
        'v_ashrrev_i64': (lambda s, a: _sext(a, 64) >> (s & 63), (rv, rv64)),
        'v_mov_b64': (lambda a: a, (rv64,))}
_NO_SDEST = ('s_cmp', 's_bitcmp', 's_nop', 's_setprio', 's_sleep', 's_dcache', 's_store',
             's_buffer_store', 's_scratch_store', 's_setreg', 's_sendmsg', 's_ttrace',
             's_icache', 's_incperflevel', 's_decperflevel', 's_set_gpr_idx_off', 's_setkill',
             's_denorm_mode', 's_round_mode', 's_wakeup', 's_waitcnt')


def _nop(w, inst):
    pass


def _clobber(w, inst):
    """Unmodeled instruction: forget whatever it may write."""
    m, ops = inst.mnem, inst.ops
    dsts = [ops[0]] if ops and not m.startswith(_NO_SDEST) else []
    if m.startswith('v_') and len(ops) > 1 and (m == 'v_swap_b32' or any(
            k in m for k in ('_co_', 'addc', 'subb', 'div_scale', 'mad_u64', 'mad_i64'))):
        dsts.append(ops[1])  # carry-out / second destination
    for o in dsts:
        for n in o[2] if o[0] == 'r' else ():
            (w.v if o[1] in 'va' else w.s).pop(n, None)
    if m.startswith('s_'):
        w.s.pop('scc', None)
    if 'exec' in m or m.startswith('v_cmpx'):
        ws(w, EXEC, None, 64)
    if m.startswith('s_set_gpr_idx_on'):
        w.v.clear()  # VGPR indexing: operands no longer name fixed registers


def _mask_of(w, bit):
    """64-bit lane mask from per-lane booleans (None = unknown); inactive lanes 0.
    Unknown masks get a fresh identity (Tok)."""
    ex, mask = exec_mask(w), 0
    for l in range(LANES) if ex is not None else ():
        if ex >> l & 1:
            b = bit(l)
            if b is None:
                return Tok()
            mask |= int(bool(b)) << l
    return mask if ex is not None else Tok()


def _salu(fn, widths, tok_aware):
    """Handler of a scalar ALU table entry. widths: destination width, then per source
    32 / 64 (the next operand), 'd' (the destination read) or 'scc' (SCC needed)."""
    srcs = [x for x in widths[1:] if x != 'scc']
    keeps = fn(*[0] * (len(srcs) + 1))[1] is KEEP  # does it leave SCC alone?

    def h(w, inst):
        ops, args, rest = inst.ops, [], iter(inst.ops[1:])
        for wd in srcs:
            o = ops[0] if wd == 'd' else next(rest, None)
            if o is None:
                return _clobber(w, inst)
            bits = widths[0] if wd == 'd' else wd
            args.append(rs64(w, o, tok_aware) if bits == 64 else rs(w, o))
        args.append(_int(w.s.get('scc')))
        if tok_aware or (all(type(a) is int for a in args[:-1])
                         and ('scc' not in widths or args[-1] is not None)):
            r, sc = fn(*args)
        else:
            r, sc = None, KEEP if keeps else None
        if type(r) is int:
            r &= M64 if widths[0] == 64 else M32
        ws(w, ops[0], r, widths[0])
        if sc is not KEEP:
            set_scc(w, sc)
    return h


def _handler_for(inst):
    """Semantics of an ALU instruction: a function (wave, inst) -> None."""
    m, ops = inst.mnem, inst.ops
    if not ops:
        return _nop
    if inst.mods or inst.enc in ('sdwa', 'dpp', 'e64_dpp'):
        return _clobber
    if m in _S or m in _S_TOK:
        return _salu(*(_S.get(m) or _S_TOK[m]), m in _S_TOK)
    se = re.match(r'^s_(\w+)_saveexec_b64$', m)
    if se and se.group(1) in _SAVEEXEC:
        def h(w, inst, f=_SAVEEXEC[se.group(1)]):
            a, e = rs64(w, ops[1], True), rs64(w, EXEC, True)
            r = f(a, e)
            ws(w, ops[0], e, 64)
            ws(w, EXEC, r, 64)
            set_scc(w, _tnz(r)[1])
        return h
    cm = re.match(r'^s_cmpk?_(eq|lg|gt|ge|lt|le)_(i32|u32|u64)$', m)
    if cm:
        def h(w, inst):
            a, b = (rs64 if cm.group(2) == 'u64' else rs)(w, ops[0]), rs(w, ops[1])
            b = rs64(w, ops[1]) if cm.group(2) == 'u64' else b
            if b is not None and m.startswith('s_cmpk'):
                b = _sext(b, 16) & M32 if cm.group(2) == 'i32' else b & 0xFFFF
            if a is not None and b is not None and cm.group(2) == 'i32':
                a, b = _s32(a), _s32(b)
            set_scc(w, None if a is None or b is None else int(_CMP[cm.group(1)](a, b)))
        return h
    if re.match(r'^s_bitcmp[01]_b(32|64)$', m):
        def h(w, inst):
            a, b = (rs64 if m.endswith('64') else rs)(w, ops[0]), rs(w, ops[1])
            set_scc(w, None if a is None or b is None else int((a >> (b & 63)) & 1 == int(m[8])))
        return h
    if m in _V and len(ops) == _V_ARITY[m] + 1:
        return lambda w, inst, f=_V[m]: wv(w, ops[0], _lanes(f, [rv(w, o) for o in ops[1:]]))
    if m in _VCARRY and len(ops) in (4, 5):
        def h(w, inst, f=_VCARRY[m]):
            cin = rs64(w, ops[4]) if len(ops) == 5 else 0
            wide = [None if x is None or y is None or cin is None else f(x, y, cin >> l & 1)
                    for l, (x, y) in enumerate(zip(rv(w, ops[2]), rv(w, ops[3])))]
            wv(w, ops[0], [None if r is None else r & M32 for r in wide])
            ws(w, ops[1], _mask_of(w, lambda l: None if wide[l] is None
                                   else not 0 <= wide[l] <= M32), 64)
        return h
    if m in _V64 and len(ops) == len(_V64[m][1]) + 1:
        f, readers = _V64[m]
        return lambda w, inst: wv64(w, ops[0], _lanes(f, [r(w, o) for r, o in zip(
            readers, ops[1:])], M64))
    if m == 'v_mad_u64_u32' and len(ops) == 5:
        def h(w, inst):
            wv64(w, ops[0], _lanes(lambda a, b, c: a * b + c,
                                   [rv(w, ops[2]), rv(w, ops[3]), rv64(w, ops[4])], M64))
            ws(w, ops[1], None, 64)  # carry-out not modeled
        return h
    if m == 'v_cndmask_b32' and len(ops) in (3, 4):
        def h(w, inst):
            k = rs64(w, ops[3] if len(ops) == 4 else VCC)
            wv(w, ops[0], [_sel(y, x, None if k is None else k >> l & 1)
                           for l, (x, y) in enumerate(zip(rv(w, ops[1]), rv(w, ops[2])))])
        return h
    vc = re.match(r'^v_cmpx?_(eq|ne|lt|le|gt|ge|t|f)_([iu])(32|64)$', m)
    if vc and len(ops) == 3:
        def h(w, inst):
            rd = rv64 if vc.group(3) == '64' else rv
            a, b = rd(w, ops[1]), rd(w, ops[2])
            sg = (lambda x: _sext(x, int(vc.group(3)))) if vc.group(2) == 'i' else (lambda x: x)
            f = _CMP[vc.group(1)]
            k = _mask_of(w, lambda l: None if a[l] is None or b[l] is None
                         else f(sg(a[l]), sg(b[l])))
            ws(w, ops[0], k, 64)
            if m.startswith('v_cmpx'):
                ws(w, EXEC, k, 64)
        return h
    if m in ('v_readfirstlane_b32', 'v_readlane_b32'):
        def h(w, inst):
            v, ex = rv(w, ops[1]), exec_mask(w)
            if m == 'v_readlane_b32':
                lane = rs(w, ops[2])
                ws(w, ops[0], None if lane is None else v[lane & 63])
            elif ex is None:
                ws(w, ops[0], v[0] if v.count(v[0]) == LANES else None)
            else:
                ws(w, ops[0], v[(ex & -ex).bit_length() - 1 if ex else 0])
        return h
    if m in ('v_mbcnt_lo_u32_b32', 'v_mbcnt_hi_u32_b32') and len(ops) == 3:
        hi = m == 'v_mbcnt_hi_u32_b32'

        def below(l):  # this half's lanes below lane l, as a 32-bit mask
            n = (l - 32 if hi else l) if (l >= 32) == hi else (0 if hi else 32)
            return (1 << n) - 1
        return lambda w, inst: wv(w, ops[0], [
            None if k is None or c is None else bin(k & below(l)).count('1') + c & M32
            for l, (k, c) in enumerate(zip(rv(w, ops[1]), rv(w, ops[2])))])
    return _clobber

# ------------------------------------------------------------------------------------------
# Byte intervals (sorted, merged tuples of [lo, hi))
# ------------------------------------------------------------------------------------------


def merge(ivs):
    out = []
    for lo, hi in sorted(ivs):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return tuple(out)


def overlap(a, b):
    """Intersection of two interval tuples (empty tuple if none)."""
    if a[0][0] >= b[-1][1] or b[0][0] >= a[-1][1]:
        return ()
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo < hi:
            out.append((lo, hi))
        i, j = (i + 1, j) if a[i][1] < b[j][1] else (i, j + 1)
    return tuple(out)


def fmt_bytes(ivs):
    if ivs == ALL_LDS:
        return 'all of LDS (address unknown)'
    s = ', '.join(f'[{lo:#x}, {hi:#x})' for lo, hi in ivs[:3])
    return s + (f' and {len(ivs) - 3} more ranges' if len(ivs) > 3 else '')


def footprints(w, inst):
    """(LDS bytes DMA-written, LDS bytes accessed) of a memory instruction in wave w."""
    ex = exec_mask(w)
    active = range(LANES) if ex is None else [l for l in range(LANES) if ex >> l & 1]
    dma = acc = None
    if inst.dma_size:
        m0, sz = rs(w, ('r', 's', ('m0',))), inst.dma_size
        base = None if m0 is None else m0 + inst.mods.get('offset', 0)
        dma = ALL_LDS if m0 is None else merge(
            (base + l * sz, base + 4 * l + 4 if sz < 4 else base + l * sz + sz) for l in active)
    if inst.lds == 'all':
        acc = ALL_LDS
    elif inst.lds:
        ai, offs, size = inst.lds
        addr = rv(w, inst.ops[ai]) if ai < len(inst.ops) else NONE64
        if any(addr[l] is None for l in active):
            acc = ALL_LDS
        else:
            acc = merge(((addr[l] + o) & M32, ((addr[l] + o) & M32) + size)
                        for l in active for o in offs)
    return dma or None, acc or None

# ------------------------------------------------------------------------------------------
# Paths and their analysis
# ------------------------------------------------------------------------------------------


class Op:
    """One VMEM instruction issued by one wave on one path."""
    __slots__ = ('wave', 'pos', 'k', 'idx', 'fp', 'dests', 'ret', 'conf', 'r')

    def __init__(self, wave, pos, k, idx, fp, dests, ret, r):
        self.wave, self.pos, self.k, self.idx = wave, pos, k, idx  # k: issue order in its wave
        self.fp, self.dests, self.ret, self.conf, self.r = fp, dests, ret, None, r


class WaitStat:
    """Visits of one wait; nstar is the least N* over the visits that guard a copy."""

    def __init__(self, inst):
        self.inst, self.visits, self.guarding, self.nstar = inst, 0, 0, None

    @property
    def slack(self):
        return None if self.nstar is None else self.nstar - self.inst.vmcnt


def _cond(w, m):
    """Whether a conditional branch is taken in wave w: True/False/None, or
    (Tok, taken-if-zero) for an identified UNKNOWN mask."""
    if m in ('s_cbranch_scc0', 's_cbranch_scc1'):
        c = _int(w.s.get('scc'))
        return None if c is None else c == int(m[-1])
    for reg, o in (('vcc', VCC), ('exec', EXEC)):
        if m in (f's_cbranch_{reg}z', f's_cbranch_{reg}nz'):
            v, z = rs64(w, o, True), m.endswith(f'{reg}z')
            if isinstance(v, Tok):
                return (v, z)
            if v is None:  # one known non-zero half decides it
                v = 1 if any(_int(w.s.get(n)) for n in o[2]) else None
            return None if v is None else (v == 0) == z
    return None


def _join(w, b):
    """Keep in wave w only the register values that state b agrees with."""
    w.s = {k: v for k, v in w.s.items() if k in b.s and (b.s[k] is v or b.s[k] == v)}
    for k in set(w.v) | set(b.v):
        x, y = w.v.get(k, NONE64), b.v.get(k, NONE64)
        if x is not y:
            m = [p if p == q else None for p, q in zip(x, y)]
            if m.count(None) == LANES:
                w.v.pop(k, None)
            else:
                w.v[k] = m


class KernelReport:
    """Explores one kernel's paths and collects violations and wait slack."""

    def __init__(self, name, insts, labels, meta, waves=None, max_paths=2000, back_edges=2):
        self.name, self.insts, self.labels, self.meta = name, insts, labels, meta
        self.max_paths, self.back_edges = max_paths, back_edges
        r = meta.get('reqd')
        self.size = waves * LANES if waves else (r[0] * r[1] * r[2] if r
                                                 else meta.get('max_flat', 4 * LANES))
        self.waves = max(1, -(-self.size // LANES))
        self.waits = {i: WaitStat(x) for i, x in enumerate(insts) if x.kind == WAIT}
        self.violations = {}  # key -> [message, occurrences]
        self.notes, self.paths, self.truncated, self.cap_hit = [], 0, 0, False
        self.skip = {}  # (branch, target) -> is the region between them skippable
        self.label_at, self.seen, self.merged, self.back = set(labels.values()), set(), 0, {}

    def _initial(self):
        waves, dims = [], self.meta.get('reqd')
        for w in range(self.waves):
            ex = (1 << min(LANES, self.size - w * LANES)) - 1
            tids = [w * LANES + l for l in range(LANES)]
            if self.meta.get('workitem_id', 0) > 0:  # packed x | y << 10 | z << 20
                v0 = dims and [t % dims[0] | (t // dims[0] % dims[1]) << 10
                               | (t // (dims[0] * dims[1])) << 20 for t in tids]
            else:
                v0 = [t % dims[0] for t in tids] if dims else tids
            waves.append(Wave({'exec_lo': ex & M32, 'exec_hi': ex >> 32}, {'v0': v0} if v0 else {}))
        return waves

    def _note(self, msg):
        if msg not in self.notes:
            self.notes.append(msg)

    def run(self):
        insts, n = self.insts, len(self.insts)
        # (pc, waves, trace, back-edge counts, unknown decisions so far, decided Toks)
        stack = [(0, self._initial(), [], {}, 0, {})]
        while stack:
            pc, waves, trace, edges, nforks, decided = stack.pop()
            while True:
                if self.paths >= self.max_paths:
                    self.cap_hit = True
                    return self
                if pc >= n or len(trace) >= MAX_STEPS:
                    if pc < n:
                        self._note(f'a path longer than {MAX_STEPS} instructions was truncated')
                    self._finish(trace, ended=pc >= n)
                    break
                if pc in self.label_at:  # a join: is this state already explored?
                    live = {v for w in waves for v in w.s.values() if isinstance(v, Tok)}
                    key = hash((pc, nforks, frozenset(edges.items()), tuple(w.key() for w in waves),
                                frozenset(t for t in decided.items() if t[0] in live)))
                    if key in self.seen:
                        self.merged += 1
                        self._finish(trace, ended=False)
                        break
                    self.seen.add(key)
                inst = insts[pc]
                if inst.kind in (BR, CBR):
                    tgt = self.labels.get(inst.target)
                    if tgt is None:
                        self._note(f'line {inst.line}: unknown branch target; path truncated')
                        self._finish(trace, ended=False)
                        break
                    outs, pending = set(), []
                    for c in [True] if inst.kind == BR else [_cond(w, inst.mnem) for w in waves]:
                        if isinstance(c, tuple):
                            if c[0] in decided:
                                c = decided[c[0]] == c[1]
                            else:
                                pending.append(c)
                                c = None
                        outs.add(c)
                    known = len(outs) == 1 and None not in outs
                    if not known and inst.mnem == 's_cbranch_execz' and self._skippable(pc, tgt):
                        # A straight-line region run or skipped: run it with its VMEM
                        # instructions maybe issued, then keep what both outcomes agree on.
                        before, rid = [w.copy() for w in waves], len(trace) + 1
                        for i in range(pc + 1, tgt):
                            self._step(waves, trace, i, rid)
                        for w, b in zip(waves, before):
                            _join(w, b)
                        pc = tgt
                        continue
                    if known:
                        succ = [(tgt if True in outs else pc + 1, decided)]
                    else:  # explore both successors, all waves together
                        if None not in outs:
                            self._note(f'line {inst.line}: waves disagree on the branch; both '
                                       'successors explored with all waves')
                        nforks += 1
                        succ = [(s, {**decided, **{t: z == (s == tgt) for t, z in pending}})
                                for s in (tgt, pc + 1)]
                    succ = [(s, d) for s, d in succ if self._can_take(edges, pc, s, known, nforks)]
                    if not succ:
                        self._note(f'line {inst.line}: loop trip limit reached; path truncated')
                        self._finish(trace, ended=False)
                        break
                    for s, d in succ[1:]:
                        stack.append((s, [w.copy() for w in waves], list(trace),
                                      self._take(edges, pc, s, nforks), nforks, d))
                    (pc, decided), edges = succ[0], self._take(edges, pc, succ[0][0], nforks)
                    continue
                if inst.kind == STOP:
                    self._note(f'line {inst.line}: {inst.mnem} not followed; path truncated')
                    self._finish(trace, ended=False)
                    break
                self._step(waves, trace, pc)
                if inst.kind == END:
                    self._finish(trace, ended=True)
                    break
                pc += 1
        return self

    def _step(self, waves, trace, pc, region=0):
        """Execute one non-branch instruction in every wave and record it (region: the
        maybe region it belongs to, 0 for none)."""
        inst = self.insts[pc]
        payload = [footprints(w, inst) for w in waves] if inst.kind in (VMEM, LDS) else None
        for w, pl in zip(waves, payload or [None] * len(waves)):
            if inst.kind == VMEM:  # loaded values are UNKNOWN
                for d in inst.dests:
                    w.v.pop(d, None)
                w.q.append((pc, pl[0], inst.dests, not region) if pl[0] or inst.dests
                           else (None, None, None, not region))
            elif inst.kind == WAIT and not region:
                younger = 0
                for i in range(len(w.q) - 1, -1, -1):
                    if younger >= inst.vmcnt:
                        w.pr += [x for x in w.q[:i + 1] if x[1]]
                        del w.q[:i + 1]
                        break
                    younger += w.q[i][3]
            elif inst.kind == BARRIER:
                w.pr = []
            elif inst.vdst:
                _clobber(w, inst)
            else:
                inst.handler(w, inst)
            while w.q and w.q[0][0] is None:  # only counted, and only by older ops: forget
                w.q.pop(0)
        trace.append((pc, payload, region))

    def _skippable(self, pc, tgt):
        """Is insts[pc+1:tgt] straight-line code entered only from pc, without barriers?"""
        if (pc, tgt) not in self.skip:
            self.skip[(pc, tgt)] = tgt > pc and not any(
                pc < i < tgt for i in self.labels.values()) and all(
                x.kind in (ALU, VMEM, LDS, WAIT) for x in self.insts[pc + 1:tgt])
        return self.skip[(pc, tgt)]

    def _is_back(self, src, dst):
        """Does the jump src -> dst close a loop (dst at or before src and src reachable
        from dst)? Jumps back into code that cannot reach them again are not loops."""
        if (src, dst) not in self.back:
            seen, todo = set(), [dst]
            while todo and src not in seen:
                i = todo.pop()
                if i in seen or i >= len(self.insts):
                    continue
                seen.add(i)
                x = self.insts[i]
                t = self.labels.get(x.target) if x.kind in (BR, CBR) else None
                todo += ([] if x.kind in (END, STOP) or x.kind == BR else [i + 1]) + (
                    [t] if t is not None else [])
            self.back[(src, dst)] = dst <= src and src in seen
        return self.back[(src, dst)]

    def _can_take(self, edges, src, dst, known, nforks):
        if not self._is_back(src, dst):
            return True
        unknown, concrete, last = edges.get((src, dst), (0, 0, -1))
        return concrete < CONCRETE_TRIPS if known and nforks == last else unknown < self.back_edges

    def _take(self, edges, src, dst, nforks):
        """Count a back edge: as unknown-driven if a decision was unknown since the last
        time it was taken; the counts of loops nested inside restart."""
        if not self._is_back(src, dst):
            return edges
        e = {k: v for k, v in edges.items() if not (dst <= k[1] and k[0] <= src and k != (src, dst))}
        unknown, concrete, last = e.get((src, dst), (0, 0, -1))
        e[(src, dst)] = ((unknown + 1, concrete, nforks) if nforks != last
                         else (unknown, concrete + 1, nforks))
        return e

    def _finish(self, trace, ended):
        """Analyze one path: retire copies per wave, report conflicts, compute slack."""
        self.paths += 1
        self.truncated += not ended
        insts, W, n = self.insts, self.waves, len(trace)
        phase, mention, rend, ph = [0] * n, defaultdict(list), {}, 0
        for pos, (idx, _, r) in enumerate(trace):
            phase[pos] = ph
            ph += insts[idx].kind == BARRIER
            rend[r] = pos + 1  # where maybe region r ends
            for v in insts[idx].mentions:
                mention[v].append(pos)
        acc, ops, waits = ([[] for _ in range(W)] for _ in range(3))
        for w in range(W):
            for pos, (idx, pl, r) in enumerate(trace):
                if insts[idx].kind == WAIT:
                    waits[w].append((pos, insts[idx].vmcnt, idx, r))
                elif pl is not None:
                    if pl[w][1] is not None:
                        acc[w].append((pos, idx, pl[w][1]))
                    if insts[idx].kind == VMEM:
                        ops[w].append(Op(w, pos, len(ops[w]), idx, pl[w][0], insts[idx].dests, n, r))
        issue = [[o.pos for o in ops[w]] for w in range(W)]
        sure = [[0] for _ in range(W)]  # sure[w][k]: sure ops among the first k of wave w
        for w in range(W):
            for o in ops[w]:
                sure[w].append(sure[w][-1] + (not o.r))

        def younger(o, p, r):
            """Ops issued after o and before position p that a wait of region r counts:
            the sure ones, and those of region r itself."""
            w, k = o.wave, bisect.bisect_left(issue[o.wave], p)
            return sure[w][k] - sure[w][o.k + 1] + (
                sum(1 for x in ops[w][o.k + 1:k] if x.r == r) if r else 0)

        def retire_at(o, j):
            """Where o retires if it is still in flight after wait visit j of its wave: at
            the next sure wait that counts enough younger ops, else never (n)."""
            return next((p2 for p2, N2, _, r2 in waits[o.wave][j + 1:]
                         if not r2 and younger(o, p2, 0) >= N2), n)

        wpos = [[t[0] for t in waits[w]] for w in range(W)]
        for w in range(W):
            for o in ops[w]:
                o.ret = retire_at(o, bisect.bisect_left(wpos[w], o.pos) - 1)

        def ph_of(p):
            return float('inf') if p >= n else phase[p]

        def conflicts(o):
            """Same-wave conflicts [(pos, idx, bytes or VGPR)] and their positions; other-wave
            ones [(phase, pos, wave, idx, bytes)], sorted; the spans in which waits of maybe
            regions shield o."""
            if o.conf is None:
                same, other = [], []
                for w2 in range(W) if o.fp else ():
                    for pos, idx, a in acc[w2]:
                        if w2 == o.wave and pos > o.pos:
                            ov = overlap(o.fp, a)
                            if ov:
                                same.append((pos, idx, ov))
                        elif w2 != o.wave and phase[pos] >= phase[o.pos]:
                            ov = overlap(o.fp, a)
                            if ov:
                                other.append((phase[pos], pos, w2, idx, ov))
                for v in o.dests:
                    ps = mention[v]
                    same.extend((p, trace[p][0], v) for p in ps[bisect.bisect_right(ps, o.pos):])
                shields = [(p, rend[r]) for p, N, _, r in waits[o.wave]
                           if r and p > o.pos and younger(o, p, r) >= N]
                same = sorted((t for t in same if not any(a < t[0] < b for a, b in shields)),
                              key=lambda t: t[0])
                o.conf = (same, [t[0] for t in same], sorted(other, key=lambda t: t[:2]))
            return o.conf

        def in_force(w, pos):
            j = bisect.bisect_left(wpos[w], pos) - 1
            infl = sum(1 for o in ops[w] if o.pos < pos < o.ret)
            if j < 0:
                return f'no vmcnt wait before it, {infl} VMEM ops in flight'
            return (f'vmcnt({waits[w][j][1]}) in force (line {insts[waits[w][j][2]].line}), '
                    f'{infl} VMEM ops in flight')

        for w in range(W):  # violations: conflicts before the copy retires
            for o in ops[w]:
                same, _, other = conflicts(o)
                c = insts[o.idx]
                for pos, idx, what in same:
                    if pos >= o.ret:
                        break
                    a = insts[idx]
                    txt = (f'uses {what}, loaded by' if isinstance(what, str) else
                           f'accesses LDS bytes {fmt_bytes(what)} written by')
                    self._violation(('same', idx, o.idx), (
                        f'line {a.line}: `{a.text}` {txt} line {c.line} `{c.text}`, still in '
                        f'flight (wave {w}); {in_force(w, pos)}'))
                for p2, pos, w2, idx, ov in other:
                    if p2 > ph_of(o.ret):
                        break
                    a = insts[idx]
                    how = (f'retired at line {insts[trace[o.ret][0]].line} with no barrier '
                           'between that and the access' if o.ret < n else 'never retired')
                    self._violation(('cross', idx, o.idx), (
                        f'line {a.line}: `{a.text}` (wave {w2}) accesses LDS bytes {fmt_bytes(ov)} '
                        f'written by line {c.line} `{c.text}` of wave {w}, {how}; in wave {w2}: '
                        f'{in_force(w2, pos)}'))

        for w in range(W):  # slack: relax each wait visit alone
            for j, (p, N, widx, r) in enumerate(waits[w]):
                st, nstar = self.waits[widx], None
                st.visits += 1
                # The copies this visit retires (or, in a maybe region, shields), youngest first.
                for o in reversed([o for o in ops[w] if o.pos < p <= o.ret and (
                        o.ret == p if not r else younger(o, p, r) >= N)]):
                    same, spos, other = conflicts(o)
                    if r:  # shielded until the next wait of the region that covers o, or its end
                        alt = next((p2 for p2, N2, _, r2 in waits[w][j + 1:]
                                    if r2 == r and younger(o, p2, r) >= N2), rend[r])
                        need = False
                    else:
                        alt = retire_at(o, j)
                        need = (alt >= n and not ended) or any(
                            phase[p] < t[0] <= ph_of(alt) for t in other)
                    k = bisect.bisect_right(spos, p)
                    if need or (k < len(same) and same[k][0] < alt):
                        nstar = younger(o, p, r)
                        break
                if nstar is not None:
                    st.guarding += 1
                    st.nstar = nstar if st.nstar is None else min(st.nstar, nstar)

    def _violation(self, key, msg):
        if key in self.violations:
            self.violations[key][1] += 1
        else:
            self.violations[key] = [msg, 1]

    @property
    def max_slack(self):
        return max([s.slack for s in self.waits.values() if s.slack is not None], default=0)

    def summary(self):
        nothing = sum(1 for s in self.waits.values() if s.visits and not s.guarding)
        unreached = sum(1 for s in self.waits.values() if not s.visits)
        return (f'vmcnt-check: kernel {self.name}: {len(self.waits)} waits, '
                f'{len(self.violations)} violations, max slack {self.max_slack}'
                + (f', {nothing} guard nothing' if nothing else '')
                + (f', {unreached} not reached' if unreached else ''))

    def render(self, verbose=False):
        out = [f'kernel {self.name}: {self.waves} waves, {self.paths} paths'
               + (f' ({self.merged} merged into an explored state at a join, '
                  f'{self.truncated - self.merged} truncated)' if self.truncated else '')]
        if self.cap_hit:
            out.append(f'note: path cap ({self.max_paths}) hit: not every path was checked')
        out += [f'note: {m}' for m in self.notes]
        out += [f'error: {msg}' + (f' [{k} occurrences]' if k > 1 else '')
                for msg, k in self.violations.values()]
        for s in sorted(self.waits.values(), key=lambda s: s.inst.line):
            head = f'  line {s.inst.line}: `{s.inst.text}`:'
            if not s.visits:
                out.append(f'{head} not reached')
            elif not s.guarding:
                out.append(f'{head} guards nothing ({s.visits} visits)')
            elif s.slack > 0 or verbose:
                out.append(f'{head} slack {s.slack}: vmcnt({s.nstar}) would still be safe '
                           f'({s.guarding} of {s.visits} visits guard a copy)')
        return '\n'.join(out + [self.summary()])


def check(text, waves=None, max_paths=2000, back_edges=2, kernel=None):
    """Check every kernel (or the one named) of an assembly text: [KernelReport]."""
    return [KernelReport(n, i, l, m, waves, max_paths, back_edges).run()
            for n, i, l, m in parse(text) if kernel in (None, n)]


def main(argv=None):
    ap = argparse.ArgumentParser(prog='python3 -m kiln.tools.amdgcn_waits',
                                 description='Check s_waitcnt vmcnt waits in gfx9 AMDGCN assembly.')
    ap.add_argument('file', help='assembly file, or - for stdin')
    ap.add_argument('--waves', type=int, help='waves per workgroup (default: metadata, else 4)')
    ap.add_argument('--max-paths', type=int, default=2000, help='paths explored at most')
    ap.add_argument('--back-edges', type=int, default=2,
                    help='times a back edge is taken after an unknown decision')
    ap.add_argument('--kernel', help='check only this kernel')
    ap.add_argument('-v', '--verbose', action='store_true', help='list every wait')
    a = ap.parse_args(argv)
    text = sys.stdin.read() if a.file == '-' else open(a.file).read()
    reports = check(text, a.waves, a.max_paths, a.back_edges, a.kernel)
    if not reports:
        print('vmcnt-check: no kernel found', file=sys.stderr)
        return 2
    for r in reports:
        print(r.render(a.verbose))
    return 1 if any(r.violations for r in reports) else 0


if __name__ == '__main__':
    sys.exit(main())
