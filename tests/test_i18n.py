"""The product in six languages (issue 34, languages): one catalogue per language holds
every text the page, the board's messages, errors and guidance, the LED legend and the
voice may show or say; a board message built once in English is read by each page in its
own language; an error line is answered in the language the request reads."""

from __future__ import annotations

import pytest

from controller.i18n import LANGUAGES, Text, catalogue, render
from controller.i18n import check as check_module
from controller.i18n.check import catalogue_problems
from controller.i18n.messages import STATIC, all_messages, html_words, script_messages
from controller.interaction import NOT_A_MOVE


def test_every_catalogue_is_whole():
    assert catalogue_problems() == []


def test_the_check_fails_on_a_missing_translation_and_on_a_lost_placeholder(monkeypatch):
    de = dict(catalogue("de"))
    del de["Waiting for a move"]
    de["{player} to move"] = "am Zug"
    real = check_module.catalogue
    monkeypatch.setattr(check_module, "catalogue", lambda code: de if code == "de" else real(code))
    problems = catalogue_problems()
    assert "de: no translation of 'Waiting for a move'" in problems
    assert any("'{player} to move' has the placeholders []" in p for p in problems)


def test_the_page_words_the_legend_and_the_phases_are_catalogue_messages():
    wanted = all_messages()
    index = html_words(STATIC / "index.html")
    assert {"Keep playing", "LED colours", "Offer draw", "Language"} <= index <= wanted
    app = script_messages(STATIC / "app.js")
    # the legend, the phases and texts with fields, found where app.js writes them
    assert {"a King in check", "Waiting for a move", "{player} to move",
            "The computer (level {level}) is thinking…"} <= app <= wanted
    assert script_messages(STATIC / "club.js") <= wanted


def test_a_board_message_is_rendered_in_each_language_with_its_names():
    message = Text("{piece} {cell}–{to} is not a legal move: {player} is in check; put it "
                   "back on {cell}", piece=Text("{player} {piece}", player="White",
                                                piece="Knight"),
                   cell="g1", to="g3", player="White")
    assert message == ("White Knight g1–g3 is not a legal move: White is in check; put it "
                       "back on g1")
    assert render(message, "de") == ("Springer von Weiß g1–g3 ist kein erlaubter Zug: Weiß "
                                     "steht im Schach; stelle sie zurück auf g1")
    assert render(message, "zh").startswith("白方马 g1–g3不是合法着法")
    said = {code: render(NOT_A_MOVE, code) for code in LANGUAGES}
    assert len(set(said.values())) == len(LANGUAGES) and said["en"] == NOT_A_MOVE


def test_a_broken_translation_falls_back_to_english_rather_than_failing(monkeypatch):
    from controller.i18n import text

    monkeypatch.setattr(text, "translate", lambda s: "{nope}" if s.startswith("put") else s)
    assert render(Text("put the piece back on {cell}", cell="e4"), "de") == \
        "put the piece back on e4"


