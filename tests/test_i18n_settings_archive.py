"""The last English lines in the page's language (issue 34): the Settings section's choices
in words, the configuration's errors beyond a single value (unknown tables and keys, TOML
syntax, the file itself) and the archive's lines for journal files it cannot read — each
said in the reader's language with its values kept, the CLI's line still English."""

from __future__ import annotations

import warnings

import pytest

from controller.config import ConfigError, config_from_dict, load_config
from controller.i18n import render, text_of
from controller.journal import Journal
from controller.web.app import create_app
from controller.web.guard import Guard, policy_for

with warnings.catch_warnings():  # starlette prefers httpx2, which CI need not have
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

OWN = "http://127.0.0.1:8080"


def _error(call, *args):
    with pytest.raises(ConfigError) as caught:
        call(*args)
    return caught.value


def test_an_unknown_table_or_key_is_said_in_each_language_with_its_names():
    exc = _error(config_from_dict, {"boards": {}}, "config.toml")
    assert str(exc).startswith("config.toml: unknown section [boards] (known: board, sensing")
    said = render(text_of(exc), "de")
    assert said.startswith("config.toml: unbekannter Abschnitt [boards] (bekannt: board, sensing")
    exc = _error(config_from_dict, {"board": {"colour": "red"}}, "config.toml")
    assert render(text_of(exc), "fr").startswith(
        "config.toml : réglage inconnu board.colour (connus : layout, game")
    exc = _error(config_from_dict, {"board": 3}, "config.toml")
    assert render(text_of(exc), "zh") == "config.toml：board：应为表 [board]"
    exc = _error(config_from_dict, {"players": {"names": ["Ann"]}}, "config.toml")
    assert render(text_of(exc), "it") == "config.toml: players.names: servono almeno due nomi"
    exc = _error(config_from_dict, {"link": {"broker": "bad host!"}}, "config.toml")
    assert render(text_of(exc), "es").startswith(
        "config.toml: link.broker: 'bad host!' no es un nombre de host ni una dirección IP")


