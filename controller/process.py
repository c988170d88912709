"""``fairyboard run``: the process around the board service.

Reading the configuration, binding the page's socket before anything starts, logging
(one JSON object per line, or text for a terminal), the asyncio loop that polls the board
(:class:`controller.service.BoardService`) at its scan rate, uvicorn serving the page on
the same loop, and SIGINT/SIGTERM.  The service itself never learns that it is served:
this module is, with ``controller/web/``, the only one that imports the page.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

from controller.config import ConfigError, apply_overrides, load_config
from controller.journal import JournalError
from controller.layout import LayoutError
from controller.leds.palette import LedError
from controller.rules import RulesError
from controller.sensing.frame import SensingError
from controller.service import BoardService, JournalWriteError

log = logging.getLogger("fairyboard.service")

EXIT_BAD_CONFIG = 2
#: the loop's period while the simulated board rests (LED blinks still look smooth)
RESTING_PERIOD_S = 0.05

#: Errors that mean "this configuration cannot run": one line, exit status 2.
STARTUP_ERRORS = (ConfigError, LayoutError, LedError, RulesError, SensingError, JournalError,
                  OSError, ValueError)


# ---------------------------------------------------------------------------------
# logging: one JSON object per line on stderr (journald keeps them as they are)

_RESERVED = frozenset(vars(logging.makeLogRecord({})).keys()) | {"message", "asctime",
                                                                 "color_message"}


def _extra(record: logging.LogRecord) -> dict[str, Any]:
    return {k: v for k, v in record.__dict__.items()
            if k not in _RESERVED and not k.startswith("_")}


class JsonFormatter(logging.Formatter):
    """``{"ts": …, "level": …, "logger": …, "msg": …, <extra fields>}`` per record."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        out.update(_extra(record))
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """``time level logger: message  key=value …`` for a terminal."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%H:%M:%S", time.localtime(record.created))
        line = f"{stamp} {record.levelname.lower():<7} {record.name}: {record.getMessage()}"
        extra = " ".join(f"{k}={v}" for k, v in _extra(record).items())
        if extra:
            line += f"  {extra}"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def setup_logging(level: str = "info", fmt: str = "json",
                  stream: Any = None) -> logging.Handler:
    """Route our records and uvicorn's through one handler on stderr (returned, so a
    caller running in process can remove it again)."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    root.addHandler(handler)
    root.setLevel(getattr(logging, level.upper()))
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        lg = logging.getLogger(name)
        lg.handlers.clear()
        lg.propagate = True
    # one line per HTTP request, and one per state-machine transition (the ``transitions``
    # library logs every trigger at info: 69 % of the log's bytes), are noise at info level
    quiet = logging.DEBUG if level == "debug" else logging.WARNING
    logging.getLogger("uvicorn.access").setLevel(quiet)
    logging.getLogger("transitions").setLevel(quiet)
    return handler


# ---------------------------------------------------------------------------------
# run


def _fail(message: str) -> int:
    print(f"fairyboard: error: {message}", file=sys.stderr)
    return EXIT_BAD_CONFIG


def _message(exc: BaseException) -> str:
    text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    return " ".join(text.split())  # one line, whatever the error text holds


def run_service(args: Any) -> int:
    """``fairyboard run``: start, serve until SIGINT/SIGTERM, shut down cleanly."""
    try:
        config = load_config(getattr(args, "config", None))
        apply_overrides(config, layout=getattr(args, "layout", None),
                        game=getattr(args, "game", None),
                        web_port=getattr(args, "web_port", None),
                        web_host=getattr(args, "web_host", None),
                        journal=getattr(args, "journal", None),
                        log_format=getattr(args, "log_format", None))
    except ConfigError as exc:
        return _fail(_message(exc))
    web = config.web
    try:
        sock = _listen(web.host, web.port) if web.enabled else None
    except OSError as exc:
        return _fail(f"web: cannot listen on {web.host}:{web.port}: "
                     f"{exc.strerror or exc}")
    handler = setup_logging(config.log.level, config.log.format)
    try:
        try:
            service = BoardService(config)
        except JournalWriteError as exc:  # a full disk: status 1, systemd tries again
            print(f"fairyboard: error: {_message(exc)}", file=sys.stderr)
            return 1
        except STARTUP_ERRORS as exc:
            return _fail(_message(exc))
        # what start-up built (rules tables, layouts, the page) lives as long as the
        # service: moved out of the collector's sight, a full collection no longer walks it
        # — those walks were the 40–60 ms pauses after a move (docs/performance.md)
        gc.collect()
        gc.freeze()
        try:
            status = asyncio.run(_serve(service, sock, getattr(args, "config", None)))
        finally:
            service.close()
            log.info("stopped", extra={"game_id": service.game_id})
        return status
    finally:
        logging.getLogger().removeHandler(handler)
        if sock is not None:
            sock.close()