@pytest.mark.service(game="chess", layout="square8")
def test_the_state_and_the_errors_in_the_pages_language(client, svc):
    svc.step(0.1)  # the first scan: the empty board is to be set up
    english = client.get("/api/state").json()
    german = client.get("/api/state?lang=de").json()
    assert english["phase"] == german["phase"] == "setup"
    assert english["message"] == "set up the position"
    assert german["message"] == "stelle die Stellung auf"
    assert client.get("/api/state", headers={"Accept-Language": "fr-FR,fr;q=0.9"}).json()[
        "message"] == "mets en place la position"
    r = client.post("/api/new-game", json={"game": "chess", "clock": "soon"},
                    headers={"Accept-Language": "it"})
    assert r.status_code == 400
    assert r.json()["error"] == ("tempo di gioco 'soon': attesi minuti come '5', '3+2', "
                                 "'5d3' o '40/90:30+30'")
    r = client.post("/api/choice", json={"index": 0}, headers={"Accept-Language": "es"})
    assert r.json()["error"] == "no hay ninguna elección que responder"
    r = client.post("/api/sim", json={"action": "lift", "spot": "e4"},
                    headers={"Accept-Language": "zh"})
    assert r.status_code == 400 and r.json()["error"] == "e4上没有可拿起的东西"
    r = client.post("/api/sim", json={"action": "lift", "spot": "e4"})
    assert r.json()["error"] == "nothing to lift on e4"  # (no language asked: the board's)
    # the request errors with a value: the value kept, the words translated
    r = client.post("/api/command", json={"command": "resign", "as": "White"},
                    headers={"Accept-Language": "de"})
    assert r.status_code == 400 and r.json()["error"].startswith(
        "command: unbekanntes Feld 'as' (bekannt: ")
    r = client.post("/api/command", json={"command": "castle"}, headers={"Accept-Language": "fr"})
    assert r.status_code == 400 and r.json()["error"].startswith(
        "commande inconnue 'castle' (parmi : offer draw, ")
    r = client.post("/api/choice", json={"index": "x"}, headers={"Accept-Language": "zh"})
    assert r.json()["error"] == "选项序号必须是整数，收到的是 'x'"


@pytest.mark.service(game="chess", layout="square8")
def test_the_texts_route(client):
    data = client.get("/api/texts?lang=zh").json()
    assert data["lang"] == "zh" and data["default"] == "en"
    assert data["texts"]["Waiting for a move"] == "等待走棋"
    assert set(data["languages"]) == set(LANGUAGES)
    assert client.get("/api/texts").json()["texts"] == {}  # the board's language: English
    r = client.get("/api/texts?lang=klingon")
    assert r.status_code == 400 and r.json()["error"].startswith("unknown language 'klingon'")
    assert client.get("/api/state?lang=klingon").status_code == 400


@pytest.mark.service(game="chess", layout="square8")
def test_a_page_that_has_not_chosen_reads_the_owners_language(client, svc):
    svc.config.speech.language = "de"  # [speech] language: the board's language
    svc.step(0.1)
    assert client.get("/api/texts").json()["lang"] == "de"
    assert client.get("/api/state").json()["message"] == "stelle die Stellung auf"
    assert client.get("/api/state?lang=en").json()["message"] == "set up the position"


@pytest.mark.service(game="chess", layout="square8")
def test_the_voice_is_heard_in_each_pages_language(client, svc):
    client.post("/api/sim", json={"action": "arrange"})
    svc.step(0.2)
    client.post("/api/sim", json={"action": "lift", "spot": "g1"})
    svc.step(0.05)
    client.post("/api/sim", json={"action": "place", "spot": "f3"})
    svc.step(0.3)
    heard = {code: client.get(f"/api/state?lang={code}").json()["announcements"]
             for code in ("en", "de", "zh", "en")}
    assert heard["en"] and all("texts" not in a for a in heard["en"])
    assert heard["en"][-1]["text"] == "Knight g1 to f3"
    assert heard["de"][-1]["text"] == "Springer g1 nach f3" and heard["de"][-1]["lang"] == "de"
    assert heard["zh"][-1]["lang"] == "zh" and "马" in heard["zh"][-1]["text"]


def test_the_new_sections_words_are_catalogue_messages():
    """The archive, settings, review, online, access and adaptive scripts say their words
    through t(…) — a t(…) nested in another call's values or in a template literal is
    found too — no script writes English outside t(…), and the settings' help lines
    (config.py's comments) are in the catalogue."""
    from controller.i18n.check import page_problems
    from controller.i18n.messages import settings_help

    names = ("archive", "settings", "review", "online", "access", "adaptive", "club")
    found = set().union(*(script_messages(STATIC / f"{name}.js") for name in names))
    assert {"{count} games in the journal.", "Save token", "No mistake the engine would name.",
            "{name} challenges you ({what})", "ply {ply} of {count}: {player} {move}",
            "playing as {name}", "none yet", "over", "No answer", "Playing {move}",
            "Adaptive: the computer plays the next game at level {level}"} <= found
    assert found <= all_messages()
    assert page_problems() == []
    helps = settings_help()
    assert "global brightness 0..1" in helps and helps <= all_messages()
    assert catalogue("de")["global brightness 0..1"] == "Gesamthelligkeit 0..1"


