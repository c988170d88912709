-- The server's first schema: accounts, their boards' tokens, games, seats, moves, results.
-- Plain SQL that SQLite and PostgreSQL both read (text ids, REAL seconds since the epoch).
CREATE TABLE accounts (
    id TEXT PRIMARY KEY,            -- the name in lower case
    name TEXT NOT NULL,             -- as the player spelled it
    password_hash TEXT NOT NULL,    -- argon2id, never the password
    created REAL NOT NULL
);
CREATE TABLE devices (
    id TEXT PRIMARY KEY,
    account TEXT NOT NULL REFERENCES accounts(id),
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE, -- SHA-256 of the token, never the token
    created REAL NOT NULL,
    revoked REAL
);
CREATE INDEX devices_account ON devices(account);
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,             -- the registry's name
    options TEXT NOT NULL,          -- JSON: the public options only
    clock_initial_ms INTEGER,
    clock_increment_ms INTEGER,
    rated INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    status TEXT NOT NULL DEFAULT 'started',
    result TEXT,                    -- "1-0", "0-1", "1/2-1/2", or the game's own
    winners TEXT,                   -- JSON list of seats
    ended REAL
);
CREATE TABLE seats (
    game TEXT NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    account TEXT NOT NULL REFERENCES accounts(id),
    PRIMARY KEY (game, seat)
);
CREATE INDEX seats_account ON seats(account);
CREATE TABLE moves (
    game TEXT NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,           -- 1-based; the key makes a doubled move impossible
    move TEXT NOT NULL,             -- the game's long notation
    left_ms INTEGER,                -- the mover's clock after the move (server's truth)
    at REAL NOT NULL,
    PRIMARY KEY (game, ply)
);
CREATE TABLE ratings (
    account TEXT NOT NULL REFERENCES accounts(id),
    game TEXT NOT NULL,             -- one rating per game (registry name)
    rating REAL NOT NULL,
    deviation REAL NOT NULL,
    volatility REAL NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (account, game)
);
CREATE TABLE sessions (
    id_hash TEXT PRIMARY KEY,       -- SHA-256 of the cookie's value, never the value
    account TEXT NOT NULL REFERENCES accounts(id),
    csrf TEXT NOT NULL,             -- the token its forms carry
    expires REAL NOT NULL
);
