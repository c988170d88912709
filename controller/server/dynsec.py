"""The boards' logins at a club broker the server does not run (cluster mode, ``--cluster
HOST:PORT --link-boards``; docs/server.md, "Linked boards join the server's games").

The workers cannot write a password file that broker reads, so each one logs in as the
broker's dynamic-security admin (``FAIRYBOARD_SERVER_CLUSTER_USER``/``_PASSWORD``) and
commands Mosquitto's dynamic-security plugin on ``$CONTROL/dynamic-security/v1``:

* **a token issued** (on whichever worker's *Your boards* page): a broker client named
  by the device id, its token as password, its client id bound to that name, and a role of
  its own holding the linked boards' access rules of docs/link.md for that device (the
  plugin of Mosquitto 2.0 has no ``%u`` in its rules: one role per board);
* **a token revoked**: that client and its role deleted — Mosquitto drops the board's
  connection at once and refuses its next login;
* **at start and at every reconnection**: every board client the store no longer has as
  unrevoked deleted (a revocation the broker missed while it was away), and the server's
  own role (the club's topics, the cluster's, the shared subscriptions) given to the admin.

The broker learns a token only when it is issued (the store keeps its hashes, never the
token, and the plugin takes a password in clear): a token issued while no worker reached
the broker has no broker login — the page says so, and the owner makes a new one.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
from collections.abc import Callable
from typing import Any

from controller.link.messages import ROOT, check_name
from controller.server.broker import BrokerError

log = logging.getLogger("fairyboard.server.dynsec")

CONTROL = "$CONTROL/dynamic-security/v1"
RESPONSES = f"{CONTROL}/response"
#: the role the workers' login is given: the whole club, its cluster topics and shares
SERVER_ROLE = "fairyboard-server"
#: a board's own role is this prefix and its device id
BOARD_ROLE = "fairyboard-board-"
#: how long a command waits for the plugin's answer
ANSWER_S = 5.0


def _acl(kind: str, topic: str, allow: bool = True, priority: int = 1) -> dict[str, Any]:
    return {"acltype": kind, "topic": topic, "allow": allow, "priority": priority}


def server_acls(club: str) -> list[dict[str, Any]]:
    base = f"{ROOT}/{check_name('link.club', club)}"
    return [_acl("publishClientSend", f"{base}/#"), _acl("publishClientReceive", f"{base}/#"),
            _acl("subscribePattern", f"{base}/#"),
            _acl("subscribePattern", f"$share/+/{base}/#")]


def board_acls(club: str, device: str) -> list[dict[str, Any]]:
    """docs/link.md's rules for one board: it writes only under its own name (presence,
    its games, its attempts and requests), reads every board's topics, the refereed
    games' public ones and its own view — nothing else of the club reaches it."""
    base = f"{ROOT}/{check_name('link.club', club)}"
    check_name("board", device)
    return [_acl("publishClientSend", f"{base}/boards/{device}/#"),
            _acl("publishClientSend", f"{base}/seats/{device}/attempt"),
            _acl("publishClientSend", f"{base}/seats/{device}/request"),
            _acl("subscribePattern", f"{base}/#"),
            _acl("publishClientReceive", f"{base}/boards/#"),
            _acl("publishClientReceive", f"{base}/games/#"),
            _acl("publishClientReceive", f"{base}/seats/{device}/view"),
            _acl("publishClientReceive", "#", allow=False, priority=0)]


def _rules(acls: Any) -> set[tuple[Any, ...]]:
    return {(a.get("acltype"), a.get("topic"), a.get("priority"), a.get("allow"))
            for a in acls if isinstance(a, dict)} if isinstance(acls, list) else set()


