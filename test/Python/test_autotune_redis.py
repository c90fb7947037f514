"""kiln.autotune.RedisTuningCache against a real redis-server, on the stub driver.

Each test starts its own redis-server on a free port (never 6379, where a system one may
run) in a temporary folder, without persistence, and stops it after. The kernels, the stub
driver and the fake timer are test_autotune's: a tuning written by one process must be read
by a new one, as a fleet of machines would. Skipped without the redis-server binary or the
redis Python client (scripts/setup.sh installs both)."""

import json
import shutil
import socket
import subprocess
import sys
import time
import warnings

import pytest

from kiln_test_setup import skip_unless_installed

from test_autotune import _run, pytestmark  # noqa: F401  (pytestmark: the runtime skip)

try:
    import redis
except ImportError:
    redis = None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    """A redis-server of this test's own: (its URL, a client)."""
    binary = shutil.which("redis-server")
    if binary is None or redis is None:
        skip_unless_installed("needs redis-server and the redis Python client (python3-redis)")
    folder = tmp_path / "redis"
    folder.mkdir()
    port = _free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1",
                             "--save", "", "--appendonly", "no", "--dir", str(folder)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(port=port, socket_timeout=5)
    try:
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if proc.poll() is not None:
                    pytest.fail(f"redis-server exited with {proc.returncode}")
                time.sleep(0.05)
        else:
            pytest.fail("redis-server did not answer within 5 seconds")
        yield f"redis://127.0.0.1:{port}/0", client
    finally:
        client.close()
        proc.terminate()
        proc.wait(timeout=10)


# The stored tuning of test_autotune's CACHED, on the Redis server at URL.
SHARED = r'''
store = kiln.autotune.RedisTuningCache(URL)
k, seen = tuned(fastest=256, cache_results=store)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    start = time.perf_counter()
    k[(1,)](Tensor(0x10000), Tensor(0x20000), 100)
    k.run(Tensor(0x10000), Tensor(0x20000), 5000, grid=(4,))  # another key
    elapsed = time.perf_counter() - start
out(seen=seen, best=k.best_config.kwargs, compiles=fc.compiles, threads=threads(),
    warnings=[str(w.message) for w in caught], report=len(k.report()), elapsed=elapsed)
'''


def _shared(url, tmp_path, code=SHARED):
    return _run(f"import time\nURL = {url!r}\n" + code, tmp_path)


def _keys(client):
    return sorted(k.decode() for k in client.keys("kiln:autotune:*"))


def test_a_tuning_stored_by_one_process_is_launched_by_another(server, tmp_path):
    url, client = server
    first = _shared(url, tmp_path)
    assert first["seen"] == [128, 256, 128, 256] and first["compiles"] == 2
    assert first["warnings"] == [] and first["report"] == 2
    keys = _keys(client)
    assert len(keys) == 2  # one per tuning key
    stored = json.loads(client.get(keys[0]))
    assert stored["best"] == {"BLOCK": 256, "num_warps": 8, "num_ctas": 1, "num_stages": 3}
    assert client.ttl(keys[0]) == -1  # no ttl asked: kept
    assert not (tmp_path / "kiln-cache" / "autotune").exists()  # Redis, not the disk
    # A new process: no benchmark and no compile (the kernel cache has the winner).
    second = _shared(url, tmp_path)
    assert {k: second[k] for k in ("seen", "best", "compiles", "threads", "warnings",
                                   "report")} == {
        "seen": [], "best": {"BLOCK": 256}, "compiles": 0, "threads": 256, "warnings": [],
        "report": 0}
    # Another machine (an empty kernel cache, the kernel at the same path): only the
    # winner is compiled, nothing is timed.
    shutil.rmtree(tmp_path / "kiln-cache")
    third = _shared(url, tmp_path)
    assert third["seen"] == [] and third["compiles"] == 1 and third["threads"] == 256


def test_corrupt_or_foreign_entries_are_ignored_with_a_warning(server, tmp_path):
    url, client = server
    code = SHARED.replace("    k.run(Tensor(0x10000), Tensor(0x20000), 5000, grid=(4,))"
                          "  # another key\n", "")
    _shared(url, tmp_path, code)
    key, = _keys(client)
    client.set(key, b"\x00not json")
    r = _shared(url, tmp_path, code)
    assert r["seen"] == [128, 256] and r["best"] == {"BLOCK": 256}
    assert len(r["warnings"]) == 1 and "ignoring the stored tuning of scale" in r["warnings"][0]
    # A well-formed entry naming a config that is not one of the kernel's: not trusted.
    entry = json.loads(client.get(key))
    entry["best"] = {"BLOCK": 4096, "num_warps": 1}
    client.set(key, json.dumps(entry))
    r = _shared(url, tmp_path, code)
    assert r["seen"] == [128, 256] and "not one of the current configs" in r["warnings"][0]
    assert json.loads(client.get(key))["best"]["BLOCK"] == 256  # rewritten by the tuning


