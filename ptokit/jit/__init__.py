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


jit.incore = incore
jit.inline = inline
jit.opaque = opaque

__all__ = ["jit", "incore", "inline", "opaque", "JitHelper"]
