"""Independent checker of ``s_waitcnt vmcnt`` waits in AMDGCN assembly.

Usage: ``python3 -m kiln.tools.amdgcn_waits FILE.s|-`` (``--help``).

It judges the waits that end up in the final assembly (Kiln's wait-count
pass plus whatever LLVM added) by simulating the gfx9 vector-memory counter
over the assembly. It shares no code or arithmetic with the compiler.

Model (gfx9 family: gfx942 / gfx950, wave64)
--------------------------------------------
* Workgroup: ``--waves W``, else the kernel metadata's
  ``.reqd_workgroup_size`` (product) or ``.max_flat_workgroup_size``
  divided by 64, else 4 waves. 64 lanes per wave; the lanes past the
  workgroup size in the last wave start inactive, all others active.
  ``v0`` holds the work-item id: lane l of wave w has ``v0 = 64*w + l``
  (with ``.amdhsa_system_vgpr_workitem_id`` > 0, the packed gfx90a+ form
  x | y << 10 | z << 20 from ``.reqd_workgroup_size``, else UNKNOWN).
  Every other register, SGPR kernel arguments, workgroup ids, M0, VCC, SCC
  and every value loaded from memory is UNKNOWN.
* Values are 32-bit ints or UNKNOWN, per lane for VGPRs, per wave for SGPRs.
  The integer scalar and vector ALU instructions that compute addresses are
  simulated (s_mov/add/sub/mul/shift/logic/bfe/cselect/cmp, saveexec,
  v_mov/add/sub/shift/logic, v_lshl_add, v_add_lshl, v_lshl_or, v_mad_u24,
  v_mul_lo/hi, v_bfe, v_cndmask, v_cmp, v_readfirstlane, v_mbcnt, 64-bit
  address forms, ...). Any other instruction, any DPP/SDWA form and any
  instruction carrying a modifier (clamp, op_sel, neg, abs, ...) makes what
  it may write UNKNOWN (the first operand, a carry-out, SCC, EXEC for
  v_cmpx/saveexec): never a guess. Inactive lanes keep their values; with
  EXEC UNKNOWN, lanes are assumed active for memory and keep only values
  both outcomes agree on.
* vmcnt: each vector-memory instruction (global_*, buffer_*, flat_*,
  scratch_*, tbuffer_*, image_*, loads, stores, atomics and cache
  operations alike, and the LDS-DMA loads ``global_load_lds_*`` and
  ``buffer_load_* ... lds``) adds one to its wave's count at issue; they
  retire in issue order. ``s_waitcnt vmcnt(N)`` (named, combined with other
  counters, or a raw immediate: vmcnt = imm[3:0] | imm[15:14] << 4) retires
  all but the N youngest; a wait without a vmcnt field (or 63) constrains
  nothing. At most 63 can be in flight (issue stalls). Nothing retires
  earlier than forced: that is the worst case every wait must cover.
* LDS-DMA footprint: active lane l writes [M0 + offset + l*size, +size)
  with size 4 (dword), 12 (dwordx3), 16 (dwordx4); the sub-dword forms are
  given [M0 + offset + l*size, M0 + offset + 4*l + 4) so that both a packed
  and a dword-per-lane layout are covered. UNKNOWN M0: all of LDS.
* LDS accesses: ds_read*/ds_write* (and the ds_load*/ds_store* spellings,
  read2/write2 and st64 forms, d16, the gfx950 ``_tr_`` reads, ds atomics):
  each active lane touches vaddr + offset (two addresses for the 2-address
  forms, offsets scaled by the element size, times 64 for st64) for the
  element size. UNKNOWN addresses, ds_*addtid* and unknown ds_* forms touch
  all of LDS; ds_swizzle/permute/bpermute/nop/gws/append/consume touch none.
  flat_* instructions may address LDS: they touch all of it (conservative);
  buffer_store_lds_* reads all of it.
* Barriers: ``s_barrier`` separates phases; all waves run the same path in
  lockstep by phase. Within one wave the assembly order holds.
* Control flow: labels, s_branch, s_cbranch_* and fall-through. A branch
  whose condition (SCC, VCC, EXEC) is known and equal in every wave is
  followed; otherwise both successors are explored (all waves together: a
  branch that diverges across waves is reported as a note, and the lockstep
  assumption is then unsound for it). A back edge (a jump to the same or an
  earlier instruction) is taken at most ``--back-edges`` (2) times after an
  unknown decision in that trip and at most 256 times when fully known, so
  every loop runs 1..3 times (0 where it is guarded), the counts of inner
  loops resetting at each outer trip. A path that must stop (limit hit on a
  known or unconditional back edge, indirect jump) is truncated: its
  violations still count, and its in-flight copies are assumed needed later.
  At most ``--max-paths`` (2000) paths are explored; the output says so if
  the cap is hit.

Safety claim checked
--------------------
For a copy C (any VMEM instruction) issued by wave A:
* every LDS access by A after C that overlaps C's LDS-DMA bytes, and every
  later instruction of A that mentions a VGPR C loads (a later VMEM load
  writing the same VGPR excepted: loads return in order), comes after the
  wait of A that retires C;
* every LDS access by another wave B that overlaps C's bytes is in a later
  phase than the wait of A that retires C (a barrier after that wait),
  or in a phase before C's issue.
A violation is printed with the access, the copy, the bytes (or VGPR) and
the vmcnt in force; the exit status is then 1. Not checked: lgkmcnt (LDS
reads completing before a barrier or a following DMA), expcnt, DMA against
DMA write races, global-memory ordering.

Slack
-----
For each visit of a wait vmcnt(N) (each wave, each path), N* is the largest
count that still keeps every check above when that wait alone is relaxed:
a copy the wait would no longer retire is then retired by the first later
wait whose count covers it (or s_endpgm), and it matters if something
conflicting (same wave, or another wave in a later phase) comes before
that. slack = min over visits of N* - N. A wait whose copies nothing needs
"guards nothing" (it may still be needed for global-memory ordering, which
is not modeled). Slack is per wait, the others held fixed: two waits that
each make the other redundant both show slack.

Summary line: ``vmcnt-check: kernel NAME: K waits, V violations, max slack S``
with ``, G guard nothing`` / ``, U not reached`` when there are such waits.
"""

from __future__ import annotations

import argparse
import bisect
import re
import struct
import sys
from collections import defaultdict

M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1
LANES = 64
NONE64 = [None] * LANES
ALL_LDS = ((0, 1 << 32),)  # "all of LDS": the whole 32-bit LDS address space
VMCNT_MAX = 63
CONCRETE_TRIPS = 256
MAX_STEPS = 200_000  # instructions on one path
KEEP = object()  # "SCC unchanged"

# ----------------------------------------------------------------------------
# Parsing
# ----------------------------------------------------------------------------