def test_the_key_separates_kernels_devices_and_targets(server, tmp_path):
    url, client = server
    r = _shared(url, tmp_path, r"""
store = kiln.autotune.RedisTuningCache(URL, prefix="kiln:autotune:", ttl=3600)


@kiln.jit
def scale3(x, out, n, BLOCK: kl.constexpr):
    layout: kl.constexpr = kl.BlockedLayout([1], [32], [kl.num_warps()], [0])
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK, layout)
    kl.store(out + offs, kl.load(x + offs, mask=offs < n) * 3.0, mask=offs < n)


type(driver).info = property(lambda self: {"name": self.device})
runs, store_keys = [], []
for fn, device in ((scale, "H100"), (scale3, "H100"), (scale, "H200"), (scale, "H100")):
    driver.device = device
    do_bench, seen = by_threads(256)
    k = kiln.autotune([C4, C8], key=["n"], do_bench=do_bench, compile_workers=1,
                      cache_results=store)(fn)
    k[(1,)](Tensor(0x10000), Tensor(0x20000), 100)
    runs.append(len(seen))
    store_keys.append(k._store_key(k._last_key, k.configs))
driver.target = "hip:gfx942"  # the key only: this kernel's layout is for 32-thread warps
store_keys.append(k._store_key(k._last_key, k.configs))
out(runs=runs, store_keys=store_keys)
""")
    # Each kernel and each device tunes once; the first again is a hit.
    assert r["runs"] == [2, 2, 2, 0]
    keys = _keys(client)
    assert keys == sorted("kiln:autotune:" + k for k in set(r["store_keys"][:4]))
    assert len(set(r["store_keys"])) == 4  # another target, another entry
    assert all(0 < client.ttl(k) <= 3600 for k in keys)


def test_an_unreachable_server_warns_once_and_tunes_without_it(tmp_path):
    if redis is None:
        skip_unless_installed("needs the redis Python client (python3-redis)")
    port = _free_port()  # nothing listens there
    r = _shared(f"redis://:hunter2@127.0.0.1:{port}/0", tmp_path)
    assert r["seen"] == [128, 256, 128, 256] and r["best"] == {"BLOCK": 256}
    assert len(r["warnings"]) == 1, r["warnings"]  # once, though both keys missed
    message = r["warnings"][0]
    assert "cannot be used" in message and f"redis://127.0.0.1:{port}/0" in message
    assert "hunter2" not in message
    assert r["elapsed"] < 2.0


def test_a_server_that_never_answers_costs_one_timeout():
    if redis is None:
        skip_unless_installed("needs the redis Python client (python3-redis)")
    from kiln.autotune import RedisTuningCache, TuningCacheWarning
    with socket.socket() as silent:  # accepts connections (the backlog), never replies
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        store = RedisTuningCache(port=silent.getsockname()[1], host="127.0.0.1",
                                 timeout=0.3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            start = time.perf_counter()
            assert store.get("a" * 64) is None
            first = time.perf_counter() - start
            store.put("a" * 64, b"{}")
            assert store.get("b" * 64) is None
            total = time.perf_counter() - start
    assert 0.2 < first < 2.0 and total - first < 0.1  # afterwards: no more waiting
    assert [w.category for w in caught] == [TuningCacheWarning]
    assert "Timeout" in str(caught[0].message)


def test_without_the_redis_client_the_error_names_the_package(monkeypatch):
    from kiln.autotune import RedisTuningCache
    monkeypatch.setitem(sys.modules, "redis", None)  # `import redis` raises ImportError
    with pytest.raises(ImportError, match="python3-redis"):
        RedisTuningCache("redis://127.0.0.1:1/0")


def test_an_environment_variable_points_cached_tuning_at_the_server(server, tmp_path):
    # KILN_AUTOTUNE_CACHE=redis://... sends every cache_results=True tuning of a process to
    # the shared server, without editing the kernels' decorators.
    url, client = server
    code = r'''
import os
os.environ["KILN_AUTOTUNE_CACHE"] = URL
k, seen = tuned(fastest=256, cache_results=True)
k[(1,)](Tensor(0x10000), Tensor(0x20000), 100)
out(seen=seen, backend=type(k.tuning_cache).__name__)
'''
    first = _shared(url, tmp_path, code)
    assert first["backend"] == "RedisTuningCache" and first["seen"] == [128, 256]
    assert len(_keys(client)) == 1
    assert not (tmp_path / "kiln-cache" / "autotune").exists()
    second = _shared(url, tmp_path, code)
    assert second["seen"] == []
