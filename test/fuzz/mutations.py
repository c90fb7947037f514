"""Mutations of the fuzzer's inputs: token damage and type-consistent rewrites.

Each mutation is ``m_<name>(rng, text, ctx) -> (new_text, description) | None``; ``mutate``
chains a few of them. Split out of fuzz_tools.py (which runs, classifies, minimizes and
reports); everything here is pure text manipulation, deterministic given the ``rng``.
"""

import json
import math
import random
import re

# --------------------------------------------------------------------------------------
# Lexing helpers

TOKEN_RE = re.compile(r'"(?:[^"\\\n]|\\.)*"|->|[%#@!^]?[A-Za-z_0-9.$]+|\S')
# A number that stands alone, or a dimension of a shape ("16x32xf32").
NUM_RE = re.compile(r"(?:(?<=\dx)|(?<![\w.$%#@!^-]))-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?=x|(?![\w.]))")
TYPES = ["f32", "f16", "bf16", "tf32", "f64", "i1", "i3", "i7", "i8", "i16", "i32", "i64",
         "i128", "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ", "f4E2M1FN", "f6E2M3FN",
         "index", "ui8", "si32"]
TYPE_RE = re.compile(r"(?:(?<=\dx)|(?<![\w.$%#@!^]))(" + "|".join(sorted(TYPES, key=len, reverse=True))
                     + r")(?![\w.$])")
COMMON_TYPES = ["f32", "f16", "bf16", "tf32", "f64", "i1", "i3", "i7", "i8", "i16", "i32",
                "i64", "f8E4M3FN", "f8E5M2", "f4E2M1FN"]
FLOAT_TYPES = {"f32", "f16", "bf16", "tf32", "f64", "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ",
               "f8E5M2FNUZ", "f4E2M1FN", "f6E2M3FN"}

INTERESTING = [0, 1, -1, 2, 3, 4, 5, 7, 8, 16, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256,
               1023, 1024, 4096, 65535, 65536, 2**31 - 1, 2**31, 2**32, 2**32 + 1, -2**31,
               2**63 - 1, 2**63, 2**64, -2**63, 10**20, 10**40]
SMALL = [0, 1, 2, 3, 4, 5, 8, 16, 32, 64, 128, 256, -1, 2**31 - 1, 2**31, 2**32, 10**20]


def interesting_number(rng, old=None):
    r = rng.random()
    if old is not None and r < 0.25:
        return rng.choice([old + 1, old - 1, old * 2, old // 2 if old else 0, -old,
                           old * 1024, old + 2**31])
    if r < 0.75:
        return rng.choice(INTERESTING)
    return rng.randint(0, 2 ** rng.randint(1, 64)) * rng.choice([1, 1, 1, -1])


def tokens(text):
    return [(m.start(), m.end()) for m in TOKEN_RE.finditer(text)]


def sub_at(text, start, end, new):
    return text[:start] + new + text[end:]


def word_re(name):
    return re.compile(r"(?<![\w.$])" + re.escape(name) + r"(?![\w.$])")


# --------------------------------------------------------------------------------------
# Mutations. Each takes (rng, text, ctx) and returns (new_text, description) or None
# when it does not apply to the text.


def m_tok_delete(rng, text, ctx):
    toks = tokens(text)
    if not toks:
        return None
    s, e = rng.choice(toks)
    return sub_at(text, s, e, ""), f"delete token {text[s:e]!r}@{s}"


def m_tok_swap(rng, text, ctx):
    toks = tokens(text)
    if len(toks) < 2:
        return None
    i = rng.randrange(len(toks))
    j = min(len(toks) - 1, i + rng.randint(1, 8)) if rng.random() < 0.6 else rng.randrange(len(toks))
    if i == j:
        return None
    (a, b), (c, d) = sorted([toks[i], toks[j]])
    return (text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:],
            f"swap tokens {text[a:b]!r}@{a} {text[c:d]!r}@{c}")


def m_tok_dup(rng, text, ctx):
    toks = tokens(text)
    if not toks:
        return None
    s, e = rng.choice(toks)
    return sub_at(text, s, e, text[s:e] + " " + text[s:e]), f"duplicate token {text[s:e]!r}@{s}"


def m_num(rng, text, ctx):
    nums = list(NUM_RE.finditer(text))
    if not nums:
        return None
    m = rng.choice(nums)
    try:
        old = int(m.group())
    except ValueError:
        old = None
    new = interesting_number(rng, old)
    if old is None and rng.random() < 0.3:
        new = rng.choice(["0.0", "-0.0", "1.0e308", "1e-400", "0x7FC00000", "nan", "inf"])
    return sub_at(text, m.start(), m.end(), str(new)), f"number {m.group()}@{m.start()} -> {new}"