_SPECIAL = {
    'vcc': ('vcc_lo', 'vcc_hi'), 'exec': ('exec_lo', 'exec_hi'),
    'vcc_lo': ('vcc_lo',), 'vcc_hi': ('vcc_hi',), 'exec_lo': ('exec_lo',),
    'exec_hi': ('exec_hi',), 'm0': ('m0',), 'scc': ('scc',),
    'flat_scratch': ('flat_scratch_lo', 'flat_scratch_hi'),
    'xnack_mask': ('xnack_mask_lo', 'xnack_mask_hi'),
}
_REG1 = re.compile(r'^(v|s|a|ttmp)(\d+)$')
_REGN = re.compile(r'^(v|s|a|ttmp)\[(\d+):(\d+)\]$')
_INT = re.compile(r'^-?(0x[0-9a-f]+|\d+)$')
_FLOAT = re.compile(r'^-?\d+\.\d*(e[-+]?\d+)?$')
# Modifier words that can stand where an operand would (e.g. "buffer_inv sc1").
_MODWORDS = {'glc', 'slc', 'dlc', 'sc0', 'sc1', 'nt', 'lds', 'offen', 'idxen',
             'addr64', 'tfe', 'lwe', 'da', 'd16', 'unorm', 'r128', 'a16',
             'clamp', 'gds', 'nv', 'scc'}


def parse_operand(tok):
    """('r', file, names) | ('i', int) | ('f', float) | ('off',) | ('?', text)."""
    t = tok.strip().lower()
    m = _REG1.match(t)
    if m:
        f = 's' if m.group(1) == 'ttmp' else m.group(1)
        return ('r', f, (m.group(1) + m.group(2),))
    m = _REGN.match(t)
    if m:
        f = 's' if m.group(1) == 'ttmp' else m.group(1)
        lo, hi = int(m.group(2)), int(m.group(3))
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
    """Split s at characters in seps outside brackets/parentheses."""
    out, depth, cur = [], 0, ''
    for ch in s:
        depth += (ch in '[(') - (ch in '])')
        if ch in seps and depth == 0:
            out.append(cur)
            cur = ''
        else:
            cur += ch
    out.append(cur)
    return [p.strip() for p in out if p.strip()]


# Instruction kinds.
ALU, WAIT, BARRIER, END, BR, CBR, STOP, VMEM, LDS = range(9)
_SIZE = re.compile(r'(b128|b96|b64|b32|u16|i16|b16|u8|i8|b8|f32|f64|u32|i32|u64|i64)')
_SIZES = {'b128': 16, 'b96': 12, 'b64': 8, 'b32': 4, 'u16': 2, 'i16': 2,
          'b16': 2, 'u8': 1, 'i8': 1, 'b8': 1, 'f32': 4, 'f64': 8, 'u32': 4,
          'i32': 4, 'u64': 8, 'i64': 8}
_DMA_SIZES = {'dword': 4, 'dwordx3': 12, 'dwordx4': 16, 'ubyte': 1,
              'sbyte': 1, 'ushort': 2, 'sshort': 2}


class Inst:
    """One assembly instruction, decoded once."""
    __slots__ = ('line', 'text', 'mnem', 'enc', 'ops', 'mods', 'kind', 'vmcnt',
                 'target', 'dests', 'dma_size', 'lds', 'mentions', 'handler')

    def __init__(self, line, text):
        self.line, self.text = line, text
        head, _, rest = text.partition(' ')
        m = head.lower()
        self.enc = ''
        for suf in ('_e64_dpp', '_e32', '_e64', '_sdwa', '_dpp'):
            if m.endswith(suf) and m.startswith('v_'):
                m, self.enc = m[:-len(suf)], suf[1:]
                break
        self.mnem, self.mods, self.ops = m, {}, []
        self.vmcnt = self.target = self.dma_size = self.lds = None
        self.dests = ()
        if m == 's_waitcnt':
            self.kind, self.vmcnt = WAIT, decode_waitcnt(rest)
            if self.vmcnt is None:
                self.kind = ALU  # constrains nothing vmcnt-wise
            self.mentions, self.handler = frozenset(), _nop
            return
        parts = _split_top(rest, ',')
        if parts:
            tail = _split_top(parts[-1], ' \t')
            if tail and (':' in tail[0] and not tail[0].startswith(('v[', 's[', 'a['))
                         and not tail[0].startswith('.') or tail[0].lower() in _MODWORDS):
                parts[-1:] = []  # the last "operand" is only modifiers
            else:
                parts[-1:], tail = [tail[0]], tail[1:]
            for mod in tail:
                k, _, v = mod.lower().partition(':')
                self.mods[k] = int(v, 0) if _INT.match(v) else (v or True)
        self.ops = [parse_operand(p) for p in parts]
        self._classify(parts)
        self.mentions = frozenset(n for o in self.ops if o[0] == 'r' and o[1] in 'va'
                                  for n in o[2]) - frozenset(self.dests)

    def _classify(self, parts):
        m = self.mnem
        self.kind, self.handler = ALU, _handler_for(self)
        if m == 's_barrier':
            self.kind = BARRIER
        elif m in ('s_endpgm', 's_endpgm_saved', 's_endpgm_ordered_ps_done'):
            self.kind = END
        elif m == 's_branch':
            self.kind, self.target = BR, parts[0] if parts else None
        elif m.startswith('s_cbranch_'):
            self.kind, self.target = CBR, parts[0] if parts else None
        elif m in ('s_setpc_b64', 's_swappc_b64', 's_call_b64', 's_rfe_b64', 's_trap'):
            self.kind = STOP
        elif m.startswith(('global_', 'buffer_', 'flat_', 'scratch_', 'tbuffer_', 'image_')):
            self.kind = VMEM
            dma = m.startswith('global_load_lds_') or (m.startswith('buffer_load_')
                                                      and 'lds' in self.mods)
            if dma:
                self.dma_size = _DMA_SIZES.get(m.rsplit('_', 1)[-1], 4)
            elif self.ops and self.ops[0][0] == 'r' and self.ops[0][1] in 'va' and (
                    any(w in m for w in ('_load', '_sample', '_gather', '_get'))
                    or ('atomic' in m and ('glc' in self.mods or 'sc0' in self.mods))):
                self.dests = self.ops[0][2]
            if m.startswith('flat_') or 'store_lds' in m:
                self.lds = 'all'
        elif m.startswith('ds_'):
            self.kind, self.lds = LDS, _ds_info(m, self.ops, self.mods)


def decode_waitcnt(rest):
    """vmcnt of an s_waitcnt operand, None when it constrains nothing."""
    rest = rest.strip().lower()
    if _INT.match(rest):
        imm = int(rest, 0) & 0xFFFF
        v = (imm & 0xF) | ((imm >> 14) & 3) << 4  # gfx9 split field
    else:
        m = re.search(r'vmcnt(?:_sat)?\((\d+)\)', rest)
        if not m:
            return None
        v = int(m.group(1))
    return v if v < VMCNT_MAX else None


def _ds_info(m, ops, mods):
    """(address operand index, byte offsets, size) of a DS instruction;
    'all' when it touches unknown bytes, None when it touches none."""
    for a, b in (('ds_load_2addr_stride64_', 'ds_read2st64_'), ('ds_load_2addr_', 'ds_read2_'),
                 ('ds_store_2addr_stride64_', 'ds_write2st64_'),
                 ('ds_store_2addr_', 'ds_write2_'), ('ds_load_', 'ds_read_'),
                 ('ds_store_', 'ds_write_')):
        m = m.replace(a, b)
    if m.startswith(('ds_swizzle', 'ds_permute', 'ds_bpermute', 'ds_nop', 'ds_gws',
                     'ds_append', 'ds_consume')):
        return None
    sz = _SIZE.search(m.split('_', 2)[-1])
    if 'addtid' in m or sz is None or 'gds' in mods:
        return 'all'
    size = _SIZES[sz.group(1)]
    if m.startswith(('ds_read2', 'ds_write2')):
        scale = size * (64 if 'st64' in m else 1)
        offs = (mods.get('offset0', 0) * scale, mods.get('offset1', 0) * scale)
        return (1 if m.startswith('ds_read') else 0, offs, size)
    if m.startswith('ds_read'):
        return (1, (mods.get('offset', 0),), size)
    # ds_write*, and atomics: address first, or second when returning a value.
    return (1 if '_rtn' in m else 0, (mods.get('offset', 0),), size)


