"""A whole game through the fairyboard server on a real PostgreSQL (loopback): the same
server as on SQLite, every ply stored once — and the database restarted mid-game: the
moves made meanwhile are refused in one line, the server connects again, nothing is lost
or doubled."""

from __future__ import annotations

import pytest

from controller.online.api import OnlineError
from tests.support.clubserver import ClubServer, challenge_game, play


def test_a_whole_game_on_postgresql_through_a_database_restart(tmp_path):
    from tests.support.postgres import BIN, Postgres

    pg = Postgres().start()
    club = ClubServer(tmp_path, database=pg.url).start()
    pg_ctl = [str(BIN / "pg_ctl"), "-D", str(pg.data), "-w"]
    try:
        a, b = club.player("alice"), club.player("bob")
        gid, api_a, api_b = challenge_game(club, a, b, "lotus39-modern")
        g = club.hub.games[gid]
        first = g.game.legal_moves(g.pos)[0]
        pg._run(*pg_ctl, "-m", "immediate", "stop")  # the database dies mid-game
        text = g.game.long_move_text(g.pos, first)
        with pytest.raises(OnlineError, match="cannot be reached now"):
            api_a.move(gid, text)
        assert g.ply == 0
        pg._run(*pg_ctl, "-l", str(pg.folder / "log"), "-o",
                f"-p {pg.port} -k {pg.folder} -h 127.0.0.1 -F", "start")
        api_a.move(gid, text)  # connected again
        play(club, [api_a, api_b], gid)
        assert g.ended and club.server.store.kind == "postgresql"
        assert club.server.store.moves(gid) == g.moves and g.moves[0] == text
        assert club.server.store.game(gid).status == g.status
    finally:
        club.stop()
        pg.stop()
