"""The compiler library's digest (part of every cache key) is remembered in the cache folder
by the file's identity, so that a cache hit in a new process does not hash the whole library;
a changed library is hashed again."""

import hashlib
import os
import time

from kiln.compiler import compiler as C


def test_digest_is_the_sha256_remembered_and_renewed(tmp_path, monkeypatch):
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    lib = tmp_path / "libkiln.so"
    lib.write_bytes(b"A" * 100000)
    want = hashlib.sha256(b"A" * 100000).hexdigest()
    assert C.library_digest(str(lib)) == want
    memos = list((tmp_path / "cache" / "library-digests").iterdir())
    assert len(memos) == 1 and memos[0].read_text() == want
    # Remembered: the same file is not read again (a poisoned memo is what comes back).
    memos[0].write_text("b" * 64)
    assert C.library_digest(str(lib)) == "b" * 64
    # A rebuild (same size, new contents and time) is hashed again.
    time.sleep(0.01)
    lib.write_bytes(b"B" * 100000)
    os.utime(lib, ns=(time.time_ns(), time.time_ns()))
    assert C.library_digest(str(lib)) == hashlib.sha256(b"B" * 100000).hexdigest()
    # A corrupt memo is ignored.
    for m in (tmp_path / "cache" / "library-digests").iterdir():
        m.write_text("not a digest")
    assert C.library_digest(str(lib)) == hashlib.sha256(b"B" * 100000).hexdigest()


def test_unwritable_cache_still_gives_the_digest(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("KILN_CACHE_DIR", str(blocker))  # a file: no folder can be made in it
    lib = tmp_path / "lib.so"
    lib.write_bytes(b"xyz")
    assert C.library_digest(str(lib)) == hashlib.sha256(b"xyz").hexdigest()
