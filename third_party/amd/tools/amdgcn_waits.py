"""Independent checker of ``s_waitcnt vmcnt`` waits in AMDGCN assembly.

``python3 third_party/amd/tools/amdgcn_waits.py FILE.s|-`` judges the waits of final assembly
(Kiln's wait-count pass plus LLVM's) by simulating the gfx9 vector-memory counter; it
shares no code or arithmetic with the compiler.

Model (gfx9: gfx942 / gfx950, wave64)
* Workgroup: ``--waves``, else metadata ``.reqd_workgroup_size`` (product) or
  ``.max_flat_workgroup_size`` over 64, else 4 waves; lanes past the workgroup size start
  inactive. v0 = work-item id, 64*w + l in lane l of wave w (the packed x | y << 10 |
  z << 20 if ``.amdhsa_system_vgpr_workitem_id`` > 0 and ``.reqd_workgroup_size`` is
  given, else UNKNOWN). Kernel arguments, workgroup ids, M0, VCC, SCC and anything loaded
  from memory are UNKNOWN.
* Values are 32-bit ints or UNKNOWN, per lane (VGPRs) or per wave (SGPRs). The integer
  ALU instructions computing LDS addresses and loop counters are simulated (s_mov/movk/
  add/addc/sub/addk/mul/mulk/mul_hi, shifts, logic, bfe, min/max, cselect, cmp/cmpk,
  64-bit mov/logic, saveexec; v_mov/add/sub/shifts/logic, v_lshl_add_u32/u64,
  v_add_lshl, v_lshl_or, v_and_or, v_or3, v_add3, v_xad, v_mad_u32_u24, v_mul_lo/hi, v_bfe,
  v_bfi, v_bfrev, v_alignbit, v_bitop3 (gfx950), v_cndmask, integer v_cmp/v_cmpx, v_readfirstlane/readlane/writelane,
  v_mbcnt; ds_bpermute_b32: lane l reads lane ((addr + offset) / 4) mod 64, 0 from a lane
  not active, under an EXEC whose lanes are all known). Any other instruction, DPP/SDWA form or modifier (clamp, op_sel, ...) makes
  what it may write UNKNOWN (first operand, carry-out, SCC, EXEC for v_cmpx/saveexec).
* Lane masks (EXEC, VCC, SGPR pairs) are symbolic: bit l of a mask is a boolean
  function, a truth table over at most 6 condition symbols, of lane l's instances of
  those symbols (a symbol is one unknown bit per lane, independent across lanes and
  waves). v_cmp/v_cmpx makes its result EXEC & C with C per lane the known comparison
  or, where an operand is UNKNOWN, one fresh symbol (float and other compares: all
  lanes); s_{and,or,xor,andn2,orn2,nand,nor,xnor}_b64, s_not_b64, the saveexec/wrexec
  forms (EXEC = f(S0, old EXEC); D = old EXEC, for wrexec the new one) and
  s_cselect_b64 (an UNKNOWN SCC: a fresh symbol choosing per lane) compute the
  functions lane by lane; s_mov_b64 copies.
  A mask operand with an UNKNOWN half reads as a fresh symbol written back to that
  register (so a register reads the same each time). A result needing more than 6
  symbols keeps the lanes it fixes to 0 or 1 and makes the others one fresh symbol.
  Functions are canonical (unused symbols dropped; all lanes constant: an integer), so
  EXEC restored by ``s_or_b64 exec, exec, s[..]`` is known exactly. A 32-bit read of a
  half that is not constant (s_mov_b32 s0, exec_lo; arithmetic) is UNKNOWN.
* Per lane, EXEC constant 1 is active, constant 0 inactive, else maybe active:
  inactive lanes keep their values; maybe active ones count as active for memory
  (LDS-DMA bytes, LDS accesses) and keep only values both outcomes agree on (an
  UNKNOWN EXEC: every lane maybe active). v_readfirstlane reads the first lane not
  inactive if it is active, else needs all candidate lanes (and lane 0, read when EXEC
  is zero) to agree. SCC of a 64-bit mask result is 1 if a lane is constant 1, else
  "the mask is nonzero" (s_cbranch_scc0/1 on it are branches on the mask).
  Same-wave conflicts (below) of a DMA and an LDS access both issued under a symbolic
  EXEC, with known bytes, count only if the overlapping bytes come from two lanes that
  may each be active, or from one lane that may be active under both EXECs at once
  (a copy by the lanes of a mask, a fill by the others: no conflict).
* vmcnt: each vector-memory instruction (global_, buffer_, flat_, scratch_, tbuffer_,
  image_: loads, stores, atomics, cache operations, the LDS-DMA ``global_load_lds_*`` and
  ``buffer_load_* ... lds``) adds one to its wave's count at issue, EXEC zero or not;
  they retire in issue order. ``s_waitcnt vmcnt(N)`` (alone, combined, or a raw immediate
  with vmcnt = imm[3:0] | imm[15:14] << 4) retires all but the N youngest; without a
  vmcnt field (or with 63) it constrains nothing. The counter is 6 bits: a wave that
  issues a vector-memory instruction while 63 are in flight stalls until the oldest
  retires, so at most 63 are ever in flight, and an instruction retires at the latest
  when the 63rd instruction after it that surely issues (not one only maybe issued,
  below) issues, as if ``s_waitcnt vmcnt(62)`` stood before each of those. LLVM's waits
  count on this too. Nothing retires earlier than these rules force: the worst case
  every wait must cover.
* LDS-DMA bytes: active lane l writes [M0 + offset + l*size, +size) for size 4 (dword),
  12 or 16 (dwordx3/x4); sub-dword forms [M0 + offset + l*size, M0 + offset + 4*l + 4),
  covering packed and dword-per-lane layouts. UNKNOWN M0: all of LDS.
* LDS accesses (ds_read*/ds_write*, ds_load*/ds_store*, 2-address and st64 forms, d16,
  gfx950 ``_tr_`` reads, atomics): each active lane touches vaddr + offset (offset0/1
  times the element size, times 64 for st64) for the element size. UNKNOWN addresses,
  ds_*addtid* and unknown forms touch all of LDS (swizzle/permute/bpermute/nop/gws/
  append/consume none); so do flat_* (they may address LDS) and buffer_store_lds_*.
* Every LDS-DMA write a wave issues is logged (``KernelReport.dma_writes``: instruction
  index, wave, lane, first LDS byte, size, the lane's address operand registers' values,
  the scalar offset), for tests that compare where each element landed with a model.
* ``s_barrier`` ends a phase; all waves run the same path in lockstep by phase.
* Control flow (labels, s_branch, s_cbranch_*, fall-through): a branch whose condition
  (SCC, VCC, EXEC) is known and equal in all waves is followed, else both successors are
  explored with all waves (a branch known to diverge across waves is noted). A mask is
  known zero if all lanes are constant 0, nonzero if one lane is constant 1; otherwise
  its first branch on a path fixes "zero or not" for that function on that path: a
  later branch on an equal function (same symbols and tables) is decided alike. A jump
  closing a loop is taken at most ``--back-edges`` (2) times in trips with an unknown
  decision, 256 in fully known ones: a loop body runs 1..3 times (0..3 if guarded),
  inner loops restarting at each outer trip. ``s_cbranch_execz`` over straight-line code
  without waits is not forked: the region runs once with its VMEM instructions *maybe
  issued* (they conflict, but count for no wait retiring older ones); registers then
  keep what run and skip agree on. A path reaching a label in a state (registers,
  copies in flight, loop counts, decisions; compared by hash) already explored stops
  there, as does one hitting a loop limit on a known or unconditional jump, or an
  indirect jump: such truncated paths have their violations reported, and the copies in
  flight at their end count as needed later. At most ``--max-paths`` (2000) paths
  (reported when hit).

Safety claim checked: for a VMEM instruction C of wave A, each LDS access of A after C
overlapping C's DMA bytes, and each later instruction of A naming a VGPR that C loads
(a later VMEM load writing it excepted: loads return in order), comes after the wait of
A retiring C; each LDS access of another wave overlapping C's bytes lies in a phase
after that wait's (a barrier follows the wait) or before C's issue. A violation names
both lines, the bytes or VGPR and the vmcnt in force; the exit status is then 1. Not
checked: lgkmcnt, expcnt, DMA-against-DMA races, global memory ordering.

Slack: for each visit of a wait vmcnt(N) (each wave, each path), N* is the largest count
keeping every check above with that wait alone relaxed (a copy it no longer retires is
retired by the next wait counting enough younger ones or by the issue stall, else never);
slack = min over visits of N* - N. N* is at most 62: a copy with 63 younger ones issued
has been retired by the stall before any wait. A wait no copy needs "guards nothing" (it
may serve global memory ordering, not modeled). Two waits making each other redundant
both show slack.
Summary: ``vmcnt-check: kernel NAME: K waits, V violations, max slack S`` [``, G guard
nothing``] [``, U not reached``].
"""

