-- The lobby across workers (cluster mode; docs/server.md, "Growing past one machine"):
-- seeks, challenges and open challenges in the store, each taken by exactly one game by a
-- compare-and-set on its status (and an open challenge's version); a game's public draw
-- and takeback offers kept on its row under its version; wrong passwords counted where
-- every worker counts them. Times are seconds since the epoch in DOUBLE PRECISION (8
-- bytes on both databases: PostgreSQL's REAL is 4).
CREATE TABLE lobby_seeks (
    id TEXT PRIMARY KEY,
    account TEXT NOT NULL REFERENCES accounts(id),
    game TEXT NOT NULL,             -- the registry's name
    options TEXT NOT NULL,          -- JSON (sorted keys): the public options only
    clock_initial_ms INTEGER,
    clock_increment_ms INTEGER,
    rated INTEGER NOT NULL DEFAULT 0,
    color TEXT NOT NULL,
    worker TEXT NOT NULL,           -- the worker holding its stream ('' : none, a page's)
    status TEXT NOT NULL DEFAULT 'open',   -- open, matched, canceled
    game_id TEXT,                   -- the game that took it
    created DOUBLE PRECISION NOT NULL,
    changed DOUBLE PRECISION NOT NULL
);
CREATE INDEX lobby_seeks_status ON lobby_seeks(status);
CREATE INDEX lobby_seeks_changed ON lobby_seeks(changed);
CREATE TABLE lobby_challenges (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,             -- 'challenge' (to dest) or 'open'
    maker TEXT NOT NULL REFERENCES accounts(id),
    dest TEXT,                      -- a challenge's challenged player
    game TEXT NOT NULL,
    options TEXT NOT NULL,          -- JSON (sorted keys): the public options only
    clock_initial_ms INTEGER,
    clock_increment_ms INTEGER,
    rated INTEGER NOT NULL DEFAULT 0,
    color TEXT NOT NULL,
    users TEXT NOT NULL DEFAULT '[]',   -- JSON: an open challenge's only joiners
    joined TEXT NOT NULL DEFAULT '[]',  -- JSON: an open challenge's [account, colour]s
    status TEXT NOT NULL DEFAULT 'created', -- created, accepted, declined, canceled
    game_id TEXT,
    version INTEGER NOT NULL DEFAULT 0,     -- bumped by every change (compare-and-set)
    created DOUBLE PRECISION NOT NULL,
    changed DOUBLE PRECISION NOT NULL
);
CREATE INDEX lobby_challenges_status ON lobby_challenges(status);
CREATE INDEX lobby_challenges_changed ON lobby_challenges(changed);
-- one row: every change of the lobby bumps it (under its row lock a seek is matched, so
-- two workers' seeks never both wait unmatched), and a worker's sweep compares it
CREATE TABLE lobby_version (
    id INTEGER PRIMARY KEY,
    version INTEGER NOT NULL
);
INSERT INTO lobby_version VALUES (1, 0);
-- JSON {"draws": [seats], "takeback": seat}: the public offers standing on the game's
-- version (cluster mode; a ply, a takeback or an end clears them)
ALTER TABLE games ADD COLUMN offers TEXT;
CREATE TABLE login_failures (
    key TEXT NOT NULL,              -- "name:…" or "address:…", never a password
    at DOUBLE PRECISION NOT NULL
);
CREATE INDEX login_failures_key ON login_failures(key, at);
