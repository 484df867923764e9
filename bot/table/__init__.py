"""What a table is set up with, as typed values: its options (:mod:`.options`) and a
tournament's settings for its matches (:mod:`.tournament`).

Both the store (which parses them once, where it loads a row) and the services use them, so they
import nothing of either: only the engine (:mod:`bot.game`) and :mod:`bot.errors`.
"""