def m_truncate(rng, text, ctx):
    if len(text) < 2:
        return None
    if rng.random() < 0.5:
        toks = tokens(text)
        pos = rng.choice(toks)[1] if toks else rng.randrange(len(text))
    else:
        pos = rng.randrange(1, len(text))
    return text[:pos], f"truncate at {pos}"


def _lines(text):
    return text.splitlines(keepends=True)


def m_line_delete(rng, text, ctx):
    ls = _lines(text)
    if len(ls) < 2:
        return None
    i = rng.randrange(len(ls))
    n = 1 if rng.random() < 0.7 else rng.randint(2, 4)
    return "".join(ls[:i] + ls[i + n:]), f"delete lines {i + 1}..{i + n}"


def m_line_dup(rng, text, ctx):
    ls = _lines(text)
    if not ls:
        return None
    i = rng.randrange(len(ls))
    j = rng.randrange(len(ls) + 1)
    ls.insert(j, ls[i] if ls[i].endswith("\n") else ls[i] + "\n")
    return "".join(ls), f"copy line {i + 1} to {j + 1}"


def m_line_swap(rng, text, ctx):
    ls = _lines(text)
    if len(ls) < 2:
        return None
    i, j = rng.sample(range(len(ls)), 2)
    ls[i], ls[j] = ls[j], ls[i]
    if not ls[-1].endswith("\n"):
        ls[-1] += "\n"
    return "".join(l if l.endswith("\n") else l + "\n" for l in ls), f"swap lines {i + 1} {j + 1}"


def m_splice(rng, text, ctx):
    others = ctx["lines"][ctx["kind"]]
    if not others:
        return None
    line = rng.choice(others)
    ls = _lines(text)
    j = rng.randrange(len(ls) + 1)
    ls.insert(j, line + "\n")
    return "".join(ls), f"splice line {line.strip()[:60]!r} at {j + 1}"


STRAY = ["\x00", "\t", "\u00e9", "\ufeff", '"', "{", "}", "<", ">", "(", ")", "[", "]", "%",
         "#", "^bb0:", "@", "!", ":", ",", "=", "\\", "\x7f", "0x", "-", "?"]


def m_stray(rng, text, ctx):
    pos = rng.randrange(len(text) + 1)
    s = rng.choice(STRAY)
    return text[:pos] + s + text[pos:], f"insert {s!r}@{pos}"


def _typed_positions(text, old, only_types):
    out = []
    for m in TYPE_RE.finditer(text):
        if m.group(1) != old:
            continue
        if only_types:
            before = text[max(0, m.start() - 30):m.start()]
            # Leave attribute annotations ("= 4 : i32", "array<i32: 1>") alone.
            if re.search(r"=\s*-?\d+\s*:\s*$", before) or text[m.end():m.end() + 1] == ":":
                continue
        out.append(m)
    return out


F2I_OPS = {"arith.addf": "arith.addi", "arith.subf": "arith.subi", "arith.mulf": "arith.muli",
           "arith.divf": "arith.divsi", "arith.maxnumf": "arith.maxsi", "arith.minnumf": "arith.minsi",
           "arith.remf": "arith.remsi", "arith.cmpf": "arith.cmpi", "llvm.fadd": "llvm.add",
           "llvm.fmul": "llvm.mul", "llvm.fsub": "llvm.sub", "llvm.fdiv": "llvm.sdiv"}
F2I_PRED = {"olt": "slt", "ole": "sle", "ogt": "sgt", "oge": "sge", "oeq": "eq", "one": "ne",
            "ult": "ult", "ule": "ule", "ugt": "ugt", "uge": "uge", "une": "ne", "ueq": "eq"}


def _switch_arith(text, to_int):
    ops = F2I_OPS if to_int else {v: k for k, v in F2I_OPS.items()}
    for a, b in ops.items():
        text = word_re(a).sub(b, text)
    preds = F2I_PRED if to_int else {v: k for k, v in F2I_PRED.items() if k[0] == "o"}
    cmp = "arith.cmpi" if to_int else "arith.cmpf"
    text = re.sub(re.escape(cmp) + r"\s+(\w+)",
                  lambda m: f"{cmp} {preds.get(m.group(1), m.group(1))}", text)
    if to_int:
        text = re.sub(r"dense<(-?\d+)\.\d+(?:e[+-]?\d+)?>", r"dense<\1>", text)
    else:
        text = re.sub(r"dense<(-?\d+)>", r"dense<\1.0>", text)
    return text


