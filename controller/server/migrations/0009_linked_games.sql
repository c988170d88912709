-- Boards linked over MQTT join the server's games (docs/server.md, "Linked boards join the
-- server's games"): which board request became which game, kept where every worker reads
-- it, so any worker answers any board's attempt and a worker's death loses nothing.
-- A request is taken once (the key: a copy of it, QoS 1, or another worker's take of it
-- changes nothing). status: asked (a challenge or a seek waiting), live, over, declined,
-- refused.
CREATE TABLE linked_games (
    board TEXT NOT NULL,          -- the device that asked
    request_id TEXT NOT NULL,     -- the board's game id: every view and attempt names it
    game TEXT,                    -- the hub's game, once there is one
    challenge TEXT,               -- the challenge the request made, until answered
    boards TEXT NOT NULL,         -- JSON: seat -> device id, the linked seats
    names TEXT NOT NULL,          -- JSON: the seats as the views name them
    refused TEXT NOT NULL,        -- JSON: seat -> the ply its last attempt was refused for
    status TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (board, request_id)
);
CREATE INDEX linked_games_status ON linked_games (status);
CREATE INDEX linked_games_challenge ON linked_games (challenge);
