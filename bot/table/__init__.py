"""What a table is set up with, as typed values: its options (:mod:`.options`).

Both the store and the services use them, so they import nothing of either: only the engine
(:mod:`bot.game`) and :mod:`bot.errors`.
"""