from __future__ import annotations

import argparse
import bisect
import functools
import itertools
import re
import struct
import sys
from collections import defaultdict

M32, M64, LANES, MAX_STEPS = 0xFFFFFFFF, (1 << 64) - 1, 64, 200_000
NONE64 = [None] * LANES
ALL_LDS = ((0, 1 << 32),)  # "all of LDS": the whole 32-bit LDS address space
KEEP = object()  # "SCC unchanged"
EXEC, VCC = ('r', 's', ('exec_lo', 'exec_hi')), ('r', 's', ('vcc_lo', 'vcc_hi'))
M0, SCC = ('r', 's', ('m0',)), ('r', 's', ('scc',))
ALU, WAIT, BARRIER, END, BR, CBR, STOP, VMEM, LDS = range(9)
# gfx9's vmcnt counter is 6 bits: it counts at most 63 vector-memory instructions in flight.
# A wave issuing one while the count is at this maximum stalls until the oldest retires, so
# the count never exceeds it, and a wait for vmcnt(63) or more waits for nothing.
VMCNT_MAX = 63

# --- Parsing ---

_SPECIAL = {'vcc': VCC[2], 'exec': EXEC[2], 'flat_scratch': ('flat_scratch_lo', 'flat_scratch_hi'),
            'xnack_mask': ('xnack_mask_lo', 'xnack_mask_hi')}
_SPECIAL.update({n: (n,) for n in ('vcc_lo', 'vcc_hi', 'exec_lo', 'exec_hi', 'm0', 'scc')})
_REG = re.compile(r'^(v|s|a|ttmp)(?:(\d+)|\[(\d+):(\d+)\])$')
_INT = re.compile(r'^-?(0x[0-9a-f]+|\d+)$')
# Modifier words that may stand alone where an operand would be ("buffer_inv sc1").
_MODWORDS = {'glc', 'slc', 'dlc', 'sc0', 'sc1', 'nt', 'lds', 'offen', 'idxen', 'addr64',
             'tfe', 'lwe', 'da', 'd16', 'unorm', 'r128', 'a16', 'clamp', 'gds', 'nv'}
_DMA_SIZES = {'dword': 4, 'dwordx3': 12, 'dwordx4': 16, 'ubyte': 1, 'sbyte': 1,
              'ushort': 2, 'sshort': 2}


def parse_operand(tok):
    """('r', file, names) | ('i', int) | ('f', float) | ('off',) | ('?', text)."""
    t = tok.strip().lower()
    m = _REG.match(t)
    if m:
        lo = int(m.group(2) or m.group(3))
        return ('r', 's' if m.group(1) == 'ttmp' else m.group(1),
                tuple(f'{m.group(1)}{i}' for i in range(lo, int(m.group(4) or lo) + 1)))
    if t in _SPECIAL:
        return ('r', 's', _SPECIAL[t])
    if t in ('off', 'null'):
        return ('off',)
    if _INT.match(t):
        return ('i', int(t, 0))
    if re.match(r'^-?\d+\.\d*(e[-+]?\d+)?$', t):
        return ('f', float(t))
    return ('?', t)  # neg/abs/|x|/named constants: read as UNKNOWN


def _split_top(s, seps):
    """Split s at the characters in seps that are outside brackets/parentheses."""
    out, depth, cur = [], 0, ''
    for ch in s:
        depth += (ch in '[(') - (ch in '])')
        if ch in seps and depth == 0:
            out, cur = out + [cur], ''
        else:
            cur += ch
    return [p.strip() for p in out + [cur] if p.strip()]


def decode_waitcnt(rest):
    """vmcnt of an s_waitcnt operand; None when it constrains nothing."""
    rest = rest.strip().lower()
    if _INT.match(rest):
        imm = int(rest, 0) & 0xFFFF
        v = (imm & 0xF) | (imm >> 14 & 3) << 4  # gfx9: vmcnt split in two fields
    else:
        m = re.search(r'vmcnt(?:_sat)?\((\d+)\)', rest)
        v = int(m.group(1)) if m else VMCNT_MAX
    return v if v < VMCNT_MAX else None


def _ds_info(m, mods):
    """(address operand index, byte offsets, size) of a DS instruction, 'all' when its
    bytes are unknown, None when it touches no LDS memory."""
    for a, b in (('load_2addr_stride64_', 'read2st64_'), ('load_2addr_', 'read2_'),
                 ('store_2addr_stride64_', 'write2st64_'), ('store_2addr_', 'write2_'),
                 ('ds_load_', 'ds_read_'), ('ds_store_', 'ds_write_')):
        m = m.replace(a, b)
    if m.startswith(('ds_swizzle', 'ds_permute', 'ds_bpermute', 'ds_nop', 'ds_gws',
                     'ds_append', 'ds_consume')):
        return None
    sz = re.search(r'(b128|b96|[biuf]64|[biuf]32|[biu]16|[biu]8)', m.split('_', 2)[-1])
    if 'addtid' in m or sz is None or 'gds' in mods:
        return 'all'
    size = int(sz.group(1)[1:]) // 8
    if m.startswith(('ds_read2', 'ds_write2')):
        scale = size * (64 if 'st64' in m else 1)
        return (int(m.startswith('ds_read')),
                (mods.get('offset0', 0) * scale, mods.get('offset1', 0) * scale), size)
    # ds_read: vdst, vaddr; ds_write and atomics: vaddr first, after vdst when returning
    return (int(m.startswith('ds_read') or '_rtn' in m), (mods.get('offset', 0),), size)


class Inst:
    """One assembly instruction, decoded once."""
    __slots__ = ('line', 'text', 'mnem', 'ops', 'mods', 'kind', 'vmcnt', 'target', 'dests',
                 'dma_size', 'lds', 'mentions', 'handler', 'vdst')

    def __init__(self, line, text):
        self.line, self.text = line, text
        head, _, rest = text.partition(' ')
        m, enc = head.lower(), ''
        for suf in ('_e64_dpp', '_e32', '_e64', '_sdwa', '_dpp'):
            if m.startswith('v_') and m.endswith(suf):
                m, enc = m[:-len(suf)], suf
                break
        self.mnem, self.mods, self.ops, self.dests, self.mentions = m, {}, [], (), frozenset()
        self.vmcnt = self.target = self.dma_size = self.lds = None
        self.kind, self.handler, self.vdst = ALU, _nop, False
        if m == 's_waitcnt':
            self.vmcnt = decode_waitcnt(rest)
            self.kind = ALU if self.vmcnt is None else WAIT
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
        if 'dpp' in enc or 'sdwa' in enc:
            self.mods['dpp/sdwa'] = True
        self.ops = ops = [parse_operand(p) for p in parts]
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
        self.mentions = frozenset(n for o in ops if o[0] == 'r' and o[1] in 'va'
                                  for n in o[2]) - frozenset(self.dests)


def parse(text):
    """Kernels of an assembly text: [(name, [Inst], {label: index}, metadata)]."""
    funcs = set(re.findall(r'^\s*\.type\s+([\w.$]+)\s*,\s*@function', text, re.M))
    kernels, cur, meta, in_meta, hsa, hsa_name = [], None, [], False, {}, None
    for ln, raw in enumerate(text.splitlines(), 1):
        s = raw.split(';', 1)[0].split('//', 1)[0].strip()
        if in_meta or s == '.amdgpu_metadata':
            in_meta = s != '.end_amdgpu_metadata'
            meta.append(raw)
            continue
        lm = re.match(r'^([\w.$]+):(.*)$', s)
        if lm:  # a label, perhaps followed by an instruction
            name, s = lm.group(1), lm.group(2).strip()
            if name in funcs or (not funcs and cur is None and not name.startswith('.L')):
                cur = (name, [], {})
                kernels.append(cur)
            elif cur is not None:
                cur[2][name] = len(cur[1])
        d = s.split()
        if d and d[0] == '.amdhsa_kernel' and len(d) > 1:
            hsa_name = d[1]
        elif d and d[0] == '.amdhsa_system_vgpr_workitem_id' and hsa_name:
            hsa.setdefault(hsa_name, {})['workitem_id'] = int(d[1], 0)
        elif re.match(r'^(s|v|ds|global|buffer|flat|scratch|tbuffer|image)_', s, re.I):
            if cur is None:
                cur = ('<input>', [], {})
                kernels.append(cur)
            cur[1].append(Inst(ln, ' '.join(d)))
    for chunk in re.split(r'\n  - ', '\n'.join(meta)):  # one chunk per kernel
        nm = re.search(r'^\s*\.name:\s+[\'"]?([\w.$]+)', chunk, re.M)
        if nm:
            d = hsa.setdefault(nm.group(1), {})
            mf = re.search(r'\.max_flat_workgroup_size:\s+(\d+)', chunk)
            rq = re.search(r'\.reqd_workgroup_size:\s*' + r'\s*-\s*(\d+)' * 3, chunk)
            if mf:
                d['max_flat'] = int(mf.group(1))
            if rq:
                d['reqd'] = tuple(int(x) for x in rq.groups())
    return [(n, insts, labels, hsa.get(n, {})) for n, insts, labels in kernels]