def m_elem_type(rng, text, ctx):
    present = sorted({m.group(1) for m in TYPE_RE.finditer(text)})
    if not present:
        return None
    old = rng.choice(present)
    pool = COMMON_TYPES if rng.random() < 0.8 else TYPES
    new = rng.choice([t for t in pool if t != old] or TYPES)
    only_types = rng.random() < 0.8
    ms = _typed_positions(text, old, only_types)
    if not ms:
        return None
    if rng.random() < 0.08:                      # one occurrence only
        ms = [rng.choice(ms)]
        desc = f"type {old}@{ms[0].start()} -> {new}"
    else:
        desc = f"type {old} -> {new} everywhere" + (" (types only)" if only_types else "")
    for m in reversed(ms):
        text = sub_at(text, m.start(1), m.end(1), new)
    if (old in FLOAT_TYPES) != (new in FLOAT_TYPES) and rng.random() < 0.7:
        text = _switch_arith(text, to_int=new not in FLOAT_TYPES)
        desc += " + arith ops"
    return text, desc


# -- #tile.blocked ---------------------------------------------------------------------

BLOCKED_RE = re.compile(r"#tile\.blocked<\{([^}]*)\}>")
FIELD_RE = re.compile(r"(\w+)\s*=\s*\[([^\]]*)\]")


def _parse_blocked(body):
    return [(k, [x.strip() for x in v.split(",") if x.strip()]) for k, v in FIELD_RE.findall(body)]


def _render_blocked(fields):
    return "#tile.blocked<{" + ", ".join(f"{k} = [{', '.join(v)}]" for k, v in fields) + "}>"


def _prod(xs):
    p = 1
    for x in xs:
        p *= int(x)
    return p


def _factor_into(total, n, rng):
    """n factors whose product is total (powers of two split at random)."""
    out = [1] * n
    rest = total
    while rest % 2 == 0 and rest > 1 and n > 1:
        out[rng.randrange(n)] *= 2
        rest //= 2
    out[rng.randrange(n)] *= rest
    return [str(x) for x in out]


def _set_module_attr(text, name, value):
    pat = re.compile(re.escape(name) + r"\s*=\s*[^,}]+")
    if pat.search(text):
        return pat.sub(f"{name} = {value}", text)
    if "module attributes {" in text:
        return text.replace("module attributes {", f"module attributes {{{name} = {value}, ", 1)
    if re.search(r"^module\s*\{", text, re.M):
        return re.sub(r"^module\s*\{", f"module attributes {{{name} = {value}}} {{", text, count=1, flags=re.M)
    return text