def test_the_page_scripts_texts_are_found_wherever_t_is_called(tmp_path):
    """Babel's extractor reads the outermost call and no template literal; the page's own
    reader finds every t("…") and every English string written outside one."""
    from controller.i18n.messages import bare_script_texts

    script = tmp_path / "x.js"
    script.write_text(r"""// a comment: t("not a text") and "Some words in a comment"
    /* el.textContent = "Not this either" */
    const re = /["'`]/g;  // a regular expression with quotes in it
    a.textContent = t("{who}: {what}", { who: t("playing as {name}", { name }),
                                          what: `${t("over")} — ${n} ${t('ply')}` });
    b.title = "Type a cell, for example c3";
    c.textContent = `Adaptive: the computer plays at level ${level}`;
    d.className = "secondary replay"; e.value = "offer draw";
    f.textContent = t("a \u201cquoted\u201d \"word\"");
    """, encoding="utf-8")
    assert script_messages(script) >= {"{who}: {what}", "playing as {name}", "over", "ply",
                                       "a “quoted” \"word\""}
    assert "not a text" not in script_messages(script)
    assert [text for _line, text in bare_script_texts(script)] == [
        "Type a cell, for example c3", "Adaptive: the computer plays at level "]
    assert [line for line, _text in bare_script_texts(script)] == [6, 7]


def test_the_online_wire_words_are_shown_in_the_pages_language():
    """The server's statuses and the online commands are wire values, kept as they are;
    the page shows each in words of its language, and the room's notices too."""
    from controller.online.game import ENDED
    from controller.online.room import ACCEPT_CHALLENGE, COMMANDS, SEEK, STOP_SEEK
    from controller.online.seat import STATUS_WORDS
    from controller.web.texts import localise_online

    wanted = all_messages()
    assert set(COMMANDS) | {SEEK, STOP_SEEK, ACCEPT_CHALLENGE} <= wanted
    assert set(ENDED) | {"created", "started", "connecting"} <= set(STATUS_WORDS)
    assert set(STATUS_WORDS.values()) <= wanted
    online = {"notices": [Text("challenge sent to {name}", name="bob"),
                          Text.join("", ["⚠ ", Text("{what}: the server cannot be reached "
                                                    "({error})", what=Text("seek"),
                                                    error="ConnectError")])],
              "game": {"status": "mate", "status_text": STATUS_WORDS["mate"]},
              "commands": ["offer draw", "resign"]}
    said = localise_online(online, "de")
    assert said["notices"] == ["Herausforderung an bob gesendet",
                               "⚠ Suche: der Server ist nicht erreichbar (ConnectError)"]
    assert said["game"] == {"status": "mate", "status_text": "Schachmatt"}
    assert said["commands"] == ["offer draw", "resign"]  # (sent back by these names)
    assert localise_online(online, "en")["notices"][0] == "challenge sent to bob"
    assert localise_online(None, "de") is None


