"""``ptokit cache stat | clear | path``: the build cache (g++ objects) and the ``@pl.jit`` cache."""
from __future__ import annotations

import argparse

from ..jit import cache as jit_cache
from ..runtime import build


def cache_main(argv) -> int:
    ap = argparse.ArgumentParser(prog="ptokit cache",
                                 description="the caches: built objects (g++) and @pl.jit compiled programs")
    ap.add_argument("action", choices=["stat", "clear", "path"])
    a = ap.parse_args(argv)
    if a.action == "path":
        print(build.cache_path())
    elif a.action == "stat":
        st = build.cache_stat()
        js = jit_cache.jit_cache_stat()
        print(f"{build.cache_path()}: {build.cache_total_bytes() / 1e6:.1f} MB in all")
        print(f"{st['path']}: {st['objects']} built object(s), {st['bytes'] / 1e6:.1f} MB "
              f"(of which precompiled headers {st['pch_bytes'] / 1e6:.1f} MB)")
        print(f"{js['path']}: {js['entries']} jit entr{'y' if js['entries'] == 1 else 'ies'} "
              f"for {js['functions']} function(s), {js['bytes'] / 1e6:.1f} MB")
    else:
        n = build.cache_clear()
        j = jit_cache.jit_cache_clear()
        print(f"removed {n} built object(s) and {j} jit entr{'y' if j == 1 else 'ies'}")
    return 0