class DynamicSecurity:
    """One worker's admin login at the broker's dynamic-security plugin (paho, QoS 1):
    commands sent with correlation data, each waited for (from a thread of the store's,
    never the event loop's)."""

    def __init__(self, host: str, port: int, worker: str, username: str, password: str,
                 club: str, devices: Callable[[], list[str]]) -> None:
        import paho.mqtt.client as mqtt

        self.club = check_name("link.club", club)
        self.username = username
        self._devices = devices  #: the store's unrevoked devices that have a broker login
        self._answers: dict[str, dict[str, Any]] = {}
        self._answered = threading.Condition()
        self._ready = threading.Event()
        self._started = False  #: settled once (by :meth:`start`): a reconnection settles again
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                             client_id=f"fairyboard-dynsec-{worker}", clean_session=True)
        client.username_pw_set(username, password or None)
        client.reconnect_delay_set(min_delay=1, max_delay=10)
        client.on_connect = self._on_connect
        client.on_subscribe = self._on_subscribe
        client.on_message = self._on_message
        self.client = client
        self.host, self.port = host, port

    # -- paho's thread -------------------------------------------------------------------
    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            log.warning("dynamic security: the broker refused the admin's login",
                        extra={"reason": str(reason_code)})
            return
        client.subscribe(RESPONSES, qos=1)

    def _on_subscribe(self, client, userdata, mid, reason_codes, properties) -> None:
        if any(code.is_failure for code in reason_codes):
            log.error("dynamic security: the admin may not read the plugin's answers")
            return
        self._ready.set()
        if self._started:  # (a command waits for an answer paho's thread brings: not on it)
            threading.Thread(target=self._settle, daemon=True).start()

    def _on_message(self, client, userdata, msg) -> None:
        try:
            responses = json.loads(msg.payload)["responses"]
        except (ValueError, KeyError, TypeError):
            return
        with self._answered:
            for r in responses if isinstance(responses, list) else ():
                if isinstance(r, dict) and isinstance(r.get("correlationData"), str):
                    self._answers[r["correlationData"]] = r
            self._answered.notify_all()

    # -- running -------------------------------------------------------------------------
    def start(self, timeout_s: float = 10.0) -> None:
        """Connect and settle (:meth:`settle`) before the worker's other logins use the
        server's role; paho retries until the broker is up, and every reconnection
        settles again.  One line if the broker or its plugin does not answer."""
        self.client.connect_async(self.host, self.port, keepalive=10)
        self.client.loop_start()
        try:
            if not self._ready.wait(timeout_s):
                raise BrokerError("the broker's dynamic security cannot be reached now")
            self.settle()
        finally:
            self._started = True

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def _settle(self) -> None:
        try:
            self.settle()
        except BrokerError as exc:
            log.error("dynamic security not settled", extra={"problem": str(exc)[:200]})

    def settle(self) -> None:
        """The server's role given to the admin; every board client the store no longer
        has (revoked while the broker was away) deleted.  Nothing is changed that is as it
        should be: the plugin drops every connection of a login whose roles change (the
        first worker's settling drops the others' admin logins once; they reconnect)."""
        self._ensure_role(SERVER_ROLE, server_acls(self.club))
        if not self._admin_has_role():
            try:  # (the plugin drops this login as it answers: the command is sent again
                #    when it reconnects, and that copy is told the role is held already)
                self.command({"command": "addClientRole", "username": self.username,
                              "rolename": SERVER_ROLE})
            except BrokerError:
                if not self._admin_has_role():
                    raise
        roles = self.command({"command": "listRoles", "verbose": False, "count": -1,
                              "offset": 0})[0].get("data", {}).get("roles", [])
        kept = set(self._devices())
        for role in roles:
            name = role if isinstance(role, str) else (role or {}).get("rolename", "")
            device = name[len(BOARD_ROLE):] if name.startswith(BOARD_ROLE) else None
            if device and device not in kept:
                self.remove_board(device)
        log.info("dynamic security settled", extra={"boards": len(kept)})

    # -- the boards ----------------------------------------------------------------------
    def add_board(self, device: str, token: str) -> None:
        """A board's login: its device id, its token, its own role (docs/link.md)."""
        role = BOARD_ROLE + device
        self._ensure_role(role, board_acls(self.club, device))
        self.command({"command": "createClient", "username": device, "password": token,
                      "clientid": device, "roles": [{"rolename": role, "priority": 1}]})
        log.info("board login made at the broker", extra={"device": device})

    def remove_board(self, device: str) -> None:
        """A revoked board's login and role gone (its connection dropped by the broker)."""
        self.command({"command": "deleteClient", "username": device},
                     allow=("not found",))
        self.command({"command": "deleteRole", "rolename": BOARD_ROLE + device},
                     allow=("not found",))
        log.info("board login removed at the broker", extra={"device": device})

    def device_changed(self, device: str, token: str | None) -> None:
        """(Accounts' device listener) a token issued (``token``) or revoked (None)."""
        if token is not None:
            self.add_board(device, token)
        else:
            self.remove_board(device)

    # -- commands ------------------------------------------------------------------------
    def _admin_has_role(self) -> bool:
        admin = self.command({"command": "getClient", "username": self.username})[0]
        held = admin.get("data", {}).get("client", {}).get("roles", [])
        return any(isinstance(r, dict) and r.get("rolename") == SERVER_ROLE for r in held)

    def _ensure_role(self, role: str, acls: list[dict[str, Any]]) -> None:
        """``role`` with these rules: made, or its rules made these (only if they differ:
        a change drops the connections of every login holding the role)."""
        found = self.command({"command": "getRole", "rolename": role},
                             allow=("not found",))[0]
        if found.get("error"):
            self.command({"command": "createRole", "rolename": role, "acls": acls})
            return
        has = found.get("data", {}).get("role", {}).get("acls", [])
        if _rules(has) != _rules(acls):
            self.command({"command": "modifyRole", "rolename": role, "acls": acls})

    def command(self, command: dict[str, Any], allow: tuple[str, ...] = ()
                ) -> list[dict[str, Any]]:
        """One command, its answer (an error the plugin gives is :class:`BrokerError`
        unless its words contain one of ``allow``)."""
        if not self._ready.wait(ANSWER_S) or not self.client.is_connected():
            raise BrokerError("the broker's dynamic security cannot be reached now")
        tag = secrets.token_hex(8)
        payload = json.dumps({"commands": [{**command, "correlationData": tag}]})
        self.client.publish(CONTROL, payload, qos=1)
        with self._answered:
            if not self._answered.wait_for(lambda: tag in self._answers, ANSWER_S):
                raise BrokerError(f"the broker's dynamic security did not answer "
                                  f"{command['command']}")
            answer = self._answers.pop(tag)
        error = answer.get("error")
        if error and not any(words in str(error) for words in allow):
            raise BrokerError(f"dynamic security: {command['command']}: {str(error)[:80]}")
        return [answer]
