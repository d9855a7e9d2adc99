"""``@pl.jit``: JIT entry points specialized from their arguments, with a compile cache.

``pl.jit`` (also ``ptokit.jit.jit``) decorates a plain function; ``pl.jit.incore``,
``pl.jit.inline`` and ``pl.jit.opaque`` decorate helpers it calls by name.  See docs/jit.md.
"""
from .helpers import JitHelper, incore, inline, opaque


def jit(fn=None, **options):
    """``@pl.jit`` or ``@pl.jit(platform="a5sim", runtime="host_build_graph", dump_passes=True)``."""
    # lazy: `import ptokit.language` reaches this module (pl.jit), and JitFunction brings in the
    # whole compiler; it loads at the first decoration instead
    from .function import JitFunction

    if fn is None:
        return lambda f: JitFunction(f, **options)
    return JitFunction(fn, **options)


def host(fn=None, **options):
    """``@pl.jit.host``: the host function of a distributed program (jit/host.py)."""
    # lazy: as above, the host function's module brings in the distributed build on first use
    from .host import host as _host
    return _host(fn, **options)


jit.host = host
jit.incore = incore
jit.inline = inline
jit.opaque = opaque

__all__ = ["jit", "host", "incore", "inline", "opaque", "JitHelper"]