# --- Lane masks: per lane, a truth table over a few condition symbols ---

CAP = 6  # symbols per mask at most
_FULL = [(1 << (1 << k)) - 1 for k in range(CAP + 1)]
# _P0[k][i]: the assignments of k symbols (bit a: symbol j = a >> j & 1) with symbol i 0
_P0 = [[sum(1 << a for a in range(1 << k) if not a >> i & 1) for i in range(k)]
       for k in range(CAP + 1)]
_SYMS = itertools.count(1)  # fresh symbol ids, never reused


class Mask:
    """A 64-bit lane mask that is not a known integer: lane l's bit is the function
    tts[l] (bit a: the value when symbol vars[j] is a >> j & 1 for each j) of lane l's
    instances of the symbols vars (sorted ids). Canonical (see _mk): equal functions
    are equal objects. act[l]: 1 / 0 when lane l's bit is constant, else None."""
    __slots__ = ('vars', 'tts', 'act', '_h')

    def __init__(self, vars, tts):
        full = _FULL[len(vars)]
        self.vars, self.tts, self._h = vars, tts, hash((vars, tts))
        self.act = tuple(1 if t == full else 0 if not t else None for t in tts)

    def __eq__(self, o):
        return type(o) is Mask and self._h == o._h and self.vars == o.vars and self.tts == o.tts

    def __hash__(self):
        return self._h


class Half:
    """What an SGPR of a pair holds when its 32 lanes are not all constant: half h (lanes
    32h..32h+31) of mask m."""
    __slots__ = ('m', 'h')

    def __init__(self, m, h):
        self.m, self.h = m, h

    def __eq__(self, o):
        return type(o) is Half and self.h == o.h and self.m == o.m

    def __hash__(self):
        return hash((self.m, self.h))


class Nz:
    """SCC = "mask m is nonzero" (a 64-bit mask result not known to be zero or not)."""
    __slots__ = ('m',)

    def __init__(self, m):
        self.m = m

    def __eq__(self, o):
        return type(o) is Nz and self.m == o.m

    def __hash__(self):
        return hash(('nz', self.m))


@functools.lru_cache(maxsize=4096)
def _int_act(x):
    return tuple(x >> l & 1 for l in range(LANES))


def _act(m):
    """Per lane 1 (set), 0 (clear) or None (depends on the symbols) of a mask."""
    return _int_act(m) if type(m) is int else m.act


def _mk(vars, tts):
    """The canonical mask of these tables: symbols no lane depends on dropped; an int when
    every lane is constant."""
    k, distinct = len(vars), set(tts)
    keep = [i for i in range(k) if any((t ^ t >> (1 << i)) & _P0[k][i] for t in distinct)]
    if len(keep) < k:
        if not keep:
            return sum((t & 1) << l for l, t in enumerate(tts))
        src = [sum((a >> j & 1) << i for j, i in enumerate(keep)) for a in range(1 << len(keep))]
        memo = {t: sum((t >> x & 1) << a for a, x in enumerate(src)) for t in distinct}
        vars, tts = tuple(vars[i] for i in keep), tuple(memo[t] for t in tts)
    return Mask(tuple(vars), tuple(tts))


@functools.lru_cache(maxsize=4096)
def _src_index(have, want):
    """For each assignment of the symbols want (a superset of have), the assignment of
    have it restricts to."""
    pos = [want.index(v) for v in have]
    return tuple(sum((a >> p & 1) << j for j, p in enumerate(pos)) for a in range(1 << len(want)))


def _tables(x, U):
    """The 64 lane tables of mask x (int or Mask with symbols within U) over U."""
    if type(x) is int:
        full = _FULL[len(U)]
        return [full if b else 0 for b in _int_act(x)]
    if x.vars == U:
        return x.tts
    src = _src_index(x.vars, U)
    memo = {t: sum((t >> s & 1) << a for a, s in enumerate(src)) for t in set(x.tts)}
    return [memo[t] for t in x.tts]


def _fresh(consts):
    """A mask with the given per-lane constants and a fresh symbol where None."""
    if None not in consts:
        return sum(int(c) << l for l, c in enumerate(consts))
    return Mask((next(_SYMS),), tuple(2 if c is None else 3 if c else 0 for c in consts))


# Lane-wise logic: fn(x, y, full) on truth tables (or 64-bit ints with full = M64).
_AND, _OR = (lambda x, y, f: x & y), (lambda x, y, f: x | y)
_LOGIC = {'and': _AND, 'or': _OR, 'xor': lambda x, y, f: x ^ y,
          'andn2': lambda x, y, f: x & ~y, 'orn2': lambda x, y, f: x | ~y,
          'nand': lambda x, y, f: ~(x & y), 'nor': lambda x, y, f: ~(x | y),
          'xnor': lambda x, y, f: ~(x ^ y), 'andn1': lambda x, y, f: ~x & y,
          'orn1': lambda x, y, f: ~x | y}


def _mop(fn, a, b):
    """fn applied lane by lane to masks a and b (ints or Masks); None if either is
    UNKNOWN. Past CAP symbols, lanes fixed by a constant operand stay exact and the
    others get one fresh symbol."""
    if a is None or b is None:
        return None
    if type(a) is int and type(b) is int:
        return fn(a, b, M64) & M64
    va, vb = (() if type(x) is int else x.vars for x in (a, b))
    U = va if va == vb or not vb else vb if not va else tuple(sorted(set(va) | set(vb)))
    if len(U) <= CAP:
        full = _FULL[len(U)]
        return _mk(U, tuple(fn(x, y, full) & full for x, y in zip(_tables(a, U), _tables(b, U))))
    res = []
    for l, (x, y) in enumerate(zip(_act(a), _act(b))):
        if x is not None and y is not None:
            res.append(fn(x, y, 1) & 1)
        elif x is None and y is None:
            res.append(None)
        else:  # one side constant: evaluate in the other's symbols
            full = _FULL[len(va if x is None else vb)]
            x = a.tts[l] if x is None else full * x
            y = b.tts[l] if y is None else full * y
            r = fn(x, y, full) & full
            res.append(1 if r == full else 0 if not r else None)
    return _fresh(res)


def _nzs(r):
    """SCC of a 64-bit mask result: 1/0 when known, else Nz(r) (None stays None)."""
    if r is None or type(r) is int:
        return r if r is None else int(r != 0)
    return 1 if 1 in r.act else Nz(r)


# --- Wave state and ALU semantics ---


class Wave:
    """One wave: s maps SGPR names (and 'scc') to 32-bit ints or a Half of a Mask (an Nz
    for 'scc'); v maps VGPR names to 64 lane values (None = UNKNOWN); missing = UNKNOWN.
    q lists its VMEM instructions in flight, pr those retired in this barrier phase that
    wrote LDS, as (index, DMA bytes, loaded VGPRs, sure) (None for the first three when
    only the count matters): they only serve to recognize equal states."""
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
    if o[0] in 'if':
        return o[1] & M32 if o[0] == 'i' else struct.unpack('<I', struct.pack('<f', o[1]))[0]
    return _int(w.s.get(o[2][0])) if o[0] == 'r' and o[1] == 's' else None


def _lit64(o):
    if o[0] == 'i' and (-(1 << 31) <= o[1] < (1 << 31) or o[1] >= 1 << 32):
        return o[1] & M64  # sign-extended; a literal in 2^31..2^32 is ambiguous
    return None


