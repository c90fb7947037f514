"""Soundness of the address forms (kiln/Analysis/AddressForm.h), by brute force.

The random index and pointer expressions of test_axis_info_soundness.py (arange, splat,
expand_dims, broadcast, add/sub/mul, compares, selects, extensions, addptr of scalars and
tensors) are printed as tile IR; ``kiln-opt --test-print-address-form`` reports, for every
pointer value it finds a form for, the claim

    address(element at coordinates x) = base + elem * (scalar + sum_d coeff[d] * x[d])

with the polynomials over the function's arguments and scalar results. This file evaluates
every expression on many concrete argument values with numpy (wrapping each integer at its
width, as the hardware does) and evaluates each claimed polynomial on the same values: the
offsets must agree modulo 2^32 (polynomials commute with reduction modulo 2^32, and the
hardware's offsets are i32 or extended from i32). It shares no arithmetic with the analysis.
The wait-count pass relies on these forms to call two stores' accesses unmergeable; its own
independent check is the vmcnt checker on the final assembly."""

from __future__ import annotations

import random
import re

import numpy as np

import test_axis_info_soundness as gen
from remarks import remarks_by_line

SEED = 20261127
NUM_FUNCS = 300
ASSIGNMENTS = 10

CLAIM = re.compile(r"address-form: base = arg(\d+), elem = (\d+), scalar = (.*), coeff = \[(.*)\]$")


def parse_poly(text):
    """[(coefficient, [atom names])] of "c*a*b + ..." ("0" is empty)."""
    if text.strip() == "0":
        return []
    out = []
    for term in text.split(" + "):
        parts = term.split("*")
        out.append((int(parts[0]), parts[1:]))
    return out


def eval_poly(poly, atom):
    total = 0
    for c, names in poly:
        v = c
        for n in names:
            v *= atom(n)
        total += v
    return total


def coords(shape):
    """The coordinates of every element of an array of `shape`, one tuple each (rank 0:
    one empty tuple)."""
    return list(np.ndindex(*shape)) if shape else [()]


def check_form(actual, base, claim, atom):
    """The first element whose address `claim` (a CLAIM match) gets wrong, or None."""
    elem = int(claim.group(2))
    scalar = parse_poly(claim.group(3))
    coeff = [parse_poly(c) for c in claim.group(4).split("; ")] if claim.group(4) else []
    actual = np.asarray(actual, dtype=object)
    assert len(coeff) == actual.ndim, claim.group(0)
    s = eval_poly(scalar, atom)
    cs = [eval_poly(c, atom) for c in coeff]
    for x in coords(actual.shape):
        got = int(actual[x]) if x else int(actual)
        want = s + sum(c * xi for c, xi in zip(cs, x))
        if (got - base) % elem or ((got - base) // elem - want) % (1 << 32):
            return x, got - base, want
    return None


def is_symbolic(claim):
    return "arg" in claim.group(3) + claim.group(4) or "L" in claim.group(3) + claim.group(4)


def evaluate(f, rng):
    """One assignment of f's arguments and every value, and the atom lookup for it."""
    env = {}
    for v, hint in f.args:
        env[v.name] = gen.arg_value(rng, hint, v.elem == "ptr")
    for v, _, ev in f.ops:
        env[v.name] = ev(env)
    args = [v.name for v, _ in f.args]
    by_line = {v.line: v for v, _, _ in f.ops}

    def atom(name):
        value = env[args[int(name[3:])]] if name.startswith("arg") else \
            env[by_line[int(name[1:])].name]
        assert np.ndim(value) == 0, f"atom {name} is not a scalar"
        return int(value)
    return env, args, atom


def claims_of(text):
    return {line: CLAIM.match(r) for line, r in
            remarks_by_line(text, "test-print-address-form").items()}


def run_campaign(seed, nfuncs):
    rng = random.Random(seed)
    funcs = [gen.Gen(rng, i).build(gen.OPS_PER_FUNC) for i in range(nfuncs)]
    text = gen.render(funcs)
    claims = claims_of(text)
    failures, checked, symbolic = [], 0, 0
    for f in funcs:
        for trial in range(ASSIGNMENTS):
            env, args, atom = evaluate(f, rng)
            for v, op_text, _ in f.ops:
                m = claims.get(v.line)
                if v.elem != "ptr" or m is None:
                    continue
                checked += np.asarray(env[v.name]).size
                symbolic += is_symbolic(m)
                bad = check_form(env[v.name], env[args[int(m.group(1))]], m, atom)
                if bad:
                    failures.append((f.name, op_text, m.group(0), *bad))
    return text, failures, checked, symbolic


@gen.needs_tool
def test_address_forms_are_sound_on_random_expressions():
    text, failures, checked, symbolic = run_campaign(SEED, NUM_FUNCS)
    assert not failures, "\n".join(
        f"@{n}: {op}\n    {claim}\n    at {x}: offset {got} bytes, claimed {want} elements"
        for n, op, claim, x, got, want in failures[:10])
    # Not vacuous: many elements of many claims, most over unknown argument values.
    assert checked >= 50_000, checked
    assert symbolic >= NUM_FUNCS, symbolic


@gen.needs_tool
def test_checker_catches_a_false_form():
    """Addresses one element off from a claim are reported (the checker can fail)."""
    rng = random.Random(1)
    funcs = [gen.Gen(rng, i).build(gen.OPS_PER_FUNC) for i in range(40)]
    claims = claims_of(gen.render(funcs))
    f, v = next((f, v) for f in funcs for v, _, _ in f.ops
                if v.elem == "ptr" and v.line in claims)
    env, args, atom = evaluate(f, rng)
    m = claims[v.line]
    base = env[args[int(m.group(1))]]
    assert check_form(env[v.name], base, m, atom) is None
    assert check_form(np.asarray(env[v.name], dtype=object) + 4, base, m, atom) is not None