def test_the_files_own_errors_in_each_language_and_english_for_the_command_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[board\ngame = 1\n")
    exc = _error(load_config, bad)
    assert str(exc) == ("bad.toml: not valid TOML at line 1, column 7 (Expected ']' at the "
                        "end of a table declaration)")  # (what the CLI prints)
    assert render(text_of(exc), "de") == (
        "bad.toml: kein gültiges TOML in Zeile 1, Spalte 7 (Expected ']' at the end of a "
        "table declaration)")
    (tmp_path / "latin.toml").write_bytes(b"# caf\xe9\n")
    exc = _error(load_config, tmp_path / "latin.toml")
    assert render(text_of(exc), "fr") == "latin.toml: pas du texte UTF-8 (octet 5)"
    exc = _error(load_config, tmp_path / "none.toml")
    assert render(text_of(exc), "es") == (
        f"{tmp_path / 'none.toml'}: no se encuentra el archivo de configuración")
    exc = _error(load_config, tmp_path)
    assert render(text_of(exc), "it") == (
        f"{tmp_path}: è una cartella, non un file di configurazione")


def test_the_cli_prints_a_configuration_error_in_english(tmp_path, capsys):
    from controller import cli

    bad = tmp_path / "config.toml"
    bad.write_text("[boards]\n")
    assert cli.main(["run", "--config", str(bad)]) != 0
    err = capsys.readouterr().err
    assert "config.toml: unknown section [boards] (known: board," in err
    assert err.count("\n") == 1


def _journal_with_problems(journal):
    (journal / "20261201-100000-chess.jsonl").write_bytes(b"")
    (journal / "20261201-110000-chess.jsonl").write_bytes(b'{"type": "move"}\n')
    (journal / "20261201-120000-chess.jsonl").mkdir()
    return journal


def test_the_journals_unreadable_files_in_each_language(tmp_path):
    records, problems = Journal(_journal_with_problems(tmp_path)).scan()
    assert records == []
    lines = [p.line for p in problems]
    assert lines == ["20261201-100000-chess.jsonl: empty journal file",
                     "20261201-110000-chess.jsonl: line 1 is not a start record "
                     "(no start record)",
                     "20261201-120000-chess.jsonl: a folder, not a journal file"]
    assert [render(line, "de") for line in lines] == [
        "20261201-100000-chess.jsonl: leere Protokolldatei",
        "20261201-110000-chess.jsonl: Zeile 1 ist kein Startdatensatz (kein Startdatensatz)",
        "20261201-120000-chess.jsonl: ein Ordner, keine Protokolldatei"]
    assert render(lines[1], "zh") == (
        "20261201-110000-chess.jsonl: 第 1 行不是起始记录（没有起始记录）")


@pytest.mark.service(game="chess", layout="square8")
def test_the_archive_lists_the_unreadable_files_in_the_pages_language(svc):
    _journal_with_problems(svc.journal.folder)
    client = TestClient(create_app(svc))
    said = client.get("/api/games?lang=fr").json()["problems"]
    assert said == ["20261201-100000-chess.jsonl: fichier du journal vide",
                    "20261201-110000-chess.jsonl: la ligne 1 n'est pas un enregistrement "
                    "de début (pas d'enregistrement de début)",
                    "20261201-120000-chess.jsonl: un dossier, pas un fichier du journal"]
    assert client.get("/api/games").json()["problems"][0] == (
        "20261201-100000-chess.jsonl: empty journal file")


def test_a_damaged_record_is_said_in_each_language(tmp_path):
    from controller.journal import read_game
    from controller.rules import get_game

    journal = Journal(tmp_path)
    game = get_game("chess")
    writer = journal.new_game("chess", game.options, game.position_text(game.start()),
                              list(game.player_names))
    writer.move("e4", "e2e4")
    writer.close()
    with writer.path.open("ab") as f:
        f.write(b"not json\n" + b'{"type": "end"}\n')
    record = read_game(writer.path, strict=False)
    assert record.damage.endswith(": line 3 is damaged (no checksum); dropped it and 1 later "
                                  "record(s)")
    assert render(record.damage, "de").endswith(
        ": Zeile 3 ist beschädigt (keine Prüfsumme); sie und 1 spätere(r) "
        "Datensatz/Datensätze wurden verworfen")


@pytest.mark.service(game="chess", layout="square8")
def test_the_settings_choices_are_words_of_the_pages_language(svc, tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[board]\ngame = \"chess\"\n")
    client = TestClient(Guard(create_app(svc, path), policy_for("127.0.0.1", [], [], None)),
                        base_url=OWN)
    items = {s["key"]: s for s in client.get(
        "/api/settings", headers={"Accept-Language": "de"}).json()["settings"]}
    game = items["board.game"]
    assert game["value"] == "chess" and "chess" in game["choices"]  # the raw values stay
    assert game["labels"]["chess"] == "Schach"
    assert game["labels"]["laotzu"] == "Lao-Tzu-Schach (Lao Tzu Chess)"
    assert items["board.on_flag"]["labels"] == {"end": "die Partie nach den Regeln beenden",
                                                "report": "melden und weiterspielen"}
    assert items["speech.language"]["labels"]["zh"] == "中文"
    english = {s["key"]: s for s in client.get("/api/settings").json()["settings"]}
    assert english["board.game"]["labels"]["luotuoqi"] == "Lùotuoqí (Camel Chess)"
    # a configuration error other than a value's: a key the file holds that is unknown
    path.write_text("[board]\ngame = \"chess\"\ncolour = \"red\"\n")
    r = client.post("/api/settings", json={"changes": {"board.on_flag": "report"}},
                    headers={"Accept-Language": "es"})
    assert r.status_code == 400 and r.json()["error"].startswith(
        "config.toml: ajuste desconocido board.colour (conocidos: layout, game")
    path.write_text("[board\n")
    r = client.post("/api/settings", json={"changes": {"board.on_flag": "report"}},
                    headers={"Accept-Language": "it"})
    assert r.json()["error"] == (
        "config.toml: non si può leggere per modificarlo (TOML non valido alla riga 1, "
        "colonna 7 (Expected ']' at the end of a table declaration))")


@pytest.mark.service(game="chess", layout="square8")
def test_the_settings_routes_bad_requests_in_the_pages_language(svc, tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("")
    client = TestClient(Guard(create_app(svc, path), policy_for("127.0.0.1", [], [], None)),
                        base_url=OWN)
    r = client.post("/api/settings?lang=de", json={"changes": {}, "more": 1})
    assert r.status_code == 400 and r.json()["error"] == (
        "Einstellungen: unbekanntes Feld 'more' (bekannt: changes)")
    r = client.post("/api/settings?lang=fr", json={"changes": {}})
    assert r.json()["error"] == 'réglages : attendu {"changes": {"section.name": value, …}}'
    r = client.post("/api/settings/pairing?lang=zh", json={"renew": 1})
    assert r.json()["error"] == '配对：应为 {"renew": true}'
    r = client.post("/api/settings/pairing", json={"renew": 1})
    assert r.json()["error"] == 'pairing: expected {"renew": true}'


def test_the_resumed_games_damage_in_the_pages_language():
    from controller.i18n import Text
    from controller.web.texts import localise

    damage = Text.join(": ", ["g.jsonl", Text("line {line} is damaged ({problem}); dropped it",
                                             line=4, problem=Text("checksum mismatch"))])
    state = {"message": "", "choice": [], "announcements": [],
             "resume": {"id": "g", "summary": Text("coach on"), "dropped": damage}}
    assert localise(state, "es")["resume"]["dropped"] == (
        "g.jsonl: la línea 4 está dañada (la suma de comprobación no coincide); se ha "
        "descartado")
    assert localise(state, "en")["resume"]["dropped"] == (
        "g.jsonl: line 4 is damaged (checksum mismatch); dropped it")


@pytest.mark.service(game="chess", layout="square8")
def test_the_linked_boards_refusals_in_the_pages_language(svc):
    client = TestClient(create_app(svc))
    said = {action: client.post("/api/link?lang=de", json={"action": action}).json()["error"]
            for action in ("resync", "decline-takeback", "accept-invitation")}
    assert said == {"resync": "die verbundene Partie ist nicht angehalten: nichts abzugleichen",
                    "decline-takeback": "keine Zurücknahme ist verlangt",
                    "accept-invitation": "keine Einladung wartet"}
    assert client.post("/api/link", json={"action": "resync"}).json()["error"] == (
        "the linked game has not stopped: nothing to resync")


def test_a_failed_computer_is_said_in_the_pages_language(tmp_path, monkeypatch):
    import controller.opponent
    from controller.web.page import page_state
    from tests.support import failing
    from tests.support.service import make_service, play, set_up, wait_for

    monkeypatch.setattr(controller.opponent, "start_worker", failing.refuse_to_start)
    svc = make_service(tmp_path, layout="square8", game="chess", computer=["Black"])
    try:
        set_up(svc)
        play(svc, "e4")
        wait_for(svc, lambda: page_state(svc)["problems"])
        (english,) = page_state(svc)["problems"]
        (german,) = page_state(svc, lang="de")["problems"]
        assert english.startswith("The computer stopped working (")
        reason = english.removeprefix("The computer stopped working (").split(").")[0]
        assert german.startswith(f"Der Computer arbeitet nicht mehr ({reason}). Seine Züge")
    finally:
        svc.close()
