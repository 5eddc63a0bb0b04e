"""Example traces produced by TrustGraph's own provenance emitter.

The builders live in :mod:`examples.generate`; with the repository root on
``sys.path`` a corpus generator can ``from examples.generate import
build_graphrag``.
"""