def parse(text):
    """Kernels of an assembly file: [(name, [Inst], {label: index}, meta)]."""
    funcs = set(re.findall(r'^\s*\.type\s+([\w.$]+)\s*,\s*@function', text, re.M))
    kernels, cur, meta_lines, in_meta, hsa = [], None, [], False, {}
    hsa_name = None
    for ln, raw in enumerate(text.splitlines(), 1):
        s = raw.split(';', 1)[0].split('//', 1)[0].strip()
        if in_meta:
            in_meta = s != '.end_amdgpu_metadata'
            meta_lines.append(raw)
            continue
        if s == '.amdgpu_metadata':
            in_meta = True
            continue
        lm = re.match(r'^([\w.$]+):(.*)$', s)
        if lm:
            name, s = lm.group(1), lm.group(2).strip()
            if name in funcs or (not funcs and cur is None and not name.startswith('.L')):
                cur = (name, [], {}, {})
                kernels.append(cur)
            elif cur is not None:
                cur[2][name] = len(cur[1])
        if not s:
            continue
        if s.startswith('.'):
            d = s.split()
            if d[0] == '.amdhsa_kernel' and len(d) > 1:
                hsa_name = d[1]
            elif d[0] == '.amdhsa_system_vgpr_workitem_id' and hsa_name:
                hsa.setdefault(hsa_name, {})['workitem_id'] = int(d[1], 0)
            continue
        if not re.match(r'^(s_|v_|ds_|global_|buffer_|flat_|scratch_|tbuffer_|image_)', s, re.I):
            continue
        if cur is None:
            cur = ('<input>', [], {}, {})
            kernels.append(cur)
        cur[1].append(Inst(ln, ' '.join(s.split())))
    meta = '\n'.join(meta_lines)
    for chunk in re.split(r'\n  - ', meta):
        nm = re.search(r'^\s*\.name:\s+[\'"]?([\w.$]+)', chunk, re.M)
        if not nm:
            continue
        d = hsa.setdefault(nm.group(1), {})
        mf = re.search(r'\.max_flat_workgroup_size:\s+(\d+)', chunk)
        if mf:
            d['max_flat'] = int(mf.group(1))
        rq = re.search(r'\.reqd_workgroup_size:\s*\n\s*-\s*(\d+)\s*\n\s*-\s*(\d+)\s*\n\s*-\s*(\d+)',
                       chunk)
        if rq:
            d['reqd'] = tuple(int(x) for x in rq.groups())
    return [(n, insts, labels, hsa.get(n, {})) for n, insts, labels, _ in kernels]

# ----------------------------------------------------------------------------
# Wave state and ALU semantics
# ----------------------------------------------------------------------------


class Wave:
    """Registers of one wave: s (name -> 32-bit int; missing = UNKNOWN; 'scc'
    is 0/1) and v (name -> list of 64 lane values, None = UNKNOWN)."""
    __slots__ = ('s', 'v')

    def __init__(self, s, v):
        self.s, self.v = s, v

    def copy(self):
        return Wave(dict(self.s), dict(self.v))


def _s32(x):
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def _sext(x, bits):
    x &= (1 << bits) - 1
    return x - (1 << bits) if x >> (bits - 1) else x


def rs(w, o):
    """32-bit scalar value of an operand, or None."""
    if o[0] == 'r':
        return w.s.get(o[2][0]) if o[1] == 's' else None
    if o[0] == 'i':
        return o[1] & M32
    if o[0] == 'f':
        return struct.unpack('<I', struct.pack('<f', o[1]))[0]
    return None


def rs64(w, o):
    """64-bit scalar value of an operand (register pair or literal), or None."""
    if o[0] == 'r' and o[1] == 's' and len(o[2]) == 2:
        lo, hi = w.s.get(o[2][0]), w.s.get(o[2][1])
        return None if lo is None or hi is None else lo | hi << 32
    if o[0] == 'i' and (-(1 << 31) <= o[1] < (1 << 31) or o[1] >= 1 << 32):
        return o[1] & M64  # inline/literal, sign-extended; 2^31..2^32 is ambiguous
    return None


