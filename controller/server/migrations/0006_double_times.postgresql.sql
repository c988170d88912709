-- PostgreSQL only: its REAL is 4 bytes (6 digits), so seconds since the epoch were stored
-- up to a minute out, and ratings rounded at every game. DOUBLE PRECISION is 8 bytes, as
-- SQLite's REAL always was (this file is recorded there as applied, with nothing to do).
ALTER TABLE schema_version ALTER COLUMN applied TYPE DOUBLE PRECISION;
ALTER TABLE accounts ALTER COLUMN created TYPE DOUBLE PRECISION;
ALTER TABLE devices ALTER COLUMN created TYPE DOUBLE PRECISION;
ALTER TABLE devices ALTER COLUMN revoked TYPE DOUBLE PRECISION;
ALTER TABLE games ALTER COLUMN created TYPE DOUBLE PRECISION;
ALTER TABLE games ALTER COLUMN ended TYPE DOUBLE PRECISION;
ALTER TABLE moves ALTER COLUMN at TYPE DOUBLE PRECISION;
ALTER TABLE ratings ALTER COLUMN rating TYPE DOUBLE PRECISION;
ALTER TABLE ratings ALTER COLUMN deviation TYPE DOUBLE PRECISION;
ALTER TABLE ratings ALTER COLUMN volatility TYPE DOUBLE PRECISION;
ALTER TABLE sessions ALTER COLUMN expires TYPE DOUBLE PRECISION;