def m_blocked(rng, text, ctx):
    ms = list(BLOCKED_RE.finditer(text))
    if not ms:
        return None
    op = rng.choices(["entry", "size", "rebalance", "threads", "warps", "order", "rank",
                      "swapfields", "dropfield"], weights=[2, 6, 5, 3, 3, 2, 1, 0.5, 0.5])[0]
    # Products tied to module attributes change in every layout at once.
    targets = ms if op in ("threads", "warps") or rng.random() < 0.4 else [rng.choice(ms)]
    extra = None
    if op == "threads":
        total = rng.choice([64, 64, 16, 128, 1, 32, 48])
        extra = ("tile.threads_per_warp", f"{total} : i32")
    elif op == "warps":
        total = rng.choice([1, 2, 8, 16, 32, 64, 3, 1024, 65536])
        extra = ("tile.num_warps", f"{total} : i32")
    detail = ""
    for m in reversed(targets):
        fields = _parse_blocked(m.group(1))
        if not fields:
            continue
        d = dict(fields)
        rank = max(len(v) for _, v in fields)
        if op == "entry":
            k = rng.randrange(len(fields))
            if not fields[k][1]:
                continue
            i = rng.randrange(len(fields[k][1]))
            v = rng.choice([1, 2, 4, 8, 16, 32, 64]) if rng.random() < 0.75 else rng.choice(SMALL)
            fields[k][1][i] = str(v)
            detail = f"{fields[k][0]}[{i}]={v}"
        elif op == "threads" and "threadsPerWarp" in d and d["threadsPerWarp"]:
            d["threadsPerWarp"][:] = _factor_into(total, len(d["threadsPerWarp"]), rng)
            detail = f"threadsPerWarp product {total}"
        elif op == "warps" and "warpsPerCTA" in d and d["warpsPerCTA"]:
            d["warpsPerCTA"][:] = _factor_into(total, len(d["warpsPerCTA"]), rng)
            detail = f"warpsPerCTA product {total}"
        elif op == "order" and "order" in d:
            o = d["order"]
            choice = rng.random()
            if choice < 0.7:
                rng.shuffle(o)
            elif choice < 0.75 and o:
                o[rng.randrange(len(o))] = str(rng.choice([rank, -1, 0, 7]))
            else:
                o.append(str(rng.choice([0, rank])))
            detail = f"order {o}"
        elif op == "rank":
            grow = rng.random() < 0.6 or rank <= 1
            for k, v in fields:
                if grow:
                    v.insert(0, str(rank) if k == "order" else "1")
                else:
                    v.pop()
            detail = "rank +1" if grow else "rank -1"
        elif op == "swapfields" and len(fields) > 1:
            i, j = rng.sample(range(len(fields)), 2)
            fields[i], fields[j] = (fields[i][0], fields[j][1]), (fields[j][0], fields[i][1])
            detail = f"swap {fields[i][0]}/{fields[j][0]}"
        elif op == "dropfield":
            k = rng.randrange(len(fields))
            detail = f"drop {fields[k][0]}"
            del fields[k]
        elif op == "size" and "sizePerThread" in d and d["sizePerThread"]:
            i = rng.randrange(len(d["sizePerThread"]))
            old = int(d["sizePerThread"][i])
            new = rng.choice([old * 2, old * 4, max(old // 2, 1), 1, 16]) if rng.random() < 0.85 \
                else rng.choice([old * 3, old * 1024, 2**20])
            d["sizePerThread"][i] = str(new)
            detail = f"sizePerThread[{i}] {old} -> {new}"
        elif op == "rebalance":
            # Move a factor of two between dimensions: the product (and so the
            # kernel's lanes or warps) stays the same.
            k = rng.choice(["threadsPerWarp", "warpsPerCTA", "sizePerThread"])
            v = d.get(k)
            if not v or len(v) < 2:
                continue
            i, j = rng.sample(range(len(v)), 2)
            if int(v[i]) % 2 == 0:
                v[i], v[j] = str(int(v[i]) // 2), str(int(v[j]) * 2)
            detail = f"{k} -> {v}"
        text = sub_at(text, m.start(), m.end(), _render_blocked(fields))
    if extra and rng.random() < 0.8:
        text = _set_module_attr(text, *extra)
        detail += f" + {extra[0]} = {extra[1]}"
    return text, f"blocked {op} ({len(targets)} layouts) {detail}"


# -- #tile.linear ----------------------------------------------------------------------

LINEAR_RE = re.compile(r"#tile\.linear<\{(.*?)\}>")


def _parse_bases(body):
    out = []
    for m in re.finditer(r"(\w+)\s*=\s*", body):
        start = m.end()
        if start >= len(body) or body[start] != "[":
            continue
        depth, i = 0, start
        while i < len(body):
            depth += {"[": 1, "]": -1}.get(body[i], 0)
            i += 1
            if depth == 0:
                break
        try:
            bases = json.loads(body[start:i])
        except ValueError:
            return None
        if not (isinstance(bases, list) and all(isinstance(b, list) and
                                                 all(isinstance(x, int) for x in b) for b in bases)):
            return None
        out.append((m.group(1), bases))
    return out


def _render_linear(fields):
    def basis(b):
        return "[" + ", ".join(str(x) for x in b) + "]"
    return "#tile.linear<{" + ", ".join(
        f"{k} = [" + ", ".join(basis(b) for b in v) + "]" for k, v in fields) + "}>"


def m_linear(rng, text, ctx):
    ms = list(LINEAR_RE.finditer(text))
    if not ms:
        return None
    m = rng.choice(ms)
    fields = _parse_bases(m.group(1))
    if not fields:
        return None
    k = rng.randrange(len(fields))
    name, bases = fields[k]
    rank = len(bases[0]) if bases else 1
    op = rng.choice(["add", "add", "remove", "value", "value", "rank", "dup", "swap"])
    if op == "add":
        n = rng.choice([1, 1, 2, 3, 4, 8]) if rng.random() < 0.9 else rng.choice([26, 31, 40])
        top = max([abs(x) for b in bases for x in b] + [1])
        for _ in range(n):
            top *= 2
            bases.append([rng.choice([top, 0, 1]) if r == 0 else 0 for r in range(rank)])
        detail = f"{name} += {n} bases"
    elif op == "remove" and bases:
        del bases[rng.randrange(len(bases))]
        detail = f"{name} -= 1 basis"
    elif op == "value" and bases:
        i = rng.randrange(len(bases))
        j = rng.randrange(len(bases[i])) if bases[i] else 0
        v = rng.choice([0, 1, 3, 5, 6, 1024, -1, -4, 2**31, 2**32, 10**20])
        if bases[i]:
            bases[i][j] = v
        detail = f"{name}[{i}][{j}] = {v}"
    elif op == "rank" and bases:
        i = rng.randrange(len(bases)) if rng.random() < 0.5 else None
        for b in (bases if i is None else [bases[i]]):
            b.append(0) if rng.random() < 0.6 or len(b) < 2 else b.pop()
        detail = f"{name} rank change ({'all' if i is None else i})"
    elif op == "dup" and bases:
        bases.insert(rng.randrange(len(bases) + 1), list(rng.choice(bases)))
        detail = f"{name} duplicate basis"
    elif op == "swap" and len(fields) > 1:
        j = rng.randrange(len(fields))
        fields[k], fields[j] = (name, fields[j][1]), (fields[j][0], bases)
        detail = f"swap {name}/{fields[k][0]}"
    else:
        return None
    return sub_at(text, m.start(), m.end(), _render_linear(fields)), f"linear {detail}"


def _aliases(text):
    return re.findall(r"^(#\w+)\s*=", text, re.M)


def m_slice(rng, text, ctx):
    ms = list(re.finditer(r"#tile\.slice<\{dim = (-?\d+), parent = (#[\w.]+)\}>", text))
    if not ms:
        return None
    m = rng.choice(ms)
    if rng.random() < 0.5:
        d = rng.choice([0, 1, 2, 3, -1, 2**31 - 1])
        return sub_at(text, m.start(1), m.end(1), str(d)), f"slice dim {m.group(1)} -> {d}"
    parents = [a for a in _aliases(text) if a != m.group(2)] + ["#tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>"]
    p = rng.choice(parents)
    return sub_at(text, m.start(2), m.end(2), p), f"slice parent {m.group(2)} -> {p[:30]}"


SHAPE_RE = re.compile(r"tensor<((?:\d+x)+)")


def m_shape(rng, text, ctx):
    dims = sorted({int(d) for m in SHAPE_RE.finditer(text) for d in m.group(1).split("x") if d})
    if not dims:
        return None
    old = rng.choice(dims)
    if rng.random() < 0.75:
        new = rng.choice([old * 2, old // 2 or 1, old * 4, old // 4 or 2, 1, 2, 4096])
    else:
        new = rng.choice([0, 3, 17, 96, 2**16, 2**20, 2**24, 2**31, 2**32 + old])
    in_shapes = [m for s in SHAPE_RE.finditer(text) for m in NUM_RE.finditer(text, s.start(1), s.end(1))
                 if m.group() == str(old)]
    if rng.random() < 0.7:
        # Consistent: shapes, arange ends and constants; not attributes
        # ("tile.num_warps = 4 : i32", layout lists).
        ms = [m for m in NUM_RE.finditer(text) if m.group() == str(old)
              and not re.search(r"(=\s*|\[[\d, ]*)$", text[max(0, m.start() - 20):m.start()])]
        desc = f"shape {old} -> {new} everywhere"
    else:
        ms = in_shapes
        if rng.random() < 0.2 and ms:
            ms = [rng.choice(ms)]
            desc = f"shape {old}@{ms[0].start()} -> {new}"
        else:
            desc = f"shape {old} -> {new} in tensor types"
    if not ms:
        return None
    for m in reversed(ms):
        text = sub_at(text, m.start(), m.end(), str(new))
    return text, desc


MODULE_ATTR_VALUES = {
    "tile.num_warps": [0, 1, 2, 3, 4, 8, 16, 32, 64, -1, -4, 1024, 2**20, 2**31 - 1, 2**31],
    "tile.threads_per_warp": [0, 1, 7, 16, 32, 64, 128, -1, 2**31 - 1],
    "tile.shared": [0, 1, 65536, 2**31 - 1, -1],
    "tile.num_stages": [0, 1, 2, 3, -1, 1000],
}
TARGETS = ["cuda:sm_90a", "cuda:sm_80", "hip:gfx942", "hip:gfx950", "hip:gfx90a", "hip:gfx908",
           "cuda:sm_100", "", "hip:", "cuda:sm_90a ", "x"]


def m_module_attr(rng, text, ctx):
    op = rng.random()
    if op < 0.15:
        t = rng.choice(TARGETS)
        return _set_module_attr(text, "tile.target", f'"{t}"'), f"tile.target = {t!r}"
    if op < 0.25:
        ms = list(re.finditer(r"(tile\.\w+)\s*=\s*[^,}]+,?\s*", text))
        if not ms:
            return None
        m = rng.choice(ms)
        return sub_at(text, m.start(), m.end(), ""), f"remove {m.group(1)}"
    name = rng.choice(list(MODULE_ATTR_VALUES))
    v = rng.choice(MODULE_ATTR_VALUES[name])
    ty = rng.choice(["i32"] * 6 + ["i64", "i8", "i1", "index", "si32"])
    value = f"{v} : {ty}" if rng.random() < 0.95 else f'"{v}"'
    new = _set_module_attr(text, name, value)
    return (new, f"{name} = {value}") if new != text else None


def m_addrspace(rng, text, ctx):
    space = rng.choice([0, 1, 3, 4, 5, 7, 8, 999, -1, 2**24, 2**31])
    cands = []
    for m in re.finditer(r"!llvm\.ptr<(\d+)>", text):
        cands.append(("llvm", m))
    for m in re.finditer(r"!tile\.ptr<", text):
        cands.append(("tile", m))
    for m in re.finditer(r"addr_space = (\d+)", text):
        cands.append(("attr", m))
    if not cands:
        return None
    kind, m = rng.choice(cands)
    everywhere = rng.random() < 0.75
    if kind == "llvm":
        old = m.group(1)
        if everywhere:
            return (text.replace(f"!llvm.ptr<{old}>", f"!llvm.ptr<{space}>"),
                    f"!llvm.ptr<{old}> -> <{space}> everywhere")
        return sub_at(text, m.start(1), m.end(1), str(space)), f"!llvm.ptr<{old}>@{m.start()} -> <{space}>"
    if kind == "attr":
        return sub_at(text, m.start(1), m.end(1), str(space)), f"addr_space -> {space}"
    # !tile.ptr<T> -> !tile.ptr<T, N>: find the matching '>'
    def close(pos):
        depth = 1
        while pos < len(text) and depth:
            depth += {"<": 1, ">": -1}.get(text[pos], 0)
            pos += 1
        return pos - 1
    starts = [mm.end() for mm in re.finditer(r"!tile\.ptr<", text)] if everywhere else [m.end()]
    for s in reversed(starts):
        e = close(s)
        inner = re.sub(r",\s*-?\d+$", "", text[s:e])
        text = text[:s] + f"{inner}, {space}" + text[e:]
    return text, f"!tile.ptr address space {space}" + (" everywhere" if everywhere else "")


def m_attr_int(rng, text, ctx):
    pats = [r"tile\.divisibility = (-?\d+)", r"axis = (-?\d+)", r"dim = (-?\d+)",
            r"tile\.program_id (-?\d+)", r"tile\.num_programs (-?\d+)",
            r"array<i32: (-?\d+)", r"\"1,(\d+)\""]
    ms = [m for p in pats for m in re.finditer(p, text)]
    if not ms:
        return None
    m = rng.choice(ms)
    v = rng.choice([0, 1, 2, 3, 4, 8, 16, 32, 64, 1024, -1, -16, 2**30, 2**31 - 1, 2**31, 10**20])
    return sub_at(text, m.start(1), m.end(1), str(v)), f"{m.group(0)} -> {v}"


def m_arange(rng, text, ctx):
    ms = list(re.finditer(r"tile\.arange (-?\d+), (-?\d+)", text))
    if not ms:
        return None
    m = rng.choice(ms)
    a, b = int(m.group(1)), int(m.group(2))
    if rng.random() < 0.5:
        k = rng.choice([-8, -512, 1, 2**30, -2**31, 2**31 - 1 - b, -2**31 - a, 2**31, 2**62])
        na, nb = a + k, b + k
    else:
        na, nb = rng.choice([(b, a), (a, a), (a, b + 1), (a - 1, b), (0, 2**31), (-2**31, 0),
                             (a, b * 2), (2**31 - 1, 2**31 - 1 + b - a)])
    return sub_at(text, m.start(), m.end(), f"tile.arange {na}, {nb}"), f"arange {a},{b} -> {na},{nb}"


FAMILIES = [
    ["arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.maxnumf", "arith.minnumf",
     "arith.remf", "arith.maximumf"],
    ["arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.divui", "arith.remsi",
     "arith.remui", "arith.maxsi", "arith.minui", "arith.andi", "arith.ori", "arith.xori",
     "arith.shli", "arith.shrsi", "arith.shrui", "arith.ceildivsi"],
    ["math.exp", "math.exp2", "math.log", "math.log2", "math.sqrt", "math.rsqrt", "math.sin",
     "math.cos", "math.tanh", "math.absf", "math.floor", "math.erf", "math.absi"],
    ["slt", "sle", "sgt", "sge", "eq", "ne", "ult", "ule", "ugt", "uge"],
    ["olt", "ole", "ogt", "oge", "oeq", "one", "uno", "ord", "une", "ueq"],
    ["tile.program_id", "tile.num_programs"],
    ["tile.convert_layout", "tile.reshape", "tile.broadcast", "tile.expand_dims"],
    ["tile.splat", "tile.convert_layout"],
    ["func.func public", "func.func private", "func.func"],
    ["nvvm.read.ptx.sreg.tid.x", "nvvm.read.ptx.sreg.tid.y", "nvvm.read.ptx.sreg.ctaid.x",
     "nvvm.read.ptx.sreg.ntid.x", "nvvm.read.ptx.sreg.laneid", "nvvm.read.ptx.sreg.nctaid.z"],
    ["rocdl.workitem.id.x", "rocdl.workgroup.id.x", "rocdl.workitem.id.y", "rocdl.workgroup.dim.x"],
    ["nvvm.kernel", "rocdl.kernel"],
    ["llvm.fadd", "llvm.fsub", "llvm.fmul", "llvm.fdiv", "llvm.frem"],
    ["llvm.add", "llvm.sub", "llvm.mul", "llvm.udiv", "llvm.sdiv", "llvm.urem", "llvm.srem",
     "llvm.and", "llvm.or", "llvm.xor", "llvm.shl", "llvm.lshr", "llvm.ashr"],
    ["llvm.zext", "llvm.sext", "llvm.trunc", "llvm.bitcast"],
    ["llvm.intr.exp2", "llvm.intr.exp", "llvm.intr.log", "llvm.intr.sqrt", "llvm.intr.fabs"],
    ["llvm.intr.maxnum", "llvm.intr.minnum", "llvm.intr.maximum", "llvm.intr.copysign"],
    ["llvm.load", "llvm.store"],
]


def m_op_swap(rng, text, ctx):
    cands = []
    for fam in FAMILIES:
        for name in fam:
            if name.startswith("func.func"):
                pat = re.compile(re.escape(name) + r"(?= @)")
            else:
                pat = word_re(name)
            for m in pat.finditer(text):
                cands.append((fam, name, m))
    if not cands:
        return None
    fam, name, m = rng.choice(cands)
    new = rng.choice([n for n in fam if n != name])
    return sub_at(text, m.start(), m.end(), new), f"op {name}@{m.start()} -> {new}"


def m_alias_swap(rng, text, ctx):
    aliases = _aliases(text)
    if len(aliases) < 2:
        return None
    a, b = rng.sample(aliases, 2)
    uses = [m for m in word_re(a).finditer(text) if not text[m.end():m.end() + 3].lstrip().startswith("=")]
    if not uses:
        return None
    if rng.random() < 0.5:
        m = rng.choice(uses)
        return sub_at(text, m.start(), m.end(), b), f"alias {a}@{m.start()} -> {b}"
    for m in reversed(uses):
        text = sub_at(text, m.start(), m.end(), b)
    return text, f"alias {a} -> {b} in all uses"


def m_nest(rng, text, ctx):
    depth = rng.choice([2, 3, 8, 64]) if rng.random() < 0.8 else rng.choice([1000, 5000, 20000])
    op = rng.random()
    if op < 0.4:
        ms = _typed_positions(text, rng.choice(["f32", "i32", "f16"]), True)
        if not ms:
            return None
        m = rng.choice(ms)
        new = "!tile.ptr<" * depth + m.group(1) + ">" * depth
        return sub_at(text, m.start(1), m.end(1), new), f"nest !tile.ptr depth {depth}"
    if op < 0.7:
        ms = list(re.finditer(r"\[(-?\d+)\]", text))
        if not ms:
            return None
        m = rng.choice(ms)
        return sub_at(text, m.start(), m.end(), "[" * depth + m.group(1) + "]" * depth), f"nest [] depth {depth}"
    ls = _lines(text)
    i = rng.randrange(len(ls) + 1)
    if rng.random() < 0.5:
        block = "module {\n" * depth + "}\n" * depth
    else:
        block = "%fz = " + "(" * depth + ")" * depth + "\n"
    ls.insert(i, block)
    return "".join(ls), f"nested block depth {depth} at line {i + 1}"


LLVM_SNIPPETS = [
    "nvvm.barrier0",
    "rocdl.s.barrier",
    "nvvm.wgmma.fence.aligned",
    "rocdl.s.waitcnt {n}",
    "%fz{k} = nvvm.read.ptx.sreg.laneid : i32",
    "%fz{k} = rocdl.workitem.id.y : i32",
    "llvm.fence syncscope(\"{scope}\") {order}",
    "llvm.return",
    "llvm.unreachable",
    "%fz{k} = llvm.mlir.constant({n} : i32) : i32\n%fz{k}b = nvvm.shfl.sync bfly %fz{k}, %fz{k}, %fz{k}, %fz{k} : i32 -> i32",
    "%fz{k} = llvm.mlir.constant({n} : i32) : i32\n%fz{k}b = rocdl.ds_bpermute %fz{k}, %fz{k} : (i32, i32) -> i32",
    "%fz{k} = llvm.mlir.constant({n} : i32) : i32\n%fz{k}b = rocdl.mbcnt.lo %fz{k}, %fz{k} : (i32, i32) -> i32",
    "%fz{k} = llvm.mlir.zero : !llvm.ptr<{n}>\n%fz{k}b = llvm.load %fz{k} : !llvm.ptr<{n}> -> f32",
    "%fz{k} = llvm.mlir.zero : !llvm.ptr<1>\n%fz{k}l = llvm.mlir.zero : !llvm.ptr<3>\nrocdl.global.load.lds %fz{k}, %fz{k}l, {n}, 0, 0",
    "llvm.func @fz{k}() attributes {{{kattr}}} {{\n  llvm.return\n}}",
    "llvm.mlir.global external @fz{k}() {{addr_space = {n} : i32}} : !llvm.array<{n} x i8>",
]


NV_TO_AMD = [("nvvm.kernel", "rocdl.kernel"), ("nvvm.read.ptx.sreg.tid.x", "rocdl.workitem.id.x"),
             ("nvvm.read.ptx.sreg.tid.y", "rocdl.workitem.id.y"),
             ("nvvm.read.ptx.sreg.ctaid.x", "rocdl.workgroup.id.x"),
             ("nvvm.read.ptx.sreg.ntid.x", "rocdl.workgroup.dim.x"),
             ("nvvm.barrier0", "rocdl.s.barrier")]


def m_vendor_port(rng, text, ctx):
    """Port the whole input to the other vendor's ops, so both targets see it."""
    to_amd = "nvvm." in text if "rocdl." not in text or "nvvm." not in text else rng.random() < 0.5
    new = text
    for nv, amd in NV_TO_AMD:
        a, b = (nv, amd) if to_amd else (amd, nv)
        new = word_re(a).sub(b, new)
    return (new, "port to " + ("AMD" if to_amd else "NVIDIA")) if new != text else None


def _body_lines(ls):
    """Indices of the lines inside function bodies (an op inserted there goes before them)."""
    out, depth = [], 0
    for i, ln in enumerate(ls):
        if depth > 0 and not ln.strip().startswith("}"):
            out.append(i)
        depth += ln.count("{") - ln.count("}")
    return out


def m_llvm_snippet(rng, text, ctx):
    snip = rng.choice(LLVM_SNIPPETS).format(
        k=rng.randrange(100), n=rng.choice([0, 1, 2, 3, 4, 5, 16, 64, -1, 2**31, 12]),
        scope=rng.choice(["", "agent", "workgroup", "wavefront", "block", "cluster", "device"]),
        order=rng.choice(["acquire", "release", "acq_rel", "seq_cst", "monotonic"]),
        kattr=rng.choice(["nvvm.kernel", "rocdl.kernel", "nvvm.kernel, rocdl.kernel", ""]))
    ls = _lines(text)
    body = _body_lines(ls)
    if snip.startswith("llvm.func") or snip.startswith("llvm.mlir.global") or rng.random() < 0.1 or not body:
        i = rng.randrange(len(ls) + 1)                      # anywhere, module scope included
    else:
        # Inside a body: before any of its ops, the terminator included.
        i = rng.choice(body)
    ls.insert(i, snip + "\n")
    return "".join(ls), f"insert {snip.splitlines()[0][:50]!r} at line {i + 1}"


MUTATIONS = {
    # name: (function, weight for tile inputs, weight for llvm inputs)
    "tok_delete": (m_tok_delete, 6, 6),
    "tok_swap": (m_tok_swap, 5, 5),
    "tok_dup": (m_tok_dup, 4, 4),
    "num": (m_num, 10, 10),
    "truncate": (m_truncate, 3, 3),
    "line_delete": (m_line_delete, 4, 4),
    "line_dup": (m_line_dup, 3, 3),
    "line_swap": (m_line_swap, 2, 2),
    "splice": (m_splice, 4, 4),
    "stray": (m_stray, 1, 1),
    "elem_type": (m_elem_type, 9, 6),
    "blocked": (m_blocked, 12, 0),
    "linear": (m_linear, 5, 0),
    "slice": (m_slice, 3, 0),
    "shape": (m_shape, 6, 0),
    "module_attr": (m_module_attr, 6, 1),
    "addrspace": (m_addrspace, 3, 6),
    "attr_int": (m_attr_int, 4, 2),
    "arange": (m_arange, 3, 0),
    "op_swap": (m_op_swap, 6, 9),
    "alias_swap": (m_alias_swap, 4, 0),
    "nest": (m_nest, 1, 1),
    "llvm_snippet": (m_llvm_snippet, 0, 8),
    "vendor_port": (m_vendor_port, 0, 4),
}


SYNTACTIC = {"tok_delete", "tok_swap", "tok_dup", "truncate", "line_delete", "line_dup",
             "line_swap", "splice", "stray", "nest"}


def mutate(rng, seed, ctx):
    """A third of the mutants get token-level damage (and numbers); the rest get the
    rewrites that mostly keep the input parseable, so they reach the passes."""
    text = seed.text
    ctx = dict(ctx, kind=seed.kind)
    syntactic = rng.random() < 0.35
    names = [n for n in MUTATIONS if (n in SYNTACTIC or n == "num") == syntactic]
    col = 1 if seed.kind == "tile" else 2
    weights = [MUTATIONS[n][col] for n in names]
    n_ops = rng.choices([1, 2, 3, 4], weights=[50, 30, 15, 5])[0]
    descs = []
    tries = 0
    while len(descs) < n_ops and tries < 40:
        tries += 1
        name = rng.choices(names, weights=weights)[0]
        res = MUTATIONS[name][0](rng, text, ctx)
        if res is None or res[0] == text:
            continue
        text = res[0]
        descs.append(f"{name}: {res[1]}")
    return text, descs
