"""The board's voice: moves and events in words (:mod:`.words`), in the listener's language
(:mod:`.lang`), spoken by espeak-ng (:mod:`.voice`), and short generated sounds
(:mod:`.sounds`).  A room of its own: it reads the rules and a viewer's sight, never the
board's internals, and what it says in a game with hidden information is built from the
listener's views alone."""
