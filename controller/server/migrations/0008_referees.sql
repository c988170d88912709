-- Referee processes of their own (docs/server.md, "Growing past one machine"): a refereed
-- game is judged by the one referee process holding its lease, renewed while it lives
-- and taken over by another once it has run out; each seat's view, written by the
-- referee with each ply, is what a worker streams (a worker never reads the truth).
ALTER TABLE games ADD COLUMN referee TEXT;
ALTER TABLE games ADD COLUMN referee_until DOUBLE PRECISION;
CREATE TABLE seat_views (
    game TEXT NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    view TEXT NOT NULL,
    PRIMARY KEY (game, seat)
);
