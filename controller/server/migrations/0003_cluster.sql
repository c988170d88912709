-- Several server workers on one PostgreSQL (docs/server.md, "Growing past one machine").
-- Each change of a game bumps its version under the game's row lock, so two workers never
-- both change one version of a game; a refereed game's truth (the set-up the referee drew
-- and each ply's true move) is kept where any worker's referee reads it and no player's
-- path does. Both are written only in cluster mode (NULL / 0 on one process).
ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
-- when its last change was stored (a clock runs from it on every worker; DOUBLE, as
-- PostgreSQL's REAL is 4 bytes: seconds since the epoch off by a minute)
ALTER TABLE games ADD COLUMN turned_at DOUBLE PRECISION;
ALTER TABLE games ADD COLUMN truth TEXT;   -- JSON: the true options of a refereed game
ALTER TABLE moves ADD COLUMN truth TEXT;   -- a refereed ply's true move (long notation)
