"""kiln_call, the library's one entry point, answers every malformed request with an error
response (never a crash): bad JSON, another API version, an unknown method, wrong arguments."""

from __future__ import annotations

import ctypes
import re
import json

import pytest

capi = pytest.importorskip("kiln._compiler",
                           reason="kiln/libkiln.so is not built (bash scripts/setup.sh builds it)")


def raw_call(request: bytes):
    out, size = ctypes.c_void_p(), ctypes.c_size_t()
    rc = capi._lib.kiln_call(request, len(request), ctypes.byref(out), ctypes.byref(size))
    try:
        return rc, json.loads(ctypes.string_at(out.value, size.value).decode())
    finally:
        capi._lib.kiln_free(out)


@pytest.mark.parametrize("request_,message", [
    (b"{not json", r"kiln_call: the request is not valid JSON"),
    (b"[1, 2]", r"kiln_call: the request is not a JSON object"),
    (b'{"api": 99, "method": "version"}', r"this library implements API version 1"),
    (b'{"api": 1}', r"kiln_call: the request has no method"),
    (b'{"api": 1, "method": "frobnicate"}', r"unknown method 'frobnicate'"),
    (b'{"api": 1, "method": "run_pipeline", "args": {"ir": 3}}',
     r"argument 'ir' must be a string"),
    (b'{"api": 1, "method": "translate", "args": {"ir": "", "target": "cuda:sm_90a", '
     b'"emit": []}}', r"argument 'emit' must be a non-empty list of strings"),
    (b'{"api": 1, "method": "translate", "args": {"ir": "", "target": "cuda:sm_1", '
     b'"emit": "ptx"}}',
     r"unknown target 'cuda:sm_1'"),
    (b'{"api": 1, "method": "linear_layout", "args": {"layout": "#x"}}',
     r"argument 'shape' must be a list of integers"),
])
def test_malformed_requests_are_error_responses(request_, message):
    rc, reply = raw_call(request_)
    assert rc == 1 and reply["ok"] is False
    assert re.search(message, reply["error"]["message"]), reply
    assert reply["error"]["diagnostics"][-1]["severity"] == "error"


def test_a_good_request_and_located_diagnostics():
    rc, reply = raw_call(b'{"api": 1, "method": "version"}')
    assert rc == 0 and reply["result"].startswith("kiln-")
    rc, reply = raw_call(json.dumps({"api": 1, "method": "run_pipeline", "args": {
        "ir": "func.func @f() {\n  %x = arith.addi : i32\n}\n", "pipeline": "builtin.module()",
        "source_name": "bad.mlir"}}).encode())
    assert rc == 1
    first = reply["error"]["diagnostics"][0]
    assert (first["file"], first["line"]) == ("bad.mlir", 2), first