def ws(w, o, val, bits=32):
    """Write a scalar destination (None = UNKNOWN)."""
    if o[0] != 'r':
        return
    for i, n in enumerate(o[2][:bits // 32]):
        if val is None:
            w.s.pop(n, None)
        else:
            w.s[n] = (val >> (32 * i)) & M32


def exec_mask(w):
    lo, hi = w.s.get('exec_lo'), w.s.get('exec_hi')
    return None if lo is None or hi is None else lo | hi << 32


def rv(w, o):
    """Per-lane 32-bit values of an operand."""
    if o[0] == 'r' and o[1] in 'va':
        return w.v.get(o[2][0], NONE64)
    return [rs(w, o)] * LANES


def rv64(w, o):
    """Per-lane 64-bit values of a register pair / scalar pair / literal."""
    if o[0] == 'r' and o[1] in 'va' and len(o[2]) == 2:
        lo, hi = w.v.get(o[2][0], NONE64), w.v.get(o[2][1], NONE64)
        return [None if a is None or b is None else a | b << 32 for a, b in zip(lo, hi)]
    return [rs64(w, o)] * LANES


def wv(w, o, vec, part=0):
    """Write lanes of a VGPR destination (register part `part`), honouring EXEC."""
    if o[0] != 'r' or o[1] not in 'va' or part >= len(o[2]):
        return
    name, ex = o[2][part], exec_mask(w)
    if ex != M64:
        old = w.v.get(name, NONE64)
        if ex is None:
            vec = [a if a == b else None for a, b in zip(vec, old)]
        else:
            vec = [vec[l] if ex >> l & 1 else old[l] for l in range(LANES)]
    if vec.count(None) == LANES:
        w.v.pop(name, None)
    else:
        w.v[name] = vec


def wv64(w, o, vec):
    wv(w, o, [None if x is None else x & M32 for x in vec], 0)
    wv(w, o, [None if x is None else (x >> 32) & M32 for x in vec], 1)


def lanewise(fn, srcs):
    return [None if None in t else fn(*t) & M32 for t in zip(*srcs)]


def _nz(r):
    r &= M32
    return r, int(r != 0)


def _ovf(a, b, r):  # signed overflow of a 32-bit add r = a + b
    return int(((a ^ r) & (b ^ r)) >> 31 & 1)


def _ovf_sub(a, b, r):  # signed overflow of a 32-bit subtraction r = a - b
    return int(((a ^ b) & (a ^ r)) >> 31 & 1)


def _bfe(a, off, width, signed):
    r = (a >> (off & 31)) & ((1 << (width & 31)) - 1)
    return _sext(r, width & 31) & M32 if signed and width & 31 else r


# SOP2/SOP1 (32-bit): f(a, b, scc) -> (result, new scc or KEEP).
_S2 = {
    's_add_u32': lambda a, b, c: (a + b, (a + b) >> 32),
    's_addc_u32': lambda a, b, c: (a + b + c, (a + b + c) >> 32) if c is not None else (None, None),
    's_sub_u32': lambda a, b, c: (a - b, int(b > a)),
    's_subb_u32': lambda a, b, c: (a - b - c, int(b + c > a)) if c is not None else (None, None),
    's_add_i32': lambda a, b, c: (a + b, _ovf(a, b, (a + b) & M32)),
    's_sub_i32': lambda a, b, c: (a - b, _ovf_sub(a, b, (a - b) & M32)),
    's_mul_i32': lambda a, b, c: (a * b, KEEP),
    's_mul_hi_u32': lambda a, b, c: ((a * b) >> 32, KEEP),
    's_mul_hi_i32': lambda a, b, c: ((_s32(a) * _s32(b)) >> 32, KEEP),
    's_and_b32': lambda a, b, c: _nz(a & b), 's_or_b32': lambda a, b, c: _nz(a | b),
    's_xor_b32': lambda a, b, c: _nz(a ^ b), 's_andn2_b32': lambda a, b, c: _nz(a & ~b),
    's_orn2_b32': lambda a, b, c: _nz(a | ~b), 's_nand_b32': lambda a, b, c: _nz(~(a & b)),
    's_nor_b32': lambda a, b, c: _nz(~(a | b)), 's_xnor_b32': lambda a, b, c: _nz(~(a ^ b)),
    's_lshl_b32': lambda a, b, c: _nz(a << (b & 31)),
    's_lshr_b32': lambda a, b, c: _nz(a >> (b & 31)),
    's_ashr_i32': lambda a, b, c: _nz(_s32(a) >> (b & 31)),
    's_min_u32': lambda a, b, c: (min(a, b), int(a < b)),
    's_max_u32': lambda a, b, c: (max(a, b), int(a > b)),
    's_min_i32': lambda a, b, c: (min(_s32(a), _s32(b)), int(_s32(a) < _s32(b))),
    's_max_i32': lambda a, b, c: (max(_s32(a), _s32(b)), int(_s32(a) > _s32(b))),
    's_bfe_u32': lambda a, b, c: _nz(_bfe(a, b, (b >> 16) & 0x7F, False)),
    's_bfe_i32': lambda a, b, c: _nz(_bfe(a, b, (b >> 16) & 0x7F, True)),
    's_bfm_b32': lambda a, b, c: (((1 << (a & 31)) - 1) << (b & 31), KEEP),
    's_cselect_b32': lambda a, b, c: ((a if c else b) if c is not None
                                      else (a if a == b else None), KEEP),
    's_pack_ll_b32_b16': lambda a, b, c: ((a & 0xFFFF) | (b << 16), KEEP),
    's_pack_lh_b32_b16': lambda a, b, c: ((a & 0xFFFF) | (b & 0xFFFF0000), KEEP),
    's_pack_hh_b32_b16': lambda a, b, c: ((a >> 16) | (b & 0xFFFF0000), KEEP),
    's_absdiff_i32': lambda a, b, c: _nz(abs(_s32(a) - _s32(b))),
}
for _n in (1, 2, 3, 4):
    _S2[f's_lshl{_n}_add_u32'] = (lambda n: lambda a, b, c: ((a << n) + b, int((a << n) + b > M32)))(_n)
_S1 = {
    's_mov_b32': lambda a, c: (a, KEEP), 's_not_b32': lambda a, c: _nz(~a),
    's_abs_i32': lambda a, c: _nz(abs(_s32(a))), 's_sext_i32_i8': lambda a, c: (_sext(a, 8), KEEP),
    's_sext_i32_i16': lambda a, c: (_sext(a, 16), KEEP),
    's_bcnt1_i32_b32': lambda a, c: _nz(bin(a).count('1')),
    's_brev_b32': lambda a, c: (int(f'{a:032b}'[::-1], 2), KEEP),
    's_movk_i32': lambda a, c: (_sext(a, 16), KEEP),
}
# 64-bit logic: f(a, b) -> result; SCC = result != 0.
_S2_64 = {
    's_and_b64': lambda a, b: a & b, 's_or_b64': lambda a, b: a | b, 's_xor_b64': lambda a, b: a ^ b,
    's_andn2_b64': lambda a, b: a & ~b, 's_orn2_b64': lambda a, b: a | ~b,
    's_nand_b64': lambda a, b: ~(a & b), 's_nor_b64': lambda a, b: ~(a | b),
    's_xnor_b64': lambda a, b: ~(a ^ b),
}
_SAVEEXEC = {'s_and_saveexec_b64': lambda a, e: a & e, 's_or_saveexec_b64': lambda a, e: a | e,
             's_xor_saveexec_b64': lambda a, e: a ^ e, 's_andn2_saveexec_b64': lambda a, e: a & ~e,
             's_orn2_saveexec_b64': lambda a, e: a | ~e, 's_andn1_saveexec_b64': lambda a, e: ~a & e,
             's_orn1_saveexec_b64': lambda a, e: ~a | e, 's_nand_saveexec_b64': lambda a, e: ~(a & e),
             's_nor_saveexec_b64': lambda a, e: ~(a | e), 's_xnor_saveexec_b64': lambda a, e: ~(a ^ e)}
_CMP = {'eq': lambda a, b: a == b, 'lg': lambda a, b: a != b, 'ne': lambda a, b: a != b,
        'gt': lambda a, b: a > b, 'ge': lambda a, b: a >= b, 'lt': lambda a, b: a < b,
        'le': lambda a, b: a <= b, 't': lambda a, b: True, 'f': lambda a, b: False}

# VALU, 32-bit lanes: f(*sources) -> result (masked to 32 bits).
_V1 = {'v_mov_b32': lambda a: a, 'v_not_b32': lambda a: ~a, 'v_accvgpr_write_b32': lambda a: a,
       'v_accvgpr_read_b32': lambda a: a, 'v_accvgpr_mov_b32': lambda a: a,
       'v_bfrev_b32': lambda a: int(f'{a:032b}'[::-1], 2)}
_V2 = {
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
}
_V3 = {
    'v_lshl_add_u32': lambda a, b, c: (a << (b & 31)) + c,
    'v_add_lshl_u32': lambda a, b, c: ((a + b) & M32) << (c & 31),
    'v_lshl_or_b32': lambda a, b, c: (a << (b & 31)) | c,
    'v_and_or_b32': lambda a, b, c: (a & b) | c, 'v_or3_b32': lambda a, b, c: a | b | c,
    'v_xor3_b32': lambda a, b, c: a ^ b ^ c,
    'v_add3_u32': lambda a, b, c: a + b + c, 'v_xad_u32': lambda a, b, c: (a ^ b) + c,
    'v_mad_u32_u24': lambda a, b, c: (a & 0xFFFFFF) * (b & 0xFFFFFF) + c,
    'v_mad_i32_i24': lambda a, b, c: _sext(a, 24) * _sext(b, 24) + c,
    'v_bfe_u32': lambda a, b, c: _bfe(a, b, c, False), 'v_bfe_i32': lambda a, b, c: _bfe(a, b, c, True),
    'v_bfi_b32': lambda a, b, c: (a & b) | (~a & c),
    'v_alignbit_b32': lambda a, b, c: ((a << 32) | b) >> (c & 31),
    'v_alignbyte_b32': lambda a, b, c: ((a << 32) | b) >> (8 * (c & 3)),
    'v_min3_u32': lambda a, b, c: min(a, b, c), 'v_max3_u32': lambda a, b, c: max(a, b, c),
    'v_med3_u32': lambda a, b, c: sorted((a, b, c))[1],
    'v_min3_i32': lambda a, b, c: min(_s32(a), _s32(b), _s32(c)),
    'v_max3_i32': lambda a, b, c: max(_s32(a), _s32(b), _s32(c)),
    'v_med3_i32': lambda a, b, c: sorted((_s32(a), _s32(b), _s32(c)))[1],
}
# Carry forms: f(a, b, carry_in) -> wide result; carry out = bit 32 (borrow: < 0).
_VCARRY = {'v_add_co_u32': lambda a, b, c: a + b, 'v_sub_co_u32': lambda a, b, c: a - b,
           'v_subrev_co_u32': lambda a, b, c: b - a, 'v_addc_co_u32': lambda a, b, c: a + b + c,
           'v_subb_co_u32': lambda a, b, c: a - b - c, 'v_subbrev_co_u32': lambda a, b, c: b - a - c}
_NO_SDEST = ('s_cmp', 's_bitcmp', 's_nop', 's_setprio', 's_sleep', 's_waitcnt', 's_dcache',
             's_store', 's_buffer_store', 's_scratch_store', 's_setreg', 's_sendmsg',
             's_ttrace', 's_icache', 's_incperflevel', 's_decperflevel', 's_barrier',
             's_set_gpr_idx_off', 's_setkill', 's_denorm_mode', 's_round_mode', 's_wakeup')


def _nop(w, inst):
    pass


def _clobber(w, inst):
    """Unmodeled instruction: forget whatever it may write."""
    m, ops = inst.mnem, inst.ops
    dsts = [ops[0]] if ops and not m.startswith(_NO_SDEST) else []
    if m.startswith('v_') and len(ops) > 1 and ops[1][0] == 'r' and (
            any(k in m for k in ('_co_', 'addc', 'subb', 'div_scale', 'mad_u64', 'mad_i64'))
            or m == 'v_swap_b32'):
        dsts.append(ops[1])
    for o in dsts:
        if o[0] == 'r':
            for n in o[2]:
                (w.v if o[1] in 'va' else w.s).pop(n, None)
    if m.startswith('s_'):
        w.s.pop('scc', None)
    if 'exec' in m or m.startswith('v_cmpx'):
        w.s.pop('exec_lo', None)
        w.s.pop('exec_hi', None)
    if m.startswith('s_set_gpr_idx_on'):
        w.v.clear()  # VGPR indexing mode: operands no longer name fixed registers


def _mask_of(w, bits_fn):
    """64-bit lane mask from per-lane booleans (None = unknown); inactive lanes 0."""
    ex = exec_mask(w)
    if ex is None:
        return None
    mask = 0
    for l in range(LANES):
        if ex >> l & 1:
            b = bits_fn(l)
            if b is None:
                return None
            mask |= int(bool(b)) << l
    return mask


def _handler_for(inst):
    """Semantics of an ALU instruction: a function (wave, inst) -> None."""
    m, ops = inst.mnem, inst.ops
    if inst.mods or inst.enc in ('sdwa', 'dpp', 'e64_dpp') or not ops:
        return _clobber if ops else _nop
    if m in _S2 and len(ops) == 3:
        def h(w, inst, f=_S2[m]):
            a, b, c = rs(w, ops[1]), rs(w, ops[2]), w.s.get('scc')
            r, sc = (None, None) if a is None or b is None else f(a, b, c)
            ws(w, ops[0], None if r is None else r & M32)
            if sc is not KEEP:
                w.s.pop('scc', None) if sc is None else w.s.__setitem__('scc', sc)
        return h
    if m in _S1 and len(ops) == 2:
        def h(w, inst, f=_S1[m]):
            a = rs(w, ops[1])
            r, sc = (None, None) if a is None else f(a, w.s.get('scc'))
            ws(w, ops[0], None if r is None else r & M32)
            if sc is not KEEP:
                w.s.pop('scc', None) if sc is None else w.s.__setitem__('scc', sc)
        return h
    if m in ('s_addk_i32', 's_mulk_i32', 's_cmovk_i32', 's_cmov_b32', 's_cmov_b64'):
        def h(w, inst):
            d, k, c = rs(w, ops[0]), rs(w, ops[1]), w.s.get('scc')
            if m == 's_cmov_b64':
                d, k = rs64(w, ops[0]), rs64(w, ops[1])
                ws(w, ops[0], None if c is None else (k if c else d), 64)
                return
            if m.startswith('s_cmov'):
                k = _sext(k, 16) & M32 if k is not None and m == 's_cmovk_i32' else k
                ws(w, ops[0], None if c is None else (k if c else d))
                return
            r = None if d is None or k is None else (
                d + _sext(k, 16) if m == 's_addk_i32' else d * _sext(k, 16)) & M32
            ws(w, ops[0], r)
            if m == 's_addk_i32':
                w.s.pop('scc', None) if r is None else w.s.__setitem__(
                    'scc', _ovf(d, _sext(k, 16) & M32, r))
        return h
    if m in ('s_mov_b64', 's_not_b64', 's_cselect_b64') or m in _S2_64 or m in (
            's_lshl_b64', 's_lshr_b64', 's_ashr_i64'):
        def h(w, inst):
            a = rs64(w, ops[1])
            c = w.s.get('scc')
            if m == 's_mov_b64':
                ws(w, ops[0], a, 64)
                return
            if m == 's_not_b64':
                r = None if a is None else ~a & M64
            elif m == 's_cselect_b64':
                b = rs64(w, ops[2])
                r = (a if c else b) if c is not None else (a if a == b else None)
                ws(w, ops[0], r, 64)
                return
            elif m in _S2_64:
                b = rs64(w, ops[2])
                r = None if a is None or b is None else _S2_64[m](a, b) & M64
            else:
                b = rs(w, ops[2])
                sa = a - (1 << 64) if a is not None and a >> 63 else a
                r = None if a is None or b is None else (
                    a << (b & 63) if m == 's_lshl_b64' else
                    (a >> (b & 63) if m == 's_lshr_b64' else sa >> (b & 63))) & M64
            ws(w, ops[0], r, 64)
            w.s.pop('scc', None) if r is None else w.s.__setitem__('scc', int(r != 0))
        return h
    if m in _SAVEEXEC:
        def h(w, inst, f=_SAVEEXEC[m]):
            a, e = rs64(w, ops[1]), exec_mask(w)
            r = None if a is None or e is None else f(a, e) & M64
            ws(w, ops[0], e, 64)
            ws(w, ('r', 's', ('exec_lo', 'exec_hi')), r, 64)
            w.s.pop('scc', None) if r is None else w.s.__setitem__('scc', int(r != 0))
        return h
    cm = re.match(r'^s_cmpk?_(eq|lg|gt|ge|lt|le)_(i32|u32|u64)$', m)
    if cm or re.match(r'^s_bitcmp[01]_b(32|64)$', m):
        def h(w, inst):
            if m.startswith('s_bitcmp'):
                a, b = (rs64 if m.endswith('64') else rs)(w, ops[0]), rs(w, ops[1])
                r = None if a is None or b is None else int((a >> (b & 63)) & 1 == int(m[8]))
            else:
                rd = rs64 if cm.group(2) == 'u64' else rs
                a, b = rd(w, ops[0]), rd(w, ops[1])
                if b is not None and m.startswith('s_cmpk'):
                    b = _sext(b, 16) & M32 if cm.group(2) == 'i32' else b & 0xFFFF
                if a is not None and b is not None and cm.group(2) == 'i32':
                    a, b = _s32(a), _s32(b)
                r = None if a is None or b is None else int(_CMP[cm.group(1)](a, b))
            w.s.pop('scc', None) if r is None else w.s.__setitem__('scc', r)
        return h
    for table, n in ((_V1, 1), (_V2, 2), (_V3, 3)):
        if m in table and len(ops) == n + 1:
            def h(w, inst, f=table[m], n=n):
                wv(w, ops[0], lanewise(f, [rv(w, o) for o in ops[1:n + 1]]))
            return h
    if m in _VCARRY and len(ops) in (4, 5):
        def h(w, inst, f=_VCARRY[m]):
            a, b = rv(w, ops[2]), rv(w, ops[3])
            cin = rs64(w, ops[4]) if len(ops) == 5 else 0
            wide = [None if x is None or y is None or cin is None
                    else f(x, y, cin >> l & 1) for l, (x, y) in enumerate(zip(a, b))]
            wv(w, ops[0], [None if r is None else r & M32 for r in wide])
            ws(w, ops[1], _mask_of(w, lambda l: None if wide[l] is None
                                   else (wide[l] < 0 or wide[l] > M32)), 64)
        return h
    if m in ('v_lshl_add_u64', 'v_lshlrev_b64', 'v_lshrrev_b64', 'v_ashrrev_i64', 'v_mov_b64',
             'v_mad_u64_u32'):
        def h(w, inst):
            if m == 'v_lshl_add_u64':
                r = [None if None in t else ((t[0] << (t[1] & 63)) + t[2]) & M64
                     for t in zip(rv64(w, ops[1]), rv(w, ops[2]), rv64(w, ops[3]))]
            elif m == 'v_mov_b64':
                r = rv64(w, ops[1])
            elif m == 'v_mad_u64_u32':
                r = [None if None in t else (t[0] * t[1] + t[2]) & M64
                     for t in zip(rv(w, ops[2]), rv(w, ops[3]), rv64(w, ops[4]))]
                ws(w, ops[1], None, 64)  # carry out: not modeled
            else:
                def sh(s, x):
                    if m == 'v_lshlrev_b64':
                        return (x << (s & 63)) & M64
                    if m == 'v_lshrrev_b64':
                        return x >> (s & 63)
                    return ((x - (1 << 64) if x >> 63 else x) >> (s & 63)) & M64
                r = [None if None in t else sh(*t) for t in zip(rv(w, ops[1]), rv64(w, ops[2]))]
            wv64(w, ops[0], r)
        return h
    if m == 'v_cndmask_b32':
        def h(w, inst):
            a, b = rv(w, ops[1]), rv(w, ops[2])
            k = rs64(w, ops[3]) if len(ops) > 3 else rs64(w, ('r', 's', ('vcc_lo', 'vcc_hi')))
            wv(w, ops[0], [(y if k >> l & 1 else x) if k is not None else (x if x == y else None)
                           for l, (x, y) in enumerate(zip(a, b))])
        return h
    vc = re.match(r'^v_cmpx?_(eq|ne|lt|le|gt|ge|t|f)_(u32|i32|u64|i64)$', m)
    if vc and len(ops) == 3:
        def h(w, inst):
            wide = vc.group(2).endswith('64')
            a, b = (rv64 if wide else rv)(w, ops[1]), (rv64 if wide else rv)(w, ops[2])
            sg = (lambda x: x - (1 << 64) if x >> 63 else x) if vc.group(2) == 'i64' else (
                _s32 if vc.group(2) == 'i32' else (lambda x: x))
            f = _CMP[vc.group(1)]
            k = _mask_of(w, lambda l: None if a[l] is None or b[l] is None
                         else f(sg(a[l]), sg(b[l])))
            ws(w, ops[0], k, 64)
            if m.startswith('v_cmpx'):
                ws(w, ('r', 's', ('exec_lo', 'exec_hi')), k, 64)
        return h
    if m == 'v_readfirstlane_b32':
        def h(w, inst):
            v, ex = rv(w, ops[1]), exec_mask(w)
            if ex is None:
                ws(w, ops[0], v[0] if v.count(v[0]) == LANES else None)
            else:
                ws(w, ops[0], v[(ex & -ex).bit_length() - 1 if ex else 0])
        return h
    if m == 'v_readlane_b32':
        def h(w, inst):
            lane = rs(w, ops[2])
            ws(w, ops[0], None if lane is None else rv(w, ops[1])[lane & 63])
        return h
    if m == 'v_writelane_b32':
        def h(w, inst):
            lane, val = rs(w, ops[2]), rs(w, ops[1])
            old = list(w.v.get(ops[0][2][0], NONE64))
            if lane is None:
                old = NONE64
            else:
                old[lane & 63] = val
            ex = ('r', 's', ('exec_lo', 'exec_hi'))
            saved = rs64(w, ex)
            ws(w, ex, M64, 64)  # writelane ignores EXEC
            wv(w, ops[0], old)
            ws(w, ex, saved, 64)
        return h
    if m in ('v_mbcnt_lo_u32_b32', 'v_mbcnt_hi_u32_b32'):
        def h(w, inst):
            k, c = rv(w, ops[1]), rv(w, ops[2])
            hi = m == 'v_mbcnt_hi_u32_b32'

            def below(l):  # lanes of this 32-lane half below lane l
                n = (l - 32 if hi else l) if (l >= 32) == hi else (0 if hi else 32)
                return (1 << max(n, 0)) - 1
            wv(w, ops[0], [None if k[l] is None or c[l] is None
                           else (bin(k[l] & below(l)).count('1') + c[l]) & M32
                           for l in range(LANES)])
        return h
    return _clobber

# ----------------------------------------------------------------------------
# Byte intervals
# ----------------------------------------------------------------------------


def merge(ivs):
    out = []
    for lo, hi in sorted(ivs):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return tuple(out)


def overlap(a, b):
    """Intersection of two merged interval tuples (empty tuple if none)."""
    if a[0][0] >= b[-1][1] or b[0][0] >= a[-1][1]:
        return ()
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo < hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return tuple(out)


def fmt_bytes(ivs):
    if ivs == ALL_LDS:
        return 'all of LDS (address unknown)'
    s = ', '.join(f'[{lo:#x}, {hi:#x})' for lo, hi in ivs[:3])
    return s + (f' and {len(ivs) - 3} more ranges' if len(ivs) > 3 else '')


def _active(w):
    ex = exec_mask(w)
    return range(LANES) if ex is None else [l for l in range(LANES) if ex >> l & 1]


def footprints(w, inst):
    """(DMA bytes written, LDS bytes accessed) of a memory instruction in wave w."""
    dma = acc = None
    if inst.dma_size:
        m0, sz = w.s.get('m0'), inst.dma_size
        if m0 is None:
            dma = ALL_LDS
        else:
            base = m0 + inst.mods.get('offset', 0)
            dma = merge((base + l * sz, base + 4 * l + 4 if sz < 4 else base + l * sz + sz)
                        for l in _active(w))
    info = inst.lds
    if info == 'all':
        acc = ALL_LDS
    elif info is not None:
        ai, offs, size = info
        addr = rv(w, inst.ops[ai]) if ai < len(inst.ops) else NONE64
        ivs = []
        for l in _active(w):
            if addr[l] is None:
                return dma, ALL_LDS
            ivs.extend(((addr[l] + o) & M32, ((addr[l] + o) & M32) + size) for o in offs)
        acc = merge(ivs) if ivs else None
    return dma, acc or None

# ----------------------------------------------------------------------------
# Path enumeration and analysis
# ----------------------------------------------------------------------------


class Op:
    """One VMEM instruction in flight in one wave on one path."""
    __slots__ = ('wave', 'pos', 'k', 'idx', 'fp', 'dests', 'ret', 'conf')

    def __init__(self, wave, pos, k, idx, fp, dests, ret):
        self.wave, self.pos, self.k, self.idx = wave, pos, k, idx
        self.fp, self.dests, self.ret, self.conf = fp, dests, ret, None


class WaitStat:
    def __init__(self, inst):
        self.inst, self.visits, self.guarding, self.nstar = inst, 0, 0, None

    @property
    def slack(self):
        return None if self.nstar is None else self.nstar - self.inst.vmcnt


class KernelReport:
    """Everything the checker found in one kernel."""

    def __init__(self, name, insts, labels, meta, waves=None, max_paths=2000, back_edges=2):
        self.name, self.insts, self.labels = name, insts, labels
        self.max_paths, self.back_edges = max_paths, back_edges
        size = (waves * LANES if waves else (
            meta['reqd'][0] * meta['reqd'][1] * meta['reqd'][2] if 'reqd' in meta
            else meta.get('max_flat', 4 * LANES)))
        self.waves = max(1, -(-size // LANES))
        self.size, self.meta = size, meta
        self.waits = {i: WaitStat(x) for i, x in enumerate(insts) if x.kind == WAIT}
        self.violations = {}  # key -> [message, occurrences]
        self.notes, self.paths, self.truncated, self.cap_hit = [], 0, 0, False

    # -- initial state -------------------------------------------------------
    def _initial(self):
        waves, dims = [], self.meta.get('reqd')
        for w in range(self.waves):
            live = min(LANES, self.size - w * LANES)
            ex = (1 << live) - 1
            s = {'exec_lo': ex & M32, 'exec_hi': ex >> 32}
            tids = [w * LANES + l for l in range(LANES)]
            if self.meta.get('workitem_id', 0) > 0:
                v0 = None if not dims else [
                    t % dims[0] | (t // dims[0] % dims[1]) << 10 | (t // (dims[0] * dims[1])) << 20
                    for t in tids]
            else:
                v0 = [t % dims[0] for t in tids] if dims else tids
            waves.append(Wave(s, {'v0': v0} if v0 else {}))
        return waves

    # -- exploration ---------------------------------------------------------
    def run(self):
        insts, n = self.insts, len(self.insts)
        stack = [(0, self._initial(), [], {}, 0)]
        while stack:
            pc, waves, trace, edges, nforks = stack.pop()
            while True:
                if self.paths >= self.max_paths:
                    self.cap_hit = True
                    return self
                if pc >= n or len(trace) >= MAX_STEPS:
                    if pc < n:
                        self._note(f'path longer than {MAX_STEPS} instructions truncated')
                    self._finish(trace, ended=pc >= n)
                    break
                inst = insts[pc]
                if inst.kind in (BR, CBR):
                    tgt = self.labels.get(inst.target)
                    if tgt is None:
                        self._note(f'line {inst.line}: unknown branch target; path truncated')
                        self._finish(trace, ended=False)
                        break
                    outs = {True} if inst.kind == BR else {_cond(w, inst.mnem) for w in waves}
                    known = len(outs) == 1 and None not in outs
                    if known:
                        succ = [tgt if True in outs else pc + 1]
                    else:  # unknown or wave-dependent: explore both, all waves together
                        if None not in outs:
                            self._note(f'line {inst.line}: waves disagree on the branch; '
                                       'both successors explored with all waves')
                        succ, nforks = [tgt, pc + 1], nforks + 1
                    ok = [s for s in succ if self._can_take(edges, pc, s, known, nforks)]
                    if not ok:
                        self._note(f'line {inst.line}: loop trip limit reached; path truncated')
                        self._finish(trace, ended=False)
                        break
                    for s in ok[1:]:
                        stack.append((s, [w.copy() for w in waves], list(trace),
                                      self._take(edges, pc, s, nforks), nforks))
                    edges, pc = self._take(edges, pc, ok[0], nforks), ok[0]
                    continue
                if inst.kind == STOP:
                    self._note(f'line {inst.line}: {inst.mnem} not followed; path truncated')
                    self._finish(trace, ended=False)
                    break
                payload = None
                if inst.kind in (VMEM, LDS):
                    payload = [footprints(w, inst) for w in waves]
                ds_writes_vgpr = inst.kind == LDS and (
                    inst.mnem.startswith(('ds_read', 'ds_load')) or '_rtn' in inst.mnem
                    or inst.mnem.startswith(('ds_swizzle', 'ds_permute', 'ds_bpermute')))
                for w in waves:
                    if inst.kind == VMEM:  # loaded values are UNKNOWN
                        for d in inst.dests:
                            w.v.pop(d, None)
                    elif ds_writes_vgpr:
                        _clobber(w, inst)
                    elif inst.kind != LDS:
                        inst.handler(w, inst)
                trace.append((pc, payload))
                if inst.kind == END:
                    self._finish(trace, ended=True)
                    break
                pc += 1
        return self

    def _note(self, msg):
        if msg not in self.notes:
            self.notes.append(msg)

    def _can_take(self, edges, src, dst, known, nforks):
        if dst > src:
            return True
        unknown, concrete, last = edges.get((src, dst), (0, 0, -1))
        if known and nforks == last:
            return concrete < CONCRETE_TRIPS
        return unknown < self.back_edges

    @staticmethod
    def _take(edges, src, dst, nforks):
        if dst > src:
            return edges
        e = {k: v for k, v in edges.items()  # inner loops restart their counts
             if not (dst <= k[1] and k[0] <= src and k != (src, dst))}
        unknown, concrete, last = e.get((src, dst), (0, 0, -1))
        e[(src, dst)] = ((unknown + 1, concrete, nforks) if nforks != last
                         else (unknown, concrete + 1, nforks))
        return e

    # -- one finished path ---------------------------------------------------
    def _finish(self, trace, ended):
        self.paths += 1
        self.truncated += not ended
        insts, W, n = self.insts, self.waves, len(trace)
        phase, mention, ph = [0] * n, defaultdict(list), 0
        for pos, (idx, _) in enumerate(trace):
            phase[pos] = ph
            ph += insts[idx].kind == BARRIER
            for r in insts[idx].mentions:
                mention[r].append(pos)
        acc = [[] for _ in range(W)]
        ops = [[] for _ in range(W)]
        waits = [[] for _ in range(W)]
        for w in range(W):
            infl = []
            for pos, (idx, pl) in enumerate(trace):
                inst = insts[idx]
                if inst.kind == WAIT:
                    waits[w].append((pos, inst.vmcnt, idx, list(infl)))
                    cut = max(0, len(infl) - inst.vmcnt)
                    for o in infl[:cut]:
                        o.ret = pos
                    del infl[:cut]
                elif pl is not None:
                    dma, a = pl[w]
                    if a is not None:
                        acc[w].append((pos, idx, a))
                    if inst.kind == VMEM:
                        if len(infl) >= VMCNT_MAX:
                            infl.pop(0).ret = pos
                        o = Op(w, pos, len(ops[w]), idx, dma, inst.dests, n)
                        ops[w].append(o)
                        infl.append(o)
        issue = [[o.pos for o in ops[w]] for w in range(W)]
        INF = float('inf')

        def ph_of(p):
            return INF if p >= n else phase[p]

        def conflicts(o):
            """Same-wave conflicts [(pos, idx, what)] and other-wave ones
            [(phase, pos, wave, idx, bytes)], both sorted."""
            if o.conf is None:
                same, other = [], []
                if o.fp:
                    for pos, idx, a in acc[o.wave]:
                        ov = pos > o.pos and overlap(o.fp, a)
                        if ov:
                            same.append((pos, idx, ov))
                    for w2 in range(W):
                        for pos, idx, a in acc[w2] if w2 != o.wave else ():
                            ov = phase[pos] >= phase[o.pos] and overlap(o.fp, a)
                            if ov:
                                other.append((phase[pos], pos, w2, idx, ov))
                for r in o.dests:
                    ps = mention[r]
                    same.extend((p, trace[p][0], r) for p in ps[bisect.bisect_right(ps, o.pos):])
                o.conf = (sorted(same, key=lambda t: t[0]), sorted(other, key=lambda t: t[:2]))
            return o.conf

        def in_force(w, pos):
            j = bisect.bisect_left([p for p, *_ in waits[w]], pos) - 1
            infl = sum(1 for o in ops[w] if o.pos < pos < o.ret or (o.pos < pos and o.ret >= n))
            if j < 0:
                return f'no vmcnt wait yet, {infl} VMEM ops in flight'
            p, N, idx, _ = waits[w][j]
            return f'vmcnt({N}) in force (line {insts[idx].line}), {infl} VMEM ops in flight'

        # Violations: conflicts before the copy retires.
        for w in range(W):
            for o in ops[w]:
                same, other = conflicts(o)
                c = insts[o.idx]
                for pos, idx, what in same:
                    if pos >= o.ret:
                        break
                    a = insts[idx]
                    if isinstance(what, str):
                        msg = (f'line {a.line}: `{a.text}` uses {what}, written by the load at '
                               f'line {c.line} `{c.text}` still in flight (wave {w}); '
                               f'{in_force(w, pos)}')
                    else:
                        msg = (f'line {a.line}: `{a.text}` accesses LDS bytes {fmt_bytes(what)} '
                               f'written by line {c.line} `{c.text}` still in flight (wave {w}); '
                               f'{in_force(w, pos)}')
                    self._violation(('same', idx, o.idx), msg)
                for p2, pos, w2, idx, ov in other:
                    if p2 > ph_of(o.ret):
                        break
                    a = insts[idx]
                    how = (f'retired at line {insts[trace[o.ret][0]].line} with no barrier before '
                           'this access' if o.ret < n else 'never retired by a wait')
                    msg = (f'line {a.line}: `{a.text}` (wave {w2}) accesses LDS bytes '
                           f'{fmt_bytes(ov)} written by line {c.line} `{c.text}` of wave {w}, '
                           f'{how}; {in_force(w, o.ret if o.ret < n else n)} in wave {w}')
                    self._violation(('cross', idx, o.idx), msg)

        # Slack: relax each wait visit alone.
        for w in range(W):
            for j, (pw, N, widx, infl) in enumerate(waits[w]):
                st = self.waits[widx]
                st.visits += 1
                nstar = None
                for i in range(len(infl) - N - 1, -1, -1):  # youngest retired first
                    o = infl[i]
                    alt = n
                    for p2, N2, _, _ in waits[w][j + 1:]:
                        if bisect.bisect_left(issue[w], p2) - o.k - 1 >= N2:
                            alt = p2
                            break
                    same, other = conflicts(o)
                    k = bisect.bisect_right([t[0] for t in same], pw)
                    need = (k < len(same) and same[k][0] < alt) or any(
                        phase[pw] < t[0] <= ph_of(alt) for t in other) or (alt >= n and not ended)
                    if need:
                        nstar = len(infl) - 1 - i
                        break
                if nstar is not None:
                    st.guarding += 1
                    st.nstar = nstar if st.nstar is None else min(st.nstar, nstar)

    def _violation(self, key, msg):
        if key in self.violations:
            self.violations[key][1] += 1
        else:
            self.violations[key] = [msg, 1]

    # -- report --------------------------------------------------------------
    @property
    def max_slack(self):
        return max([s.slack for s in self.waits.values() if s.slack is not None], default=0)

    def summary(self):
        ws_ = self.waits.values()
        nothing = sum(1 for s in ws_ if s.visits and not s.guarding)
        unreached = sum(1 for s in ws_ if not s.visits)
        out = (f'vmcnt-check: kernel {self.name}: {len(self.waits)} waits, '
               f'{len(self.violations)} violations, max slack {self.max_slack}')
        out += f', {nothing} guard nothing' if nothing else ''
        out += f', {unreached} not reached' if unreached else ''
        return out

    def render(self, verbose=False):
        lines = [f'kernel {self.name}: {self.waves} waves, {self.paths} paths'
                 + (f' ({self.truncated} truncated)' if self.truncated else '')]
        if self.cap_hit:
            lines.append(f'note: path cap ({self.max_paths}) hit: not every path was checked')
        lines += [f'note: {m}' for m in self.notes]
        for msg, count in self.violations.values():
            lines.append(f'error: {msg}' + (f' [{count} occurrences]' if count > 1 else ''))
        for s in sorted(self.waits.values(), key=lambda s: s.inst.line):
            head = f'  line {s.inst.line}: `{s.inst.text}`:'
            if not s.visits:
                lines.append(f'{head} not reached')
            elif not s.guarding:
                lines.append(f'{head} guards nothing ({s.visits} visits)')
            elif s.slack > 0 or verbose:
                lines.append(f'{head} slack {s.slack}: vmcnt({s.nstar}) would still be safe '
                             f'({s.guarding} of {s.visits} visits guard a copy)')
        lines.append(self.summary())
        return '\n'.join(lines)


def _cond(w, m):
    """Whether a conditional branch is taken in wave w (None = unknown)."""
    if m in ('s_cbranch_scc0', 's_cbranch_scc1'):
        c = w.s.get('scc')
        return None if c is None else c == int(m[-1])
    for reg, lo, hi in (('vcc', 'vcc_lo', 'vcc_hi'), ('exec', 'exec_lo', 'exec_hi')):
        if m in (f's_cbranch_{reg}z', f's_cbranch_{reg}nz'):
            a, b = w.s.get(lo), w.s.get(hi)
            zero = False if (a or b) else (True if a == 0 and b == 0 else None)
            return None if zero is None else zero == m.endswith(f'{reg}z')
    return None


def check(text, waves=None, max_paths=2000, back_edges=2, kernel=None):
    """Check every kernel of an assembly text; returns [KernelReport]."""
    return [KernelReport(n, i, l, m, waves, max_paths, back_edges).run()
            for n, i, l, m in parse(text) if kernel in (None, n)]


def main(argv=None):
    ap = argparse.ArgumentParser(prog='python3 -m kiln.tools.amdgcn_waits',
                                 description='Check s_waitcnt vmcnt waits in gfx9 AMDGCN assembly.')
    ap.add_argument('file', help='assembly file, or - for stdin')
    ap.add_argument('--waves', type=int, help='waves per workgroup (default: metadata, else 4)')
    ap.add_argument('--max-paths', type=int, default=2000)
    ap.add_argument('--back-edges', type=int, default=2, help='times each back edge is taken')
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
