"""Pure functions the explorer UI shows: display strings, span layout, stats, search, metadata.

Nothing here imports textual; every function takes plain data (strings, numpy arrays,
``Token`` lists) and returns frozen dataclasses or arrays, so it is tested without a UI.
"""
