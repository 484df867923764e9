"""Games: the move log (the truth), one snapshot per game (a cache) and the game's metadata.

Every query on a game's rows and its move log, for both backends, is in this package, so a
change to the schema is made once: :mod:`.records` (what a stored game is), :mod:`.repository`
(``db.games``), :mod:`.writes` (the guarded writes) and :mod:`.loading` (rebuilding games from
their snapshots and logs, and repairing a snapshot that disagrees).
"""
