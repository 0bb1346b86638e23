"""The scripts' plumbing, not a command and not the library: what every script of scripts/ shares.

- :mod:`plumbing.cli`: the parser, the shared flags and flag types, the up-front checks of every path, the
  entry :func:`plumbing.cli.run` (Ctrl-C is one line and status 130) and the JSON summary;
- :mod:`plumbing.figures`: figures (pyplot on Agg, written by the one writer) and TensorBoard scalar logs.

Every script puts its own folder on ``sys.path`` (where this package and :mod:`peers` live: ``sys.path[0]``
when it runs, not when a test loads it by path) and imports :mod:`plumbing.cli` first, before its slower imports,
so the hook it installs makes a Ctrl-C during them one line.
"""