def _listen(host: str, port: int) -> socket.socket:
    """The page's listening socket, bound before anything starts: a busy port or a bad
    address is a start-up error (one line, exit status 2), not a crash later."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(False)
    return sock


async def _serve(service: BoardService, sock: socket.socket | None = None,
                 config_path: str | None = None) -> int:
    """Run until a signal (exit status 0) or a failure of the board loop (1); the page is
    served on ``sock`` (none: no web page) and saves the owner's settings to
    ``config_path``."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    server: Any = None

    def request_stop(sig: int) -> None:
        log.info("stopping", extra={"signal": signal.Signals(sig).name})
        service.stopping = True
        stop.set()
        if server is not None:
            server.should_exit = True

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, request_stop, sig)

    def failed() -> None:  # a journal write failed, in the board loop or a page request
        stop.set()
        if server is not None:
            server.should_exit = True

    service.on_failure = failed
    if service.failure is not None:  # failed before the loop ran
        failed()

    tasks = [asyncio.create_task(_poll(service, stop))]
    if sock is not None:
        server = _make_server(service, config_path)
        tasks.append(asyncio.create_task(server.serve(sockets=[sock])))
        tasks.append(asyncio.create_task(_announce(server)))
    log.info("started", extra={
        "layout": service.layout.name, "game": service.game.name,
        "game_id": service.game_id, "sensing": service.sensing.name,
        "leds": service.config.leds.driver, "journal": str(service.journal.folder),
        "resumed": service.resume_offer is not None})
    await stop.wait()
    if server is not None:
        server.should_exit = True
    done, pending = await asyncio.wait(tasks, timeout=5.0)
    for task in pending:
        task.cancel()
    status = 0 if service.failure is None else 1
    for task in done:
        if not task.cancelled() and task.exception() is not None:
            log.error("task failed", exc_info=task.exception())
            status = 1
    return status


async def _poll(service: BoardService, stop: asyncio.Event) -> None:
    """Poll at the scan rate; a journal that cannot be written stops the service."""
    period = service.sensing.period
    while not stop.is_set():
        started = time.monotonic()
        try:
            service.sensing.catch_up()
            service.tick()
        except OSError as exc:  # the journal refused a record: stop with status 1
            if service.failure is None:
                service.fail(f"journal write failed: {exc.strerror or exc}")
            stop.set()
            return
        except SensingError as exc:
            log.warning("sensing error", extra={"problem": str(exc)})
        except Exception:
            log.exception("board loop error")
        wait = RESTING_PERIOD_S if service.sensing.resting and not service.busy else period
        await asyncio.sleep(max(0.0, wait - (time.monotonic() - started)))


#: open connections (page requests and websockets) the web server takes at once
MAX_CONNECTIONS = 100


def _make_server(service: BoardService, config_path: str | None = None) -> Any:
    import uvicorn

    from controller.web.app import create_app
    from controller.web.guard import Guard, policy_for
    from controller.web.server import SilentClosingH11

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self):  # the service handles SIGINT/SIGTERM itself
            yield

    web = service.config.web
    token_path = Path(service.config.journal.path).expanduser().parent / "pairing-token"
    policy = policy_for(web.host, web.allowed_hosts, web.allowed_origins, token_path)
    if policy.token:
        log.warning("pairing code", extra={
            "code": policy.token, "hint": "the page is served to the network: enter this "
            "code on a new browser (or open /?token=CODE)"})
    # limits: idle connections are closed soon, and past this many the server answers 503
    # instead of running out of file descriptors (the unit sets LimitNOFILE above it)
    config = uvicorn.Config(Guard(create_app(service, config_path), policy), log_config=None,
                            access_log=False, lifespan="off", timeout_graceful_shutdown=2,
                            http=SilentClosingH11, limit_concurrency=MAX_CONNECTIONS,
                            timeout_keep_alive=5,
                            ws_max_size=64 * 1024, h11_max_incomplete_event_size=16 * 1024)
    return Server(config)


async def _announce(server: Any) -> None:
    """Log the page's address once the socket is bound (port 0 picks a free one)."""
    while not server.started:
        if server.should_exit:
            return
        await asyncio.sleep(0.02)
    for s in server.servers:
        for sock in s.sockets:
            host, port = sock.getsockname()[:2]
            log.info("web page", extra={"url": f"http://{host}:{port}/", "port": port})


__all__ = ["JsonFormatter", "MAX_CONNECTIONS", "run_service", "setup_logging"]