@pytest.mark.service(game="chess", layout="square8")
def test_the_online_rooms_refusals_in_the_requests_language(client):
    r = client.post("/api/online/command", json={"command": "castle"},
                    headers={"Accept-Language": "de"})
    assert r.status_code == 400 and r.json()["error"].startswith(
        "unbekannter Online-Befehl 'castle' (einer von offer draw, accept draw, ")
    r = client.post("/api/online/seek", json={"minutes": 10}, headers={"Accept-Language": "it"})
    assert r.json()["error"] == "nessun token: imposta prima il tuo token"
    assert client.post("/api/online/seek", json={"minutes": 10}).json()["error"] == \
        "no token: set your token first"
    r = client.post("/api/online/seek", json={"minutes": "ten"}, headers={"Accept-Language": "de"})
    assert r.json()["error"] == "minutes muss eine Zahl sein, erhalten 'ten'"
    r = client.post("/api/online/token", json={"token": "not one"},
                    headers={"Accept-Language": "fr"})
    assert r.json()["error"] == ("ce n'est pas un jeton (crée-en un avec la portée board:play "
                                 "et colle-le en entier)")


def test_the_reviews_reasons_in_each_language():
    from controller.reviewing import GameReviews
    from controller.rules import get_game

    class Record:  # what the review reads of a journal record
        id, game, options, setup = "20261121-114116-chess", "chess", {}, ""
        moves, finished = [], True

        def game_rules(self):
            return get_game("chess")

    waiting = GameReviews(lambda *a: None, online=lambda: True).status(Record())
    assert waiting["status"] == "waiting"
    assert waiting["reason"] == "the review waits until the online game on the board has ended"
    assert render(waiting["reason"], "fr") == ("l'analyse attend que la partie en ligne sur "
                                               "l'échiquier soit terminée")

    def broken(*args):
        raise OSError("no worker")

    reviews = GameReviews(broken, online=lambda: False)
    assert reviews.status(Record())["status"] == "working"
    failed = reviews.status(Record())
    assert failed["status"] == "failed"
    assert render(failed["reason"], "de") == ("die Engine konnte diese Partie nicht bewerten "
                                              "(OSError); frage erneut, um es noch einmal zu "
                                              "versuchen")


def test_a_settings_error_keeps_its_values_and_translates_its_words():
    from controller.i18n import text_of
    from controller.settings import SettingsError, validate_change

    with pytest.raises(SettingsError) as caught:
        validate_change({}, {"leds.brightness": 3})
    assert str(caught.value) == "settings: leds.brightness: expected a number from 0 to 1, got 3.0"
    assert render(text_of(caught.value), "es") == (
        "settings: leds.brightness: se esperaba un número de 0 a 1, se recibió 3.0")
    with pytest.raises(SettingsError) as caught:
        validate_change({}, {"board.computer_level": 11})
    assert render(text_of(caught.value), "de") == (
        "Einstellungen: board.computer_level: erwartet eine Zahl von 1 bis 10, erhalten 11")
    with pytest.raises(SettingsError) as caught:
        validate_change({}, {"board.game": "chess", "board.computer": ["Green"]})
    assert render(text_of(caught.value), "de") == (
        "board.computer: 'Green' ist kein Spieler von Schach (Weiß, Schwarz)")


@pytest.mark.service(game="chess", layout="square8")
def test_the_archives_refusals_in_the_pages_language(client):
    r = client.get("/api/games/no!such/review?lang=de")
    assert r.status_code == 404 and r.json()["error"].startswith(
        "keine Partie 'no!such': eine Partie-ID sieht aus wie 20261121-114116-chess")
    assert client.get("/api/games/no!such/replay").json()["error"].startswith(
        "no game 'no!such': a game id looks like")


