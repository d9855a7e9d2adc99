"""The artifact tree's file formats that more than one stage reads.

Each format has one writer and one reader, here: the backend writes a tree, the runtime and the
``@pl.jit`` cache read it, and neither imports the other to do so.
"""
