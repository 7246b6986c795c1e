""".NET-side code for what must not pass through pythonnet's conversion.

- ``expr``: a small typed builder over System.Linq.Expressions, and the
  per-process cache of the delegates it compiles
- ``bridge``: the compiled delegates that hand a Python-defined .NET object
  (IPythonDerivedType) to Python only as a WeakReference, and take it back
- ``derived``: ``DerivedHandle``, the probe's element for such an object, and
  the reads, calls and type tests that work alike on handles and on plain
  pythonnet objects
- ``lazy``: .NET namespaces whose classes pythonnet builds on first use
  (``clr_namespace``), their ``System.Type`` objects for type tests that
  build no class, and ``is_instance`` to test with those

Import it only once a CLR is loaded (``wpfprobe_clr.ensure_clr``).
"""
