"""``fairyboard server``: the club's server in one process — the store (SQLite by default,
PostgreSQL by configuration), the accounts, the hub of games with the referee of the
hidden-information games, the Board API and the pages (docs/server.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

from argon2 import PasswordHasher
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from controller.link.referee import Referee, RefereeJournal
from controller.server.accounts import Accounts
from controller.server.api import BoardRoutes, unavailable
from controller.server.broker import BrokerError, BrokerFiles, BrokerUser, LocalBroker
from controller.server.cluster import ClusterHub, ClusterSettings
from controller.server.dynsec import DynamicSecurity
from controller.server.export import ExportRoutes
from controller.server.hub import Hub
from controller.server.linkbridge import LinkBridge, bridge_settings, cluster_bridge
from controller.server.pages import Pages
from controller.server.store import (
    SQLITE_DEFAULT,
    Store,
    StoreError,
    Unavailable,
    open_store,
)

log = logging.getLogger("fairyboard.server")

#: how often the server looks for a clock that has run out with nobody watching
CLOCK_CHECK_S = 0.25


@dataclass
class Server:
    """The parts of one running server (tests reach in; the CLI only runs it)."""

    store: Store
    accounts: Accounts
    hub: Hub
    app: Starlette
    broker_files: BrokerFiles
    #: the boards' broker logins as the store has them now
    logins: Callable[[], list[BrokerUser]]
    #: the server's own Mosquitto (``--broker-port``): started and stopped by :func:`serve`
    broker: LocalBroker | None = None
    #: the linked boards' way into the hub's games (with the server's own broker, or the
    #: cluster's with ``--link-boards``)
    bridge: LinkBridge | None = None
    #: the boards' logins at the cluster's broker (``--link-boards``)
    dynsec: DynamicSecurity | None = None


def build(data_dir: str | Path, database: str | None = None, keepalive_s: float = 2.0,
          hasher: PasswordHasher | None = None, dice: random.Random | None = None,
          referee_seed: str | None = None, broker_port: int | None = None,
          broker_host: str = "127.0.0.1", cluster: ClusterSettings | None = None,
          use_referees: bool = False, link_boards: bool = False) -> Server:
    """The server on ``database`` (default: a SQLite file in ``data_dir``), its referee's
    journal in ``data_dir``; unfinished games resumed.  The boards' broker logins are kept
    in ``data_dir`` (``broker.passwd``, ``broker.acl``) and, with ``broker_port``, served by
    the server's own Mosquitto there.  ``hasher``, ``dice`` and
    ``referee_seed`` (the hidden set-ups drawn from it and the game's number) make tests
    repeatable; the product draws everything at random.  ``cluster``: this process is
    one worker of several on one PostgreSQL and the broker named (docs/server.md,
    "Growing past one machine"): the referee's truth is in the store, not a journal;
    ``use_referees``: referee processes of their own judge its hidden-information games
    (``controller/server/refereeing.py``); ``link_boards``: this worker also plays the
    referee's part for boards linked over MQTT on the cluster's broker (``linkbridge.py``;
    on one process ``broker_port`` does)."""
    folder = Path(data_dir)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    if cluster is not None and not (database or "").startswith(("postgresql://",
                                                                 "postgres://")):
        raise StoreError("--cluster needs PostgreSQL (--database postgresql://…): a SQLite "
                         "file serves one process")
    if cluster is not None and broker_port:
        raise StoreError("--cluster and --broker-port: the workers cannot share a broker one "
                         "of them runs; run the club's broker apart, name it in --cluster "
                         "and add --link-boards")
    if link_boards and cluster is None:
        raise StoreError("--link-boards is for a worker of --cluster (one process links "
                         "boards with --broker-port)")
    store = open_store(database or str(folder / SQLITE_DEFAULT))
    journal = RefereeJournal(folder / "referee.json") if cluster is None else None
    referee = Referee("server", journal, seed=referee_seed,
                      numbered=referee_seed is not None)
    if cluster is None:
        hub: Hub = Hub(store, referee, dice=dice)
    elif use_referees:
        from controller.server.refereeing import RefereedClusterHub

        hub = RefereedClusterHub(store, referee, cluster, dice=dice)
    else:
        hub = ClusterHub(store, referee, cluster, dice=dice)
    accounts = Accounts(store, hasher, shared=cluster is not None)
    files = BrokerFiles(folder, referee.club)
    broker = LocalBroker(files, broker_port, broker_host) if broker_port else None
    bridge: LinkBridge | None = None
    dynsec: DynamicSecurity | None = None
    if broker_port:
        bridge = LinkBridge(hub, bridge_settings(broker_host, broker_port, files.club,
                                                 files.referee_secret()), folder)
    elif cluster is not None and link_boards:
        bridge = cluster_bridge(hub, cluster.host, cluster.port, files.club, cluster.worker,
                                cluster.username, cluster.password, folder)
        dynsec = DynamicSecurity(cluster.host, cluster.port, cluster.worker,
                                 cluster.username, cluster.password, files.club,
                                 lambda: [name for name, _ in store.broker_logins()])

    def logins() -> list[BrokerUser]:
        return [BrokerUser(name, hashed) for name, hashed in store.broker_logins()]

    def provision(device: str, token: str | None) -> None:
        if broker is not None:
            broker.provision(logins())
        else:
            files.write(logins())

    accounts.device_listeners.append(provision)
    if dynsec is not None:
        accounts.device_listeners.append(dynsec.device_changed)
    board = BoardRoutes(hub, accounts, keepalive_s)
    pages = Pages(hub, accounts)
    static = Path(__file__).parent / "static"

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        resumed = hub.resume()
        if broker is None:  # (the server's own broker writes them as it starts)
            files.write(logins())
        log.info("server ready", extra={"store": store.kind, "games_resumed": resumed})
        tasks = [asyncio.create_task(_watch_clocks(hub))]
        if dynsec is not None:  # (first: the worker's other logins need the server's role)
            try:
                await asyncio.to_thread(dynsec.start)
            except BrokerError as exc:
                log.error("boards' logins not settled", extra={"problem": str(exc)[:200]})
        if isinstance(hub, ClusterHub):
            hub.start_cluster()
            tasks.append(asyncio.create_task(hub.run_cluster()))
        if bridge is not None:
            bridge.start()
            tasks.append(asyncio.create_task(bridge.run()))
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            if bridge is not None:
                bridge.close()
            if dynsec is not None:
                dynsec.close()
            pages.close()
            hub.close()

    async def health(request) -> JSONResponse:
        health = {"ok": True, "store": store.kind, "games": len(hub.games)}
        if cluster is not None:
            health["worker"] = cluster.worker
        return JSONResponse(health)

    app = Starlette(routes=[*board.routes(), *pages.routes(), *ExportRoutes(store, hub.io).routes(),
                            Route("/health", health),
                            Mount("/static", StaticFiles(directory=static), name="static"),
                            pages.open_challenge_route()],
                    lifespan=lifespan, exception_handlers={Unavailable: unavailable})
    return Server(store, accounts, hub, app, files, logins, broker, bridge, dynsec)


async def _watch_clocks(hub: Hub) -> None:
    while True:
        await asyncio.sleep(CLOCK_CHECK_S)
        due = [g for g in hub.games.values() if hub.out_of_time(g)]
        if due:  # (each game under its own lock: a slow one holds up only itself)
            for problem in await asyncio.gather(*(hub.check_time(g) for g in due),
                                                return_exceptions=True):
                if isinstance(problem, Exception):  # (the store down): tried again next time
                    log.error("a clock's end not stored", extra={"problem": str(problem)[:200]})


def settle_collector() -> None:
    """The garbage collector's pauses out of the moves' way: the heap built at start
    (modules, rules tables, the store's games) frozen, so no full collection walks it again,
    and the young generation collected every 50,000 allocations instead of 700 (a server
    allocates fast; each collection stops every game's loop). Measured in
    ``benchmarks/server_load.py`` (``FAIRYBOARD_LOAD_GC_TRACE``)."""
    import gc

    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(50_000, older, oldest)


def serve(data_dir: str | Path, host: str = "127.0.0.1", port: int = 8090,
          database: str | None = None, sock: socket.socket | None = None,
          broker_port: int | None = None, cluster: ClusterSettings | None = None,
          use_referees: bool = False, link_boards: bool = False) -> None:
    """Run the server until interrupted (``fairyboard server``)."""
    import uvicorn

    from controller.web.server import SilentClosingH11

    server = build(data_dir, database, broker_port=broker_port,
                   broker_host="127.0.0.1" if host in ("127.0.0.1", "localhost") else host,
                   cluster=cluster, use_referees=use_referees, link_boards=link_boards)
    config = uvicorn.Config(server.app, host=host, port=port, log_level="warning",
                            log_config=None, http=SilentClosingH11, lifespan="on")
    if server.broker is not None:
        server.broker.start(server.logins())
    settle_collector()
    log.info("serving", extra={"url": f"http://{host}:{port}/", "data": str(data_dir)})
    try:
        uvicorn.Server(config).run(sockets=[sock] if sock else None)
    finally:
        if server.broker is not None:
            server.broker.stop()