def rmask(w, o, fresh=False):
    """64-bit lane mask of an SGPR pair or literal: an int, a Mask or None (UNKNOWN). With
    fresh, an UNKNOWN half (or the half of another register's mask) reads as a fresh
    symbol, written back to the register; the result is then never None."""
    if not (o[0] == 'r' and o[1] == 's' and len(o[2]) == 2):
        r = _lit64(o)
        return _fresh([None] * LANES) if r is None and fresh else r
    (n0, n1), s = o[2], w.s
    lo, hi = s.get(n0), s.get(n1)
    tl, th = type(lo), type(hi)
    if tl is int and th is int:
        return lo | hi << 32
    if tl is Half and th is Half and lo.h == 0 and hi.h == 1 and (lo.m is hi.m or lo.m == hi.m):
        return lo.m
    good = [tl is int or (tl is Half and lo.h == 0), th is int or (th is Half and hi.h == 1)]
    if not all(good):
        if not fresh:
            return None
        f = _fresh([None if not good[l >> 5] else 0 for l in range(LANES)])
        for h, n in enumerate(o[2]):
            if not good[h]:
                s[n] = Half(f, h)
        lo, hi = s.get(n0), s.get(n1)
        if not any(good):
            return f
    parts = [x if type(x) is int else _mop(_AND, x.m, M32 << 32 * i) for i, x in
             enumerate((lo, hi << 32 if type(hi) is int else hi))]
    return _mop(_OR, *parts)


