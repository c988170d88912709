-- each board's login at the club's MQTT broker: Mosquitto's PBKDF2-SHA512 hash of the
-- board's token (controller/server/broker.py), never the token; NULL for tokens made
-- before this migration (such a board makes a new token to link over MQTT)
ALTER TABLE devices ADD COLUMN broker_hash TEXT;