def test_the_coachs_words_and_the_resume_summary_in_the_pages_language():
    from controller.coach import Advice, evaluation_words, review_words
    from controller.web.texts import localise

    worse = review_words(Advice(best="e2e4", score=0, played="a2a3", played_mate=-3,
                                best_text="e4", played_text="a3"))
    assert worse == "a3 allows mate in 2 — e4 was better"  # (logs and journal: English)
    assert render(worse, "de") == "a3 lässt Matt in 2 zu — e4 war besser"
    lost = review_words(Advice(best="e2e4", score=150, played="a2a3", played_score=0,
                               best_text="e4", played_text="a3"))
    assert render(lost, "fr") == "a3 perd environ 1.5 pions — e4 était meilleur"
    assert render(evaluation_words(Advice(best="e2e4", score=0, mate=3)), "it") == "matto in 2"
    state = {"message": "", "choice": [], "announcements": [],
             "advice": {"coach": True, "note": {"ply": 3, "text": worse},
                        "evaluation": {"score": 0, "text": evaluation_words(
                            Advice(best="e2e4", score=0, mate=-4))}},
             "resume": {"id": "x", "summary": Text.join(", ", [
                 Text("against the computer, level {level}", level=6), "4:12 – 3:58",
                 Text("coach on")])},
             "link": {"board": "A", "problem": None, "notice": Text(
                 "the other board took moves back: take them back here too (to {ply} plies) "
                 "to agree, or play on", ply=4)}}
    said = localise(state, "es")
    assert said["advice"]["note"]["text"] == "a3 permite mate en 2 — e4 era mejor"
    assert said["advice"]["evaluation"]["text"] == "recibe mate en 2"
    assert said["advice"]["coach"] is True
    assert said["resume"]["summary"] == ("contra el ordenador, nivel 6, 4:12 – 3:58, "
                                         "entrenador activado")
    assert said["link"]["notice"].startswith("el otro tablero deshizo jugadas") and \
        "(hasta 4 medios movimientos)" in said["link"]["notice"]
    assert localise(state, "en")["advice"]["note"]["text"] == worse


def test_the_adaptive_levels_problem_in_the_pages_language():
    from controller.web.texts import localise

    problem = Text("adaptive level not saved: {problem}", problem="No space left on device")
    state = {"message": "", "choice": [], "announcements": [],
             "computer": {"players": [1], "adaptive": {"on": True, "level": 4,
                                                      "problem": problem}}}
    said = localise(state, "it")["computer"]
    assert said["adaptive"] == {"on": True, "level": 4, "problem":
                                "livello adattivo non salvato: No space left on device"}
    assert said["players"] == [1]
    assert localise(state, "en")["computer"]["adaptive"]["problem"] == problem


@pytest.mark.service(game="chess", layout="square8")
def test_a_game_the_board_cannot_play_and_a_bad_computer_level_in_the_pages_language(
        client, svc):
    """The new-game refusals with values: the words translated, the values kept (they
    were English in every language)."""
    r = client.post("/api/new-game", json={"game": "checkers"},
                    headers={"Accept-Language": "de"})
    assert r.status_code == 400
    assert r.json()["error"].startswith("unbekanntes Spiel 'checkers' (bekannt: ")
    r = client.post("/api/new-game", json={"game": "chess",
                                           "computer": {"players": [5], "level": 3}},
                    headers={"Accept-Language": "fr"})
    assert r.status_code == 400
    assert r.json()["error"] == ("ordinateur : joueurs 0..1 et un niveau 1..10, reçu "
                                 "joueurs [5] niveau 3")


def test_the_servers_pages_scripts_and_refusals_are_catalogue_messages():
    from controller.i18n.messages import SERVER_STATIC, bare_script_texts

    wanted = all_messages()
    # pages.py's words, written inside f-strings (read from the syntax tree)
    assert {"Open seeks", "Seek or challenge", "Logged in as {name}", "Offer a draw",
            "the form has expired: please send it again"} <= wanted
    play = script_messages(SERVER_STATIC / "play.js")
    assert {"Your opponent offers a draw.", "game over: {result} ({reason})",
            "{action}: are you sure? Click again"} <= play <= wanted
    assert script_messages(SERVER_STATIC / "lobby.js") <= wanted
    for name in ("play.js", "lobby.js"):
        assert bare_script_texts(SERVER_STATIC / name) == []
    # the server's refusals a page is answered with
    assert {"no such seek", "not your turn", "wrong name or password"} <= wanted