def ws(w, o, val, bits=32):
    """Write a scalar destination (None = UNKNOWN; a Mask fills its halves; an Nz only
    SCC)."""
    for i, n in enumerate(o[2][:bits // 32] if o[0] == 'r' else ()):
        if val is None:
            w.s.pop(n, None)
        elif type(val) is Mask:
            a = val.act[32 * i:32 * i + 32]
            w.s[n] = Half(val, i) if None in a else sum(b << l for l, b in enumerate(a))
        else:
            w.s[n] = val if type(val) is Nz else val >> (32 * i) & M32


def _copy64(w, dst, src):
    """s_mov_b64: the source pair's halves as they are (a literal: its value)."""
    if src[0] == 'r' and src[1] == 's' and len(src[2]) == 2 and dst[0] == 'r':
        vals = [w.s.get(n) for n in src[2]]
        for n, v in zip(dst[2][:2], vals):
            if v is None:
                w.s.pop(n, None)
            else:
                w.s[n] = v
    else:
        ws(w, dst, rmask(w, src), 64)


def rv(w, o, part=0):
    """Per-lane values of an operand (of its register `part`, or its literal's bits
    32*part and up)."""
    if o[0] == 'r' and part < len(o[2]):
        n = o[2][part]
        return w.v.get(n, NONE64) if o[1] in 'va' else [_int(w.s.get(n))] * LANES
    return [o[1] >> 32 * part & M32 if o[0] == 'i' else rs(w, o) if not part else None] * LANES


def wv(w, o, vec, part=0):
    """Write the lanes of (register `part` of) a VGPR destination, honouring EXEC."""
    if o[0] != 'r' or o[1] not in 'va' or part >= len(o[2]):
        return
    name, ex = o[2][part], rmask(w, EXEC)
    if ex != M64:
        old = w.v.get(name, NONE64)
        if ex is None:  # unknown lanes: keep only what both outcomes agree on
            vec = [a if a == b else None for a, b in zip(vec, old)]
        else:  # maybe active lanes: likewise
            vec = [a if x == 1 else b if x == 0 else a if a == b else None
                   for a, b, x in zip(vec, old, _act(ex))]
    if vec.count(None) == LANES:
        w.v.pop(name, None)
    else:
        w.v[name] = vec


def _nz(r, bits=32):  # (result, SCC = result != 0)
    r &= (1 << bits) - 1
    return r, int(r != 0)


def _bfe(a, off, width, signed):
    width &= 31
    r = a >> (off & 31) & ((1 << width) - 1)
    return _sext(r, width) & M32 if signed and width else r


def _sel(a, b, c):  # c ? a : b, with c unknown: a when both agree
    return (a if c else b) if type(c) is int else (a if a is b or a == b else None)


# Scalar ALU on 32-bit values: name -> (fn(sources..., scc) -> (result, new SCC or KEEP),
# widths: the destination's, then per source 32 (the next operand), 'd' (the
# destination, read) or 'scc' (SCC needed)). s_cselect_b32 also gets None sources.
_S_NONE = {'s_cselect_b32'}
_B = (32, 32, 32)
_S = {
    's_add_u32': (lambda a, b, c: (a + b, (a + b) >> 32), _B),
    's_addc_u32': (lambda a, b, c: (a + b + c, (a + b + c) >> 32), _B + ('scc',)),
    's_sub_u32': (lambda a, b, c: (a - b, int(b > a)), _B),
    's_subb_u32': (lambda a, b, c: (a - b - c, int(b + c > a)), _B + ('scc',)),
    's_add_i32': (lambda a, b, c: (a + b, int(_s32(a) + _s32(b) != _s32(a + b))), _B),
    's_sub_i32': (lambda a, b, c: (a - b, int(_s32(a) - _s32(b) != _s32(a - b))), _B),
    's_addk_i32': (lambda d, k, c: (d + _sext(k, 16), int(_s32(d) + _sext(k, 16)
                                                          != _s32(d + _sext(k, 16)))),
                   (32, 'd', 32)),
    's_mul_i32': (lambda a, b, c: (a * b, KEEP), _B),
    's_mulk_i32': (lambda d, k, c: (d * _sext(k, 16), KEEP), (32, 'd', 32)),
    's_mul_hi_u32': (lambda a, b, c: (a * b >> 32, KEEP), _B),
    's_mul_hi_i32': (lambda a, b, c: (_s32(a) * _s32(b) >> 32, KEEP), _B),
    's_lshl_b32': (lambda a, b, c: _nz(a << (b & 31)), _B),
    's_lshr_b32': (lambda a, b, c: _nz(a >> (b & 31)), _B),
    's_ashr_i32': (lambda a, b, c: _nz(_s32(a) >> (b & 31)), _B),
    's_and_b32': (lambda a, b, c: _nz(a & b), _B), 's_or_b32': (lambda a, b, c: _nz(a | b), _B),
    's_xor_b32': (lambda a, b, c: _nz(a ^ b), _B),
    's_andn2_b32': (lambda a, b, c: _nz(a & ~b), _B),
    's_min_u32': (lambda a, b, c: (min(a, b), int(a < b)), _B),
    's_max_u32': (lambda a, b, c: (max(a, b), int(a > b)), _B),
    's_min_i32': (lambda a, b, c: (min(_s32(a), _s32(b)), int(_s32(a) < _s32(b))), _B),
    's_max_i32': (lambda a, b, c: (max(_s32(a), _s32(b)), int(_s32(a) > _s32(b))), _B),
    's_bfe_u32': (lambda a, b, c: _nz(_bfe(a, b, b >> 16, False)), _B),
    's_bfe_i32': (lambda a, b, c: _nz(_bfe(a, b, b >> 16, True)), _B),
    's_mov_b32': (lambda a, c: (a, KEEP), (32, 32)),
    's_movk_i32': (lambda a, c: (_sext(a, 16), KEEP), (32, 32)),
    's_cselect_b32': (lambda a, b, c: (_sel(a, b, c), KEEP), _B + ('scc',)),
}
for _n in (1, 2, 3, 4):
    _S[f's_lshl{_n}_add_u32'] = ((lambda n: lambda a, b, c: ((a << n) + b,
                                                              int((a << n) + b > M32)))(_n), _B)
_CMP = {'eq': lambda a, b: a == b, 'lg': lambda a, b: a != b, 'ne': lambda a, b: a != b,
        'gt': lambda a, b: a > b, 'ge': lambda a, b: a >= b, 'lt': lambda a, b: a < b,
        'le': lambda a, b: a <= b, 't': lambda a, b: True, 'f': lambda a, b: False}
_U24 = 0xFFFFFF
# Vector ALU on 32-bit lanes: name -> fn(sources...).
_V = {
    'v_mov_b32': lambda a: a, 'v_accvgpr_write_b32': lambda a: a, 'v_accvgpr_read_b32': lambda a: a,
    'v_not_b32': lambda a: ~a, 'v_bfrev_b32': lambda a: int(f'{a & M32:032b}'[::-1], 2), 'v_add_u32': lambda a, b: a + b, 'v_sub_u32': lambda a, b: a - b,
    'v_subrev_u32': lambda a, b: b - a, 'v_lshlrev_b32': lambda a, b: b << (a & 31),
    'v_lshrrev_b32': lambda a, b: b >> (a & 31), 'v_ashrrev_i32': lambda a, b: _s32(b) >> (a & 31),
    'v_and_b32': lambda a, b: a & b, 'v_or_b32': lambda a, b: a | b,
    'v_xor_b32': lambda a, b: a ^ b, 'v_mul_lo_u32': lambda a, b: a * b,
    'v_mul_hi_u32': lambda a, b: a * b >> 32, 'v_mul_u32_u24': lambda a, b: (a & _U24) * (b & _U24),
    'v_mul_hi_u32_u24': lambda a, b: (a & _U24) * (b & _U24) >> 32,
    'v_min_u32': lambda a, b: min(a, b), 'v_max_u32': lambda a, b: max(a, b),
    'v_lshl_add_u32': lambda a, b, c: (a << (b & 31)) + c,
    'v_add_lshl_u32': lambda a, b, c: (a + b & M32) << (c & 31),
    'v_lshl_or_b32': lambda a, b, c: a << (b & 31) | c, 'v_and_or_b32': lambda a, b, c: a & b | c,
    'v_or3_b32': lambda a, b, c: a | b | c, 'v_add3_u32': lambda a, b, c: a + b + c,
    'v_xad_u32': lambda a, b, c: (a ^ b) + c,
    'v_mad_u32_u24': lambda a, b, c: (a & _U24) * (b & _U24) + c,
    'v_bfe_u32': lambda a, b, c: _bfe(a, b, c, False),
    'v_bfe_i32': lambda a, b, c: _bfe(a, b, c, True), 'v_bfi_b32': lambda a, b, c: a & b | ~a & c,
    'v_alignbit_b32': lambda a, b, c: (a << 32 | b) >> (c & 31),
}


def _nop(w, inst):
    pass


def _clobber(w, inst):
    """Unmodeled instruction: forget whatever it may write."""
    m, ops = inst.mnem, inst.ops
    dsts = ops[:1] if not m.startswith((
        's_cmp', 's_bitcmp', 's_nop', 's_setprio', 's_sleep', 's_dcache', 's_store',
        's_buffer_store', 's_setreg', 's_sendmsg', 's_ttrace', 's_icache', 's_waitcnt')) else []
    if m.startswith('v_') and (m == 'v_swap_b32' or any(
            k in m for k in ('_co_', 'addc', 'subb', 'div_scale', 'mad_u64', 'mad_i64'))):
        dsts += ops[1:2]  # carry-out / second destination
    for o in dsts:
        for n in o[2] if o[0] == 'r' else ():
            (w.v if o[1] in 'va' else w.s).pop(n, None)
    if m.startswith('s_'):
        w.s.pop('scc', None)
    if 'exec' in m or m.startswith('v_cmpx'):
        ws(w, EXEC, None, 64)
    if m.startswith('s_set_gpr_idx_on'):
        w.v.clear()  # VGPR indexing: operands no longer name fixed registers


def _cmp_mask(w, bit):
    """v_cmp result: EXEC & C, C per lane bit(l) (True/False, None = unknown: one fresh
    symbol for the instruction); inactive lanes are not asked."""
    ex = rmask(w, EXEC, True)
    return _mop(_AND, ex, _fresh([0 if a == 0 else None if b is None else bool(b)
                                  for a, b in zip(_act(ex), map(bit, range(LANES)))]))


def _salu(m):
    fn, widths = _S[m]
    srcs = [x for x in widths[1:] if x != 'scc']
    keeps = fn(*[0] * (len(srcs) + 1))[1] is KEEP  # does it leave SCC alone?

    def h(w, inst):
        ops, args, rest = inst.ops, [], iter(inst.ops[1:])
        for wd in srcs:
            o = ops[0] if wd == 'd' else next(rest, None)
            if o is None:
                return _clobber(w, inst)
            args.append(rs(w, o))
        args.append(_int(w.s.get('scc')))
        if m in _S_NONE or (None not in args[:-1]
                            and ('scc' not in widths or args[-1] is not None)):
            r, sc = fn(*args)
        else:
            r, sc = None, KEEP if keeps else None
        ws(w, ops[0], r & M32 if type(r) is int else None)
        if sc is not KEEP:
            ws(w, SCC, sc)
    return h


def _handler_for(inst):
    """Semantics of an ALU instruction: a function (wave, inst) -> None."""
    m, ops = inst.mnem, inst.ops
    if m == 'v_bitop3_b32' and set(inst.mods) == {'bitop3'} and len(ops) == 4:
        # gfx950: bit i of D is bit (a_i << 2 | b_i << 1 | c_i) of the truth table.
        def h(w, inst, tt=inst.mods['bitop3']):
            def f(a, b, c):
                r = 0
                for i in range(8):
                    if tt >> i & 1:
                        r |= ((a if i & 4 else ~a) & (b if i & 2 else ~b)
                              & (c if i & 1 else ~c))
                return r & M32
            wv(w, ops[0], [None if None in t else f(*t)
                           for t in zip(*[rv(w, o) for o in ops[1:]])])
        return h
    if not ops or inst.mods:
        return _clobber if ops else _nop
    if m in _S:
        return _salu(m)
    lg = re.match(r'^s_(\w+)_b64$', m)
    if lg and lg.group(1) in _LOGIC and 'n1' not in lg.group(1) and len(ops) == 3:
        def h(w, inst, f=_LOGIC[lg.group(1)]):
            r = _mop(f, rmask(w, ops[1], True), rmask(w, ops[2], True))
            ws(w, ops[0], r, 64)
            ws(w, SCC, _nzs(r))
        return h
    if m == 's_not_b64' and len(ops) == 2:
        def h(w, inst):
            r = _mop(lambda x, y, f: ~x, rmask(w, ops[1], True), 0)
            ws(w, ops[0], r, 64)
            ws(w, SCC, _nzs(r))
        return h
    if m == 's_mov_b64' and len(ops) == 2:
        return lambda w, inst: _copy64(w, ops[0], ops[1])
    if m == 's_cselect_b64' and len(ops) == 3:
        def h(w, inst):
            c = _int(w.s.get('scc'))
            if c is not None:
                return _copy64(w, ops[0], ops[1 if c else 2])
            a, b = rmask(w, ops[1], True), rmask(w, ops[2], True)
            if a != b:  # per lane a fresh symbol chooses (covers the one wave-wide choice)
                z = _fresh([None] * LANES)
                a = _mop(_OR, _mop(_AND, z, a), _mop(_LOGIC['andn1'], z, b))
            ws(w, ops[0], a, 64)
        return h
    # saveexec: D = old EXEC, EXEC = f(S0, old EXEC); wrexec: D = EXEC = f(S0, old EXEC)
    se = re.match(r'^s_(\w+)_(saveexec|wrexec)_b64$', m)
    if se and se.group(1) in _LOGIC and len(ops) == 2:
        def h(w, inst, f=_LOGIC[se.group(1)], save=se.group(2) == 'saveexec'):
            e = rmask(w, EXEC, True)
            r = _mop(f, rmask(w, ops[1], True), e)
            ws(w, ops[0], e if save else r, 64)
            ws(w, EXEC, r, 64)
            ws(w, SCC, _nzs(r))
        return h
    cm = re.match(r'^s_cmp(k?)_(eq|lg|gt|ge|lt|le)_([iu])32$', m)
    if cm and len(ops) == 2:
        def h(w, inst):
            a, b = rs(w, ops[0]), rs(w, ops[1])
            if b is not None and cm.group(1):  # SOPK: 16-bit immediate
                b = _sext(b, 16) & M32 if cm.group(3) == 'i' else b & 0xFFFF
            if a is not None and b is not None and cm.group(3) == 'i':
                a, b = _s32(a), _s32(b)
            ws(w, SCC, None if a is None or b is None else int(_CMP[cm.group(2)](a, b)))
        return h
    if m in _V and len(ops) == _V[m].__code__.co_argcount + 1:
        return lambda w, inst, f=_V[m]: wv(w, ops[0], [
            None if None in t else f(*t) & M32 for t in zip(*[rv(w, o) for o in ops[1:]])])
    if m == 'v_lshl_add_u64' and len(ops) == 4:  # v[d:d+1] = (a << s) + b, 64-bit
        def h(w, inst):
            a, s, b = (list(zip(rv(w, o), rv(w, o, 1))) for o in (ops[1], ops[2], ops[3]))
            r = [None if None in x + y + z[:1] else ((x[0] | x[1] << 32) << (z[0] & 63))
                 + (y[0] | y[1] << 32) & M64 for x, z, y in zip(a, s, b)]
            for part in (0, 1):
                wv(w, ops[0], [None if x is None else x >> 32 * part & M32 for x in r], part)
        return h
    if m == 'v_cndmask_b32' and len(ops) in (3, 4):
        def h(w, inst):
            k = rmask(w, ops[3] if len(ops) == 4 else VCC)
            wv(w, ops[0], [_sel(y, x, c) for x, y, c in zip(
                rv(w, ops[1]), rv(w, ops[2]), (None,) * LANES if k is None else _act(k))])
        return h
    vc = re.match(r'^v_cmpx?_(eq|ne|lt|le|gt|ge|t|f)_([iu])32$', m)
    if vc and len(ops) == 3:
        def h(w, inst):
            a, b, f = rv(w, ops[1]), rv(w, ops[2]), _CMP[vc.group(1)]
            sg = _s32 if vc.group(2) == 'i' else int
            k = _cmp_mask(w, lambda l: None if a[l] is None or b[l] is None
                          else f(sg(a[l]), sg(b[l])))
            ws(w, ops[0], k, 64)
            if m.startswith('v_cmpx'):
                ws(w, EXEC, k, 64)
        return h
    if m.startswith(('v_cmp_', 'v_cmpx_')) and len(ops) == 3:  # other compares: unknown
        def h(w, inst):
            k = _cmp_mask(w, lambda l: None)
            ws(w, ops[0], k, 64)
            if m.startswith('v_cmpx'):
                ws(w, EXEC, k, 64)
        return h
    if m == 'v_writelane_b32' and len(ops) == 3:  # one lane set (SGPR spills), others kept
        def h(w, inst):
            v, x, lane = list(rv(w, ops[0])), rs(w, ops[1]), rs(w, ops[2])
            if lane is None:
                return wv(w, ops[0], [None] * LANES)
            v[lane & 63] = x
            return wv(w, ops[0], v)
        return h
    if m in ('v_readfirstlane_b32', 'v_readlane_b32'):
        def h(w, inst):
            v, ex = rv(w, ops[1]), rmask(w, EXEC)
            if m == 'v_readlane_b32':
                lane = rs(w, ops[2]) if len(ops) > 2 else None
                return ws(w, ops[0], None if lane is None else v[lane & 63])
            # the first active lane, lane 0 when none is: each lane that may be it agrees?
            cand = []
            for l, a in enumerate((None,) * LANES if ex is None else _act(ex)):
                if a != 0:
                    cand.append(v[l])
                    if a:
                        break
            else:
                cand.append(v[0])
            ws(w, ops[0], cand[0] if cand.count(cand[0]) == len(cand) else None)
        return h
    if m in ('v_mbcnt_lo_u32_b32', 'v_mbcnt_hi_u32_b32') and len(ops) == 3:
        hi = m.endswith('hi_u32_b32')
        # bits of this half of the mask below lane l
        below = [(1 << ((l - 32 if hi else l) if (l >= 32) == hi else (0 if hi else 32))) - 1
                 for l in range(LANES)]
        return lambda w, inst: wv(w, ops[0], [
            None if k is None or c is None else bin(k & below[l]).count('1') + c & M32
            for l, (k, c) in enumerate(zip(rv(w, ops[1]), rv(w, ops[2])))])
    return _clobber

def _bpermute(w, inst):
    """ds_bpermute_b32 vdst, vaddr, vdata [offset:N]: lane l gets vdata of lane
    ((vaddr + N) >> 2) & 63, 0 when that lane is inactive; UNKNOWN unless every lane's
    activity is known."""
    ops = inst.ops
    ex = rmask(w, EXEC)
    if len(ops) != 3 or ex is None or type(ex) is not int:
        return _clobber(w, inst)
    addr, data, off = rv(w, ops[1]), rv(w, ops[2]), inst.mods.get('offset', 0)
    out = []
    for l in range(LANES):
        a = addr[l]
        src = None if a is None else (a + off) >> 2 & 63
        out.append(None if src is None else data[src] if ex >> src & 1 else 0)
    wv(w, ops[0], out)


# --- LDS bytes: sorted, merged tuples of [lo, hi) intervals ---


def merge(ivs):
    out = []
    for lo, hi in sorted(ivs):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return tuple(out)


def overlap(a, b):
    """Intersection of two interval tuples (empty if none)."""
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
    return ', '.join(f'[{lo:#x}, {hi:#x})' for lo, hi in ivs[:3]) + (
        f' and {len(ivs) - 3} more ranges' if len(ivs) > 3 else '')


def footprints(w, inst, lanes=False):
    """(LDS bytes DMA-written, LDS bytes accessed) of a memory instruction in wave w. With
    lanes, a third item: if EXEC is a Mask and some bytes are known, (EXEC, the DMA's
    [(lo, hi, lane)] by lane, the access's [(lo, hi, lane)]), each None if unknown."""
    ex = rmask(w, EXEC)  # maybe active lanes count as active
    active = range(LANES) if ex is None else [l for l, a in enumerate(_act(ex)) if a != 0]
    dma = acc = dl = al = None
    if inst.dma_size:
        m0, sz = rs(w, M0), inst.dma_size
        base = (m0 or 0) + inst.mods.get('offset', 0)
        if m0 is None:
            dma = ALL_LDS
        else:
            dl = [(base + l * sz, base + 4 * l + 4 if sz < 4 else base + l * sz + sz, l)
                  for l in active]
            dma = merge(x[:2] for x in dl)
    if inst.lds == 'all':
        acc = ALL_LDS
    elif inst.lds:
        ai, offs, size = inst.lds
        addr = rv(w, inst.ops[ai]) if ai < len(inst.ops) else NONE64
        if any(addr[l] is None for l in active):
            acc = ALL_LDS
        else:
            al = [(a, a + size, l) for l in active for o in offs for a in ((addr[l] + o) & M32,)]
            acc = merge(x[:2] for x in al)
    fp = (dma or None, acc or None)
    return fp + ((ex, dl, al) if type(ex) is Mask and (dl or al) else None,) if lanes else fp


def _lane_conflict(d, a):
    """Lane details (footprints) of a DMA and of a later LDS access of the same wave on
    the same path, their bytes overlapping: can a lane's access overlap a lane's DMA bytes
    with both lanes active? Two lanes: yes (each may be active, their symbols are
    independent); one lane: if it may be active under both EXECs at once."""
    (f, dl, _), (g, _, al) = d, a
    los, his, both = [x[0] for x in dl], [x[1] for x in dl], None
    for lo, hi, l2 in al:  # dl's lo and hi both grow with the lane
        for j in range(bisect.bisect_right(his, lo), bisect.bisect_left(los, hi)):
            if dl[j][2] != l2:
                return True
            both = both or _act(_mop(_AND, f, g))
            if both[l2] != 0:
                return True
    return False

# --- Paths and their analysis ---


class Op:
    """One VMEM instruction issued by one wave on one path: trace position, issue order k
    in its wave, instruction index, DMA bytes, loaded VGPRs, whether it is only maybe
    issued, retirement position, lane details (footprints) and cached conflicts."""
    __slots__ = ('wave', 'pos', 'k', 'idx', 'fp', 'dests', 'maybe', 'ret', 'lanes', 'conf')

    def __init__(self, *a):
        (self.wave, self.pos, self.k, self.idx, self.fp, self.dests, self.maybe, self.ret,
         self.lanes) = a
        self.conf = None


class WaitStat:
    """Visits of one wait; nstar: the least N* over the visits that guard a copy."""

    def __init__(self, inst):
        self.inst, self.visits, self.guarding, self.nstar = inst, 0, 0, None

    @property
    def slack(self):
        return None if self.nstar is None else self.nstar - self.inst.vmcnt


def _cond(w, m):
    """Whether a conditional branch is taken in wave w: True/False/None, or (Mask,
    taken-if-zero) for a mask that may be zero or not."""
    if m in ('s_cbranch_scc0', 's_cbranch_scc1'):
        c = w.s.get('scc')
        if type(c) is Nz:
            return (c.m, m[-1] == '0')
        c = _int(c)
        return None if c is None else c == int(m[-1])
    for reg, o in (('vcc', VCC), ('exec', EXEC)):
        if m in (f's_cbranch_{reg}z', f's_cbranch_{reg}nz'):
            v, z = rmask(w, o, True), m.endswith(f'{reg}z')
            if type(v) is Mask:
                if 1 not in v.act:
                    return (v, z)
                v = 1  # a lane is surely set
            return (v == 0) == z
    return None


def _retire(w, n):
    """Retire the VMEM instructions of wave w that have n or more sure ones after them."""
    younger = 0
    for i in range(len(w.q) - 1, -1, -1):
        if younger >= n:
            w.pr += [x for x in w.q[:i + 1] if x[1]]
            del w.q[:i + 1]
            return
        younger += w.q[i][3]


def _join(w, b):
    """Keep in wave w only the register values that state b agrees with."""
    w.s = {k: v for k, v in w.s.items() if k in b.s and (b.s[k] is v or b.s[k] == v)}
    for k in set(w.v) | set(b.v):
        x, y = w.v.get(k, NONE64), b.v.get(k, NONE64)
        m = x if x is y else [p if p == q else None for p, q in zip(x, y)]
        if m.count(None) == LANES:
            w.v.pop(k, None)
        else:
            w.v[k] = m


class KernelReport:
    """Explores one kernel's paths and collects its violations and wait slack."""

    def __init__(self, name, insts, labels, meta, waves=None, max_paths=2000, back_edges=2):
        self.name, self.insts, self.labels, self.meta = name, insts, labels, meta
        self.max_paths, self.back_edges = max_paths, back_edges
        r = meta.get('reqd')
        self.size = waves * LANES if waves else r[0] * r[1] * r[2] if r else meta.get(
            'max_flat', 4 * LANES)
        self.waves = max(1, -(-self.size // LANES))
        self.waits = {i: WaitStat(x) for i, x in enumerate(insts) if x.kind == WAIT}
        self.violations = {}  # key -> [message, occurrences]
        self.notes, self.paths, self.truncated, self.merged, self.cap_hit = [], 0, 0, 0, False
        self.label_at, self.seen, self.skip, self.back = set(labels.values()), set(), {}, {}
        self.dma_writes = set()

    def _log_dma(self, pc, wi, w, inst):
        """dma_writes += (pc, wave, lane, LDS byte, size, address registers' values, scalar
        offset) for each lane that may be active; M0 unknown: None for the byte."""
        ex = rmask(w, EXEC)
        m0 = rs(w, M0)
        ops = inst.ops
        regs = [rv(w, ops[0], p) for p in range(len(ops[0][2]))] if ops and ops[0][0] == 'r' \
            else []
        soff = rs(w, ops[2]) if len(ops) > 2 and ops[2][0] == 'r' else (
            ops[2][1] if len(ops) > 2 and ops[2][0] == 'i' else None)
        sz, off = inst.dma_size, inst.mods.get('offset', 0)
        for l, a in enumerate((1,) * LANES if ex is None else _act(ex)):
            if a != 0:
                self.dma_writes.add((pc, wi, l, None if m0 is None else m0 + off + l * sz, sz,
                                     tuple(r[l] for r in regs), soff))

    def _initial(self):
        waves, dims = [], self.meta.get('reqd')
        for w in range(self.waves):
            ex = (1 << min(LANES, self.size - w * LANES)) - 1
            tids = [w * LANES + l for l in range(LANES)]
            if self.meta.get('workitem_id', 0) > 0:  # packed x | y << 10 | z << 20
                v0 = dims and [t % dims[0] | t // dims[0] % dims[1] << 10
                               | t // (dims[0] * dims[1]) << 20 for t in tids]
            else:
                v0 = [t % dims[0] for t in tids] if dims else tids
            waves.append(Wave({'exec_lo': ex & M32, 'exec_hi': ex >> 32}, {'v0': v0} if v0 else {}))
        return waves

    def _note(self, msg):
        if msg not in self.notes:
            self.notes.append(msg)

    def run(self):
        # paths to follow: (pc, waves, trace, loop counts, unknown decisions, decided masks
        # {Mask: is zero})
        stack = [(0, self._initial(), [], {}, 0, {})]
        while stack and not self.cap_hit:
            self._follow(*stack.pop(), stack)
        return self

    def _follow(self, pc, waves, trace, edges, nforks, decided, stack):
        """Follow one path to its end, pushing the other side of each fork on stack."""
        insts, n = self.insts, len(self.insts)
        while True:
            if self.paths >= self.max_paths:
                self.cap_hit = True
                return
            if pc >= n or len(trace) >= MAX_STEPS:  # falling off the end ends the wave
                if pc < n:
                    self._note(f'a path longer than {MAX_STEPS} instructions was truncated')
                return self._finish(trace, pc >= n)
            if pc in self.label_at:  # a join: is this state explored already?
                # decisions matter while a register mentions one of their symbols
                live = {x for w in waves for v in w.s.values() if type(v) in (Half, Nz)
                        for x in v.m.vars}
                loops = frozenset((e, u, c, last == nforks) for e, (u, c, last) in edges.items())
                key = hash((pc, tuple(w.key() for w in waves), loops, frozenset(
                    t for t in decided.items() if not live.isdisjoint(t[0].vars))))
                if key in self.seen:
                    self.merged += 1
                    return self._finish(trace, False)
                self.seen.add(key)
            inst = insts[pc]
            if inst.kind == STOP or (inst.kind in (BR, CBR) and inst.target not in self.labels):
                self._note(f'line {inst.line}: `{inst.text}` not followed; path truncated')
                return self._finish(trace, False)
            if inst.kind not in (BR, CBR):
                self._step(waves, trace, pc)
                if inst.kind == END:
                    return self._finish(trace, True)
                pc += 1
                continue
            tgt, outs, pending = self.labels[inst.target], set(), []
            for c in [True] if inst.kind == BR else [_cond(w, inst.mnem) for w in waves]:
                if isinstance(c, tuple):  # a mask: decided already on this path?
                    c = decided[c[0]] == c[1] if c[0] in decided else pending.append(c)
                outs.add(c)
            known = len(outs) == 1 and None not in outs
            if not known and inst.mnem == 's_cbranch_execz' and self._skippable(pc, tgt):
                before = [w.copy() for w in waves]
                for i in range(pc + 1, tgt):  # the region, maybe run
                    self._step(waves, trace, i, True)
                for w, b in zip(waves, before):
                    _join(w, b)
                pc = tgt
                continue
            if known:
                succ = [(tgt if True in outs else pc + 1, decided)]
            else:  # both successors, all waves together
                if None not in outs:
                    self._note(f'line {inst.line}: waves disagree on the branch; both '
                               'successors explored with all waves')
                nforks += 1
                succ = [(s, {**decided, **{t: z == (s == tgt) for t, z in pending}})
                        for s in (tgt, pc + 1)]
            succ = [(s, d) for s, d in succ if self._can_take(edges, pc, s, known, nforks)]
            if not succ:
                self._note(f'line {inst.line}: loop trip limit reached; path truncated')
                return self._finish(trace, False)
            for s, d in succ[1:]:
                stack.append((s, [w.copy() for w in waves], list(trace),
                              self._take(edges, pc, s, nforks), nforks, d))
            (pc, decided), edges = succ[0], self._take(edges, pc, succ[0][0], nforks)

    def _step(self, waves, trace, pc, maybe=False):
        """Run one non-branch instruction in every wave and record it (maybe: in a region
        that may be skipped)."""
        inst = self.insts[pc]
        payload = ([footprints(w, inst, True) for w in waves] if inst.kind in (VMEM, LDS)
                   else None)
        for wi, (w, pl) in enumerate(zip(waves, payload or [None] * len(waves))):
            if inst.dma_size:
                self._log_dma(pc, wi, w, inst)
            if inst.kind == VMEM:  # loaded values are UNKNOWN
                if not maybe:  # the issue stall: at most VMCNT_MAX in flight after it
                    _retire(w, VMCNT_MAX - 1)
                for d in inst.dests:
                    w.v.pop(d, None)
                w.q.append((pc, pl[0], inst.dests, not maybe) if pl[0] or inst.dests
                           else (None, None, None, not maybe))
            elif inst.kind == WAIT:  # the retirement rule of _finish
                _retire(w, inst.vmcnt)
            elif inst.kind == BARRIER:
                w.pr = []
            elif inst.mnem == 'ds_bpermute_b32':
                _bpermute(w, inst)
            elif inst.vdst:
                _clobber(w, inst)
            else:
                inst.handler(w, inst)
            while w.q and w.q[0][0] is None:  # counted only by older ops: irrelevant
                w.q.pop(0)
        trace.append((pc, payload, maybe))

    def _skippable(self, pc, tgt):
        """Is insts[pc+1:tgt] straight-line code entered only from pc, without waits?"""
        if (pc, tgt) not in self.skip:
            self.skip[(pc, tgt)] = tgt > pc and not any(
                pc < i < tgt for i in self.label_at) and all(
                x.kind in (ALU, VMEM, LDS) for x in self.insts[pc + 1:tgt])
        return self.skip[(pc, tgt)]

    def _is_back(self, src, dst):
        """Does the jump src -> dst close a loop (src reachable from dst)?"""
        if (src, dst) not in self.back:
            seen, todo = set(), [dst] if dst <= src else []
            while todo and src not in seen:
                i = todo.pop()
                if i in seen or i >= len(self.insts):
                    continue
                seen.add(i)
                x = self.insts[i]
                todo += [] if x.kind in (END, STOP, BR) else [i + 1]
                if x.kind in (BR, CBR) and x.target in self.labels:
                    todo.append(self.labels[x.target])
            self.back[(src, dst)] = src in seen
        return self.back[(src, dst)]

    def _can_take(self, edges, src, dst, known, nforks):
        if not self._is_back(src, dst):
            return True
        unknown, concrete, last = edges.get((src, dst), (0, 0, -1))
        return concrete < 256 if known and nforks == last else unknown < self.back_edges

    def _take(self, edges, src, dst, nforks):
        """Count a loop trip, as unknown-driven if a decision was unknown since the loop's
        previous trip; loops nested inside restart their counts."""
        if not self._is_back(src, dst):
            return edges
        e = {k: v for k, v in edges.items()
             if not (dst <= k[1] and k[0] <= src and k != (src, dst))}
        unknown, concrete, last = e.get((src, dst), (0, 0, -1))
        e[(src, dst)] = ((unknown + 1, concrete, nforks) if nforks != last
                         else (unknown, concrete + 1, nforks))
        return e

    def _finish(self, trace, ended):
        """Analyze one path: retire copies per wave, report conflicts, compute slack."""
        self.paths += 1
        self.truncated += not ended
        insts, W, n = self.insts, self.waves, len(trace)
        phase, mention, ph = [0] * n, defaultdict(list), 0
        for pos, (idx, _, _) in enumerate(trace):
            phase[pos] = ph
            ph += insts[idx].kind == BARRIER
            for v in insts[idx].mentions:
                mention[v].append(pos)
        acc, ops, waits = ([[] for _ in range(W)] for _ in range(3))
        for w in range(W):
            for pos, (idx, pl, maybe) in enumerate(trace):
                if insts[idx].kind == WAIT:
                    waits[w].append((pos, insts[idx].vmcnt, idx))
                elif pl is not None:
                    if pl[w][1]:
                        acc[w].append((pos, idx, pl[w][1], pl[w][2] and pl[w][2][2] and pl[w][2]))
                    if insts[idx].kind == VMEM:
                        ops[w].append(Op(w, pos, len(ops[w]), idx, pl[w][0], insts[idx].dests,
                                         maybe, n, pl[w][2] and pl[w][2][1] and pl[w][2]))
        issue = [[o.pos for o in ops[w]] for w in range(W)]
        wpos = [[t[0] for t in waits[w]] for w in range(W)]
        sure = [[0] for _ in range(W)]  # sure[w][k]: sure ops among the first k of wave w
        for w in range(W):
            for o in ops[w]:
                sure[w].append(sure[w][-1] + (not o.maybe))

        def younger(o, p):  # the sure ops issued after o and before position p
            return sure[o.wave][bisect.bisect_left(issue[o.wave], p)] - sure[o.wave][o.k + 1]

        def stall_at(o):
            """Where the issue stall retires o: at the issue of the VMCNT_MAX-th sure op
            after it (o and the VMCNT_MAX - 1 between are in flight then), else never (n)."""
            s = sure[o.wave]
            k = bisect.bisect_left(s, s[o.k + 1] + VMCNT_MAX)
            return issue[o.wave][k - 1] if k < len(s) else n

        def retire_at(o, j):
            """Where o retires if still in flight after wait visit j of its wave: the next
            wait counting enough younger ops or the issue stall, whichever comes first, else
            never (n)."""
            stall = stall_at(o)
            return next((p2 for p2, N2, _ in waits[o.wave][j + 1:]
                         if p2 < stall and younger(o, p2) >= N2), stall)

        for w in range(W):
            for o in ops[w]:
                o.ret = retire_at(o, bisect.bisect_left(wpos[w], o.pos) - 1)

        def ph_of(p):
            return float('inf') if p >= n else phase[p]

        def conflicts(o):
            """Same-wave conflicts [(pos, idx, bytes or VGPR)] and their positions; other-wave
            ones [(phase, pos, wave, idx, bytes)]; all sorted."""
            if o.conf is None:
                same, other = [], []
                for w2 in range(W) if o.fp else ():
                    for pos, idx, a, lanes in acc[w2]:
                        if (pos > o.pos if w2 == o.wave else phase[pos] >= phase[o.pos]):
                            ov = overlap(o.fp, a)
                            if ov and w2 == o.wave:
                                if not (o.lanes and lanes and not _lane_conflict(o.lanes, lanes)):
                                    same.append((pos, idx, ov))
                            elif ov:
                                other.append((phase[pos], pos, w2, idx, ov))
                for v in o.dests:
                    ps = mention[v]
                    same.extend((p, trace[p][0], v) for p in ps[bisect.bisect_right(ps, o.pos):])
                same.sort(key=lambda t: t[0])
                o.conf = (same, [t[0] for t in same], sorted(other, key=lambda t: t[:2]))
            return o.conf

        def in_force(w, pos):
            j = bisect.bisect_left(wpos[w], pos) - 1
            infl = sum(1 for o in ops[w] if o.pos < pos < o.ret)
            return (f'vmcnt({waits[w][j][1]}) in force (line {insts[waits[w][j][2]].line})'
                    if j >= 0 else 'no vmcnt wait before it') + f', {infl} VMEM ops in flight'

        for w in range(W):  # violations: conflicts before the copy retires
            for o in ops[w]:
                same, _, other = conflicts(o)
                c = insts[o.idx]
                for pos, idx, what in same:
                    if pos >= o.ret:
                        break
                    txt = (f'uses {what}, loaded by' if isinstance(what, str) else
                           f'accesses LDS bytes {fmt_bytes(what)} written by')
                    self._violation(('same', idx, o.idx), (
                        f'line {insts[idx].line}: `{insts[idx].text}` {txt} line {c.line} '
                        f'`{c.text}`, still in flight (wave {w}); {in_force(w, pos)}'))
                for p2, pos, w2, idx, ov in other:
                    if p2 > ph_of(o.ret):
                        break
                    how = (f'retired at line {insts[trace[o.ret][0]].line} with no barrier '
                           'between that and the access' if o.ret < n else 'never retired')
                    self._violation(('cross', idx, o.idx), (
                        f'line {insts[idx].line}: `{insts[idx].text}` (wave {w2}) accesses LDS '
                        f'bytes {fmt_bytes(ov)} written by line {c.line} `{c.text}` of wave {w}, '
                        f'{how}; in wave {w2}: {in_force(w2, pos)}'))

        for w in range(W):  # slack: relax each wait visit alone
            for j, (p, N, widx) in enumerate(waits[w]):
                st, nstar = self.waits[widx], None
                st.visits += 1
                # the copies retired here, youngest first: the first one needed gives N*
                for o in reversed([o for o in ops[w] if o.ret == p]):
                    same, spos, other = conflicts(o)
                    alt, k = retire_at(o, j), bisect.bisect_right(spos, p)
                    if ((alt >= n and not ended) or (k < len(same) and same[k][0] < alt)
                            or any(phase[p] < t[0] <= ph_of(alt) for t in other)):
                        nstar = younger(o, p)
                        break
                if nstar is not None:
                    st.guarding += 1
                    st.nstar = nstar if st.nstar is None else min(st.nstar, nstar)

    def _violation(self, key, msg):
        self.violations.setdefault(key, [msg, 0])[1] += 1

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
        out = [f'kernel {self.name}: {self.waves} waves, {self.paths} paths' + (
            f' ({self.merged} joining an explored state, {self.truncated - self.merged} '
            'truncated)' if self.truncated else '')]
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
    ap = argparse.ArgumentParser(prog='amdgcn_waits.py',
                                 description='Check s_waitcnt vmcnt waits in gfx9 AMDGCN assembly.')
    ap.add_argument('file', help='assembly file, or - for stdin')
    ap.add_argument('--waves', type=int, help='waves per workgroup (default: metadata, else 4)')
    ap.add_argument('--max-paths', type=int, default=2000, help='paths explored at most')
    ap.add_argument('--back-edges', type=int, default=2,
                    help='times a loop is repeated after an unknown decision')
    ap.add_argument('--kernel', help='check only this kernel')
    ap.add_argument('-v', '--verbose', action='store_true', help='list every wait')
    a = ap.parse_args(argv)
    with (sys.stdin if a.file == '-' else open(a.file)) as f:
        reports = check(f.read(), a.waves, a.max_paths, a.back_edges, a.kernel)
    if not reports:
        print('vmcnt-check: no kernel found', file=sys.stderr)
        return 2
    for r in reports:
        print(r.render(a.verbose))
    return 1 if any(r.violations for r in reports) else 0


if __name__ == '__main__':
    sys.exit(main())
