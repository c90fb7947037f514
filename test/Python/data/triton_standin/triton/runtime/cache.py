"""Triton's cache manager as the autotuner uses it: files under a folder named by a key, in
$TRITON_CACHE_DIR (else ~/.triton/cache)."""

import os


def triton_key():
    return "triton-standin-3.6"


class FileCacheManager:
    def __init__(self, key):
        root = os.environ.get("TRITON_CACHE_DIR") or os.path.join(
            os.path.expanduser("~"), ".triton", "cache")
        self.cache_dir = os.path.join(root, key)

    def get_file(self, filename):
        path = os.path.join(self.cache_dir, filename)
        return path if os.path.exists(path) else None

    def put(self, data, filename, binary=True):
        os.makedirs(self.cache_dir, exist_ok=True)
        path = os.path.join(self.cache_dir, filename)
        with open(path, "wb" if binary else "w") as f:
            f.write(data)
        return path


def get_cache_manager(key):
    return FileCacheManager(key)
