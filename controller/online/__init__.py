"""Online play from the board: one client for lichess's Board API and for the fairyboard
server, which offers the same shape (``../docs/online.md``): :mod:`.api` speaks HTTP and
NDJSON, :mod:`.game` holds the server's game as values and plans how the board catches
up, :mod:`.seat` is the online opponent's seat at the board."""
